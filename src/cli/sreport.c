/* SPDX-License-Identifier: Apache-2.0 */
/* sreport from the controller's accounting history: cluster Utilization,
 * cluster AccountUtilizationByUser, user TopUsage, job SizesByAccount, in
 * CPU or GPU (--tres=gres/gpu) minutes, hours, seconds or percent. Spur
 * keeps no record of node down time or energy: those columns are 0, as
 * docs/options.md says. */
#include "client.h"
#include "sacctmgr.h"

#include "common/hostlist.h"
#include "common/timefmt.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct rep {
	const char *prog;
	bool parsable, parsable2, noheader, gpu;
	char unit; /* 'm' minutes, 'h' hours, 's' seconds, 'p' percent */
	time_t start, end;
	double capacity; /* CPU (or GPU) seconds the cluster had in the period */
	const char *cluster;
	json_t *jobs;
	json_t *nodes; /* the controller's "nodes" answer */
};

/* A job's CPU (or GPU) seconds inside the period. */
static double job_secs(const struct rep *r, const json_t *j, time_t now)
{
	time_t s = (time_t)spur_json_int(j, "start", 0), e = (time_t)spur_json_int(j, "end", 0);

	if (!s)
		return 0;
	if (!e)
		e = now;
	s = s < r->start ? r->start : s;
	e = e > r->end ? r->end : e;
	if (e <= s)
		return 0;
	return (double)(e - s) * (double)spur_json_int(j, r->gpu ? "gpus" : "cpus", 0);
}

static void value(const struct rep *r, double secs, char *buf, size_t len)
{
	if (r->unit == 'p')
		snprintf(buf, len, "%.2f%%", r->capacity > 0 ? 100.0 * secs / r->capacity : 0);
	else
		snprintf(buf, len, "%.0f", r->unit == 'h' ? secs / 3600 : r->unit == 's' ? secs : secs / 60);
}

static void cells(const struct rep *r, const char *const *v, const int *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r->parsable || r->parsable2)
			printf("%s%s", v[i], i + 1 < n || r->parsable ? "|" : "");
		else
			printf("%*.*s ", w[i], w[i], v[i]);
	}
	putchar('\n');
}

static void title(const struct rep *r, const char *what, bool secs, bool sizes)
{
	char a[32], b[32];

	if (r->noheader || r->parsable || r->parsable2)
		return;
	spur_time_format(r->start, a, sizeof(a));
	spur_time_format(r->end - 1, b, sizeof(b));
	printf("--------------------------------------------------------------------------------\n");
	if (secs)
		printf("%s %s - %s (%lld secs)\n", what, a, b, (long long)(r->end - r->start));
	else
		printf("%s %s - %s\n", what, a, b);
	if (sizes)
		printf("Time reported in %s\n", r->unit == 'h' ? "Hours" : r->unit == 's' ? "Seconds"
					      : r->unit == 'p' ? "Percentage of Total" : "Minutes");
	else
		printf("Usage reported in %s %s\n", r->unit == 'p' ? "Percentage of Total" : r->gpu ? "TRES" : "CPU",
	       r->unit == 'h' ? "Hours" : r->unit == 's' ? "Seconds" : r->unit == 'p' ? "" : "Minutes");
	printf("--------------------------------------------------------------------------------\n");
}

static void head(const struct rep *r, const char *const *h, const int *w, size_t n)
{
	if (r->noheader)
		return;
	cells(r, h, w, n);
	if (r->parsable || r->parsable2)
		return;
	for (size_t i = 0; i < n; i++) {
		for (int d = 0; d < w[i]; d++)
			putchar('-');
		putchar(' ');
	}
	putchar('\n');
}

/* A node's CPUs (or GPUs) as sreport counts them. */
static double node_size(const struct rep *r, const json_t *n)
{
	const char *g = spur_json_str(n, "gres", ""), *colon = strrchr(g, ':');

	if (!r->gpu)
		return (double)spur_json_int(n, "cpus", 0);
	return !strncmp(g, "gpu", 3) && colon ? atof(colon + 1) : 0;
}

