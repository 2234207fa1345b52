/* SPDX-License-Identifier: Apache-2.0 */
/* sbatch --mail-type/--mail-user: the leading controller runs MailProg
 * (slurm.conf; /bin/mail by default) as slurmctld does:
 *   MailProg -s "Slurm Job_id=N Name=NAME Began, Queued time 00:00:01" USER
 * with no input and the job's SLURM_JOB_* variables (the names and
 * subjects of real Slurm 22.05: tests/compat/golden/slurm-mail.txt).
 * Fire and forget: a MailProg that fails is logged, the job goes on. */
#include "ctld.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/jobspec.h"
#include "common/log.h"
#include "common/timefmt.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The --mail-type flag an event needs. */
static const char *flag_of(const char *what)
{
	return !strcmp(what, "Reached time limit")	       ? "TIME_LIMIT"
	       : !strcmp(what, "Reached 90% of time limit") ? "TIME_LIMIT_90"
	       : !strcmp(what, "Reached 80% of time limit") ? "TIME_LIMIT_80"
	       : !strcmp(what, "Reached 50% of time limit") ? "TIME_LIMIT_50"
	       : !strcmp(what, "Began")			       ? "BEGIN"
	       : !strcmp(what, "Ended")	   ? "END"
	       : !strcmp(what, "Failed")   ? "FAIL"
	       : !strcmp(what, "Requeued") ? "REQUEUE"
					   : "INVALID_DEPEND";
}

static bool wants(const char *types, const char *flag)
{
	/* ALL is Slurm's BEGIN, END, FAIL, REQUEUE and INVALID_DEPEND */
	return types && (spur_jobfmt_in_list(types, flag) ||
			 (spur_jobfmt_in_list(types, "ALL") && strncmp(flag, "TIME_LIMIT", 10)));
}

/* Slurm's secs2time_str: [D-]HH:MM:SS. */
static void elapsed(int64_t secs, char *buf, size_t len)
{
	spur_duration_format_hms(secs < 0 ? 0 : secs, buf, len);
}

static void on_closed(uv_handle_t *h)
{
	free(h);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	if (status || sig)
		spur_warn("MailProg ended with %s %d", sig ? "signal" : "exit", sig ? sig : (int)status);
	uv_close((uv_handle_t *)p, on_closed);
}

/* SLURM_JOB_STDIN/STDOUT (and STDERR when -e) into v, patterns expanded
 * as on the batch host; how many. */
static size_t std_paths(const struct ctld_job *cj, const struct sched_job_info *info, char **v)
{
	json_t *m = json_copy(cj->spec);
	const char *wd = spur_json_str(cj->spec, "workdir", "/");
	char host[256] = "", out[4096];
	size_t n = 0;

	if (!m)
		return 0;
	spur_hostlist_first(cj->nodes ? cj->nodes : "", host, sizeof(host));
	json_object_set_new(m, "job_id", json_integer(cj->id));
	if (info->array_job_id) {
		json_object_set_new(m, "array_job_id", json_integer(info->array_job_id));
		json_object_set_new(m, "array_task_id", json_integer(info->array_task_id));
	}
	spur_job_output_path(m, "input", host, wd, out, sizeof(out));
	v[n++] = spur_asprintf("SLURM_JOB_STDIN=%s", *spur_json_str(m, "input", "") ? out : "/dev/null");
	spur_job_output_path(m, "output", host, wd, out, sizeof(out));
	v[n++] = spur_asprintf("SLURM_JOB_STDOUT=%s", out);
	if (*spur_json_str(m, "error", "")) {
		spur_job_output_path(m, "error", host, wd, out, sizeof(out));
		v[n++] = spur_asprintf("SLURM_JOB_STDERR=%s", out);
	}
	json_decref(m);
	return n;
}

