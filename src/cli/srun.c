/* SPDX-License-Identifier: Apache-2.0 */
/* srun: run a command as tasks over a job's nodes; their output and exit
 * codes come back here over TCP. Inside a job it is a step of that job;
 * outside, it first asks for an interactive allocation (salloc.c), runs the
 * step in it, and gives it up with the step's exit code. */
#define _GNU_SOURCE
#include "client.h"
#include "container_opts.h"
#include "srunsig.h"

#include "common/hostlist.h"
#include "common/mpmd.h"
#include "common/size.h"
#include "common/timefmt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <ctype.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;


/* An io frame's bytes: "data" (text), or "hex" (binary output), decoded
 * into *owned (freed by the caller). */
static const char *io_bytes(const json_t *m, size_t *len, char **owned)
{
	const char *hex = spur_json_str(m, "hex", NULL);
	size_t n = hex ? strlen(hex) / 2 : 0;

	*owned = NULL;
	if (!hex) {
		*len = json_string_length(json_object_get(m, "data"));
		return spur_json_str(m, "data", "");
	}
	if (!(*owned = malloc(n + 1))) {
		*len = 0;
		return "";
	}
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		sscanf(hex + 2 * i, "%2x", &v);
		(*owned)[i] = (char)v;
	}
	*len = n;
	return *owned;
}

void cli_print_io(const json_t *m, bool label, struct cli_out_state *st, int ntasks, FILE *to)
{
	int fd = (int)spur_json_int(m, "fd", 1);
	int rank = (int)spur_json_int(m, "rank", 0);
	size_t len;
	char *owned;
	const char *data = io_bytes(m, &len, &owned);
	FILE *out = to ? to : fd == 2 ? stderr : stdout;

	if (!label) {
		fwrite(data, 1, len, out);
		free(owned);
		return;
	}
	(void)ntasks;
	/* -l: "rank: " before every line */
	for (size_t i = 0; i < len; i++) {
		if (st[rank].at_line_start[fd == 2])
			fprintf(out, "%d: ", rank);
		fputc(data[i], out);
		st[rank].at_line_start[fd == 2] = data[i] == '\n';
	}
	free(owned);
}

/* PMIx fences: each node's agent sends its ranks' data; once every node's
 * is in, every agent gets all of it (the hex strings joined). At most a
 * few fences are in flight: every node takes part in each. */
#define FENCE_SLOTS 4
struct fences {
	struct {
		int seq, got;
		char *hex;
		size_t len;
	} slot[FENCE_SLOTS];
};

static void fence_add(struct fences *f, const json_t *m, int nnodes, const struct pollfd *conns,
		      int nconn)
{
	int seq = (int)spur_json_int(m, "seq", 0);
	const char *data = spur_json_str(m, "data", "");
	size_t len = strlen(data);
	__typeof__(f->slot[0]) *sl = &f->slot[seq % FENCE_SLOTS];
	char *grown;
	json_t *done;

	if (sl->seq != seq) {
		free(sl->hex);
		memset(sl, 0, sizeof(*sl));
		sl->seq = seq;
	}
	grown = realloc(sl->hex, sl->len + len + 1);
	if (!grown)
		return;
	sl->hex = grown;
	memcpy(sl->hex + sl->len, data, len + 1);
	sl->len += len;
	if (++sl->got < nnodes)
		return;
	done = json_pack("{s:s,s:i,s:s%}", "type", "fence_done", "seq", seq, "data", sl->hex,
			 sl->len);
	for (int k = 0; k < nconn; k++) {
		struct spur_error err;

		if (conns[k].fd >= 0)
			spur_wire_send(conns[k].fd, done, &err);
	}
	json_decref(done);
	free(sl->hex);
	memset(sl, 0, sizeof(*sl));
}

/* What srun's options inside a job ask of the step. */
struct step_opts {
	int nodes, ntasks, per_node, cpus_per_task, gpus_per_task, gpus, gpus_per_node, verbose;
	bool label, kill_bad, pty, exact, overlap, preserve_env, overcommit, relative_set;
	int relative; /* -r N: from the allocation's node N */
	const char *name, *chdir, *export, *cpu_bind, *mpi, *nodelist, *exclude, *propagate;
	const char *distribution; /* -m: block, cyclic or plane over the nodes */
	int plane;		  /* -m plane=N: N */
	uint64_t mem_mb, mem_per_cpu_mb; /* --mem, --mem-per-cpu: the step's memory */
	int64_t time_limit;		 /* -t: the step's own, seconds (0: the job's) */
	const char *output, *error, *gpu_bind; /* -o/-e patterns; --gpu-bind */
	const char *input;		       /* -i: all (default), none, TASKID, FILE */
	int wait_s;			       /* -W: after the first task ends */
	int immediate;			       /* -I: seconds a busy step may wait */
	bool append;			       /* --open-mode=append: -o/-e files */
	bool multi_prog;		       /* --multi-prog: the command is its file */
	char *mpmd;			       /* that file's text, checked (owned) */
	const char *task_prolog, *task_epilog; /* --task-prolog, --task-epilog */
	bool quit_on_intr, no_status;	       /* -q, -X (SIGINT) */
	const char *hint;		       /* --hint (the controller checks the nodes) */
	json_t *ctr; /* {"container": ...}: pyxis's options, the step's container */
};

/* A Slurm srun option Spur does not do yet: refused by name (never taken
 * and dropped). */
static int not_supported(const char *prog, const char *opt)
{
	cli_error(prog, "%s is not supported inside a job by this version of Spur", opt);
	return 1;
}

/* --gpu-bind=[verbose,]none|closest|single:N|map_gpu:I[,I...]|mask_gpu:M[,M...]:
 * 0 when well formed. */
static int gpu_bind_check(const char *v)
{
	if (!strncmp(v, "verbose,", 8))
		v += 8;
	if (!strcmp(v, "none") || !strcmp(v, "closest"))
		return 0;
	if (!strncmp(v, "single:", 7))
		return atoi(v + 7) > 0 ? 0 : -1;
	if (!strncmp(v, "map_gpu:", 8) || !strncmp(v, "mask_gpu:", 9)) {
		const char *p = strchr(v, ':') + 1;

		return *p && strspn(p, "0123456789abcdefABCDEFx,") == strlen(p) ? 0 : -1;
	}
	return -1;
}

/* srun's options inside a job (Slurm's, some refused by name below). */
enum { O_PER_NODE = 1000, O_GPT, O_CPU_BIND, O_EXPORT, O_MPI, O_OVERLAP, O_UNBUF, O_KILL,
       O_PTY, O_EXACT, O_GRES, O_GPN, O_GPU_BIND, O_NO, O_JOBID, O_PROPAGATE, O_OPEN_MODE,
       O_QUIT, O_HINT, O_MEM, O_MEM_CPU, O_TIME, O_MULTI, O_TPROLOG, O_TEPILOG };
