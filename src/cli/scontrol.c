/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol: the verbs that need no controller (hostlist expansion). */
#include "cli.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <stdint.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

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

static int show_job(const char *prog, const char *id)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s,s:i}", "type", "job", "job_id", atoi(id)), &err);
	const json_t *j;
	char rt[32], lim[32], sub[32], st[32], en[32], first[256];
	int64_t now, start, limit;
	const char *state, *nodelist, *out;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	j = json_object_get(reply, "job");
	now = spur_json_int(reply, "now", 0);
	state = spur_json_str(j, "state", "");
	start = spur_json_int(j, "start_time", 0);
	limit = spur_json_int(j, "time_limit", 0);
	nodelist = spur_json_str(j, "nodelist", "");
	spur_duration_format_hms(!strcmp(state, "RUNNING") && start ? now - start : 0, rt, sizeof(rt));
	/* Slurm's mins2time_str: HH:MM:SS (squeue and sinfo drop the zeros) */
	if (limit)
		spur_duration_format_hms(limit, lim, sizeof(lim));
	else
		snprintf(lim, sizeof(lim), "UNLIMITED");
	stamp(spur_json_int(j, "submit_time", 0), sub, sizeof(sub));
	stamp(start, st, sizeof(st));
	stamp(spur_json_int(j, "end_time", 0), en, sizeof(en));
	spur_hostlist_first(nodelist, first, sizeof(first));
	out = spur_json_str(j, "output", "");
	printf("JobId=%" JSON_INTEGER_FORMAT " JobName=%s\n", (json_int_t)spur_json_int(j, "job_id", 0),
	       spur_json_str(j, "name", ""));
	{
		struct group *gr = getgrgid((gid_t)spur_json_int(j, "gid", 0));

		printf("   UserId=%s(%" JSON_INTEGER_FORMAT ") GroupId=%s(%" JSON_INTEGER_FORMAT
		       ") MCS_label=N/A\n",
		       spur_json_str(j, "user", ""), (json_int_t)spur_json_int(j, "uid", 0),
		       gr ? gr->gr_name : "", (json_int_t)spur_json_int(j, "gid", 0));
	}
	printf("   Priority=%" JSON_INTEGER_FORMAT " Nice=0 Account=%s QOS=(null)\n",
	       (json_int_t)spur_json_int(j, "priority", 0),
	       *spur_json_str(j, "account", "") ? spur_json_str(j, "account", "") : "(null)");
	printf("   JobState=%s Reason=%s Dependency=(null)\n", state, spur_json_str(j, "reason", ""));
	printf("   Requeue=%d Restarts=%" JSON_INTEGER_FORMAT
	       " BatchFlag=1 Reboot=0 ExitCode=%" JSON_INTEGER_FORMAT ":0\n",
	       (int)spur_json_int(j, "requeue", 1), (json_int_t)spur_json_int(j, "restarts", 0),
	       (json_int_t)spur_json_int(j, "exit_code", 0));
	printf("   RunTime=%s TimeLimit=%s TimeMin=N/A\n", rt, lim);
	printf("   SubmitTime=%s EligibleTime=%s\n", sub, sub);
	printf("   StartTime=%s EndTime=%s Deadline=N/A\n", st, en);
	printf("   Partition=%s\n", spur_json_str(j, "partition", ""));
	printf("   NodeList=%s\n", *nodelist ? nodelist : "(null)");
	printf("   BatchHost=%s\n", *first ? first : "(null)");
	printf("   NumNodes=%" JSON_INTEGER_FORMAT " NumTasks=%" JSON_INTEGER_FORMAT
	       " CPUs/Task=%" JSON_INTEGER_FORMAT "\n",
	       (json_int_t)spur_json_int(j, "nodes", 1),
	       (json_int_t)(spur_json_int(j, "ntasks", 0) ? spur_json_int(j, "ntasks", 0)
							  : spur_json_int(j, "nodes", 1)),
	       (json_int_t)spur_json_int(j, "cpus_per_task", 1));
	if (*spur_json_str(j, "gres", ""))
		printf("   TresPerNode=gres/%s\n", spur_json_str(j, "gres", ""));
	printf("   WorkDir=%s\n", spur_json_str(j, "workdir", ""));
	{
		char path[4096], exp[4096];
		size_t o = 0;

		snprintf(path, sizeof(path), "%s%s%s", *out == '/' ? "" : spur_json_str(j, "workdir", ""),
			 *out == '/' ? "" : "/", *out ? out : "slurm-%j.out");
		/* the patterns that do not depend on the node */
		for (const char *p = path; *p && o + 32 < sizeof(exp); p++) {
			if (p[0] == '%' && (p[1] == 'j' || p[1] == 'J')) {
				o += (size_t)snprintf(exp + o, sizeof(exp) - o, "%" JSON_INTEGER_FORMAT,
						      (json_int_t)spur_json_int(j, "job_id", 0));
				p++;
			} else if (p[0] == '%' && p[1] == 'x') {
				o += (size_t)snprintf(exp + o, sizeof(exp) - o, "%s",
						      spur_json_str(j, "name", ""));
				p++;
			} else if (p[0] == '%' && p[1] == 'u') {
				o += (size_t)snprintf(exp + o, sizeof(exp) - o, "%s",
						      spur_json_str(j, "user", ""));
				p++;
			} else {
				exp[o++] = *p;
			}
		}
		exp[o] = '\0';
		printf("   StdOut=%s\n", exp);
	}
	putchar('\n');
	json_decref(reply);
	return 0;
}

