/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol: the verbs that need no controller (hostlist expansion). */
#include "cli.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/conf.h"
#include "common/jobfmt.h"
#include "common/size.h"
#include "common/timefmt.h"

#include "client.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int scontrol_verb(const char *prog, int argc, char **argv);
static int one_command(const char *prog, int argc, char **words);
static void help(void);
static int interactive(const char *prog);

static int show_hostnames(const char *prog, const char *expr)
{
	struct spur_error err;
	struct spur_hostlist *hl;

	if (!expr && !(expr = getenv("SLURM_JOB_NODELIST")) && !(expr = getenv("SPUR_JOB_NODELIST"))) {
		cli_error(prog, "no hostlist given and SLURM_JOB_NODELIST is not set");
		return 1;
	}
	hl = spur_hostlist_from_expr(expr, &err);
	if (!hl) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	for (size_t i = 0; i < spur_hostlist_count(hl); i++)
		printf("%s\n", spur_hostlist_nth(hl, i));
	spur_hostlist_destroy(hl);
	return 0;
}

static int show_hostlist(const char *prog, const char *expr, int sorted)
{
	struct spur_error err;
	struct spur_hostlist *hl;
	char *s;

	if (!expr) {
		cli_error(prog, "show hostlist needs a list of host names");
		return 1;
	}
	hl = spur_hostlist_from_expr(expr, &err);
	if (!hl) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	if (sorted)
		spur_hostlist_sort(hl);
	s = spur_hostlist_ranged(hl, &err);
	spur_hostlist_destroy(hl);
	if (!s) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	printf("%s\n", s);
	spur_free(s);
	return 0;
}

static void stamp(int64_t t, char *buf, size_t len)
{
	if (t <= 0)
		snprintf(buf, len, "Unknown");
	else
		spur_time_format((time_t)t, buf, len);
}

/* scontrol's -o, -d, -a, -Q: how it prints. */
static struct {
	bool oneliner, all, quiet;
	int details, verbose;
} sc;
static FILE *out; /* stdout, or the buffer -o joins into lines */

/* scontrol -v show ...: Slurm's first line, when and how many records. */
static void say_update(size_t records)
{
	char when[32];

	if (!sc.verbose)
		return;
	spur_time_format(time(NULL), when, sizeof(when));
	fprintf(out, "last_update_time=%s, records=%zu\n", when, records);
}

/* A path pattern with the parts that do not depend on the node expanded
 * (%j %J %x %u), relative paths in the job's folder. */
static void job_path(const json_t *j, const char *pattern, char *exp, size_t len)
{
	char path[4096];
	size_t o = 0;

	snprintf(path, sizeof(path), "%s%s%s", *pattern == '/' ? "" : spur_json_str(j, "workdir", ""),
		 *pattern == '/' ? "" : "/", pattern);
	for (const char *p = path; *p && o + 32 < len; p++) {
		if (p[0] == '%' && (p[1] == 'j' || p[1] == 'J')) {
			o += (size_t)snprintf(exp + o, len - o, "%" JSON_INTEGER_FORMAT,
					      (json_int_t)spur_json_int(j, "job_id", 0));
			p++;
		} else if (p[0] == '%' && p[1] == 'x') {
			o += (size_t)snprintf(exp + o, len - o, "%s", spur_json_str(j, "name", ""));
			p++;
		} else if (p[0] == '%' && p[1] == 'u') {
			o += (size_t)snprintf(exp + o, len - o, "%s", spur_json_str(j, "user", ""));
			p++;
		} else {
			exp[o++] = *p;
		}
	}
	exp[o] = '\0';
}

static const char *nul(const json_t *j, const char *key)
{
	const char *v = spur_json_str(j, key, "");

	return *v ? v : "(null)";
}

static void job_times(const json_t *j, const char *sub, const char *st, const char *en,
		      const char *dl);

/* The lines up to the node list: who, state, times. */
static void job_head(const json_t *j, int64_t now)
{
	const char *state = spur_json_str(j, "state", "");
	int64_t start = spur_json_int(j, "start_time", 0), limit = spur_json_int(j, "time_limit", 0);
	char rt[32], lim[32], sub[32], st[32], en[32], tmin[32] = "N/A", dl[32] = "N/A", reason[256];
	struct group *gr = getgrgid((gid_t)spur_json_int(j, "gid", 0));

	/* running: so far; ended: start to end; without the time suspended */
	spur_duration_format_hms(json_object_get(j, "run_secs") ? spur_json_int(j, "run_secs", 0)
				 : !strcmp(state, "RUNNING") && start ? now - start
				 : start && spur_json_int(j, "end_time", 0) > start
					 ? spur_json_int(j, "end_time", 0) - start
					 : 0,
				 rt, sizeof(rt));
	if (limit)
		spur_duration_format_hms(limit, lim, sizeof(lim));
	else
		snprintf(lim, sizeof(lim), "UNLIMITED");
	stamp(spur_json_int(j, "submit_time", 0), sub, sizeof(sub));
	stamp(start, st, sizeof(st));
	stamp(spur_json_int(j, "end_time", 0), en, sizeof(en));
	fprintf(out, "JobId=%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
	if (json_object_get(j, "array_task_string")) /* the array's tasks with no record */
		fprintf(out, " ArrayJobId=%" JSON_INTEGER_FORMAT " ArrayTaskId=%s",
			(json_int_t)spur_json_int(j, "array_job_id", 0),
			spur_json_str(j, "array_task_string", ""));
	else if (json_object_get(j, "array_job_id"))
		fprintf(out, " ArrayJobId=%" JSON_INTEGER_FORMAT " ArrayTaskId=%" JSON_INTEGER_FORMAT,
			(json_int_t)spur_json_int(j, "array_job_id", 0),
			(json_int_t)spur_json_int(j, "array_task_id", 0));
	fprintf(out, " JobName=%s\n", spur_json_str(j, "name", ""));
	fprintf(out,
		"   UserId=%s(%" JSON_INTEGER_FORMAT ") GroupId=%s(%" JSON_INTEGER_FORMAT
		") MCS_label=N/A\n",
		spur_json_str(j, "user", ""), (json_int_t)spur_json_int(j, "uid", 0),
		gr ? gr->gr_name : "", (json_int_t)spur_json_int(j, "gid", 0));
	fprintf(out, "   Priority=%" JSON_INTEGER_FORMAT " Nice=%" JSON_INTEGER_FORMAT
		" Account=%s QOS=%s\n",
		(json_int_t)spur_json_int(j, "priority", 0), (json_int_t)spur_json_int(j, "nice", 0),
		nul(j, "account"), nul(j, "qos"));
	/* a reason with spaces (a description) with underscores, as Slurm's */
	snprintf(reason, sizeof(reason), "%s", spur_json_str(j, "reason", ""));
	for (char *p = reason; *p; p++)
		if (*p == ' ')
			*p = '_';
	fprintf(out, "   JobState=%s Reason=%s Dependency=%s\n", state, reason, nul(j, "dependency"));
	fprintf(out, "   Requeue=%d Restarts=%" JSON_INTEGER_FORMAT " BatchFlag=%d Reboot=0 ExitCode=%"
		JSON_INTEGER_FORMAT ":0\n",
		(int)spur_json_int(j, "requeue", 1), (json_int_t)spur_json_int(j, "restarts", 0),
		spur_json_bool(j, "batch", 1) ? 1 : 0, (json_int_t)spur_json_int(j, "exit_code", 0));
	if (sc.details)
		fprintf(out, "   DerivedExitCode=0:0\n");
	if (spur_json_int(j, "time_min", 0))
		spur_duration_format_hms(spur_json_int(j, "time_min", 0), tmin, sizeof(tmin));
	if (spur_json_int(j, "deadline", 0))
		stamp(spur_json_int(j, "deadline", 0), dl, sizeof(dl));
	fprintf(out, "   RunTime=%s TimeLimit=%s TimeMin=%s\n", rt, lim, tmin);
	job_times(j, sub, st, en, dl);
}

/* Slurm's lines of a job's times, after TimeLimit: submitted, eligible
 * (--begin), accruing age (Unknown while held or waiting to begin), start
 * and end, then the suspension and the last scheduling pass. */
static void job_times(const json_t *j, const char *sub, const char *st, const char *en,
		      const char *dl)
{
	int64_t submit = spur_json_int(j, "submit_time", 0), begin = spur_json_int(j, "begin", 0);
	const char *reason = spur_json_str(j, "reason", "");
	bool waits = !strcmp(spur_json_str(j, "state", ""), "PENDING") &&
		     (!strncmp(reason, "JobHeld", 7) || !strcmp(reason, "BeginTime") ||
		      !strncmp(reason, "Dependency", 10) || strchr(reason, ' '));
	char el[32], sus[32] = "None", eval[32];

	stamp(begin > submit ? begin : submit, el, sizeof(el));
	fprintf(out, "   SubmitTime=%s EligibleTime=%s\n", sub, el);
	fprintf(out, "   AccrueTime=%s\n", waits ? "Unknown" : el);
	fprintf(out, "   StartTime=%s EndTime=%s Deadline=%s\n", st, en, dl);
	if (spur_json_int(j, "suspend_time", 0))
		stamp(spur_json_int(j, "suspend_time", 0), sus, sizeof(sus));
	stamp(spur_json_int(j, "start_time", 0) ? spur_json_int(j, "start_time", 0) : submit, eval,
	      sizeof(eval));
	fprintf(out,
		"   SuspendTime=%s SecsPreSuspend=%" JSON_INTEGER_FORMAT
		" LastSchedEval=%s Scheduler=Main\n",
		sus, (json_int_t)spur_json_int(j, "pre_suspend", 0), eval);
}

/* --mail-type's lines, as Slurm prints them (its flags in its order). */
static void print_job_mail(const json_t *j)
{
	static const char *const order[] = { "INVALID_DEPEND", "BEGIN",		"END",
					     "FAIL",	       "REQUEUE",	"STAGE_OUT",
					     "TIME_LIMIT_50",  "TIME_LIMIT_80", "TIME_LIMIT_90",
					     "TIME_LIMIT" };
	const char *types = spur_json_str(j, "mail_type", "");
	char list[256] = "";
	size_t o = 0;

	if (!*types)
		return;
	/* ALL is the first six (Slurm's), not the time-limit ones */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (spur_jobfmt_in_list(types, order[i]) ||
		    (i < 6 && spur_jobfmt_in_list(types, "ALL")))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? "," : "",
					      order[i]);
	fprintf(out, "   MailUser=%s MailType=%s\n   \n",
		spur_json_str(j, "mail_user", spur_json_str(j, "user", "")), list);
}

