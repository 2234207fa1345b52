/* SPDX-License-Identifier: Apache-2.0 */
/* sprio: each pending job's multifactor priority and its weighted factors,
 * the scheduler's own figures. */
#include "client.h"
#include "sacctmgr.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prio_opts {
	bool longer, noheader, norm, weights;
	const char *jobs, *users;
};

/* The factor columns after SITE, as sprio orders them: AGE, ASSOC,
 * FAIRSHARE, JOBSIZE, PARTITION, QOS. ASSOC has no weight in Spur (its
 * column shows 0 under -l). */
static const char *const heads[] = { "AGE", "ASSOC", "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS" };
static const char *const factor_keys[] = { "age", NULL, "fairshare", "job_size", "partition_f", "qos" };
static const char *const weight_keys[] = { "age", NULL, "fairshare", "job_size", "partition", "qos" };

/* Shown: every factor with -l, else those with a weight (as sprio). */
static bool shown(const struct prio_opts *o, const json_t *weights, int f)
{
	return o->longer || (weight_keys[f] && spur_json_int(weights, weight_keys[f], 0));
}

static void header(const struct prio_opts *o, const json_t *weights)
{
	printf("%15s %-9s", "JOBID", "PARTITION");
	if (o->longer)
		printf(" %8s", "USER");
	printf(" %10s %10s", "PRIORITY", "SITE");
	for (int f = 0; f < 6; f++)
		if (shown(o, weights, f))
			printf(" %10s", heads[f]);
	if (o->longer)
		printf(" %11s %20s", "NICE", "TRES");
	printf("\n");
}

static void weights_row(const struct prio_opts *o, const json_t *weights)
{
	printf("%15s %-9s", "Weights", "");
	if (o->longer)
		printf(" %8s", "");
	printf(" %10s %10d", "", 1);
	for (int f = 0; f < 6; f++)
		if (shown(o, weights, f))
			printf(" %10lld", weight_keys[f] ? (long long)spur_json_int(weights, weight_keys[f], 0)
							 : 0LL);
	if (o->longer)
		printf(" %11s %20s", "", "");
	printf("\n");
}

static void job_row(const struct prio_opts *o, const json_t *j, const json_t *weights)
{
	char id[32];

	snprintf(id, sizeof(id), "%lld", (long long)spur_json_int(j, "job_id", 0));
	printf("%15s %-9.9s", id, spur_json_str(j, "partition", ""));
	if (o->longer)
		printf(" %8.8s", spur_json_str(j, "user", ""));
	if (o->norm)
		printf(" %10.7f %10.7f", spur_json_int(j, "priority", 0) / 4294967295.0, 0.0);
	else
		printf(" %10lld %10d", (long long)spur_json_int(j, "priority", 0), 0);
	for (int f = 0; f < 6; f++) {
		double v = factor_keys[f] ? json_real_value(json_object_get(j, factor_keys[f])) : 0;
		json_int_t w = weight_keys[f] ? spur_json_int(weights, weight_keys[f], 0) : 0;

		if (!shown(o, weights, f))
			continue;
		if (o->norm)
			printf(" %10.7f", w ? v / (double)w : 0);
		else
			printf(" %10.0f", v);
	}
	if (o->longer)
		printf(" %11lld %20s", (long long)spur_json_int(j, "nice", 0), "");
	printf("\n");
}

int cli_sprio_main(const char *prog, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'l' },	    { "noheader", no_argument, NULL, 'h' },
		{ "norm", no_argument, NULL, 'n' },	    { "weights", no_argument, NULL, 'w' },
		{ "jobs", required_argument, NULL, 'j' },   { "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'H' },	    { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct prio_opts o = { 0 };
	struct spur_error err;
	char *gargv[256], id[32];
	int gargc = cli_getopt_argv(prog, argc, argv, gargv, 256), c;
	json_t *r, *j, *weights;
	size_t i;

	while ((c = getopt_long(gargc, gargv, "lhnwj:u:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': o.longer = true; break;
		case 'h': o.noheader = true; break;
		case 'n': o.norm = true; break;
		case 'w': o.weights = true; break;
		case 'j': o.jobs = optarg; break;
		case 'u': o.users = optarg; break;
		case 'V': cli_version(); return 0;
		case 'H': printf("Usage: sprio [-l] [-h] [-n] [-w] [-j JOBS] [-u USERS]\n"); return 0;
		default:
			fprintf(stderr, "%s: the other sprio options are not supported\n", prog);
			return 1;
		}
	}
	if (!(r = cli_call(json_pack("{s:s}", "type", "prio"), &err))) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	weights = json_object_get(r, "weights");
	if (!o.noheader)
		header(&o, weights);
	if (o.weights)
		weights_row(&o, weights);
	json_array_foreach(json_object_get(r, "jobs"), i, j) {
		snprintf(id, sizeof(id), "%lld", (long long)spur_json_int(j, "job_id", 0));
		if ((o.jobs && !spur_jobfmt_in_list(o.jobs, id)) ||
		    (o.users && !spur_jobfmt_in_list(o.users, spur_json_str(j, "user", ""))))
			continue;
		if (!o.weights)
			job_row(&o, j, weights);
	}
	json_decref(r);
	return 0;
}
