/* SPDX-License-Identifier: Apache-2.0 */
/* sbatch: submit a batch script, with #SBATCH directives and Slurm's flags. */
#include "client.h"
#include "container_opts.h"
#include "pbs.h"

#include "common/alloc.h"
#include "common/gres.h"
#include "common/size.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdbool.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum {
	OPT_GRES = 1000, OPT_GPUS_PER_NODE, OPT_GPUS_PER_TASK, OPT_MEM_PER_CPU, OPT_MEM_PER_GPU,
	OPT_PARSABLE, OPT_WAIT, OPT_HOLD, OPT_BEGIN, OPT_WRAP, OPT_EXCLUSIVE, OPT_QOS, OPT_NICE,
	OPT_REQUEUE, OPT_NO_REQUEUE, OPT_RESERVATION, OPT_EXPORT, OPT_GPUS, OPT_NTASKS_PER_NODE,
	OPT_PTY, OPT_MEM, OPT_COMMENT, OPT_WCKEY, OPT_SIGNAL, OPT_OPEN_MODE, OPT_USAGE,
	OPT_KILL_DEP, OPT_GET_USER_ENV, OPT_TEST_ONLY, OPT_PROPAGATE, OPT_MAIL_TYPE, OPT_MAIL_USER, OPT_TIME_MIN, OPT_DEADLINE, OPT_UID, OPT_GID, OPT_PRIORITY, OPT_TMP, OPT_EXPORT_FILE, OPT_GRES_FLAGS, OPT_CPUS_PER_GPU, OPT_MINCPUS, OPT_NTASKS_PER_GPU, OPT_MPI, OPT_KILL_BAD, OPT_CPU_BIND, OPT_EXACT, OPT_OVERLAP, OPT_DIST, OPT_PRESERVE, OPT_QUIT, OPT_NO_STATUS, OPT_MULTI_PROG, OPT_TASK_PROLOG, OPT_TASK_EPILOG, OPT_UNBUF, /* srun's */
	OPT_IMMEDIATE, OPT_HINT, OPT_IGNORE_PBS, OPT_CONTIGUOUS, OPT_USE_MIN_NODES,
	OPT_REFUSED = 2000, /* + index in refused[] */
};

/* Slurm 22.05's sbatch, salloc and srun options that Spur does not build:
 * getopt takes them (so they are not typos) and they are refused by name,
 * never taken and dropped. short_opt: the one-letter form, 0 when none. */
enum { P_SBATCH = 1, P_SALLOC = 2, P_SRUN = 4, P_ALL = 7 };
static const struct {
	const char *name;
	int has_arg;
	char short_opt;
	unsigned progs; /* P_*: the commands of Slurm's that have it */
} refused[] = {
	{ "acctg-freq", required_argument, 0, P_ALL },
	{ "batch", required_argument, 0, P_SBATCH },
	{ "bb", required_argument, 0, P_ALL },
	{ "bbf", required_argument, 0, P_ALL },
	{ "cluster-constraint", required_argument, 0, P_ALL },
	{ "clusters", required_argument, 'M', P_ALL },
	{ "container-save", required_argument, 0, P_ALL },     /* pyxis's, not built */
	{ "container-writable", no_argument, 0, P_ALL },
	{ "container-readonly", no_argument, 0, P_ALL },
	{ "container-entrypoint", no_argument, 0, P_ALL },
	{ "no-container-entrypoint", no_argument, 0, P_ALL },
	{ "container-image-save", required_argument, 0, P_ALL },
	{ "core-spec", required_argument, 'S', P_ALL },
	{ "cores-per-socket", required_argument, 0, P_ALL },
	{ "cpu-freq", required_argument, 0, P_ALL },
	{ "delay-boot", required_argument, 0, P_ALL },
	{ "distribution", required_argument, 'm', P_SBATCH | P_SALLOC }, /* srun's: a step option */
	{ "extra-node-info", required_argument, 'B', P_ALL },
	{ "gpu-bind", required_argument, 0, P_ALL },
	{ "gpu-freq", required_argument, 0, P_ALL },
	{ "gpus-per-socket", required_argument, 0, P_ALL },
	{ "mcs-label", required_argument, 0, P_ALL },
	{ "mem-bind", required_argument, 0, P_ALL },
	{ "network", required_argument, 0, P_ALL },
	{ "no-kill", optional_argument, 'k', P_ALL },
	{ "ntasks-per-core", required_argument, 0, P_ALL },
	{ "ntasks-per-socket", required_argument, 0, P_ALL },
	{ "power", required_argument, 0, P_ALL },
	{ "prefer", required_argument, 0, P_ALL },
	{ "profile", required_argument, 0, P_ALL },
	{ "reboot", no_argument, 0, P_ALL },
	{ "sockets-per-node", required_argument, 0, P_ALL },
	{ "spread-job", no_argument, 0, P_ALL },
	{ "switches", required_argument, 0, P_ALL },
	{ "thread-spec", required_argument, 0, P_ALL },
	{ "threads-per-core", required_argument, 0, P_ALL },
	{ "wait-all-nodes", required_argument, 0, P_SBATCH | P_SALLOC },
	{ "x11", optional_argument, 0, P_SALLOC | P_SRUN },
	{ "het-group", required_argument, 0, P_SRUN },
	{ "bell", no_argument, 0, P_SALLOC },
	{ "no-bell", no_argument, 0, P_SALLOC },
	{ "kill-command", optional_argument, 'K', P_SALLOC },
	{ "no-shell", no_argument, 0, P_SALLOC },
	{ "accel-bind", required_argument, 0, P_SRUN },
	{ "bcast", optional_argument, 0, P_SRUN },
	{ "bcast-exclude", required_argument, 0, P_SRUN },
	{ "compress", optional_argument, 0, P_SRUN },
	{ "epilog", required_argument, 0, P_SRUN },
	{ "jobid", required_argument, 0, P_SRUN },
	{ "msg-timeout", required_argument, 0, P_SRUN },
	{ "no-allocate", no_argument, 'Z', P_SRUN },
	{ "prolog", required_argument, 0, P_SRUN },
	{ "relative", required_argument, 'r', P_SRUN },
	{ "resv-ports", optional_argument, 0, P_SRUN },
	{ "send-libs", optional_argument, 0, P_SRUN },
	{ "slurmd-debug", required_argument, 0, P_SRUN },
	{ "threads", required_argument, 'T', P_SRUN },
};
#define NREFUSED (sizeof(refused) / sizeof(refused[0]))

