/* SPDX-License-Identifier: Apache-2.0 */
/* sbatch: submit a batch script, with #SBATCH directives and Slurm's flags. */
#include "client.h"

#include "common/alloc.h"
#include "common/size.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
	OPT_GRES = 1000, OPT_GPUS_PER_NODE, OPT_GPUS_PER_TASK, OPT_MEM_PER_CPU, OPT_MEM_PER_GPU,
	OPT_PARSABLE, OPT_WAIT, OPT_HOLD, OPT_BEGIN, OPT_WRAP, OPT_EXCLUSIVE, OPT_QOS, OPT_NICE,
	OPT_REQUEUE, OPT_NO_REQUEUE, OPT_RESERVATION, OPT_EXPORT, OPT_GPUS, OPT_NTASKS_PER_NODE,
	OPT_PTY,
};

static const struct option opts[] = {
	{ "job-name", required_argument, NULL, 'J' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "mem", required_argument, NULL, 'm' },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "mem-per-gpu", required_argument, NULL, OPT_MEM_PER_GPU },
	{ "time", required_argument, NULL, 't' },
	{ "partition", required_argument, NULL, 'p' },
	{ "account", required_argument, NULL, 'A' },
	{ "qos", required_argument, NULL, 'q' },
	{ "gres", required_argument, NULL, OPT_GRES },
	{ "gpus", required_argument, NULL, 'G' },
	{ "gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE },
	{ "gpus-per-task", required_argument, NULL, OPT_GPUS_PER_TASK },
	{ "output", required_argument, NULL, 'o' },
	{ "error", required_argument, NULL, 'e' },
	{ "chdir", required_argument, NULL, 'D' },
	{ "array", required_argument, NULL, 'a' },
	{ "dependency", required_argument, NULL, 'd' },
	{ "nodelist", required_argument, NULL, 'w' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "constraint", required_argument, NULL, 'C' },
	{ "parsable", no_argument, NULL, OPT_PARSABLE },
	{ "wait", no_argument, NULL, 'W' },
	{ "hold", no_argument, NULL, 'H' },
	{ "begin", required_argument, NULL, 'b' },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "exclusive", optional_argument, NULL, OPT_EXCLUSIVE },
	{ "nice", optional_argument, NULL, OPT_NICE },
	{ "requeue", no_argument, NULL, OPT_REQUEUE },
	{ "no-requeue", no_argument, NULL, OPT_NO_REQUEUE },
	{ "reservation", required_argument, NULL, OPT_RESERVATION },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "label", no_argument, NULL, 'l' }, /* srun's, refused by sbatch */
	{ "pty", no_argument, NULL, OPT_PTY }, /* srun's, refused by sbatch */
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define SHORT_OPTS "+J:N:n:c:t:p:A:q:G:o:e:D:a:d:w:x:C:WHb:hl"

static bool allow_label; /* parsing for srun */

struct sbatch {
	json_t *job;
	bool parsable, wait;
	const char *wrap;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sbatch: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int set_int(json_t *job, const char *key, const char *v, const char *what)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*end || n < 0 || end == v) {
		fail("\"%s\" is not a valid %s", v, what);
		return 255; /* Slurm's exit for a bad option */
	}
	json_object_set_new(job, key, json_integer(n));
	return 0;
}

/* "[TYPE:]COUNT" as --gpus-per-node and --gpus take it. */
static int set_gpus(json_t *job, const char *key, const char *v)
{
	const char *colon = strrchr(v, ':');
	char type[64];

	if (colon) {
		snprintf(type, sizeof(type), "%.*s", (int)(colon - v), v);
		json_object_set_new(job, "gpu_type", json_string(type));
		v = colon + 1;
	}
	return set_int(job, key, v, "GPU count");
}