/* The variables slurmctld gives MailProg (end ones only at the end). */
static char **mail_env(struct ctld *c, const struct ctld_job *cj, const struct sched_job_info *info,
		       const char *what, bool end)
{
	const json_t *sp = cj->spec;
	struct group *gr = getgrgid((gid_t)spur_json_int(sp, "gid", 0));
	char **v = calloc(32, sizeof(char *)), t[32];
	size_t i = 0;

	if (!v)
		return NULL;
	v[i++] = spur_asprintf("SLURM_CLUSTER_NAME=%s", c->conf->cluster_name);
	v[i++] = spur_asprintf("SLURM_JOBID=%u", cj->id);
	v[i++] = spur_asprintf("SLURM_JOB_ID=%u", cj->id);
	v[i++] = spur_asprintf("SLURM_JOB_ACCOUNT=%s", *spur_json_str(sp, "account", "")
							 ? spur_json_str(sp, "account", "")
							 : "(null)");
	v[i++] = spur_asprintf("SLURM_JOB_CPUS_PER_NODE=%u",
			       info->nalloc ? info->alloc[0].cpus : cj->cpus);
	v[i++] = spur_asprintf("SLURM_JOB_GID=%lld", (long long)spur_json_int(sp, "gid", 0));
	v[i++] = spur_asprintf("SLURM_JOB_GROUP=%s", gr ? gr->gr_name : "");
	v[i++] = spur_asprintf("SLURM_JOB_MAIL_TYPE=%s", what);
	v[i++] = spur_asprintf("SLURM_JOB_NAME=%s", spur_json_str(sp, "name", ""));
	v[i++] = spur_asprintf("SLURM_JOB_NODELIST=%s", cj->nodes ? cj->nodes : "");
	v[i++] = spur_asprintf("SLURM_JOB_NUM_NODES=%zu",
			       info->nalloc ? info->nalloc : (size_t)spur_json_int(sp, "nodes", 1));
	v[i++] = spur_asprintf("SLURM_JOB_PARTITION=%s", ctld_job_partition(c, cj, info));
	v[i++] = spur_asprintf("SLURM_JOB_RESTART_COUNT=%u", cj->runs ? cj->runs - 1 : 0);
	v[i++] = spur_asprintf("SLURM_JOB_STATE=%s", sched_job_state_name(info->state));
	i += std_paths(cj, info, v + i);
	v[i++] = spur_asprintf("SLURM_JOB_UID=%lld", (long long)spur_json_int(sp, "uid", 0));
	v[i++] = spur_asprintf("SLURM_JOB_USER=%s", spur_json_str(sp, "user", ""));
	v[i++] = spur_asprintf("SLURM_JOB_WORK_DIR=%s", spur_json_str(sp, "workdir", "/"));
	if (!strncmp(what, "Reached", 7)) { /* running: the time so far */
		elapsed(ctld_now() - info->start_time, t, sizeof(t));
		v[i++] = spur_asprintf("SLURM_JOB_RUN_TIME=%s", t);
	} else if (!end) {
		elapsed(info->start_time - info->submit_time, t, sizeof(t));
		v[i++] = spur_asprintf("SLURM_JOB_QUEUED_TIME=%s", t);
	} else {
		v[i++] = spur_asprintf("SLURM_JOB_DERIVED_EC=0");
		v[i++] = spur_asprintf("SLURM_JOB_EXIT_CODE=%d", cj->exit_code * 256);
		v[i++] = spur_asprintf("SLURM_JOB_EXIT_CODE2=%d:0", cj->exit_code);
		v[i++] = spur_asprintf("SLURM_JOB_EXIT_CODE_MAX=%d", cj->exit_code);
		elapsed(cj->start && cj->end > cj->start ? cj->end - cj->start : 0, t, sizeof(t));
		v[i++] = spur_asprintf("SLURM_JOB_RUN_TIME=%s", t);
	}
	v[i++] = spur_asprintf("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	return v;
}

/* "Began, Queued time 00:00:01" / "Ended, Run time 00:00:01, COMPLETED, ExitCode 0". */
static void subject(const struct ctld_job *cj, const struct sched_job_info *info,
		    const char *what, char *buf, size_t len)
{
	char t[32];
	int o = snprintf(buf, len, "Slurm Job_id=%u Name=%s %s", cj->id,
			 spur_json_str(cj->spec, "name", ""), what);

	if (o < 0 || (size_t)o >= len)
		return;
	if (!strcmp(what, "Began")) {
		elapsed(info->start_time - info->submit_time, t, sizeof(t));
		snprintf(buf + o, len - (size_t)o, ", Queued time %s", t);
	} else if (!strncmp(what, "Reached", 7)) {
		elapsed(ctld_now() - info->start_time, t, sizeof(t));
		snprintf(buf + o, len - (size_t)o, ", Run time %s", t);
	} else if (!strcmp(what, "Ended") || !strcmp(what, "Failed") || !strcmp(what, "Requeued")) {
		if (cj->start && cj->end) {
			elapsed(cj->end > cj->start ? cj->end - cj->start : 0, t, sizeof(t));
			o += snprintf(buf + o, len - (size_t)o, ", Run time %s", t);
		}
		if (strcmp(what, "Requeued") && (size_t)o < len)
			snprintf(buf + o, len - (size_t)o, ", %s, ExitCode %d",
				 sched_job_state_name(info->state), cj->exit_code);
	}
}

void ctld_mail_end(struct ctld *c, struct ctld_job *cj)
{
	struct sched_job_info info;
	bool failed;

	if (!spur_json_str(cj->spec, "mail_type", NULL) || sched_job_info(c->sched, cj->id, &info) ||
	    info.state == SCHED_JOB_RUNNING)
		return;
	if (info.state == SCHED_JOB_PENDING) {
		ctld_mail(c, cj, "Requeued");
		return;
	}
	/* a failed job: "Failed" when FAIL was asked for, else "Ended" (END) */
	failed = info.state != SCHED_JOB_COMPLETED && info.state != SCHED_JOB_CANCELLED;
	ctld_mail(c, cj,
		  failed && wants(spur_json_str(cj->spec, "mail_type", ""), "FAIL") ? "Failed"
										      : "Ended");
}

void ctld_mail(struct ctld *c, struct ctld_job *cj, const char *what)
{
	const char *types = spur_json_str(cj->spec, "mail_type", NULL);
	const char *prog = c->conf->mail_prog && *c->conf->mail_prog ? c->conf->mail_prog : "/bin/mail";
	const char *user = spur_json_str(cj->spec, "mail_user", spur_json_str(cj->spec, "user", ""));
	struct sched_job_info info;
	uv_process_options_t o = { 0 };
	uv_stdio_container_t stdio[3] = { { .flags = UV_IGNORE }, { .flags = UV_IGNORE },
					  { .flags = UV_INHERIT_FD, .data.fd = 2 } };
	uv_process_t *p;
	char subj[1024], to[512];
	char **env;
	int rc;

	if (!types || !wants(types, flag_of(what)) || sched_job_info(c->sched, cj->id, &info))
		return;
	snprintf(to, sizeof(to), "%s%s%s", user,
		 !strchr(user, '@') && c->conf->mail_domain && *c->conf->mail_domain ? "@" : "",
		 !strchr(user, '@') && c->conf->mail_domain ? c->conf->mail_domain : "");
	subject(cj, &info, what, subj, sizeof(subj));
	env = mail_env(c, cj, &info, what, strcmp(what, "Began") != 0);
	if (!env || !(p = calloc(1, sizeof(*p)))) {
		for (size_t i = 0; env && env[i]; i++)
			spur_free(env[i]);
		free(env);
		return;
	}
	o.file = prog;
	o.args = (char *[]){ (char *)prog, "-s", subj, to, NULL };
	o.env = env;
	o.stdio = stdio;
	o.stdio_count = 3;
	o.exit_cb = on_exit_cb;
	rc = uv_spawn(c->loop, p, &o);
	for (size_t i = 0; env[i]; i++)
		spur_free(env[i]);
	free(env);
	if (rc) {
		spur_error_log("job %u: cannot run MailProg %s: %s", cj->id, prog, uv_strerror(rc));
		uv_close((uv_handle_t *)p, on_closed);
		return;
	}
	spur_info("job %u: mail to %s: %s", cj->id, to, subj);
}

/* The thresholds Slurm mails at: the share of the limit gone, its flag
 * bit in ctld_job.limit_mails, its subject. */
static const struct {
	double share;
	const char *what;
} limit_marks[] = {
	{ 0.5, "Reached 50% of time limit" },
	{ 0.8, "Reached 80% of time limit" },
	{ 0.9, "Reached 90% of time limit" },
	{ 1.0, "Reached time limit" },
};

int64_t ctld_mail_limits(struct ctld *c, int64_t now, int64_t wake)
{
	size_t keep = 0;

	for (size_t i = 0; i < c->nlimit_mail; i++) {
		uint32_t id = c->limit_mail_ids[i];
		struct ctld_job *cj = ctld_job(c, id);
		struct sched_job_info info;
		int64_t limit;

		if (!cj || sched_job_info(c->sched, id, &info) ||
		    (info.state != SCHED_JOB_PENDING && info.state != SCHED_JOB_RUNNING))
			continue; /* ended: dropped from the list */
		c->limit_mail_ids[keep++] = id;
		if (info.state != SCHED_JOB_RUNNING || info.suspended ||
		    info.end_time == SCHED_INFINITE || info.end_time <= info.start_time)
			continue;
		limit = info.end_time - info.start_time;
		for (size_t k = 0; k < sizeof(limit_marks) / sizeof(limit_marks[0]); k++) {
			int64_t at = info.start_time + (int64_t)((double)limit * limit_marks[k].share);

			if (cj->limit_mails & (1u << k))
				continue;
			if (now >= at) {
				cj->limit_mails |= (uint8_t)(1u << k);
				ctld_mail(c, cj, limit_marks[k].what);
			} else if (at < wake) {
				wake = at;
			}
		}
	}
	c->nlimit_mail = keep;
	return wake;
}