static const struct option own_opts[] = {
	{ "job-name", required_argument, NULL, 'J' },
	{ "nodes", required_argument, NULL, 'N' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
	{ "mem-per-gpu", required_argument, NULL, OPT_MEM_PER_GPU },
	{ "cpus-per-gpu", required_argument, NULL, OPT_CPUS_PER_GPU },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "gid", required_argument, NULL, OPT_GID },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ "tmp", required_argument, NULL, OPT_TMP },
	{ "time-min", required_argument, NULL, OPT_TIME_MIN },
	{ "mail-type", required_argument, NULL, OPT_MAIL_TYPE },
	{ "propagate", optional_argument, NULL, OPT_PROPAGATE },
	{ "test-only", no_argument, NULL, OPT_TEST_ONLY },
	{ "get-user-env", optional_argument, NULL, OPT_GET_USER_ENV },
	{ "mail-user", required_argument, NULL, OPT_MAIL_USER },
	{ "deadline", required_argument, NULL, OPT_DEADLINE },
	{ "licenses", required_argument, NULL, 'L' },
	{ "nodefile", required_argument, NULL, 'F' },
	{ "export-file", required_argument, NULL, OPT_EXPORT_FILE },
	{ "gres-flags", required_argument, NULL, OPT_GRES_FLAGS },
	{ "oversubscribe", no_argument, NULL, 's' },
	{ "mincpus", required_argument, NULL, OPT_MINCPUS },
	{ "ntasks-per-gpu", required_argument, NULL, OPT_NTASKS_PER_GPU },
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
	{ "input", required_argument, NULL, 'i' },
	{ "open-mode", required_argument, NULL, OPT_OPEN_MODE },
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
	{ "comment", required_argument, NULL, OPT_COMMENT },
	{ "overcommit", no_argument, NULL, 'O' },
	{ "immediate", optional_argument, NULL, 'I' }, /* salloc's and srun's */
	{ "hint", required_argument, NULL, OPT_HINT },
	{ "ignore-pbs", no_argument, NULL, OPT_IGNORE_PBS }, /* sbatch's */
	{ "contiguous", no_argument, NULL, OPT_CONTIGUOUS },
	{ "use-min-nodes", no_argument, NULL, OPT_USE_MIN_NODES },
	{ "kill-on-invalid-dep", required_argument, NULL, OPT_KILL_DEP },
	{ "wckey", required_argument, NULL, OPT_WCKEY },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "usage", no_argument, NULL, OPT_USAGE },
	/* srun's step options, for srun outside a job (refused by the others) */
	{ "mpi", required_argument, NULL, OPT_MPI },
	{ "kill-on-bad-exit", optional_argument, NULL, OPT_KILL_BAD },
	{ "cpu-bind", required_argument, NULL, OPT_CPU_BIND },
	{ "cpu_bind", required_argument, NULL, OPT_CPU_BIND },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "overlap", no_argument, NULL, OPT_OVERLAP },
	{ "preserve-env", no_argument, NULL, OPT_PRESERVE },
	{ "unbuffered", no_argument, NULL, OPT_UNBUF },
	{ "multi-prog", no_argument, NULL, OPT_MULTI_PROG },
	{ "task-prolog", required_argument, NULL, OPT_TASK_PROLOG },
	{ "task-epilog", required_argument, NULL, OPT_TASK_EPILOG },
	{ "quit-on-interrupt", no_argument, NULL, OPT_QUIT },
	{ "disable-status", no_argument, NULL, OPT_NO_STATUS },
	{ "label", no_argument, NULL, 'l' }, /* srun's, refused by sbatch */
	{ "pty", no_argument, NULL, OPT_PTY }, /* srun's, refused by sbatch */
	{ "help", no_argument, NULL, 'h' },
	CLI_CTR_OPTIONS, /* pyxis's and Slurm's --container */
};
#define NOWN (sizeof(own_opts) / sizeof(own_opts[0]))

#define SHORT_OPTS "+J:N:n:c:t:p:A:q:G:o:e:i:D:a:d:w:x:C:WHb:hlQvVOF:sL:I::X"

static struct option opts[NOWN + NREFUSED + 1];
static char short_opts[128];

/* getopt's tables for one command (P_*): the options Spur builds, then the
 * refused ones that command has in Slurm. */
static void build_opts(unsigned prog)
{
	size_t n = 0, o, k = NOWN;

	memset(opts, 0, sizeof(opts));
	memcpy(opts, own_opts, sizeof(own_opts));
	for (size_t i = 0; i < NREFUSED; i++)
		if (refused[i].progs & prog)
			opts[k++] = (struct option){ refused[i].name, refused[i].has_arg, NULL,
						     OPT_REFUSED + (int)i };
	o = (size_t)snprintf(short_opts, sizeof(short_opts), "%s", SHORT_OPTS);
	for (; n < NREFUSED && o + 3 < sizeof(short_opts); n++)
		if (refused[n].short_opt && (refused[n].progs & prog)) {
			short_opts[o++] = refused[n].short_opt;
			if (refused[n].has_arg == required_argument)
				short_opts[o++] = ':';
			else if (refused[n].has_arg == optional_argument)
				o += (size_t)snprintf(short_opts + o, sizeof(short_opts) - o, "::");
		}
	if (prog == P_SRUN && o + 6 < sizeof(short_opts))
		o += (size_t)snprintf(short_opts + o, sizeof(short_opts) - o, "K::um:E");
	/* srun's -m/--distribution: for its step (the refused entry is not srun's) */
	if (prog == P_SRUN)
		opts[k++] = (struct option){ "distribution", required_argument, NULL, OPT_DIST };
	/* srun's -W/--wait=SECONDS (sbatch's waits for the job, with no value) */
	for (size_t i = 0; prog == P_SRUN && i < k; i++)
		if (opts[i].name && !strcmp(opts[i].name, "wait"))
			opts[i].has_arg = required_argument;
	if (prog == P_SRUN) {
		char *w = strchr(short_opts, 'W');

		if (w && w[1] != ':' && o + 1 < sizeof(short_opts)) {
			memmove(w + 2, w + 1, strlen(w + 1) + 1);
			w[1] = ':';
			o++;
		}
	}
	short_opts[o] = '\0';
}

/* An sbatch option that srun and salloc do not have (its name), or NULL. */
static const char *sbatch_only(int opt)
{
	static const struct {
		int opt;
		const char *name;
	} only[] = {
		{ 'o', "output" },	   { 'e', "error" },	   { 'i', "input" },
		{ OPT_OPEN_MODE, "open-mode" }, { 'a', "array" },	   { OPT_WRAP, "wrap" },
		{ OPT_PARSABLE, "parsable" }, { 'W', "wait" },	   { OPT_REQUEUE, "requeue" },
		{ OPT_NO_REQUEUE, "no-requeue" }, { OPT_KILL_DEP, "kill-on-invalid-dep" },
		{ OPT_IGNORE_PBS, "ignore-pbs" },
	};

	for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++)
		if (only[i].opt == opt)
			return only[i].name;
	return NULL;
}




struct sbatch {
	json_t *job;
	unsigned prog; /* P_*: which command parses */
	bool parsable, wait, quiet, ignore_pbs;
	int verbose;
	const char *wrap;
};

static const char *prog_name(unsigned prog);

