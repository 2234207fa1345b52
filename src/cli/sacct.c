/* SPDX-License-Identifier: Apache-2.0 */
/* sacct: job history from the controller's accounting database. */
#include "client.h"

#include "rest/rest.h"

#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/timefmt.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* --delimiter: between -p/-P fields */
static const char *delim = "|";

#define SACCT_DEFAULT "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"

static const struct {
	const char *name;
	int width;
} fields[] = {
	{ "JobID", 12 },    { "JobIDRaw", 12 }, { "JobName", 10 }, { "Partition", 10 },
	{ "Account", 10 },  { "AllocCPUS", 10 }, { "State", 10 },  { "ExitCode", 8 },
	{ "User", 9 },	    { "Start", 19 },	{ "End", 19 },	   { "Submit", 19 },
	{ "Elapsed", 10 },  { "NodeList", 15 }, { "NNodes", 8 },   { "Timelimit", 10 },
	{ "WorkDir", 30 },  { "ReqTRES", 10 },	{ "ElapsedRaw", 10 }, { "CPUTime", 10 },
	{ "CPUTimeRAW", 10 }, { "NCPUS", 10 },	{ "AllocNodes", 10 }, { "AllocTRES", 10 },
	{ "TimelimitRaw", 12 }, { "ReqNodes", 8 },	{ "MaxRSS", 10 },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct col {
	int field, width;
};

static int parse_format(const char *fmt, struct col *cols, int max)
{
	int n = 0;

	for (const char *p = fmt; *p && n < max;) {
		size_t l = strcspn(p, ",");
		char name[64];
		char *pct;
		int f;

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		p += l + (p[l] == ',');
		pct = strchr(name, '%');
		if (pct)
			*pct = '\0';
		for (f = 0; f < (int)NFIELDS && strcasecmp(fields[f].name, name); f++)
			;
		if (f == (int)NFIELDS) {
			fprintf(stderr, "sacct: error: Invalid field requested: \"%s\"\n", name);
			return -1;
		}
		cols[n].field = f;
		cols[n].width = pct ? atoi(pct + 1) : fields[f].width;
		n++;
	}
	return n;
}

static void when(int64_t t, const char *none, char *buf, size_t len)
{
	if (t <= 0)
		snprintf(buf, len, "%s", none);
	else
		spur_time_format((time_t)t, buf, len);
}

/* The fields worked out from the others: run times, CPU time, TRES. */
static void value_more(const char *name, const json_t *j, int64_t now, char *buf, size_t len)
{
	int64_t start = spur_json_int(j, "start", 0), end = spur_json_int(j, "end", 0);
	int64_t el = !start ? 0 : (end ? end : now) - start;
	bool pending = !strcmp(spur_json_str(j, "state", ""), "PENDING");
	int64_t cpus = pending ? 0 : spur_json_int(j, "cpus", 0);
	int64_t nodes = pending ? 0 : spur_json_int(j, "nnodes", 1);

	if (!strcmp(name, "ElapsedRaw"))
		snprintf(buf, len, "%lld", (long long)el);
	else if (!strcmp(name, "CPUTime"))
		spur_duration_format_hms(el * cpus, buf, len);
	else if (!strcmp(name, "CPUTimeRAW"))
		snprintf(buf, len, "%lld", (long long)(el * cpus));
	else if (!strcmp(name, "NCPUS"))
		snprintf(buf, len, "%lld", (long long)cpus);
	else if (!strcmp(name, "AllocNodes"))
		snprintf(buf, len, "%lld", (long long)nodes);
	else if (!strcmp(name, "AllocTRES") && !pending)
		snprintf(buf, len, "billing=%lld,cpu=%lld,node=%lld", (long long)cpus,
			 (long long)cpus, (long long)nodes);
	else if (!strcmp(name, "TimelimitRaw"))
		snprintf(buf, len, "%lld", spur_json_int(j, "time_limit", 0) > 0
						   ? (long long)(spur_json_int(j, "time_limit", 0) / 60)
						   : 4294967295LL);
	else if (!strcmp(name, "MaxRSS") && spur_json_int(j, "max_rss_kb", 0) > 0)
		/* the batch step's peak (its cgroup's), as Slurm's cgroup gather */
		snprintf(buf, len, "%lldK", (long long)spur_json_int(j, "max_rss_kb", 0));
	else if (!strcmp(name, "ReqNodes"))
		snprintf(buf, len, "%lld", (long long)spur_json_int(j, "nnodes", 1));
}

static void value(int f, const json_t *j, int64_t now, char *buf, size_t len)
{
	const char *name = fields[f].name;
	const char *state = spur_json_str(j, "state", "");
	int64_t start = spur_json_int(j, "start", 0), end = spur_json_int(j, "end", 0);

	if (!strcmp(name, "JobID")) {
		if (json_object_get(j, "array_task_string")) /* an array's tasks with no record */
			snprintf(buf, len, "%" JSON_INTEGER_FORMAT "_[%s]",
				 (json_int_t)spur_json_int(j, "array_job_id", 0),
				 spur_json_str(j, "array_task_string", ""));
		else if (spur_json_int(j, "array_job_id", 0))
			snprintf(buf, len, "%" JSON_INTEGER_FORMAT "_%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(j, "array_job_id", 0),
				 (json_int_t)spur_json_int(j, "array_task_id", 0));
		else
			snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(j, "job_id", 0));
	} else if (!strcmp(name, "JobIDRaw")) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
	} else if (!strcmp(name, "JobName")) {
		snprintf(buf, len, "%s", spur_json_str(j, "name", ""));
	} else if (!strcmp(name, "Partition")) {
		snprintf(buf, len, "%s", spur_json_str(j, "partition", ""));
	} else if (!strcmp(name, "Account")) {
		snprintf(buf, len, "%s", spur_json_str(j, "account", ""));
	} else if (!strcmp(name, "AllocCPUS")) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 (json_int_t)(!strcmp(state, "PENDING") ? 0 : spur_json_int(j, "cpus", 0)));
	} else if (!strcmp(name, "State")) {
		snprintf(buf, len, "%s", state);
	} else if (!strcmp(name, "ExitCode")) {
		int64_t ec = spur_json_int(j, "exit_code", 0);

		/* Slurm's exit:signal; a job killed by a signal reads 0:SIG */
		if (ec > 128)
			snprintf(buf, len, "0:%lld", (long long)(ec - 128));
		else
			snprintf(buf, len, "%lld:0", (long long)ec);
	} else if (!strcmp(name, "User")) {
		snprintf(buf, len, "%s", spur_json_str(j, "user", ""));
	} else if (!strcmp(name, "Start")) {
		when(start, !strcmp(state, "PENDING") ? "None" : "Unknown", buf, len);
	} else if (!strcmp(name, "End")) {
		when(end, "Unknown", buf, len);
	} else if (!strcmp(name, "Submit")) {
		when(spur_json_int(j, "submit", 0), "Unknown", buf, len);
	} else if (!strcmp(name, "Elapsed")) {
		spur_duration_format_hms(!start ? 0 : (end ? end : now) - start, buf, len);
	} else if (!strcmp(name, "NodeList")) {
		snprintf(buf, len, "%s", spur_json_str(j, "nodelist", ""));
	} else if (!strcmp(name, "NNodes")) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "nnodes", 1));
	} else if (!strcmp(name, "Timelimit")) {
		if (!spur_json_int(j, "time_limit", 0))
			snprintf(buf, len, "UNLIMITED");
		else
			spur_duration_format_hms(spur_json_int(j, "time_limit", 0), buf, len);
	} else if (!strcmp(name, "WorkDir")) {
		snprintf(buf, len, "%s", spur_json_str(j, "workdir", ""));
	} else if (!strcmp(name, "ReqTRES")) {
		snprintf(buf, len, "%s%s", *spur_json_str(j, "gres", "") ? "gres/" : "",
			 spur_json_str(j, "gres", ""));
	} else {
		value_more(name, j, now, buf, len);
	}
}

