/* SPDX-License-Identifier: Apache-2.0 */
/* sinfo: partitions and nodes, grouped as Slurm groups them. */
#include "client.h"

#include "rest/rest.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <time.h>

/* A partition's AVAIL as sinfo prints it. */
static const char *part_avail(const json_t *pt)
{
	static const char *const a[] = { "up", "down", "drain", "inact" };

	return a[spur_json_int(pt, "state", 0) & 3];
}

/* sinfo's short state names. */
static const char *short_state(const char *st)
{
	static const struct {
		const char *in, *out;
	} map[] = {
		{ "IDLE", "idle" },	  { "MIXED", "mix" },	    { "ALLOCATED", "alloc" },
		{ "DRAINED", "drain" },	  { "DRAINING", "drng" },   { "DOWN", "down" },
		{ "RESERVED", "resv" },
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
			       part_avail(pt), lim, count, st,
			       names ? names : "");
			spur_free(names);
			spur_hostlist_destroy(hl);
		}
		if (!json_array_size(idx))
			printf("%-9.9s %5s %10s %6d %6s %s\n", name, part_avail(pt), lim, 0, "n/a", "");
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

/* ---------------------------------------------------------------- -o */

/* One format field: its text for node n of partition pt (the list fields
 * %N %n %D are filled in per group). */
/* A partition's own field: 0 when code is not one. */
static bool part_field(char code, const json_t *pt, char *buf, size_t len)
{
	int64_t dt = spur_json_int(pt, "default_time", -1), mn = spur_json_int(pt, "max_nodes", 0);
	const char *ov = spur_json_str(pt, "oversubscribe", "NO");

	switch (code) {
	case 'L': /* DefaultTime: n/a when it has none of its own */
		if (spur_json_bool(pt, "default_unlimited", 0))
			snprintf(buf, len, "infinite");
		else if (dt < 0 || dt == spur_json_int(pt, "max_time", -1))
			snprintf(buf, len, "n/a");
		else
			limit_text(dt, buf, len);
		return true;
	case 'h':
		snprintf(buf, len, "%s", ov);
		for (char *c = buf; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		return true;
	case 'g':
		snprintf(buf, len, "%s", spur_json_str(pt, "allow_groups", "all"));
		return true;
	case 'I':
		snprintf(buf, len, "%d", (int)spur_json_int(pt, "job_factor", 1));
		return true;
	case 'p':
		snprintf(buf, len, "%d", (int)spur_json_int(pt, "tier", 1));
		return true;
	case 'M':
		snprintf(buf, len, "%s", spur_json_str(pt, "preempt_mode", "OFF"));
		return true;
	case 'r':
		snprintf(buf, len, "%s", spur_json_bool(pt, "root_only", 0) ? "yes" : "no");
		return true;
	case 's': { /* job size: MinNodes (at least 1)-MaxNodes */
		int lo = (int)spur_json_int(pt, "min_nodes", 1);

		if (mn > 0)
			snprintf(buf, len, "%d-%d", lo > 1 ? lo : 1, (int)mn);
		else
			snprintf(buf, len, "%d-infinite", lo > 1 ? lo : 1);
		return true;
	}
	case 'S':
		snprintf(buf, len, "all");
		return true;
	case 'B':
		snprintf(buf, len, "UNLIMITED");
		return true;
	}
	return false;
}

/* A node's own field (sinfo -o codes and -O names without a code:
 * '#' AllocMem): 0 when code is not one. */
static bool node_field(char code, const json_t *n, char *buf, size_t len)
{
	static const struct {
		char code;
		const char *key;
	} ints[] = { { 'X', "sockets" },  { 'Y', "cores_per_socket" }, { 'Z', "threads_per_core" },
		     { 'w', "weight" },	  { 'd', "tmp_disk" },	       { '#', "alloc_memory" } };

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (ints[i].code == code) {
			snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(n, ints[i].key, 0));
			return true;
		}
	switch (code) {
	case 'o':
		snprintf(buf, len, "%s", spur_json_str(n, "addr", ""));
		return true;
	case 'v':
		snprintf(buf, len, "22.05.8");
		return true;
	case 'u':
	case 'U':
		snprintf(buf, len, "%s", *spur_json_str(n, "reason", "") ?
						 spur_json_str(n, "reason_user", "root") : "Unknown");
		return true;
	case 'H': {
		time_t t = (time_t)spur_json_int(n, "reason_time", 0);
		struct tm tm;

		snprintf(buf, len, "Unknown");
		if (t && *spur_json_str(n, "reason", "") && localtime_r(&t, &tm))
			strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
		return true;
	}
	}
	return false;
}