/* Slurm's MinCPUsNode / MinMemory{Node,CPU} / MinTmpDiskNode line. */
static void print_job_mins(const json_t *j)
{
	json_int_t cpus = spur_json_int(j, "min_cpus", 0);
	json_int_t per = spur_json_int(j, "cpus_per_task", 1);
	char mem[64];

	if (cpus < per)
		cpus = per;
	json_int_t mpc = spur_json_int(j, "mem_per_cpu", 0), mpn = spur_json_int(j, "mem_per_node", 0);
	char size[32];

	spur_mem_format_mb((uint64_t)(mpc ? mpc : mpn), size, sizeof(size));
	snprintf(mem, sizeof(mem), "MinMemory%s=%s", mpc ? "CPU" : "Node", mpc || mpn ? size : "0");
	fprintf(out, "   MinCPUsNode=%" JSON_INTEGER_FORMAT " %s MinTmpDiskNode=%" JSON_INTEGER_FORMAT
		"\n", cpus, mem, (json_int_t)spur_json_int(j, "tmp_mb", 0));
}

static int print_job(const json_t *j, int64_t now)
{
	const char *nodelist = spur_json_str(j, "nodelist", ""), *o = spur_json_str(j, "output", "");
	const char *e = spur_json_str(j, "error", ""), *in = spur_json_str(j, "input", "");
	char first[256], path[4096];
	json_int_t nodes = spur_json_int(j, "nodes", 1), mem = spur_json_int(j, "mem_per_node", 0);

	job_head(j, now);
	spur_hostlist_first(nodelist, first, sizeof(first));
	fprintf(out, "   Partition=%s AllocNode:Sid=%s:%" JSON_INTEGER_FORMAT "\n",
		spur_json_str(j, "partition", ""), nul(j, "submit_host"),
		(json_int_t)spur_json_int(j, "alloc_sid", 0));
	fprintf(out, "   ReqNodeList=%s ExcNodeList=%s\n", nul(j, "nodelist_req"), nul(j, "exclude"));
	fprintf(out, "   NodeList=%s\n", *nodelist ? nodelist : "(null)");
	fprintf(out, "   BatchHost=%s\n", *first ? first : "(null)");
	fprintf(out, "   NumNodes=%" JSON_INTEGER_FORMAT " NumCPUs=%" JSON_INTEGER_FORMAT
		" NumTasks=%" JSON_INTEGER_FORMAT " CPUs/Task=%" JSON_INTEGER_FORMAT
		" ReqB:S:C:T=0:0:*:*\n",
		nodes, (json_int_t)spur_json_int(j, "num_cpus", 1),
		(json_int_t)(spur_json_int(j, "ntasks", 0) ? spur_json_int(j, "ntasks", 0) : nodes),
		(json_int_t)spur_json_int(j, "cpus_per_task", 1));
	fprintf(out, "   TRES=cpu=%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "num_cpus", 1));
	if (spur_json_int(j, "mem_alloc", 0))
		fprintf(out, ",mem=%" JSON_INTEGER_FORMAT "M", (json_int_t)spur_json_int(j, "mem_alloc", 0));
	else if (mem)
		fprintf(out, ",mem=%" JSON_INTEGER_FORMAT "M", mem * nodes);
	fprintf(out, ",node=%" JSON_INTEGER_FORMAT "\n", nodes);
	fprintf(out, "   Socks/Node=* NtasksPerN:B:S:C=%" JSON_INTEGER_FORMAT ":0:*:* CoreSpec=*\n",
		(json_int_t)spur_json_int(j, "ntasks_per_node", 0));
	print_job_mins(j);
	fprintf(out, "   Features=%s DelayBoot=00:00:00\n", nul(j, "constraint"));
	fprintf(out, "   OverSubscribe=%s Contiguous=%d Licenses=%s Network=(null)\n",
		spur_json_bool(j, "exclusive", 0)	  ? "NO"
		: spur_json_bool(j, "exclusive_user", 0) ? "USER"
		: spur_json_bool(j, "oversubscribe", 0)	  ? "YES"
							  : "OK",
		spur_json_bool(j, "contiguous", 0), nul(j, "licenses"));
	fprintf(out, "   Command=%s\n", nul(j, "command"));
	fprintf(out, "   WorkDir=%s\n", spur_json_str(j, "workdir", ""));
	if (*spur_json_str(j, "comment", ""))
		fprintf(out, "   Comment=%s \n", spur_json_str(j, "comment", ""));
	if (!spur_json_bool(j, "batch", 1))
		goto done;
	job_path(j, *e ? e : *o ? o : "slurm-%j.out", path, sizeof(path));
	fprintf(out, "   StdErr=%s\n", path);
	if (*in)
		job_path(j, in, path, sizeof(path));
	fprintf(out, "   StdIn=%s\n", *in ? path : "/dev/null");
	job_path(j, *o ? o : "slurm-%j.out", path, sizeof(path));
	fprintf(out, "   StdOut=%s\n", path);
done:
	fprintf(out, "   Power=\n");
	/* the TRES per GPU and per node, then mail: Slurm's order */
	if (spur_json_int(j, "cpus_per_gpu", 0))
		fprintf(out, "   CpusPerTres=gres:gpu:%" JSON_INTEGER_FORMAT "\n",
			(json_int_t)spur_json_int(j, "cpus_per_gpu", 0));
	if (spur_json_int(j, "mem_per_gpu", 0))
		fprintf(out, "   MemPerTres=gres:gpu:%" JSON_INTEGER_FORMAT "\n",
			(json_int_t)spur_json_int(j, "mem_per_gpu", 0));
	if (*spur_json_str(j, "gres", ""))
		fprintf(out, "   TresPerNode=gres/%s\n", spur_json_str(j, "gres", ""));
	print_job_mail(j);
	fputc('\n', out);
	return 0;
}

/* ID is N, or J_T for task T of array J; NULL: every job. */
static int show_job(const char *prog, const char *id)
{
	struct spur_error err;
	json_t *req = json_pack("{s:s}", "type", "job"), *reply, *j;
	const char *us = id ? strchr(id, '_') : NULL;
	size_t i;
	char *end;
	long n = id ? strtol(id, &end, 10) : 0;

	if (id && (n <= 0 || (*end && end != us) || (us && !us[1]))) {
		json_decref(req);
		cli_error(prog, "Invalid job id specified");
		return 1;
	}
	if (id)
		json_object_set_new(req, "job_id", json_integer(n));
	if (us)
		json_object_set_new(req, "task_id", json_integer(atol(us + 1)));
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	say_update(id ? 1 : json_array_size(json_object_get(reply, "jobs")));
	if (!id && !json_array_size(json_object_get(reply, "jobs")))
		fprintf(out, "No jobs in the system\n");
	json_array_foreach(json_object_get(reply, "jobs"), i, j)
		print_job(j, spur_json_int(reply, "now", 0));
	if (id)
		print_job(json_object_get(reply, "job"), spur_json_int(reply, "now", 0));
	json_decref(reply);
	return 0;
}

/* One running step s of job j as Slurm's scontrol prints it. */
static void print_step(const json_t *j, const json_t *s)
{
	const char *step = spur_json_str(s, "step", ""), *nodes = spur_json_str(s, "nodelist", "");
	bool batch = !strcmp(step, "batch");
	struct spur_hostlist *hl = spur_hostlist_from_expr(nodes, NULL);
	size_t nn = hl ? spur_hostlist_count(hl) : 0;
	json_int_t cpus = spur_json_int(s, "cpus", 0);
	struct passwd *pw = getpwnam(spur_json_str(j, "user", ""));
	char st[32], lim[32] = "UNLIMITED";

	spur_hostlist_destroy(hl);
	stamp(spur_json_int(s, "start", 0), st, sizeof(st));
	if (spur_json_int(s, "time_limit", 0) > 0) /* srun -t */
		spur_duration_format_hms(spur_json_int(s, "time_limit", 0), lim, sizeof(lim));
	fprintf(out, "StepId=%" JSON_INTEGER_FORMAT ".%s UserId=%" JSON_INTEGER_FORMAT
		" StartTime=%s TimeLimit=%s\n",
		(json_int_t)spur_json_int(j, "job_id", 0), step, (json_int_t)(pw ? pw->pw_uid : 0), st,
		lim);
	fprintf(out, "   State=%s Partition=%s NodeList=%s\n", spur_json_str(s, "state", ""),
		spur_json_str(j, "partition", ""), nodes);
	fprintf(out, "   Nodes=%zu CPUs=%" JSON_INTEGER_FORMAT " Tasks=%" JSON_INTEGER_FORMAT
		" Name=%s Network=(null)\n",
		nn, cpus, (json_int_t)spur_json_int(s, "ntasks", 1), spur_json_str(s, "name", ""));
	if (*spur_json_str(s, "tres", ""))
		fprintf(out, "   TRES=%s\n", spur_json_str(s, "tres", ""));
	else
		fprintf(out, "   TRES=cpu=%" JSON_INTEGER_FORMAT ",node=%zu\n", cpus, nn);
	fprintf(out, "   ResvPorts=(null)\n   CPUFreqReq=Default%s\n", batch ? "" : " Dist=Block");
	fprintf(out, "   SrunHost:Pid=%s:%" JSON_INTEGER_FORMAT "\n\n",
		*spur_json_str(s, "srun_host", "") ? spur_json_str(s, "srun_host", "") : "(null)",
		(json_int_t)spur_json_int(s, "srun_pid", 0));
}

/* scontrol show step [JOB[.STEP]]: the running steps (a batch job's
 * script is its step "batch"), from the controller's accounting. */
static int show_step(const char *prog, const char *id)
{
	struct spur_error err;
	json_t *reply, *acct = NULL;
	const json_t *j, *s;
	char *end, list[8192] = "";
	const char *dot = id ? strchr(id, '.') : NULL;
	long n = id ? strtol(id, &end, 10) : 0;
	size_t i, k, o = 0, shown = 0;

	if (id && (n <= 0 || (*end && end != dot) || (dot && !dot[1]))) {
		cli_error(prog, "Invalid job id specified");
		return 1;
	}
	if (!(reply = cli_call(id ? json_pack("{s:s,s:i}", "type", "job", "job_id", (int)n)
				  : json_pack("{s:s}", "type", "job"),
			       &err))) {
		cli_error(prog, "slurm_get_job_steps error: %s", err.msg);
		return 1;
	}
	if (id)
		json_object_set_new(reply, "jobs", json_pack("[O]", json_object_get(reply, "job")));
	json_array_foreach(json_object_get(reply, "jobs"), i, j)
		if (!strcmp(spur_json_str(j, "state", ""), "RUNNING") && o + 24 < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%lld", o ? "," : "",
					      (long long)spur_json_int(j, "job_id", 0));
	if (o && !(acct = cli_call(json_pack("{s:s,s:s}", "type", "acct", "jobs", list), &err))) {
		json_decref(reply);
		cli_error(prog, "slurm_get_job_steps error: %s", err.msg);
		return 1;
	}
	json_array_foreach(json_object_get(acct, "jobs"), i, j)
		json_array_foreach(json_object_get(j, "steps"), k, s)
			if (!strcmp(spur_json_str(s, "state", ""), "RUNNING") &&
			    (!dot || !strcmp(dot + 1, spur_json_str(s, "step", "")))) {
				print_step(j, s);
				shown++;
			}
	if (!shown)
		fprintf(out, id ? "Job step %s not found\n" : "No job steps in the system\n",
			id ? id : "");
	json_decref(reply);
	json_decref(acct);
	return 0;
}

/* A reservation's StartTime or EndTime (key) into req's "start"/"end".
 * 0, or 1 (said). */
static int resv_time(const char *prog, json_t *req, const char *key, const char *val)
{
	struct spur_error err;
	time_t t;

	if (spur_begin_parse(val, time(NULL), &t, &err)) {
		cli_error(prog, "Invalid %s: %s", key, val);
		return 1;
	}
	json_object_set_new(req, strcasecmp(key, "StartTime") ? "end" : "start",
			    json_integer((json_int_t)t));
	return 0;
}

/* scontrol create reservation KEY=VALUE...: Slurm's keys that Spur
 * builds; the others refused by name. */
static int create_resv(const char *prog, int argc, char **argv)
{
	static const struct {
		const char *key, *field;
	} strs[] = {
		{ "ReservationName", "name" }, { "Reservation", "name" }, { "Users", "users" },
		{ "Accounts", "accounts" },    { "Nodes", "nodes" },	    { "Flags", "flags" },
		{ "PartitionName", "partition" }, { "TRES", "tres" },
	};
	json_t *req = json_pack("{s:s}", "type", "resv_create"), *reply;
	struct spur_error err;
	int64_t dur = -1, secs;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char key[64];
		size_t k;

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - argv[i]) : 0, argv[i]);
		if (!eq) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			goto fail;
		}
		for (k = 0; k < sizeof(strs) / sizeof(strs[0]) && strcasecmp(key, strs[k].key); k++)
			;
		if (k < sizeof(strs) / sizeof(strs[0])) {
			json_object_set_new(req, strs[k].field, json_string(eq + 1));
		} else if (!strcasecmp(key, "StartTime") || !strcasecmp(key, "EndTime")) {
			if (resv_time(prog, req, key, eq + 1))
				goto fail;
		} else if (!strcasecmp(key, "Duration") && !spur_duration_parse(eq + 1, &secs, &err)) {
			dur = secs;
		} else if (!strcasecmp(key, "NodeCnt") && atol(eq + 1) > 0) {
			json_object_set_new(req, "node_cnt", json_integer(atol(eq + 1)));
		} else {
			cli_error(prog, "%s in a reservation is not supported by Spur (or its value is "
					"not valid)",
				  key);
			goto fail;
		}
	}
	if (dur >= 0) /* Duration: from the start (now when none) */
		json_object_set_new(req, "end",
				    json_integer((spur_json_int(req, "start", 0)
							  ? spur_json_int(req, "start", 0)
							  : (json_int_t)time(NULL)) +
						 dur));
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	printf("Reservation created: %s\n", spur_json_str(reply, "name", ""));
	json_decref(reply);
	return 0;