/* parse_args' code for "done, exit 0" (--help, --version, --usage) */
#define SBATCH_EXIT_DONE 1000

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The command whose options are being read (its messages' prefix). */
static const char *fail_prog = "sbatch";

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", fail_prog);
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

/* A count with Slurm's k/m suffix (x1024), as -N takes it. */
static int set_count(json_t *job, const char *key, const char *v, const char *what)
{
	struct spur_error err;
	uint64_t n;

	if (spur_count_parse(v, UINT64_C(1) << 40, &n, &err)) {
		fail("\"%s\" is not a valid %s", v, what);
		return 255;
	}
	json_object_set_new(job, key, json_integer((json_int_t)n));
	return 0;
}

/* -C: AND (& or ,) lists of names, "a|b" (OR), one "[a|b|c]" (matching
 * OR: every node has the same one) and "f*N" (at least N nodes with f);
 * Slurm's other forms (parentheses, & inside brackets, several brackets, |
 * beside & outside brackets) are refused by name. */
static int set_constraint(json_t *job, const char *arg)
{
	const char *open = strchr(arg, '['), *close = strchr(arg, ']');
	bool bad = (open && (strchr(open + 1, '[') || !close || close < open)) ||
		   (close && strchr(close + 1, ']')), in = false, paren = false;

	/* & or , inside brackets or parentheses, nested groups; | outside
	 * any group beside & */
	for (const char *p = arg; !bad && *p; p++) {
		if (*p == '(' || *p == ')') {
			bad = (*p == '(') == paren || (*p == '(' && in);
			paren = *p == '(';
		}
		in = open && p > open && p < close;
		bad = bad || ((in || paren) && strchr("&,", *p)) ||
		      (*p == '|' && !in && !paren && strpbrk(arg, "&,"));
	}
	bad = bad || paren;
	if (bad) {
		fprintf(stderr,
			"%s: error: --constraint with parentheses, several brackets, & inside "
			"brackets or | beside & is not supported by Spur\n",
			fail_prog);
		return 1;
	}
	json_object_set_new(job, "constraint", json_string(arg));
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

/* --signal=[B:]SIG[@TIME]: SIG (name or number) TIME seconds (0-65535,
 * default 60) before the time limit, to the job's steps, or with B: to the
 * batch shell only. R: (reservations) is refused by name. */
static int set_signal(json_t *job, const char *arg)
{
	char name[32];
	const char *at = strchr(arg, '@');
	long secs = 60;
	bool batch = false;
	int sig;

	if (!strncasecmp(arg, "R:", 2) || !strncasecmp(arg, "BR:", 3) || !strncasecmp(arg, "RB:", 3)) {
		fail("--signal=R: (signals to reservations' jobs) is not supported by Spur");
		return 1;
	}
	if (!strncasecmp(arg, "B:", 2)) {
		batch = true;
		arg += 2;
	}
	snprintf(name, sizeof(name), "%.*s", at ? (int)(at - arg) : (int)strlen(arg), arg);
	if (at) {
		char *end;

		secs = strtol(at + 1, &end, 10);
		if (*end || end == at + 1 || secs < 0 || secs > 65535)
			secs = -1;
	}
	sig = cli_signal_parse(name);
	if (!sig || secs < 0) {
		fail("Invalid --signal specification");
		return 255;
	}
	json_object_set_new(job, "signal", json_pack("{s:i,s:i,s:b}", "sig", sig, "time", (int)secs,
						     "batch", batch));
	return 0;
}

/* -F/--nodefile: the file's host names (blank, comma or newline separated)
 * as -w's list. */
static int set_nodefile(json_t *job, const char *path)
{
	FILE *f = fopen(path, "r");
	char word[256], list[8192] = "";
	size_t o = 0;

	if (!f)
		return fail("Unable to open file %s: %s", path, strerror(errno));
	while (fscanf(f, " %255[^ \t\n,]%*[ \t\n,]", word) == 1 && o + strlen(word) + 2 < sizeof(list))
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? "," : "", word);
	fclose(f);
	if (!o)
		return fail("No nodes in file %s", path);
	json_object_set_new(job, "nodelist", json_string(list));
	return 0;
}

/* --uid/--gid: a user or group name or number (root's; the controller
 * checks who asks). */
static int set_id(json_t *job, int opt, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (getuid() != 0)
		return fail("--%s only permitted by root user", opt == OPT_UID ? "uid" : "gid");
	if (*end || end == arg || n < 0) {
		struct passwd *pw = opt == OPT_UID ? getpwnam(arg) : NULL;
		struct group *gr = opt == OPT_GID ? getgrnam(arg) : NULL;

		if (!pw && !gr)
			return fail("Invalid %s: %s", opt == OPT_UID ? "user id" : "group id", arg);
		n = pw ? (long)pw->pw_uid : (long)gr->gr_gid;
	}
	json_object_set_new(job, opt == OPT_UID ? "as_uid" : "as_gid", json_integer(n));
	return 0;
}

/* Options of administrators and of the job's placement on nodes. */
static int apply_opt_admin(struct sbatch *sb, int opt, const char *arg)
{
	json_t *job = sb->job;
	struct spur_error err;
	uint64_t mb;

	switch (opt) {
	case OPT_UID:
	case OPT_GID:
		return set_id(job, opt, arg);
	case OPT_PRIORITY:
		if (!strcasecmp(arg, "TOP"))
			arg = "4000000000";
		return set_int(job, "priority", arg, "priority");
	case OPT_TMP:
		if (spur_mem_parse_mb(arg, &mb, &err))
			return fail("Invalid --tmp specification: %s", arg);
		json_object_set_new(job, "tmp_mb", json_integer((json_int_t)mb));
		return 0;
	case 'F':
		return set_nodefile(job, arg);
	case OPT_EXPORT_FILE:
		json_object_set_new(job, "export_file", json_string(arg));
		return 0;
	case OPT_GRES_FLAGS:
		/* Spur does not bind GPUs to the CPUs of their socket: that is
		 * disable-binding, the one it can honour */
		if (!strcasecmp(arg, "disable-binding"))
			return 0;
		if (!strcasecmp(arg, "enforce-binding"))
			return fail("--gres-flags=enforce-binding is not supported by Spur (GPUs are not "
				    "bound to their socket's CPUs)");
		return fail("Invalid --gres-flags specification: %s", arg);
	case 's':
		json_object_del(job, "exclusive");
		json_object_del(job, "exclusive_user");
		json_object_set_new(job, "oversubscribe", json_true());
		return 0;
	default:
		return 1;
	}
}

/* --mail-type=TYPE,...: the events the controller mails about (MailProg).
 * Stage-out and per-task array mail are refused by name; NONE clears. */
static int set_mail_type(json_t *job, const char *arg)
{
	static const char *const built[] = { "NONE",	       "BEGIN",		"END",
					     "FAIL",	       "REQUEUE",	"INVALID_DEPEND",
					     "ALL",	       "TIME_LIMIT",	"TIME_LIMIT_90",
					     "TIME_LIMIT_80", "TIME_LIMIT_50" };
	static const char *const unbuilt[] = { "STAGE_OUT", "ARRAY_TASKS" };
	char list[256] = "";
	size_t o = 0;

	for (const char *p = arg; *p;) {
		size_t l = strcspn(p, ","), k;
		bool ok = false;

		for (k = 0; k < sizeof(unbuilt) / sizeof(unbuilt[0]); k++)
			if (l == strlen(unbuilt[k]) && !strncasecmp(p, unbuilt[k], l))
				return fail("--mail-type=%s is not supported by Spur", unbuilt[k]);
		for (k = 0; k < sizeof(built) / sizeof(built[0]) && !ok; k++)
			ok = l == strlen(built[k]) && !strncasecmp(p, built[k], l);
		if (!ok)
			return fail("--mail-type=%s invalid", arg);
		if (strncasecmp(p, "NONE", l) && o + l + 2 < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.*s", o ? "," : "", (int)l, p);
		p += l + (p[l] == ',');
	}
	if (o)
		json_object_set_new(job, "mail_type", json_string(list));
	else
		json_object_del(job, "mail_type");
	return 0;
}

/* The options that shape the job's run more than its size. */
/* --exclusive[=exclusive|user|oversubscribe]: one sharing mode, as
 * Slurm's (the last of -s and --exclusive). 0, or 1 (said). */
static int set_exclusive(json_t *job, const char *arg)
{
	if (arg && !strcasecmp(arg, "mcs"))
		return fail("--exclusive=mcs is not supported by Spur (no MCSPlugin)");
	if (arg && strcasecmp(arg, "exclusive") && strcasecmp(arg, "user") &&
	    strcasecmp(arg, "oversubscribe"))
		return fail("Invalid --exclusive specification");
	json_object_del(job, "exclusive");
	json_object_del(job, "exclusive_user");
	json_object_del(job, "oversubscribe");
	json_object_set_new(job, !arg || !strcasecmp(arg, "exclusive") ? "exclusive"
				 : !strcasecmp(arg, "user")	       ? "exclusive_user"
								       : "oversubscribe",
			    json_true());
	return 0;
}

/* --hint: Slurm's values (cli_hint_check); the controller takes them where
 * they change nothing (one thread per core). */
static int set_hint(json_t *job, const char *arg)
{
	int rc = cli_hint_check(fail_prog, arg);

	if (!rc)
		json_object_set_new(job, "hint", json_string(arg));
	return rc;
}

static int apply_opt_more(struct sbatch *sb, int opt, const char *arg)
{
	json_t *job = sb->job;

	switch (opt) {
	case OPT_HINT:
		return set_hint(job, arg);
	case OPT_IGNORE_PBS:
		sb->ignore_pbs = true;
		return 0;
	case 'N': {
		/* MIN[-MAX]: the job gets MIN nodes (Slurm may give up to MAX;
		 * Spur starts it as soon as MIN are free); k/m: x1024, as Slurm */
		char min[32];
		const char *dash = strchr(arg, '-');

		if (dash && dash != arg) {
			snprintf(min, sizeof(min), "%.*s", (int)(dash - arg), arg);
			if (set_count(job, "max_nodes", dash + 1, "node count"))
				return 255;
			if (set_count(job, "nodes", min, "node count"))
				return 255;
			if (spur_json_int(job, "max_nodes", 0) < spur_json_int(job, "nodes", 0)) {
				fail("\"%s\" is not a valid node count", arg);
				return 255;
			}
			return 0;
		}
		return set_count(job, "nodes", arg, "node count");
	}
	case 'i':
		json_object_set_new(job, "input", json_string(arg));
		return 0;
	case OPT_OPEN_MODE: {
		bool append;

		if (cli_open_mode(fail_prog, arg, &append))
			return 255;
		json_object_set_new(job, "open_mode", json_string(append ? "append" : "truncate"));
		return 0;
	}
	case OPT_COMMENT:
		json_object_set_new(job, "comment", json_string(arg));
		return 0;
	case 'L':
		json_object_set_new(job, "licenses", json_string(arg));
		return 0;
	case OPT_MAIL_TYPE:
		return set_mail_type(job, arg);
	case OPT_MAIL_USER:
		json_object_set_new(job, "mail_user", json_string(arg));
		return 0;
	case OPT_GET_USER_ENV: { /* [TIMEOUT][S|L]: the user's login environment on the node */
		char *end;
		long secs = arg && isdigit((unsigned char)*arg) ? strtol(arg, &end, 10) : 8;

		if (sb->prog != P_SBATCH) {
			fprintf(stderr, "%s: error: --get-user-env is not supported by Spur for %s\n",
				prog_name(sb->prog), prog_name(sb->prog));
			return 1;
		}
		if (arg && isdigit((unsigned char)*arg) && *end && strcasecmp(end, "S") &&
		    strcasecmp(end, "L"))
			return fail("Invalid --get-user-env specification: %s", arg);
		json_object_set_new(job, "get_user_env", json_integer(secs > 0 ? secs : 8));
		return 0;
	}
	case OPT_TEST_ONLY: /* sbatch's and srun's */
		if (sb->prog == P_SALLOC) {
			fprintf(stderr, "salloc: unrecognized option '--test-only'\n");
			return 255;
		}
		json_object_set_new(job, "test_only", json_true());
		return 0;
	case OPT_PROPAGATE: /* alone: ALL */
		if (cli_propagate_check(prog_name(sb->prog), arg ? arg : "ALL"))
			return 1;
		json_object_set_new(job, "propagate", json_string(arg ? arg : "ALL"));
		return 0;
	case 'O':
		json_object_set_new(job, "overcommit", json_true());
		return 0;
	case 'I': /* seconds to wait for the allocation; 1 (no value): now or never */
		return set_int(job, "immediate", arg ? arg : "1", "immediate value");
	case OPT_KILL_DEP:
		if (strcasecmp(arg, "yes") && strcasecmp(arg, "no"))
			return fail("Invalid --kill-on-invalid-dep specification: %s", arg);
		json_object_set_new(job, "kill_invalid_dep", json_boolean(!strcasecmp(arg, "yes")));
		return 0;
	case OPT_WCKEY:
		json_object_set_new(job, "wckey", json_string(arg));
		return 0;
	case OPT_UID:
	case OPT_GID:
	case OPT_PRIORITY:
	case OPT_TMP:
	case 'F':
	case OPT_EXPORT_FILE:
	case OPT_GRES_FLAGS:
	case 's':
		return apply_opt_admin(sb, opt, arg);
	case OPT_SIGNAL:
		return set_signal(job, arg);
	case 'Q':
		sb->quiet = true;
		return 0;
	case 'v':
		sb->verbose++;
		return 0;
	default:
		if (opt >= CLI_CTR_IMAGE && opt <= CLI_CTR_LAST)
			return cli_container_opt(prog_name(sb->prog), job, opt, arg);
		return 1;
	}
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


	case 'n':
		return set_int(job, "ntasks", arg, "number of tasks");
	case OPT_NTASKS_PER_NODE:
		return set_int(job, "ntasks_per_node", arg, "ntasks-per-node value");
	case 'c':
		return set_int(job, "cpus_per_task", arg, "cpus-per-task");
	case OPT_CPUS_PER_GPU:
		return set_int(job, "cpus_per_gpu", arg, "cpus-per-gpu");
	case OPT_MINCPUS:
		return set_int(job, "min_cpus", arg, "mincpus");
	case OPT_NTASKS_PER_GPU:
		return set_int(job, "ntasks_per_gpu", arg, "ntasks-per-gpu");
	case OPT_MEM:
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
	case OPT_TIME_MIN:
		if (spur_duration_parse(arg, &secs, &err) || secs == SPUR_TIME_INFINITE) {
			fail("Invalid --time-min specification");
			return 255;
		}
		json_object_set_new(job, "time_min",
				    json_integer(secs ? spur_duration_minutes_ceil(secs) * 60 : 0));
		return 0;
	case OPT_DEADLINE:
		if (spur_begin_parse(arg, time(NULL), &t, &err))
			return fail("Invalid deadline specification %s", arg);
		json_object_set_new(job, "deadline", json_integer((json_int_t)t));
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
	case OPT_GRES: {
		struct spur_gres_list g = { 0 };
		struct spur_error e;
		int bad = spur_gres_parse(arg, 0, &g, &e);

		spur_gres_fini(&g);
		if (bad) /* Slurm's words, before submitting */
			return fail("Invalid generic resource (gres) specification");
		json_object_set_new(job, "gres", json_string(arg));
		return 0;
	}
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
		return set_constraint(job, arg);
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
		return set_exclusive(job, arg);
	case OPT_CONTIGUOUS: /* nodes next to each other in slurm.conf's order */
	case OPT_USE_MIN_NODES: /* of -N MIN-MAX, MIN: what Spur always gives */
		json_object_set_new(job, opt == OPT_CONTIGUOUS ? "contiguous" : "use_min_nodes",
				    json_true());
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
		return apply_opt_more(sb, opt, arg);
	}
}

/* A short option's refused[] index + 1 for this command, 0 when none. */
static size_t refused_short(int opt, unsigned prog)
{
	for (size_t i = 0; i < NREFUSED; i++)
		if (refused[i].short_opt == opt && (refused[i].progs & prog))
			return i + 1;
	return 0;
}

static unsigned prog_of(const char *argv0)
{
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;

	return !strcmp(base, "srun") ? P_SRUN : !strcmp(base, "salloc") ? P_SALLOC : P_SBATCH;
}

static const char *prog_name(unsigned prog)
{
	return prog == P_SRUN ? "srun" : prog == P_SALLOC ? "salloc" : "sbatch";
}

/* --help: the options this command takes, in Slurm's layout. */
static void usage(unsigned prog)
{
	if (prog == P_SRUN)
		printf("Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]\n");
	else if (prog == P_SALLOC)
		printf("Usage: salloc [OPTIONS(0)...] [command(0) [args(0)...]]\n");
	else
		printf("Usage: sbatch [OPTIONS(0)...] script(0) [args(0)...]\n");
	printf("\nParallel run options:\n"
	       "  -A, --account=name          charge job to specified account\n"
	       "  -a, --array=indexes         job array index values\n"
	       "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
	       "      --comment=name          arbitrary comment\n"
	       "  -C, --constraint=list       specify a list of constraints\n"
	       "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
	       "  -D, --chdir=directory       set working directory for batch script\n"
	       "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
	       "  -e, --error=err             file for batch script's standard error\n"
	       "      --exclusive             allocate nodes in exclusive mode\n"
	       "      --export[=names]        specify environment variables to export\n"
	       "      --get-user-env          load environment from local cluster\n"
	       "      --export-file=file|fd   specify environment variables file or file\n"
	       "                              descriptor to export\n"
	       "  -H, --hold                  submit job in held state\n"
	       "  -i, --input=in              file for batch script's standard input\n"
	       "  -J, --job-name=jobname      name of job\n"
	       "  -L, --licenses=names        required license, comma separated\n"
	       "  -N, --nodes=N               number of nodes on which to run\n"
	       "  -n, --ntasks=ntasks         number of tasks to run\n"
	       "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
	       "      --mail-user=user        who to send email notification for job state\n"
	       "                              changes\n"
	       "      --nice[=value]          decrease scheduling priority by value\n"
	       "      --no-requeue            if set, do not permit the job to be requeued\n"
	       "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
	       "  -o, --output=out            file for batch script's standard output\n"
	       "      --open-mode={append|truncate} output file open mode\n"
	       "  -p, --partition=partition   partition requested\n"
	       "      --priority=value        set the priority of the job to value\n"
	       "      --propagate[=rlimits]   propagate all [or specific list of] rlimits\n"
	       "      --parsable              outputs only the jobid and cluster name (if present)\n"
	       "  -q, --qos=qos               quality of service\n"
	       "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
	       "      --requeue               if set, permit the job to be requeued\n"
	       "      --reservation=name      allocate resources from named reservation\n"
	       "      --signal=[R:]num[@time] send signal when time limit within time seconds\n"
	       "  -s, --oversubscribe         over-subscribe resources with other jobs\n"
	       "  -t, --time=minutes          time limit\n"
	       "      --time-min=minutes      minimum time limit (if distinct)\n"
	       "      --deadline=time         remove the job if no ending possible before\n"
	       "                              this deadline (start > (deadline - time[-min]))\n"
	       "      --test-only             validate the job and say when it would start\n"
	       "      --uid=user_id           user ID to run job as (user root only)\n"
	       "      --gid=group_id          group ID to run job as (user root only)\n"
	       "  -W, --wait                  wait for completion of submitted job\n"
	       "      --wckey=wckey           wckey to run job under\n"
	       "      --wrap[=command string] wrap command string in a sh script and submit\n"
	       "\nConstraint options:\n"
	       "  -w, --nodelist=hosts...     request a specific list of hosts\n"
	       "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
	       "  -F, --nodefile=filename     request a specific list of hosts\n"
	       "      --tmp=MB                minimum amount of temporary disk\n"
	       "\nConsumable resources related options:\n"
	       "      --mem=MB                minimum amount of real memory\n"
	       "      --mem-per-cpu=MB        maximum amount of real memory per allocated cpu\n"
	       "      --mem-per-gpu=MB        real memory required per allocated GPU\n"
	       "      --mincpus=n             minimum number of logical processors per node\n"
	       "\nGPU scheduling options:\n"
	       "  -G, --gpus=n                count of GPUs required for the job\n"
	       "      --gpus-per-node=n       number of GPUs required per allocated node\n"
	       "      --gpus-per-task=n       number of GPUs required per spawned task\n"
	       "      --gres=list             required generic resources\n"
	       "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
	       "      --ntasks-per-gpu=n      number of tasks to invoke for each GPU\n"
	       "      --gres-flags=opts       flags related to GRES management (disable-binding)\n"
	       "\nHelp options:\n"
	       "  -h, --help                  show this help message\n"
	       "      --usage                 display brief usage message\n"
	       "\nOther options:\n"
	       "  -V, --version               output version information and exit\n"
	       "\nSlurm options that Spur does not build are refused by name, with exit 1.\n");
}

/* srun's step options outside a job: kept as written for srun's own
 * parser (job "step_argv"); 0, or -1 when opt is none of them. */
static int step_opt(struct sbatch *sb, int opt, const char *name, const char *arg)
{
	json_t *a = json_object_get(sb->job, "step_argv");
	char buf[4200];

	if (opt == 'K')
		name = "kill-on-bad-exit";
	else if (opt == 'u')
		name = "unbuffered";
	else if (opt == 'm' || opt == OPT_DIST)
		name = "distribution";
	else if (opt == 'E' || opt == OPT_PRESERVE)
		name = "preserve-env";
	else if (opt == OPT_OPEN_MODE) /* srun's -o files are its own */
		name = "open-mode";
	else if (opt > 0 && opt < 128 && strchr("oeiW", opt)) /* srun's own: per task */
		name = opt == 'o' ? "output" : opt == 'e' ? "error" : opt == 'i' ? "input" : "wait";
	else if (opt == OPT_QUIT || opt == OPT_NO_STATUS)
		name = opt == OPT_QUIT ? "quit-on-interrupt" : "disable-status";
	else if (opt != OPT_MPI && opt != OPT_KILL_BAD && opt != OPT_CPU_BIND && opt != OPT_EXACT &&
		 opt != OPT_OVERLAP && opt != OPT_UNBUF && opt != OPT_MULTI_PROG &&
		 opt != OPT_TASK_PROLOG && opt != OPT_TASK_EPILOG)
		return -1;
	if (!a)
		json_object_set_new(sb->job, "step_argv", a = json_array());
	snprintf(buf, sizeof(buf), "--%s%s%s", name, arg ? "=" : "", arg ? arg : "");
	json_array_append_new(a, json_string(buf));
	return 0;
}

/* Parse argv with getopt_long; returns optind, or minus the exit code. */
static int parse_args(struct sbatch *sb, int argc, char **argv, bool directives)
{
	unsigned prog = prog_of(argv[0]);
	int opt, rc, idx;

	sb->prog = prog;
	fail_prog = prog_name(prog);
	build_opts(prog);
	optind = 1;
	opterr = 1;
	while ((idx = -1, opt = getopt_long(argc, argv, short_opts, opts, &idx)) != -1) {
		if (opt == 'h') {
			usage(prog);
			return -SBATCH_EXIT_DONE;
		}
		if (opt == OPT_USAGE) {
			printf("Usage: %s [-N nnodes] [-n ntasks] [-c ncpus] [-p partition] [--hold] "
			       "[-t minutes] [-D path] %s\n",
			       prog_name(prog), prog == P_SRUN	     ? "executable [args...]"
						: prog == P_SALLOC ? "[command [args...]]"
								   : "script [args...]");
			return -SBATCH_EXIT_DONE;
		}
		if (opt == 'V') {
			cli_version();
			return -SBATCH_EXIT_DONE;
		}
		if (opt >= OPT_REFUSED || (idx < 0 && refused_short(opt, prog))) {
			size_t r = opt >= OPT_REFUSED ? (size_t)(opt - OPT_REFUSED)
						      : refused_short(opt, prog) - 1;

			if (prog == P_SRUN && !strcmp(refused[r].name, "relative"))
				/* a step's option (built there): Slurm's srun too
				 * refuses it for an allocation of its own */
				fprintf(stderr, "srun: fatal: --relative option invalid for job "
						"allocation request\n");
			else
				fprintf(stderr, "%s: error: --%s is not supported by Spur\n",
					prog_name(prog), refused[r].name);
			return -1;
		}
		if (opt == 'X' && prog == P_SRUN)
			opt = OPT_NO_STATUS;
		else if (opt == 'X') {
			fprintf(stderr, "%s: invalid option -- 'X'\n", argv[0]);
			opt = '?';
		}
		if (prog == P_SRUN && step_opt(sb, opt, idx >= 0 ? opts[idx].name : "", optarg) == 0)
			continue;
		if (prog != P_SBATCH && sbatch_only(opt)) {
			fprintf(stderr, "%s: unrecognized option '--%s'\n", argv[0], sbatch_only(opt));
			opt = '?';
		}
		if (prog != P_SRUN && opt >= OPT_MPI && opt <= OPT_UNBUF) {
			fprintf(stderr, "%s: unrecognized option '--%s'\n", argv[0],
				idx >= 0 ? opts[idx].name : "?");
			opt = '?';
		}
		if (opt == 'l' && prog == P_SRUN) {
			json_object_set_new(sb->job, "label", json_true());
			continue;
		}
		if (opt == OPT_PTY && prog == P_SRUN) {
			json_object_set_new(sb->job, "pty", json_true());
			continue;
		}
		if (opt == OPT_PTY) {
			fprintf(stderr, "%s: unrecognized option '--pty'\n", argv[0]);
			opt = '?';
		}
		if (opt == 'I' && prog == P_SBATCH) {
			if (idx >= 0)
				fprintf(stderr, "%s: unrecognized option '--immediate'\n", argv[0]);
			else
				fprintf(stderr, "%s: invalid option -- 'I'\n", argv[0]);
			opt = '?';
		}
		if (opt == 'l') {
			fprintf(stderr, "%s: invalid option -- 'l'\n", argv[0]);
			opt = '?';
		}
		if (opt == '?') {
			fprintf(stderr, "Try \"%s --help\" for more information\n", prog_name(prog));
			return -255;
		}
		if ((rc = apply_opt(sb, opt, optarg)))
			return -rc;
	}
	(void)directives;
	return optind;
}

/* Then, as Slurm's sbatch, the script's #BSUB or #PBS lines over the
 * #SBATCH ones (unless --ignore-pbs or SBATCH_IGNORE_PBS): 0, or the exit
 * code (said). */
static int pbs_directives(struct sbatch *sb, const char *script)
{
	static char buf[65536];
	char *words[256], err[512];
	const char *env = getenv("SBATCH_IGNORE_PBS");
	int n;

	/* SBATCH_IGNORE_PBS=1 ignores them, =0 does not (as test17.31 has it) */
	if (sb->ignore_pbs || (env && *env && strcmp(env, "0") && strcasecmp(env, "no") &&
			       strcasecmp(env, "false")))
		return 0;
	n = cli_pbs_words(script, spur_json_str(sb->job, "export", NULL), words, 256, buf,
			  sizeof(buf), err, sizeof(err));
	if (n < 0)
		return fail("%s", err);
	if (n > 1 && (n = parse_args(sb, n, words, true)) < 0)
		return -n;
	return 0;
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
		if (!strncmp(line, "#SBATCH", 7) && strstr(line, "hetjob") &&
		    !strcmp(line + 7 + strspn(line + 7, " \t"), "hetjob"))
			return fail("heterogeneous jobs (#SBATCH hetjob) are not supported by Spur");
		if (!strncmp(line, "#SBATCH", 7) && (isspace((unsigned char)line[7]) || !line[7])) {
			words[0] = "sbatch";
			n = cli_directive_words(line + 7, words + 1, 62, buf, sizeof(buf)) + 1;
			words[n] = NULL;
			if ((n = parse_args(sb, n, words, true)) < 0)
				return -n;
			continue;
		}
		if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')
			continue;
		break; /* the first command ends the directives */
	}
	return pbs_directives(sb, script);
}

