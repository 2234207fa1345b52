/* SPDX-License-Identifier: Apache-2.0 */
/* squeue and scancel: list and cancel jobs. */
#include "client.h"

#include "common/timefmt.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define SQUEUE_DEFAULT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"

static const struct {
	const char *name, *code;
} states[] = {
	{ "PENDING", "PD" },   { "RUNNING", "R" },    { "COMPLETED", "CD" }, { "FAILED", "F" },
	{ "CANCELLED", "CA" }, { "TIMEOUT", "TO" },   { "NODE_FAIL", "NF" }, { "PREEMPTED", "PR" },
};

static const char *state_code(const char *st)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].name, st))
			return states[i].code;
	return st;
}

static void job_id_text(const json_t *j, char *buf, size_t len)
{
	if (json_object_get(j, "array_job_id"))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT "_%" JSON_INTEGER_FORMAT,
			 (json_int_t)spur_json_int(j, "array_job_id", 0),
			 (json_int_t)spur_json_int(j, "array_task_id", 0));
	else
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
}

/* The text of one %x field for job j (header when j is NULL). */
static void field(char c, const json_t *j, int64_t now, char *buf, size_t len, bool *ok)
{
	static const struct {
		char c;
		const char *header;
	} headers[] = {
		{ 'i', "JOBID" },     { 'A', "JOBID" },    { 'P', "PARTITION" }, { 'j', "NAME" },
		{ 'u', "USER" },      { 't', "ST" },	   { 'T', "STATE" },	 { 'M', "TIME" },
		{ 'l', "TIME_LIMIT" }, { 'D', "NODES" },   { 'R', "NODELIST(REASON)" },
		{ 'N', "NODELIST" },  { 'r', "REASON" },   { 'Q', "PRIORITY" },	 { 'b', "TRES_PER_NODE" },
		{ 'a', "ACCOUNT" },   { 'S', "START_TIME" }, { 'V', "SUBMIT_TIME" }, { 'C', "CPUS" },
		{ 'e', "END_TIME" },  { 'L', "TIME_LEFT" }, { 'Z', "WORK_DIR" },
	};
	const char *st = j ? spur_json_str(j, "state", "") : "";
	bool running = !strcmp(st, "RUNNING");

	*ok = true;
	if (!j) {
		for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
			if (headers[i].c == c) {
				snprintf(buf, len, "%s", headers[i].header);
				return;
			}
		*ok = false;
		return;
	}
	switch (c) {
	case 'i':
		job_id_text(j, buf, len);
		break;
	case 'A':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
		break;
	case 'P':
		snprintf(buf, len, "%s", spur_json_str(j, "partition", ""));
		break;
	case 'j':
		snprintf(buf, len, "%s", spur_json_str(j, "name", ""));
		break;
	case 'u':
		snprintf(buf, len, "%s", spur_json_str(j, "user", ""));
		break;
	case 'a':
		snprintf(buf, len, "%s", spur_json_str(j, "account", ""));
		break;
	case 't':
		snprintf(buf, len, "%s", state_code(st));
		break;
	case 'T':
		snprintf(buf, len, "%s", st);
		break;
	case 'M':
		spur_duration_format(running ? now - spur_json_int(j, "start_time", now) : 0, buf, len);
		break;
	case 'L':
	case 'l': {
		int64_t lim = spur_json_int(j, "time_limit", 0);

		if (!lim)
			snprintf(buf, len, "UNLIMITED");
		else
			spur_duration_format(c == 'L' && running
						     ? lim - (now - spur_json_int(j, "start_time", now))
						     : lim,
					     buf, len);
		break;
	}
	case 'D':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "nodes", 1));
		break;
	case 'C':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 (json_int_t)(spur_json_int(j, "cpus_per_task", 1) *
				      (spur_json_int(j, "ntasks", 0) ? spur_json_int(j, "ntasks", 0)
								     : spur_json_int(j, "nodes", 1))));
		break;
	case 'N':
		snprintf(buf, len, "%s", spur_json_str(j, "nodelist", ""));
		break;
	case 'r':
		snprintf(buf, len, "%s", spur_json_str(j, "reason", "None"));
		break;
	case 'R':
		if (!strcmp(st, "PENDING"))
			snprintf(buf, len, "(%s)", spur_json_str(j, "reason", "None"));
		else
			snprintf(buf, len, "%s", spur_json_str(j, "nodelist", ""));
		break;
	case 'Q':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "priority", 0));
		break;
	case 'b': {
		const char *g = spur_json_str(j, "gres", "");

		snprintf(buf, len, "%s%s", *g ? "gres/" : "N/A", g);
		break;
	}
	case 'S':
	case 'V':
	case 'e': {
		int64_t t = spur_json_int(j, c == 'S' ? "start_time" : c == 'V' ? "submit_time"
									: "end_time",
					  0);

		if (!t)
			snprintf(buf, len, "N/A");
		else
			spur_time_format((time_t)t, buf, len);
		break;
	}
	case 'Z':
		snprintf(buf, len, "%s", spur_json_str(j, "workdir", ""));
		break;
	default:
		*ok = false;
	}
}