fail:
	json_decref(req);
	return 1;
}

/* One KEY[+-]=VALUE of scontrol update ReservationName=: into req. 0,
 * or 1 (said). */
static int update_resv_key(const char *prog, json_t *req, const char *arg)
{
	static const char *const lists[][2] = { { "Users", "users" },
						{ "Accounts", "accounts" },
						{ "Flags", "flags" } };
	const char *eq = strchr(arg, '=');
	char key[64], how[2] = "=";
	struct spur_error err;
	int64_t secs;

	if (!eq || eq == arg) {
		cli_error(prog, "Unknown parameter %s.  No reservation update.", arg);
		return 1;
	}
	if (eq[-1] == '+' || eq[-1] == '-')
		how[0] = eq[-1];
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg - (*how != '=')), arg);
	for (size_t k = 0; k < 3; k++)
		if (!strcasecmp(key, lists[k][0])) {
			char how_key[32];

			json_object_set_new(req, lists[k][1], json_string(eq + 1));
			snprintf(how_key, sizeof(how_key), "%s_how", lists[k][1]);
			json_object_set_new(req, how_key, json_string(how));
			return 0;
		}
	if (*how != '=') {
		cli_error(prog, "Unknown parameter %s.  No reservation update.", arg);
		return 1;
	}
	if (!strcasecmp(key, "StartTime") || !strcasecmp(key, "EndTime")) {
		if (resv_time(prog, req, key, eq + 1))
			return 1;
	} else if (!strcasecmp(key, "Duration") && !spur_duration_parse(eq + 1, &secs, &err)) {
		json_object_set_new(req, "duration", json_integer(secs));
	} else if (!strcasecmp(key, "Nodes") || !strcasecmp(key, "TRES")) {
		json_object_set_new(req, strcasecmp(key, "Nodes") ? "tres" : "nodes",
				    json_string(eq + 1));
	} else {
		cli_error(prog, "%s in a reservation update is not supported by Spur (or its value "
				"is not valid)",
			  key);
		return 1;
	}
	return 0;
}

/* scontrol update ReservationName=NAME KEY=VALUE...: Slurm's words. */
static int update_resv(const char *prog, int argc, char **argv)
{
	json_t *req = json_pack("{s:s,s:s}", "type", "resv_update", "name", strchr(argv[0], '=') + 1),
	       *reply;
	struct spur_error err;

	for (int i = 1; i < argc; i++)
		if (update_resv_key(prog, req, argv[i])) {
			json_decref(req);
			return 1;
		}
	reply = cli_call(req, &err);
	if (!reply) {
		const char *why = strstr(err.msg, "reservation: ");

		fprintf(stderr, "%s\n", err.msg);
		fprintf(stderr, "slurm_update error: %s\n", why ? why + 13 : err.msg);
		return 1;
	}
	json_decref(reply);
	printf("Reservation updated.\n");
	return 0;
}

static int delete_resv(const char *prog, const char *name)
{
	struct spur_error err;
	const char *eq = strchr(name, '=');
	json_t *reply = cli_call(json_pack("{s:s,s:s}", "type", "resv_delete", "name",
					   eq ? eq + 1 : name),
				 &err);

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* Are the len letters of word the first of full (at least min of them)? */
static bool abbrev_n(const char *word, size_t len, const char *full, size_t min)
{
	return len >= min && len <= strlen(full) && !strncasecmp(word, full, len);
}

static bool abbrev(const char *word, const char *full, size_t min)
{
	return abbrev_n(word, strlen(word), full, min);
}

/* Does argument a name the entity full (Slurm's "tag" test: at least
 * three letters of it, before any '=')? */
static bool entity_is(const char *a, const char *full)
{
	return abbrev_n(a, strcspn(a, "="), full, 3);
}

/* scontrol create PartitionName=NAME [Key=Value ...]: the keys as a
 * slurm.conf line (values with blanks quoted), read by the controller. */
static int create_part(const char *prog, int argc, char **argv)
{
	struct spur_error err;
	char *line = NULL;
	json_t *reply;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		bool quote = eq && strpbrk(eq + 1, " \t#");
		/* Slurm's short forms of the name's key ("partition=") */
		bool pn = eq && entity_is(argv[i], "PartitionName");
		char *next = spur_asprintf("%s%s%.*s%s%s%s%s", line ? line : "", line ? " " : "",
					   pn ? 0 : eq ? (int)(eq - argv[i] + 1) : (int)strlen(argv[i]),
					   argv[i], pn ? "PartitionName=" : "", quote ? "\"" : "",
					   eq ? eq + 1 : "", quote ? "\"" : "");

		spur_free(line);
		if (!(line = next)) {
			cli_error(prog, "out of memory");
			return 1;
		}
		if (!eq) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			spur_free(line);
			return 1;
		}
	}
	reply = cli_call(json_pack("{s:s,s:s}", "type", "part_create", "line", line), &err);
	spur_free(line);
	if (reply) {
		json_decref(reply);
		return 0;
	}
	if (!strncmp(err.msg, "Update of this parameter is not supported", 41)) {
		cli_error(prog, "%s\n", err.msg);
		cli_error(prog, "Request aborted");
	} else {
		fprintf(stderr, "Error creating the partition: %s\n", err.msg);
	}
	return 1;
}

/* scontrol create ENTITY...: a partition or a reservation, named anywhere
 * in the arguments as Slurm finds it. */