/* The whole script; NULL (said) when it holds a NUL byte, which would cut
 * it short. */
/* All of f, NUL-ended; its length in *len. */
static char *read_all_raw(FILE *f, size_t *len)
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
	*len = n;
	return buf;
}

static char *read_all(FILE *f)
{
	size_t n;
	char *buf = read_all_raw(f, &n);

	if (buf && memchr(buf, '\0', n)) {
		fail("The Slurm controller does not allow scripts that contain a NULL character "
		     "'\\0'.");
		free(buf);
		return NULL;
	}
	return buf;
}

/* --begin after --deadline: Slurm's sbatch says so before it submits. */
static bool begin_after_deadline(const json_t *job)
{
	if (!spur_json_int(job, "deadline", 0) || spur_json_int(job, "begin", 0) <= spur_json_int(job, "deadline", 0))
		return false;
	fail("Incompatible begin and deadline time specification");
	return true;
}

/* --export-file=FILE|FD: NAME=value entries, each ended by a NUL (or by
 * a newline in a file with no NUL), into env. 0, or 1 (said). */
static int export_file(json_t *env, const char *arg)
{
	char *end;
	long fd = strtol(arg, &end, 10);
	FILE *f = !*end && end != arg && fd >= 3 ? fdopen((int)fd, "r") : fopen(arg, "r");
	char *text, *p;
	size_t text_len = 0;
	char sep;

	if (!f)
		return fail("Unable to open --export-file %s: %s", arg, strerror(errno));
	text = read_all_raw(f, &text_len);
	fclose(f);
	if (!text)
		return fail("Unable to read --export-file %s", arg);
	sep = memchr(text, '\0', text_len) ? '\0' : '\n';
	for (p = text; p < text + text_len;) {
		char *e = memchr(p, sep, (size_t)(text + text_len - p)), *eq;

		if (!e)
			e = text + text_len;
		*e = '\0';
		if ((eq = strchr(p, '=')) && eq != p) {
			*eq = '\0';
			json_object_set_new(env, p, json_string(eq + 1));
		}
		p = e + 1;
	}
	free(text);
	return 0;
}

