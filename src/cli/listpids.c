/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol listpids [JOB[.STEP]] [NODE]: the processes of jobs on this
 * host, as Slurm lists them: a job's process is one whose environment
 * names it (SLURM_JOB_ID; SLURM_STEP_ID, else the batch step); a task's
 * own process (its parent outside the step) shows its SLURM_LOCALID and
 * SLURM_PROCID, its children "-". NODE keeps those of one simulated node
 * of this host (SLURMD_NODENAME). Only processes the caller may read are
 * seen: a user's own, root's all. */
#include "cli.h"
#include "client.h"

#include "common/timefmt.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proc_row {
	long pid, ppid;
	long job;
	char step[24], localid[16], globalid[16], node[128];
};

/* The job variables of process pid; false when it has none (or cannot be
 * read). */
static bool read_proc(long pid, struct proc_row *r)
{
	char path[64], buf[65536], *p;
	FILE *f;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->job = -1;
	snprintf(r->step, sizeof(r->step), "batch");
	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1) {
		if (!strncmp(p, "SLURM_JOB_ID=", 13))
			r->job = atol(p + 13);
		else if (!strncmp(p, "SLURM_STEP_ID=", 14))
			snprintf(r->step, sizeof(r->step), "%s", p + 14);
		else if (!strncmp(p, "SLURM_LOCALID=", 14))
			snprintf(r->localid, sizeof(r->localid), "%s", p + 14);
		else if (!strncmp(p, "SLURM_PROCID=", 13))
			snprintf(r->globalid, sizeof(r->globalid), "%s", p + 13);
		else if (!strncmp(p, "SLURMD_NODENAME=", 16))
			snprintf(r->node, sizeof(r->node), "%s", p + 16);
	}
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r"))) {
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			sscanf(p + 1, " %*c %ld", &r->ppid);
		fclose(f);
	}
	return r->job > 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;
	int s = strcmp(x->step, y->step);

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (s)
		return s;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool same_step(const struct proc_row *rows, size_t n, const struct proc_row *r)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == r->ppid)
			return rows[i].job == r->job && !strcmp(rows[i].step, r->step);
	return false;
}

int cli_pidinfo(const char *prog, const char *pidtxt)
{
	struct proc_row r;
	struct spur_error err;
	json_t *reply, *j;
	char *end, when[64];
	long pid = strtol(pidtxt ? pidtxt : "", &end, 10);
	int64_t now, ends;

	if (!pidtxt || *end || pid <= 0) {
		cli_error(prog, "pidinfo requires a process id");
		return 1;
	}
	if (!read_proc(pid, &r)) {
		cli_error(prog, "Process %ld is not part of a job on this node", pid);
		return 1;
	}
	reply = cli_call(json_pack("{s:s,s:I}", "type", "job", "job_id", (json_int_t)r.job), &err);
	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	j = json_object_get(reply, "job");
	now = spur_json_int(reply, "now", 0);
	ends = spur_json_int(j, "end_time", 0);
	if (ends) {
		spur_time_format((time_t)ends, when, sizeof(when));
		printf("Slurm JobId=%ld ends at %s\n", r.job, when);
		printf("Job remaining time is %lld seconds\n", (long long)(ends > now ? ends - now : 0));
	} else {
		printf("Slurm JobId=%ld ends at Unknown\n", r.job);
	}
	json_decref(reply);
	return 0;
}

int cli_listpids(const char *prog, int argc, char **argv)
{
	const char *which = argc > 0 ? argv[0] : NULL, *node = argc > 1 ? argv[1] : NULL;
	struct proc_row *rows = NULL;
	size_t n = 0, cap = 0;
	long job = -1;
	char step[24] = "";
	struct dirent *e;
	DIR *d;

	if (which && strcmp(which, "*")) {
		char *end;

		job = strtol(which, &end, 10);
		if (job <= 0 || (*end && *end != '.')) {
			cli_error(prog, "Invalid job id %s", which);
			return 1;
		}
		if (*end == '.')
			snprintf(step, sizeof(step), "%s", end + 1);
	}
	if (!(d = opendir("/proc"))) {
		cli_error(prog, "cannot read /proc");
		return 1;
	}
	while ((e = readdir(d))) {
		struct proc_row r;

		if (!isdigit((unsigned char)e->d_name[0]) || atol(e->d_name) == (long)getpid() ||
		    !read_proc(atol(e->d_name), &r))
			continue;
		if ((job > 0 && r.job != job) || (*step && strcmp(step, r.step)) ||
		    (node && strcmp(node, r.node)))
			continue;
		if (n == cap) {
			struct proc_row *more = realloc(rows, (cap = cap ? 2 * cap : 64) * sizeof(*rows));

			if (!more)
				break;
			rows = more;
		}
		rows[n++] = r;
	}
	closedir(d);
	if (!n && job > 0) { /* Slurm's words for a job or step with nothing here */
		char host[256] = "";

		gethostname(host, sizeof(host) - 1);
		if (*step)
			fprintf(stderr, "StepId=%ld.%s does not exist on node %s\n", job, step,
				node ? node : host);
		else
			fprintf(stderr, "Job %ld does not exist on node %s\n", job, node ? node : host);
		free(rows);
		return 1;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	printf("%-8s %-8s %-8s %-7s %-8s\n", "PID", "JOBID", "STEPID", "LOCALID", "GLOBALID");
	for (size_t i = 0; i < n; i++) {
		bool task = !same_step(rows, n, &rows[i]);
		char pid[24], jid[24];

		snprintf(pid, sizeof(pid), "%ld", rows[i].pid);
		snprintf(jid, sizeof(jid), "%ld", rows[i].job);
		printf("%-8s %-8s %-8s %-7s %-8s\n", pid, jid, rows[i].step,
		       task ? (*rows[i].localid ? rows[i].localid : "0") : "-",
		       task ? (*rows[i].globalid ? rows[i].globalid : "0") : "-");
	}
	free(rows);
	return 0;
}