static int create_verb(const char *prog, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "too few arguments for create keyword\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		if (entity_is(argv[i], "ReservationName"))
			return strchr(argv[0], '=') ? create_resv(prog, argc, argv)
						    : create_resv(prog, argc - 1, argv + 1);
		if (entity_is(argv[i], "PartitionName"))
			return create_part(prog, argc, argv);
		if (entity_is(argv[i], "NodeName")) {
			cli_error(prog, "create NodeName: dynamic nodes are not supported by Spur");
			return 1;
		}
	}
	cli_error(prog, "Invalid creation entity: %s", argv[0]);
	return 1;
}

/* scontrol delete ENTITY=NAME (or ENTITY NAME): a partition or a
 * reservation, with Slurm's messages. */
static int delete_verb(const char *prog, int argc, char **argv)
{
	const char *eq, *name;
	struct spur_error err;
	json_t *reply;

	if (argc < 1) {
		fprintf(stderr, "too few arguments for delete keyword\n");
		return 1;
	}
	eq = strchr(argv[0], '=');
	name = eq ? eq + 1 : argc > 1 ? argv[1] : "";
	if (entity_is(argv[0], "ReservationName"))
		return delete_resv(prog, name);
	if (entity_is(argv[0], "NodeName")) {
		cli_error(prog, "delete NodeName: dynamic nodes are not supported by Spur");
		return 1;
	}
	if (!entity_is(argv[0], "PartitionName")) {
		fprintf(stderr, "Invalid deletion entity: %s\n", argv[0]);
		return 1;
	}
	reply = cli_call(json_pack("{s:s,s:s}", "type", "part_delete", "name", name), &err);
	if (reply) {
		json_decref(reply);
		return 0;
	}
	fprintf(stderr, "delete_partition %s: %s\n", argv[0], err.msg);
	return 1;
}

/* Is name this host (its name, or a loopback address)? */
static bool this_host(const char *name, const char *host)
{
	return name && (!strcmp(name, host) || !strcmp(name, "localhost") ||
			!strncmp(name, "127.", 4) || !strcmp(name, "::1"));
}

/* scontrol show daemons: the daemons slurm.conf puts on this host, by
 * Slurm's role names (slurmctld: Spur's spurctld; slurmd: spurd). */
static int show_daemons(const char *prog)
{
	const char *path = cli_conf_path(NULL);
	struct spur_error err;
	struct spur_conf *c = path ? spur_conf_load(path, 0, &err) : spur_conf_default(&err);
	char host[256] = "";
	bool ctld = false, node = false;

	if (!c) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < c->nctlds; i++)
		ctld |= this_host(c->ctlds[i].name, host) || this_host(c->ctlds[i].addr, host);
	for (size_t i = 0; i < c->nnodes; i++)
		node |= this_host(c->nodes[i].hostname, host) || this_host(c->nodes[i].addr, host);
	printf("%s%s%s\n", ctld ? "slurmctld" : "", ctld && node ? " " : "", node ? "slurmd" : "");
	spur_conf_destroy(c);
	return 0;
}

static int lic_cmp(const void *a, const void *b)
{
	return strcmp(spur_json_str(*(json_t *const *)a, "name", ""),
		      spur_json_str(*(json_t *const *)b, "name", ""));
}

/* scontrol show licenses [NAME], in Slurm's layout, by name (an unknown
 * NAME shows nothing, as in Slurm). */
static int show_licenses(const char *prog, const char *which)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "licenses"), &err), *l;
	json_t **v;
	size_t i, n;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	n = json_array_size(json_object_get(reply, "licenses"));
	v = calloc(n + 1, sizeof(*v));
	json_array_foreach(json_object_get(reply, "licenses"), i, l)
		if (v)
			v[i] = l;
	if (v)
		qsort(v, n, sizeof(*v), lic_cmp);
	for (i = 0; v && i < n; i++) {
		json_int_t total = spur_json_int(v[i], "total", 0), used = spur_json_int(v[i], "used", 0);

		if (which && strcmp(which, spur_json_str(v[i], "name", "")))
			continue;
		fprintf(out,
			"LicenseName=%s%sTotal=%" JSON_INTEGER_FORMAT " Used=%" JSON_INTEGER_FORMAT
			" Free=%" JSON_INTEGER_FORMAT " Reserved=0 Remote=no\n",
			spur_json_str(v[i], "name", ""), sc.oneliner ? " " : "\n    ", total, used,
			total - used);
	}
	free(v);
	json_decref(reply);
	return 0;
}

/* scontrol show reservation [NAME], in Slurm's layout. */
static int show_resv(const char *prog, const char *which)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "resvs"), &err), *r;
	int64_t now;
	size_t i;
	int shown = 0;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	now = spur_json_int(reply, "now", 0);
	json_array_foreach(json_object_get(reply, "reservations"), i, r) {
		char st[32], en[32], dur[32];
		int64_t s0 = spur_json_int(r, "start", 0), e0 = spur_json_int(r, "end", 0);

		if (which && strcmp(which, spur_json_str(r, "name", "")))
			continue;
		shown++;
		stamp(s0, st, sizeof(st));
		stamp(e0, en, sizeof(en));
		spur_duration_format_hms(e0 - s0, dur, sizeof(dur));
		fprintf(out, "ReservationName=%s StartTime=%s EndTime=%s Duration=%s\n",
			spur_json_str(r, "name", ""), st, en, dur);
		fprintf(out, "   Nodes=%s Features=(null) PartitionName=(null) Flags=%s\n",
			spur_json_str(r, "nodes", ""), spur_json_str(r, "flags", ""));
		if (*spur_json_str(r, "tres", "")) /* the GPUs it holds (not whole nodes) */
			fprintf(out, "   TRES=%s\n", spur_json_str(r, "tres", ""));
		fprintf(out, "   Users=%s Groups=(null) Accounts=%s Licenses=(null) State=%s\n\n",
			*spur_json_str(r, "users", "") ? spur_json_str(r, "users", "") : "(null)",
			*spur_json_str(r, "accounts", "") ? spur_json_str(r, "accounts", "") : "(null)",
			s0 <= now && now < e0 ? "ACTIVE" : "INACTIVE");
	}
	json_decref(reply);
	if (!shown && !which)
		fprintf(out, "No reservations in the system\n");
	if (which && !shown) {
		cli_error(prog, "Reservation %s not found", which);
		return 1;
	}
	return 0;
}

/* scontrol show config, in Slurm's layout. */
static int show_config(const char *prog)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "config"), &err), *p;
	char when[32];
	size_t i;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	spur_time_format((time_t)spur_json_int(reply, "now", 0), when, sizeof(when));
	fprintf(out, "Configuration data as of %s\n", when);
	json_array_foreach(json_object_get(reply, "config"), i, p)
		fprintf(out, "%-23s = %s\n", json_string_value(json_array_get(p, 0)),
			json_string_value(json_array_get(p, 1)));
	json_decref(reply);
	return 0;
}

#define JI(n, k, d) ((json_int_t)spur_json_int(n, k, d))

/* scontrol show node, as Slurm lays it out, up to Partitions=; what only
 * slurmd would measure (load, free memory, OS) says N/A. */