static void fill_identity(json_t *job)
{
	struct passwd *pw = getpwuid(getuid());
	char cwd[4096], host[256];
	int prio;

	json_object_set_new(job, "user", json_string(pw ? pw->pw_name : "nobody"));
	json_object_set_new(job, "uid", json_integer(getuid()));
	json_object_set_new(job, "gid", json_integer(getgid()));
	if (getcwd(cwd, sizeof(cwd)))
		json_object_set_new(job, "workdir", json_string(cwd));
	gethostname(host, sizeof(host));
	json_object_set_new(job, "submit_host", json_string(host));
	json_object_set_new(job, "alloc_sid", json_integer(getsid(0) > 0 ? getsid(0) : 0));
	/* SLURM_PRIO_PROCESS: the submitter's nice, which the job keeps */
	errno = 0;
	prio = getpriority(PRIO_PROCESS, 0);
	json_object_set_new(job, "prio_process", json_integer(errno ? 0 : prio));
	/* the limits the job may get (PropagateResourceLimits, --propagate) */
	json_object_set_new(job, "rlimits", cli_rlimits());
}

/* Slurm's input variables (SBATCH_* for sbatch, SALLOC_* for salloc):
 * each stands for an option, below the command line and above #SBATCH
 * lines. Flags (no argument) take any value but "no". */