static bool field_text(char code, const json_t *nodes, const json_t *n, size_t ni,
		       const json_t *pt, bool is_def, char *buf, size_t len)
{
	const char *st = spur_json_str(n, "state", "");

	switch (code) {
	case 'P':
		snprintf(buf, len, "%s%s", spur_json_str(pt, "name", ""), is_def ? "*" : "");
		return true;
	case 'R':
		snprintf(buf, len, "%s", spur_json_str(pt, "name", ""));
		return true;
	case 'a':
		snprintf(buf, len, "%s", part_avail(pt));
		return true;
	case 'l':
		limit_text(spur_json_int(pt, "max_time", -1), buf, len);
		return true;
	case 't':
		snprintf(buf, len, "%s", node_state(nodes, ni));
		return true;
	case 'T': {
		size_t i = 0;

		for (; st[i] && i + 1 < len; i++)
			buf[i] = (char)tolower((unsigned char)st[i]);
		buf[i] = '\0';
		return true;
	}
	case 'c':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(n, "cpus", 0));
		return true;
	case 'm':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(n, "memory", 0));
		return true;
	case 'e': /* the host's available memory, as its agent last said */
		if (json_object_get(n, "free_mem"))
			snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(n, "free_mem", 0));
		else
			snprintf(buf, len, "N/A");
		return true;
	case 'G':
	case 'f':
	case 'b': {
		const char *v = spur_json_str(n, code == 'G' ? "gres" : "features", "");

		snprintf(buf, len, "%s", *v ? v : "(null)");
		return true;
	}
	case 'E':
		snprintf(buf, len, "%s",
			 *spur_json_str(n, "reason", "") ? spur_json_str(n, "reason", "") : "none");
		return true;
	case 'z':
		snprintf(buf, len, "%d:%d:%d", (int)spur_json_int(n, "sockets", 1),
			 (int)spur_json_int(n, "cores_per_socket", 1),
			 (int)spur_json_int(n, "threads_per_core", 1));
		return true;
	case 'O': /* the host's load average, as its agent last said */
		if (json_object_get(n, "cpu_load"))
			snprintf(buf, len, "%.2f", (double)spur_json_int(n, "cpu_load", 0) / 100);
		else
			snprintf(buf, len, "N/A");
		return true;
	}
	return part_field(code, pt, buf, len) || node_field(code, n, buf, len);
}

/* sinfo -R: the nodes out of service and why, nodes with the same reason
 * on one line ("%20E %9U %19H %N"). */
static int print_reasons(const char *prog, const json_t *nodes, bool header)
{
	size_t n = json_array_size(nodes);
	bool *done = calloc(n + 1, sizeof(*done));

	if (!done) {
		fprintf(stderr, "%s: error: out of memory\n", prog);
		return 1;
	}
	if (header)
		printf("%-20s %-9s %-19s %s\n", "REASON", "USER", "TIMESTAMP", "NODELIST");
	for (size_t i = 0; i < n; i++) {
		const char *why = spur_json_str(json_array_get(nodes, i), "reason", "");
		struct spur_hostlist *hl;
		struct spur_error err;
		char stamp[32] = "Unknown", *list;
		time_t t = (time_t)spur_json_int(json_array_get(nodes, i), "reason_time", 0);
		struct tm tm;

		if (done[i] || !*why)
			continue;
		hl = spur_hostlist_create();
		for (size_t k = i; hl && k < n; k++) {
			if (done[k] || strcmp(why, spur_json_str(json_array_get(nodes, k), "reason", "")))
				continue;
			done[k] = true;
			spur_hostlist_push(hl, spur_json_str(json_array_get(nodes, k), "name", ""), &err);
		}
		list = hl ? spur_hostlist_ranged(hl, &err) : NULL;
		if (t && localtime_r(&t, &tm))
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		printf("%-20.20s %-9.9s %-19.19s %s\n", why,
		       spur_json_str(json_array_get(nodes, i), "reason_user", "root"), stamp,
		       list ? list : "");
		spur_free(list);
		spur_hostlist_destroy(hl);
	}
	free(done);
	return 0;
}