static void print_node(const json_t *n)
{
	char load[32] = "N/A", freem[32] = "N/A";
	const char *gres = spur_json_str(n, "gres", ""), *f = spur_json_str(n, "features", "");
	char state[64];

	snprintf(state, sizeof(state), "%s", spur_json_str(n, "state", ""));
	for (char *c = state; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	fprintf(out, "NodeName=%s Arch=x86_64 CoresPerSocket=%" JSON_INTEGER_FORMAT " \n",
		spur_json_str(n, "name", ""), JI(n, "cores_per_socket", 1));
	/* CPULoad and FreeMem: what the node's agent last said of its host */
	if (json_object_get(n, "cpu_load")) {
		snprintf(load, sizeof(load), "%.2f", (double)JI(n, "cpu_load", 0) / 100);
		snprintf(freem, sizeof(freem), "%" JSON_INTEGER_FORMAT, JI(n, "free_mem", 0));
	}
	fprintf(out, "   CPUAlloc=%" JSON_INTEGER_FORMAT " CPUEfctv=%" JSON_INTEGER_FORMAT
		" CPUTot=%" JSON_INTEGER_FORMAT " CPULoad=%s\n",
		JI(n, "alloc_cpus", 0), JI(n, "cpus", 0), JI(n, "cpus", 0), load);
	fprintf(out, "   AvailableFeatures=%s\n", *f ? f : "(null)");
	fprintf(out, "   ActiveFeatures=%s\n", *f ? f : "(null)");
	fprintf(out, "   Gres=%s\n", *gres ? gres : "(null)");
	fprintf(out, "   NodeAddr=%s NodeHostName=%s Version=22.05.8\n", spur_json_str(n, "addr", ""),
		spur_json_str(n, "hostname", ""));
	fprintf(out, "   OS=N/A \n");
	fprintf(out, "   RealMemory=%" JSON_INTEGER_FORMAT " AllocMem=%" JSON_INTEGER_FORMAT
		" FreeMem=%s Sockets=%" JSON_INTEGER_FORMAT " Boards=%" JSON_INTEGER_FORMAT "\n",
		JI(n, "memory", 0), JI(n, "alloc_memory", 0), freem, JI(n, "sockets", 1),
		JI(n, "boards", 1));
	fprintf(out, "   State=%s%s ThreadsPerCore=%" JSON_INTEGER_FORMAT " TmpDisk=%" JSON_INTEGER_FORMAT
		" Weight=%" JSON_INTEGER_FORMAT " Owner=N/A MCS_label=N/A\n",
		state, spur_json_bool(n, "agent", 1) ? "" : "+NOT_RESPONDING",
		JI(n, "threads_per_core", 1), JI(n, "tmp_disk", 0), JI(n, "weight", 1));
}

/* AllowGroups, AllowAccounts (DenyAccounts when set), AllowQos (DenyQos
 * when set), as Slurm prints the partition's access line. */
static void print_part_access(const json_t *p)
{
	fprintf(out, "   AllowGroups=%s ", spur_json_str(p, "allow_groups", "ALL"));
	if (json_object_get(p, "deny_accounts"))
		fprintf(out, "DenyAccounts=%s ", spur_json_str(p, "deny_accounts", ""));
	else
		fprintf(out, "AllowAccounts=%s ", spur_json_str(p, "allow_accounts", "ALL"));
	if (json_object_get(p, "deny_qos"))
		fprintf(out, "DenyQos=%s\n", spur_json_str(p, "deny_qos", ""));
	else
		fprintf(out, "AllowQos=%s\n", spur_json_str(p, "allow_qos", "ALL"));
}

/* OverSubscribe as Slurm prints it: NO, EXCLUSIVE, YES:N, FORCE:N (4 when
 * no count is given). */
static const char *oversubscribe(const json_t *p, char *buf, size_t len)
{
	const char *v = spur_json_str(p, "oversubscribe", "NO");

	if ((!strncasecmp(v, "YES", 3) || !strncasecmp(v, "FORCE", 5)) && !strchr(v, ':'))
		snprintf(buf, len, "%s:4", !strncasecmp(v, "YES", 3) ? "YES" : "FORCE");
	else
		snprintf(buf, len, "%s", v);
	for (char *c = buf; *c && *c != ':'; c++)
		*c = (char)toupper((unsigned char)*c);
	return buf;
}

/* JobDefaults and the memory line of scontrol show partition. */
static void print_part_defaults(const json_t *p)
{
	json_int_t cpg = spur_json_int(p, "def_cpu_per_gpu", 0), mpg = spur_json_int(p, "def_mem_per_gpu", 0);
	json_int_t mpc = spur_json_int(p, "def_mem_per_cpu", 0), mpn = spur_json_int(p, "def_mem_per_node", 0);
	json_int_t max = spur_json_int(p, "max_mem_per_node", 0);
	char def[64], maxs[32];

	if (cpg && mpg)
		fprintf(out, "   JobDefaults=DefCpuPerGPU=%" JSON_INTEGER_FORMAT ",DefMemPerGPU=%"
			JSON_INTEGER_FORMAT "\n", cpg, mpg);
	else if (cpg || mpg)
		fprintf(out, "   JobDefaults=%s=%" JSON_INTEGER_FORMAT "\n",
			cpg ? "DefCpuPerGPU" : "DefMemPerGPU", cpg ? cpg : mpg);
	else
		fprintf(out, "   JobDefaults=(null)\n");
	if (mpc)
		snprintf(def, sizeof(def), "DefMemPerCPU=%" JSON_INTEGER_FORMAT, mpc);
	else if (mpn)
		snprintf(def, sizeof(def), "DefMemPerNode=%" JSON_INTEGER_FORMAT, mpn);
	else
		snprintf(def, sizeof(def), "DefMemPerNode=UNLIMITED");
	if (max)
		snprintf(maxs, sizeof(maxs), "%" JSON_INTEGER_FORMAT, max);
	else
		snprintf(maxs, sizeof(maxs), "UNLIMITED");
	fprintf(out, "   %s MaxMemPerNode=%s\n", def, maxs);
}

/* ... and after it: TRES, and the reason with its time. */
static void print_node_tail(const json_t *n)
{
	char when[32];

	/* what slurmd would report of its host: not kept by Spur */
	fprintf(out, "   BootTime=None SlurmdStartTime=None\n   LastBusyTime=None\n");
	fprintf(out, "   CfgTRES=cpu=%" JSON_INTEGER_FORMAT ",mem=%" JSON_INTEGER_FORMAT
		"M,billing=%" JSON_INTEGER_FORMAT "\n",
		JI(n, "cpus", 0), JI(n, "memory", 0), JI(n, "cpus", 0));
	if (JI(n, "alloc_cpus", 0))
		fprintf(out, "   AllocTRES=cpu=%" JSON_INTEGER_FORMAT "%s\n", JI(n, "alloc_cpus", 0),
			"");
	else
		fprintf(out, "   AllocTRES=\n");
	fprintf(out, "   CapWatts=n/a\n   CurrentWatts=0 AveWatts=0\n"
		     "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n");
	if (*spur_json_str(n, "reason", "")) {
		stamp(JI(n, "reason_time", 0), when, sizeof(when));
		fprintf(out, "   Reason=%s [root@%s]\n", spur_json_str(n, "reason", ""), when);
	}
	fputc('\n', out);
}

static int show_nodes(const char *prog, const char *which)
{
	struct spur_error err;
	json_t *reply;
	size_t i;
	json_t *n;
	int shown = 0;
	struct spur_hostlist *want = NULL;

	/* a hostlist: node[1-2] */
	if (which && !(want = spur_hostlist_from_expr(which, &err))) {
		cli_error(prog, "Invalid node name specified: %s", which);
		return 1;
	}
	reply = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	if (!reply) {
		spur_hostlist_destroy(want);
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	say_update(json_array_size(json_object_get(reply, "nodes")));
	json_array_foreach(json_object_get(reply, "nodes"), i, n) {
		size_t p;
		json_t *pn;

		if (want && spur_hostlist_find(want, spur_json_str(n, "name", "")) < 0)
			continue;
		shown++;
		print_node(n);
		fprintf(out, "   Partitions=");
		json_array_foreach(json_object_get(n, "partitions"), p, pn)
			fprintf(out, "%s%s", p ? "," : "", json_string_value(pn));
		fprintf(out, " \n");
		print_node_tail(n);
	}
	json_decref(reply);
	spur_hostlist_destroy(want);
	if (which && !shown) {
		cli_error(prog, "Node %s not found", which);
		return 1;
	}
	return 0;
}

static void hold_failed(const char *prog, long id, const char *why)
{
	cli_error(prog, "%s for job %ld", why, id);
}

static int show_partitions(const char *prog, const char *which)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	const json_t *nodes;
	size_t i;
	json_t *p;
	int shown = 0;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	nodes = json_object_get(reply, "nodes");
	say_update(json_array_size(json_object_get(reply, "partitions")));
	json_array_foreach(json_object_get(reply, "partitions"), i, p) {
		struct spur_hostlist *hl;
		char *names, maxt[32], deft[32], maxn[32], memstr[32];
		int64_t mem = 0, mn = spur_json_int(p, "max_nodes", 0);
		int64_t cpus = 0, mt = spur_json_int(p, "max_time", -1), dt = spur_json_int(p, "default_time", -1);
		size_t k;
		json_t *ni;

		if (which && strcmp(which, spur_json_str(p, "name", "")))
			continue;
		if (!which && !sc.all && spur_json_bool(p, "hidden", 0))
			continue; /* Hidden=YES: shown with -a, or by name */
		shown++;
		hl = spur_hostlist_create();
		json_array_foreach(json_object_get(p, "nodes"), k, ni) {
			const json_t *n = json_array_get(nodes, (size_t)json_integer_value(ni));

			spur_hostlist_push(hl, spur_json_str(n, "name", ""), NULL);
			cpus += spur_json_int(n, "cpus", 0);
			mem += spur_json_int(n, "memory", 0);
		}
		names = spur_hostlist_ranged(hl, NULL);
		if (mn > 0)
			snprintf(maxn, sizeof(maxn), "%lld", (long long)mn);
		else
			snprintf(maxn, sizeof(maxn), "UNLIMITED");
		if (mt < 0 || mt >= INT64_MAX / 2)
			snprintf(maxt, sizeof(maxt), "UNLIMITED");
		else
			spur_duration_format_hms(mt, maxt, sizeof(maxt));
		if (spur_json_bool(p, "default_unlimited", 0))
			snprintf(deft, sizeof(deft), "UNLIMITED");
		else if (dt < 0 || dt >= INT64_MAX / 2 || dt == mt)
			snprintf(deft, sizeof(deft), "NONE");
		else
			spur_duration_format_hms(dt, deft, sizeof(deft));
		fprintf(out, "PartitionName=%s\n", spur_json_str(p, "name", ""));
		print_part_access(p);
		fprintf(out, "   AllocNodes=ALL Default=%s QoS=%s\n",
			spur_json_bool(p, "default", 0) ? "YES" : "NO", spur_json_str(p, "qos", "N/A"));
		fprintf(out, "   DefaultTime=%s DisableRootJobs=NO ExclusiveUser=%s GraceTime=0 "
			     "Hidden=%s\n", deft, spur_json_bool(p, "exclusive_user", 0) ? "YES" : "NO",
			spur_json_bool(p, "hidden", 0) ? "YES" : "NO");
		fprintf(out, "   MaxNodes=%s MaxTime=%s MinNodes=%" JSON_INTEGER_FORMAT
			     " LLN=NO MaxCPUsPerNode=UNLIMITED\n",
			maxn, maxt, (json_int_t)spur_json_int(p, "min_nodes", 0));
		fprintf(out, "   Nodes=%s\n", names && *names ? names : "(null)");
		fprintf(out, "   PriorityJobFactor=%" JSON_INTEGER_FORMAT " PriorityTier=%"
			     JSON_INTEGER_FORMAT " RootOnly=%s ReqResv=NO OverSubscribe=%s\n",
			(json_int_t)spur_json_int(p, "job_factor", 1), (json_int_t)spur_json_int(p, "tier", 1),
			spur_json_bool(p, "root_only", 0) ? "YES" : "NO", oversubscribe(p, maxn,
											 sizeof(maxn)));
		fprintf(out, "   OverTimeLimit=NONE PreemptMode=%s\n", spur_json_str(p, "preempt_mode", "OFF"));
		fprintf(out, "   State=%s TotalCPUs=%lld TotalNodes=%zu SelectTypeParameters=NONE\n",
			(const char *const[]){ "UP", "DOWN", "DRAIN", "INACTIVE" }
				[spur_json_int(p, "state", 0) & 3],
			(long long)cpus,
			json_array_size(json_object_get(p, "nodes")));
		print_part_defaults(p);
		spur_mem_format_mb((uint64_t)mem, memstr, sizeof(memstr));
		if (json_array_size(json_object_get(p, "nodes")))
			fprintf(out, "   TRES=cpu=%lld,mem=%s,node=%zu,billing=%lld\n\n",
				(long long)cpus, memstr, json_array_size(json_object_get(p, "nodes")),
				(long long)cpus);
		else
			fprintf(out, "   TRES=(null)\n\n");
		spur_free(names);
		spur_hostlist_destroy(hl);
	}
	json_decref(reply);
	if (which && !shown) {
		cli_error(prog, "Partition %s not found", which);
		return 1;
	}
	return 0;
}

/* The verbs that send one request per job id: hold (an admin hold when
 * root), uhold (a user hold), release, requeue, requeuehold (requeue held).
 * Returns -1 when verb is none of them. */
/* scontrol wait_job J: until the job runs on all its nodes (0), or ends
 * first (1, saying how), as Slurm's; asked each half second. */
static int wait_job(const char *prog, int argc, char **argv)
{
	struct timespec half = { 0, 500 * 1000000L };
	char *end;
	long id = argc == 1 ? strtol(argv[0], &end, 10) : 0;

	if (id <= 0 || *end) {
		cli_error(prog, "wait_job needs one job id");
		return 1;
	}
	for (;;) {
		struct spur_error err;
		json_t *r = cli_call(json_pack("{s:s,s:i}", "type", "job", "job_id", (int)id), &err);
		const char *state;
		int rc = -1;

		if (!r) {
			cli_error(prog, "%s", err.msg);
			return 1;
		}
		state = spur_json_str(json_object_get(r, "job"), "state", "");
		if (!strcmp(state, "RUNNING")) {
			rc = 0;
		} else if (strcmp(state, "PENDING") && strcmp(state, "CONFIGURING") &&
			   strcmp(state, "REQUEUED")) {
			cli_error(prog, "job %ld is %s: it will not run", id, state);
			rc = 1;
		}
		json_decref(r);
		if (rc >= 0)
			return rc;
		nanosleep(&half, NULL);
	}
}

static int job_verb(const char *prog, const char *verb, int argc, char **argv)
{
	static const struct {
		const char *verb, *type;
		int admin; /* 1 yes, 0 no, -1 when root */
	} verbs[] = {
		{ "hold", "hold", -1 },	      { "uhold", "hold", 0 },	     { "release", "release", -1 },
		{ "requeue", "requeue", 0 }, { "requeuehold", "requeue", 1 },
	};

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcasecmp(verb, verbs[i].verb))
			continue;
		json_t *extra = NULL;
		int rc;

		/* requeuehold State=SpecialExit: held in SPECIAL_EXIT, as Slurm */
		if (!strcasecmp(verb, "requeuehold") && argc > 0 &&
		    !strncasecmp(argv[0], "state=", 6)) {
			if (strcasecmp(argv[0] + 6, "specialexit")) {
				cli_error(prog, "Invalid state specification: %s", argv[0] + 6);
				return 1;
			}
			extra = json_pack("{s:b}", "special_exit", 1);
			argc--;
			argv++;
		}
		if (argc < 1) {
			json_decref(extra);
			cli_error(prog, "%s needs a job id", verb);
			return 1;
		}
		rc = cli_each_job(prog, argc, argv, verbs[i].type,
				  verbs[i].admin < 0 ? getuid() == 0 : verbs[i].admin, extra, hold_failed);
		json_decref(extra);
		return rc;
	}
	return -1;
}