struct env_opt {
	const char *var, *opt;
	bool flag;
};

static const struct env_opt env_opts[] = {
	{ "ACCOUNT", "account", false },	{ "ARRAY_INX", "array", false },
	{ "CONSTRAINT", "constraint", false },	{ "CPUS_PER_GPU", "cpus-per-gpu", false },
	{ "DEBUG", "verbose", true },		{ "DISTRIBUTION", "distribution", false },
	{ "ERROR", "error", false },		{ "EXCLUSIVE", "exclusive", true },
	{ "EXPORT", "export", false },		{ "GET_USER_ENV", "get-user-env", true },
	{ "GPU_BIND", "gpu-bind", false },	{ "GPUS", "gpus", false },
	{ "GPUS_PER_NODE", "gpus-per-node", false }, { "GPUS_PER_TASK", "gpus-per-task", false },
	{ "GRES", "gres", false },		{ "GRES_FLAGS", "gres-flags", false },
	{ "HINT", "hint", false },		{ "INPUT", "input", false },
	{ "JOB_NAME", "job-name", false },	{ "MEM_BIND", "mem-bind", false },
	{ "MEM_PER_CPU", "mem-per-cpu", false }, { "MEM_PER_GPU", "mem-per-gpu", false },
	{ "MEM_PER_NODE", "mem", false },	{ "NETWORK", "network", false },
	{ "NO_KILL", "no-kill", true },		{ "NO_REQUEUE", "no-requeue", true },
	{ "OPEN_MODE", "open-mode", false },	{ "OUTPUT", "output", false },
	{ "OVERCOMMIT", "overcommit", true },	{ "PARTITION", "partition", false },
	{ "POWER", "power", false },		{ "PROFILE", "profile", false },
	{ "QOS", "qos", false },		{ "REQUEUE", "requeue", true },
	{ "RESERVATION", "reservation", false }, { "SIGNAL", "signal", false },
	{ "SPREAD_JOB", "spread-job", true },	{ "THREAD_SPEC", "thread-spec", false },
	{ "THREADS_PER_CORE", "threads-per-core", false }, { "TIMELIMIT", "time", false },
	{ "USE_MIN_NODES", "use-min-nodes", true }, { "WAIT", "wait", true },
	{ "WAIT_ALL_NODES", "wait-all-nodes", false }, { "WCKEY", "wckey", false },
	{ "CLUSTERS", "clusters", false },	{ "CONTAINER", "container", false },
	{ "CORE_SPEC", "core-spec", false },	{ "DELAY_BOOT", "delay-boot", false },
	{ "ACCTG_FREQ", "acctg-freq", false },	{ "REQ_SWITCH", "switches", false },
	{ "IMMEDIATE", "immediate", false }, /* salloc's only */
	{ "IGNORE_PBS", "ignore-pbs", true }, /* sbatch's only */
	{ NULL, NULL, false },
};