/* One fixed-width cell: right-justified (JobID left), '+' marks a cut. */
static void cell(const char *v, int width, bool left)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", v);
	if (width > 0 && (int)strlen(buf) > width && width < (int)sizeof(buf)) {
		buf[width - 1] = '+';
		buf[width] = '\0';
	}
	printf(left ? "%-*s " : "%*s ", width, buf);
}

/* -j's list: the job ids to ask for (query), those asked whole, and the
 * steps asked alone ("J.S", J.batch); each buffer 4096 bytes. 0, or 1 said. */
static int split_steps(const char *prog, const char *jobs, char *query, char *whole, char *steps)
{
	char buf[4096], *save = NULL;
	size_t q = 0, w = 0, st = 0;

	snprintf(buf, sizeof(buf), "%s", jobs);
	query[0] = whole[0] = steps[0] = '\0';
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *dot = strchr(t, '.');

		if (dot && dot[1]) {
			st += (size_t)snprintf(steps + st, st < 4096 ? 4096 - st : 0, "%s%s",
					       st ? "," : "", t);
			*dot = '\0';
		} else if (dot) {
			fprintf(stderr, "%s: error: Invalid job id %s\n", prog, t);
			return 1;
		} else {
			w += (size_t)snprintf(whole + w, w < 4096 ? 4096 - w : 0, "%s%s",
					      w ? "," : "", t);
		}
		q += (size_t)snprintf(query + q, q < 4096 ? 4096 - q : 0, "%s%s", q ? "," : "", t);
	}
	if (q >= 4096 || w >= 4096 || st >= 4096) {
		fprintf(stderr, "%s: error: -j: too many job ids\n", prog);
		return 1;
	}
	return 0;
}

