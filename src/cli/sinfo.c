/* SPDX-License-Identifier: Apache-2.0 */
/* sinfo: partitions and nodes, grouped as Slurm groups them. */
#include "client.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* sinfo's short state names. */
static const char *short_state(const char *st)
{
	static const struct {
		const char *in, *out;
	} map[] = {
		{ "IDLE", "idle" },	  { "MIXED", "mix" },	    { "ALLOCATED", "alloc" },
		{ "DRAINED", "drain" },	  { "DRAINING", "drng" },   { "DOWN", "down" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].in, st))
			return map[i].out;
	return st;
}

static void limit_text(int64_t secs, char *buf, size_t len)
{
	if (secs < 0 || secs >= INT64_MAX / 2)
		snprintf(buf, len, "infinite");
	else
		spur_duration_format(secs, buf, len);
}

static const char *node_state(const json_t *nodes, size_t i)
{
	return short_state(spur_json_str(json_array_get(nodes, i), "state", ""));
}

/* One line per (partition, state), nodes compressed, as sinfo's default. */
static void print_default(const json_t *nodes, const json_t *parts, bool header)
{
	size_t p;
	json_t *pt;

	if (header)
		printf("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n");
	json_array_foreach(parts, p, pt) {
		const json_t *idx = json_object_get(pt, "nodes");
		const char *seen[16];
		size_t nseen = 0, k;
		json_t *ni;
		char name[64], lim[32];

		snprintf(name, sizeof(name), "%s%s", spur_json_str(pt, "name", ""),
			 spur_json_bool(pt, "default", 0) ? "*" : "");
		limit_text(spur_json_int(pt, "max_time", -1), lim, sizeof(lim));
		json_array_foreach(idx, k, ni) {
			const char *st = node_state(nodes, (size_t)json_integer_value(ni));
			struct spur_hostlist *hl;
			size_t count = 0, m;
			json_t *nj;
			char *names;
			bool dup = false;

			for (size_t s = 0; s < nseen; s++)
				dup |= !strcmp(seen[s], st);
			if (dup || nseen == 16)
				continue;
			seen[nseen++] = st;
			hl = spur_hostlist_create();
			json_array_foreach(idx, m, nj) {
				size_t n = (size_t)json_integer_value(nj);

				if (strcmp(node_state(nodes, n), st))
					continue;
				spur_hostlist_push(hl,
						   spur_json_str(json_array_get(nodes, n), "name", ""),
						   NULL);
				count++;
			}
			names = spur_hostlist_ranged(hl, NULL);
			printf("%-9.9s %5s %10s %6zu %6s %s\n", name,
			       spur_json_int(pt, "state", 0) == 0 ? "up" : "down", lim, count, st,
			       names ? names : "");
			spur_free(names);
			spur_hostlist_destroy(hl);
		}
		if (!json_array_size(idx))
			printf("%-9.9s %5s %10s %6d %6s %s\n", name, "up", lim, 0, "n/a", "");
	}
}

/* sinfo -N: one line per node and partition. */
static void print_nodes(const json_t *nodes, const json_t *parts, bool header, bool lng)
{
	size_t i;
	json_t *n;
	const char *def = "";

	json_array_foreach(parts, i, n)
		if (spur_json_bool(n, "default", 0))
			def = spur_json_str(n, "name", "");

	if (header)
		printf(lng ? "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK "
			     "WEIGHT AVAIL_FE REASON              \n"
			   : "NODELIST   NODES PARTITION STATE \n");
	json_array_foreach(nodes, i, n) {
		size_t p;
		json_t *pn;

		json_array_foreach(json_object_get(n, "partitions"), p, pn) {
			char pname[80];

			snprintf(pname, sizeof(pname), "%s%s", json_string_value(pn),
				 strcmp(json_string_value(pn), def) ? "" : "*");
			if (lng)
				printf("%-10s %5d %9s %11s %4" JSON_INTEGER_FORMAT
				       " %8s %6" JSON_INTEGER_FORMAT " %8d %6d %8s %-20s\n",
				       spur_json_str(n, "name", ""), 1, pname,
				       node_state(nodes, i), (json_int_t)spur_json_int(n, "cpus", 0),
				       "1:1:1", (json_int_t)spur_json_int(n, "memory", 0), 0, 1,
				       *spur_json_str(n, "features", "") ? spur_json_str(n, "features", "")
									 : "(null)",
				       "none");
			else
				printf("%-10s %5d %9s %-6s\n", spur_json_str(n, "name", ""), 1, pname,
				       node_state(nodes, i));
		}
	}
}

int cli_sinfo_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "Node", no_argument, NULL, 'N' }, { "long", no_argument, NULL, 'l' },
		{ "noheader", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'H' },  { NULL, 0, NULL, 0 },
	};
	bool node_mode = false, lng = false, header = true, json_out = false;
	struct spur_error err;
	json_t *reply;
	char *pargv[64 + 1];
	int pargc;
	int opt;

	pargc = cli_getopt_argv("sinfo", argc, argv, pargv, 64);
	while ((opt = getopt_long(pargc, pargv, "NlhJ", opts, NULL)) != -1) {
		switch (opt) {
		case 'N':
			node_mode = true;
			break;
		case 'l':
			lng = true;
			break;
		case 'h':
			header = false;
			break;
		case 'J':
			json_out = true;
			break;
		case 'H':
			printf("Usage: sinfo [-N] [-l] [-h] [--json]\n");
			return 0;
		default:
			fprintf(stderr, "Try \"sinfo --help\" for more information\n");
			return 1;
		}
	}
	reply = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	if (json_out) {
		json_object_del(reply, "type");
		json_object_del(reply, "v");
		json_dumpf(reply, stdout, JSON_INDENT(2));
		putchar('\n');
	} else if (node_mode) {
		print_nodes(json_object_get(reply, "nodes"), json_object_get(reply, "partitions"), header,
			    lng);
	} else {
		print_default(json_object_get(reply, "nodes"), json_object_get(reply, "partitions"),
			      header);
	}
	json_decref(reply);
	return 0;
}