/* srun's (outside a job): SLURM_* as its man page lists them */
static const struct env_opt srun_env_opts[] = {
	{ "ACCOUNT", "account", false },	{ "ACCTG_FREQ", "acctg-freq", false },
	{ "CONSTRAINT", "constraint", false },	{ "CPU_BIND", "cpu-bind", false },
	{ "CPUS_PER_GPU", "cpus-per-gpu", false }, { "CPUS_PER_TASK", "cpus-per-task", false },
	{ "DEBUG", "verbose", true },		{ "DEPENDENCY", "dependency", false },
	{ "DISTRIBUTION", "distribution", false }, { "EXACT", "exact", true },
	{ "EXCLUSIVE", "exclusive", true },	{ "EXPORT_ENV", "export", false },
	{ "GPU_BIND", "gpu-bind", false },	{ "GPUS", "gpus", false },
	{ "GPUS_PER_NODE", "gpus-per-node", false }, { "GPUS_PER_TASK", "gpus-per-task", false },
	{ "GRES", "gres", false },		{ "GRES_FLAGS", "gres-flags", false },
	{ "HINT", "hint", false },		{ "IMMEDIATE", "immediate", false },
	{ "JOB_NAME", "job-name", false },	{ "KILL_BAD_EXIT", "kill-on-bad-exit", false },
	{ "LABELIO", "label", true },		{ "MEM_BIND", "mem-bind", false },
	{ "MEM_PER_CPU", "mem-per-cpu", false }, { "MEM_PER_GPU", "mem-per-gpu", false },
	{ "MEM_PER_NODE", "mem", false },	{ "MPI_TYPE", "mpi", false },
	{ "NETWORK", "network", false },	{ "NNODES", "nodes", false },
	{ "NO_KILL", "no-kill", true },		{ "NPROCS", "ntasks", false },
	{ "NTASKS", "ntasks", false },		{ "NTASKS_PER_NODE", "ntasks-per-node", false },
	{ "NTASKS_PER_GPU", "ntasks-per-gpu", false },
	{ "OPEN_MODE", "open-mode", false },	{ "OVERCOMMIT", "overcommit", true },
	{ "OVERLAP", "overlap", true },		{ "PARTITION", "partition", false },
	{ "QOS", "qos", false },		{ "RESERVATION", "reservation", false },
	{ "SIGNAL", "signal", false },		{ "STDERRMODE", "error", false },
	{ "STDINMODE", "input", false },	{ "STDOUTMODE", "output", false },
	{ "THREAD_SPEC", "thread-spec", false }, { "TIMELIMIT", "time", false },
	{ "UNBUFFEREDIO", "unbuffered", true },	{ "WCKEY", "wckey", false },
	{ "WORKING_DIR", "chdir", false },	{ "CONTAINER", "container", false },
	{ NULL, NULL, false },
};

/* The input variables as options: 0, or the exit code (said). */
static int apply_env(struct sbatch *sb, const char *prog)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	bool srun = !strcmp(base, "srun");
	const char *prefix = srun ? "SLURM_" : !strcmp(base, "salloc") ? "SALLOC_" : "SBATCH_";
	const struct env_opt *eo = srun ? srun_env_opts : env_opts;

	for (size_t i = 0; eo[i].var; i++) {
		char var[64], arg[4200];
		const char *v;
		char *argv[3];
		int r;

		snprintf(var, sizeof(var), "%s%s", prefix, eo[i].var);
		if (!(v = getenv(var)) || (eo[i].flag && !strcasecmp(v, "no")) ||
		    (!strcmp(eo[i].var, "IMMEDIATE") && !strcmp(prefix, "SBATCH_")) ||
		    (!strcmp(eo[i].var, "IGNORE_PBS") && strcmp(prefix, "SBATCH_")))
			continue;
		if (!strcmp(eo[i].var, "DEBUG")) { /* SBATCH_DEBUG=N: -v N times */
			sb->verbose += atoi(v) > 0 ? atoi(v) : 1;
			continue;
		}
		if (eo[i].flag)
			snprintf(arg, sizeof(arg), "--%s", eo[i].opt);
		else
			snprintf(arg, sizeof(arg), "--%s=%s", eo[i].opt, v);
		argv[0] = (char *)prog;
		argv[1] = arg;
		argv[2] = NULL;
		if ((r = parse_args(sb, 2, argv, false)) < 0) {
			fprintf(stderr, "%s: error: (from %s)\n", prog, var);
			return -r;
		}
	}
	return 0;
}

bool cli_srun_knows(const char *arg)
{
	build_opts(P_SRUN);
	if (!strncmp(arg, "--", 2) && arg[2]) {
		size_t n = strcspn(arg + 2, "=");

		for (size_t i = 0; opts[i].name; i++)
			if (strlen(opts[i].name) == n && !strncmp(opts[i].name, arg + 2, n))
				return !sbatch_only(opts[i].val) || opts[i].val == 'o' ||
				       opts[i].val == 'e' || opts[i].val == 'i' ||
				       opts[i].val == OPT_OPEN_MODE || opts[i].val == 'W';
		return false;
	}
	return arg[0] == '-' && arg[1] && arg[1] != ':' && strchr(short_opts + 1, arg[1]);
}

int cli_job_parse(json_t *job, int argc, char **argv)
{
	struct sbatch sb = { .job = job };
	int first, rc;

	fill_identity(job);
	/* the allocation keeps the whole environment (sbatch's --export is
	 * applied once its options are all read) */
	json_object_set_new(job, "env", cli_export_env(NULL));
	/* the input variables first, the command line over them */
	if ((rc = apply_env(&sb, argv[0])))
		return rc == SBATCH_EXIT_DONE ? CLI_JOB_PARSE_DONE : -rc;
	first = parse_args(&sb, argc, argv, false);
	if (first == -SBATCH_EXIT_DONE)
		return CLI_JOB_PARSE_DONE;
	if (first < 0)
		return first;
	if (first < argc && !strcmp(argv[first], ":")) {
		fprintf(stderr, "%s: error: heterogeneous jobs (components joined by ':') are not "
				"supported by Spur\n",
			argv[0]);
		return -1;
	}
	if (sb.wrap || sb.parsable || sb.wait) {
		fail("--wrap, --parsable and --wait are sbatch's");
		return -1;
	}
	if (spur_json_int(job, "ntasks_per_node", 0) && !spur_json_int(job, "ntasks", 0))
		json_object_set_new(job, "ntasks",
				    json_integer(spur_json_int(job, "ntasks_per_node", 0) *
						 spur_json_int(job, "nodes", 1)));
	if (sb.verbose) /* -v: the command says more (srun, salloc take it out) */
		json_object_set_new(job, "verbose", json_integer(sb.verbose));
	if (cli_container_check(argv[0], job) || begin_after_deadline(job))
		return -1;
	return first;
}

/* -v: the options as sbatch took them, Slurm's words for the common ones. */
/* sbatch -v: Slurm's "defined options" block: the options given (by
 * Slurm's names, in its alphabetical order), not the job's other fields. */
static const struct {
	const char *key, *name;
	char kind; /* s string, i integer, b flag ("set"), t time (H:MM:SS), m MB */
} said[] = {
	{ "account", "account", 's' },	     { "array", "array", 's' },
	{ "begin", "begin", 'i' },	     { "comment", "comment", 's' },
	{ "constraint", "constraint", 's' }, { "contiguous", "contiguous", 'b' },
	{ "cpus_per_gpu", "cpus-per-gpu", 'i' },
	{ "cpus_per_task", "cpus-per-task", 'i' }, { "deadline", "deadline", 'i' },
	{ "dependency", "dependency", 's' }, { "error", "error", 's' },
	{ "exclude", "exclude", 's' },	     { "exclusive", "exclusive", 'x' },
	{ "exclusive_user", "exclusive", 'u' },
	{ "gpus", "gpus", 'i' },	     { "gpus_per_node", "gpus-per-node", 'i' },
	{ "gpus_per_task", "gpus-per-task", 'i' }, { "gres", "gres", 'g' },
	{ "hold", "hold", 'b' },	     { "input", "input", 's' },
	{ "name", "job-name", 's' },	     { "licenses", "licenses", 's' },     { "mail_type", "mail-type", 's' },
	{ "mail_user", "mail-user", 's' },   { "mem_per_node", "mem", 'm' },
	{ "mem_per_cpu", "mem-per-cpu", 'm' }, { "mem_per_gpu", "mem-per-gpu", 'm' },
	{ "min_cpus", "mincpus", 'i' },	     { "nice", "nice", 'i' },
	{ "nodelist", "nodelist", 's' },     { "nodes", "nodes", 'i' },
	{ "ntasks", "ntasks", 'i' },	     { "ntasks_per_node", "ntasks-per-node", 'i' },
	{ "output", "output", 's' },	     { "overcommit", "overcommit", 'b' },
	{ "partition", "partition", 's' },   { "priority", "priority", 'i' },
	{ "qos", "qos", 's' },		     { "reservation", "reservation", 's' },
	{ "test_only", "test-only", 'b' },   { "time_limit", "time", 't' },	     { "time_min", "time-min", 't' },
	{ "tmp_mb", "tmp", 'm' },	     { "use_min_nodes", "use-min-nodes", 'b' },
	{ "wckey", "wckey", 's' },
};