static int show_nodes(const char *prog, const char *which)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	size_t i;
	json_t *n;
	int shown = 0;

	if (!reply) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	json_array_foreach(json_object_get(reply, "nodes"), i, n) {
		const char *gres = spur_json_str(n, "gres", "");
		size_t p;
		json_t *pn;

		if (which && strcmp(which, spur_json_str(n, "name", "")))
			continue;
		shown++;
		printf("NodeName=%s Arch=x86_64 CoresPerSocket=1\n", spur_json_str(n, "name", ""));
		printf("   CPUAlloc=%" JSON_INTEGER_FORMAT " CPUTot=%" JSON_INTEGER_FORMAT "\n",
		       (json_int_t)spur_json_int(n, "alloc_cpus", 0), (json_int_t)spur_json_int(n, "cpus", 0));
		printf("   AvailableFeatures=%s\n",
		       *spur_json_str(n, "features", "") ? spur_json_str(n, "features", "") : "(null)");
		printf("   Gres=%s\n", *gres ? gres : "(null)");
		printf("   RealMemory=%" JSON_INTEGER_FORMAT " AllocMem=%" JSON_INTEGER_FORMAT "\n",
		       (json_int_t)spur_json_int(n, "memory", 0),
		       (json_int_t)spur_json_int(n, "alloc_memory", 0));
		printf("   State=%s\n", spur_json_str(n, "state", ""));
		if (*spur_json_str(n, "reason", ""))
			printf("   Reason=%s\n", spur_json_str(n, "reason", ""));
		printf("   Partitions=");
		json_array_foreach(json_object_get(n, "partitions"), p, pn)
			printf("%s%s", p ? "," : "", json_string_value(pn));
		printf("\n\n");
	}
	json_decref(reply);
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
	json_array_foreach(json_object_get(reply, "partitions"), i, p) {
		struct spur_hostlist *hl = spur_hostlist_create();
		char *names, maxt[32], deft[32];
		int64_t cpus = 0, mt = spur_json_int(p, "max_time", -1), dt = spur_json_int(p, "default_time", -1);
		size_t k;
		json_t *ni;

		if (which && strcmp(which, spur_json_str(p, "name", "")))
			continue;
		shown++;
		json_array_foreach(json_object_get(p, "nodes"), k, ni) {
			const json_t *n = json_array_get(nodes, (size_t)json_integer_value(ni));

			spur_hostlist_push(hl, spur_json_str(n, "name", ""), NULL);
			cpus += spur_json_int(n, "cpus", 0);
		}
		names = spur_hostlist_ranged(hl, NULL);
		if (mt < 0 || mt >= INT64_MAX / 2)
			snprintf(maxt, sizeof(maxt), "UNLIMITED");
		else
			spur_duration_format_hms(mt, maxt, sizeof(maxt));
		if (dt < 0 || dt >= INT64_MAX / 2 || dt == mt)
			snprintf(deft, sizeof(deft), "NONE");
		else
			spur_duration_format_hms(dt, deft, sizeof(deft));
		printf("PartitionName=%s\n", spur_json_str(p, "name", ""));
		printf("   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n");
		printf("   AllocNodes=ALL Default=%s QoS=N/A\n", spur_json_bool(p, "default", 0) ? "YES" : "NO");
		printf("   DefaultTime=%s DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n",
		       deft);
		printf("   MaxNodes=UNLIMITED MaxTime=%s MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n", maxt);
		printf("   Nodes=%s\n", names && *names ? names : "(null)");
		printf("   State=%s TotalCPUs=%lld TotalNodes=%zu\n\n",
		       spur_json_int(p, "state", 0) == 0 ? "UP" : "DOWN", (long long)cpus,
		       json_array_size(json_object_get(p, "nodes")));
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
		if (argc < 1) {
			cli_error(prog, "%s needs a job id", verb);
			return 1;
		}
		return cli_each_job(prog, argc, argv, verbs[i].type,
				    verbs[i].admin < 0 ? getuid() == 0 : verbs[i].admin, hold_failed);
	}
	return -1;
}