/* The CPU (or GPU) seconds of the period that MAINT reservations held:
 * sreport's planned down time. */
static double planned_secs(const struct rep *r)
{
	struct spur_error err;
	json_t *rs = cli_call(json_pack("{s:s,s:I,s:I}", "type", "acct_resvs", "from",
					(json_int_t)r->start, "to", (json_int_t)r->end),
			      &err),
	       *v, *n;
	double total = 0;
	size_t i, k;

	json_array_foreach(json_object_get(rs, "reservations"), i, v) {
		int64_t s = spur_json_int(v, "start", 0), e = spur_json_int(v, "end", 0);
		const char *names = spur_json_str(v, "nodes", "");
		struct spur_hostlist *hl = strcmp(names, "ALL") ? spur_hostlist_from_expr(names, NULL)
								: NULL;
		double size = 0;

		if (!strstr(spur_json_str(v, "flags", ""), "MAINT"))
			goto next;
		s = s < r->start ? r->start : s;
		e = e > r->end ? r->end : e;
		json_array_foreach(json_object_get(r->nodes, "nodes"), k, n) {
			bool in = !hl;

			for (size_t h = 0; hl && !in && h < spur_hostlist_count(hl); h++)
				in = !strcmp(spur_hostlist_nth(hl, h), spur_json_str(n, "name", ""));
			size += in ? node_size(r, n) : 0;
		}
		total += e > s ? size * (double)(e - s) : 0;
next:
		spur_hostlist_destroy(hl);
	}
	json_decref(rs);
	return total;
}

static void utilization(const struct rep *r, time_t now)
{
	static const char *const h[] = { "Cluster", "Allocated", "Down", "PLND Down", "Idle",
					 "Planned", "Reported" };
	static const int w[] = { 9, 8, 8, 8, 8, 8, 8 };
	double alloc = 0, plnd;
	size_t i;
	json_t *j;
	char v[7][32];
	const char *row[7];

	json_array_foreach(r->jobs, i, j)
		alloc += job_secs(r, j, now);
	plnd = planned_secs(r);
	snprintf(v[0], 32, "%s", r->cluster);
	value(r, alloc, v[1], 32);
	value(r, 0, v[2], 32);
	value(r, plnd, v[3], 32);
	value(r, r->capacity - alloc - plnd > 0 ? r->capacity - alloc - plnd : 0, v[4], 32);
	value(r, 0, v[5], 32);
	value(r, r->capacity, v[6], 32);
	for (int k = 0; k < 7; k++)
		row[k] = v[k];
	title(r, "Cluster Utilization", false, false);
	head(r, h, w, 7);
	cells(r, row, w, 7);
}

/* Used seconds by key (account, "account\tuser" or user), in a JSON object. */
static json_t *sums(const struct rep *r, time_t now, int by)
{
	json_t *out = json_object(), *j;
	size_t i;
	char key[256];

	json_array_foreach(r->jobs, i, j) {
		double s = job_secs(r, j, now);

		if (by == 0)
			snprintf(key, sizeof(key), "%s", spur_json_str(j, "account", ""));
		else if (by == 1)
			snprintf(key, sizeof(key), "%s\t%s", spur_json_str(j, "account", ""),
				 spur_json_str(j, "user", ""));
		else
			snprintf(key, sizeof(key), "%s\t%s", spur_json_str(j, "user", ""),
				 spur_json_str(j, "account", ""));
		json_object_set_new(out, key, json_real(json_real_value(json_object_get(out, key)) + s));
	}
	return out;
}

