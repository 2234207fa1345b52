/* SPDX-License-Identifier: Apache-2.0 */
/* sstat: what a running job's steps use now, a row per step (JOBID.batch,
 * JOBID.N) summed over its nodes, measured by each node's agent: CPU time
 * and RSS of the step's processes and those they started, from /proc (as
 * Slurm's jobacct_gather/linux samples them; MaxRSS is this sample's);
 * the step's GPUs busy and in use from the node's GPU backend (NVML, amdgpu
 * sysfs), in TRESUsageInAve/Max as gres/gpuutil and gres/gpumem. */
#include "client.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SSTAT_DEFAULT "JobID,NTasks,MaxRSS,MaxRSSNode,AveRSS,AveCPU,MinCPU,TotalCPU"
#define SSTAT_MAX_NODES 1024

static const struct {
	const char *name;
	int width;
} fields[] = {
	{ "JobID", 12 }, { "NTasks", 8 },  { "MaxRSS", 10 }, { "MaxRSSNode", 10 }, { "AveRSS", 10 },
	{ "AveCPU", 10 }, { "MinCPU", 10 }, { "MinCPUNode", 10 }, { "TotalCPU", 10 },
	{ "Nodelist", 20 }, { "TRESUsageInAve", 14 }, { "TRESUsageInMax", 14 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct agg {
	char job[32], maxrss_node[64], mincpu_node[64], nodes[1024];
	uint64_t maxrss, rss_sum, cpu_sum, mincpu, maxcpu;
	unsigned tasks, nnodes;
	/* the GPUs' busy percent and memory (MB), summed per node; gpu_nodes
	 * of the nodes said */
	uint64_t gpu_util_sum, gpu_mem_sum, gpu_util_max, gpu_mem_max;
	unsigned gpu_nodes;
};

static void hms(uint64_t ms, char *buf, size_t len)
{
	uint64_t s = ms / 1000;

	if (s >= 86400)
		snprintf(buf, len, "%llu-%02llu:%02llu:%02llu", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600), (unsigned long long)(s % 3600 / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60), (unsigned long long)(s % 60));
}

/* Slurm's TRES usage text, the part Spur measures: cpu (time), mem (RSS)
 * and, where the GPUs' backend says, gres/gpumem and gres/gpuutil. Ave:
 * per node; max: the largest node's. */
static void tres(const struct agg *g, bool max, char *buf, size_t len)
{
	unsigned n = g->nnodes ? g->nnodes : 1, gn = g->gpu_nodes ? g->gpu_nodes : 1;
	char cpu[32];
	int at;

	hms(max ? g->maxcpu : g->cpu_sum / n, cpu, sizeof(cpu));
	at = snprintf(buf, len, "cpu=%s,mem=%lluK", cpu,
		      (unsigned long long)(max ? g->maxrss : g->rss_sum / n));
	if (g->gpu_nodes && at > 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, ",gres/gpumem=%lluM,gres/gpuutil=%llu",
			 (unsigned long long)(max ? g->gpu_mem_max : g->gpu_mem_sum / gn),
			 (unsigned long long)(max ? g->gpu_util_max : g->gpu_util_sum / gn));
}

static void value(const struct agg *g, int f, char *buf, size_t len)
{
	unsigned n = g->nnodes ? g->nnodes : 1;

	switch (f) {
	case 0: snprintf(buf, len, "%s", g->job); break;
	case 1: snprintf(buf, len, "%u", g->tasks); break;
	case 2: snprintf(buf, len, "%lluK", (unsigned long long)g->maxrss); break;
	case 3: snprintf(buf, len, "%s", g->maxrss_node); break;
	case 4: snprintf(buf, len, "%lluK", (unsigned long long)(g->rss_sum / n)); break;
	case 5: hms(g->tasks ? g->cpu_sum / g->tasks : 0, buf, len); break;
	case 6: hms(g->mincpu, buf, len); break;
	case 7: snprintf(buf, len, "%s", g->mincpu_node); break;
	case 8: hms(g->cpu_sum, buf, len); break;
	case 9: snprintf(buf, len, "%s", g->nodes); break;
	default: tres(g, f == 11, buf, len); break;
	}
}

/* One node's figures for one step into its row. */
static void add_node(struct agg *g, const char *node, uint64_t cpu, uint64_t rss, uint64_t peak,
		     unsigned pids)
{
	if (rss > peak) /* no peak from a cgroup here: the RSS now */
		peak = rss;
	if (peak >= g->maxrss) {
		g->maxrss = peak;
		snprintf(g->maxrss_node, sizeof(g->maxrss_node), "%s", node);
	}
	if (!g->nnodes || cpu < g->mincpu) {
		g->mincpu = cpu;
		snprintf(g->mincpu_node, sizeof(g->mincpu_node), "%s", node);
	}
	g->rss_sum += rss;
	g->cpu_sum += cpu;
	g->maxcpu = cpu > g->maxcpu ? cpu : g->maxcpu;
	g->tasks += pids;
	snprintf(g->nodes + strlen(g->nodes), sizeof(g->nodes) - strlen(g->nodes), "%s%s",
		 g->nnodes ? "," : "", node);
	g->nnodes++;
}

#define SSTAT_MAX_ROWS 64

struct rows {
	struct agg v[SSTAT_MAX_ROWS];
	int n;
};

static struct agg *row(struct rows *r, const char *label)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].job, label))
			return &r->v[i];
	if (r->n == SSTAT_MAX_ROWS)
		return NULL;
	snprintf(r->v[r->n].job, sizeof(r->v[r->n].job), "%s", label);
	return &r->v[r->n++];
}