static const struct option step_long_opts[] = {
	{ "nodes", required_argument, NULL, 'N' },
	{ "ntasks", required_argument, NULL, 'n' },
	{ "ntasks-per-node", required_argument, NULL, O_PER_NODE },
	{ "label", no_argument, NULL, 'l' },
	{ "job-name", required_argument, NULL, 'J' },
	{ "cpus-per-task", required_argument, NULL, 'c' },
	{ "gpus-per-task", required_argument, NULL, O_GPT },
	{ "cpu-bind", required_argument, NULL, O_CPU_BIND },
	{ "cpu_bind", required_argument, NULL, O_CPU_BIND },
	{ "export", required_argument, NULL, O_EXPORT },
	{ "chdir", required_argument, NULL, 'D' },
	{ "mpi", required_argument, NULL, O_MPI },
	{ "overlap", no_argument, NULL, O_OVERLAP },
	{ "preserve-env", no_argument, NULL, 'E' },
	{ "overcommit", no_argument, NULL, 'O' },
	{ "unbuffered", no_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	/* Slurm's, refused by name below */
	{ "gres", required_argument, NULL, O_GRES }, { "gpus", required_argument, NULL, 'G' },
	{ "gpus-per-node", required_argument, NULL, O_GPN },
	{ "gpu-bind", required_argument, NULL, O_GPU_BIND },
	{ "distribution", required_argument, NULL, 'm' },
	{ "kill-on-bad-exit", optional_argument, NULL, O_KILL },
	{ "exact", no_argument, NULL, O_EXACT }, { "nodelist", required_argument, NULL, 'w' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "multi-prog", no_argument, NULL, O_MULTI }, { "wait", required_argument, NULL, 'W' },
	{ "task-prolog", required_argument, NULL, O_TPROLOG },
	{ "task-epilog", required_argument, NULL, O_TEPILOG },
	{ "output", required_argument, NULL, 'o' }, { "error", required_argument, NULL, 'e' },
	{ "input", required_argument, NULL, 'i' }, { "pty", no_argument, NULL, O_PTY },
	{ "het-group", required_argument, NULL, O_NO }, { "mem", required_argument, NULL, O_MEM },
	{ "mem-per-cpu", required_argument, NULL, O_MEM_CPU },
	{ "mem-per-gpu", required_argument, NULL, O_NO },
	{ "container-save", required_argument, NULL, O_NO },
	{ "container-writable", no_argument, NULL, O_NO },
	{ "container-readonly", no_argument, NULL, O_NO },
	{ "container-entrypoint", no_argument, NULL, O_NO },
	{ "no-container-entrypoint", no_argument, NULL, O_NO },
	{ "container-image-save", required_argument, NULL, O_NO },
	CLI_CTR_OPTIONS,
	{ "jobid", required_argument, NULL, O_JOBID },
	{ "propagate", optional_argument, NULL, O_PROPAGATE },
	{ "immediate", optional_argument, NULL, 'I' },
	{ "open-mode", required_argument, NULL, O_OPEN_MODE },
	{ "quit-on-interrupt", no_argument, NULL, O_QUIT },
	{ "hint", required_argument, NULL, O_HINT },
	{ "disable-status", no_argument, NULL, 'X' },
	{ "relative", required_argument, NULL, 'r' },
	{ "time", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 },
};
#define STEP_SHORT_OPTS "+N:n:lJ:c:D:uhG:m:KW:w:x:o:e:i:vEOI::Xr:t:"

/* --jobid=N, from inside a job or outside it: the step goes into job N,
 * as from inside it (the controller checks that it is the caller's and
 * running). NULL when not given; "" when N is not a job id. Read before
 * the options are parsed, since it decides which options srun takes. */
static const char *jobid_opt(int argc, char **argv)
{
	const char *found = NULL;
	int opt, err = opterr;
	bool any = false;

	for (int i = 1; i < argc; i++)
		any |= !strncmp(argv[i], "--jobid", 7);
	if (!any)
		return NULL;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, STEP_SHORT_OPTS, step_long_opts, NULL)) != -1)
		if (opt == O_JOBID)
			found = optarg;
	opterr = err;
	optind = 0; /* getopt starts afresh for the real parse */
	if (found && (!*found || strspn(found, "0123456789") != strlen(found) || strlen(found) > 10))
		return "";
	return found;
}

/* srun's options inside a job: 0, or the exit code. */

/* -r, -t, --mem, --mem-per-cpu: the step's place and its own limits. 0,
 * 1 (said), or -2 when opt is none of them. */
static int step_limit_opt(const char *prog, struct step_opts *o, int opt, char *arg)
{
	struct spur_error e;
	int64_t secs;
	uint64_t mb;

	switch (opt) {
	case 'r':
		o->relative = atoi(arg);
		o->relative_set = true;
		if (o->relative < 0 || !isdigit((unsigned char)arg[0])) {
			cli_error(prog, "Invalid --relative value: %s", arg);
			return 1;
		}
		return 0;
	case 't':
		if (spur_duration_parse(arg, &secs, &e)) {
			cli_error(prog, "Invalid --time specification");
			return 1;
		}
		/* whole minutes, rounded up, as Slurm counts them; 0: none */
		o->time_limit =
			secs == SPUR_TIME_INFINITE || !secs ? 0 : spur_duration_minutes_ceil(secs) * 60;
		return 0;
	case O_MEM:
	case O_MEM_CPU:
		if (spur_mem_parse_mb(arg, &mb, &e)) {
			cli_error(prog, "Invalid --%s specification: %s",
				  opt == O_MEM ? "mem" : "mem-per-cpu", arg);
			return 1;
		}
		*(opt == O_MEM ? &o->mem_mb : &o->mem_per_cpu_mb) = mb;
		if (o->mem_mb && o->mem_per_cpu_mb) {
			cli_error(prog, "--mem and --mem-per-cpu are mutually exclusive.");
			return 1;
		}
		return 0;
	default:
		return -2;
	}
}

/* srun's step options that take a value it checks: 0, -2 when opt is not
 * one of them, or the exit code (said). */
static int step_value_opt(const char *prog, struct step_opts *o, int opt, char *arg)
{
	switch (opt) {
	case O_HINT:
		if (cli_hint_check(prog, arg))
			return 1;
		o->hint = arg;
		break;
	case O_OPEN_MODE:
		return cli_open_mode(prog, arg, &o->append);
	case O_CPU_BIND: {
		/* none, or one CPU set per task (cores, threads, sockets:
		 * the job's CPUs shared out in order); verbose is Slurm's
		 * report line, which is not printed */
		static const char *const ok[] = { "none", "no", "cores", "threads", "sockets",
						  "ldoms", "rank" };
		bool known = false;

		for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
			known |= !strcmp(arg, ok[k]);
		if (!known)
			return not_supported(prog, "--cpu-bind other than none, cores, threads, "
						   "sockets, ldoms or rank");
		o->cpu_bind = arg;
		break;
	}
	case 'W':
		o->wait_s = atoi(arg);
		if (o->wait_s < 0 || (!o->wait_s && strcmp(arg, "0"))) {
			cli_error(prog, "Invalid --wait specification: %s", arg);
			return 1;
		}
		break;
	case 'm':
		/* block, cyclic or plane=N over the nodes (and :* for cores,
		 * which the CPU binding decides) */
		if (!strncmp(arg, "block", 5) && (!arg[5] || arg[5] == ':'))
			o->distribution = "block";
		else if (!strncmp(arg, "cyclic", 6) && (!arg[6] || arg[6] == ':'))
			o->distribution = "cyclic";
		else if (!strncmp(arg, "plane=", 6)) {
			char *end;
			long v = strtol(arg + 6, &end, 10);

			if (v <= 0 || v > 65535 || (*end && *end != ':')) {
				cli_error(prog, "Invalid --distribution specification");
				return 1;
			}
			o->distribution = "plane";
			o->plane = (int)v;
		} else
			return not_supported(prog, "--distribution other than block, cyclic and plane=N");
		break;
	case O_MULTI:
		o->multi_prog = true;
		break;
	case O_TPROLOG:
	case O_TEPILOG:
		/* run by the tasks' node, as the user, around each task */
		*(opt == O_TPROLOG ? &o->task_prolog : &o->task_epilog) = arg;
		break;
	case O_GPU_BIND:
		if (gpu_bind_check(arg))
			return not_supported(prog, "--gpu-bind other than none, closest, "
						   "single:N, map_gpu:LIST or mask_gpu:LIST");
		o->gpu_bind = arg;
		break;
	default:
		return -2;
	}
	return 0;
}

/* The first option the step's tables do not have, if it is one of Slurm's
 * srun options (for a new job, or refused): its text, else NULL. */
static const char *step_foreign_opt(int argc, char **argv, char *buf, size_t len)
{
	const char *found = NULL;
	int opt;

	optind = 0;
	opterr = 0;
	while (!found && (opt = getopt_long(argc, argv, STEP_SHORT_OPTS, step_long_opts, NULL)) != -1)
		if (opt == '?' && !optopt && optind > 0)
			found = argv[optind - 1];
		else if (opt == '?' && optopt > 0 && optopt < 128 &&
			 !strchr(STEP_SHORT_OPTS, optopt)) {
			snprintf(buf, len, "-%c", optopt);
			found = buf;
		}
	optind = 0;
	opterr = 1;
	return found && cli_srun_knows(found) ? found : NULL;
}