/* Print one line of `fmt` for j (NULL: the header); with emit false only
 * check the format. Returns -1 on a bad spec. */
static int print_line(const char *fmt, const json_t *j, int64_t now, bool emit)
{
	char out[8192];
	size_t o = 0;

	for (const char *p = fmt; *p && o + 1 < sizeof(out);) {
		bool right = false, ok;
		int width = 0;
		char val[1024];

		if (*p != '%') {
			out[o++] = *p++;
			continue;
		}
		p++;
		if (*p == '.') {
			right = true;
			p++;
		}
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (*p++ - '0');
		if (!*p)
			return -1;
		field(*p, j, now, val, sizeof(val), &ok);
		if (!ok)
			return -1;
		p++;
		if (width && (int)strlen(val) > width)
			val[width] = '\0'; /* squeue truncates to the field width */
		o += (size_t)snprintf(out + o, sizeof(out) - o, right ? "%*s" : "%-*s", width, val);
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	if (emit)
		puts(out);
	return 0;
}

static bool in_list(const char *list, const char *v)
{
	size_t vl = strlen(v);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == vl && !strncasecmp(p, v, l))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

int cli_squeue_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'o' }, { "user", required_argument, NULL, 'u' },
		{ "states", required_argument, NULL, 't' }, { "partition", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },   { "noheader", no_argument, NULL, 'h' },
		{ "start", no_argument, NULL, 'S' },	    { "json", no_argument, NULL, 'J' },
		{ "all", no_argument, NULL, 'a' },	    { "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = SQUEUE_DEFAULT, *users = NULL, *st = NULL, *parts = NULL, *jobs_f = NULL;
	bool header = true, json_out = false;
	struct spur_error err;
	json_t *reply, *jobs, *j;
	char *pargv[128];
	int opt;
	size_t i;

	pargv[0] = "squeue";
	for (int k = 0; k < argc && k < 126; k++)
		pargv[k + 1] = argv[k];
	optind = 1;
	while ((opt = getopt_long(argc + 1, pargv, "o:u:t:p:j:hSaJ", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			fmt = optarg;
			break;
		case 'u':
			users = optarg;
			break;
		case 't':
			st = optarg;
			break;
		case 'p':
			parts = optarg;
			break;
		case 'j':
			jobs_f = optarg;
			break;
		case 'h':
			header = false;
			break;
		case 'S':
			fmt = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %R";
			break;
		case 'J':
			json_out = true;
			break;
		case 'a':
			break;
		case 'H':
			printf("Usage: squeue [-o FORMAT] [-u USERS] [-t STATES] [-p PARTITIONS] "
			       "[-j JOBS] [-h] [--start] [--json]\n");
			return 0;
		default:
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return 1;
		}
	}
	if (print_line(fmt, NULL, 0, false) < 0) {
		fprintf(stderr, "%s: error: Invalid job format specification: %s\n", prog, fmt);
		return 1;
	}
	reply = cli_call(json_pack("{s:s}", "type", "queue"), &err);
	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	jobs = json_object_get(reply, "jobs");
	if (json_out) {
		json_t *out = json_pack("{s:O}", "jobs", jobs);

		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
		json_decref(reply);
		return 0;
	}
	if (header)
		print_line(fmt, NULL, 0, true);
	json_array_foreach(jobs, i, j) {
		char id[32];

		job_id_text(j, id, sizeof(id));
		if (users && !in_list(users, spur_json_str(j, "user", "")))
			continue;
		if (st && !in_list(st, spur_json_str(j, "state", "")) &&
		    !in_list(st, state_code(spur_json_str(j, "state", ""))))
			continue;
		if (parts && !in_list(parts, spur_json_str(j, "partition", "")))
			continue;
		if (jobs_f && !in_list(jobs_f, id) &&
		    !in_list(jobs_f, spur_json_str(j, "job_id", "")))
			continue;
		print_line(fmt, j, spur_json_int(reply, "now", 0), true);
	}
	json_decref(reply);
	return 0;
}

int cli_scancel_main(const char *prog, int argc, char **argv)
{
	int rc = 0;

	if (argc < 1) {
		fprintf(stderr, "%s: error: No job identification provided\n", prog);
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		struct spur_error err;
		char *end;
		long id = strtol(argv[i], &end, 10);
		json_t *reply;

		if (*end || id <= 0) {
			fprintf(stderr, "%s: error: Invalid job id %s\n", prog, argv[i]);
			rc = 1;
			continue;
		}
		reply = cli_call(json_pack("{s:s,s:i}", "type", "cancel", "job_id", (int)id), &err);
		if (!reply) {
			fprintf(stderr, "%s: error: Kill job error on job id %ld: %s\n", prog, id,
				err.msg);
			rc = 1;
			continue;
		}
		json_decref(reply);
	}
	return rc;
}
