/* SPDX-License-Identifier: Apache-2.0 */
/* PrologSlurmctld and EpilogSlurmctld: run by the leading controller, as
 * slurmctld runs them, with the job's SLURM_* variables. The job launches
 * only once PrologSlurmctld succeeded; when it fails a batch job is
 * requeued held and an interactive allocation cancelled (Slurm's rules).
 * EpilogSlurmctld runs when the job ends; a failure is logged. */
#include "ctld.h"

#include "common/alloc.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hook_run {
	uv_process_t proc;
	struct ctld *c;
	uint32_t id, run;
	bool prolog;
	json_t *alloc; /* what the launch takes, once the prolog succeeded */
};

static char **hook_env(struct ctld *c, const struct ctld_job *cj, bool prolog)
{
	const json_t *sp = cj->spec;
	char **v = calloc(12, sizeof(char *));
	size_t i = 0;

	if (!v)
		return NULL;
	v[i++] = spur_asprintf("SLURM_JOB_ID=%u", cj->id);
	v[i++] = spur_asprintf("SLURM_JOB_USER=%s", spur_json_str(sp, "user", ""));
	v[i++] = spur_asprintf("SLURM_JOB_UID=%lld", (long long)spur_json_int(sp, "uid", 0));
	v[i++] = spur_asprintf("SLURM_JOB_NAME=%s", spur_json_str(sp, "name", ""));
	v[i++] = spur_asprintf("SLURM_JOB_ACCOUNT=%s", spur_json_str(sp, "account", ""));
	v[i++] = spur_asprintf("SLURM_JOB_NODELIST=%s", cj->nodes ? cj->nodes : "");
	v[i++] = spur_asprintf("SLURM_CLUSTER_NAME=%s", c->conf->cluster_name);
	v[i++] = spur_asprintf("SLURM_SCRIPT_CONTEXT=%s",
			       prolog ? "prolog_slurmctld" : "epilog_slurmctld");
	v[i++] = spur_asprintf("SLURM_JOB_EXIT_CODE=%d", cj->exit_code);
	v[i++] = spur_asprintf("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	return v;
}

static void free_env(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		spur_free(v[i]);
	free(v);
}

static void on_closed(uv_handle_t *h)
{
	struct hook_run *r = h->data;

	json_decref(r->alloc);
	free(r);
}

/* PrologSlurmctld failed: a batch job waits held, an allocation ends. */
static void prolog_failed(struct ctld *c, struct ctld_job *cj, uint32_t run)
{
	struct spur_error err;
	json_t *op = ctld_job_interactive(cj)
			     ? json_pack("{s:s,s:i,s:I}", "op", "cancel", "id", (int)cj->id, "time",
					 (json_int_t)ctld_now())
			     : json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "requeue", "id",
					 (int)cj->id, "time", (json_int_t)ctld_now(), "run",
					 (int)run, "hold", 1);

	if (ctld_commit(c, op, NULL, NULL, &err))
		spur_error_log("job %u after PrologSlurmctld: %s", cj->id, err.msg);
	json_decref(op);
	ctld_cycle_soon(c);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct hook_run *r = p->data;
	struct ctld *c = r->c;
	struct ctld_job *cj = ctld_job(c, r->id);
	struct sched_job_info info;
	bool ok = !status && !sig;

	/* the job may have ended or started again meanwhile */
	if (!cj || cj->runs != r->run || sched_job_info(c->sched, r->id, &info) ||
	    (r->prolog && info.state != SCHED_JOB_RUNNING)) {
		uv_close((uv_handle_t *)p, on_closed);
		return;
	}
	if (!ok)
		spur_warn("job %u: %s failed (%s %d)%s", r->id,
			  r->prolog ? "PrologSlurmctld" : "EpilogSlurmctld",
			  sig ? "signal" : "exit", sig ? sig : (int)status,
			  r->prolog ? (ctld_job_interactive(cj) ? ": cancelled" : ": requeued held")
				    : "");
	if (r->prolog && ok)
		ctld_launch(c, cj, r->alloc);
	else if (r->prolog)
		prolog_failed(c, cj, r->run);
	uv_close((uv_handle_t *)p, on_closed);
}

/* Run path for job cj; -1 when it could not be started. */
static int spawn(struct ctld *c, struct ctld_job *cj, const char *path, bool prolog,
		 const json_t *alloc)
{
	struct hook_run *r = calloc(1, sizeof(*r));
	uv_process_options_t o = { 0 };
	uv_stdio_container_t stdio[3] = { { .flags = UV_IGNORE }, { .flags = UV_IGNORE },
					  { .flags = UV_INHERIT_FD, .data.fd = 2 } };
	char **env = hook_env(c, cj, prolog);
	int rc;

	if (!r || !env) {
		free(r);
		free_env(env);
		return -1;
	}
	r->c = c;
	r->id = cj->id;
	r->run = cj->runs;
	r->prolog = prolog;
	r->alloc = json_incref((json_t *)alloc);
	r->proc.data = r;
	o.file = path;
	o.args = (char *[]){ (char *)path, NULL };
	o.env = env;
	o.stdio = stdio;
	o.stdio_count = 3;
	o.exit_cb = on_exit_cb;
	rc = uv_spawn(c->loop, &r->proc, &o);
	free_env(env);
	if (rc) {
		spur_error_log("job %u: cannot run %s: %s", cj->id, path, uv_strerror(rc));
		uv_close((uv_handle_t *)&r->proc, on_closed);
		return -1;
	}
	return 0;
}

void ctld_prolog_then_launch(struct ctld *c, struct ctld_job *cj, const json_t *alloc)
{
	const char *prolog = c->conf->prolog_slurmctld;

	if (!prolog || !*prolog) {
		ctld_launch(c, cj, alloc);
		return;
	}
	if (spawn(c, cj, prolog, true, alloc))
		prolog_failed(c, cj, cj->runs);
}

void ctld_epilog(struct ctld *c, struct ctld_job *cj)
{
	const char *epilog = c->conf->epilog_slurmctld;

	if (epilog && *epilog)
		spawn(c, cj, epilog, false, NULL);
}
