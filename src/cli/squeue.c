/* SPDX-License-Identifier: Apache-2.0 */
/* squeue and scancel: list and cancel jobs. */
#include "client.h"

#include "rest/rest.h"

#include "common/jobfmt.h"

#include <ctype.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

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

/* One squeue answer, printed; -l and -i put the time before it. */
static int queue_once(const char *prog, json_t *req, const char *fmt, bool header, bool stamped)
{
	struct spur_error err;
	json_t *reply;
	int fd = cli_send(req, 30000, &reply, &err);
	char head[4096], *text = NULL;
	size_t len = 0, tlen = 0;

	reply = fd >= 0 ? cli_reply(reply, &err) : NULL;
	if (!reply) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	if (stamped) {
		char when[64];
		time_t now = time(NULL);

		strftime(when, sizeof(when), "%a %b %d %H:%M:%S %Y", localtime(&now));
		printf("%s\n", when);
	}
	/* the lines come as a raw frame after the answer */
	if (spur_wire_recv_bytes(fd, &text, &tlen, 30000, &err)) {
		close(fd);
		json_decref(reply);
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	if (header && spur_jobfmt_line(fmt, NULL, 0, head, &len, sizeof(head)))
		fputs(head, stdout);
	fwrite(text, 1, tlen, stdout);
	free(text);
	close(fd);
	json_decref(reply);
	return 0;
}

/* SQUEUE_FORMAT (-o's) and SQUEUE_FORMAT2 (-O's), under the command line:
 * 0, or 1 (said). */
static int env_format(const char *prog, const char **fmt, char *long_fmt, size_t len)
{
	const char *f = getenv("SQUEUE_FORMAT"), *f2 = getenv("SQUEUE_FORMAT2");

	if (f && *f)
		*fmt = f;
	if (f2 && *f2) {
		if (format_long(f2, long_fmt, len)) {
			fprintf(stderr, "%s: error: Invalid job format specification: %s\n", prog, f2);
			return 1;
		}
		*fmt = long_fmt;
	}
	return 0;
}

/* squeue -v: the options as it took them, in Slurm's layout (flt: the
 * users, states, partitions, jobs filters first). */
static void say_options(const char *fmt, int iterate, bool lng, bool header,
			const char *const *flt, int verbose)
{
	fprintf(stderr, "-----------------------------\n");
	fprintf(stderr, "all         = %s\nformat      = %s\niterate     = %d\n"
			"job_flag    = %d\njob_list    = %s\nlong        = %s\n"
			"no_header   = %s\npart_list   = %s\nstate_list  = %s\n"
			"user_list   = %s\nverbose     = %d\n",
		"true", fmt, iterate, 1, flt[3] ? flt[3] : "(null)", lng ? "true" : "false",
		header ? "false" : "true", flt[2] ? flt[2] : "(null)", flt[1] ? flt[1] : "(null)",
		flt[0] ? flt[0] : "(null)", verbose);
	fprintf(stderr, "-----------------------------\n\n\n");
}

/* -i N: again every N seconds, each time after a blank line; req is
 * released. */
static int queue_loop(const char *prog, json_t *req, const char *fmt, bool header, bool lng,
		      int iterate)
{
	for (int rc;; sleep((unsigned)iterate), putchar('\n')) {
		rc = queue_once(prog, req, fmt, header, lng || iterate);
		fflush(stdout);
		if (rc || !iterate) {
			json_decref(req);
			return rc;
		}
	}
}

/* squeue's options (Slurm's; those not built are refused by name first). */
static const struct option squeue_opts[] = {
	{ "format", required_argument, NULL, 'o' }, { "user", required_argument, NULL, 'u' },
	{ "Format", required_argument, NULL, 'O' },
	{ "states", required_argument, NULL, 't' }, { "partitions", required_argument, NULL, 'p' },
	{ "users", required_argument, NULL, 'u' },  { "node", required_argument, NULL, 'w' },
	{ "nodes", required_argument, NULL, 'w' },
	{ "jobs", required_argument, NULL, 'j' },   { "noheader", no_argument, NULL, 'h' },
	{ "start", no_argument, NULL, 1000 }, { "sort", required_argument, NULL, 'S' },
	{ "priority", no_argument, NULL, 'P' }, { "steps", optional_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'J' },	    { "yaml", no_argument, NULL, 'Y' },
	{ "all", no_argument, NULL, 'a' },	    { "help", no_argument, NULL, 'H' },
	{ "name", required_argument, NULL, 'n' },   { "accounts", required_argument, NULL, 'A' },
	{ "qos", required_argument, NULL, 'q' },    { "nodelist", required_argument, NULL, 'w' },
	{ "me", no_argument, NULL, 'm' },	    { "long", no_argument, NULL, 'l' },
	{ "iterate", required_argument, NULL, 'i' }, { "version", no_argument, NULL, 'V' },
	{ "usage", no_argument, NULL, 'H' },	    { "array", no_argument, NULL, 'r' },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

/* SQUEUE_SORT, under the command line: 0, or 1 (said). */
static int env_sort(const char *prog, const char **sort)
{
	char bad;

	if (!getenv("SQUEUE_SORT") || !*getenv("SQUEUE_SORT"))
		return 0;
	*sort = getenv("SQUEUE_SORT");
	if (!spur_jobfmt_sort_valid(*sort, &bad)) {
		cli_error(prog, "Invalid sort specification: %c", bad);
		return 1;
	}
	return 0;
}

static void squeue_usage(void)
{
	printf("Usage: squeue [-A account] [-i seconds] [--job jobid] [-n name] [-o format]\n"
	       "              [-O fields] [-p partitions] [-q qos] [--start] [-t states]\n"
	       "              [-u user_name] [--usage] [-w nodes] [-S sort] [-P] [-s]\n"
	       "              [--json|--yaml] [-ahlrv]\n"
	       "\nHelp options:\n"
	       "  -h, --help                 show this help message\n"
	       "      --usage                display brief usage message\n");
}

/* -u's list (names or numeric ids) as user names, into out. An unknown
 * user is said in the command's words (squeue: "Invalid user: X", kept so
 * that it matches nothing; scancel: "Invalid user name: X", refused).
 * False when refused or out is too small. */
static bool user_names(const char *prog, const char *list, bool strict, char *out, size_t len)
{
	char buf[1024], *save = NULL;
	size_t o = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	out[0] = '\0';
	for (char *u = strtok_r(buf, ",", &save); u; u = strtok_r(NULL, ",", &save)) {
		char *end;
		long uid = strtol(u, &end, 10);
		struct passwd *pw = *end || end == u ? getpwnam(u) : getpwuid((uid_t)uid);

		if (!pw)
			fprintf(stderr, "%s: error: Invalid user%s: %s\n", prog,
				strict ? " name" : "", u);
		if (!pw && strict)
			return false;
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s", o ? "," : "",
				      pw ? pw->pw_name : u);
	}
	return o > 0 && o < len;
}

int cli_squeue_main(const char *prog, int argc, char **argv)
{
	/* the filters, each a comma list sent as it is, by the letter of its option */
	static const char letters[] = "utpjnAqw";
	static const char *const keys[] = { "users", "states", "partitions", "jobs",
					    "names", "accounts", "qos",	       "nodes" };
	const char *flt[sizeof(keys) / sizeof(keys[0])] = { NULL };
	bool lng = false, one_per_task = false, filtered = false;
	int iterate = 0, verbose = 0;
	const char *fmt = SPUR_SQUEUE_DEFAULT;
	bool header = true, json_out = false, yaml_out = false;
	json_t *req;
	char *pargv[128 + 1];
	int pargc;
	int opt;
	char long_fmt[1024];

	static const char *const unbuilt[] = { "array-unique", "clusters", "federation", "hide", "licenses",
					       "local",	       "noconvert", "reservation",
					       "sibling",      NULL };
	const char *sort = NULL, *steps = NULL, *step_fmt = NULL;
	bool per_part = false, steps_mode = false;
	static char users[1024];

	if (cli_refused_opts(prog, argc, argv, unbuilt, "LMR"))
		return 1;
	pargc = cli_getopt_argv("squeue", argc, argv, pargv, 128);
	if (env_format(prog, &fmt, long_fmt, sizeof(long_fmt)))
		return 1;
	if (env_sort(prog, &sort))
		return 1;
	while ((opt = getopt_long(pargc, pargv, "o:O:u:t:p:j:haJn:A:q:w:li:VrvS:Ps::", squeue_opts, NULL)) != -1) {
		if (opt && strchr(letters, opt)) {
			bool u = opt == 'u' && user_names(prog, optarg, false, users, sizeof(users));

			flt[strchr(letters, opt) - letters] = u ? users : optarg;
			continue;
		}
		switch (opt) {
		case 'm': {
			static char me[256];
			struct passwd *pw = getpwuid(getuid());

			snprintf(me, sizeof(me), "%s", pw ? pw->pw_name : "nobody");
			flt[0] = me; /* users */
			break;
		}
		case 'l':
			lng = true;
			fmt = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
			break;
		case 'i':
			iterate = atoi(optarg);
			if (iterate <= 0) {
				fprintf(stderr, "%s: error: Invalid --iterate value: %s\n", prog, optarg);
				return 1;
			}
			break;
		case 'V':
			cli_version();
			return 0;
		case 'r':
			one_per_task = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'o':
			fmt = step_fmt = optarg;
			break;
		case 'O':
			if (format_long(optarg, long_fmt, sizeof(long_fmt))) {
				fprintf(stderr, "%s: error: Invalid job format specification: %s\n",
					prog, optarg);
				return 1;
			}
			fmt = long_fmt;
			break;
		case 'h':
			header = false;
			break;
		case 1000:
			fmt = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %R";
			break; /* --start (long only, as in Slurm) */
		case 'S': {
			char bad;

			if (!spur_jobfmt_sort_valid(optarg, &bad)) {
				cli_error(prog, "Invalid sort specification: %c", bad);
				return 1;
			}
			sort = optarg;
			break;
		}
		case 'P': /* pending jobs a row per partition, with its priority there */
			per_part = true;
			break;
		case 's': /* the running steps (of the J.S list) */
			steps_mode = true;
			steps = optarg;
			break;
		case 'J':
		case 'Y':
			json_out = true;
			yaml_out = opt == 'Y';
			break;
		case 'a':
			break;
		case 'H':
			squeue_usage();
			return 0;
		default:
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return 1;
		}
	}
	if (steps_mode) {
		const char *sf[3] = { flt[3], flt[0], flt[2] }; /* jobs, users, partitions */

		return cli_squeue_steps(prog, step_fmt, steps, sf, header, lng);
	}
	if (!spur_jobfmt_valid(fmt)) {
		fprintf(stderr, "%s: error: Invalid job format specification: %s\n", prog, fmt);
		return 1;
	}
	if (verbose)
		say_options(fmt, iterate, lng, header, flt, verbose);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		filtered |= flt[i] != NULL;
	if (json_out) {
		/* slurmrestd's document; a filter is not applied to it, so none is taken */
		if (filtered) {
			fprintf(stderr, "%s: error: --%s with filters is not supported by Spur\n",
				prog, yaml_out ? "yaml" : "json");
			return 1;
		}
		return cli_doc_print(prog, "/slurm/" REST_API "/jobs", yaml_out);
	}
	req = json_pack("{s:s,s:s,s:b}", "type", "queue", "format", fmt, "raw", 1);
	if (one_per_task) /* -r: pending array tasks one per line */
		json_object_set_new(req, "array_tasks", json_true());
	if (sort)
		json_object_set_new(req, "sort", json_string(sort));
	if (per_part)
		json_object_set_new(req, "per_partition", json_true());
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (flt[i])
			json_object_set_new(req, keys[i], json_string(flt[i]));
	return queue_loop(prog, req, fmt, header, lng, iterate);
}

int cli_signal_parse(const char *v)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "HUP", SIGHUP },   { "INT", SIGINT },	  { "QUIT", SIGQUIT }, { "ABRT", SIGABRT },
		{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
		{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "CONT", SIGCONT },
		{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG },   { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "WINCH", SIGWINCH },
	};
	char *end;
	long n = strtol(v, &end, 10);

	if (*v && !*end)
		return n > 0 && n < 65 ? (int)n : 0;
	if (!strncasecmp(v, "SIG", 3))
		v += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(v, sigs[i].name))
			return sigs[i].sig;
	return 0;
}