static void account_by_user(const struct rep *r, time_t now)
{
	static const char *const h[] = { "Cluster", "Account", "Login", "Proper Name", "Used",
					 "Energy" };
	static const int w[] = { 9, 15, 9, 15, 8, 8 };
	json_t *acc = sums(r, now, 0), *au = sums(r, now, 1), *v;
	double total = 0;
	const char *k, *row[6];
	char used[32];

	title(r, "Cluster/Account/User Utilization", true, false);
	head(r, h, w, 6);
	json_object_foreach(acc, k, v)
		total += json_real_value(v);
	value(r, total, used, sizeof(used));
	row[0] = r->cluster, row[1] = "root", row[2] = "", row[3] = "", row[4] = used, row[5] = "0";
	cells(r, row, w, 6);
	json_object_foreach(acc, k, v) {
		const char *k2;
		json_t *v2;

		value(r, json_real_value(v), used, sizeof(used));
		row[1] = k, row[2] = "", row[3] = "", row[4] = used;
		cells(r, row, w, 6);
		json_object_foreach(au, k2, v2) {
			const char *tab = strchr(k2, '\t');

			if (!tab || strncmp(k2, k, (size_t)(tab - k2)) || k[tab - k2])
				continue;
			value(r, json_real_value(v2), used, sizeof(used));
			row[2] = row[3] = tab + 1, row[4] = used;
			cells(r, row, w, 6);
		}
	}
	json_decref(acc);
	json_decref(au);
}

static int by_used(const void *a, const void *b)
{
	double x = json_real_value(json_object_get(*(json_t *const *)a, "s")),
	       y = json_real_value(json_object_get(*(json_t *const *)b, "s"));

	return x < y ? 1 : x > y ? -1 : 0;
}

static void top_usage(const struct rep *r, time_t now, int top)
{
	static const char *const h[] = { "Cluster", "Login", "Proper Name", "Account", "Used",
					 "Energy" };
	static const int w[] = { 9, 9, 15, 15, 8, 8 };
	json_t *ua = sums(r, now, 2), *v;
	size_t n = json_object_size(ua), k = 0;
	json_t **rows = calloc(n + 1, sizeof(*rows));
	const char *key, *row[6];
	char used[32], t[64], user[128];

	snprintf(t, sizeof(t), "Top %d Users", top);
	title(r, t, true, false);
	head(r, h, w, 6);
	json_object_foreach(ua, key, v)
		if (rows)
			rows[k++] = json_pack("{s:s,s:f}", "k", key, "s", json_real_value(v));
	if (rows)
		qsort(rows, k, sizeof(*rows), by_used);
	for (size_t i = 0; i < k && (int)i < top; i++) {
		const char *kk = spur_json_str(rows[i], "k", ""), *tab = strchr(kk, '\t');

		snprintf(user, sizeof(user), "%.*s", (int)(tab - kk), kk);
		value(r, json_real_value(json_object_get(rows[i], "s")), used, sizeof(used));
		row[0] = r->cluster, row[1] = user, row[2] = user, row[3] = tab + 1, row[4] = used,
		row[5] = "0";
		cells(r, row, w, 6);
	}
	for (size_t i = 0; i < k; i++)
		json_decref(rows[i]);
	free(rows);
	json_decref(ua);
}