/* JOBID.batch first, then the steps by number, as sstat lists them. */
static int row_cmp(const void *a, const void *b)
{
	const char *x = strchr(((const struct agg *)a)->job, '.'),
		   *y = strchr(((const struct agg *)b)->job, '.');
	long sx = x && strcmp(x, ".batch") ? atol(x + 1) : -1,
	     sy = y && strcmp(y, ".batch") ? atol(y + 1) : -1;

	return sx < sy ? -1 : sx > sy;
}

/* A node's frame: the batch step (the job's first node) and each step. */
static void add_frame(struct rows *r, long job, const json_t *f)
{
	const char *node = spur_json_str(f, "node", "?");
	const json_t *b = json_object_get(f, "batch"), *st;
	char label[48];
	struct agg *g;
	size_t i;

	if (!spur_json_bool(f, "measured", 0))
		return;
	snprintf(label, sizeof(label), "%ld.batch", job);
	if (b && (g = row(r, label)))
		add_node(g, node, (uint64_t)spur_json_int(b, "cpu_ms", 0),
			 (uint64_t)spur_json_int(b, "rss_kb", 0), 0, (unsigned)spur_json_int(b, "pids", 0));
	json_array_foreach(json_object_get(f, "steps"), i, st) {
		snprintf(label, sizeof(label), "%ld.%lld", job,
			 (long long)spur_json_int(st, "step_id", 0));
		if (!(g = row(r, label)))
			continue;
		add_node(g, node, (uint64_t)spur_json_int(st, "cpu_ms", 0),
			 (uint64_t)spur_json_int(st, "rss_kb", 0), 0,
			 (unsigned)spur_json_int(st, "pids", 0));
		if (json_is_object(json_object_get(st, "gpus"))) {
			const json_t *gp = json_object_get(st, "gpus");
			uint64_t u = (uint64_t)spur_json_int(gp, "util", 0),
				 m = (uint64_t)spur_json_int(gp, "mem_mb", 0);

			g->gpu_util_sum += u;
			g->gpu_mem_sum += m;
			g->gpu_util_max = u > g->gpu_util_max ? u : g->gpu_util_max;
			g->gpu_mem_max = m > g->gpu_mem_max ? m : g->gpu_mem_max;
			g->gpu_nodes++;
		}
	}
}

/* One "stat" frame from each of expect nodes, for up to wait_s seconds. */
static int gather(int lfd, int expect, int wait_s, long job, struct rows *r)
{
	time_t start = time(NULL);
	int got = 0;

	while (got < expect && time(NULL) - start <= wait_s) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct spur_error err;
		json_t *f = NULL;
		int fd;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (!spur_wire_recv(fd, &f, 5000, &err) && !strcmp(spur_json_str(f, "type", ""), "stat")) {
			add_frame(r, job, f);
			got++;
		}
		json_decref(f);
		close(fd);
	}
	return got;
}

static int pick(const char *fmt, int *cols, int max, const char *prog)
{
	int n = 0;

	for (const char *p = fmt; *p && n < max;) {
		size_t l = strcspn(p, ",");
		size_t f;

		for (f = 0; f < NFIELDS; f++)
			if (strlen(fields[f].name) == l && !strncasecmp(fields[f].name, p, l))
				break;
		if (f == NFIELDS) {
			cli_error(prog, "Invalid field requested: \"%.*s\"", (int)l, p);
			return -1;
		}
		cols[n++] = (int)f;
		p += l + (p[l] == ',');
	}
	return n;
}