/* scontrol update JobId=N [TimeLimit=T] [Nice=N] [JobName|Name=S]: the
 * fields the controller can change on a pending job. */
/* The string keys of a pending job Slurm's scontrol update takes, and
 * NumNodes; 0, or 1 said. */
static int update_key(const char *prog, const char *key, const char *v, json_t *set)
{
	static const struct {
		const char *key, *field;
	} strs[] = {
		{ "Partition", "partition" }, { "Account", "account" },	   { "QOS", "qos" },
		{ "Dependency", "dependency" }, { "Features", "constraint" },
	};
	char *end;
	long n;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcasecmp(key, strs[i].key)) {
			json_object_set_new(set, strs[i].field, json_string(v));
			return 0;
		}
	if (!strcasecmp(key, "NumNodes") || !strcasecmp(key, "ReqNodes")) {
		n = strtol(v, &end, 10); /* N, or N-M as sbatch -N: the minimum */
		if (n <= 0 || (*end && *end != '-')) {
			cli_error(prog, "Invalid node count: %s", v);
			return 1;
		}
		json_object_set_new(set, "nodes", json_integer(n));
		return 0;
	}
	if (!strcasecmp(key, "Gres") || !strcasecmp(key, "TresPerNode")) {
		/* gpu[:TYPE]:N, shard:N, or "" (none); a "gres/" prefix as
		 * show job prints it */
		json_object_set_new(set, "gres", json_string(strncmp(v, "gres/", 5) ? v : v + 5));
		return 0;
	}
	if (!strcasecmp(key, "Priority")) {
		n = strtol(v, &end, 10); /* an administrator's; 0: scontrol hold */
		if (*end || n <= 0 || n > 4000000000L) {
			cli_error(prog, "Invalid Priority value: %s (1-4000000000; scontrol hold holds a "
					"job)",
				  v);
			return 1;
		}
		json_object_set_new(set, "priority", json_integer(n));
		return 0;
	}
	cli_error(prog, "Update of %s is not supported (TimeLimit, Nice, JobName, Partition, Account, "
			"QOS, Dependency, Features, NumNodes, Gres and Priority are)",
		  key);
	return 1;
}

/* scontrol update StepId=J[.S] TimeLimit=T: a running step's own limit
 * (all of the job's running steps without .S), with Slurm's words. */
static int update_step(const char *prog, int argc, char **argv)
{
	long id = 0, step = -1;
	int64_t secs = -1;
	struct spur_error err;
	json_t *reply;
	char *end;

	for (int i = 0; i < argc; i++) {
		if (!strncasecmp(argv[i], "StepId=", 7)) {
			id = strtol(argv[i] + 7, &end, 10);
			if (*end == '.' && isdigit((unsigned char)end[1]))
				step = strtol(end + 1, &end, 10);
			if (*end || id <= 0 || id > INT32_MAX || step > INT32_MAX) {
				fprintf(stderr, "Invalid StepID parameter: %s\nRequest aborted\n", argv[i]);
				return 1;
			}
		} else if (!strncasecmp(argv[i], "TimeLimit=", 10) &&
			   (argv[i][10] == '+' || argv[i][10] == '-')) {
			cli_error(prog, "TimeLimit=+T and -T for a step are not supported by Spur");
			return 1;
		} else if (!strncasecmp(argv[i], "TimeLimit=", 10)) {
			if (spur_duration_parse(argv[i] + 10, &secs, &err)) {
				cli_error(prog, "Invalid TimeLimit value");
				return 1;
			}
			secs = secs == SPUR_TIME_INFINITE || !secs ? 0 : spur_duration_minutes_ceil(secs) * 60;
		} else {
			fprintf(stderr, "Update of this parameter is not supported: %s\nRequest aborted\n",
				argv[i]);
			return 1;
		}
	}
	if (secs < 0) {
		fprintf(stderr, "No changes specified\n");
		return 1;
	}
	reply = cli_call(json_pack("{s:s,s:i,s:i,s:I}", "type", "step_update", "job_id", (int)id,
				   "step_id", (int)step, "time_limit", (json_int_t)secs),
			 &err);
	if (!reply) {
		fprintf(stderr, "slurm_update error: %s\n", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

static int update_job(const char *prog, int argc, char **argv)
{
	json_t *set = json_object(), *reply, *req;
	struct spur_error err;
	long id = 0, task = -1;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char key[32];
		int64_t secs;

		if (!eq || (size_t)(eq - argv[i]) >= sizeof(key)) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			goto fail;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
		eq++;
		if (!strcasecmp(key, "JobId")) {
			char *end;

			id = strtol(eq, &end, 10);
			task = *end == '_' ? strtol(end + 1, &end, 10) : -1;
			if (*end || id <= 0 || (end[-1] == '_')) {
				cli_error(prog, "Invalid job id specified");
				goto fail;
			}
		} else if (!strcasecmp(key, "TimeLimit")) {
			if (spur_duration_parse(eq, &secs, &err)) {
				cli_error(prog, "Invalid TimeLimit value");
				goto fail;
			}
			secs = secs == SPUR_TIME_INFINITE || secs == 0
				       ? 0
				       : spur_duration_minutes_ceil(secs) * 60;
			json_object_set_new(set, "time_limit", json_integer(secs));
		} else if (!strcasecmp(key, "Nice")) {
			char *end;
			long v = strtol(eq, &end, 10);

			if (*end || v < 0 || v > 2147483645) {
				cli_error(prog, "Invalid nice value, must be between 0 and 2147483645");
				goto fail;
			}
			json_object_set_new(set, "nice", json_integer(v));
		} else if (!strcasecmp(key, "JobName") || !strcasecmp(key, "Name")) {
			json_object_set_new(set, "name", json_string(eq));
		} else if (update_key(prog, key, eq, set)) {
			goto fail;
		}
	}
	if (!id) {
		cli_error(prog, "update needs JobId=ID");
		goto fail;
	}
	req = json_pack("{s:s,s:i,s:o}", "type", "update", "job_id", (int)id, "set", set);
	if (task >= 0) /* J_T: that task alone; J: every task of an array */
		json_object_set_new(req, "task_id", json_integer(task));
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "%s for job %ld", err.msg, id);
		return 1;
	}
	json_decref(reply);
	return 0;
fail:
	json_decref(set);
	return 1;
}

/* scontrol update NodeName=LIST State=DRAIN|DOWN|RESUME [Reason=TEXT]: an
 * administrator drains a node, marks it down (its jobs requeue) or returns
 * it to service (a drained node's failed GPUs are trusted again). */