/* One scancel job argument, "N", "N_M" or "N_[1-3,7]", appended to jobs. */
static bool job_arg_parse(const char *arg, json_t *jobs)
{
	char *end;
	long id = strtol(arg, &end, 10), lo, hi;
	const char *p;

	if (end == arg || id <= 0 || id > UINT32_MAX)
		return false;
	if (!*end) {
		json_array_append_new(jobs, json_pack("{s:I}", "job_id", (json_int_t)id));
		return true;
	}
	if (*end != '_')
		return false;
	p = end + 1;
	if (*p != '[') {
		lo = strtol(p, &end, 10);
		if (end == p || *end || lo < 0)
			return false;
		json_array_append_new(jobs, json_pack("{s:I,s:I}", "job_id", (json_int_t)id,
						      "task_id", (json_int_t)lo));
		return true;
	}
	for (p++;;) {
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return false;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi - lo > 1000000)
				return false;
		}
		for (long t = lo; t <= hi; t++)
			json_array_append_new(jobs, json_pack("{s:I,s:I}", "job_id", (json_int_t)id,
							      "task_id", (json_int_t)t));
		if (*end == ']')
			return !end[1];
		if (*end != ',')
			return false;
		p = end + 1;
	}
}

/* -u accepts names and numeric uids; Slurm refuses an unknown user. */
static bool state_list_ok(const char *prog, const char *list)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!spur_jobfmt_in_list("PENDING,PD,RUNNING,R,SUSPENDED,S", t)) {
			fprintf(stderr, "%s: error: Invalid job state specified: %s\n", prog, t);
			return false;
		}
	}
	return true;
}