/* Job SizesByAccount: minutes in buckets of CPUs (or GPUs) per job. */
static void sizes_by_account(const struct rep *r, time_t now)
{
	static const int edge[] = { 0, 50, 250, 500, 1000 };
	static const int w[] = { 9, 9, 13, 13, 13, 13, 13, 12 };
	const char *h[8] = { "Cluster", "Account", NULL, NULL, NULL, NULL, NULL, "% of cluster" };
	char hb[5][32], v[8][32];
	json_t *acc = json_object(), *j, *a;
	const char *k, *row[8];
	size_t i;
	double total = 0;

	for (int b = 0; b < 5; b++) {
		if (b < 4)
			snprintf(hb[b], 32, "%d-%d %s", edge[b], edge[b + 1] - 1, r->gpu ? "GPUs" : "CPUs");
		else
			snprintf(hb[b], 32, ">= %d %s", edge[b], r->gpu ? "GPUs" : "CPUs");
		h[2 + b] = hb[b];
	}
	json_array_foreach(r->jobs, i, j) {
		double s = job_secs(r, j, now);
		json_int_t n = spur_json_int(j, r->gpu ? "gpus" : "cpus", 0);
		int b = 4;

		while (b > 0 && n < edge[b])
			b--;
		a = json_object_get(acc, spur_json_str(j, "account", ""));
		if (!a) {
			a = json_pack("[f,f,f,f,f]", 0.0, 0.0, 0.0, 0.0, 0.0);
			json_object_set_new(acc, spur_json_str(j, "account", ""), a);
		}
		json_array_set_new(a, (size_t)b, json_real(json_real_value(json_array_get(a, (size_t)b)) + s));
		total += s;
	}
	title(r, "Job Sizes", true, true);
	head(r, h, w, 8);
	json_object_foreach(acc, k, a) {
		double sum = 0;

		snprintf(v[0], 32, "%s", r->cluster);
		snprintf(v[1], 32, "%s", k);
		for (int b = 0; b < 5; b++) {
			sum += json_real_value(json_array_get(a, (size_t)b));
			value(r, json_real_value(json_array_get(a, (size_t)b)), v[2 + b], 32);
		}
		snprintf(v[7], 32, "%.2f%%", total > 0 ? 100.0 * sum / total : 0);
		for (int c = 0; c < 8; c++)
			row[c] = v[c];
		cells(r, row, w, 8);
	}
	json_decref(acc);
}

/* The cluster's CPUs (or GPUs) from its nodes. */
static double cluster_size(const struct rep *r)
{
	const json_t *n;
	double total = 0;
	size_t i;

	json_array_foreach(json_object_get(r->nodes, "nodes"), i, n)
		total += node_size(r, n);
	return total;
}

static int when_arg(const struct rep *r, const char *v, time_t now, time_t *out)
{
	struct spur_error err;

	if (!strcasecmp(v, "now")) {
		*out = now;
		return 0;
	}
	if (spur_begin_parse(v, now, out, &err)) {
		cli_error(r->prog, "%s: %s", v, err.msg);
		return -1;
	}
	return 0;
}

/* start=, end=, TopCount=, Accounts=, Users= (the jobs kept). */
static int report_args(struct rep *r, int argc, char **argv, time_t now, int *top)
{
	const char *accts = NULL, *users = NULL;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl = eq ? (size_t)(eq - argv[i]) : 0;

		if (eq && !strncasecmp(argv[i], "start", kl) && kl >= 1) {
			if (when_arg(r, eq + 1, now, &r->start))
				return -1;
		} else if (eq && !strncasecmp(argv[i], "end", kl) && kl >= 1) {
			if (when_arg(r, eq + 1, now, &r->end))
				return -1;
		} else if (eq && !strncasecmp(argv[i], "topcount", kl)) {
			*top = atoi(eq + 1);
		} else if (eq && !strncasecmp(argv[i], "accounts", kl)) {
			accts = eq + 1;
		} else if (eq && !strncasecmp(argv[i], "users", kl)) {
			users = eq + 1;
		} else {
			cli_error(r->prog, "%s: not supported (start=, end=, TopCount=, Accounts=, "
					   "Users=)", argv[i]);
			return -1;
		}
	}
	for (size_t i = json_array_size(r->jobs); i-- > 0;) {
		const json_t *j = json_array_get(r->jobs, i);

		if ((accts && !spur_jobfmt_in_list(accts, spur_json_str(j, "account", ""))) ||
		    (users && !spur_jobfmt_in_list(users, spur_json_str(j, "user", ""))))
			json_array_remove(r->jobs, i);
	}
	return r->end > r->start ? 0 : (cli_error(r->prog, "end must come after start"), -1);
}