static const char *field_header(char code)
{
	switch (code) {
	case 'P':
	case 'R':
		return "PARTITION";
	case 'a':
		return "AVAIL";
	case 'l':
		return "TIMELIMIT";
	case 'D':
		return "NODES";
	case 't':
	case 'T':
		return "STATE";
	case 'N':
		return "NODELIST";
	case 'n':
		return "HOSTNAMES";
	case 'c':
		return "CPUS";
	case 'C':
		return "CPUS(A/I/O/T)";
	case 'F':
		return "NODES(A/I/O/T)";
	case 'm':
		return "MEMORY";
	case 'e':
		return "FREE_MEM";
	case 'G':
		return "GRES";
	case 'f':
		return "AVAIL_FEATURES";
	case 'b':
		return "ACTIVE_FEATURES";
	case 'E':
		return "REASON";
	case 'z':
		return "S:C:T";
	case 'w':
		return "WEIGHT";
	case 'O':
		return "CPU_LOAD";
	case 'L':
		return "DEFAULTTIME";
	case 'h':
		return "OVERSUBSCRIBE";
	case 'g':
		return "GROUPS";
	case 'I':
		return "PRIO_JOB_FACTOR";
	case 'p':
		return "PRIO_TIER";
	case 'M':
		return "PREEMPT_MODE";
	case 'r':
		return "ROOT";
	case 's':
		return "JOB_SIZE";
	case 'S':
		return "ALLOCNODES";
	case 'B':
		return "MAX_CPUS_PER_NODE";
	case 'X':
		return "SOCKETS";
	case 'Y':
		return "CORES";
	case 'Z':
		return "THREADS";
	case 'd':
		return "TMP_DISK";
	case '#':
		return "ALLOCMEM";
	case 'o':
		return "NODE_ADDR";
	case 'v':
		return "VERSION";
	case 'u':
		return "USER";
	case 'U':
		return "USER";
	case 'H':
		return "TIMESTAMP";
	case 'A':
		return "NODES(A/I)";
	}
	return NULL;
}

/* Walk fmt: literal text as is, each %[.][W]X through emit. */
typedef void (*fmt_emit)(void *arg, char code, const char *text);

static bool fmt_walk(const char *fmt, fmt_emit emit, void *arg, FILE *out,
		     const char *(*text_of)(void *arg, char code))
{
	for (const char *p = fmt; *p;) {
		bool right = false;
		int width = 0;
		const char *t;

		if (*p != '%') {
			if (out)
				fputc(*p, out);
			p++;
			continue;
		}
		p = spur_fmt_field_spec(p + 1, &right, &width);
		if (!*p || !field_header(*p))
			return false;
		if (emit)
			emit(arg, *p, NULL);
		if (out) {
			t = text_of(arg, *p);
			if (!width)
				fputs(t, out);
			else if (right)
				fprintf(out, "%*.*s", width, width, t);
			else
				fprintf(out, "%-*.*s", width, width, t);
		}
		p++;
	}
	if (out)
		fputc('\n', out);
	return true;
}