/* scancel -v with filters that match no job: Slurm's words, the filters
 * in its order and forms (a state by its name, a QOS in lower case). */
static void say_no_match(const char *prog, const json_t *filter)
{
	static const char *const keys[][2] = {
		{ "accounts", "account" }, { "names", "job_name" }, { "nodes", "nodelist" },
		{ "partitions", "partition" }, { "qos", "qos" },   { "states", "state" },
		{ "users", "user_name" },
	};

	fprintf(stderr, "%s: error: No active jobs match ALL job filters, including: ", prog);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char v[1024];

		if (!json_is_string(json_object_get(filter, keys[k][0])))
			continue;
		snprintf(v, sizeof(v), "%s", spur_json_str(filter, keys[k][0], ""));
		if (!strcmp(keys[k][0], "qos"))
			for (char *c = v; *c; c++)
				*c = (char)tolower((unsigned char)*c);
		if (!strcmp(keys[k][0], "states"))
			snprintf(v, sizeof(v), "%s",
				 spur_jobfmt_in_list("PD,PENDING", spur_json_str(filter, "states", ""))
					 ? "PENDING"
				 : spur_jobfmt_in_list("R,RUNNING", spur_json_str(filter, "states", ""))
					 ? "RUNNING"
					 : "SUSPENDED");
		fprintf(stderr, "%s=%s ", keys[k][1], v);
	}
	fputc('\n', stderr);
}