static int update_node(const char *prog, int argc, char **argv)
{
	const char *nodes = NULL, *state = NULL, *reason = NULL, *avail = NULL, *active = NULL;
	struct spur_error err;
	json_t *reply, *req;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			return 1;
		}
		if ((kl == 8 && !strncasecmp(argv[i], "NodeName", kl)) ||
		    (kl == 4 && !strncasecmp(argv[i], "Node", kl)))
			nodes = eq + 1;
		else if ((kl == 17 && !strncasecmp(argv[i], "AvailableFeatures", kl)) ||
			 (kl == 8 && !strncasecmp(argv[i], "Features", kl)))
			avail = eq + 1;
		else if ((kl == 14 && !strncasecmp(argv[i], "ActiveFeatures", kl)) ||
			 (kl == 11 && !strncasecmp(argv[i], "FeaturesAct", kl)))
			active = eq + 1;
		else if (kl == 5 && !strncasecmp(argv[i], "State", kl))
			state = eq + 1;
		else if (kl == 6 && !strncasecmp(argv[i], "Reason", kl))
			reason = eq + 1;
		else {
			cli_error(prog, "Update of %.*s is not supported (State, Reason, "
					"AvailableFeatures and ActiveFeatures are)",
				  (int)kl, argv[i]);
			return 1;
		}
	}
	/* no node features plugin: a node's active features are its available ones */
	if (active && (!avail || strcmp(active, avail))) {
		cli_error(prog, "ActiveFeatures other than AvailableFeatures: not supported by Spur "
				"(no node features plugin)");
		return 1;
	}
	if (!nodes || (!state && !avail)) {
		cli_error(prog, "update of a node needs NodeName= and State= or AvailableFeatures=");
		return 1;
	}
	if (state && (!strcasecmp(state, "DRAIN") || !strcasecmp(state, "DOWN")) &&
	    (!reason || !*reason)) {
		cli_error(prog, "You must specify a reason when DOWNING or DRAINING a node. "
				"Request denied");
		return 1;
	}
	req = json_pack("{s:s,s:s,s:s,s:s}", "type", "node_update", "nodes", nodes, "state",
			state ? state : "", "reason", reason ? reason : "");
	if (avail)
		json_object_set_new(req, "features", json_string(avail));
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* One key of scontrol update PartitionName=: into req; 0, or 1 said. */
static int part_key(const char *prog, const char *key, const char *v, json_t *req)
{
	struct spur_error err;
	int64_t secs;

	if (!strcasecmp(key, "State")) {
		if (strcasecmp(v, "UP") && strcasecmp(v, "DOWN") && strcasecmp(v, "DRAIN") &&
		    strcasecmp(v, "INACTIVE")) {
			cli_error(prog, "Invalid input: State=%s (UP, DOWN, DRAIN or INACTIVE)", v);
			return 1;
		}
		json_object_set_new(req, "state", json_string(v));
	} else if (!strcasecmp(key, "MaxTime") || !strcasecmp(key, "DefaultTime")) {
		bool def = !strcasecmp(key, "DefaultTime");

		if (def && !strcasecmp(v, "NONE"))
			secs = -1; /* none of its own: MaxTime's */
		else if (!strcmp(v, "-1")) /* Slurm's INFINITE */
			secs = def ? -3 : -1;
		else if (spur_duration_parse(v, &secs, &err)) {
			cli_error(prog, "Invalid input: %s=%s", key, v);
			return 1;
		} else if (secs < 0) /* UNLIMITED, INFINITE */
			secs = def ? -3 : -1;
		json_object_set_new(req, def ? "default_time" : "max_time", json_integer(secs));
	} else if (!strcasecmp(key, "MaxNodes")) {
		char *end;
		long n = strcasecmp(v, "UNLIMITED") && strcasecmp(v, "INFINITE") ? strtol(v, &end, 10)
										: -1;

		if (n != -1 && (n < 0 || *end || n > 1000000)) {
			cli_error(prog, "Invalid input: MaxNodes=%s", v);
			return 1;
		}
		json_object_set_new(req, "max_nodes", json_integer(n));
	} else if (!strcasecmp(key, "Nodes")) {
		json_object_set_new(req, "nodes", json_string(v));
	} else if (!strcasecmp(key, "Priority") || !strcasecmp(key, "PriorityTier") ||
		   !strcasecmp(key, "PriorityJobFactor")) {
		char *end;
		long n = strtol(v, &end, 10);

		if (!*v || *end || n < 0 || n > 65533) {
			cli_error(prog, "Invalid input: %s=%s", key, v);
			return 1;
		}
		if (strcasecmp(key, "PriorityJobFactor")) /* Priority: both, as Slurm's */
			json_object_set_new(req, "tier", json_integer(n));
		if (strcasecmp(key, "PriorityTier"))
			json_object_set_new(req, "job_factor", json_integer(n));
	} else {
		cli_error(prog, "Update of %s is not supported (State, MaxTime, DefaultTime, "
				"MaxNodes, Nodes, Priority, PriorityTier and PriorityJobFactor are)",
			  key);
		return 1;
	}
	return 0;
}

/* scontrol update PartitionName=P [State=S] [MaxTime=T] [DefaultTime=T]
 * [MaxNodes=N]: an administrator's change of a partition, kept by every
 * controller. */
static int update_part(const char *prog, int argc, char **argv)
{
	json_t *req = json_pack("{s:s,s:s}", "type", "part_update", "name", strchr(argv[0], '=') + 1),
	       *reply;
	struct spur_error err;

	for (int i = 1; i < argc; i++) {
		char key[64];
		const char *eq = strchr(argv[i], '=');

		if (!eq || (size_t)(eq - argv[i]) >= sizeof(key)) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			json_decref(req);
			return 1;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
		if (part_key(prog, key, eq + 1, req)) {
			json_decref(req);
			return 1;
		}
	}
	if (json_object_size(req) == 2) {
		cli_error(prog, "No changes specified");
		json_decref(req);
		return 1;
	}
	if (!(reply = cli_call(req, &err))) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* scontrol token [lifespan=SECONDS] [username=NAME]: a JWT for REST
 * clients and $SLURM_JWT, printed as Slurm prints it. */
static int token(const char *prog, int argc, char **argv)
{
	json_t *req = json_pack("{s:s}", "type", "token"), *reply;
	struct spur_error err;

	for (int i = 0; i < argc; i++) {
		char *end;

		if (!strncasecmp(argv[i], "lifespan=", 9)) {
			long v = strtol(argv[i] + 9, &end, 10);

			if (!argv[i][9] || *end || v <= 0) {
				cli_error(prog, "Invalid lifespan value: %s", argv[i] + 9);
				json_decref(req);
				return 1;
			}
			json_object_set_new(req, "lifespan", json_integer(v));
		} else if (!strncasecmp(argv[i], "username=", 9) && argv[i][9]) {
			json_object_set_new(req, "username", json_string(argv[i] + 9));
		} else {
			cli_error(prog, "Invalid token option: %s (lifespan=SECONDS, username=NAME)",
				  argv[i]);
			json_decref(req);
			return 1;
		}
	}
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "Unable to fetch JWT token: %s", err.msg);
		return 1;
	}
	printf("SLURM_JWT=%s\n", spur_json_str(reply, "token", ""));
	json_decref(reply);
	return 0;
}

/* -o: each record (lines joined by "   " indents) on one line. */
static void print_oneliner(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n' && i + 3 < len && !strncmp(buf + i + 1, "   ", 3)) {
			putchar(' ');
			i += 3;
		} else if (buf[i] == '\n' && i + 1 < len && buf[i + 1] == '\n') {
			putchar('\n');
			i++; /* the blank line between records */
		} else {
			putchar(buf[i]);
		}
	}
}

/* scontrol's options, anywhere on the line as Slurm's getopt takes them;
 * returns the index of the first word, or minus the exit code. */
static int sc_options(const char *prog, int *argc, char **argv, char **words)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },	{ "details", no_argument, NULL, 'd' },
		{ "oneliner", no_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },	{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },	{ "usage", no_argument, NULL, 'h' },
		{ "clusters", required_argument, NULL, 'M' }, { "uid", required_argument, NULL, 'u' },
		{ "json", optional_argument, NULL, 'J' }, { "yaml", optional_argument, NULL, 'Y' },
		{ "federation", no_argument, NULL, 'F' }, { "local", no_argument, NULL, 'L' },
		{ "sibling", no_argument, NULL, 'S' },	{ "future", no_argument, NULL, 'F' },
		{ "hide", no_argument, NULL, 'H' },	{ NULL, 0, NULL, 0 },
	};
	char *pargv[256 + 1];
	int pargc = cli_getopt_argv("scontrol", *argc, argv, pargv, 256), opt, n = 0, idx;

	opterr = 1;
	while ((idx = -1, opt = getopt_long(pargc, pargv, "adoQvVhM:u:F", opts, &idx)) != -1) {
		switch (opt) {
		case 'a': sc.all = true; break;
		case 'H': sc.all = false; break; /* the default: hidden partitions hidden */
		case 'd': sc.details++; break;
		case 'o': sc.oneliner = true; break;
		case 'Q': sc.quiet = true; break;
		case 'v': sc.verbose++; break;
		case 'V': cli_version(); return -1000;
		case 'h':
			help();
			return -1000;
		case '?': return -1;
		default:
			cli_error(prog, "--%s is not supported by Spur", idx >= 0 ? opts[idx].name
								   : opt == 'M' ? "clusters" : "uid");
			return -1;
		}
	}
	for (int i = optind; i < pargc && n < 256; i++)
		words[n++] = pargv[i];
	*argc = n;
	return 0;
}

int cli_scontrol_main(const char *prog, int argc, char **argv)
{
	char *words[256 + 1];
	int rc = sc_options(prog, &argc, argv, words);

	if (rc < 0)
		return rc == -1000 ? 0 : 1;
	if (!argc) /* no command: read them, as Slurm's scontrol does */
		return interactive(prog);
	return one_command(prog, argc, words);
}

/* scontrol help (and -h): the options and commands Spur builds, in
 * Slurm's layout. */
