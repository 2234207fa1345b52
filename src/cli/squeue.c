/* SPDX-License-Identifier: Apache-2.0 */
/* squeue and scancel: list and cancel jobs. */
#include "client.h"

#include "common/jobfmt.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* squeue -O/--Format "JobID:10,Name,State:.8" as the equivalent -o format:
 * each field left-justified in 20 columns unless it says otherwise (":W",
 * ":.W" right-justified), no separator, as Slurm prints it. */
static int format_long(const char *spec, char *out, size_t len)
{
	static const struct {
		const char *name;
		char code;
	} fields[] = {
		{ "jobid", 'i' },	  { "jobarrayid", 'i' }, { "arrayjobid", 'F' },
		{ "arraytaskid", 'K' },	  { "name", 'j' },	 { "username", 'u' },
		{ "userid", 'u' },	  { "account", 'a' },	 { "partition", 'P' },
		{ "state", 'T' },	  { "statecompact", 't' }, { "timeused", 'M' },
		{ "timelimit", 'l' },	  { "timeleft", 'L' },	 { "numnodes", 'D' },
		{ "numcpus", 'C' },	  { "nodelist", 'N' },	 { "reason", 'r' },
		{ "reasonlist", 'R' },	  { "priority", 'Q' },	 { "tres-per-node", 'b' },
		{ "gres", 'b' },	  { "starttime", 'S' },	 { "submittime", 'V' },
		{ "endtime", 'e' },	  { "workdir", 'Z' },
	};
	size_t o = 0;

	out[0] = '\0';
	for (const char *p = spec; *p;) {
		size_t l = strcspn(p, ","), nl;
		char item[64], *colon;
		const char *w = "20";
		bool right = false;
		char code = 0;

		if (l >= sizeof(item))
			return -1;
		memcpy(item, p, l);
		item[l] = '\0';
		p += l + (p[l] == ',');
		colon = strchr(item, ':');
		if (colon) {
			*colon = '\0';
			right = colon[1] == '.';
			w = colon + 1 + right;
			if (!*w)
				w = "20";
			if (strspn(w, "0123456789") != strlen(w))
				return -1;
		}
		nl = strlen(item);
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && !code; i++)
			if (strlen(fields[i].name) == nl && !strcasecmp(fields[i].name, item))
				code = fields[i].code;
		if (!code)
			return -1;
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%%%s%s%c", right ? "." : "", w,
				      code);
		if (o >= len)
			return -1;
	}
	return o ? 0 : -1;
}

int cli_squeue_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'o' }, { "user", required_argument, NULL, 'u' },
		{ "Format", required_argument, NULL, 'O' },
		{ "states", required_argument, NULL, 't' }, { "partition", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },   { "noheader", no_argument, NULL, 'h' },
		{ "start", no_argument, NULL, 'S' },	    { "json", no_argument, NULL, 'J' },
		{ "all", no_argument, NULL, 'a' },	    { "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fmt = SPUR_SQUEUE_DEFAULT, *users = NULL, *st = NULL, *parts = NULL, *jobs_f = NULL;
	bool header = true, json_out = false;
	struct spur_error err;
	json_t *reply, *req;
	char *pargv[128 + 1];
	int pargc;
	int opt;
	char long_fmt[1024];

	pargc = cli_getopt_argv("squeue", argc, argv, pargv, 128);
	while ((opt = getopt_long(pargc, pargv, "o:O:u:t:p:j:hSaJ", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			fmt = optarg;
			break;
		case 'O':
			if (format_long(optarg, long_fmt, sizeof(long_fmt))) {
				fprintf(stderr, "%s: error: Invalid job format specification: %s\n",
					prog, optarg);
				return 1;
			}
			fmt = long_fmt;
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
			printf("Usage: squeue [-o FORMAT] [-O FIELDS] [-u USERS] [-t STATES] [-p PARTITIONS] "
			       "[-j JOBS] [-h] [--start] [--json]\n");
			return 0;
		default:
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return 1;
		}
	}
	if (!spur_jobfmt_valid(fmt)) {
		fprintf(stderr, "%s: error: Invalid job format specification: %s\n", prog, fmt);
		return 1;
	}
	req = json_pack("{s:s}", "type", "queue");
	if (!json_out) {
		json_object_set_new(req, "format", json_string(fmt));
		if (users)
			json_object_set_new(req, "users", json_string(users));
		if (st)
			json_object_set_new(req, "states", json_string(st));
		if (parts)
			json_object_set_new(req, "partitions", json_string(parts));
		if (jobs_f)
			json_object_set_new(req, "jobs", json_string(jobs_f));
	}
	reply = cli_call(req, &err);
	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	if (json_out) {
		json_t *out = json_pack("{s:O}", "jobs", json_object_get(reply, "jobs"));

		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	} else {
		char head[4096];
		size_t len = 0;

		if (header && spur_jobfmt_line(fmt, NULL, 0, head, &len, sizeof(head)))
			fputs(head, stdout);
		fwrite(json_string_value(json_object_get(reply, "text")), 1,
		       json_string_length(json_object_get(reply, "text")), stdout);
	}
	json_decref(reply);
	return 0;
}

static void cancel_failed(const char *prog, long id, const char *why)
{
	fprintf(stderr, "%s: error: Kill job error on job id %ld: %s\n", prog, id, why);
}

int cli_scancel_main(const char *prog, int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "%s: error: No job identification provided\n", prog);
		return 1;
	}
	return cli_each_job(prog, argc, argv, "cancel", false, cancel_failed);
}
