/* SPDX-License-Identifier: Apache-2.0 */
/* srun: run a command as tasks over a job's nodes; their output and exit
 * codes come back here over TCP. Inside a job it is a step of that job;
 * outside, it first asks for an interactive allocation (salloc.c), runs the
 * step in it, and gives it up with the step's exit code. */
#include "client.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

#define MAX_CONN 1024

struct out_state {
	bool at_line_start[2];
};

static void print_io(const json_t *m, bool label, struct out_state *st, int ntasks)
{
	int fd = (int)spur_json_int(m, "fd", 1);
	int rank = (int)spur_json_int(m, "rank", 0);
	const char *data = spur_json_str(m, "data", "");
	size_t len = json_string_length(json_object_get(m, "data"));
	FILE *out = fd == 2 ? stderr : stdout;

	if (!label) {
		fwrite(data, 1, len, out);
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
	int nodes, ntasks, per_node, cpus_per_task, gpus_per_task;
	bool label, kill_bad;
	const char *name, *chdir, *export, *cpu_bind, *mpi, *nodelist, *exclude;
};

/* A Slurm srun option Spur does not do yet: refused by name (never taken
 * and dropped). */
static int not_supported(const char *prog, const char *opt)
{
	cli_error(prog, "%s is not supported inside a job by this version of Spur", opt);
	return 1;
}

/* srun's options inside a job: 0, or the exit code. */
static int parse_step(const char *prog, int argc, char **argv, struct step_opts *o)
{
	enum { O_PER_NODE = 1000, O_GPT, O_CPU_BIND, O_EXPORT, O_MPI, O_OVERLAP, O_UNBUF, O_KILL,
	       O_NO };
	static const struct option opts[] = {
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
		{ "unbuffered", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		/* Slurm's, refused by name below */
		{ "gres", required_argument, NULL, O_NO }, { "gpus", required_argument, NULL, O_NO },
		{ "gpus-per-node", required_argument, NULL, O_NO },
		{ "gpu-bind", required_argument, NULL, O_NO },
		{ "distribution", required_argument, NULL, O_NO },
		{ "kill-on-bad-exit", optional_argument, NULL, O_KILL },
		{ "exact", no_argument, NULL, O_NO }, { "nodelist", required_argument, NULL, 'w' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "multi-prog", no_argument, NULL, O_NO }, { "wait", required_argument, NULL, O_NO },
		{ "output", required_argument, NULL, O_NO }, { "error", required_argument, NULL, O_NO },
		{ "input", required_argument, NULL, O_NO }, { "pty", no_argument, NULL, O_NO },
		{ "het-group", required_argument, NULL, O_NO }, { "mem", required_argument, NULL, O_NO },
		{ "mem-per-cpu", required_argument, NULL, O_NO },
		{ "mem-per-gpu", required_argument, NULL, O_NO },
		{ NULL, 0, NULL, 0 },
	};
	int opt, idx = -1;

	while ((opt = getopt_long(argc, argv, "+N:n:lJ:c:D:uhG:m:KW:w:x:o:e:i:", opts, &idx)) != -1) {
		switch (opt) {
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
		case O_KILL: o->kill_bad = !optarg || strcmp(optarg, "0"); break;
		case O_GPT:
			o->gpus_per_task = atoi(strchr(optarg, ':') ? strrchr(optarg, ':') + 1 : optarg);
			if (o->gpus_per_task <= 0) {
				cli_error(prog, "Invalid --gpus-per-task specification: %s", optarg);
				return 1;
			}
			break;
		case O_CPU_BIND: {
			/* none, or one CPU set per task (cores, threads, sockets:
			 * the job's CPUs shared out in order); verbose is Slurm's
			 * report line, which is not printed */
			static const char *const ok[] = { "none", "no", "cores", "threads", "sockets",
							  "ldoms", "rank" };
			bool known = false;

			for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
				known |= !strcmp(optarg, ok[k]);
			if (!known)
				return not_supported(prog, "--cpu-bind other than none, cores, threads, "
							   "sockets, ldoms or rank");
			o->cpu_bind = optarg;
			break;
		}
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
		case O_OVERLAP: break; /* steps share the job's resources: they overlap */
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

			snprintf(name, sizeof(name), "-%c", opt);
			return not_supported(prog, name);
		}
		}
		idx = -1;
	}
	return 0;
}

/* --export: ALL (the default), NONE, [ALL|NONE,]VAR[=VALUE],... as sbatch:
 * NONE keeps only the variables named (and Slurm's own). */
static json_t *step_env(const char *export)
{
	json_t *env = json_object();
	char *copy = export ? strdup(export) : NULL, *save;
	bool all = true;

	if (copy && (!strncmp(copy, "NONE", 4) || !strncmp(copy, "NIL", 3)))
		all = false;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char key[256];

		if (!eq || (size_t)(eq - *e) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		if (all || !strncmp(key, "SLURM_", 6) || !strncmp(key, "SPUR_", 5))
			json_object_set_new(env, key, json_string(eq + 1));
	}
	for (char *v = copy ? strtok_r(copy, ",", &save) : NULL; v; v = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(v, '=');

		if (!strcmp(v, "ALL") || !strcmp(v, "NONE") || !strcmp(v, "NIL"))
			continue;
		if (eq) {
			*eq = '\0';
			json_object_set_new(env, v, json_string(eq + 1));
		} else if (getenv(v)) {
			json_object_set_new(env, v, json_string(getenv(v)));
		}
	}
	free(copy);
	return env;
}

int cli_srun_main(const char *prog, int argc, char **argv)
{
	const char *jobid = getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : getenv("SPUR_JOB_ID");
	int nodes = 0, ntasks = 0, per_node = 0, lfd, fd, rc = 0, exited = 0, total;
	struct step_opts so = { 0 };
	struct fences fences = { 0 };
	bool killed = false;
	bool label = false;
	struct sockaddr_in sa = { 0 };
	socklen_t sl = sizeof(sa);
	struct pollfd pfd[MAX_CONN + 1];
	struct spur_wire_reader rd[MAX_CONN + 1];
	struct out_state *st;
	int nconn = 0, open_conns = 0, expect;
	struct spur_error err;
	json_t *req, *reply, *args, *env;
	char cwd[4096], *pargv[256 + 1];
	int pargc, alloc_fd = -1;
	uint32_t alloc_id = 0;
	char idbuf[16];

	pargc = cli_getopt_argv("srun", argc, argv, pargv, 256);
	if (!jobid) {
		/* outside a job: sbatch's options (and -l) make an allocation */
		json_t *job = json_object(), *aenv;
		int first = cli_job_parse(job, pargc, pargv);

		if (first < 0) {
			json_decref(job);
			return -first;
		}
		if (first >= pargc) {
			json_decref(job);
			cli_error(prog, "No command given to execute.");
			return 1;
		}
		label = spur_json_bool(job, "label", 0);
		json_object_del(job, "label");
		nodes = (int)spur_json_int(job, "nodes", 0);
		ntasks = (int)spur_json_int(job, "ntasks", 0);
		if (!json_object_get(job, "name")) {
			const char *base = strrchr(pargv[first], '/');

			json_object_set_new(job, "name", json_string(base ? base + 1 : pargv[first]));
		}
		aenv = cli_allocate(prog, job, &alloc_fd, &alloc_id);
		if (!aenv)
			return 1;
		cli_setenv_all(aenv);
		json_decref(aenv);
		snprintf(idbuf, sizeof(idbuf), "%u", alloc_id);
		jobid = idbuf;
		optind = first;
		goto have_command;
	}
	rc = parse_step(prog, pargc, pargv, &so);
	if (rc)
		return rc < 0 ? 0 : rc;
	nodes = so.nodes;
	ntasks = so.ntasks;
	per_node = so.per_node;
	label = so.label;
	if (optind >= pargc) {
		cli_error(prog, "No command given to execute.");
		return 1;
	}
have_command:
	if (per_node && !ntasks)
		ntasks = per_node * (nodes ? nodes : atoi(getenv("SLURM_JOB_NUM_NODES")
							  ? getenv("SLURM_JOB_NUM_NODES")
							  : "1"));
	/* where the agents send the tasks' output */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 128) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl)) {
		cli_error(prog, "cannot open a port for the tasks' output");
		return 1;
	}
	args = json_array();
	for (int k = optind; k < pargc; k++)
		json_array_append_new(args, json_string(pargv[k]));
	env = step_env(so.export);
	if (so.chdir && *so.chdir == '/')
		snprintf(cwd, sizeof(cwd), "%s", so.chdir);
	else if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/tmp");
	else if (so.chdir) /* relative: to the current folder */
		snprintf(cwd + strlen(cwd), sizeof(cwd) - strlen(cwd), "/%s", so.chdir);
	req = json_pack("{s:s,s:i,s:o,s:i,s:i,s:o,s:s,s:i}", "type", "step", "job_id", atoi(jobid),
			"argv", args, "ntasks", ntasks, "nodes", nodes, "env", env, "cwd", cwd,
			"io_port", (int)ntohs(sa.sin_port));
	if (so.gpus_per_task)
		json_object_set_new(req, "gpus_per_task", json_integer(so.gpus_per_task));
	if (so.cpus_per_task)
		json_object_set_new(req, "cpus_per_task", json_integer(so.cpus_per_task));
	if (so.cpu_bind)
		json_object_set_new(req, "cpu_bind", json_string(so.cpu_bind));
	if (so.name)
		json_object_set_new(req, "name", json_string(so.name));
	if (so.mpi)
		json_object_set_new(req, "mpi", json_string(so.mpi));
	if (so.nodelist)
		json_object_set_new(req, "nodelist", json_string(so.nodelist));
	if (so.exclude)
		json_object_set_new(req, "exclude", json_string(so.exclude));
	reply = cli_call(req, &err);
	if (!reply) {
		cli_error(prog, "Unable to create step for job %s: %s", jobid, err.msg);
		close(lfd);
		if (alloc_fd >= 0)
			cli_release(prog, alloc_fd, alloc_id, 1);
		return 1;
	}
	total = (int)spur_json_int(reply, "ntasks", 1);
	expect = (int)spur_json_int(reply, "nnodes", 1); /* one connection per node */
	json_decref(reply);
	st = calloc((size_t)total + 1, sizeof(*st));
	for (int r = 0; r <= total; r++)
		st[r].at_line_start[0] = st[r].at_line_start[1] = true;
	pfd[0].fd = lfd;
	pfd[0].events = POLLIN;
	while (exited < total) {
		if (poll(pfd, (nfds_t)nconn + 1, -1) < 0)
			break;
		if ((pfd[0].revents & POLLIN) && nconn < MAX_CONN &&
		    (fd = accept(lfd, NULL, NULL)) >= 0) {
			nconn++;
			open_conns++;
			pfd[nconn].fd = fd;
			pfd[nconn].events = POLLIN;
			spur_wire_reader_init(&rd[nconn]);
			rd[nconn].max = SPUR_WIRE_MAX_REPLY;
		}
		for (int k = 1; k <= nconn; k++) {
			char buf[65536];
			ssize_t n;
			json_t *m;

			if (pfd[k].fd < 0 || !(pfd[k].revents & (POLLIN | POLLHUP)))
				continue;
			n = recv(pfd[k].fd, buf, sizeof(buf), 0);
			if (n <= 0) {
				close(pfd[k].fd);
				pfd[k].fd = -1;
				open_conns--;
				continue;
			}
			spur_wire_feed(&rd[k], buf, (size_t)n);
			while (spur_wire_next(&rd[k], &m, NULL) == 1) {
				const char *type = spur_json_str(m, "type", "");
				int rank = (int)spur_json_int(m, "rank", 0);

				if (rank < 0 || rank >= total)
					rank = 0;
				if (!strcmp(type, "io")) {
					json_object_set_new(m, "rank", json_integer(rank));
					print_io(m, label, st, total);
				} else if (!strcmp(type, "fence")) {
					fence_add(&fences, m, expect, pfd + 1, nconn);
				} else if (!strcmp(type, "exit")) {
					int code = (int)spur_json_int(m, "code", 1);

					exited++;
					if (code && so.kill_bad && !killed) {
						/* -K: the first bad exit ends the step */
						json_t *stop = json_pack("{s:s}", "type", "kill");

						for (int c = 1; c <= nconn; c++)
							if (pfd[c].fd >= 0)
								spur_wire_send(pfd[c].fd, stop, &err);
						json_decref(stop);
						killed = true;
						rc = code;
					}
					if (code > rc && !killed)
						rc = code;
				}
				json_decref(m);
			}
		}
		fflush(stdout);
		/* every node connected and hung up without all exits: one went away */
		if (open_conns == 0 && nconn >= expect && exited < total) {
			cli_error(prog, "lost contact with tasks of job %s", jobid);
			rc = rc ? rc : 1;
			break;
		}
	}
	for (int k = 1; k <= nconn; k++) {
		if (pfd[k].fd >= 0)
			close(pfd[k].fd);
		spur_wire_reader_fini(&rd[k]);
	}
	close(lfd);
	free(st);
	for (int k = 0; k < FENCE_SLOTS; k++)
		free(fences.slot[k].hex);
	if (alloc_fd >= 0)
		cli_release(prog, alloc_fd, alloc_id, rc);
	return rc;
}