static void help(void)
{
	printf("scontrol [<OPTION>] [<COMMAND>]\n"
	       "    Valid <OPTION> values are:\n"
	       "     -a or --all: equivalent to \"all\" command\n"
	       "     -d or --details: equivalent to \"details\" command\n"
	       "     -h or --help: equivalent to \"help\" command\n"
	       "     -o or --oneliner: equivalent to \"oneliner\" command\n"
	       "     -Q or --quiet: equivalent to \"quiet\" command\n"
	       "     -V or --version: equivalent to \"version\" command\n\n"
	       "  <keyword> may be omitted from the execute line and scontrol will execute\n"
	       "  in interactive mode. It will process commands as entered until explicitly\n"
	       "  terminated.\n\n"
	       "    Valid <COMMAND> values are:\n"
	       "     create <SPECIFICATIONS>  create a new reservation.\n"
	       "     delete <SPECIFICATIONS>  delete the specified reservation.\n"
	       "     !!                       Repeat the last command entered.\n"
	       "     exit                     terminate scontrol\n"
	       "     help                     print this description of use.\n"
	       "     hold <job_list>          prevent specified job from starting.\n"
	       "     listpids <job_id<.step>> List pids associated with a Slurm job on the local node\n"
	       "     notify <job_id> msg      send message to specified job\n"
	       "     pidinfo <pid>            return slurm job information for given pid.\n"
	       "     ping                     print status of slurmctld daemons.\n"
	       "     quit                     terminate this command.\n"
	       "     reconfigure              re-read configuration files.\n"
	       "     release <job_list>       permit specified job to start.\n"
	       "     requeue <job_id>         re-queue a batch job\n"
	       "     requeuehold <job_id>     re-queue and hold a batch job\n"
	       "     resume <job_list>        resume previously suspended job.\n"
	       "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
	       "                              is all records.\n"
	       "     suspend <job_list>       susend specified job.\n"
	       "     token [lifespan=N]       get a token (JWT) for the REST API.\n"
	       "     uhold <job_list>         place user hold on specified job\n"
	       "     update <SPECIFICATIONS>  update job, node or partition configuration.\n"
	       "     version                  display tool version number.\n"
	       "     wait_job <job_id>        wait until the job is running\n\n"
	       "  <ENTITY> may be \"config\", \"hostnames\", \"hostlist\", \"hostlistsorted\",\n"
	       "       \"daemons\", \"job\", \"licenses\", \"node\", \"partition\", \"reservation\"\n"
	       "       or \"step\".\n");
}

static int one_command(const char *prog, int argc, char **words)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	out = stdout;
	if (sc.oneliner && !(out = open_memstream(&buf, &len)))
		out = stdout;
	rc = scontrol_verb(prog, argc, words);
	if (out != stdout) {
		fclose(out);
		print_oneliner(buf, len);
		free(buf);
	}
	fflush(stdout);
	return rc;
}

/* "scontrol: " and a command per line, until exit, quit or the end of
 * the input; the exit code is the last command's. */
static int interactive(const char *prog)
{
	char line[4096], last[4096] = "", *words[256 + 1], *save;
	int rc = 0, n;

	for (;;) {
		printf("scontrol: ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			break;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "!!")) /* Slurm's: the last command again */
			memcpy(line, last, sizeof(line));
		else
			memcpy(last, line, sizeof(last));
		n = 0;
		for (char *w = strtok_r(line, " \t\r\n", &save); w && n < 256;
		     w = strtok_r(NULL, " \t\r\n", &save))
			words[n++] = w;
		words[n] = NULL;
		if (!n)
			continue;
		if (!strcasecmp(words[0], "exit") || !strcasecmp(words[0], "quit"))
			break;
		rc = one_command(prog, n, words);
	}
	return rc;
}

/* A request with no arguments; its error said, exit 1. */
static int simple_call(const char *prog, const char *type)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", type), &err);

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* scontrol notify JOB MESSAGE...: to the job's salloc/srun (printed as
 * its own line); a batch job's goes to the controller's log, as Slurm's
 * goes nowhere a user sees. */
static int notify_job(const char *prog, int argc, char **argv)
{
	char msg[4096] = "", *end;
	struct spur_error err;
	size_t o = 0;
	long id;
	json_t *reply;

	if (argc < 2) {
		cli_error(prog, "notify requires a job id and a message");
		return 1;
	}
	id = strtol(argv[0], &end, 10);
	if (*end || id <= 0) {
		fprintf(stderr, "job notify failure: Invalid job id specified\n");
		return 1;
	}
	for (int i = 1; i < argc && o < sizeof(msg); i++)
		o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s%s", i > 1 ? " " : "", argv[i]);
	reply = cli_call(json_pack("{s:s,s:i,s:s}", "type", "notify", "job_id", (int)id, "message",
				   msg),
			 &err);
	if (!reply) {
		fprintf(stderr, "job notify failure: %s\n", err.msg);
		return 1;
	}
	json_decref(reply);
	return 0;
}

/* scontrol suspend|resume JOB[,JOB...] [JOB...]: each job's error said
 * as Slurm says it ("... for job N"); exit 1 if any failed. */
static int suspend_jobs(const char *prog, const char *verb, int argc, char **argv)
{
	int rc = 0;

	if (argc < 1) {
		cli_error(prog, "%s requires a job list", verb);
		return 1;
	}
	for (int i = 0; i < argc; i++)
		for (const char *p = argv[i]; *p;) {
			size_t l = strcspn(p, ",");
			char idtxt[32], *end;
			long id;
			struct spur_error err;
			json_t *reply;

			snprintf(idtxt, sizeof(idtxt), "%.*s", (int)l, p);
			p += l + (p[l] == ',');
			id = strtol(idtxt, &end, 10);
			if (*end || id <= 0) {
				cli_error(prog, "Invalid job id specified for job %s", idtxt);
				rc = 1;
				continue;
			}
			reply = cli_call(json_pack("{s:s,s:i}", "type", strcasecmp(verb, "suspend")
										  ? "resume"
										  : "suspend",
						   "job_id", (int)id),
					 &err);
			if (!reply) {
				fprintf(stderr, "%s for job %ld\n", err.msg, id);
				rc = 1;
			}
			json_decref(reply);
		}
	return rc;
}

static int scontrol_verb(const char *prog, int argc, char **argv)
{
	const char *what;
	int rc;

	if (argc >= 1 && !strcasecmp(argv[0], "help")) {
		help();
		return 0;
	}
	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fprintf(argc < 1 ? stderr : stdout,
			"Usage: %s show job ID | show node [NAME] | show hostnames [LIST] | "
			"show hostlist LIST | show hostlistsorted LIST\n",
			prog);
		return argc < 1 ? 1 : 0;
	}
	if ((rc = job_verb(prog, argv[0], argc - 1, argv + 1)) >= 0)
		return rc;
	if (!strcasecmp(argv[0], "wait_job"))
		return wait_job(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "ping"))
		return cli_scontrol_ping(prog);
	if (!strcasecmp(argv[0], "version")) {
		cli_version();
		return 0;
	}
	if (!strcasecmp(argv[0], "token"))
		return token(prog, argc - 1, argv + 1);
	if (!strncasecmp(argv[0], "reconfigure", strlen(argv[0]) > 5 ? strlen(argv[0]) : 5))
		return simple_call(prog, "reconfigure");
	if (!strcasecmp(argv[0], "write") && argc > 1 && abbrev(argv[1], "config", 1))
		return cli_write_config(prog, argc > 2 ? argv[2] : NULL);
	if (!strcasecmp(argv[0], "listpids"))
		return cli_listpids(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "pidinfo"))
		return cli_pidinfo(prog, argc > 1 ? argv[1] : NULL);
	if (!strcasecmp(argv[0], "notify"))
		return notify_job(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "suspend") || !strcasecmp(argv[0], "resume"))
		return suspend_jobs(prog, argv[0], argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update") && argc > 1 &&
	    (!strncasecmp(argv[1], "NodeName=", 9) || !strncasecmp(argv[1], "Node=", 5)))
		return update_node(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update") && argc > 1 &&
	    !strncasecmp(argv[1], "PartitionName=", 14))
		return update_part(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update") && argc > 1 && !strncasecmp(argv[1], "StepId=", 7))
		return update_step(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update") && argc > 1 &&
	    (!strncasecmp(argv[1], "ReservationName=", 16) ||
	     !strncasecmp(argv[1], "Reservation=", 12)))
		return update_resv(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update"))
		return update_job(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "create"))
		return create_verb(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "delete"))
		return delete_verb(prog, argc - 1, argv + 1);
	if (strcasecmp(argv[0], "show")) {
		cli_error(prog, "'%s' is not supported yet (show, ping, token, hold, uhold, release, "
				"requeue, requeuehold, update, create, delete, reconfigure, suspend, "
				"resume, notify, listpids, pidinfo and wait_job are)",
			  argv[0]);
		return 1;
	}
	if (argc < 2) {
		cli_error(prog, "show what? (hostnames, hostlist, hostlistsorted)");
		return 1;
	}
	what = argv[1];
	if (argc > 3) {
		cli_error(prog, "too many arguments after 'show %s'", what);
		return 1;
	}
	/* Slurm's entities, each also by its first letters (at least min), in
	 * the order Slurm tries them */
	if (abbrev(what, "config", 1))
		return show_config(prog);
	if (abbrev(what, "daemons", 1))
		return show_daemons(prog);
	if (abbrev(what, "hostnames", 5))
		return show_hostnames(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "hostlist", 5))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 0);
	if (abbrev(what, "hostlistsorted", 9))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 1);
	if (abbrev(what, "jobs", 1) || !strcasecmp(what, "jobid"))
		return show_job(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "licenses", 2))
		return show_licenses(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "nodes", 1))
		return show_nodes(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "partitions", 2))
		return show_partitions(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "reservations", 1) || abbrev(what, "reservationname", 12))
		return show_resv(prog, argc > 2 ? argv[2] : NULL);
	if (abbrev(what, "steps", 2))
		return show_step(prog, argc > 2 ? argv[2] : NULL);
	cli_error(prog, "'show %s' is not supported yet (show job, step, node, partition, "
			"reservation, licenses, config and the hostlist verbs are)",
		  what);
	return 1;
}