static int run_report(struct rep *r, const char *what, const char *kind, time_t now, int top)
{
	if (!strcasecmp(what, "cluster") && !strcasecmp(kind, "Utilization"))
		utilization(r, now);
	else if (!strcasecmp(what, "cluster") && !strcasecmp(kind, "AccountUtilizationByUser"))
		account_by_user(r, now);
	else if (!strcasecmp(what, "user") && !strcasecmp(kind, "TopUsage"))
		top_usage(r, now, top);
	else if (!strcasecmp(what, "job") && !strcasecmp(kind, "SizesByAccount"))
		sizes_by_account(r, now);
	else {
		cli_error(r->prog, "%s %s: not supported (cluster Utilization, cluster "
				   "AccountUtilizationByUser, user TopUsage, job SizesByAccount)",
			  what, kind);
		return 1;
	}
	return 0;
}

int cli_sreport_main(const char *prog, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "noheader", no_argument, NULL, 'n' },	   { "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },   { "time", required_argument, NULL, 't' },
		{ "tres", required_argument, NULL, 'T' },  { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },	   { NULL, 0, NULL, 0 },
	};
	struct rep r = { .prog = prog, .unit = 'm' };
	struct spur_error err;
	char *gargv[256];
	int gargc = cli_getopt_argv(prog, argc, argv, gargv, 256), c, top = 10, rc;
	time_t now = time(NULL);
	struct tm tm;
	json_t *acct;

	while ((c = getopt_long(gargc, gargv, "npPt:T:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': r.noheader = true; break;
		case 'p': r.parsable = true; break;
		case 'P': r.parsable2 = true; break;
		case 't':
			r.unit = !strncasecmp(optarg, "hour", 4)    ? 'h'
				 : !strncasecmp(optarg, "sec", 3)   ? 's'
				 : !strncasecmp(optarg, "per", 3)   ? 'p'
				 : !strncasecmp(optarg, "min", 3)   ? 'm'
								    : 0;
			if (!r.unit) {
				cli_error(prog, "-t %s: not supported (Minutes, Hours, Seconds, Percent)", optarg);
				return 1;
			}
			break;
		case 'T':
			if (strcasecmp(optarg, "cpu") && strcasecmp(optarg, "gres/gpu")) {
				cli_error(prog, "--tres=%s: not supported (cpu, gres/gpu)", optarg);
				return 1;
			}
			r.gpu = !strcasecmp(optarg, "gres/gpu");
			break;
		case 'V': cli_version(); return 0;
		case 'h': printf("Usage: sreport [-n] [-p|-P] [-t UNIT] [--tres=cpu|gres/gpu] REPORT [start=] [end=]\n"); return 0;
		default:
			fprintf(stderr, "%s: the other sreport options are not supported\n", prog);
			return 1;
		}
	}
	if (gargc - optind < 2) {
		cli_error(prog, "which report? (cluster Utilization, ...)");
		return 1;
	}
	/* Slurm's default period: yesterday, midnight to midnight */
	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	r.end = mktime(&tm);
	r.start = r.end - 86400;
	if (!(acct = cli_call(json_pack("{s:s}", "type", "acct"), &err))) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	r.jobs = json_incref(json_object_get(acct, "jobs"));
	json_decref(acct);
	if (report_args(&r, gargc - optind - 2, gargv + optind + 2, now, &top)) {
		json_decref(r.jobs);
		return 1;
	}
	{
		json_t *ping = cli_call(json_pack("{s:s}", "type", "assoc_show"), &err);

		r.cluster = ping ? strdup(spur_json_str(ping, "cluster", "cluster")) : strdup("cluster");
		json_decref(ping);
	}
	r.nodes = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	r.capacity = cluster_size(&r) * (double)(r.end - r.start);
	rc = run_report(&r, gargv[optind], gargv[optind + 1], now, top);
	free((char *)r.cluster);
	json_decref(r.jobs);
	json_decref(r.nodes);
	return rc;
}