static int apply_opt(struct sbatch *sb, int opt, const char *arg)
{
	json_t *job = sb->job;
	struct spur_error err;
	int64_t secs;
	uint64_t mb;
	time_t t;

	switch (opt) {
	case 'J':
		json_object_set_new(job, "name", json_string(arg));
		return 0;
	case 'N':
		return set_int(job, "nodes", arg, "node count");
	case 'n':
		return set_int(job, "ntasks", arg, "number of tasks");
	case OPT_NTASKS_PER_NODE:
		return set_int(job, "ntasks_per_node", arg, "ntasks-per-node value");
	case 'c':
		return set_int(job, "cpus_per_task", arg, "cpus-per-task");
	case 'm':
		if (spur_mem_parse_mb(arg, &mb, &err))
			return fail("Invalid --mem specification: %s", arg);
		json_object_set_new(job, "mem_per_node", json_integer((json_int_t)mb));
		return 0;
	case OPT_MEM_PER_CPU:
	case OPT_MEM_PER_GPU:
		if (spur_mem_parse_mb(arg, &mb, &err))
			return fail("Invalid memory specification: %s", arg);
		json_object_set_new(job, opt == OPT_MEM_PER_CPU ? "mem_per_cpu" : "mem_per_gpu",
				    json_integer((json_int_t)mb));
		return 0;
	case 't':
		if (spur_duration_parse(arg, &secs, &err)) {
			fail("Invalid --time specification");
			return 255;
		}
		/* Slurm counts limits in minutes, rounding up; 0 means none */
		secs = secs == SPUR_TIME_INFINITE || secs == 0 ? 0 : spur_duration_minutes_ceil(secs) * 60;
		json_object_set_new(job, "time_limit", json_integer(secs));
		return 0;
	case 'p':
		json_object_set_new(job, "partition", json_string(arg));
		return 0;
	case 'A':
		json_object_set_new(job, "account", json_string(arg));
		return 0;
	case 'q':
		json_object_set_new(job, "qos", json_string(arg));
		return 0;
	case OPT_GRES:
		json_object_set_new(job, "gres", json_string(arg));
		return 0;
	case 'G':
		return set_gpus(job, "gpus", arg);
	case OPT_GPUS_PER_NODE:
		return set_gpus(job, "gpus_per_node", arg);
	case OPT_GPUS_PER_TASK:
		return set_gpus(job, "gpus_per_task", arg);
	case 'o':
		json_object_set_new(job, "output", json_string(arg));
		return 0;
	case 'e':
		json_object_set_new(job, "error", json_string(arg));
		return 0;
	case 'D':
		json_object_set_new(job, "workdir", json_string(arg));
		return 0;
	case 'a':
		json_object_set_new(job, "array", json_string(arg));
		return 0;
	case 'd':
		json_object_set_new(job, "dependency", json_string(arg));
		return 0;
	case 'w':
		json_object_set_new(job, "nodelist", json_string(arg));
		return 0;
	case 'x':
		json_object_set_new(job, "exclude", json_string(arg));
		return 0;
	case 'C':
		json_object_set_new(job, "constraint", json_string(arg));
		return 0;
	case OPT_PARSABLE:
		sb->parsable = true;
		return 0;
	case 'W':
		sb->wait = true;
		return 0;
	case 'H':
		json_object_set_new(job, "hold", json_true());
		return 0;
	case 'b':
		if (spur_begin_parse(arg, time(NULL), &t, &err))
			return fail("Invalid time specification %s", arg);
		json_object_set_new(job, "begin", json_integer((json_int_t)t));
		return 0;
	case OPT_WRAP:
		sb->wrap = arg;
		return 0;
	case OPT_EXCLUSIVE:
		json_object_set_new(job, "exclusive", json_true());
		return 0;
	case OPT_NICE:
		return set_int(job, "nice", arg ? arg : "100", "nice value");
	case OPT_REQUEUE:
	case OPT_NO_REQUEUE:
		json_object_set_new(job, "requeue", json_boolean(opt == OPT_REQUEUE));
		return 0;
	case OPT_RESERVATION:
		json_object_set_new(job, "reservation", json_string(arg));
		return 0;
	case OPT_EXPORT:
		json_object_set_new(job, "export", json_string(arg));
		return 0;
	default:
		return 1;
	}
}