static int parse_step(const char *prog, int argc, char **argv, struct step_opts *o)
{
	static const struct option *const opts = step_long_opts;
	int opt, idx = -1;
	char sbuf[4], oname[64];
	const char *foreign = step_foreign_opt(argc, argv, sbuf, sizeof(sbuf));

	if (foreign) { /* Slurm's, not built for a step: by name, not "unrecognized" */
		snprintf(oname, sizeof(oname), "%.*s", (int)strcspn(foreign, "="), foreign);
		return not_supported(prog, oname);
	}
	while ((opt = getopt_long(argc, argv, STEP_SHORT_OPTS, opts, &idx)) != -1) {
		int r = step_value_opt(prog, o, opt, optarg);

		if (r == -2)
			r = step_limit_opt(prog, o, opt, optarg);

		if (r != -2) {
			if (r)
				return r;
			idx = -1;
			continue;
		}
		switch (opt) {
		case 'v': o->verbose++; break;
		case 'N': o->nodes = atoi(optarg); break;
		case 'n': o->ntasks = atoi(optarg); break;
		case O_PER_NODE: o->per_node = atoi(optarg); break;
		case 'l': o->label = true; break;
		case 'J': o->name = optarg; break;
		case 'c': o->cpus_per_task = atoi(optarg); break;
		case 'D': o->chdir = optarg; break;
		case 'w': o->nodelist = optarg; break;
		case 'x': o->exclude = optarg; break;
		case 'K': o->kill_bad = true; break;
		case 'E': o->preserve_env = true; break;
		case 'I': o->immediate = optarg ? atoi(optarg) : 1; break;
		case O_QUIT: o->quit_on_intr = true; break;
		case 'X': o->no_status = true; break;
		/* -O: more tasks than the allocation's CPUs */
		case 'O': o->overcommit = true; break;
		case O_KILL: o->kill_bad = !optarg || strcmp(optarg, "0"); break;
		case O_GPT:
			o->gpus_per_task = atoi(strchr(optarg, ':') ? strrchr(optarg, ':') + 1 : optarg);
			if (o->gpus_per_task <= 0) {
				cli_error(prog, "Invalid --gpus-per-task specification: %s", optarg);
				return 1;
			}
			break;
		case O_EXPORT: o->export = optarg; break;
		case O_MPI:
			if (!strcmp(optarg, "list")) {
				printf("MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\nspecific pmix "
				       "plugin versions available: pmix_v4\n");
				return -1;
			}
			if (strcmp(optarg, "none") && strcmp(optarg, "pmix") && strcmp(optarg, "pmi2") &&
			    strcmp(optarg, "pmix_v3") && strcmp(optarg, "pmix_v4"))
				return not_supported(prog, "--mpi other than none, pmi2 and pmix");
			o->mpi = optarg;
			break;
		case O_OVERLAP: o->overlap = true; break;
		case O_EXACT: o->exact = true; break;
		case 'G':
		case O_GPN:
		case O_GRES: {
			/* N, TYPE:N, gpu:N, gpu:TYPE:N: the count is the last field */
			const char *n = strrchr(optarg, ':') ? strrchr(optarg, ':') + 1 : optarg;
			int v = atoi(n);

			if (opt == O_GRES && strncmp(optarg, "gpu", 3))
				return not_supported(prog, "--gres other than gpu");
			if (v <= 0) {
				cli_error(prog, "Invalid GPU specification: %s", optarg);
				return 1;
			}
			if (opt == 'G')
				o->gpus = v;
			else
				o->gpus_per_node = v;
			break;
		}
		case O_PTY: o->pty = true; break;
		case O_JOBID: break; /* read first (jobid_opt) */
		case O_PROPAGATE: /* srun's own limits to its tasks */
			if (cli_propagate_check(prog, optarg ? optarg : "ALL"))
				return 1;
			o->propagate = optarg ? optarg : "ALL";
			break;
		case 'o': o->output = optarg; break;
		case 'i': o->input = optarg; break; /* all, none, TASKID, FILE, PATTERN */
		case 'e': o->error = optarg; break;
		case 'u': break;       /* output is passed on as it comes, never buffered */
		case 'h':
			printf("Usage: srun [-N NODES] [-n TASKS] [--ntasks-per-node N] [-c CPUS] "
			       "[--gpus-per-task N] [--cpu-bind none|cores] [--export ALL|NONE|VARS] "
			       "[-D DIR] [-J NAME] [-l] [-u] [--overlap] COMMAND [ARGS...]\n");
			return -1;
		case O_NO: {
			char name[64];

			snprintf(name, sizeof(name), "--%s", opts[idx].name);
			return not_supported(prog, name);
		}
		case '?':
			fprintf(stderr, "Try \"srun --help\" for more information\n");
			return 1;
		default: {
			char name[8];

			if (opt >= CLI_CTR_IMAGE && opt <= CLI_CTR_LAST) {
				if (!o->ctr)
					o->ctr = json_object();
				if (cli_container_opt(prog, o->ctr, opt, optarg))
					return 1;
				break;
			}

			snprintf(name, sizeof(name), "-%c", opt);
			return not_supported(prog, name);
		}
		}
		idx = -1;
	}
	if (o->relative_set && (o->nodelist || o->exclude)) {
		cli_error(prog, "-r,--relative not allowed with -w,--nodelist or -x,--exclude.");
		return 1;
	}
	/* as Slurm's srun checks it against its allocation */
	if (o->relative_set && o->nodes && getenv("SLURM_JOB_NUM_NODES") &&
	    o->relative + o->nodes > atoi(getenv("SLURM_JOB_NUM_NODES"))) {
		cli_error(prog,
			  "--relative and --nodes option incompatible with count of allocated nodes "
			  "(%d+%d>%d)",
			  o->relative, o->nodes, atoi(getenv("SLURM_JOB_NUM_NODES")));
		return 1;
	}
	return 0;
}

/* The step's output, exits and fences, from one connection per node. */
struct relay {
	int lfd, nconn, cap, open_conns, expect, total, exited, rc, hellos;
	bool killed, label, kill_bad, pty, raw;
	bool quit_on_intr, no_status, aborted; /* -q, -X; "Job step aborted" said */
	/* a task ended by SIGTERM or SIGKILL; its job ended (cancelled, its
	 * limit): srun's "Force Terminated" comes from the first without the
	 * second, as Slurm's */
	bool term_signal, job_ended;
	bool step_cancelled, step_timeout; /* scancel J.S; srun -t's limit (slurmstepd said) */
	const char *prog;
	struct timespec last_intr;	       /* SIGINT: a second within 1 s stops */
	unsigned char *done;		       /* per rank: its exit came */
	struct termios saved; /* the terminal before --pty made it raw */
	struct pollfd *pfd; /* [0]: the listening socket; with --pty, stdin once all connected */
	struct spur_wire_reader *rd;
	int *node_of; /* per connection: the node it said it is, -1 */
	struct cli_out_state *st;
	struct fences fences;
	json_t *names; /* the step's nodes, in order */
	/* -o/-e: file patterns (NULL: srun's own stdout/stderr), the files
	 * opened so far; -W: seconds the others may run after the first ends */
	const char *out_pat, *err_pat, *jobid;
	int step_id, wait_s;
	int in_rank; /* -i TASKID: the one task that gets srun's stdin; -1 all */
	bool in_none, append; /* append: --open-mode=append */
	int plane;	      /* ranks go round the nodes N at a time (cyclic: 1, block: 0) */
	const char *in_pat; /* -i PATTERN: each task its own file (%t, %n, %N...) */
	time_t first_exit;
	struct out_file {
		char name[1024];
		FILE *f;
	} *files;
	int nfiles;
};

/* every node connects within this many MessageTimeouts, or the step fails */
#define RELAY_CONNECT_TIMEOUTS 6

static void relay_send_all(struct relay *r, json_t *m)
{
	struct spur_error err;

	for (int c = 1; c <= r->nconn; c++)
		if (r->pfd[c].fd >= 0)
			spur_wire_send(r->pfd[c].fd, m, &err);
	json_decref(m);
}