static int stat_one(const char *prog, const char *jobstr, const int *cols, int n, bool parsable,
		    bool noheader)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), expect, got;
	struct rows *rows = calloc(1, sizeof(*rows));
	struct spur_error err;
	char *end, buf[1100], want[48] = "";
	long job = strtol(jobstr, &end, 10);
	json_t *r;
	int shown = 0;

	if (!rows || (*end && *end != '.') || (*end == '.' && !end[1])) {
		cli_error(prog, "Invalid job id specified: %s", jobstr);
		goto fail;
	}
	if (*end == '.') /* JOB.STEP: that step alone */
		snprintf(want, sizeof(want), "%ld.%s", job, end + 1);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, SOMAXCONN) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl)) {
		cli_error(prog, "cannot open a port for the nodes' answers");
		goto fail;
	}
	r = cli_call(json_pack("{s:s,s:i,s:i}", "type", "sstat", "job_id", (int)job, "io_port",
			       (int)ntohs(sa.sin_port)),
		     &err);
	if (!r) {
		cli_error(prog, "%s: %s", jobstr, err.msg);
		goto fail;
	}
	expect = (int)json_array_size(json_object_get(r, "nodes"));
	json_decref(r);
	got = gather(lfd, expect, 6 * (int)cli_message_timeout(), job, rows);
	close(lfd);
	if (got < expect)
		cli_error(prog, "%d of %d nodes of job %ld did not answer", expect - got, expect, job);
	if (!noheader) {
		for (int i = 0; i < n; i++) {
			if (parsable)
				printf("%s%s", fields[cols[i]].name, i + 1 < n ? "|" : "");
			else
				printf("%*s ", fields[cols[i]].width, fields[cols[i]].name);
		}
		putchar('\n');
	}
	qsort(rows->v, (size_t)rows->n, sizeof(rows->v[0]), row_cmp);
	for (int k = 0; k < rows->n; k++) {
		if (*want && strcmp(rows->v[k].job, want))
			continue;
		shown++;
		for (int i = 0; i < n; i++) {
			value(&rows->v[k], cols[i], buf, sizeof(buf));
			if (parsable)
				printf("%s%s", buf, i + 1 < n ? "|" : "");
			else
				printf("%*.*s ", fields[cols[i]].width, fields[cols[i]].width, buf);
		}
		putchar('\n');
	}
	if (*want && !shown)
		cli_error(prog, "no steps running for job %s", want);
	free(rows);
	return got < expect || (*want && !shown);
fail:
	if (lfd >= 0)
		close(lfd);
	free(rows);
	return 1;
}

int cli_sstat_main(const char *prog, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },     { "format", required_argument, NULL, 'o' },
		{ "fields", required_argument, NULL, 'o' },   { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },	      { "parsable2", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },	      { "version", no_argument, NULL, 'V' },
		{ "allsteps", no_argument, NULL, 'a' },	      { NULL, 0, NULL, 0 },
	};
	const char *jobs = NULL, *fmt = SSTAT_DEFAULT;
	bool parsable = false, noheader = false;
	char *gargv[256];
	int gargc = cli_getopt_argv(prog, argc, argv, gargv, 256), c, cols[32], n, rc = 0;

	while ((c = getopt_long(gargc, gargv, "aj:o:npPhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': break; /* every step is shown when none is named */
		case 'j': jobs = optarg; break;
		case 'o': fmt = optarg; break;
		case 'n': noheader = true; break;
		case 'p':
		case 'P': parsable = true; break;
		case 'V': cli_version(); return 0;
		case 'h': printf("Usage: sstat -j JOBID[,JOBID...] [-o FIELDS] [-n] [-p|-P]\n"); return 0;
		default:
			fprintf(stderr, "%s: the other sstat options are not supported\n", prog);
			return 1;
		}
	}
	if (!jobs && optind < gargc)
		jobs = gargv[optind];
	if (!jobs) {
		cli_error(prog, "a job is required: sstat -j JOBID");
		return 1;
	}
	if ((n = pick(fmt, cols, 32, prog)) < 0)
		return 1;
	for (const char *p = jobs; *p;) {
		char one[64];
		size_t l = strcspn(p, ",");

		snprintf(one, sizeof(one), "%.*s", (int)l, p);
		rc |= stat_one(prog, one, cols, n, parsable, noheader);
		noheader = true;
		p += l + (p[l] == ',');
	}
	return rc;
}
