/* SPDX-License-Identifier: Apache-2.0 */
/* sdiag: the controller's scheduling and RPC statistics since it started,
 * in Slurm's layout (what Spur does not have, such as agent threads, is
 * left out rather than shown as zero). */
#include "client.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void when(const char *label, time_t t)
{
	char buf[64];
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
	printf("%-16s%s (%lld)\n", label, buf, (long long)t);
}

struct rpc {
	const char *name;
	long long count, us;
};

/* Spur's requests under the names (and numbers) of the Slurm RPCs they
 * stand for, as sdiag's readers (exporters) expect; Spur's own requests as
 * SPUR_<TYPE> with number 0. */
static const struct {
	const char *spur, *slurm;
	int id;
} names[] = {
	{ "ping", "REQUEST_PING", 1008 },
	{ "register", "MESSAGE_NODE_REGISTRATION_STATUS", 1002 },
	{ "config", "REQUEST_BUILD_INFO", 2001 },
	{ "queue", "REQUEST_JOB_INFO", 2003 },
	{ "job", "REQUEST_JOB_INFO", 2003 },
	{ "nodes", "REQUEST_NODE_INFO", 2007 },
	{ "assoc_show", "REQUEST_SHARE_INFO", 2022 },
	{ "submit", "REQUEST_SUBMIT_BATCH_JOB", 4003 },
	{ "cancel", "REQUEST_CANCEL_JOB_STEP", 5005 },
	{ "step", "REQUEST_JOB_STEP_CREATE", 5001 },
	{ "finished", "REQUEST_COMPLETE_BATCH_SCRIPT", 5018 },
	{ "update", "REQUEST_UPDATE_JOB", 3001 },
	{ "node_update", "REQUEST_UPDATE_NODE", 3002 },
};

static void rpc_name(const char *spur, bool by_type, char *buf, size_t len)
{
	if (!by_type) { /* a user and its uid */
		struct passwd *pw = getpwnam(spur);

		snprintf(buf, len, "%-16s(%8ld)", spur, pw ? (long)pw->pw_uid : -1L);
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].spur, spur)) {
			snprintf(buf, len, "%-40s(%5d)", names[i].slurm, names[i].id);
			return;
		}
	{
		char up[64];
		size_t k = 0;

		for (; spur[k] && k + 1 < sizeof(up); k++)
			up[k] = (char)(spur[k] >= 'a' && spur[k] <= 'z' ? spur[k] - 32 : spur[k]);
		up[k] = 0;
		snprintf(buf, len, "SPUR_%-35s(%5d)", up, 0);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct rpc *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->name, y->name);
}

static void rpcs(const json_t *tab, const char *title, bool by_type)
{
	size_t n = json_object_size(tab), k = 0;
	struct rpc *v = calloc(n + 1, sizeof(*v));
	const char *name;
	json_t *e;

	if (!v)
		return;
	json_object_foreach((json_t *)tab, name, e)
		v[k++] = (struct rpc){ name, (long long)json_integer_value(json_array_get(e, 0)),
				       (long long)json_integer_value(json_array_get(e, 1)) };
	qsort(v, n, sizeof(*v), by_count);
	printf("\n%s\n", title);
	for (size_t i = 0; i < n; i++) {
		char label[96];

		rpc_name(v[i].name, by_type, label, sizeof(label));
		printf("\t%s count:%-6lld ave_time:%-6lld total_time:%lld\n", label, v[i].count,
		       v[i].count ? v[i].us / v[i].count : 0, v[i].us);
	}
	free(v);
}

int cli_sdiag_main(const char *prog, int argc, char **argv)
{
	struct spur_error err;
	json_t *r;
	long long cycles, depth;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			cli_version();
			return 0;
		}
		fprintf(stderr, "%s: %s: not supported (sdiag takes no options here)\n", prog,
			argv[i]);
		return 1;
	}
	if (!(r = cli_call(json_pack("{s:s}", "type", "stats"), &err))) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	cycles = spur_json_int(r, "cycles", 0);
	depth = spur_json_int(r, "depth_total", 0);
	printf("*******************************************************\n");
	when("sdiag output at ", (time_t)spur_json_int(r, "now", 0));
	when("Data since      ", (time_t)spur_json_int(r, "started_at", 0));
	printf("*******************************************************\n");
	printf("Server thread count:  1\n\n");
	printf("Jobs submitted: %lld\n", (long long)spur_json_int(r, "submitted", 0));
	printf("Jobs started:   %lld\n", (long long)spur_json_int(r, "started", 0));
	printf("Jobs completed: %lld\n", (long long)spur_json_int(r, "completed", 0));
	printf("Jobs canceled:  %lld\n", (long long)spur_json_int(r, "canceled", 0));
	printf("Jobs failed:    %lld\n\n", (long long)spur_json_int(r, "failed", 0));
	printf("Jobs pending:   %lld\n", (long long)spur_json_int(r, "jobs_pending", 0));
	printf("Jobs running:   %lld\n\n", (long long)spur_json_int(r, "jobs_running", 0));
	printf("Main schedule statistics (microseconds):\n");
	printf("\tLast cycle:   %lld\n", (long long)spur_json_int(r, "cycle_us_last", 0));
	printf("\tMax cycle:    %lld\n", (long long)spur_json_int(r, "cycle_us_max", 0));
	printf("\tTotal cycles: %lld\n", cycles);
	printf("\tMean cycle:   %lld\n",
	       cycles ? (long long)spur_json_int(r, "cycle_us_total", 0) / cycles : 0);
	printf("\tMean depth cycle:  %lld\n", cycles ? depth / cycles : 0);
	printf("\tLast queue length: %lld\n\n", (long long)spur_json_int(r, "depth_last", 0));
	/* Spur backfills in the main cycle: the same cycles */
	printf("Backfilling stats\n");
	printf("\tTotal backfilled jobs (since last slurm start): %lld\n",
	       (long long)spur_json_int(r, "backfilled", 0));
	printf("\tTotal cycles: %lld\n", cycles);
	printf("\tLast cycle: %lld\n", (long long)spur_json_int(r, "cycle_us_last", 0));
	printf("\tMax cycle:  %lld\n", (long long)spur_json_int(r, "cycle_us_max", 0));
	printf("\tLast queue length: %lld\n", (long long)spur_json_int(r, "depth_last", 0));
	printf("\nRaft: term %lld, commit index %lld, last applied %lld\n",
	       (long long)spur_json_int(r, "term", 0), (long long)spur_json_int(r, "commit_index", 0),
	       (long long)spur_json_int(r, "last_applied", 0));
	rpcs(json_object_get(r, "rpc_types"), "Remote Procedure Call statistics by message type", true);
	rpcs(json_object_get(r, "rpc_users"), "Remote Procedure Call statistics by user", false);
	json_decref(r);
	return 0;
}