/* Take every connection waiting (the listening socket is nonblocking). */
static void relay_accept(struct relay *r)
{
	int fd;

	while ((fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if (r->nconn + 1 >= r->cap) {
			int cap = r->cap * 2;
			struct pollfd *p = realloc(r->pfd, (size_t)cap * sizeof(*p));

			if (p)
				r->pfd = p;
			struct spur_wire_reader *rd = p ? realloc(r->rd, (size_t)cap * sizeof(*rd)) : NULL;

			if (rd)
				r->rd = rd;
			int *no = rd ? realloc(r->node_of, (size_t)cap * sizeof(*no)) : NULL;

			if (!no) {
				close(fd);
				return;
			}
			r->node_of = no;
			r->cap = cap;
		}
		r->nconn++;
		r->open_conns++;
		r->pfd[r->nconn] = (struct pollfd){ .fd = fd, .events = POLLIN };
		spur_wire_reader_init(&r->rd[r->nconn]);
		r->rd[r->nconn].max = SPUR_WIRE_MAX_REPLY;
		r->node_of[r->nconn] = -1;
		if (r->killed) {
			/* -K ended the step before this node reached srun */
			struct spur_error err;
			json_t *k = json_pack("{s:s}", "type", "kill");

			spur_wire_send(fd, k, &err);
			json_decref(k);
		}
	}
}

/* -o/-e PATTERN for task rank on node (its index in the step): %t the
 * task, %n the node's index, %N its name, %j the job, %s the step, %J
 * job.step, %u the user, %% a %; as Slurm's srun expands them. */
static void expand(const struct relay *r, const char *pat, int rank, int node, char *out,
		   size_t len)
{
	const char *name = node >= 0 ? json_string_value(json_array_get(r->names, (size_t)node))
				     : NULL;
	size_t o = 0;

	for (const char *p = pat; *p && o + 1 < len; p++) {
		int n = 0;

		if (*p != '%' || !p[1]) {
			out[o++] = *p;
			continue;
		}
		switch (*++p) {
		case 't': n = snprintf(out + o, len - o, "%d", rank); break;
		case 'n': n = snprintf(out + o, len - o, "%d", node < 0 ? 0 : node); break;
		case 'N': n = snprintf(out + o, len - o, "%s", name ? name : ""); break;
		case 'j': n = snprintf(out + o, len - o, "%s", r->jobid); break;
		case 's': n = snprintf(out + o, len - o, "%d", r->step_id); break;
		case 'J': n = snprintf(out + o, len - o, "%s.%d", r->jobid, r->step_id); break;
		case 'u': { /* the user's name, as the system has it (not $USER) */
			struct passwd *pw = getpwuid(getuid());

			n = snprintf(out + o, len - o, "%s", pw ? pw->pw_name : "");
			break;
		}
		default: n = snprintf(out + o, len - o, "%c", *p); break;
		}
		o += n > 0 ? (size_t)n : 0;
	}
	out[o < len ? o : len - 1] = '\0';
}

/* The file (opened once, truncated) a task's output goes to; NULL: srun's. */
static FILE *out_file(struct relay *r, int fd, int rank, int node)
{
	const char *pat = fd == 2 ? (r->err_pat ? r->err_pat : r->out_pat) : r->out_pat;
	char name[1024];
	struct out_file *nf;

	if (!pat || !strcasecmp(pat, "all"))
		return NULL;
	if (!strcasecmp(pat, "none")) /* Slurm's: discarded */
		pat = "/dev/null";
	else if (*pat && strspn(pat, "0123456789") == strlen(pat)) {
		/* a task id: that task's output on srun's, the others' discarded */
		if (atoi(pat) == rank)
			return NULL;
		pat = "/dev/null";
	}
	expand(r, pat, rank, node, name, sizeof(name));
	for (int i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].name, name))
			return r->files[i].f;
	nf = realloc(r->files, (size_t)(r->nfiles + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	r->files = nf;
	snprintf(nf[r->nfiles].name, sizeof(nf[0].name), "%s", name);
	/* a file that cannot be opened is said once; its output comes here */
	if (!(nf[r->nfiles].f = fopen(name, r->append ? "a" : "w")))
		fprintf(stderr, "srun: error: %s: %s\n", name, strerror(errno));
	return nf[r->nfiles++].f;
}

static void relay_aborting(struct relay *r, const char *prog);

static void relay_msg(struct relay *r, int k, json_t *m)
{
	const char *type = spur_json_str(m, "type", "");
	int rank = (int)spur_json_int(m, "rank", 0);

	if (rank < 0 || rank >= r->total)
		rank = 0;
	if (!strcmp(type, "io") && spur_json_bool(m, "stepd", 0)) {
		/* slurmstepd's own line (a cancel, the limit): srun's stderr, unlabelled */
		fputs(spur_json_str(m, "data", ""), stderr);
		r->job_ended |= spur_json_bool(m, "job", 0);
		r->step_cancelled |= spur_json_bool(m, "cancel", 0) && !spur_json_bool(m, "job", 0);
		if (r->step_cancelled) /* scancel J.S: Slurm's srun says so, no "Force Terminated" */
			relay_aborting(r, r->prog);
		r->step_timeout |= spur_json_bool(m, "time_limit", 0) && !spur_json_bool(m, "job", 0);
	} else if (!strcmp(type, "io")) {
		FILE *f = out_file(r, (int)spur_json_int(m, "fd", 1), rank, r->node_of[k]);

		json_object_set_new(m, "rank", json_integer(rank));
		/* -l labels the lines in srun's files too, as Slurm's */
		cli_print_io(m, r->label, r->st, r->total, f);
	} else if (!strcmp(type, "hello")) {
		if (r->node_of[k] < 0)
			r->hellos++;
		r->node_of[k] = (int)spur_json_int(m, "node_index", -1);
	} else if (!strcmp(type, "fence")) {
		fence_add(&r->fences, m, r->expect, r->pfd + 1, r->nconn);
	} else if (!strcmp(type, "exit")) {
		int code = (int)spur_json_int(m, "code", 1);
		const char *node = r->node_of[k] >= 0
					   ? json_string_value(json_array_get(r->names, (size_t)r->node_of[k]))
					   : NULL;

		r->exited++;
		r->term_signal |= code == 128 + SIGKILL || code == 128 + SIGTERM;
		if (r->done)
			r->done[rank] = 1;
		if (!r->first_exit)
			r->first_exit = time(NULL);
		/* as Slurm's srun: a task that failed, by name */
		if (code > 128 && code < 128 + 65)
			fprintf(stderr, "srun: error: %s: task %d: %s\n", node ? node : "?", rank,
				strsignal(code - 128));
		else if (code)
			fprintf(stderr, "srun: error: %s: task %d: Exited with exit code %d\n",
				node ? node : "?", rank, code);
		if (code && r->kill_bad && !r->killed) {
			/* -K: the first bad exit ends the step */
			relay_send_all(r, json_pack("{s:s}", "type", "kill"));
			r->killed = true;
			r->rc = code;
		}
		if (code > r->rc && !r->killed)
			r->rc = code;
	}
}

static volatile sig_atomic_t winch;

static void on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

/* --pty: what is typed, and the window's size, go to task 0's node. */
static void relay_to_task0(struct relay *r, json_t *m)
{
	struct spur_error err;

	for (int k = 1; k <= r->nconn; k++)
		if (r->node_of[k] == 0 && r->pfd[k].fd >= 0)
			spur_wire_send(r->pfd[k].fd, m, &err);
	json_decref(m);
}

static void relay_stdin(struct relay *r)
{
	char buf[4096], hex[8193];
	ssize_t n = read(0, buf, sizeof(buf));

	if (n <= 0) {
		r->pfd[0].fd = -1; /* nothing more to type */
		if (!r->pty) /* the tasks' stdin ends too */
			relay_send_all(r, json_pack("{s:s}", "type", "stdin_eof"));
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)buf[i]);
	if (r->pty)
		relay_to_task0(r, json_pack("{s:s,s:s#}", "type", "stdin", "hex", hex, (size_t)(2 * n)));
	else /* every task gets a copy (Slurm's default --input=all), or one */
		relay_send_all(r, json_pack("{s:s,s:s#,s:i}", "type", "stdin", "hex", hex,
					    (size_t)(2 * n), "rank", r->in_rank));
}

/* The step's node (its index) that runs rank: -m block, cyclic (plane 1)
 * or plane=N, as the controller shares them out. */
static int rank_node_of(int rank, int total, int nn, int plane)
{
	int first = 0;

	if (nn <= 0)
		return 0;
	if (plane > 0)
		return (rank / plane) % nn;
	for (int k = 0; k < nn; k++) {
		int here = total / nn + (k < total % nn);

		if (rank < first + here)
			return k;
		first += here;
	}
	return nn - 1;
}

static int rank_node(const struct relay *r, int rank)
{
	return rank_node_of(rank, r->total, (int)json_array_size(r->names), r->plane);
}

/* -i PATTERN: each task's own file (the pattern expanded for it, as -o's)
 * sent to it whole, then its end; srun's own stdin goes to none. */
static void relay_input_files(struct relay *r)
{
	r->pfd[0].fd = -1;
	for (int rank = 0; rank < r->total; rank++) {
		char name[1024], buf[4096], hex[8193];
		int node = rank_node(r, rank);
		FILE *f;
		size_t n;

		expand(r, r->in_pat, rank, node, name, sizeof(name));
		if (!(f = fopen(name, "r")))
			fprintf(stderr, "srun: error: %s: %s\n", name, strerror(errno));
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
			for (size_t i = 0; i < n; i++)
				sprintf(hex + 2 * i, "%02x", (unsigned char)buf[i]);
			relay_send_all(r, json_pack("{s:s,s:s#,s:i}", "type", "stdin", "hex", hex,
						    2 * n, "rank", rank));
		}
		if (f)
			fclose(f);
		relay_send_all(r, json_pack("{s:s,s:i}", "type", "stdin_eof", "rank", rank));
	}
}

/* Every node is there: srun's stdin goes to the tasks (-i none: none of
 * it; -i N: to task N, the others' ends at once). */