/* scontrol update JobId=N [TimeLimit=T] [Nice=N] [JobName|Name=S]: the
 * fields the controller can change on a pending job. */
static int update_job(const char *prog, int argc, char **argv)
{
	json_t *set = json_object(), *reply;
	struct spur_error err;
	long id = 0;

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
			if (*end || id <= 0) {
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
		} else {
			cli_error(prog, "Update of %s is not supported (TimeLimit, Nice and JobName are)",
				  key);
			goto fail;
		}
	}
	if (!id) {
		cli_error(prog, "update needs JobId=ID");
		goto fail;
	}
	reply = cli_call(json_pack("{s:s,s:i,s:o}", "type", "update", "job_id", (int)id, "set", set),
			 &err);
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
	const char *nodes = NULL, *state = NULL, *reason = NULL;
	struct spur_error err;
	json_t *reply;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq) {
			cli_error(prog, "Invalid input: %s", argv[i]);
			return 1;
		}
		if (kl == 8 && !strncasecmp(argv[i], "NodeName", kl))
			nodes = eq + 1;
		else if (kl == 5 && !strncasecmp(argv[i], "State", kl))
			state = eq + 1;
		else if (kl == 6 && !strncasecmp(argv[i], "Reason", kl))
			reason = eq + 1;
		else {
			cli_error(prog, "Update of %.*s is not supported (State and Reason are)",
				  (int)kl, argv[i]);
			return 1;
		}
	}
	if (!nodes || !state) {
		cli_error(prog, "update of a node needs NodeName= and State=");
		return 1;
	}
	if ((!strcasecmp(state, "DRAIN") || !strcasecmp(state, "DOWN")) && (!reason || !*reason)) {
		cli_error(prog, "You must specify a reason when DOWNING or DRAINING a node. "
				"Request denied");
		return 1;
	}
	reply = cli_call(json_pack("{s:s,s:s,s:s,s:s}", "type", "node_update", "nodes", nodes,
				   "state", state, "reason", reason ? reason : ""),
			 &err);
	if (!reply) {
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

int cli_scontrol_main(const char *prog, int argc, char **argv)
{
	const char *what;
	int rc;

	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fprintf(argc < 1 ? stderr : stdout,
			"Usage: %s show job ID | show node [NAME] | show hostnames [LIST] | "
			"show hostlist LIST | show hostlistsorted LIST\n",
			prog);
		return argc < 1 ? 1 : 0;
	}
	if ((rc = job_verb(prog, argv[0], argc - 1, argv + 1)) >= 0)
		return rc;
	if (!strcasecmp(argv[0], "ping"))
		return cli_scontrol_ping(prog);
	if (!strcasecmp(argv[0], "token"))
		return token(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update") && argc > 1 && !strncasecmp(argv[1], "NodeName=", 9))
		return update_node(prog, argc - 1, argv + 1);
	if (!strcasecmp(argv[0], "update"))
		return update_job(prog, argc - 1, argv + 1);
	if (strcasecmp(argv[0], "show")) {
		cli_error(prog, "'%s' is not supported yet (show, ping, token, hold, uhold, release, "
				"requeue, requeuehold and update are)",
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
	if (!strcasecmp(what, "hostnames"))
		return show_hostnames(prog, argc > 2 ? argv[2] : NULL);
	if (!strcasecmp(what, "hostlist"))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 0);
	if (!strcasecmp(what, "hostlistsorted"))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 1);
	if (!strcasecmp(what, "job") && argc > 2)
		return show_job(prog, argv[2]);
	if (!strcasecmp(what, "node") || !strcasecmp(what, "nodes"))
		return show_nodes(prog, argc > 2 ? argv[2] : NULL);
	if (!strcasecmp(what, "partition") || !strcasecmp(what, "partitions"))
		return show_partitions(prog, argc > 2 ? argv[2] : NULL);
	cli_error(prog, "'show %s' is not supported yet (show job, node, partition and the "
			"hostlist verbs are)",
		  what);
	return 1;
}