/* scancel -i: each job the ids and filters name, asked about as Slurm
 * asks ("Cancel job_id=N name=X partition=P [y/n]? "); *jobs becomes
 * those answered y. 0, or 1 (said). */
/* The jobs named that the queue does not hold (ended, or unknown): as
 * Slurm's scancel when it reads the queue first (--interactive, filters),
 * "Kill job error ... Invalid job id specified" for each, unless -Q; 1 if
 * any. */
static int say_absent(const char *prog, const json_t *jobs, const char *text, bool quiet)
{
	int rc = 0;
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)jobs, i, v) {
		char want[32];
		size_t wl;
		bool found = false;

		wl = (size_t)snprintf(want, sizeof(want), "%lld", (long long)spur_json_int(v, "job_id", 0));
		for (const char *p = text; *p && !found; p += strcspn(p, "\n"), p += *p == '\n')
			found = !strncmp(p, want, wl) && strchr(" _\n", p[wl]);
		if (found)
			continue;
		rc = 1;
		if (!quiet)
			fprintf(stderr, "%s: error: Kill job error on job id %s: Invalid job id specified\n",
				prog, want);
	}
	return rc;
}

static int confirm_jobs(const char *prog, const json_t *filter, json_t **jobs, bool quiet,
			int *absent)
{
	json_t *req = json_pack("{s:s,s:s}", "type", "queue", "format", "%i %j %P"), *reply, *v, *yes;
	struct spur_error err;
	char ids[8192] = "", line[256];
	size_t o = 0, i;
	const char *k;

	json_object_foreach((json_t *)filter, k, v)
		json_object_set(req, k, v);
	json_array_foreach(*jobs, i, v)
		if (o + 32 < sizeof(ids))
			o += (size_t)snprintf(ids + o, sizeof(ids) - o, "%s%lld", o ? "," : "",
					      (long long)spur_json_int(v, "job_id", 0));
	if (o)
		json_object_set_new(req, "jobs", json_string(ids));
	if (!(reply = cli_call(req, &err))) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		return 1;
	}
	yes = json_array();
	*absent |= say_absent(prog, *jobs, spur_json_str(reply, "text", ""), quiet);
	for (const char *p = spur_json_str(reply, "text", ""); *p;) {
		size_t l = strcspn(p, "\n");
		char id[64] = "", name[128] = "", part[128] = "";

		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		p += l + (p[l] == '\n');
		if (sscanf(line, "%63s %127s %127s", id, name, part) < 1 || !strcmp(id, "JOBID"))
			continue;
		printf("Cancel job_id=%s name=%s partition=%s [y/n]? ", id, name, part);
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y'))
			job_arg_parse(id, yes);
	}
	json_decref(reply);
	json_decref(*jobs);
	*jobs = yes;
	return 0;
}