struct group {
	char key[1024];
	char fields[24][128]; /* by code position in fmt */
	char codes[24];
	size_t nf, count;
	struct spur_hostlist *hl;
	/* %C and %F, summed over the row's nodes: allocated, idle, other */
	int64_t cpu[3], cpu_total, node[3];
};

/* One node into its row's %C and %F sums. */
static void group_add(struct group *g, const json_t *n)
{
	const char *st = spur_json_str(n, "state", "");
	int64_t t = spur_json_int(n, "cpus", 0), a = spur_json_int(n, "alloc_cpus", 0);
	bool off = !strncmp(st, "DOWN", 4) || !strncmp(st, "DRAIN", 5);

	g->cpu[0] += off ? 0 : a;
	g->cpu[1] += off ? 0 : t - a;
	g->cpu[2] += off ? t : 0;
	g->cpu_total += t;
	g->node[off ? 2 : a ? 0 : 1]++;
}

struct fmt_ctx {
	struct group *g;
	bool header;
	char scratch[4096];
};

static const char *text_of(void *arg, char code)
{
	struct fmt_ctx *x = arg;
	struct group *g = x->g;

	if (x->header)
		return field_header(code);
	if (code == 'N' || code == 'n') {
		char *s = spur_hostlist_ranged(g->hl, NULL);

		snprintf(x->scratch, sizeof(x->scratch), "%s", s ? s : "");
		spur_free(s);
		return x->scratch;
	}
	if (code == 'D') {
		snprintf(x->scratch, sizeof(x->scratch), "%zu", g->count);
		return x->scratch;
	}
	if (code == 'A') {
		snprintf(x->scratch, sizeof(x->scratch), "%lld/%lld", (long long)g->node[0],
			 (long long)g->node[1]);
		return x->scratch;
	}
	if (code == 'C' || code == 'F') {
		const int64_t *v = code == 'C' ? g->cpu : g->node;

		snprintf(x->scratch, sizeof(x->scratch), "%lld/%lld/%lld/%lld", (long long)v[0],
			 (long long)v[1], (long long)v[2],
			 (long long)(code == 'C' ? g->cpu_total : (int64_t)g->count));
		return x->scratch;
	}
	for (size_t i = 0; i < g->nf; i++)
		if (g->codes[i] == code)
			return g->fields[i];
	return "";
}

static void collect_code(void *arg, char code, const char *text)
{
	char *codes = arg;
	size_t n = strlen(codes);

	(void)text;
	if (n < 23 && !strchr(codes, code))
		codes[n] = code, codes[n + 1] = '\0';
}

/* The row of a partition of no nodes, as Slurm's: its own fields, "n/a"
 * for the state, zeros and "(null)" for the nodes'. */
static void empty_row(struct group *g, const char *codes, const json_t *pt)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->key, sizeof(g->key), "(empty %s)", spur_json_str(pt, "name", ""));
	g->hl = spur_hostlist_create();
	for (size_t c = 0; codes[c] && g->nf < 24; c++) {
		char *buf = g->fields[g->nf];
		size_t len = sizeof(g->fields[0]);

		g->codes[g->nf++] = codes[c];
		if (strchr("PRal", codes[c]))
			field_text(codes[c], NULL, NULL, 0, pt, spur_json_bool(pt, "default", 0), buf,
				   len);
		else if (part_field(codes[c], pt, buf, len))
			;
		else if (strchr("tT", codes[c]))
			snprintf(buf, len, "n/a");
		else if (strchr("Gfb", codes[c]))
			snprintf(buf, len, "(null)");
		else if (codes[c] == 'E')
			snprintf(buf, len, "none");
		else if (codes[c] == 'z')
			snprintf(buf, len, "0:0:0");
		else if (codes[c] == 'O')
			snprintf(buf, len, "0.00");
		else
			snprintf(buf, len, "0");
	}
}