static void relay_input_start(struct relay *r)
{
	if (r->in_pat) {
		relay_input_files(r);
		return;
	}
	if (r->in_none) {
		r->pfd[0].fd = -1;
		relay_send_all(r, json_pack("{s:s}", "type", "stdin_eof"));
		return;
	}
	if (r->in_rank >= 0)
		relay_send_all(r, json_pack("{s:s,s:i}", "type", "stdin_eof", "except", r->in_rank));
	r->pfd[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
}

static void relay_winsize(struct relay *r)
{
	struct winsize ws;

	winch = 0;
	if (!ioctl(0, TIOCGWINSZ, &ws))
		relay_to_task0(r, json_pack("{s:s,s:i,s:i}", "type", "winsize", "rows", ws.ws_row,
					    "cols", ws.ws_col));
}

/* --pty: once every node said which it is (so task 0's is known and no
 * key typed ahead is lost), srun's terminal goes raw and stdin takes the
 * listening socket's place in the poll set. */
static void relay_pty_start(struct relay *r)
{
	struct termios raw;

	r->pfd[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
	if (isatty(0) && !tcgetattr(0, &r->saved)) {
		raw = r->saved;
		cfmakeraw(&raw);
		r->raw = !tcsetattr(0, TCSANOW, &raw);
		signal(SIGWINCH, on_winch);
	}
}

/* Nodes that never connected: named, the step ended. */
static void relay_missing(struct relay *r, const char *prog, const char *jobid)
{
	char names[4096] = "";
	int missing = 0;

	for (int i = 0; i < r->expect; i++) {
		bool seen = false;

		for (int k = 1; k <= r->nconn && !seen; k++)
			seen = r->node_of[k] == i;
		if (seen)
			continue;
		if (missing++ < 16)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 *names ? "," : "",
				 json_string_value(json_array_get(r->names, (size_t)i))
					 ? json_string_value(json_array_get(r->names, (size_t)i))
					 : "?");
	}
	cli_error(prog, "job %s: %d of %d nodes never reached srun (%s%s): the step is ended", jobid,
		  missing, r->expect, names, missing > 16 ? ",..." : "");
	relay_send_all(r, json_pack("{s:s}", "type", "kill"));
	r->rc = r->rc ? r->rc : 1;
}

/* SIGINT without a second: Slurm's status of the step's tasks. */
static void relay_status(struct relay *r, const char *prog, const char *jobid)
{
	for (int pass = 0; pass < 2; pass++) {
		char ids[512];
		size_t o = 0;
		int n = 0;

		/* the ranks in this state as Slurm ranges them: 0,2-9 */
		for (int i = 0; i < r->total && o + 32 < sizeof(ids); i++) {
			int k = i;

			if (r->done && (r->done[i] != 0) != (pass == 1))
				continue;
			while (k + 1 < r->total && (!r->done || (r->done[k + 1] != 0) == (pass == 1)))
				k++;
			o += (size_t)(k > i ? snprintf(ids + o, sizeof(ids) - o, "%s%d-%d", o ? "," : "",
						       i, k)
					    : snprintf(ids + o, sizeof(ids) - o, "%s%d", o ? "," : "", i));
			n += k - i + 1;
			i = k;
		}
		if (n)
			fprintf(stderr, "%s: StepId=%s.%d task%s %s: %s\n", prog, jobid, r->step_id,
				n > 1 ? "s" : "", ids, pass ? "exited" : "running");
	}
}

/* The step is being ended: Slurm's line, once. */
static void relay_aborting(struct relay *r, const char *prog)
{
	if (r->aborted)
		return;
	r->aborted = true;
	fprintf(stderr, "%s: Job step aborted: Waiting up to %u seconds for job step to finish.\n",
		prog, cli_kill_wait() + 2);
}

/* The end Slurm's srun forces (SIGTERM, SIGHUP, SIGQUIT, a second SIGINT). */
static void relay_force_end(struct relay *r, const char *prog)
{
	fprintf(stderr, "%s: forcing job termination\n", prog);
	relay_send_all(r, json_pack("{s:s}", "type", "kill"));
	r->killed = true;
	relay_aborting(r, prog);
}

/* -W: the others had their seconds after the first task ended; Slurm's
 * lines, then the step ends (the killed tasks' codes count). */
static void relay_wait_over(struct relay *r, const char *prog, const char *jobid)
{
	fprintf(stderr, "%s: First task exited %ds ago\n", prog, r->wait_s);
	relay_status(r, prog, jobid);
	fprintf(stderr, "%s: launch/slurm: _step_signal: Terminating StepId=%s.%d\n", prog, jobid,
		r->step_id);
	relay_send_all(r, json_pack("{s:s}", "type", "kill"));
	relay_aborting(r, prog);
}

/* The signals srun caught since the last look (srunsig.c), as Slurm's srun. */
static void relay_signals(struct relay *r, const char *prog, const char *jobid)
{
	struct timespec now;
	bool within;
	int sig;

	while ((sig = srun_sig_take())) {
		switch (sig) {
		case SIGINT:
			clock_gettime(CLOCK_MONOTONIC, &now);
			within = r->last_intr.tv_sec &&
				 (now.tv_sec - r->last_intr.tv_sec) * 1000000000L +
						 (now.tv_nsec - r->last_intr.tv_nsec) <
					 1000000000L;
			if (r->quit_on_intr || r->no_status || within) {
				fprintf(stderr, "%s: sending Ctrl-C to StepId=%s.%d\n", prog, jobid,
					r->step_id);
				relay_send_all(r, json_pack("{s:s,s:i}", "type", "signal", "sig",
							    SIGINT));
				if (r->quit_on_intr || within)
					relay_force_end(r, prog);
			} else {
				fprintf(stderr, "%s: interrupt (one more within 1 sec to abort)\n",
					prog);
				relay_status(r, prog, jobid);
			}
			r->last_intr = now;
			break;
		case SIGQUIT:
			fprintf(stderr, "%s: Quit\n", prog);
			/* fall through */
		case SIGTERM:
		case SIGHUP:
			relay_force_end(r, prog);
			break;
		case SIGCONT:
			fprintf(stderr, "%s: got SIGCONT\n", prog);
			break;
		case SIGPIPE:
			if (!r->killed)
				relay_send_all(r, json_pack("{s:s}", "type", "kill"));
			r->killed = true;
			break;
		case SIGALRM:
			break; /* Slurm's -W timer; Spur's -W is the loop's */
		default: /* SIGUSR1, SIGUSR2: the tasks' */
			relay_send_all(r, json_pack("{s:s,s:i}", "type", "signal", "sig", sig));
			break;
		}
	}
}

static int relay(struct relay *r, const char *prog, const char *jobid)
{
	time_t start = time(NULL);
	bool complained = false;

	r->cap = 64;
	r->pfd = calloc((size_t)r->cap, sizeof(*r->pfd));
	r->rd = calloc((size_t)r->cap, sizeof(*r->rd));
	r->node_of = calloc((size_t)r->cap, sizeof(*r->node_of));
	r->st = calloc((size_t)r->total + 1, sizeof(*r->st));
	r->done = calloc((size_t)r->total + 1, 1);
	if (!r->pfd || !r->rd || !r->node_of || !r->st || !r->done) {
		cli_error(prog, "out of memory");
		r->rc = 1;
		goto out;
	}
	for (int i = 0; i <= r->total; i++)
		r->st[i].at_line_start[0] = r->st[i].at_line_start[1] = true;
	fcntl(r->lfd, F_SETFL, fcntl(r->lfd, F_GETFL) | O_NONBLOCK);
	r->pfd[0] = (struct pollfd){ .fd = r->lfd, .events = POLLIN };
	while (r->exited < r->total) {
		int ready = poll(r->pfd, (nfds_t)r->nconn + 1, 1000);

		if (ready < 0 && errno != EINTR)
			break;
		relay_signals(r, prog, jobid);
		if (ready < 0)
			continue;
		if (winch && r->raw)
			relay_winsize(r);
		if ((r->pfd[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) && r->pfd[0].fd == 0)
			relay_stdin(r);
		else if (r->pfd[0].revents & POLLIN)
			relay_accept(r);
		if (r->pty && r->pfd[0].fd == r->lfd && r->hellos >= r->expect)
			relay_pty_start(r);
		else if (!r->pty && r->pfd[0].fd == r->lfd && r->hellos >= r->expect)
			relay_input_start(r);
		for (int k = 1; k <= r->nconn; k++) {
			char buf[65536];
			ssize_t n;
			json_t *m;

			if (r->pfd[k].fd < 0 || !(r->pfd[k].revents & (POLLIN | POLLHUP)))
				continue;
			n = recv(r->pfd[k].fd, buf, sizeof(buf), 0);
			if (n <= 0) {
				close(r->pfd[k].fd);
				r->pfd[k].fd = -1;
				r->open_conns--;
				continue;
			}
			spur_wire_feed(&r->rd[k], buf, (size_t)n);
			while (spur_wire_next(&r->rd[k], &m, NULL) == 1) {
				relay_msg(r, k, m);
				json_decref(m);
			}
		}
		fflush(stdout);
		/* -W: the others had their seconds after the first task ended */
		if (r->wait_s && r->first_exit && !r->killed && !r->aborted &&
		    r->exited < r->total && time(NULL) - r->first_exit >= r->wait_s)
			relay_wait_over(r, prog, jobid);
		if (r->nconn < r->expect && !complained &&
		    time(NULL) - start >= (time_t)(RELAY_CONNECT_TIMEOUTS * cli_message_timeout())) {
			relay_missing(r, prog, jobid);
			complained = true;
			break;
		}
		/* every node connected and hung up without all exits: one went away */
		if (r->open_conns == 0 && r->nconn >= r->expect && r->exited < r->total) {
			cli_error(prog, "lost contact with tasks of job %s", jobid);
			r->rc = r->rc ? r->rc : 1;
			break;
		}
	}
	if (r->term_signal && !r->job_ended && !r->step_cancelled)
		fprintf(stderr, "%s: Force Terminated StepId=%s.%d\n", prog, jobid, r->step_id);
out:
	if (r->raw)
		tcsetattr(0, TCSANOW, &r->saved);
	for (int k = 1; k <= r->nconn; k++) {
		if (r->pfd[k].fd >= 0)
			close(r->pfd[k].fd);
		spur_wire_reader_fini(&r->rd[k]);
	}
	free(r->pfd);
	free(r->rd);
	free(r->node_of);
	free(r->st);
	free(r->done);
	for (int i = 0; i < r->nfiles; i++)
		if (r->files[i].f)
			fclose(r->files[i].f);
	free(r->files);
	for (int k = 0; k < FENCE_SLOTS; k++)
		free(r->fences.slot[k].hex);
	json_decref(r->names);
	return r->rc;
}

/* Ask for the step; while running steps hold what it needs, say so once
 * and ask again each second, as Slurm's srun does; --immediate gives up at
 * once (1) or after that many seconds since srun began. */
static json_t *create_step(const char *prog, const char *jobid, json_t *req, int immediate,
			   struct spur_error *err)
{
	time_t began = time(NULL);
	bool waited = false;
	json_t *reply;

	for (;;) {
		reply = cli_call(json_incref(req), err);
		if (reply || strcmp(err->msg, "Requested nodes are busy") || immediate == 1 ||
		    (immediate > 1 && time(NULL) - began >= immediate))
			break;
		if (!waited)
			fprintf(stderr, "%s: Job %s step creation temporarily disabled, retrying "
					"(Requested nodes are busy)\n", prog, jobid);
		waited = true;
		nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
	}
	if (reply && waited)
		fprintf(stderr, "%s: Step created for job %s\n", prog, jobid);
	json_decref(req);
	return reply;
}

/* The step's end, for sacct: COMPLETED, FAILED (a task's non-zero exit, a
 * node that never came), CANCELLED (srun forced it to end, scancel J.S) or
 * TIMEOUT (its srun -t limit). */
static void step_done(const char *jobid, const json_t *reply, const char *cmd, int rc,
		      const char *ended)
{
	const char *base = cmd && strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	struct spur_error err;
	json_t *ok = cli_call(json_pack("{s:s,s:i,s:I,s:s,s:s,s:i,s:I,s:I,s:I}", "type",
					"step_done", "job_id", atoi(jobid), "step_id",
					(json_int_t)spur_json_int(reply, "step_id", 0), "name",
					base ? base : "", "state",
					ended ? ended : !rc ? "COMPLETED" : "FAILED",
					"exit_code", rc, "start",
					(json_int_t)spur_json_int(reply, "start", 0), "nnodes",
					(json_int_t)spur_json_int(reply, "nnodes", 1), "ntasks",
					(json_int_t)spur_json_int(reply, "ntasks", 1)),
			      &err);

	json_decref(ok); /* the step ran either way: only its record is at stake */
}

/* The step's nodes, "a,b,c" (for -v). */
static const char *step_nodes(const json_t *reply)
{
	static char buf[4096];
	struct spur_hostlist *hl = spur_hostlist_create();
	char *ranged;
	size_t i;
	json_t *n;

	buf[0] = '\0';
	json_array_foreach(json_object_get(reply, "nodes"), i, n)
		if (hl && json_string_value(n))
			spur_hostlist_push(hl, json_string_value(n), NULL);
	ranged = hl ? spur_hostlist_ranged(hl, NULL) : NULL;
	snprintf(buf, sizeof(buf), "%s", ranged ? ranged : "");
	free(ranged);
	spur_hostlist_destroy(hl);
	return buf;
}

/* srun -v: the step's nodes, then Slurm's "launching StepId=J.S on host
 * NODE, N tasks: RANKS" for each node ("0", "[0-1]", "[0,2]" cyclic). */
/* Slurm's "cpu counts": each run of equal counts as C(xN), comma separated. */
static void cpu_counts(const json_t *cpus, char *cc, size_t len)
{
	size_t o = 0;

	cc[0] = '\0';
	for (size_t k = 0, run; k < json_array_size(cpus) && o + 32 < len; k += run) {
		json_int_t v = json_integer_value(json_array_get(cpus, k));

		for (run = 1; k + run < json_array_size(cpus) &&
			      json_integer_value(json_array_get(cpus, k + run)) == v;
		     run++)
			;
		o += (size_t)snprintf(cc + o, len - o, "%s%" JSON_INTEGER_FORMAT "(x%zu)",
				      k ? "," : "", v, run);
	}
}

static void say_launch(const char *prog, const char *jobid, const json_t *reply)
{
	const json_t *counts = json_object_get(reply, "tasks");
	size_t nn = json_array_size(json_object_get(reply, "nodes"));
	int plane = (int)spur_json_int(reply, "plane", 0), total = 0;
	char cc[512];

	for (size_t k = 0; k < json_array_size(counts); k++)
		total += (int)json_integer_value(json_array_get(counts, k));
	cpu_counts(json_object_get(reply, "cpus"), cc, sizeof(cc));
	fprintf(stderr, "%s: jobid %s: nodes(%d):`%s', cpu counts: %s\n", prog, jobid, (int)nn,
		step_nodes(reply), cc);
	for (size_t k = 0; k < nn && k < json_array_size(counts); k++) {
		size_t here = (size_t)json_integer_value(json_array_get(counts, k)), o = 0;
		char ranks[512];
		int run = -1; /* the first rank of the run of consecutive ones being written */

		/* the node's ranks, runs of consecutive ones as "a-b" */
		ranks[0] = '\0';
		for (int r = 0; r < total && o + 24 < sizeof(ranks); r++) {
			bool mine = rank_node_of(r, total, (int)nn, plane) == (int)k;
			bool next = r + 1 < total && rank_node_of(r + 1, total, (int)nn, plane) == (int)k;

			if (mine && run < 0) {
				o += (size_t)snprintf(ranks + o, sizeof(ranks) - o, "%s%d", o ? "," : "", r);
				run = r;
			}
			if (mine && !next) {
				if (r > run)
					o += (size_t)snprintf(ranks + o, sizeof(ranks) - o, "-%d", r);
				run = -1;
			}
		}
		fprintf(stderr, "%s: launching StepId=%s.%" JSON_INTEGER_FORMAT " on host %s, %zu tasks: %s%s%s\n",
			prog, jobid, (json_int_t)spur_json_int(reply, "step_id", 0),
			json_string_value(json_array_get(json_object_get(reply, "nodes"), k)), here,
			here > 1 ? "[" : "", ranks, here > 1 ? "]" : "");
	}
}

/* srun outside a job: the step options sbatch's parser kept aside. */
static json_t *kept; /* their strings, which the step options point into */
static char workdir[4096], export[8192];

static void drop_kept(void)
{
	json_decref(kept);
	kept = NULL;
}

static int outside_step_opts(const char *prog, json_t *job, struct step_opts *so)
{
	const json_t *a = json_object_get(job, "step_argv");
	char *argv[64 + 3];
	int n = 0, rc = 0, saved = optind;
	bool pty = so->pty;

	argv[n++] = "srun";
	for (size_t i = 0; i < json_array_size(a) && n < 64; i++)
		argv[n++] = (char *)json_string_value(json_array_get(a, i));
	argv[n++] = "true";
	argv[n] = NULL;
	if (n > 2) {
		optind = 1;
		rc = parse_step(prog, n, argv, so);
		optind = saved;
	}
	so->pty = pty;
	if (rc < 0) {
		json_object_del(job, "step_argv");
		return -1;
	}
	so->cpus_per_task = (int)spur_json_int(job, "cpus_per_task", 0);
	/* --export: the tasks' environment, as inside a job */
	if (json_is_string(json_object_get(job, "export"))) {
		snprintf(export, sizeof(export), "%s", spur_json_str(job, "export", ""));
		so->export = export;
	}
	/* -D: the allocation's folder is the tasks' too */
	snprintf(workdir, sizeof(workdir), "%s", spur_json_str(job, "workdir", ""));
	if (*workdir)
		so->chdir = workdir;
	so->gpus_per_task = (int)spur_json_int(job, "gpus_per_task", 0);
	/* so's strings point into it: it lives as long as srun */
	if (a && !kept) {
		kept = json_incref((json_t *)a);
		atexit(drop_kept);
	}
	json_object_del(job, "step_argv");
	return rc;
}

/* srun's per-step asks in the step request. */
static void step_request_opts(json_t *req, const struct step_opts *so)
{
	char host[256] = "";

	/* where srun runs (scontrol show step's SrunHost:Pid) */
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(req, "srun_host", json_string(host));
	json_object_set_new(req, "srun_pid", json_integer(getpid()));
	/* srun's limits its tasks may get (PropagateResourceLimits, --propagate) */
	json_object_set_new(req, "rlimits", cli_rlimits());
	if (so->propagate)
		json_object_set_new(req, "propagate", json_string(so->propagate));
	if (so->distribution)
		json_object_set_new(req, "distribution", json_string(so->distribution));
	if (so->plane)
		json_object_set_new(req, "plane", json_integer(so->plane));
	if (so->time_limit)
		json_object_set_new(req, "time_limit", json_integer((json_int_t)so->time_limit));
	if (so->mem_mb)
		json_object_set_new(req, "mem_mb", json_integer((json_int_t)so->mem_mb));
	if (so->mem_per_cpu_mb)
		json_object_set_new(req, "mem_per_cpu_mb", json_integer((json_int_t)so->mem_per_cpu_mb));
	/* -O, or the job's (SLURM_OVERCOMMIT, as Slurm's srun reads it) */
	if (so->overcommit || (getenv("SLURM_OVERCOMMIT") && atoi(getenv("SLURM_OVERCOMMIT"))))
		json_object_set_new(req, "overcommit", json_true());
	if (so->relative > 0)
		json_object_set_new(req, "relative", json_integer(so->relative));
	if (so->hint)
		json_object_set_new(req, "hint", json_string(so->hint));
	/* -E: the tasks get this srun's SLURM_NNODES and SLURM_NTASKS, not the step's */
	if (so->preserve_env)
		json_object_set_new(req, "preserve_env",
				    json_pack("{s:s?,s:s?}", "NNODES", getenv("SLURM_NNODES"), "NTASKS",
					      getenv("SLURM_NTASKS")));
	if (so->gpus_per_task)
		json_object_set_new(req, "gpus_per_task", json_integer(so->gpus_per_task));
	if (so->cpus_per_task)
		json_object_set_new(req, "cpus_per_task", json_integer(so->cpus_per_task));
	if (so->cpu_bind)
		json_object_set_new(req, "cpu_bind", json_string(so->cpu_bind));
	if (so->name)
		json_object_set_new(req, "name", json_string(so->name));
	if (so->mpi)
		json_object_set_new(req, "mpi", json_string(so->mpi));
	if (so->nodelist)
		json_object_set_new(req, "nodelist", json_string(so->nodelist));
	if (so->exclude)
		json_object_set_new(req, "exclude", json_string(so->exclude));
	if (so->gpus)
		json_object_set_new(req, "gpus", json_integer(so->gpus));
	if (so->gpus_per_node)
		json_object_set_new(req, "gpus_per_node", json_integer(so->gpus_per_node));
	if (so->exact)
		json_object_set_new(req, "exact", json_true());
	if (so->gpu_bind)
		json_object_set_new(req, "gpu_bind", json_string(so->gpu_bind));
	if (so->overlap)
		json_object_set_new(req, "overlap", json_true());
	if (so->mpmd) /* --multi-prog: each task's program is its line's */
		json_object_set_new(req, "multi_prog", json_string(so->mpmd));
	/* --task-prolog/--task-epilog: a relative path is srun's folder's */
	for (int k = 0; k < 2; k++) {
		const char *path = k ? so->task_epilog : so->task_prolog;
		char abs[4096], cwd[4096];

		if (!path)
			continue;
		if (*path != '/' && getcwd(cwd, sizeof(cwd)))
			snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
		else
			snprintf(abs, sizeof(abs), "%s", path);
		json_object_set_new(req, k ? "task_epilog" : "task_prolog", json_string(abs));
	}
	if (so->ctr && json_object_get(so->ctr, "container"))
		json_object_set(req, "container", json_object_get(so->ctr, "container"));
	if (so->pty) {
		struct winsize ws = { .ws_row = 24, .ws_col = 80 };

		/* task 0 gets a terminal of this one's size */
		if (isatty(0))
			ioctl(0, TIOCGWINSZ, &ws);
		json_object_set_new(req, "pty", json_true());
		json_object_set_new(req, "rows", json_integer(ws.ws_row));
		json_object_set_new(req, "cols", json_integer(ws.ws_col));
	}
}

/* The relay's state for a created step (reply) whose tasks connect to lfd. */
static void relay_init(struct relay *r, const char *prog, int lfd, const json_t *reply,
		       const struct step_opts *so, bool label, const char *jobid)
{
	memset(r, 0, sizeof(*r));
	r->lfd = lfd;
	r->total = (int)spur_json_int(reply, "ntasks", 1);
	r->expect = (int)spur_json_int(reply, "nnodes", 1); /* one connection per node */
	r->names = json_incref(json_object_get(reply, "nodes"));
	r->label = label;
	r->kill_bad = so->kill_bad;
	r->pty = so->pty;
	r->out_pat = so->output;
	r->err_pat = so->error;
	r->append = so->append;
	r->quit_on_intr = so->quit_on_intr;
	r->no_status = so->no_status;
	r->jobid = jobid;
	r->step_id = (int)spur_json_int(reply, "step_id", 0);
	r->wait_s = so->wait_s;
	r->plane = (int)spur_json_int(reply, "plane", 0);
	r->prog = prog;
	r->in_rank = -1;
	if (so->input && !strcmp(so->input, "none"))
		r->in_none = true;
	else if (so->input && *so->input && strspn(so->input, "0123456789") == strlen(so->input))
		r->in_rank = atoi(so->input);
	else if (so->input && strchr(so->input, '%'))
		r->in_pat = so->input; /* a file per task, sent at the start */
	else if (so->input && strcmp(so->input, "all")) { /* a file: the tasks' stdin */
		int fd = open(so->input, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || dup2(fd, 0) < 0) {
			cli_error(prog, "%s: %s", so->input, strerror(errno));
			r->in_none = true;
		}
		if (fd > 0)
			close(fd);
	}
	/* -o/-e files exist from the start, as Slurm's (a task may print nothing) */
	for (int rank = 0; (r->out_pat || r->err_pat) && rank < r->total; rank++) {
		if (r->out_pat)
			out_file(r, 1, rank, rank_node(r, rank));
		if (r->err_pat)
			out_file(r, 2, rank, rank_node(r, rank));
	}
}

/* srun's end: what its options hold freed, rc returned. */
/* The sum of a per-node list as Slurm writes it ("32(x2),21"). */
static int per_node_sum(const char *s)
{
	long sum = 0;

	for (const char *p = s ? s : ""; *p && sum < 1000000;) {
		char *end;
		long v = strtol(p, &end, 10), times = 1;

		if (end == p)
			break;
		if (!strncmp(end, "(x", 2))
			times = strtol(end + 2, &end, 10), end += *end == ')';
		sum += v * times;
		p = end + (*end == ',');
	}
	return (int)sum;
}

static int srun_end(struct step_opts *so, int rc)
{
	json_decref(so->ctr);
	so->ctr = NULL;
	free(so->mpmd);
	so->mpmd = NULL;
	return rc;
}

/* --multi-prog FILE: its text into so->mpmd (Slurm's srun sends it whole,
 * up to 60,000 bytes), checked for *ntasks tasks (0: none asked, when the
 * job's SLURM_NTASKS holds, or else the file's ranks say, at least one per
 * node), as Slurm's srun does. 0, or 1 (said, in Slurm's words). */
static int mpmd_load(const char *prog, struct step_opts *so, const char *fname, int nodes,
		     int *ntasks)
{
	int n = *ntasks ? *ntasks : getenv("SLURM_NTASKS") ? atoi(getenv("SLURM_NTASKS")) : 0;
	bool set = n > 0;
	int fd = open(fname, O_RDONLY | O_CLOEXEC);
	struct spur_error e;
	struct stat sb;
	ssize_t got = 0, r;
	json_t *text;

	if (fd < 0) {
		cli_error(prog, "Could not open multi_prog config file %s", fname);
		return 1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		cli_error(prog, "Could not stat multi_prog config file %s", fname);
		goto fail;
	}
	if (sb.st_size > SPUR_MPMD_MAX) {
		cli_error(prog, "Multi_prog config file %s is too large", fname);
		goto fail;
	}
	if (!(so->mpmd = calloc(1, (size_t)sb.st_size + 1)))
		goto fail;
	while (got < sb.st_size && (r = read(fd, so->mpmd + got, (size_t)(sb.st_size - got))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error(prog, "Error reading multi_prog config file %s", fname);
			goto fail;
		}
		got += r;
	}
	close(fd);
	fd = -1;
	text = json_string(so->mpmd); /* sent as a JSON string: UTF-8 */
	if (strlen(so->mpmd) != (size_t)got || !text) {
		json_decref(text);
		cli_error(prog, "Multi_prog config file %s is not text", fname);
		goto fail;
	}
	json_decref(text);
	if (!set)
		n = nodes > 0 ? nodes : 1;
	if (spur_mpmd_check(so->mpmd, fname, &n, set, &e)) {
		for (char *l = e.msg, *nl; l; l = nl) {
			if ((nl = strchr(l, '\n')))
				*nl++ = '\0';
			cli_error(prog, "%s", l);
		}
		goto fail;
	}
	*ntasks = n;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(so->mpmd);
	so->mpmd = NULL;
	return 1;
}

/* srun outside a job: the step's options taken out of the allocation's
 * (checked by srun's step parser; the job's -c and --gpus-per-task hold
 * for its tasks too). 0 to go on; else 1 + the exit code (said): a bad
 * option, --mpi=list, no command, --test-only. */
static int outside_prepare(const char *prog, json_t *job, bool command, struct step_opts *so,
			   bool *label)
{
	int rc;

	*label = spur_json_bool(job, "label", 0);
	so->pty = spur_json_bool(job, "pty", 0);
	so->verbose = (int)spur_json_int(job, "verbose", 0);
	json_object_del(job, "label");
	json_object_del(job, "pty");
	json_object_del(job, "verbose");
	if (json_object_get(job, "container")) { /* the step's, not the allocation's */
		so->ctr = json_pack("{s:O}", "container", json_object_get(job, "container"));
		json_object_del(job, "container");
	}
	if ((rc = outside_step_opts(prog, job, so)) != 0)
		return 1 + (rc < 0 ? 0 : rc); /* --mpi=list: said, done */
	if (!command) {
		cli_error(prog, "No command given to execute.");
		return 2;
	}
	if (spur_json_bool(job, "test_only", 0)) /* said when; nothing runs */
		return 1 + cli_will_run(prog, job);
	return 0;
}

/* What srun outside a job gets from its own allocation. */
struct outside {
	struct step_opts *so;
	bool *label;
	int nodes, ntasks, alloc_fd;
	uint32_t alloc_id;
};

/* srun outside a job: sbatch's options (and -l) make an allocation, whose
 * variables srun takes. The command's index, or -1 with *rc the exit code
 * (said). */
static int outside_allocate(const char *prog, int pargc, char **pargv, struct outside *o, int *rc)
{
	json_t *job = json_object(), *aenv;
	int first = cli_job_parse(job, pargc, pargv);
	bool fill;

	o->alloc_fd = -1;
	if (first < 0) {
		json_decref(job);
		*rc = first == CLI_JOB_PARSE_DONE ? 0 : -first;
		return -1;
	}
	if ((*rc = outside_prepare(prog, job, first < pargc, o->so, o->label))) {
		json_decref(job);
		*rc -= 1;
		return -1;
	}
	o->nodes = (int)spur_json_int(job, "nodes", 0);
	o->ntasks = (int)spur_json_int(job, "ntasks", 0);
	/* --exclusive -c N and no -n: as many tasks as the nodes hold */
	fill = !o->ntasks && spur_json_bool(job, "exclusive", 0) &&
	       spur_json_int(job, "cpus_per_task", 0) > 0;
	/* --multi-prog: the file may say how many tasks to allocate for */
	if (o->so->multi_prog && mpmd_load(prog, o->so, pargv[first], o->nodes, &o->ntasks)) {
		json_decref(job);
		*rc = 1;
		return -1;
	}
	if (o->so->multi_prog)
		json_object_set_new(job, "ntasks", json_integer(o->ntasks));
	if (!json_object_get(job, "name")) {
		const char *base = strrchr(pargv[first], '/');

		json_object_set_new(job, "name", json_string(base ? base + 1 : pargv[first]));
	}
	aenv = cli_allocate(prog, job, &o->alloc_fd, &o->alloc_id, rc);
	if (!aenv)
		return -1;
	cli_setenv_all(aenv);
	json_decref(aenv);
	if (fill)
		o->ntasks = per_node_sum(getenv("SLURM_TASKS_PER_NODE"));
	return first;
}

int cli_srun_main(const char *prog, int argc, char **argv)
{
	const char *jobid = getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : getenv("SPUR_JOB_ID");
	int nodes = 0, ntasks = 0, per_node = 0, lfd, rc = 0;
	struct step_opts so = { 0 };
	struct relay r;
	bool label = false;
	struct sockaddr_in sa = { 0 };
	socklen_t sl = sizeof(sa);
	struct spur_error err;
	json_t *req, *reply, *args, *env;
	char cwd[4096], *pargv[256 + 1];
	int pargc, alloc_fd = -1;
	struct cli_watch *watch;
	uint32_t alloc_id = 0;
	char idbuf[16];

	pargc = cli_getopt_argv("srun", argc, argv, pargv, 256);
	if (getenv("SLURM_HOSTFILE") && *getenv("SLURM_HOSTFILE")) {
		/* Slurm's srun lays the tasks out by that file (-m arbitrary) */
		cli_error(prog, "SLURM_HOSTFILE (--distribution=arbitrary) is not supported by Spur");
		return srun_end(&so, 1);
	}
	if (jobid_opt(pargc, pargv))
		jobid = jobid_opt(pargc, pargv);
	if (jobid && !*jobid) {
		cli_error(prog, "--jobid: a job id (digits) is needed");
		return srun_end(&so, 1);
	}
	if (!jobid) {
		/* outside a job: sbatch's options (and -l) make an allocation */
		struct outside o = { .so = &so, .label = &label };
		int first = outside_allocate(prog, pargc, pargv, &o, &rc);

		if (first < 0)
			return srun_end(&so, rc);
		nodes = o.nodes;
		ntasks = o.ntasks;
		alloc_fd = o.alloc_fd;
		alloc_id = o.alloc_id;
		snprintf(idbuf, sizeof(idbuf), "%u", alloc_id);
		jobid = idbuf;
		optind = first;
		goto have_command;
	}
	rc = parse_step(prog, pargc, pargv, &so);
	if (!rc && so.ctr)
		rc = cli_container_check(prog, so.ctr);
	if (rc)
		return srun_end(&so, rc < 0 ? 0 : rc);
	/* salloc's container options hold for the steps of its allocation */
	if (!so.ctr && getenv("SPUR_CONTAINER")) {
		json_t *c = json_loads(getenv("SPUR_CONTAINER"), 0, NULL);

		if (json_is_object(c))
			so.ctr = json_pack("{s:o}", "container", c);
		else
			json_decref(c);
	}
	nodes = so.nodes;
	ntasks = so.ntasks;
	per_node = so.per_node;
	label = so.label;
	if (optind >= pargc) {
		cli_error(prog, "No command given to execute.");
		return srun_end(&so, 1);
	}
have_command:
	if (per_node && !ntasks)
		ntasks = per_node * (nodes ? nodes : atoi(getenv("SLURM_JOB_NUM_NODES")
							  ? getenv("SLURM_JOB_NUM_NODES")
							  : "1"));
	if (so.multi_prog && !so.mpmd && mpmd_load(prog, &so, pargv[optind], nodes, &ntasks)) {
		if (alloc_fd >= 0)
			cli_release(prog, alloc_fd, alloc_id, 1);
		return srun_end(&so, 1);
	}
	/* where the agents send the tasks' output */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	/* every node of the step connects at once: room for them all */
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, SOMAXCONN) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl)) {
		cli_error(prog, "cannot open a port for the tasks' output");
		return srun_end(&so, 1);
	}
	args = json_array();
	for (int k = optind; k < pargc; k++)
		json_array_append_new(args, json_string(pargv[k]));
	env = cli_export_env(so.export ? so.export : getenv("SLURM_EXPORT_ENV"));
	if (so.chdir && *so.chdir == '/')
		snprintf(cwd, sizeof(cwd), "%s", so.chdir);
	else if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/tmp");
	else if (so.chdir) /* relative: to the current folder */
		snprintf(cwd + strlen(cwd), sizeof(cwd) - strlen(cwd), "/%s", so.chdir);
	req = json_pack("{s:s,s:i,s:o,s:i,s:i,s:o,s:s,s:i}", "type", "step", "job_id", atoi(jobid),
			"argv", args, "ntasks", ntasks, "nodes", nodes, "env", env, "cwd", cwd,
			"io_port", (int)ntohs(sa.sin_port));
	step_request_opts(req, &so);
	reply = create_step(prog, jobid, req, so.immediate, &err);
	if (!reply) {
		cli_error(prog, "Unable to create step for job %s: %s", jobid, err.msg);
		close(lfd);
		if (alloc_fd >= 0)
			cli_release(prog, alloc_fd, alloc_id, 1);
		return srun_end(&so, 1);
	}
	if (so.verbose) /* as Slurm's srun -v */
		say_launch(prog, jobid, reply);
	relay_init(&r, prog, lfd, reply, &so, label, jobid);
	watch = alloc_fd >= 0 ? cli_watch_start(prog, alloc_fd) : NULL;
	srun_sig_install();
	rc = relay(&r, prog, jobid);
	srun_sig_restore();
	cli_watch_stop(watch);
	/* ended by a signal to srun (scancel's SIGTERM): CANCELLED, as Slurm */
	step_done(jobid, reply, so.name ? so.name : pargv[optind], rc,
		  r.aborted || r.step_cancelled ? "CANCELLED" : r.step_timeout ? "TIMEOUT" : NULL);
	json_decref(reply);
	close(lfd);
	if (alloc_fd >= 0)
		cli_release(prog, alloc_fd, alloc_id, rc);
	return srun_end(&so, rc);
}