/* scancel J.S: a step ended (or, with -s, its tasks signalled) as Slurm's,
 * with its words ("Cancel step_id=J.S name=N partition=P [y/n]? " with -i,
 * "Terminating step J.S" or "Signal N to step J.S" with -v, and its
 * "Kill job error on job step id J: ..." naming the job alone). 0 or 1. */
static int cancel_step(const char *prog, uint32_t id, uint32_t step, int sig, bool interactive,
		       bool quiet, bool verbose)
{
	struct spur_error err;
	json_t *reply;

	if (interactive) {
		char line[64];

		reply = cli_call(json_pack("{s:s,s:i}", "type", "job", "job_id", (int)id), &err);
		printf("Cancel step_id=%u.%u name=%s partition=%s [y/n]? ", id, step,
		       spur_json_str(json_object_get(reply, "job"), "name", ""),
		       spur_json_str(json_object_get(reply, "job"), "partition", ""));
		fflush(stdout);
		json_decref(reply);
		if (!fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y'))
			return 0;
	}
	if (verbose && (!sig || sig == SIGKILL))
		fprintf(stderr, "%s: Terminating step %u.%u\n", prog, id, step);
	else if (verbose)
		fprintf(stderr, "%s: Signal %d to step %u.%u\n", prog, sig, id, step);
	reply = cli_call(json_pack("{s:s,s:i,s:i,s:i}", "type", "cancel_step", "job_id", (int)id,
				   "step_id", (int)step, "signal", sig),
			 &err);
	if (reply) {
		json_decref(reply);
		return 0;
	}
	/* a step already done is no failure when it was to end anyway */
	if (!strcmp(err.msg, "Job/step already completing or completed")) {
		if (!quiet && verbose)
			fprintf(stderr, "%s: error: Kill job error on job step id %u: %s\n", prog,
				id, err.msg);
		return !sig || sig == SIGKILL ? 0 : 1;
	}
	/* as Slurm's: a job that is not there named J.S, exit 1; a running
	 * job's step that is not there named J, exit 225 */
	if (!quiet && err.code == SPUR_ENOENT)
		fprintf(stderr, "%s: error: Kill job error on job step id %u.%u: %s\n", prog, id,
			step, err.msg);
	else if (!quiet)
		fprintf(stderr, "%s: error: Kill job error on job step id %u: %s\n", prog, id, err.msg);
	return err.code == SPUR_ESTATE && !strcmp(err.msg, "Invalid job id specified") ? 225 : 1;
}

/* "J.S" (digits): true with its job and step. */
static bool step_arg(const char *arg, uint32_t *id, uint32_t *step)
{
	char *end;
	long j = strtol(arg, &end, 10), st;

	if (j <= 0 || j > INT32_MAX || *end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	st = strtol(end + 1, &end, 10);
	if (*end || st < 0 || st > INT32_MAX)
		return false;
	*id = (uint32_t)j;
	*step = (uint32_t)st;
	return true;
}

static void usage_scancel(void)
{
	printf("Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
	       "               [-p partition] [-Q] [-q qos] [--reservation=reservation]\n"
	       "               [-s signal | integer] [-t PENDING | RUNNING | SUSPENDED]\n"
	       "               [--usage] [-u user_name] [--hurry] [-V] [-v] [-w hosts...]\n"
	       "               [--wckey=wckey] [job_id[_array_id][.step_id]]\n"
	       "\nHelp options:\n"
	       "  --help                     show this help message\n"
	       "  --usage                    display brief usage message\n");
}

/* scancel [options] [job_id[_array_id]]...: cancel (or, with -s, signal)
 * the jobs named, the active jobs that pass the filters, or the named jobs
 * that pass them. */
/* scancel's answer, in Slurm's words: each job it could not cancel (1
 * then), and with -v what it did (or that no job matched the filters). */
static int say_cancel(const char *prog, const json_t *reply, const json_t *filter, bool by_id,
		      int sig, bool quiet, bool verbose, const char *kind)
{
	int rc = 0;
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(reply, "errors"), i, e) {
		const char *why = spur_json_str(e, "error", "");
		/* as Slurm's scancel: a job already done or unknown is said only
		 * with -v, and is no failure unless a signal was asked */
		bool done = !strcmp(why, "Job/step already completing or completed") ||
			    !strcmp(why, "Invalid job id specified");
		char id[48];

		if (!(done && (!sig || sig == SIGKILL)))
			rc = 1;
		if (done && (quiet || !verbose))
			continue;
		if (json_object_get(e, "task_id"))
			snprintf(id, sizeof(id), "%lld_%lld", (long long)spur_json_int(e, "job_id", 0),
				 (long long)spur_json_int(e, "task_id", 0));
		else
			snprintf(id, sizeof(id), "%lld", (long long)spur_json_int(e, "job_id", 0));
		if (verbose && (!sig || sig == SIGKILL))
			fprintf(stderr, "%s: Terminating %sjob %s\n", prog, kind, id);
		fprintf(stderr, "%s: error: Kill job error on job id %s: %s\n", prog, id, why);
	}
	if (verbose && !by_id && !spur_json_int(reply, "count", 0))
		say_no_match(prog, filter);
	if (verbose) { /* Slurm's words for each */
		json_array_foreach(json_object_get(reply, "ids"), i, e)
			if (sig && sig != SIGKILL)
				fprintf(stderr, "%s: Signal %d to %sjob %lld\n", prog, sig, kind,
					(long long)json_integer_value(e));
			else
				fprintf(stderr, "%s: Terminating %sjob %lld\n", prog, kind,
					(long long)json_integer_value(e));
	}
	return rc;
}

int cli_scancel_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "signal", required_argument, NULL, 's' },  { "user", required_argument, NULL, 'u' },
		{ "state", required_argument, NULL, 't' },   { "partition", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },    { "jobname", required_argument, NULL, 'n' },
		{ "account", required_argument, NULL, 'A' }, { "nodelist", required_argument, NULL, 'w' },
		{ "me", no_argument, NULL, 'm' },	     { "quiet", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },	     { "batch", no_argument, NULL, 'b' },
		{ "full", no_argument, NULL, 'f' },	     { "hurry", no_argument, NULL, 'H' },
		{ "interactive", no_argument, NULL, 'i' },   { "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, 'U' },	     { "qos", required_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *filter = json_object(), *jobs = json_array(), *req, *reply;
	char *pargv[128 + 1], users[1024];
	int pargc, opt, sig = 0, rc = 0;
	bool quiet = false, verbose = false, interactive = false;
	const char *kind = NULL; /* -b "batch ", -f "full ": what a signal reaches */
	int steps = 0;		 /* J.S arguments, each done on its own */
	struct spur_error err;

	static const char *const unbuilt[] = { "clusters", "ctld", "reservation", "sibling", "wckey",
					       NULL };

	if (cli_refused_opts(prog, argc, argv, unbuilt, "RM"))
		return 1;
	pargc = cli_getopt_argv("scancel", argc, argv, pargv, 128);
	while ((opt = getopt_long(pargc, pargv, "s:u:t:p:n:A:w:QvbfHihq:M:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sig = cli_signal_parse(optarg);
			if (!sig) {
				fprintf(stderr, "%s: error: Invalid job signal: %s\n", prog, optarg);
				goto fail;
			}
			break;
		case 'u':
			if (!user_names(prog, optarg, true, users, sizeof(users)))
				goto fail;
			json_object_set_new(filter, "users", json_string(users));
			break;
		case 'm': {
			struct passwd *pw = getpwuid(getuid());

			json_object_set_new(filter, "users", json_string(pw ? pw->pw_name : "?"));
			break;
		}
		case 't':
			if (!state_list_ok(prog, optarg))
				goto fail;
			json_object_set_new(filter, "states", json_string(optarg));
			break;
		case 'p':
			json_object_set_new(filter, "partitions", json_string(optarg));
			break;
		case 'n':
			json_object_set_new(filter, "names", json_string(optarg));
			break;
		case 'A':
			json_object_set_new(filter, "accounts", json_string(optarg));
			break;
		case 'w':
			json_object_set_new(filter, "nodes", json_string(optarg));
			break;
		case 'q':
			json_object_set_new(filter, "qos", json_string(optarg));
			break;
		case 'Q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'b': /* a signal to the batch shell alone */
			kind = kind ? kind : "batch ";
			break;
		case 'f': /* to the shell, its children and the steps (over -b) */
			kind = "full ";
			break;
		case 'H': /* no burst buffer to stage out: nothing to hurry */
			break;
		case 'i':
			interactive = true;
			break;
		case 'M':
			fprintf(stderr, "%s: error: -%c is not supported\n", prog, opt);
			goto fail;
		case 'h':
		case 'U':
			usage_scancel();
			goto done;
		default:
			fprintf(stderr, "Try \"scancel --help\" for more information\n");
			goto fail;
		}
	}
	for (int a = optind; a < pargc; a++) {
		uint32_t id, step;

		if (step_arg(pargv[a], &id, &step)) { /* J.S: that step alone */
			int r = cancel_step(prog, id, step, sig, interactive, quiet, verbose);

			rc = r > rc ? r : rc; /* the last failure's code, 225 over 1 */
			steps++;
		} else if (!job_arg_parse(pargv[a], jobs)) {
			fprintf(stderr, "%s: error: Invalid job id %s\n", prog, pargv[a]);
			goto fail;
		}
	}
	if (steps && !json_array_size(jobs) && !json_object_size(filter))
		goto done;
	if (!json_array_size(jobs) && !json_object_size(filter)) {
		fprintf(stderr, "%s: error: No job identification provided\n", prog);
		goto fail;
	}
	if (interactive && confirm_jobs(prog, filter, &jobs, quiet, &rc))
		goto fail;
	if (interactive && !json_array_size(jobs))
		goto done; /* none confirmed (rc: 1 if a job named was gone) */
	req = json_pack("{s:s}", "type", "cancel");
	if (interactive)
		json_object_clear(filter); /* the jobs confirmed, by id */
	if (json_array_size(jobs))
		json_object_set(req, "jobs", jobs);
	if (json_object_size(filter))
		json_object_set(req, "filter", filter);
	if (sig)
		json_object_set_new(req, "signal", json_integer(sig));
	if (kind)
		json_object_set_new(req, *kind == 'b' ? "batch" : "full", json_true());
	reply = cli_call(req, &err);
	if (!reply) {
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		goto fail;
	}
	rc |= say_cancel(prog, reply, filter, json_array_size(jobs) > 0, sig, quiet, verbose,
			 kind ? kind : "");
	json_decref(reply);
	goto done;
fail:
	rc = 1;
done:
	json_decref(filter);
	json_decref(jobs);
	return rc;
}