/* One line: the job's, or (step not NULL) one of its steps': the job's
 * fields with the step's own and Slurm's blanks (partition, user, time
 * limit). */
static void print_row(const json_t *job, const json_t *step, const struct col *cols, int ncols,
		      int64_t now, bool parsable, bool parsable2)
{
	json_t *row = json_deep_copy(job);

	if (step) {
		const char *id = spur_json_str(step, "step", "");
		char jid[64];

		value(0, job, now, jid, sizeof(jid)); /* JobID */
		json_object_update(row, (json_t *)step);
		snprintf(jid + strlen(jid), sizeof(jid) - strlen(jid), ".%s", id);
		json_object_set_new(row, "step_id_text", json_string(jid));
		json_object_set_new(row, "partition", json_string(""));
		json_object_set_new(row, "user", json_string(""));
		json_object_set_new(row, "time_limit", json_integer(-1));
		json_object_set_new(row, "cpus", json_integer(spur_json_int(step, "ntasks", 1)));
	}
	for (int c = 0; c < ncols; c++) {
		char v[1024] = "";

		if (step && !strcmp(fields[cols[c].field].name, "JobID"))
			snprintf(v, sizeof(v), "%s", spur_json_str(row, "step_id_text", ""));
		else if (step && !strcmp(fields[cols[c].field].name, "JobIDRaw"))
			snprintf(v, sizeof(v), "%lld.%s", (long long)spur_json_int(job, "job_id", 0),
				 spur_json_str(step, "step", ""));
		else if (step && !strcmp(fields[cols[c].field].name, "Timelimit"))
			v[0] = '\0';
		else
			value(cols[c].field, row, now, v, sizeof(v));
		if (parsable || parsable2)
			printf("%s%s", v, c + 1 < ncols || parsable ? delim : "");
		else
			cell(v, cols[c].width, !strcmp(fields[cols[c].field].name, "JobID"));
	}
	putchar('\n');
	json_decref(row);
}

/* What sacct's selection options leave: a job is shown when it matches
 * every one given, and was in the system within -S..-E (submitted by E,
 * not ended before S). */
struct sacct_filter {
	const char *states, *names, *accounts, *partitions;
	const char *nodes; /* -N: a hostlist expression */
	int64_t start, end; /* -S, -E; 0: none */
};

static bool row_wanted(const json_t *j, const struct sacct_filter *f)
{
	const char *st = spur_json_str(j, "state", "");
	int64_t end = spur_json_int(j, "end", 0);

	if (f->states && !spur_jobfmt_in_list(f->states, st) &&
	    !spur_jobfmt_in_list(f->states, spur_jobfmt_state_code(st)))
		return false;
	if (!spur_jobfmt_in_list(f->names, spur_json_str(j, "name", "")) ||
	    !spur_jobfmt_in_list(f->accounts, spur_json_str(j, "account", "")) ||
	    !spur_jobfmt_in_list(f->partitions, spur_json_str(j, "partition", "")))
		return false;
	if ((f->end && spur_json_int(j, "submit", 0) > f->end) || (f->start && end && end < f->start))
		return false;
	return !f->nodes || spur_hostlist_meet(f->nodes, spur_json_str(j, "nodelist", ""));
}