/* Parse argv with getopt_long; returns optind or -1. */
static int parse_args(struct sbatch *sb, int argc, char **argv, bool directives)
{
	int opt, rc;

	optind = 1;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, SHORT_OPTS, opts, NULL)) != -1) {
		if (opt == 'h') {
			printf("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) "
			       "[script(N)...]\n");
			exit(0);
		}
		if (opt == 'l' && allow_label) {
			json_object_set_new(sb->job, "label", json_true());
			continue;
		}
		if (opt == OPT_PTY && allow_label) {
			json_object_set_new(sb->job, "pty", json_true());
			continue;
		}
		if (opt == OPT_PTY) {
			fprintf(stderr, "%s: unrecognized option '--pty'\n", argv[0]);
			opt = '?';
		}
		if (opt == 'l') {
			fprintf(stderr, "%s: invalid option -- 'l'\n", argv[0]);
			opt = '?';
		}
		if (opt == '?') {
			fprintf(stderr, "Try \"%s --help\" for more information\n", argv[0]);
			return -255;
		}
		if ((rc = apply_opt(sb, opt, optarg)))
			return -rc;
	}
	(void)directives;
	return optind;
}

/* Split one #SBATCH line into words (simple shell quoting). */
static int split_words(const char *s, char **words, int max, char *buf, size_t len)
{
	int n = 0;
	size_t o = 0;

	while (*s && n < max) {
		char q = 0;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			break;
		words[n++] = buf + o;
		while (*s && (q || !isspace((unsigned char)*s)) && o + 1 < len) {
			if (!q && (*s == '"' || *s == '\'')) {
				q = *s++;
				continue;
			}
			if (q && *s == q) {
				q = 0;
				s++;
				continue;
			}
			buf[o++] = *s++;
		}
		buf[o++] = '\0';
	}
	return n;
}

/* #SBATCH lines come before the first command, as in Slurm. */
static int parse_directives(struct sbatch *sb, const char *script)
{
	const char *p = script;

	if (strncmp(p, "#!", 2))
		return fail("This does not look like a batch script.  The first\n"
			    "sbatch: error: line must start with #! followed by the path to an "
			    "interpreter.\nsbatch: error: For instance: #!/bin/sh");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[4096], buf[4096];
		char *words[64];
		int n;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p = nl ? nl + 1 : p + len;
		if (!strncmp(line, "#SBATCH", 7) && (isspace((unsigned char)line[7]) || !line[7])) {
			words[0] = "sbatch";
			n = split_words(line + 7, words + 1, 62, buf, sizeof(buf)) + 1;
			words[n] = NULL;
			if ((n = parse_args(sb, n, words, true)) < 0)
				return -n;
			continue;
		}
		if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')
			continue;
		break; /* the first command ends the directives */
	}
	return 0;
}

/* The whole script; NULL (said) when it holds a NUL byte, which would cut
 * it short. */
static char *read_all(FILE *f)
{
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap), *more;

	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	if (!buf)
		return NULL;
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		fail("The Slurm controller does not allow scripts that contain a NULL character "
		     "'\\0'.");
		free(buf);
		return NULL;
	}
	return buf;
}

static void fill_identity(json_t *job)
{
	struct passwd *pw = getpwuid(getuid());
	char cwd[4096], host[256];
	json_t *env = json_object();

	json_object_set_new(job, "user", json_string(pw ? pw->pw_name : "nobody"));
	json_object_set_new(job, "uid", json_integer(getuid()));
	json_object_set_new(job, "gid", json_integer(getgid()));
	if (getcwd(cwd, sizeof(cwd)))
		json_object_set_new(job, "workdir", json_string(cwd));
	gethostname(host, sizeof(host));
	json_object_set_new(job, "submit_host", json_string(host));
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char key[256];

		if (!eq || (size_t)(eq - *e) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		json_object_set_new(env, key, json_string(eq + 1));
	}
	json_object_set_new(job, "env", env);
}

int cli_job_parse(json_t *job, int argc, char **argv)
{
	struct sbatch sb = { job, false, false, NULL };
	int first;

	fill_identity(job);
	allow_label = !strcmp(argv[0], "srun");
	first = parse_args(&sb, argc, argv, false);
	allow_label = false;
	if (first < 0)
		return first;
	if (sb.wrap || sb.parsable || sb.wait) {
		fail("--wrap, --parsable and --wait are sbatch's");
		return -1;
	}
	if (spur_json_int(job, "ntasks_per_node", 0) && !spur_json_int(job, "ntasks", 0))
		json_object_set_new(job, "ntasks",
				    json_integer(spur_json_int(job, "ntasks_per_node", 0) *
						 spur_json_int(job, "nodes", 1)));
	return first;
}