/* sinfo -o: lines grouped by the values shown (per node with -N or %n). */
static int print_format(const char *prog, const char *fmt, const json_t *nodes,
			const json_t *parts, bool header, bool per_node)
{
	char codes[24] = "";
	struct group *groups;
	size_t ng = 0, cap, p;
	json_t *pt;
	struct fmt_ctx x = { 0 };

	if (!fmt_walk(fmt, collect_code, codes, NULL, NULL)) {
		cli_error(prog, "Invalid node format specification: %s", fmt);
		return 1;
	}
	per_node |= strchr(codes, 'n') != NULL;
	cap = (json_array_size(nodes) + 1) * (json_array_size(parts) + 1) + 1;
	groups = calloc(cap, sizeof(*groups));
	if (!groups)
		return 1;
	json_array_foreach(parts, p, pt) {
		size_t k;
		json_t *ni;

		json_array_foreach(json_object_get(pt, "nodes"), k, ni) {
			size_t idx = (size_t)json_integer_value(ni), gi;
			const json_t *n = json_array_get(nodes, idx);
			struct group cur = { 0 };
			char key[sizeof(cur.key)];
			size_t o = 0;

			for (size_t c = 0; codes[c]; c++) {
				if (strchr("NnDCFA", codes[c]))
					continue; /* the row's, not the node's */
				field_text(codes[c], nodes, n, idx, pt,
					   spur_json_bool(pt, "default", 0), cur.fields[cur.nf],
					   sizeof(cur.fields[0]));
				cur.codes[cur.nf] = codes[c];
				o += (size_t)snprintf(key + o,
						      o < sizeof(key) ? sizeof(key) - o : 0,
						      "%s\x1f", cur.fields[cur.nf]);
				cur.nf++;
			}
			key[o < sizeof(key) ? o : sizeof(key) - 1] = '\0';
			if (per_node)
				snprintf(key + strlen(key), sizeof(key) - strlen(key), "%zu/%zu", idx, p);
			memcpy(cur.key, key, sizeof(key));
			for (gi = 0; gi < ng && strcmp(groups[gi].key, cur.key); gi++)
				;
			if (gi == ng) {
				groups[ng] = cur;
				groups[ng].hl = spur_hostlist_create();
				ng++;
			}
			spur_hostlist_push(groups[gi].hl, spur_json_str(n, "name", ""), NULL);
			groups[gi].count++;
			group_add(&groups[gi], n);
		}
		if (!json_array_size(json_object_get(pt, "nodes")) && !per_node)
			empty_row(&groups[ng++], codes, pt);
	}
	if (header) {
		x.header = true;
		fmt_walk(fmt, NULL, &x, stdout, text_of);
		x.header = false;
	}
	for (size_t gi = 0; gi < ng; gi++) {
		x.g = &groups[gi];
		fmt_walk(fmt, NULL, &x, stdout, text_of);
		spur_hostlist_destroy(groups[gi].hl);
	}
	free(groups);
	return 0;
}

/* What one sinfo shows, and how. */
struct sinfo_view {
	const char *parts, *states;
	const struct spur_hostlist *names;
	bool all, responding, reasons;
	const char *fmt;
	bool node_mode, lng, header;
};

/* sinfo -p -t -n -a: the partitions asked for (hidden ones with -a or by
 * name), each with only the nodes of the states and names asked for
 * (and, -r, those whose agent answers). */
static void filter_reply(json_t *reply, const struct sinfo_view *v)
{
	json_t *pl = json_object_get(reply, "partitions"), *nodes = json_object_get(reply, "nodes");

	for (size_t p = json_array_size(pl); p-- > 0;) {
		json_t *pt = json_array_get(pl, p), *idx = json_object_get(pt, "nodes");

		if ((v->parts && !spur_jobfmt_in_list(v->parts, spur_json_str(pt, "name", ""))) ||
		    (!v->parts && !v->all && spur_json_bool(pt, "hidden", 0))) {
			json_array_remove(pl, p);
			continue;
		}
		for (size_t k = json_array_size(idx); k-- > 0;) {
			size_t i = (size_t)json_integer_value(json_array_get(idx, k));
			const json_t *n = json_array_get(nodes, i);
			const char *st = spur_json_str(n, "state", "");

			if ((v->responding && !spur_json_bool(n, "agent", 1)) ||
			    (v->names && spur_hostlist_find(v->names, spur_json_str(n, "name", "")) < 0) ||
			    (v->states && !spur_jobfmt_in_list(v->states, st) &&
			     !spur_jobfmt_in_list(v->states, short_state(st))))
				json_array_remove(idx, k);
		}
	}
}