/* -S/-E as Slurm reads them (the --begin forms: HH:MM, YYYY-MM-DD[THH:MM],
 * now-1hour, today...): 0, or 1 said. */
static int window_time(const char *prog, const char *v, int64_t *out)
{
	struct spur_error err;
	time_t t;

	if (spur_begin_parse(v, time(NULL), &t, &err)) {
		cli_error(prog, "Invalid time specification: %s", v);
		return 1;
	}
	*out = (int64_t)t;
	return 0;
}

/* The selection options (0, or the exit code said). */
static int filter_opt(const char *prog, int opt, const char *arg, struct sacct_filter *f)
{
	struct spur_error err;

	switch (opt) {
	case 's': f->states = arg; return 0;
	case 'S': return window_time(prog, arg, &f->start);
	case 'E': return window_time(prog, arg, &f->end);
	case 'm': f->names = arg; return 0;
	case 'A': f->accounts = arg; return 0;
	case 'r': f->partitions = arg; return 0;
	case 'N': {
		struct spur_hostlist *hl = spur_hostlist_from_expr(arg, &err);

		if (!hl) {
			cli_error(prog, "Invalid node list: %s", arg);
			return 1;
		}
		spur_hostlist_destroy(hl);
		f->nodes = arg;
		return 0;
	}
	case 'D': delim = arg; return 0;
	default: return -1;
	}
}

/* sacct's long options */
static const struct option opts[] = {
	{ "jobs", required_argument, NULL, 'j' },    { "user", required_argument, NULL, 'u' },
	{ "allusers", no_argument, NULL, 'a' },	     { "format", required_argument, NULL, 'o' },
	{ "parsable", no_argument, NULL, 'p' },	     { "parsable2", no_argument, NULL, 'P' },
	{ "allocations", no_argument, NULL, 'X' },   { "noheader", no_argument, NULL, 'n' },
	{ "starttime", required_argument, NULL, 'S' }, { "endtime", required_argument, NULL, 'E' },
	{ "state", required_argument, NULL, 's' },   { "help", no_argument, NULL, 'h' },
	{ "name", required_argument, NULL, 'm' },    { "accounts", required_argument, NULL, 'A' },
	{ "partition", required_argument, NULL, 'r' }, { "nodelist", required_argument, NULL, 'N' },
	{ "delimiter", required_argument, NULL, 'D' }, { "json", no_argument, NULL, 'J' }, { "yaml", no_argument, NULL, 'Y' },
	{ NULL, 0, NULL, 0 },
};

/* The rows: each job, then its steps (-X: none); a job asked by its steps
 * alone (-j J.S) shows those steps only. */
static void print_jobs(const json_t *reply, const struct sacct_filter *f, const struct col *cols,
		       int ncols, bool allocations, bool parsable, bool parsable2,
		       const char *whole_ids, const char *step_ids)
{
	size_t i;
	json_t *j;

	json_array_foreach(json_object_get(reply, "jobs"), i, j) {
		const json_t *s;
		size_t k;
		char id[32], sid[64];
		bool whole;

		if (!row_wanted(j, f))
			continue;
		/* -j J.S alone: that step's row only, as Slurm's */
		snprintf(id, sizeof(id), "%lld", (long long)spur_json_int(j, "job_id", 0));
		whole = !*step_ids || spur_jobfmt_in_list(whole_ids, id);
		if (whole)
			print_row(j, NULL, cols, ncols, spur_json_int(reply, "now", 0), parsable,
				  parsable2);
		/* then its steps (.batch, .0, .1...), as Slurm's sacct without -X */
		json_array_foreach(allocations && whole ? NULL : json_object_get(j, "steps"), k, s) {
			snprintf(sid, sizeof(sid), "%s.%s", id, spur_json_str(s, "step", ""));
			if (whole || spur_jobfmt_in_list(step_ids, sid))
				print_row(j, s, cols, ncols, spur_json_int(reply, "now", 0), parsable,
					  parsable2);
		}
	}
}