int cli_sbatch_main(const char *prog, int argc, char **argv)
{
	struct sbatch sb = { json_object(), false, false, NULL };
	struct spur_error err;
	char *script = NULL;
	json_t *req, *reply;
	int first, fd, rc = 1;
	char *pargv[256];

	(void)prog;
	fill_identity(sb.job);
	/* argv here lacks the program name; getopt wants it */
	pargv[0] = "sbatch";
	for (int i = 0; i < argc && i < 254; i++)
		pargv[i + 1] = argv[i];
	pargv[argc + 1 < 255 ? argc + 1 : 255] = NULL;
	first = parse_args(&sb, argc + 1, pargv, false);
	if (first < 0) {
		rc = -first;
		goto out;
	}
	if (sb.wrap) {
		script = spur_asprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n",
				       sb.wrap);
		if (!json_object_get(sb.job, "name"))
			json_object_set_new(sb.job, "name", json_string("wrap"));
	} else {
		const char *path = first < argc + 1 ? pargv[first] : NULL;
		FILE *f = path ? fopen(path, "r") : stdin;

		if (!f) {
			rc = fail("Unable to open file %s", path);
			goto out;
		}
		script = read_all(f);
		if (path)
			fclose(f);
		if (!json_object_get(sb.job, "name")) {
			const char *base = path ? strrchr(path, '/') : NULL;

			json_object_set_new(sb.job, "name",
					    json_string(path ? (base ? base + 1 : path) : "sbatch"));
		}
	}
	if (!script)
		goto out;
	if (!sb.wrap && (rc = parse_directives(&sb, script)) != 0)
		goto out;
	rc = 1;
	/* command-line options override #SBATCH lines: parse them again */
	if (!sb.wrap && parse_args(&sb, argc + 1, pargv, false) < 0)
		goto out;
	/* --ntasks-per-node: the task count follows from the node count */
	if (spur_json_int(sb.job, "ntasks_per_node", 0) && !spur_json_int(sb.job, "ntasks", 0))
		json_object_set_new(sb.job, "ntasks",
				    json_integer(spur_json_int(sb.job, "ntasks_per_node", 0) *
						 spur_json_int(sb.job, "nodes", 1)));
	json_object_set_new(sb.job, "script", json_string(script));
	req = json_pack("{s:s,s:O,s:b}", "type", "submit", "job", sb.job, "wait", sb.wait);
	fd = cli_send(req, 30000, &reply, &err);
	json_decref(req);
	if (fd < 0) {
		fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n", err.msg);
		goto out;
	}
	if (!(reply = cli_reply(reply, &err))) {
		fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n", err.msg);
		close(fd);
		goto out;
	}
	/* the site's job_submit.lua speaking to the user, as sbatch says it */
	if (json_is_string(json_object_get(reply, "user_msg")))
		fprintf(stderr, "sbatch: %s\n", spur_json_str(reply, "user_msg", ""));
	if (sb.parsable)
		printf("%" JSON_INTEGER_FORMAT "\n", (json_int_t)spur_json_int(reply, "job_id", 0));
	else
		printf("Submitted batch job %" JSON_INTEGER_FORMAT "\n",
		       (json_int_t)spur_json_int(reply, "job_id", 0));
	fflush(stdout);
	json_decref(reply);
	rc = 0;
	if (sb.wait) {
		/* the controller answers again when the job has ended */
		reply = NULL;
		if (spur_wire_recv(fd, &reply, -1, &err)) {
			fprintf(stderr, "sbatch: error: %s\n", err.msg);
			rc = 1;
		} else {
			rc = (int)spur_json_int(reply, "exit_code", 0);
			if (strcmp(spur_json_str(reply, "state", ""), "COMPLETED") && !rc)
				rc = 1;
			json_decref(reply);
		}
	}
	close(fd);
out:
	free(script);
	json_decref(sb.job);
	return rc;
}