static void say_mem(uint64_t mb, char *buf, size_t len)
{
	if (mb && !(mb % (1024 * 1024)))
		snprintf(buf, len, "%lluT", (unsigned long long)(mb / 1024 / 1024));
	else if (mb && !(mb % 1024))
		snprintf(buf, len, "%lluG", (unsigned long long)(mb / 1024));
	else
		snprintf(buf, len, "%llu", (unsigned long long)mb);
}

static void say_gres(const char *g, char *buf, size_t len, const char **text)
{
	size_t o = 0;

	buf[0] = '\0';
	for (const char *p = g ? g : ""; *p && o < len;) {
		size_t n = strcspn(p, ",");

		o += (size_t)snprintf(buf + o, len - o, "%sgres:%.*s", o ? "," : "", (int)n, p);
		p += n + (p[n] ? 1 : 0);
	}
	*text = buf;
}

static void say_one(const char *name, const char *value)
{
	fprintf(stderr, "sbatch: %-20s: %s\n", name, value);
}

static void say_options(const json_t *job, int verbose, const char *wrap, const char *default_name)
{
	char buf[64], line[4096];
	const char *k;
	json_t *v;

	fprintf(stderr, "sbatch: defined options\n");
	fprintf(stderr, "sbatch: -------------------- --------------------\n");
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		const json_t *x = json_object_get(job, said[i].key);
		const char *text = buf;

		if (!x || (strchr("bxu", said[i].kind) && !json_is_true(x)))
			continue;
		/* the script's name, when no -J gave one: not an option */
		if (!strcmp(said[i].key, "name") && default_name &&
		    !strcmp(json_string_value(x) ? json_string_value(x) : "", default_name))
			continue;
		if (said[i].kind == 's')
			text = json_string_value(x) ? json_string_value(x) : "";
		else if (said[i].kind == 'b')
			text = "set";
		else if (said[i].kind == 'x' || said[i].kind == 'u')
			text = said[i].kind == 'x' ? "exclusive" : "user";
		else if (said[i].kind == 'g') /* Slurm's own form: gres:NAME... */
			say_gres(json_string_value(x), line, sizeof(line), &text);
		else if (said[i].kind == 't')
			spur_duration_format_hms(json_integer_value(x), buf, sizeof(buf));
		else if (said[i].kind == 'm') /* Slurm's: G or T when whole, else MB */
			say_mem((uint64_t)json_integer_value(x), buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(x));
		if (!strcmp(said[i].key, "output") && !strcmp(text, "none"))
			text = "/dev/null"; /* as Slurm's sbatch reads it */
		/* files: in the job's folder, as Slurm's sbatch shows them */
		if ((!strcmp(said[i].key, "output") || !strcmp(said[i].key, "error")) &&
		    *text != '/') {
			snprintf(line, sizeof(line), "%s/%s", spur_json_str(job, "workdir", "."), text);
			text = line;
		}
		say_one(said[i].name, text);
		/* Slurm's table is alphabetical: verbose and wrap come last */
	}
	snprintf(line, sizeof(line), "%d", verbose);
	say_one("verbose", line);
	if (wrap)
		say_one("wrap", wrap);
	fprintf(stderr, "sbatch: -------------------- --------------------\n");
	fprintf(stderr, "sbatch: end of defined options\n");
	/* -vv: Slurm's debug lines of the limits the job takes along */
	json_object_foreach(verbose >= 2 ? json_object_get(job, "rlimits") : NULL, k, v)
		fprintf(stderr, "sbatch: debug:  propagating RLIMIT_%s=%llu\n", k,
			(unsigned long long)json_integer_value(v));
}

int cli_sbatch_main(const char *prog, int argc, char **argv)
{
	struct sbatch sb = { .job = json_object() };
	struct spur_error err;
	char *script = NULL;
	json_t *req, *reply;
	int first, fd, rc = 1, cmd_verbose;
	char *pargv[256];
	const char *default_name = NULL; /* the job's name when no -J gave one */

	(void)prog;
	fill_identity(sb.job);
	/* argv here lacks the program name; getopt wants it */
	pargv[0] = "sbatch";
	for (int i = 0; i < argc && i < 254; i++)
		pargv[i + 1] = argv[i];
	pargv[argc + 1 < 255 ? argc + 1 : 255] = NULL;
	first = parse_args(&sb, argc + 1, pargv, false);
	if (first < 0) {
		rc = first == -SBATCH_EXIT_DONE ? 0 : -first;
		goto out;
	}
	cmd_verbose = sb.verbose; /* counted again when the command line is read last */
	if (first < argc + 1 && !strcmp(pargv[first], ":")) {
		rc = fail("heterogeneous jobs (components joined by ':') are not supported by Spur");
		goto out;
	}
	if (sb.wrap) {
		script = spur_asprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n",
				       sb.wrap);
		if (!json_object_get(sb.job, "name"))
			json_object_set_new(sb.job, "name", json_string(default_name = "wrap"));
	} else {
		const char *path = first < argc + 1 ? pargv[first] : NULL;
		FILE *f = path ? fopen(path, "r") : stdin;

		if (!f) {
			rc = fail("Unable to open file %s", path);
			goto out;
		}
		script = read_all(f);
		if (path) {
			char *full = realpath(path, NULL);

			/* scontrol show job's Command= */
			json_object_set_new(sb.job, "command", json_string(full ? full : path));
			free(full);
			fclose(f);
		}
		if (!json_object_get(sb.job, "name")) {
			const char *base = path ? strrchr(path, '/') : NULL;

			default_name = path ? (base ? base + 1 : path) : "sbatch";
			json_object_set_new(sb.job, "name", json_string(default_name));
		}
	}
	if (!script)
		goto out;
	if (!sb.wrap && (rc = parse_directives(&sb, script)) != 0)
		goto out;
	/* then the input variables, then the command line again over both */
	if ((rc = apply_env(&sb, "sbatch")) != 0)
		goto out;
	rc = 1;
	sb.verbose -= cmd_verbose;
	if (parse_args(&sb, argc + 1, pargv, false) < 0 || cli_container_check("sbatch", sb.job))
		goto out;
	if (begin_after_deadline(sb.job))
		goto out;
	/* the script's own arguments ($1...) */
	if (!sb.wrap && first + 1 < argc + 1) {
		json_t *args = json_array();

		for (int i = first + 1; i < argc + 1; i++)
			json_array_append_new(args, json_string(pargv[i]));
		json_object_set_new(sb.job, "argv", args);
	} else if (sb.wrap && first < argc + 1) {
		rc = fail("--wrap takes no script (\"%s\" given)", pargv[first]);
		goto out;
	}
	if (sb.verbose) /* what was asked, before what follows from it */
		say_options(sb.job, sb.verbose, sb.wrap, default_name);
	/* --ntasks-per-node: the task count follows from the node count */
	if (spur_json_int(sb.job, "ntasks_per_node", 0) && !spur_json_int(sb.job, "ntasks", 0))
		json_object_set_new(sb.job, "ntasks",
				    json_integer(spur_json_int(sb.job, "ntasks_per_node", 0) *
						 spur_json_int(sb.job, "nodes", 1)));
	json_object_set_new(sb.job, "script", json_string(script));
	/* --export: the environment the job gets; --export-file's over it */
	json_object_set_new(sb.job, "env", cli_export_env(spur_json_str(sb.job, "export", NULL)));
	/* as Slurm's sbatch: the job's sruns export the same */
	if (json_is_string(json_object_get(sb.job, "export")))
		json_object_set(json_object_get(sb.job, "env"), "SLURM_EXPORT_ENV",
				json_object_get(sb.job, "export"));
	if (json_object_get(sb.job, "export_file") &&
	    export_file(json_object_get(sb.job, "env"), spur_json_str(sb.job, "export_file", "")))
		goto out;
	json_object_del(sb.job, "export_file");
	if (spur_json_bool(sb.job, "test_only", 0)) {
		rc = cli_will_run("sbatch", sb.job);
		goto out;
	}
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
	else if (!sb.quiet)
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