static int sinfo_once(const char *prog, const struct sinfo_view *v)
{
	struct spur_error err;
	json_t *reply = cli_call(json_pack("{s:s}", "type", "nodes"), &err);
	int rc = 0;

	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	filter_reply(reply, v);
	if (v->lng && v->header && !v->fmt) { /* Slurm's: the time first */
		time_t now = time(NULL);
		struct tm tm;
		char when[64];

		localtime_r(&now, &tm);
		strftime(when, sizeof(when), "%a %b %d %H:%M:%S %Y", &tm);
		printf("%s\n", when);
	}
	if (v->lng && !v->node_mode && !v->fmt && !v->reasons)
		rc = print_format(prog, "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N",
				  json_object_get(reply, "nodes"), json_object_get(reply, "partitions"),
				  v->header, false);
	else if (v->reasons && !v->fmt)
		rc = print_reasons(prog, json_object_get(reply, "nodes"), v->header);
	else if (v->fmt)
		rc = print_format(prog, v->fmt, json_object_get(reply, "nodes"),
				  json_object_get(reply, "partitions"), v->header, v->node_mode);
	else if (v->node_mode)
		print_nodes(json_object_get(reply, "nodes"), json_object_get(reply, "partitions"),
			    v->header, v->lng);
	else
		print_default(json_object_get(reply, "nodes"), json_object_get(reply, "partitions"),
			      v->header);
	json_decref(reply);
	return rc;
}

/* -O/--Format FIELD[:[.]SIZE],...: Slurm's long field names as the -o
 * format they stand for (each 20 wide unless given, no separator, as
 * Slurm prints them). 0, or 1 (said). */