int cli_sacct_main(const char *prog, int argc, char **argv)
{
	struct sacct_filter flt = { 0 };
	int frc;
	const char *jobs = NULL, *user = NULL, *fmt = SACCT_DEFAULT;
	static char query_ids[4096], whole_ids[4096], step_ids[4096];
	bool all = getuid() == 0, parsable = false, parsable2 = false, header = true,
	     allocations = false, json_out = false, yaml_out = false;
	struct col cols[64];
	struct spur_error err;
	json_t *req, *reply;
	char *pargv[128 + 1];
	int pargc;
	int opt, ncols;

	static const char *const unbuilt[] = {
		"allclusters", "associations", "batch-script", "brief", "clusters",
		"completion", "constraints", "duplicates", "env-vars", "federation",
		"file", "flags", "gid", "group", "local", "long", "ncpus", "nnodes",
		"noconvert", "qos", "reason", "timelimit-max",
		"timelimit-min", "truncate", "uid", "units", "use-local-uid", "wckeys",
		"whole-hetjob", "helpformat", "usage", "verbose", NULL
	};

	if (cli_refused_opts(prog, argc, argv, unbuilt, "BCDFIKLMRTWbcefgiklqvx"))
		return 1;
	pargc = cli_getopt_argv("sacct", argc, argv, pargv, 128);
	if (getenv("SACCT_FORMAT") && *getenv("SACCT_FORMAT")) /* under the command line */
		fmt = getenv("SACCT_FORMAT");
	while ((opt = getopt_long(pargc, pargv, "j:u:ao:pPXnS:E:s:hA:r:N:", opts, NULL)) != -1) {
		if ((frc = filter_opt(prog, opt, optarg, &flt)) >= 0) {
			if (frc)
				return frc;
			continue;
		}
		switch (opt) {
		case 'j':
			jobs = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'o':
			fmt = optarg;
			break;
		case 'p':
			parsable = true;
			break;
		case 'P':
			parsable2 = true;
			break;
		case 'n':
			header = false;
			break;
		case 'X':
			allocations = true; /* the jobs, not their steps */
			break;
		case 'J':
		case 'Y':
			json_out = true;
			yaml_out = opt == 'Y';
			break;
		case 'h':
			printf("Usage: sacct [-j JOBS] [-u USER] [-a] [-o FIELDS] [-P|-p] [-X] [-n]\n");
			return 0;
		default:
			fprintf(stderr, "Try \"sacct --help\" for more information\n");
			return 1;
		}
	}
	if (json_out) {
		/* slurmdbd's document through slurmrestd's shapes: every job the
		 * caller may see (a selection is not applied: none is taken) */
		if (jobs || flt.states || flt.names || flt.accounts || flt.partitions ||
		    flt.nodes || flt.start || flt.end) {
			cli_error(prog, "--%s with a selection is not supported by Spur",
				  yaml_out ? "yaml" : "json");
			return 1;
		}
		return cli_doc_print(prog, "/slurmdb/" REST_API "/jobs", yaml_out);
	}
	ncols = parse_format(fmt, cols, 64);
	if (ncols < 0)
		return 1;
	/* as Slurm: from midnight today, unless -j or -s says which jobs */
	if (!jobs && !flt.states && !flt.start) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		flt.start = (int64_t)mktime(&tm);
	}
	if (!user && !all && !jobs) {
		struct passwd *pw = getpwuid(getuid());

		user = pw ? pw->pw_name : NULL;
	}
	req = json_pack("{s:s}", "type", "acct");
	if (jobs && split_steps(prog, jobs, query_ids, whole_ids, step_ids)) {
		json_decref(req);
		return 1;
	}
	if (jobs)
		json_object_set_new(req, "jobs", json_string(query_ids));
	if (user)
		json_object_set_new(req, "user", json_string(user));
	reply = cli_call(req, &err);
	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	if (header) {
		for (int c = 0; c < ncols; c++) {
			if (parsable || parsable2)
				printf("%s%s", fields[cols[c].field].name,
				       c + 1 < ncols || parsable ? delim : "");
			else
				cell(fields[cols[c].field].name, cols[c].width, false);
		}
		putchar('\n');
		if (!parsable && !parsable2) {
			for (int c = 0; c < ncols; c++) {
				for (int k = 0; k < cols[c].width; k++)
					putchar('-');
				putchar(' ');
			}
			putchar('\n');
		}
	}
	print_jobs(reply, &flt, cols, ncols, allocations, parsable, parsable2, whole_ids, step_ids);
	json_decref(reply);
	return 0;
}