static int long_format(const char *prog, const char *spec, char *fmt, size_t len)
{
	static const struct {
		const char *name;
		char code;
	} fields[] = {
		{ "partition", 'P' },	  { "partitionname", 'R' }, { "available", 'a' },
		{ "time", 'l' },	  { "timelimit", 'l' },	    { "nodes", 'D' },
		{ "statecompact", 't' },  { "statelong", 'T' },	    { "nodelist", 'N' },
		{ "nodehost", 'n' },	  { "cpus", 'c' },	    { "cpusstate", 'C' },
		{ "nodeaiot", 'F' },	  { "memory", 'm' },	    { "freemem", 'e' },
		{ "gres", 'G' },	  { "features", 'f' },	    { "features_act", 'b' },
		{ "reason", 'E' },	  { "weight", 'w' },	    { "socketcorethread", 'z' },
		{ "sockets", 'X' },	  { "cores", 'Y' },	    { "threads", 'Z' },
		{ "defaulttime", 'L' },	  { "oversubscribe", 'h' }, { "groups", 'g' },
		{ "priorityjobfactor", 'I' }, { "prioritytier", 'p' }, { "preemptmode", 'M' },
		{ "root", 'r' },	  { "size", 's' },	    { "allocnodes", 'S' },
		{ "maxcpuspernode", 'B' }, { "disk", 'd' },	    { "allocmem", '#' },
		{ "nodeaddr", 'o' },	  { "version", 'v' },	    { "user", 'u' },
		{ "userlong", 'U' },	  { "timestamp", 'H' },	    { "nodeai", 'A' },
		{ "cpusload", 'O' },
	};
	size_t o = 0;

	for (const char *p = spec; *p;) {
		size_t l = strcspn(p, ","), nl = strcspn(p, ":,"), k;
		const char *size = nl < l ? p + nl + 1 : NULL;
		bool right = size && *size == '.';
		int width = size ? atoi(size + right) : 20;

		for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
			if (nl == strlen(fields[k].name) && !strncasecmp(p, fields[k].name, nl))
				break;
		if (k == sizeof(fields) / sizeof(fields[0]) || width <= 0) {
			cli_error(prog, "Invalid node format specification: %.*s", (int)l, p);
			return 1;
		}
		o += (size_t)snprintf(fmt + o, len - o, "%%%s%d%c", right ? "." : "", width,
				      fields[k].code);
		if (o >= len)
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

/* sinfo -v: the options as it took them, in Slurm's layout. */
static void say_options(const char *fmt, int iterate, bool lng, bool header, bool node_mode,
			bool responding, const char *parts, const char *states, bool names,
			int verbose)
{
	fprintf(stderr,
		"-----------------------------\ndead        = false\nexact       = 1\n"
		"filtering   = %s\nformat      = %s\niterate     = %d\nlong        = %s\n"
		"no_header   = %s\nnode_field  = %s\nnodes       = %s\npartition   = %s\n"
		"responding  = %s\nstates      = %s\nsummarize   = %s\nverbose     = %d\n"
		"-----------------------------\n\n\n",
		parts || states || names ? "true" : "false", fmt ? fmt : "(null)", iterate,
		lng ? "true" : "false", header ? "false" : "true", node_mode ? "true" : "false",
		names ? "(given)" : "(null)", parts ? parts : "(null)", responding ? "true" : "false",
		states ? states : "(null)",
		fmt && !strcmp(fmt, "%9P %.5a %.10l %.16F %N") ? "true" : "false", verbose);
}

/* sinfo's options (Slurm's; those not built are refused by name first). */
static const struct option sinfo_opts[] = {
	{ "Node", no_argument, NULL, 'N' }, { "long", no_argument, NULL, 'l' },
	{ "noheader", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'J' }, { "yaml", no_argument, NULL, 'Y' },
	{ "format", required_argument, NULL, 'o' },
	{ "list-reasons", no_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'H' },
	{ "partition", required_argument, NULL, 'p' }, { "states", required_argument, NULL, 't' },
	{ "nodes", required_argument, NULL, 'n' },    { "all", no_argument, NULL, 'a' },
	{ "exact", no_argument, NULL, 'e' },	      { "version", no_argument, NULL, 'V' },
	{ "usage", no_argument, NULL, 'H' },	      { "hide", no_argument, NULL, 'I' },
	{ "verbose", no_argument, NULL, 'v' },	      { "summarize", no_argument, NULL, 's' },
	{ "responding", no_argument, NULL, 'r' },     { "iterate", required_argument, NULL, 'i' },
	{ "Format", required_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 },
};

/* The option pairs Slurm refuses together: 0, or 1 (said). */
static int conflicts(const char *prog, bool fmt_opt, bool lng, bool all, const char *parts)
{
	if (fmt_opt && lng) {
		fprintf(stderr, "%s: fatal: Options -o(--format) and -l(--long) are mutually "
				"exclusive. Please remove one and retry.\n", prog);
		return 1;
	}
	if (all && parts) {
		cli_error(prog, "Conflicting options, -a and -p, specified. Please choose one or the "
				"other.");
		return 1;
	}
	return 0;
}

int cli_sinfo_main(const char *prog, int argc, char **argv)
{
	const char *parts = NULL, *states = NULL;
	struct spur_hostlist *names = NULL;
	bool all = false, responding = false, fmt_opt = false, all_opt = false, parts_opt = false;
	int iterate = 0, verbose = 0;
	bool node_mode = false, lng = false, header = true, json_out = false, reasons = false, yaml_out = false;
	const char *fmt = NULL;
	int rc = 0;
	struct spur_error err;
	char *pargv[64 + 1];
	int pargc;
	int opt;

	static const char *const unbuilt[] = { "clusters", "dead",	 "federation",
					       "local",	   "noconvert", "reservation",
					       "sort",	   NULL };
	static char long_fmt[1024];

	if (cli_refused_opts(prog, argc, argv, unbuilt, "MSTd"))
		return 1;
	pargc = cli_getopt_argv("sinfo", argc, argv, pargv, 64);
	/* Slurm's input variables, under the command line */
	fmt = getenv("SINFO_FORMAT") && *getenv("SINFO_FORMAT") ? getenv("SINFO_FORMAT") : NULL;
	parts = getenv("SINFO_PARTITION") && *getenv("SINFO_PARTITION") ? getenv("SINFO_PARTITION")
									: NULL;
	all = getenv("SINFO_ALL") != NULL;
	if (all && parts) {
		cli_error(prog, "Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. "
				"Please choose one or the other.");
		return 1;
	}
	while ((opt = getopt_long(pargc, pargv, "NlhJo:O:Rp:t:n:aeVvsri:", sinfo_opts, NULL)) != -1) {
		switch (opt) {
		case 'p': /* over SINFO_ALL */
			parts = optarg;
			all = all && all_opt;
			parts_opt = true;
			break;
		case 't':
			states = optarg;
			break;
		case 'n':
			spur_hostlist_destroy(names);
			if (!(names = spur_hostlist_from_expr(optarg, &err))) {
				cli_error(prog, "Invalid node name specified: %s", optarg);
				return 1;
			}
			break;
		case 'a': /* over SINFO_PARTITION */
			all = all_opt = true;
			parts = parts_opt ? parts : NULL;
			break;
		case 'e':
			break; /* Spur's rows are always exact: one per set of values shown */
		case 'I':
			all = false; /* the default: hidden partitions hidden */
			break;
		case 'v':
			verbose++;
			break;
		case 's':
			fmt = "%9P %.5a %.10l %.16F %N"; /* Slurm's summary */
			break;
		case 'r':
			responding = true;
			break;
		case 'i':
			if ((iterate = atoi(optarg)) <= 0) {
				cli_error(prog, "Invalid --iterate value: %s", optarg);
				return 1;
			}
			break;
		case 'V':
			cli_version();
			return 0;
		case 'o':
			fmt = optarg;
			fmt_opt = true;
			break;
		case 'O':
			if (long_format(prog, optarg, long_fmt, sizeof(long_fmt)))
				return 1;
			fmt = long_fmt;
			break;
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
		case 'Y':
			json_out = true;
			yaml_out = opt == 'Y';
			break;
		case 'R':
			reasons = true;
			break;
		case 'H':
			printf("Usage: sinfo [-aehlNRrsv] [-i seconds] [-t states] [-p partition] "
			       "[-n node] [-o format] [--json|--yaml]\n"
			       "\nHelp options:\n"
			       "  -h, --help                 show this help message\n"
			       "      --usage                display brief usage message\n");
			return 0;
		default:
			fprintf(stderr, "Try \"sinfo --help\" for more information\n");
			return 1;
		}
	}
	if (conflicts(prog, fmt_opt, lng, all, parts))
		return 1;
	if (verbose)
		say_options(fmt, iterate, lng, header, node_mode, responding, parts, states,
			    names != NULL, verbose);
	if (json_out) {
		if (parts || states || names) {
			spur_hostlist_destroy(names);
			cli_error(prog, "--%s with filters is not supported by Spur",
				  yaml_out ? "yaml" : "json");
			return 1;
		}
		return cli_doc_print(prog, "/slurm/" REST_API "/nodes", yaml_out);
	}
	{
		struct sinfo_view v = { parts, states, names, all, responding, reasons, fmt, node_mode,
					lng, header };

		/* -i N: again every N seconds, each time after a blank line */
		for (;; sleep((unsigned)iterate), putchar('\n')) {
			time_t now = time(NULL);

			if (iterate)
				printf("%s", ctime(&now));
			rc = sinfo_once(prog, &v);
			fflush(stdout);
			if (rc || !iterate)
				break;
		}
	}
	spur_hostlist_destroy(names);
	return rc;
}
