/* SPDX-License-Identifier: Apache-2.0 */
/* spurd: the node agent. Registers its node with spurctld, runs the batch
 * scripts it is sent in their own process group, enforces time limits,
 * forwards signals and reports how each job ended. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np, POSIX_SPAWN_SETSID */
#include "agent/cgroup.h"
#include "agent/cpuset.h"
#include "agent/container.h"
#include "agent/exec.h"
#include "agent/healthcheck.h"
#include "agent/pmi_simple.h"
#include "agent/pmix_host.h"
#include "agent/attach.h"
#include "agent/spool.h"
#include "agent/supervise.h"
#include "common/auth.h"
#include "common/jobspec.h"
#include "common/alloc.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/mpmd.h"
#include "common/wire.h"
#include "devices/gpu.h"
#include "io/uvwire.h"

#include <dirent.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pty.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

/* A batch job, run by its supervisor (supervise.c): one this agent spawned
 * (proc) or, after an agent restart, one it found still running (adopted). */
struct job {
	uint32_t id, run; /* run: which start of the job (a requeue starts it again) */
	uv_poll_t proc; /* a pidfd of the supervisor we started: readable at its exit */
	int pidfd;
	long sup, pgid; /* the supervisor; the job's process group, once known */
	bool running, adopted;
	char cpus[256]; /* its cpuset, "" when none */
	uint16_t share; /* OverSubscribe: how many ways it shares them (1: not) */
	struct agent *a;
	struct job *next;
};

#define AGENT_MAX_CTLDS 8
#define AGENT_SILENCE_MS 3000 /* no word from the controller: find another */

struct agent {
	uv_signal_t sterm, sint; /* SIGTERM, SIGINT: stop (jobs run on) */
	uv_loop_t *loop;
	const char *node, *spool;
	struct spurd_spool pool; /* the job folders in spool */
	struct spur_hostport ctl[AGENT_MAX_CTLDS]; /* the controllers, tried in turn */
	size_t nctl, cur; /* ctl[cur]: the one connected or being tried */
	uint64_t heard;	 /* loop time of the last message (or of the connect) */
	uint64_t load_sent; /* loop time of the last node_load */
	uint64_t silence_ms; /* no word for this long: the controller is given up */
	bool connecting; /* a connect is in flight since heard */
	uv_timer_t alive;
	uint32_t cpus;
	uint64_t mem_mb;
	struct spur_gpu_set gpus;
	uv_tcp_t tcp;
	uv_connect_t conn_req;
	uv_timer_t retry;
	bool connected;
	struct spur_wire_reader rd;
	struct job *jobs;
	uv_timer_t watch; /* looks after adopted jobs */
	struct spurd_cgroup cg;
	unsigned host_cpus;
	uint8_t cpu_used[1024]; /* per host CPU: jobs' cpusets (cpuset.h's counts) */
	int kill_wait;
	struct step_warn *warns; /* --signal timers for steps */
	json_t *unsent; /* "finished" reports the controller has not acknowledged */
	const char *gpu_arg;  /* the GPU backend's argument, for its health check */
	char *prolog, *epilog; /* Prolog, Epilog of slurm.conf (NULL: none) */
	struct spurd_healthcheck hc;
	char *health_program; /* HealthCheckProgram (NULL: none) */
	char *task_prolog, *task_epilog; /* TaskProlog, TaskEpilog (NULL: none) */
	unsigned health_interval, health_states;
	char health_why[300]; /* the last failed HealthCheckProgram run, told at registration */
	char cluster[128];
	uint32_t gpu_failed;  /* GPUs found failed (bit i: GPU i); it sticks */
	char gpu_why[128];
	uv_timer_t health;
	uv_timer_t sweep; /* job cgroups no live job owns: removed (spurd_cgroup_sweep) */
	char key_path[4096];
	struct spur_auth_key key; /* the cluster key: tokens both ways */
	bool have_key;
	bool trusted; /* this connection's controller proved it holds the key */
	struct spurd_ctr_node ctr; /* CDI devices, runtime, image store: container jobs */
};

static void send_msg(struct agent *a, json_t *msg);
static void try_connect(struct agent *a);
static void disconnect(struct agent *a);

/* ---------------------------------------------------------------- steps */

struct step;

struct task {
	uv_poll_t exitw; /* its pidfd: readable when it exits */
	int pidfd;
	pid_t pid;
	uv_pipe_t out[2]; /* stdout (with --pty, the terminal's master side), stderr */
	uv_pipe_t in;	  /* its stdin: srun's, passed on (not with --pty) */
	bool has_in, in_done;
	uv_shutdown_t in_end;
	bool pty;
	bool ctr; /* run by the OCI executor: pid is its shim (oci.h) */
	int rank, open_pipes, code;
	bool exited;
	struct step *st;
};

/* A job whose first node is another: its cgroups here, made for its
 * steps' tasks from what it holds on this node, gone with its last step. */
struct remote {
	uint32_t id, run;
	unsigned steps;
	char cpus[1024];
	uint16_t share;
	struct remote *next;
};

/* One srun step's tasks on this node; their output goes to srun over io. */
struct step {
	struct agent *a;
	uint32_t job_id, step_id;
	uint32_t cg_run; /* its job's run, where it has a devices folder of its own */
	struct remote *remote; /* its job's cgroups here, when this is not its first node */
	json_t *msg; /* the request, until io is connected */
	uv_tcp_t io;
	uv_shutdown_t io_end; /* the tasks are done: our side of io ends */
	bool io_ending, io_read_done; /* shut down; srun's side ended (EOF) */
	uv_connect_t creq;
	struct task *tasks;
	size_t ntasks, live;
	struct spurd_pmix_step *pmix; /* srun --mpi=pmix: the step's namespace */
	struct spurd_pmi_step *pmi;   /* srun --mpi=pmi2: its PMI-1 wire server */
	struct spur_wire_reader rd;   /* srun's answers (fences) */
	struct spurd_attach_set attached; /* sattach's connections */
	uv_timer_t *limit;		  /* srun -t: its own time limit (its data: this step) */
	bool limit_struck;		  /* past it: SIGTERM sent, SIGKILL after KillWait */
	uint64_t started_ms;		  /* its tasks' start, on the loop's clock */
	struct step *next;
};

static struct step *steps;
static char ctld_list[AGENT_MAX_CTLDS * 264] = "127.0.0.1:6817"; /* SPUR_CTLD in jobs */

static char **build_env(const json_t *m, const char *node);
static void free_env(char **v);
static void put_task_env(json_t *env, int rank, int local);

static void step_write(struct step *st, json_t *m);
static void step_limit_arm(struct step *st, json_int_t secs);

/* A job's end must reach the controller: kept until the controller says it
 * is committed (finished_ack), sent again after each registration. */
static void report(struct agent *a, json_t *msg)
{
	json_array_append_new(a->unsent, msg);
	if (a->connected)
		send_msg(a, json_incref(msg));
}

static void report_acked(struct agent *a, const json_t *ack)
{
	json_int_t id = spur_json_int(ack, "job_id", 0), run = spur_json_int(ack, "run", 0);

	for (size_t i = json_array_size(a->unsent); i-- > 0;) {
		const json_t *m = json_array_get(a->unsent, i);

		if (spur_json_int(m, "job_id", 0) == id && spur_json_int(m, "run", 0) == run)
			json_array_remove(a->unsent, i);
	}
}

/* ---------------------------------------------------------------- output */


/* ---------------------------------------------------------------- jobs */

/* mkdir -p: every missing folder of path. */
static int mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, mode) && errno != EEXIST ? -1 : 0;
}

static struct job *find_job(struct agent *a, uint32_t id, uint32_t run)
{
	for (struct job *j = a->jobs; j; j = j->next)
		if (j->id == id && j->run == run)
			return j;
	return NULL;
}

/* jobNNNNN for a job's first run, jobNNNNN.R for later ones */
static void job_dir(const struct agent *a, uint32_t id, uint32_t run, char *buf, size_t len)
{
	if (run > 1)
		snprintf(buf, len, "%s/job%05u.%u", a->spool, id, run);
	else
		snprintf(buf, len, "%s/job%05u", a->spool, id);
}

static void unlink_job(struct agent *a, struct job *j)
{
	for (struct job **pp = &a->jobs; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
	free(j);
}

static void on_job_closed(uv_handle_t *h)
{
	struct job *j = h->data;

	unlink_job(j->a, j);
}

/* The job's folder goes (back to the spool's pool) once its result is
 * handed on. */
static void remove_job_dir(struct agent *a, uint32_t id, uint32_t run)
{
	char dir[4096];

	job_dir(a, id, run, dir, sizeof(dir));
	spurd_spool_free(&a->pool, dir);
}

/* Take (sign 1) or give back (-1) the CPUs of a cpuset list ("0-3,6") for
 * a job sharing them `share` ways (1: whole). */
static void cpus_mark(struct agent *a, const char *list, unsigned share, int sign)
{
	spurd_cpus_take(a->cpu_used, (unsigned)sizeof(a->cpu_used), list, share, sign);
}

/* n host CPUs as a cpuset list for a job sharing them `share` ways (1:
 * free ones); "" when cpusets do not apply (no cpuset controller, or a
 * simulated node larger than the host) or the controller's view differs. */
static void cpus_pick(struct agent *a, uint32_t n, unsigned share, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!a->cg.cpuset || !n || a->cpus > a->host_cpus)
		return;
	spurd_cpus_pick(a->cpu_used,
			a->host_cpus < sizeof(a->cpu_used) ? a->host_cpus : (unsigned)sizeof(a->cpu_used),
			n, share, buf, len);
}

static struct remote *remotes;

/* Does job id (run) own cgroups here: running, or a step or a remote
 * job's share of it still here? */
static bool job_live(void *arg, uint32_t id, uint32_t run)
{
	struct agent *a = arg;

	for (struct job *j = a->jobs; j; j = j->next)
		if (j->id == id && j->run == run && j->running)
			return true;
	for (struct remote *r = remotes; r; r = r->next)
		if (r->id == id && r->run == run)
			return true;
	for (struct step *st = steps; st; st = st->next)
		if (st->job_id == id && st->cg_run == run)
			return true;
	return false;
}

static void sweep_soon(struct agent *a, uint64_t ms);

/* What a job's end left (a late step's folder, a process slow to die):
 * removed; tried again while some is left, the first time said. */
static void on_sweep(uv_timer_t *t)
{
	struct agent *a = t->data;
	static bool said;
	int left = spurd_cgroup_sweep(&a->cg, job_live, a);

	if (left && !said)
		spur_warn("%d job cgroup folders could not be removed yet; trying again", left);
	said = left > 0;
	if (left)
		sweep_soon(a, 2000);
}

static void sweep_soon(struct agent *a, uint64_t ms)
{
	if (a->cg.version && !uv_is_active((uv_handle_t *)&a->sweep))
		uv_timer_start(&a->sweep, on_sweep, ms, 0);
}

/* The job's containers here: their roots unmounted, their folders gone. */
static void containers_done(struct agent *a, uint32_t id, uint32_t run)
{
	struct spurd_cgroup_dirs cgd;
	char dir[4096];

	spurd_oci_dir(a->spool, id, run, dir, sizeof(dir));
	if (access(dir, F_OK))
		return;
	spurd_cgroup_job_dirs(&a->cg, id, run, &cgd);
	spurd_oci_job_done(dir, cgd.n ? cgd.dir[0] : NULL);
}

/* Hand the result from the job's folder on (exit 1 when the supervisor died
 * without one). */
static void job_ended(struct agent *a, struct job *j)
{
	char dir[4096], reason[1024];
	int code = 1;
	bool timed_out = false, oom;
	json_t *msg;

	job_dir(a, j->id, j->run, dir, sizeof(dir));
	if (!spurd_supervise_status(dir, &code, &timed_out))
		spur_warn("job %u: its supervisor ended without a result", j->id);
	if (!spurd_supervise_reason(dir, reason, sizeof(reason)))
		*reason = '\0';
	j->running = false;
	oom = spurd_cgroup_job_oom(&a->cg, j->id, j->run);
	spur_info("job %u ended: exit %d%s%s", j->id, code, timed_out ? " (time limit)" : "",
		  oom ? " (memory limit: a process was killed)" : "");
	msg = json_pack("{s:s,s:i,s:i,s:i,s:b,s:b,s:b,s:I}", "type", "finished", "job_id",
			(int)j->id, "run", (int)j->run, "exit_code", code, "timed_out", timed_out,
			"oom", oom, "prolog_failed", spurd_supervise_prolog_failed(dir), "max_rss_kb",
			(json_int_t)spurd_cgroup_job_peak_kb(&a->cg, j->id, j->run));
	if (*reason) /* why its container did not start */
		json_object_set_new(msg, "reason", json_string(reason));
	report(a, msg);
	remove_job_dir(a, j->id, j->run);
	containers_done(a, j->id, j->run);
	spurd_cgroup_job_done(&a->cg, j->id, j->run);
	sweep_soon(a, 1000); /* also what a late step made meanwhile */
	cpus_mark(a, j->cpus, j->share, -1);
}

static void on_watch(uv_timer_t *t);

static void on_exit_cb(uv_poll_t *p, int status, int events)
{
	struct job *j = p->data;

	waitpid((pid_t)j->sup, NULL, WNOHANG);
	job_ended(j->a, j);
	uv_poll_stop(&j->proc);
	close(j->pidfd);
	uv_close((uv_handle_t *)&j->proc, on_job_closed);
}

/* Fork the supervisor (no program starts: nothing of the job's reaches a
 * loader running as root, and the job's one program start is its script)
 * in a session of its own, with none of the agent's descriptors but its
 * log on fd 2; its exit is watched through a pidfd on the loop. 0 or an
 * errno. */
static int spawn_supervisor(struct agent *a, struct job *j, const struct spurd_supervise_args *sa)
{
	sigset_t all, old;
	pid_t pid;
	int e;

	/* no signal reaches the child before it has its own handlers (the
	 * agent's would write into the agent's loop) */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	e = errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
			_exit(1);
		close_range(3, ~0u, 0);
		if (setsid() < 0 || chdir(sa->dir))
			_exit(1);
		_exit(spurd_supervise(sa)); /* unblocks once its handlers are set */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return e;
	j->sup = pid;
	j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (j->pidfd < 0 || uv_poll_init(a->loop, &j->proc, j->pidfd)) {
		/* no pidfd (an old kernel): watch it as an adopted job */
		if (j->pidfd >= 0)
			close(j->pidfd);
		j->adopted = true;
		uv_timer_start(&a->watch, on_watch, 1000, 1000);
		return 0;
	}
	j->proc.data = j;
	uv_poll_start(&j->proc, UV_READABLE, on_exit_cb);
	return 0;
}

/* A running job's new time limit (scontrol update TimeLimit): to the
 * supervisor of the batch job here, if it is here. */
static void job_limit(struct agent *a, const json_t *msg)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	long limit = (long)spur_json_int(msg, "time_limit", -1);
	char dir[4096];

	for (struct job *j = a->jobs; j && limit >= 0; j = j->next) {
		if (j->id != id || !j->running || j->sup <= 0)
			continue;
		job_dir(a, j->id, j->run, dir, sizeof(dir));
		if (spurd_supervise_limit(dir, j->sup, limit,
					  (long)spur_json_int(msg, "over_time", -1)))
			spur_error_log("job %u: new time limit: %s", id, strerror(errno));
		else
			spur_info("job %u: time limit now %ld s", id, limit);
	}
}

/* A cancelled batch job: its supervisor writes slurmstepd's line. */
static void cancel_note(struct job *j)
{
	char dir[4096];
	long sup = 0, pgid = 0;

	if (!j->running)
		return;
	job_dir(j->a, j->id, j->run, dir, sizeof(dir));
	if (spurd_supervise_pids(dir, &sup, &pgid) == 1 && sup > 0)
		kill((pid_t)sup, SPURD_SUPERVISE_CANCEL_SIG);
}

/* The running batch job's process group (its shell leads it), read from
 * its supervisor's state file once; <= 0 while it has none yet. */
static long job_pgid(struct job *j)
{
	char dir[4096];
	long sup;

	if (!j->pgid) {
		job_dir(j->a, j->id, j->run, dir, sizeof(dir));
		spurd_supervise_pids(dir, &sup, &j->pgid);
	}
	return j->pgid;
}

static void kill_group(struct job *j, int sig)
{
	if (!j->running)
		return;
	/* before the job has its group, the supervisor passes the signal on */
	if (job_pgid(j) > 0)
		kill((pid_t)-j->pgid, sig);
	else if (j->sup > 0 && sig != SIGKILL)
		kill((pid_t)j->sup, sig);
	else if (j->sup > 0)
		kill((pid_t)j->sup, SIGTERM);
}

/* scancel -b: the batch shell alone (its process group's leader), not the
 * processes it started. */
static void kill_shell(struct job *j, int sig)
{
	if (j->running && job_pgid(j) > 0)
		kill((pid_t)j->pgid, sig);
}

/* SlurmdSpoolDir with Slurm's %n (this node's name) and %h (the host's)
 * expanded; without either, a folder per node under it, so that several
 * agents on one host keep apart. */
static void spool_path(const char *dir, const char *node, char *out, size_t len)
{
	char host[256] = "";
	size_t o = 0;
	bool pattern = false;

	gethostname(host, sizeof(host) - 1);
	for (const char *p = dir; *p && o + 1 < len; p++) {
		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h')) {
			o += (size_t)snprintf(out + o, len - o, "%s", p[1] == 'n' ? node : host);
			pattern = true;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o < len ? o : len - 1] = '\0';
	if (!pattern && o < len)
		snprintf(out + o, len - o, "/%s", node);
}

/* The agent writes job scripts and results into its spool folder and reads
 * them back: nobody else may be able to change that folder or any folder
 * above it (else a link there would make the agent write where they
 * choose). Each must be a folder owned by root or by the agent, writable by
 * nobody else unless sticky (/tmp). */
static bool spool_is_safe(const char *spool, char *why, size_t len)
{
	char path[PATH_MAX], *slash;
	struct stat st;

	if (!realpath(spool, path)) {
		snprintf(why, len, "spool folder %s: %s", spool, strerror(errno));
		return false;
	}
	for (;;) {
		if (lstat(*path ? path : "/", &st) || !S_ISDIR(st.st_mode)) {
			snprintf(why, len, "spool folder %s: %s is not a folder", spool, path);
			return false;
		}
		if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			snprintf(why, len,
				 "spool folder %s: %s is owned by uid %u or writable by others: "
				 "refusing to run jobs from there (give it to root, mode 755)",
				 spool, *path ? path : "/", (unsigned)st.st_uid);
			return false;
		}
		if (!*path)
			return true;
		slash = strrchr(path, '/');
		*slash = '\0';
	}
}

/* Is pid a job supervisor (and not a process that took its number)? */
static bool is_supervisor(long pid)
{
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, SPURD_SUPERVISOR_NAME);
}

/* Adopted jobs are not our children: look at their folders now and then. */
static void on_watch(uv_timer_t *t)
{
	struct agent *a = t->data;
	struct job *j = a->jobs, *next;
	bool any = false;

	for (; j; j = next) {
		char dir[4096];
		int code;
		bool to;

		next = j->next;
		if (!j->adopted)
			continue;
		job_dir(a, j->id, j->run, dir, sizeof(dir));
		if (spurd_supervise_status(dir, &code, &to) || !is_supervisor(j->sup)) {
			job_ended(a, j);
			unlink_job(a, j);
		} else {
			any = true;
		}
	}
	if (!any)
		uv_timer_stop(t);
}

/* After a restart: the jobs whose supervisors still run are ours again;
 * results left while we were away are reported at registration. */
static void adopt_jobs(struct agent *a)
{
	DIR *d = opendir(a->spool);
	struct dirent *e;
	unsigned id;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char dir[4096], tail;
		struct job *j;

		unsigned run = 1;
		int got = sscanf(e->d_name, "job%u.%u%c", &id, &run, &tail);

		if (!(got == 1 || got == 2) || !id || (got == 1 && strchr(e->d_name, '.')))
			continue;
		j = calloc(1, sizeof(*j));
		if (!j)
			break;
		job_dir(a, id, run, dir, sizeof(dir));
		j->id = id;
		j->run = run;
		j->a = a;
		j->running = true;
		j->adopted = true;
		spurd_supervise_pids(dir, &j->sup, &j->pgid);
		spurd_cgroup_job_cpus(&a->cg, id, run, j->cpus, sizeof(j->cpus));
		j->share = 1; /* not known after a restart: held whole, to be safe */
		cpus_mark(a, j->cpus, 1, 1);
		j->next = a->jobs;
		a->jobs = j;
		spur_info("job %u: %s", id,
			  is_supervisor(j->sup) ? "still running, adopted" : "ended while away");
	}
	closedir(d);
	on_watch(&a->watch); /* the ended ones now, the rest every second */
	if (a->jobs)
		uv_timer_start(&a->watch, on_watch, 1000, 1000);
}

static char **build_env(const json_t *m, const char *node)
{
	const json_t *user = json_object_get(m, "user_env"), *env = json_object_get(m, "env");
	size_t n = json_object_size(user) + json_object_size(env) + 5, i = 0;
	char **v = calloc(n, sizeof(char *));
	const char *k;
	json_t *val;

	if (!v)
		return NULL;
	/* the submitter's environment first (sbatch --export=ALL), its
	 * SLURM_* variables too as Slurm passes them (SLURM_ACCOUNT,
	 * SLURM_EXPORT_ENV, SLURM_UMASK...); a variable the job sets
	 * (CUDA_VISIBLE_DEVICES, SLURM_JOB_ID...) is the job's, once; then ours */
	json_object_foreach((json_t *)user, k, val)
		if (json_is_string(val) && i + 4 < n &&
		    (strncmp(k, "SPUR_", 5) || !strcmp(k, "SPUR_CONF")) && !json_object_get(env, k))
			v[i++] = spur_asprintf("%s=%s", k, json_string_value(val));
	json_object_foreach((json_t *)env, k, val)
		if (json_is_string(val) && i + 3 < n)
			v[i++] = spur_asprintf("%s=%s", k, json_string_value(val));
	v[i++] = spur_asprintf("SLURMD_NODENAME=%s", node);
	v[i++] = spur_asprintf("SPURD_NODENAME=%s", node);
	/* srun and the other commands inside the job reach this controller */
	v[i++] = spur_asprintf("SPUR_CTLD=%s", ctld_list);
	return v;
}

static void free_env(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		spur_free(v[i]);
	free(v);
}

/* A task's own identity within its step. */
static void put_task_env(json_t *env, int rank, int local)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", rank);
	json_object_set_new(env, "SLURM_PROCID", json_string(buf));
	json_object_set_new(env, "SPUR_PROCID", json_string(buf));
	snprintf(buf, sizeof(buf), "%d", local);
	json_object_set_new(env, "SLURM_LOCALID", json_string(buf));
	json_object_set_new(env, "SPUR_LOCALID", json_string(buf));
}

/* Write the job's script into its spool folder: a new file (never through
 * a link someone left there), the job user's, which it runs as. */
static int write_script(struct agent *a, const char *dir, const char *path, const json_t *m)
{
	const char *text = spur_json_str(m, "script", "");
	size_t len = strlen(text);
	int fd;

	if (spurd_spool_make(&a->pool, dir))
		return -1;
	unlink(path); /* a job run again (requeued) on this node */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len ||
	    (getuid() == 0 && fchown(fd, (uid_t)spur_json_int(m, "uid", 0),
				     (gid_t)spur_json_int(m, "gid", 0)))) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* srun --mem: the step's memory here, MB (0: the job's limit alone). */
static uint64_t step_mem(const json_t *m)
{
	json_int_t v = spur_json_int(m, "step_mem_mb", 0);

	return v > 0 ? (uint64_t)v : 0;
}

/* The device nodes of this node's GPUs the job was not given (its GPUs
 * are the indexes in CUDA_VISIBLE_DEVICES of its environment), for the
 * devices cgroup: a job opens only its own GPUs. NULL-terminated. */
static void gpus_denied(const struct agent *a, const json_t *m, const char **deny)
{
	const char *mine = spur_json_str(json_object_get(m, "env"), "CUDA_VISIBLE_DEVICES", "");
	size_t n = 0;

	for (size_t i = 0; i < a->gpus.n && i < SPUR_GPU_MAX; i++) {
		bool given = false;

		for (const char *p = mine; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
			given |= (size_t)atol(p) == i && *p >= '0' && *p <= '9';
		if (!given && a->gpus.gpus[i].path[0] == '/')
			deny[n++] = a->gpus.gpus[i].path;
	}
	deny[n] = NULL;
}

/* Prolog's and Epilog's environment, as slurmd gives it: who and which
 * job, a plain PATH, nothing of the user's. */
static char **hook_env(const struct agent *a, const json_t *m)
{
	char **v = calloc(10, sizeof(char *));
	size_t i = 0;

	if (!v)
		return NULL;
	v[i++] = spur_asprintf("SLURM_JOB_ID=%lld", (long long)spur_json_int(m, "job_id", 0));
	v[i++] = spur_asprintf("SLURM_JOB_USER=%s", spur_json_str(m, "user", ""));
	v[i++] = spur_asprintf("SLURM_JOB_UID=%lld", (long long)spur_json_int(m, "uid", 0));
	v[i++] = spur_asprintf("SLURM_JOB_GID=%lld", (long long)spur_json_int(m, "gid", 0));
	v[i++] = spur_asprintf("SLURM_JOB_NAME=%s", spur_json_str(m, "name", ""));
	v[i++] = spur_asprintf("SLURMD_NODENAME=%s", a->node);
	v[i++] = spur_asprintf("SLURM_CLUSTER_NAME=%s", a->cluster);
	v[i++] = spur_asprintf("PATH=/bin:/usr/bin");
	return v;
}

static void launch_failed(struct agent *a, uint32_t id, int code)
{
	report(a, json_pack("{s:s,s:i,s:i}", "type", "finished", "job_id", (int)id, "exit_code",
			    code));
}

/* --signal=SIG@TIME without B: SIG to the job's steps TIME seconds before
 * its limit (the batch shell is not signalled, as in Slurm). The timer
 * outlives nothing: it looks the job's run up when it fires. */
struct step_warn {
	uv_timer_t timer;
	struct agent *a;
	uint32_t id, run;
	int sig;
	struct step_warn *next; /* in a->warns until it fires (teardown frees the rest) */
};

static void kill_steps(uint32_t job_id, int sig);

static void on_warn_closed(uv_handle_t *h)
{
	free(h->data);
}

static void on_step_warn(uv_timer_t *t)
{
	struct step_warn *w = t->data;

	if (find_job(w->a, w->id, w->run)) {
		spur_info("job %u: signal %d to its steps (--signal)", w->id, w->sig);
		kill_steps(w->id, w->sig);
	}
	for (struct step_warn **p = &w->a->warns; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	uv_close((uv_handle_t *)t, on_warn_closed);
}

static void arm_step_warn(struct agent *a, const json_t *m, uint32_t id, uint32_t run)
{
	const json_t *sg = json_object_get(m, "signal");
	long limit = (long)spur_json_int(m, "time_limit", 0), t = (long)spur_json_int(sg, "time", 60);
	struct step_warn *w;

	if (!sg || spur_json_bool(sg, "batch", 0) || limit <= 0 || !(w = calloc(1, sizeof(*w))))
		return;
	*w = (struct step_warn){ .a = a, .id = id, .run = run, .sig = (int)spur_json_int(sg, "sig", 0) };
	uv_timer_init(a->loop, &w->timer);
	w->timer.data = w;
	w->next = a->warns;
	a->warns = w;
	uv_timer_start(&w->timer, on_step_warn, (uint64_t)(limit > t ? limit - t : 0) * 1000, 0);
}

/* sbatch -i (opened as the user), --open-mode, the script's arguments and
 * --signal=B: for the supervisor (args point into m). */
static void batch_extras(const json_t *m, const char *node, const char *workdir, char *inp,
			 size_t len, const char **args, size_t max, struct spurd_supervise_args *sa)
{
	const json_t *sg = json_object_get(m, "signal"), *v;
	size_t i, n = 0;

	if (*spur_json_str(m, "input", "")) {
		spur_job_output_path(m, "input", node, workdir, inp, len);
		sa->in = inp;
	}
	sa->append = !strcmp(spur_json_str(m, "open_mode", ""), "append");
	json_array_foreach(json_object_get(m, "argv"), i, v)
		if (json_is_string(v) && n + 1 < max)
			args[n++] = json_string_value(v);
	args[n] = NULL;
	sa->args = args;
	if (sg && spur_json_bool(sg, "batch", 0)) {
		sa->warn_sig = (int)spur_json_int(sg, "sig", 0);
		sa->warn_time = (long)spur_json_int(sg, "time", 60);
	}
	spurd_rlimits_parse(json_object_get(m, "rlimits"), &sa->rlimits);
	sa->get_user_env = (int)spur_json_int(m, "get_user_env", 0);
}

static void launch(struct agent *a, const json_t *m)
{
	uint32_t id = (uint32_t)spur_json_int(m, "job_id", 0);
	const char *workdir = spur_json_str(m, "workdir", "/tmp");
	char dir[4096], script[4200], why[512], outp[4096], errp[4096], inp[4096];
	const char *args[256];
	struct spurd_cgroup_dirs cgd;
	struct spurd_cgroup_limits lim;
	const char *deny[SPUR_GPU_MAX + 1];
	gid_t groups[SPURD_MAX_GROUPS];
	uint32_t ncpus = (uint32_t)spur_json_int(m, "cpus", 0);
	uint32_t run = (uint32_t)spur_json_int(m, "run", 1);
	struct spurd_supervise_args sa;
	static struct spurd_ctr ctr; /* large: not on the loop's stack */
	struct job *j;
	int rc;

	if (find_job(a, id, run))
		return; /* launched already (a repeated message after a reconnect) */
	job_dir(a, id, run, dir, sizeof(dir));
	snprintf(script, sizeof(script), "%s/slurm_script", dir);
	if (write_script(a, dir, script, m)) {
		spur_error_log("job %u: cannot write %s: %s", id, script, strerror(errno));
		launch_failed(a, id, 1);
		return;
	}
	/* relative output paths are the working folder's; both are opened
	 * and entered by the job's process, as the job's user */
	spur_job_output_path(m, "output", a->node, workdir, outp, sizeof(outp));
	if (*spur_json_str(m, "error", ""))
		spur_job_output_path(m, "error", a->node, workdir, errp, sizeof(errp));
	j = calloc(1, sizeof(*j));
	sa = (struct spurd_supervise_args){
		.dir = dir,
		.script = script,
		.workdir = workdir,
		.out = outp,
		.err = *spur_json_str(m, "error", "") ? errp : NULL,
		.limit = (long)spur_json_int(m, "time_limit", 0),
		.over_time = (long)spur_json_int(m, "over_time", 0),
		.kill_wait = a->kill_wait,
		.uid = (uid_t)spur_json_int(m, "uid", 0),
		.gid = (gid_t)spur_json_int(m, "gid", 0),
		.env = build_env(m, a->node),
		.groups = groups,
		.prolog = a->prolog,
		.epilog = a->epilog,
		.task_prolog = a->task_prolog,
		.task_epilog = a->task_epilog,
		.hook_env = hook_env(a, m),
		.job_id = id,
		.node = a->node,
	};
	batch_extras(m, a->node, workdir, inp, sizeof(inp), args, 256, &sa);
	if (!j || !sa.env || !sa.hook_env) {
		spur_error_log("job %u: out of memory", id);
		free(j);
		free_env(sa.env);
		free_env(sa.hook_env);
		launch_failed(a, id, 1);
		return;
	}
	/* the job keeps the user's supplementary groups (Slurm's initgroups) */
	sa.ngroups = spurd_user_groups(sa.uid, sa.gid, groups, SPURD_MAX_GROUPS);
	/* the folder stays the agent's, passable but not writable, so the
	 * supervisor's files (the result) cannot be forged by the job */
	chmod(dir, 0711);
	j->share = (uint16_t)spur_json_int(m, "share", 1);
	cpus_pick(a, ncpus, j->share, j->cpus, sizeof(j->cpus));
	gpus_denied(a, m, deny);
	lim = (struct spurd_cgroup_limits){ .cpus = j->cpus,
					    .mem_mb = (uint64_t)spur_json_int(m, "mem_mb", 0),
					    .pids = ncpus > 4 ? 1024 * (uint64_t)ncpus : 4096,
					    .deny = deny };
	if (spurd_cgroup_job(&a->cg, id, run, &lim, &cgd, why, sizeof(why)))
		spur_warn("job %u: runs without cgroup limits: %s", id, why);
	for (int c = 0; c < cgd.n; c++)
		sa.cgroups[c] = cgd.dir[c];
	j->id = id;
	j->run = run;
	j->a = a;
	if (spurd_ctr_prepare(&ctr, &a->ctr, m, id, run, "b",
			      spur_json_str(json_object_get(m, "env"), "CUDA_VISIBLE_DEVICES", ""),
			      cgd.n ? cgd.dir[0] : NULL)) {
		ctr.oci.groups = groups;
		ctr.oci.ngroups = sa.ngroups;
		ctr.oci.script = script;
		sa.oci = &ctr.oci;
	}
	rc = spawn_supervisor(a, j, &sa);
	spurd_ctr_release(&ctr);
	free_env(sa.env);
	free_env(sa.hook_env);
	if (rc) {
		spur_error_log("job %u: cannot start its supervisor: %s", id, strerror(rc));
		if (!spurd_cgroup_job_done(&a->cg, id, run))
			sweep_soon(a, 1000);
		cpus_mark(a, j->cpus, j->share, -1);
		free(j);
		remove_job_dir(a, id, run);
		launch_failed(a, id, 127);
		return;
	}
	j->running = true;
	j->next = a->jobs;
	a->jobs = j;
	arm_step_warn(a, m, id, run);
	spur_info("job %u started, supervisor pid %ld", id, j->sup);
}

/* ---------------------------------------------------------------- step tasks */

static void step_write(struct step *st, json_t *m)
{
	const char *type = spur_json_str(m, "type", "");

	/* sattach gets the tasks' output and exits as srun does */
	if (!strcmp(type, "io") || !strcmp(type, "exit"))
		spurd_attach_send(&st->attached, m);
	spur_uv_send((uv_stream_t *)&st->io, m);
}

/* What sattach gets first: the step's hello (its node, the step's tasks),
 * and the exits of this node's tasks already done. */
static json_t *step_greet(void *ctx)
{
	struct step *st = ctx;
	json_t *frames = json_array();

	json_array_append_new(frames,
			      json_pack("{s:s,s:s,s:I,s:b,s:I}", "type", "hello", "node", st->a->node,
					"node_index", (json_int_t)spur_json_int(st->msg, "step_node", 0),
					"step", 1, "ntasks",
					(json_int_t)spur_json_int(st->msg, "ntasks", 1)));
	for (size_t i = 0; i < st->ntasks; i++)
		if (st->tasks[i].exited)
			json_array_append_new(frames, json_pack("{s:s,s:i,s:i}", "type", "exit",
								"rank", st->tasks[i].rank, "code",
								st->tasks[i].code));
	return frames;
}

/* A node without the step says so, and hangs up. */
static json_t *no_step_greet(void *ctx)
{
	struct agent *a = ctx;

	return json_pack("[{s:s,s:s,s:b}]", "type", "hello", "node", a->node, "step", 0);
}

/* sattach JOB.STEP: connect to it for the step's tasks here. */
static void attach_step(struct agent *a, const json_t *m)
{
	uint32_t job = (uint32_t)spur_json_int(m, "job_id", 0);
	uint32_t id = (uint32_t)spur_json_int(m, "step_id", 0);
	const char *host = spur_json_str(m, "io_host", "127.0.0.1");
	int port = (int)spur_json_int(m, "io_port", 0), rc;
	struct step *st = steps;

	while (st && !(st->job_id == job && st->step_id == id && st->msg))
		st = st->next;
	rc = st ? spurd_attach_open(a->loop, &st->attached, step_greet, st, host, port)
		: spurd_attach_open(a->loop, NULL, no_step_greet, a, host, port);
	if (rc)
		spur_warn("job %u step %u: cannot reach sattach at %s:%d: %s", job, id, host, port,
			  uv_strerror(rc));
}

static struct job *running_job(struct agent *a, uint32_t id);

/* The step's GPUs here (its CUDA_VISIBLE_DEVICES) busy and in use now,
 * summed: {"util": percent, "mem_mb"}; null when the backend cannot say. */
static json_t *step_gpu_use(struct agent *a, const struct step *st)
{
	const char *mine = spur_json_str(json_object_get(st->msg, "env"), "CUDA_VISIBLE_DEVICES", "");
	unsigned long long util = 0, mem = 0;
	int n = 0;

	for (const char *p = mine; *p >= '0' && *p <= '9'; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		struct spur_gpu_usage u;

		if (spur_gpu_usage(&a->gpus, a->gpu_arg, (size_t)atol(p), &u))
			return json_null();
		util += u.util_pct;
		mem += u.mem_used_mb;
		n++;
	}
	return n ? json_pack("{s:I,s:I}", "util", (json_int_t)util, "mem_mb", (json_int_t)mem)
		 : json_null();
}
static void remote_put(struct agent *a, struct remote *r);

/* sstat: the job's use on this node, sent to sstat's port once. */
static json_t *stat_greet(void *ctx)
{
	return json_pack("[o]", (json_t *)ctx);
}

static void stat_job(struct agent *a, const json_t *m)
{
	uint32_t id = (uint32_t)spur_json_int(m, "job_id", 0);
	const char *host = spur_json_str(m, "io_host", "127.0.0.1");
	int port = (int)spur_json_int(m, "io_port", 0);
	struct job *j = running_job(a, id);
	struct spurd_usage u = { 0 };
	bool have = j && !spurd_cgroup_job_usage(&a->cg, id, j->run, &u);

	/* a node other than the job's first: its cgroups for the steps, else
	 * the steps' tasks */
	for (struct remote *r = remotes; !j && !have && r; r = r->next)
		if (r->id == id)
			have = !spurd_cgroup_job_usage(&a->cg, id, r->run, &u);
	for (struct step *st = steps; !j && !have && st; st = st->next)
		for (size_t t = 0; st->job_id == id && t < st->ntasks; t++)
			if (!st->tasks[t].exited && st->tasks[t].pid > 0) {
				spurd_proc_usage(st->tasks[t].pid, &u);
				have = true;
			}
	json_t *f = json_pack("{s:s,s:s,s:i,s:b,s:I,s:I,s:I,s:I,s:i}", "type", "stat", "node",
			      a->node, "job_id", (int)id, "measured", have, "cpu_ms",
			      (json_int_t)u.cpu_ms, "rss_kb", (json_int_t)u.rss_kb, "mem_kb",
			      (json_int_t)u.mem_kb, "peak_kb", (json_int_t)u.peak_kb, "pids",
			      (int)u.pids);

	/* each step's tasks and what they started; the batch script's tree */
	json_object_set_new(f, "steps", json_array());
	for (struct step *st = steps; f && st; st = st->next) {
		struct spurd_usage su = { 0 };

		if (st->job_id != id)
			continue;
		for (size_t t = 0; t < st->ntasks; t++)
			if (!st->tasks[t].exited && st->tasks[t].pid > 0)
				spurd_proc_tree_usage(st->tasks[t].pid, &su);
		json_array_append_new(json_object_get(f, "steps"),
				      json_pack("{s:i,s:I,s:I,s:i,s:o}", "step_id", (int)st->step_id,
						"cpu_ms", (json_int_t)su.cpu_ms, "rss_kb",
						(json_int_t)su.rss_kb, "pids", (int)su.pids, "gpus",
						step_gpu_use(a, st)));
	}
	if (f && j && j->sup > 0) {
		struct spurd_usage bu = { 0 };

		spurd_proc_tree_usage(j->sup, &bu);
		json_object_set_new(f, "batch",
				    json_pack("{s:I,s:I,s:i}", "cpu_ms", (json_int_t)bu.cpu_ms, "rss_kb",
					      (json_int_t)bu.rss_kb, "pids", (int)bu.pids));
	}
	if (f && spurd_attach_open(a->loop, NULL, stat_greet, f, host, port)) {
		spur_warn("job %u: cannot reach sstat at %s:%d", id, host, port);
		json_decref(f);
	}
}

static void on_limit_closed(uv_handle_t *h)
{
	free(h);
}

static void on_step_closed(uv_handle_t *h)
{
	struct step *st = h->data;

	if (st->limit) {
		st->limit->data = NULL;
		uv_close((uv_handle_t *)st->limit, on_limit_closed);
	}
	for (struct step **pp = &steps; *pp; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	spurd_attach_close_all(&st->attached);
	if (st->cg_run) {
		spurd_cgroup_step_done(&st->a->cg, st->job_id, st->cg_run, st->step_id);
		sweep_soon(st->a, 1000); /* its job may have ended first */
	}
	if (st->remote)
		remote_put(st->a, st->remote);
	/* what the step held on this node is free for the next step */
	if (st->a->connected)
		send_msg(st->a, json_pack("{s:s,s:i,s:i}", "type", "step_end", "job_id",
					  (int)st->job_id, "step_id", (int)st->step_id));
	spurd_pmix_step_free(st->pmix);
	spurd_pmi_step_free(st->pmi);
	spur_wire_reader_fini(&st->rd);
	json_decref(st->msg);
	free(st->tasks);
	free(st);
}

static void io_end(struct step *st);

static void on_task_handle_closed(uv_handle_t *h)
{
	struct task *t = h->data;
	struct step *st = t->st;

	/* three handles per task (the process and its two pipes), and its
	 * stdin's */
	if (--t->open_pipes > -3 - (int)t->has_in)
		return;
	if (--st->live == 0)
		io_end(st);
}

static void on_io_shut(uv_shutdown_t *req, int status)
{
	struct step *st = req->data;

	(void)status;
	/* srun hangs up once it has every exit: then the step goes */
	if (st->io_read_done && !uv_is_closing((uv_handle_t *)&st->io))
		uv_close((uv_handle_t *)&st->io, on_step_closed);
}

/* Every task here is done: what was written to srun goes, then our side
 * of io ends; the step goes when srun's side ends too (so nothing srun
 * sends meanwhile, such as stdin's end, meets a closed socket and resets
 * the connection before srun has read the exits). */
static void io_end(struct step *st)
{
	st->io_ending = true;
	st->io_end.data = st;
	if (st->io_read_done || uv_shutdown(&st->io_end, (uv_stream_t *)&st->io, on_io_shut))
		if (!uv_is_closing((uv_handle_t *)&st->io))
			uv_close((uv_handle_t *)&st->io, on_step_closed);
}

/* Output and exit both seen: report the exit after the last output. */
static void task_maybe_done(struct task *t)
{
	if (!t->exited || t->open_pipes > 0)
		return;
	step_write(t->st, json_pack("{s:s,s:i,s:i}", "type", "exit", "rank", t->rank, "code",
				    t->code));
	t->open_pipes = 0;
	uv_close((uv_handle_t *)&t->exitw, on_task_handle_closed);
	uv_close((uv_handle_t *)&t->out[0], on_task_handle_closed);
	uv_close((uv_handle_t *)&t->out[1], on_task_handle_closed);
	if (t->has_in)
		uv_close((uv_handle_t *)&t->in, on_task_handle_closed);
}

static void on_task_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct task *t = s->data;
	int fd = (uv_pipe_t *)s == &t->out[0] ? 1 : 2;

	if (n > 0) {
		/* text as it is; bytes that are not (NUL, not UTF-8) in hex, so
		 * that binary output comes through whole */
		json_t *data = memchr(buf->base, 0, (size_t)n) ? NULL
							       : json_stringn(buf->base, (size_t)n);
		char *hex = data ? NULL : malloc(2 * (size_t)n + 1);

		for (ssize_t i = 0; hex && i < n; i++)
			sprintf(hex + 2 * i, "%02x", (unsigned char)buf->base[i]);
		if (data)
			step_write(t->st, json_pack("{s:s,s:i,s:i,s:o}", "type", "io", "rank", t->rank,
						    "fd", fd, "data", data));
		else if (hex)
			step_write(t->st, json_pack("{s:s,s:i,s:i,s:s#}", "type", "io", "rank", t->rank,
						    "fd", fd, "hex", hex, 2 * (size_t)n));
		free(hex);
	}
	free(buf->base);
	if (n < 0) {
		uv_read_stop(s);
		t->open_pipes--;
		task_maybe_done(t);
	}
}

static void on_task_exit(uv_poll_t *p, int status, int events)
{
	struct task *t = p->data;
	int ws = 0;

	if (waitpid(t->pid, &ws, WNOHANG) == 0)
		return; /* not yet */
	uv_poll_stop(p);
	close(t->pidfd);
	t->pidfd = -1;
	t->exited = true;
	t->code = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
	task_maybe_done(t);
}

/* The folder at path, opened (O_PATH) with the rights of uid:gid: the
 * walk to it and into it is the user's, so a folder the user may not enter
 * is not entered for them. -1 (errno) when they may not. */
static int open_dir_as(const char *path, uid_t uid, gid_t gid)
{
	char dot[PATH_MAX + 2];
	int fd, e;

	snprintf(dot, sizeof(dot), "%s/.", path);
	if (getuid() != 0 || uid == 0)
		return open(dot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* per thread: the loop's own, not the thread pool's */
	setfsgid(gid);
	setfsuid(uid);
	fd = open(dot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	setfsuid(0);
	setfsgid(0);
	errno = e;
	return fd;
}

/* --gpus-per-task=N: local task i sees GPUs [i*N, i*N+N) of the node's
 * share of the job (as Slurm binds them, in order); none left: none. */
/* Is GPU g (the node's index) one of the list's (the step's GPUs)? */
static bool gpu_in(const char *list, long g)
{
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		if (atol(p) == g)
			return true;
	return false;
}

/* Local task i's GPUs among the step's (all): --gpus-per-task N: the
 * i-th N of them, in the order they were given (the closest first);
 * --gpu-bind single:N: the (i/N)-th; map_gpu:L: L[i mod |L|]; mask_gpu:M:
 * those of M[i mod |M|]; closest without --gpus-per-task: an equal share
 * of them; none: all of them. */
static void task_gpu_list(const char *all, long per_task, const char *bind, int local,
			  int ntasks, char *mine, size_t len)
{
	char copy[1024];
	long k = 0, n = 0;

	mine[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", all);
	for (const char *p = all; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		n++;
	if (bind && !strncmp(bind, "single:", 7)) {
		per_task = 1;
		local /= atoi(bind + 7) > 0 ? atoi(bind + 7) : 1;
	} else if (bind && (!strncmp(bind, "map_gpu:", 8) || !strncmp(bind, "mask_gpu:", 9))) {
		bool mask = bind[1] == 'a' && bind[2] == 's';
		const char *l = strchr(bind, ':') + 1;
		long nl = 1, pick;
		const char *p = l;

		for (const char *q = l; *q; q++)
			nl += *q == ',';
		for (long skip = local % nl; skip > 0; skip--)
			p += strcspn(p, ",") + 1;
		pick = strtol(p, NULL, mask ? 16 : 10);
		for (long g = 0; g < 64; g++)
			if ((mask ? (pick >> g & 1) : g == pick) && gpu_in(all, g))
				snprintf(mine + strlen(mine), len - strlen(mine), "%s%ld",
					 *mine ? "," : "", g);
		return;
	} else if (bind && !strcmp(bind, "closest") && per_task <= 0 && ntasks > 0) {
		per_task = n / ntasks > 0 ? n / ntasks : 1;
	}
	for (char *save, *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save), k++)
		if (k >= local * per_task && k < (local + 1) * per_task)
			snprintf(mine + strlen(mine), len - strlen(mine), "%s%s", *mine ? "," : "", g);
}

static void put_task_gpus(json_t *env, long per_task, const char *bind, int local, int ntasks)
{
	static const char *const vars[] = { "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
					    "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL" };
	const char *all = spur_json_str(env, "ROCR_VISIBLE_DEVICES", NULL);
	char mine[256];

	if (bind && !strncmp(bind, "verbose,", 8))
		bind += 8;
	if (!all || (bind && !strcmp(bind, "none")) ||
	    (per_task <= 0 && (!bind || !strcmp(bind, "closest")) && !(bind && ntasks > 1)))
		return;
	task_gpu_list(all, per_task, bind, local, ntasks, mine, sizeof(mine));
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		json_object_set_new(env, vars[i], json_string(mine));
}

/* -c N or --cpu-bind=cores: local task i is bound to CPUs [i*N, i*N+N) of
 * the job's CPUs on this node (all of the host's when it has no cpuset),
 * round the list again when tasks outnumber them; --cpu-bind=none: not
 * bound. "" when not bound. */
static void task_cpus(const struct agent *a, const json_t *m, const char *job_cpus, int local,
		      char *buf, size_t len)
{
	long per = (long)spur_json_int(m, "cpus_per_task", 0);
	const char *bind = spur_json_str(m, "cpu_bind", NULL);
	int cpus[1024], n = 0;
	char copy[256];

	buf[0] = '\0';
	if ((bind && (!strcmp(bind, "none") || !strcmp(bind, "no"))) || (!bind && per <= 0))
		return;
	per = per > 0 ? per : 1;
	if (job_cpus && *job_cpus) {
		snprintf(copy, sizeof(copy), "%s", job_cpus);
		for (char *save, *r = strtok_r(copy, ",", &save); r && n < 1024;
		     r = strtok_r(NULL, ",", &save)) {
			int lo = atoi(r), hi = strchr(r, '-') ? atoi(strchr(r, '-') + 1) : lo;

			for (int c = lo; c <= hi && n < 1024; c++)
				cpus[n++] = c;
		}
	}
	for (unsigned c = 0; !n && c < a->host_cpus && c < 1024; c++)
		cpus[c] = (int)c, n = (int)c + 1;
	for (long k = 0; n && k < per; k++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", k ? "," : "",
			 cpus[(local * per + k) % n]);
}

/* A terminal for srun --pty: fds[0] the master (the agent's), fds[1] the
 * slave (the task's), both close-on-exec (the task dups the slave). */
static int open_pty(const json_t *m, int fds[2])
{
	struct winsize ws = { .ws_row = (unsigned short)spur_json_int(m, "rows", 24),
			      .ws_col = (unsigned short)spur_json_int(m, "cols", 80) };

	if (openpty(&fds[0], &fds[1], NULL, NULL, &ws))
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* What every task of the step on this node shares. */
struct step_launch {
	char **args;
	json_t *base; /* the step's environment */
	int dirfd;    /* its working folder, opened as the user; -1: /tmp */
	gid_t groups[SPURD_MAX_GROUPS];
	int ngroups;
	struct spurd_cgroup_dirs cgd;
	const char *cgroups[SPURD_CG_MAX + 1];
	const char *job_cpus; /* the job's cpuset here, "" or NULL: none */
};

static void task_failed(struct step *st, struct task *t, const char *why, int code)
{
	char err[640];

	snprintf(err, sizeof(err), "slurmstepd: error: %s\n", why);
	step_write(st, json_pack("{s:s,s:i,s:i,s:s}", "type", "io", "rank", t->rank, "fd", 2,
				 "data", err));
	/* as slurmstepd: the task exits with the errno of its failed exec */
	t->exited = true;
	t->code = code;
	t->open_pipes = 0;
	step_write(st, json_pack("{s:s,s:i,s:i}", "type", "exit", "rank", t->rank, "code", code));
	if (--st->live == 0)
		io_end(st);
}

/* A signal to a running task: to its process group, or for a container's
 * to its shim, which passes it to every process of the container (a
 * SIGKILL to the group would end the shim and the runtime and leave the
 * container running: the shim's SPURD_OCI_KILL kills it instead). */
static void task_signal(const struct task *t, int sig)
{
	if (t->exited || t->pid <= 0)
		return;
	if (t->ctr)
		kill(t->pid, sig == SIGKILL ? SPURD_OCI_KILL : sig);
	else
		kill(-t->pid, sig);
}

/* The task's PMI (its socket, the fd returned: -1 none) or PMIx
 * variables into env. */
static int put_task_mpi_env(struct step *st, json_t *env, int rank)
{
	int pmi_fd = -1;

	if (st->pmi) {
		char v[32];

		pmi_fd = spurd_pmi_task_fd(st->pmi, (uint32_t)rank);
		json_object_set_new(env, "PMI_FD", json_string("3"));
		snprintf(v, sizeof(v), "%d", rank);
		json_object_set_new(env, "PMI_RANK", json_string(v));
		snprintf(v, sizeof(v), "%u", (unsigned)spur_json_int(st->msg, "ntasks", 1));
		json_object_set_new(env, "PMI_SIZE", json_string(v));
	}
	if (st->pmix) {
		char **px = spurd_pmix_task_env(st->pmix, (uint32_t)rank);

		for (size_t k = 0; px && px[k]; k++) {
			char *eq = strchr(px[k], '=');

			if (eq) {
				*eq = '\0';
				json_object_set_new(env, px[k], json_string(eq + 1));
			}
			free(px[k]);
		}
		free(px);
	}
	return pmi_fd;
}

/* Start local task i (rank) with its pipes watched; on failure it is
 * reported as Slurm does and counted done. */
static void start_one_task(struct step *st, struct step_launch *l, size_t i, int rank)
{
	const json_t *m = st->msg;
	struct task *t = &st->tasks[i];
	/* the task's own copy: its rank and GPUs are its own */
	json_t *msg = json_pack("{s:o,s:O}", "env", json_deep_copy(l->base), "user_env",
				json_object_get(m, "user_env"));
	struct spurd_task_spec spec = { 0 };
	struct spurd_rlimits rl;
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, in[2] = { -1, -1 }, e = 0, pmi_fd = -1;
	char **env, cpus[1024], tag[64], gpus[256], **targv = NULL;
	static struct spurd_ctr ctr; /* large: not on the loop's stack */
	struct spur_error why = { 0 };

	t->rank = rank;
	t->st = st;
	t->pidfd = -1;
	/* srun --multi-prog: this rank's line of the file is its program */
	if (json_is_string(json_object_get(m, "multi_prog")) &&
	    spur_mpmd_argv(spur_json_str(m, "multi_prog", ""), rank, l->args + 1, &targv, &why)) {
		json_decref(msg);
		task_failed(st, t, spur_error_text(&why), 1);
		return;
	}
	put_task_env(json_object_get(msg, "env"), t->rank, (int)i);
	put_task_gpus(json_object_get(msg, "env"), (long)spur_json_int(m, "gpus_per_task", 0),
		      spur_json_str(m, "gpu_bind", NULL), (int)i,
		      (int)json_array_size(json_object_get(m, "ranks")));
	pmi_fd = put_task_mpi_env(st, json_object_get(msg, "env"), rank);
	env = build_env(msg, st->a->node);
	snprintf(gpus, sizeof(gpus), "%s",
		 spur_json_str(json_object_get(msg, "env"), "CUDA_VISIBLE_DEVICES", ""));
	json_decref(msg);
	/* srun --pty: task 0 gets a terminal of srun's size */
	t->pty = spur_json_bool(m, "pty", 0) && rank == 0;
	/* stdin: a socket pair (so srun's end of input is a shutdown) */
	if (!env || (t->pty ? open_pty(m, out) : pipe2(out, O_CLOEXEC)) ||
	    pipe2(err, O_CLOEXEC) ||
	    (!t->pty && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in))) {
		e = env ? errno : ENOMEM;
		goto fail;
	}
	spec = (struct spurd_task_spec){ .argv = targv ? targv : l->args, .env = env,
					 .cwd_fd = l->dirfd,
					 .uid = (uid_t)spur_json_int(m, "uid", 0),
					 .gid = (gid_t)spur_json_int(m, "gid", 0),
					 .groups = l->groups, .ngroups = l->ngroups,
					 .cgroups = l->cgroups, .cpus = cpus, .out = out[1],
					 .err = err[1], .task_prolog = st->a->task_prolog,
					 .task_epilog = st->a->task_epilog, .pmi_fd = pmi_fd,
					 .user_prolog = spur_json_str(m, "task_prolog", NULL),
					 .user_epilog = spur_json_str(m, "task_epilog", NULL),
					 .pty_fd = t->pty ? out[1] : -1, .in_fd = in[0],
					 .rlimits = &rl };
	spurd_rlimits_parse(json_object_get(m, "rlimits"), &rl);
	task_cpus(st->a, m, l->job_cpus, (int)i, cpus, sizeof(cpus));
	snprintf(tag, sizeof(tag), "%u-%d", st->step_id, rank);
	if (spurd_ctr_prepare(&ctr, &st->a->ctr, m, st->job_id, st->cg_run ? st->cg_run : 1, tag,
			      gpus, l->cgd.n ? l->cgd.dir[0] : NULL)) {
		ctr.oci.groups = l->groups;
		ctr.oci.ngroups = l->ngroups;
		spec.oci = &ctr.oci;
	}
	t->ctr = spec.oci != NULL;
	t->pid = spurd_task_start(&spec);
	spurd_ctr_release(&ctr);
	spur_mpmd_argv_free(targv);
	targv = NULL;
	if (pmi_fd >= 0)
		close(pmi_fd); /* the task's end, in the task now */
	pmi_fd = -1;
	if (t->pid < 0) {
		e = (int)-t->pid;
		t->pid = 0;
		goto fail;
	}
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	if (in[0] >= 0)
		close(in[0]);
	in[0] = -1;
	t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	if (t->pidfd < 0) { /* a kernel before 5.3: its end could not be seen */
		e = errno;
		kill(-t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
		goto fail;
	}
	free_env(env);
	uv_pipe_init(st->a->loop, &t->out[0], 0);
	uv_pipe_init(st->a->loop, &t->out[1], 0);
	uv_poll_init(st->a->loop, &t->exitw, t->pidfd);
	t->out[0].data = t->out[1].data = t->exitw.data = t;
	uv_pipe_open(&t->out[0], out[0]);
	uv_pipe_open(&t->out[1], err[0]);
	t->open_pipes = 2;
	uv_read_start((uv_stream_t *)&t->out[0], spur_uv_alloc, on_task_read);
	uv_read_start((uv_stream_t *)&t->out[1], spur_uv_alloc, on_task_read);
	uv_poll_start(&t->exitw, UV_READABLE, on_task_exit);
	if (in[1] >= 0) {
		uv_pipe_init(st->a->loop, &t->in, 0);
		t->in.data = t;
		uv_pipe_open(&t->in, in[1]);
		t->has_in = true;
	}
	return;
fail:
	for (int k = 0; k < 2; k++) {
		if (out[k] >= 0)
			close(out[k]);
		if (err[k] >= 0)
			close(err[k]);
		if (in[k] >= 0)
			close(in[k]);
	}
	if (pmi_fd >= 0)
		close(pmi_fd);
	free_env(env);
	spur_mpmd_argv_free(targv);
	{
		char why_exec[600];

		snprintf(why_exec, sizeof(why_exec), "execve(): %s: %s",
			 spec.argv && spec.argv[0] ? spec.argv[0] : "", strerror(e));
		task_failed(st, t, why_exec, e > 0 && e < 256 ? e : 1);
	}
}

static struct job *running_job(struct agent *a, uint32_t id)
{
	for (struct job *j = a->jobs; j; j = j->next)
		if (j->id == id && j->running)
			return j;
	return NULL;
}

/* The job's cgroups on this node (not its first) for step m's tasks: its
 * CPUs, memory and GPUs here (node_alloc), made at its first step. NULL
 * when the controller sent none or they cannot be made (said). */
static struct remote *remote_get(struct agent *a, const json_t *m)
{
	const json_t *al = json_object_get(m, "node_alloc");
	uint32_t id = (uint32_t)spur_json_int(m, "job_id", 0);
	uint16_t mask = (uint16_t)spur_json_int(al, "gpus", 0);
	const char *deny[SPUR_GPU_MAX + 1];
	struct spurd_cgroup_limits lim;
	struct spurd_cgroup_dirs cgd;
	struct remote *r;
	char why[512];
	size_t n = 0;

	for (r = remotes; r; r = r->next)
		if (r->id == id)
			break;
	if (r || !al)
		goto out;
	if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	r->id = id;
	r->run = (uint32_t)spur_json_int(al, "run", 1);
	r->share = (uint16_t)spur_json_int(al, "share", 1);
	cpus_pick(a, (uint32_t)spur_json_int(al, "cpus", 0), r->share, r->cpus, sizeof(r->cpus));
	for (size_t i = 0; i < a->gpus.n && i < SPUR_GPU_MAX; i++)
		if (!(mask >> i & 1) && a->gpus.gpus[i].path[0] == '/')
			deny[n++] = a->gpus.gpus[i].path;
	deny[n] = NULL;
	lim = (struct spurd_cgroup_limits){ .cpus = r->cpus,
					    .mem_mb = (uint64_t)spur_json_int(al, "mem_mb", 0),
					    .pids = 4096,
					    .deny = deny };
	if (spurd_cgroup_job(&a->cg, id, r->run, &lim, &cgd, why, sizeof(why))) {
		spur_warn("job %u: its steps run here without cgroup limits: %s", id, why);
		cpus_mark(a, r->cpus, r->share, -1);
		free(r);
		return NULL;
	}
	r->next = remotes;
	remotes = r;
out:
	if (r)
		r->steps++;
	return r;
}

/* A step of a remote job ended: the last one takes its cgroups away. */
static void remote_put(struct agent *a, struct remote *r)
{
	if (--r->steps)
		return;
	containers_done(a, r->id, r->run);
	if (!spurd_cgroup_job_done(&a->cg, r->id, r->run))
		sweep_soon(a, 1000);
	cpus_mark(a, r->cpus, r->share, -1);
	for (struct remote **pp = &remotes; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	free(r);
}

static void start_tasks(struct step *st)
{
	const json_t *m = st->msg, *argv_j = json_object_get(m, "argv"), *v;
	struct agent *a = st->a;
	size_t nargs = json_array_size(argv_j), i;
	const char *cwd = spur_json_str(m, "cwd", "/tmp");
	struct step_launch *l = calloc(1, sizeof(*l));
	struct job *j = running_job(a, st->job_id);

	if (!l || !(l->args = calloc(nargs + 1, sizeof(char *)))) {
		free(l);
		return;
	}
	l->base = json_deep_copy(json_object_get(m, "env"));
	json_array_foreach(argv_j, i, v)
		l->args[i] = (char *)(json_is_string(v) ? json_string_value(v) : "");
	/* the tasks enter cwd as the folder the user opened */
	l->dirfd = open_dir_as(cwd, (uid_t)spur_json_int(m, "uid", 0),
			       (gid_t)spur_json_int(m, "gid", 0));
	if (l->dirfd < 0) {
		char err[4400];

		snprintf(err, sizeof(err),
			 "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n", cwd,
			 strerror(errno));
		step_write(st, json_pack("{s:s,s:i,s:i,s:s}", "type", "io", "rank", -1, "fd", 2,
					 "data", err));
	}
	l->ngroups = spurd_user_groups((uid_t)spur_json_int(m, "uid", 0),
				       (gid_t)spur_json_int(m, "gid", 0), l->groups,
				       SPURD_MAX_GROUPS);
	/* the tasks live inside the job's limits, as its script does, and
	 * open only the step's GPUs */
	if (j) {
		const char *deny[SPUR_GPU_MAX + 1];
		char why[512];

		spurd_cgroup_job_dirs(&a->cg, j->id, j->run, &l->cgd);
		gpus_denied(a, m, deny);
		if (spurd_cgroup_step(&a->cg, j->id, j->run, st->step_id,
				      &(struct spurd_cgroup_limits){ .deny = deny,
								     .mem_mb = step_mem(m) },
				      &l->cgd, why, sizeof(why)))
			spur_warn("job %u step %u: %s", j->id, st->step_id, why);
		else
			st->cg_run = j->run;
	} else if ((st->remote = remote_get(a, m))) {
		const char *deny[SPUR_GPU_MAX + 1];
		char why[512];

		spurd_cgroup_job_dirs(&a->cg, st->job_id, st->remote->run, &l->cgd);
		gpus_denied(a, m, deny);
		if (spurd_cgroup_step(&a->cg, st->job_id, st->remote->run, st->step_id,
				      &(struct spurd_cgroup_limits){ .deny = deny,
								     .mem_mb = step_mem(m) },
				      &l->cgd, why, sizeof(why)))
			spur_warn("job %u step %u: %s", st->job_id, st->step_id, why);
		else
			st->cg_run = st->remote->run;
	}
	l->job_cpus = j ? j->cpus : st->remote ? st->remote->cpus : NULL;
	for (int c = 0; c < l->cgd.n; c++)
		l->cgroups[c] = l->cgd.dir[c];
	json_array_foreach(json_object_get(m, "ranks"), i, v)
		start_one_task(st, l, i, (int)json_integer_value(v));
	st->started_ms = uv_now(a->loop);
	step_limit_arm(st, spur_json_int(m, "time_limit", 0));
	/* scancel J.S came while srun's connection was being made: the tasks
	 * end as they start */
	for (size_t k = 0; st->limit_struck && k < st->ntasks; k++)
		task_signal(&st->tasks[k], SIGKILL);
	if (l->dirfd >= 0)
		close(l->dirfd);
	json_decref(l->base);
	free(l->args);
	free(l);
}

/* This node's ranks entered a fence: their data goes to srun, which
 * answers every node with all of it. */
static void on_fence(void *ctx, unsigned seq, const char *hex, size_t len)
{
	struct step *st = ctx;

	step_write(st, json_pack("{s:s,s:i,s:s%}", "type", "fence", "seq", (int)seq, "data", hex,
				 len));
}

static void on_pty_written(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

/* srun --pty: keys typed (hex) go into task 0's terminal, a new window
 * size onto it. */
static void on_in_written(uv_write_t *w, int status)
{
	(void)status; /* a task that stopped reading: its input is dropped */
	free(w);
}

static void on_in_ended(uv_shutdown_t *req, int status)
{
	(void)req;
	(void)status;
}

/* srun's stdin (not --pty): every task of the step here gets a copy, as
 * Slurm's default --input=all; "stdin_eof" ends it for them. */
static void tasks_input(struct step *st, const json_t *m)
{
	const char *hex = spur_json_str(m, "hex", "");
	size_t len = strlen(hex) / 2;
	bool eof = !strcmp(spur_json_str(m, "type", ""), "stdin_eof");
	/* "rank": only that task's (-i N); "except": every other task's end */
	json_int_t only = spur_json_int(m, "rank", -1), except = spur_json_int(m, "except", -1);

	for (size_t i = 0; i < st->ntasks; i++) {
		struct task *t = &st->tasks[i];
		uv_write_t *w;
		uv_buf_t b;
		char *data;

		if (!t->has_in || t->in_done || uv_is_closing((uv_handle_t *)&t->in) ||
		    (only >= 0 && t->rank != only) || (except >= 0 && t->rank == except))
			continue;
		if (eof) {
			t->in_done = true;
			if (uv_shutdown(&t->in_end, (uv_stream_t *)&t->in, on_in_ended))
				t->in_done = true;
			continue;
		}
		if (!(w = malloc(sizeof(*w) + len + 1)))
			continue;
		data = (char *)(w + 1);
		for (size_t k = 0; k < len; k++) {
			unsigned v = 0;

			sscanf(hex + 2 * k, "%2x", &v);
			data[k] = (char)v;
		}
		b = uv_buf_init(data, (unsigned)len);
		if (uv_write(w, (uv_stream_t *)&t->in, &b, 1, on_in_written))
			free(w);
	}
}

static void pty_input(struct step *st, const json_t *m)
{
	struct task *t = NULL;
	uv_os_fd_t fd;

	for (size_t i = 0; i < st->ntasks && !t; i++)
		if (st->tasks[i].pty && !st->tasks[i].exited && st->tasks[i].open_pipes > 0)
			t = &st->tasks[i];
	if (!t || uv_fileno((uv_handle_t *)&t->out[0], &fd))
		return;
	if (!strcmp(spur_json_str(m, "type", ""), "winsize")) {
		struct winsize ws = { .ws_row = (unsigned short)spur_json_int(m, "rows", 24),
				      .ws_col = (unsigned short)spur_json_int(m, "cols", 80) };

		ioctl(fd, TIOCSWINSZ, &ws);
		return;
	}
	const char *hex = spur_json_str(m, "hex", "");
	size_t len = strlen(hex) / 2;
	uv_write_t *w = malloc(sizeof(*w) + len);
	char *data = (char *)(w + 1);

	if (!w)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
			free(w);
			return;
		}
		data[i] = (char)v;
	}
	if (uv_write(w, (uv_stream_t *)&t->out[0], &(uv_buf_t){ .base = data, .len = len }, 1,
		     on_pty_written))
		free(w);
}

static void on_io_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct step *st = s->data;
	json_t *m;

	if (n > 0) {
		spur_wire_feed(&st->rd, buf->base, (size_t)n);
		while (spur_wire_next(&st->rd, &m, NULL) == 1) {
			if (!strcmp(spur_json_str(m, "type", ""), "kill")) {
				/* srun -K: a task failed, the step ends */
				for (size_t i = 0; i < st->ntasks; i++)
					task_signal(&st->tasks[i], SIGKILL);
			} else if (!strcmp(spur_json_str(m, "type", ""), "signal")) {
				/* a signal srun forwards (SIGUSR1, SIGINT...) */
				int sig = (int)spur_json_int(m, "sig", 0);

				for (size_t i = 0; sig > 0 && sig < 65 && i < st->ntasks; i++)
					task_signal(&st->tasks[i], sig);
			} else if (!spur_json_bool(st->msg, "pty", 0) &&
				   (!strcmp(spur_json_str(m, "type", ""), "stdin") ||
				    !strcmp(spur_json_str(m, "type", ""), "stdin_eof"))) {
				tasks_input(st, m);
			} else if (!strcmp(spur_json_str(m, "type", ""), "stdin") ||
				   !strcmp(spur_json_str(m, "type", ""), "winsize")) {
				pty_input(st, m);
			} else if (!strcmp(spur_json_str(m, "type", ""), "fence_done")) {
				const char *d = spur_json_str(m, "data", "");
				unsigned seq = (unsigned)spur_json_int(m, "seq", 0);

				if (st->pmix)
					spurd_pmix_fence_done(st->pmix, seq, d, strlen(d));
				if (st->pmi)
					spurd_pmi_fence_done(st->pmi, seq, d, strlen(d));
			}
			json_decref(m);
		}
	}
	free(buf->base);
	if (n < 0) {
		uv_read_stop(s);
		st->io_read_done = true;
		/* srun went, or hung up after our side ended: the step goes */
		if (st->io_ending && !uv_is_closing((uv_handle_t *)&st->io))
			uv_close((uv_handle_t *)&st->io, on_step_closed);
	}
}

/* cmd=abort from a task: the step ends, as srun -K would end it. */
static void on_pmi_abort(void *ctx, int rank, int code)
{
	struct step *st = ctx;
	char line[160];

	snprintf(line, sizeof(line), "srun: error: %s: task %d: MPI abort (exit code %d)\n",
		 st->a->node, rank, code);
	step_write(st, json_pack("{s:s,s:i,s:i,s:s}", "type", "io", "rank", rank, "fd", 2, "data",
				 line));
	for (size_t i = 0; i < st->ntasks; i++)
		task_signal(&st->tasks[i], SIGKILL);
}

/* srun --mpi=pmix or pmi2: the step's PMI on this node, from its layout. */
static int pmix_step(struct step *st, char *why, size_t wlen)
{
	const json_t *layout = json_object_get(st->msg, "layout"), *e;
	size_t n = json_array_size(layout), k, here = n;
	const char **names = calloc(n + 1, sizeof(char *));
	uint32_t *first = calloc(n + 1, sizeof(uint32_t)), *count = calloc(n + 1, sizeof(uint32_t));
	struct spurd_pmix_layout l = { .nnodes = n };
	char dir[4200];
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s/pmix", st->a->spool);
	if (!n || !names || !first || !count) {
		snprintf(why, wlen, "the step's layout is missing");
		goto out;
	}
	json_array_foreach(layout, k, e) {
		names[k] = spur_json_str(e, "node", "");
		first[k] = (uint32_t)spur_json_int(e, "first", 0);
		count[k] = (uint32_t)spur_json_int(e, "count", 0);
		l.ntasks += count[k];
		if (!strcmp(names[k], st->a->node))
			here = k;
	}
	if (here == n) {
		snprintf(why, wlen, "this node is not in the step's layout");
		goto out;
	}
	l.here = here;
	l.names = names;
	l.first = first;
	l.count = count;
	if (!strcmp(spur_json_str(st->msg, "mpi", ""), "pmi2")) {
		st->pmi = spurd_pmi_step_new(st->a->loop, st->job_id, st->step_id, &l, on_fence,
					     on_pmi_abort, st);
		if (!st->pmi)
			snprintf(why, wlen, "out of memory");
		rc = st->pmi ? 0 : -1;
		goto out;
	}
	if ((mkdir(dir, 0755) && errno != EEXIST) ||
	    spurd_pmix_init(st->a->loop, dir, why, wlen))
		goto out;
	st->pmix = spurd_pmix_step_new(st->job_id, st->step_id, &l,
				       (uid_t)spur_json_int(st->msg, "uid", 0),
				       (gid_t)spur_json_int(st->msg, "gid", 0), on_fence, st, why, wlen);
	rc = st->pmix ? 0 : -1;
out:
	free(names);
	free(first);
	free(count);
	return rc;
}

static void on_io_connect(uv_connect_t *req, int status)
{
	struct step *st = req->data;
	char why[512];

	if (status < 0) {
		spur_error_log("job %u step %u: cannot reach srun: %s", st->job_id, st->step_id,
			       uv_strerror(status));
		st->live = 1;
		uv_close((uv_handle_t *)&st->io, on_step_closed);
		return;
	}
	spur_wire_reader_init(&st->rd);
	uv_read_start((uv_stream_t *)&st->io, spur_uv_alloc, on_io_read);
	/* srun names the nodes that never reach it */
	step_write(st, json_pack("{s:s,s:s,s:I}", "type", "hello", "node", st->a->node, "node_index",
				 (json_int_t)spur_json_int(st->msg, "step_node", 0)));
	if (strcmp(spur_json_str(st->msg, "mpi", "none"), "none") && pmix_step(st, why, sizeof(why))) {
		char line[700];

		/* every rank fails as an exec would: srun says why */
		snprintf(line, sizeof(line), "srun: error: %s: PMI: %s\n", st->a->node, why);
		step_write(st, json_pack("{s:s,s:i,s:i,s:s}", "type", "io", "rank", -1, "fd", 2,
					 "data", line));
		spur_error_log("job %u step %u: PMI: %s", st->job_id, st->step_id, why);
		for (size_t i = 0; i < st->ntasks; i++) {
			st->tasks[i].rank = (int)json_integer_value(
				json_array_get(json_object_get(st->msg, "ranks"), i));
			st->tasks[i].exited = true;
			step_write(st, json_pack("{s:s,s:i,s:i}", "type", "exit", "rank",
						 st->tasks[i].rank, "code", 2));
		}
		st->live = 1;
		uv_close((uv_handle_t *)&st->io, on_step_closed);
		return;
	}
	start_tasks(st);
}

static void launch_step(struct agent *a, json_t *m)
{
	struct step *st = calloc(1, sizeof(*st));
	struct sockaddr_in sa;
	size_t n = json_array_size(json_object_get(m, "ranks"));

	if (!st || !n || !(st->tasks = calloc(n, sizeof(struct task)))) {
		free(st);
		return;
	}
	st->a = a;
	st->job_id = (uint32_t)spur_json_int(m, "job_id", 0);
	st->step_id = (uint32_t)spur_json_int(m, "step_id", 0);
	st->msg = json_incref(m);
	st->attached = (struct spurd_attach_set){ .greet = step_greet, .ctx = st };
	st->ntasks = st->live = n;
	st->next = steps;
	steps = st;
	uv_tcp_init(a->loop, &st->io);
	st->io.data = st;
	st->creq.data = st;
	if (uv_ip4_addr(spur_json_str(m, "io_host", "127.0.0.1"),
			(int)spur_json_int(m, "io_port", 0), &sa) ||
	    uv_tcp_connect(&st->creq, &st->io, (const struct sockaddr *)&sa, on_io_connect)) {
		st->live = 1;
		uv_close((uv_handle_t *)&st->io, on_step_closed);
	}
}

/* slurmstepd's line to each step's srun when the job is cancelled or at
 * its limit, before the tasks are signalled (Slurm's words). */
/* slurmstepd's "*** STEP J.S ON NODE CANCELLED AT T[ DUE TO TIME LIMIT] ***"
 * to the step's srun, an io frame with "stepd" and why (flag: "job", the
 * job ends; "cancel", scancel J.S; "time_limit", the step's own). */
static void stepd_note(struct step *st, bool time_limit, const char *flag)
{
	char when[32], line[256];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(line, sizeof(line), "slurmstepd: error: *** STEP %u.%u ON %s CANCELLED AT %s%s ***\n",
		 st->job_id, st->step_id, st->a->node, when, time_limit ? " DUE TO TIME LIMIT" : "");
	step_write(st, json_pack("{s:s,s:i,s:i,s:b,s:b,s:s}", "type", "io", "rank", 0, "fd", 2,
				 "stepd", 1, flag, 1, "data", line));
}

static void steps_note(uint32_t job_id, bool time_limit)
{
	/* "job": the job ends, srun is told (no "Force Terminated") */
	for (struct step *st = steps; st; st = st->next)
		if (st->job_id == job_id && st->ntasks && st->live)
			stepd_note(st, time_limit, "job");
}

static void kill_steps(uint32_t job_id, int sig)
{
	for (struct step *st = steps; st; st = st->next)
		if (st->job_id == job_id)
			for (size_t i = 0; i < st->ntasks; i++)
				task_signal(&st->tasks[i], sig);
}

/* A step ended here as slurmstepd ends one: its line on srun's stderr
 * ("*** STEP J.S ON NODE CANCELLED AT T[ DUE TO TIME LIMIT] ***"; the
 * frame's "cancel" or "time_limit" tells srun which); at its time limit
 * SIGTERM, then SIGKILL after KillWait (the step's timer, st->limit);
 * cancelled (scancel J.S), SIGKILL at once. */
static void on_step_limit(uv_timer_t *t);

static void step_end_now(struct step *st, bool time_limit)
{
	if (st->limit_struck)
		return;
	st->limit_struck = true;
	stepd_note(st, time_limit, time_limit ? "time_limit" : "cancel");
	for (size_t i = 0; i < st->ntasks; i++) {
		task_signal(&st->tasks[i], SIGCONT);
		task_signal(&st->tasks[i], time_limit ? SIGTERM : SIGKILL);
	}
	if (!time_limit)
		return;
	if (!st->limit && (st->limit = malloc(sizeof(*st->limit)))) {
		uv_timer_init(st->a->loop, st->limit);
		st->limit->data = st;
	}
	if (st->limit)
		uv_timer_start(st->limit, on_step_limit,
			       (uint64_t)(st->a->kill_wait > 0 ? st->a->kill_wait : 1) * 1000, 0);
}

/* srun -t: the step's limit (then its KillWait: SIGKILL). */
static void on_step_limit(uv_timer_t *t)
{
	struct step *st = t->data;

	if (!st)
		return;
	if (!st->limit_struck) {
		step_end_now(st, true);
		return;
	}
	for (size_t i = 0; i < st->ntasks; i++)
		task_signal(&st->tasks[i], SIGKILL);
}

/* The step's limit, secs from its start (0: none): its alarm (re)set. */
static void step_limit_arm(struct step *st, json_int_t secs)
{
	uint64_t now = uv_now(st->a->loop), at = st->started_ms + (uint64_t)secs * 1000;

	if (st->limit_struck)
		return;
	if (secs <= 0) {
		if (st->limit)
			uv_timer_stop(st->limit);
		return;
	}
	if (!st->limit) {
		if (!(st->limit = malloc(sizeof(*st->limit))))
			return;
		uv_timer_init(st->a->loop, st->limit);
		st->limit->data = st;
	}
	uv_timer_start(st->limit, on_step_limit, at > now ? at - now : 0, 0);
}

/* scontrol update StepId= TimeLimit=: the controller's new limit. */
static void step_limit_update(const json_t *msg)
{
	for (struct step *st = steps; st; st = st->next)
		if (st->job_id == (uint32_t)spur_json_int(msg, "job_id", 0) &&
		    st->step_id == (uint32_t)spur_json_int(msg, "step_id", 0) && st->ntasks)
			step_limit_arm(st, spur_json_int(msg, "time_limit", 0));
}

/* scancel J.S: the controller's signal to one step (0: cancel it). */
static void step_signal(const json_t *msg)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	uint32_t sid = (uint32_t)spur_json_int(msg, "step_id", 0);
	int sig = (int)spur_json_int(msg, "signal", 0);

	for (struct step *st = steps; st; st = st->next) {
		if (st->job_id != id || st->step_id != sid || !st->ntasks)
			continue;
		if (!sig || sig == SIGKILL)
			step_end_now(st, false);
		else if (sig > 0 && sig < 65)
			for (size_t i = 0; i < st->ntasks; i++)
				task_signal(&st->tasks[i], sig);
	}
}

/* The controller's signal to a job: scope "steps" (scancel -s SIG: the
 * steps alone), "batch" (-b: the batch shell alone, not its children),
 * absent or "full" (the shell's process group and the steps); "cancelled"
 * and "time_limit" add slurmstepd's lines. */
static void job_signal(struct agent *a, const json_t *msg)
{
	uint32_t sid = (uint32_t)spur_json_int(msg, "job_id", 0);
	int sig = (int)spur_json_int(msg, "signal", SIGTERM);
	const char *scope = spur_json_str(msg, "scope", "full");

	/* slurmstepd's STEP lines first: on their way to srun before it and
	 * the script are signalled */
	if (spur_json_bool(msg, "cancelled", 0) || spur_json_bool(msg, "time_limit", 0))
		steps_note(sid, spur_json_bool(msg, "time_limit", 0));
	for (struct job *j = a->jobs; j && strcmp(scope, "steps"); j = j->next) {
		if (j->id != sid)
			continue;
		/* scancel: the supervisor says so in the job's stderr */
		if (spur_json_bool(msg, "cancelled", 0))
			cancel_note(j);
		if (!strcmp(scope, "batch"))
			kill_shell(j, sig);
		else
			kill_group(j, sig);
	}
	if (strcmp(scope, "batch"))
		kill_steps(sid, sig);
}

/* ---------------------------------------------------------------- link */

static void send_msg(struct agent *a, json_t *msg)
{
	if (!a->connected) {
		json_decref(msg); /* the controller learns at re-registration */
		return;
	}
	spur_uv_send((uv_stream_t *)&a->tcp, msg);
}

static void on_retry(uv_timer_t *t)
{
	try_connect(t->data);
}

/* The next controller at once; after a whole round, a second's pause. */
static void on_tcp_closed(uv_handle_t *h)
{
	struct agent *a = h->data;

	a->connecting = false;
	a->cur = (a->cur + 1) % a->nctl;
	uv_timer_start(&a->retry, on_retry, a->cur ? 50 : 1000, 0);
}

/* Bytes from the controller wait in the socket, not yet read. */
static bool unread(struct agent *a)
{
	uv_os_fd_t fd;
	char b;

	return !uv_fileno((uv_handle_t *)&a->tcp, &fd) &&
	       recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/* A controller that stops talking (paused, cut off by the network) is
 * left for the next one: the leader sends a ping every second. A connect
 * that hangs is given up too. */
/* The host's load average (x100) and MemAvailable (MB) to the controller,
 * every 30 s while connected: scontrol show node's CPULoad and FreeMem. */
static void send_load(struct agent *a)
{
	double l[1];
	long long free_kb = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &free_kb) == 1)
			break;
	if (f)
		fclose(f);
	a->load_sent = uv_now(a->loop);
	if (getloadavg(l, 1) != 1)
		return;
	send_msg(a, json_pack("{s:s,s:I,s:I}", "type", "node_load", "load",
			      (json_int_t)(l[0] * 100 + 0.5), "free_mb",
			      (json_int_t)(free_kb < 0 ? -1 : free_kb / 1024)));
}

static void on_alive(uv_timer_t *t)
{
	struct agent *a = t->data;
	uint64_t quiet = uv_now(a->loop) - a->heard;

	if (a->connected && uv_now(a->loop) - a->load_sent >= 30000)
		send_load(a);
	/* libuv runs timers before it polls: an agent that got no CPU for
	 * seconds (a node flooded with work) finds the controller's frames
	 * waiting unread, and they count as heard */
	if (a->connected && quiet > a->silence_ms) {
		if (unread(a)) {
			a->heard = uv_now(a->loop);
			return;
		}
		spur_warn("controller %s:%u silent for %llu ms; trying the next one",
			  a->ctl[a->cur].host, a->ctl[a->cur].port, (unsigned long long)quiet);
		disconnect(a);
	} else if (a->connecting && quiet > AGENT_SILENCE_MS &&
		   !uv_is_closing((uv_handle_t *)&a->tcp)) {
		spur_debug("connect to %s:%u: no answer in %llu ms", a->ctl[a->cur].host,
			   a->ctl[a->cur].port,
			   (unsigned long long)quiet);
		uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
	}
}

static void disconnect(struct agent *a)
{
	if (!a->connected && uv_is_closing((uv_handle_t *)&a->tcp))
		return;
	a->connected = false;
	a->trusted = false;
	spur_wire_reader_fini(&a->rd);
	if (!uv_is_closing((uv_handle_t *)&a->tcp))
		uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct agent *a = s->data;
	json_t *msg;
	struct spur_error err;
	int rc;

	if (n < 0) {
		free(buf->base);
		spur_warn("lost the controller: %s; reconnecting", uv_strerror((int)n));
		disconnect(a);
		return;
	}
	spur_wire_feed(&a->rd, buf->base, (size_t)n);
	free(buf->base);
	a->heard = uv_now(a->loop);
	while ((rc = spur_wire_next(&a->rd, &msg, &err)) == 1) {
		const char *type = spur_json_str(msg, "type", "");

		if (!a->trusted && (!strcmp(type, "launch") || !strcmp(type, "step") ||
				    !strcmp(type, "signal") || !strcmp(type, "attach") ||
				    !strcmp(type, "step_signal") || !strcmp(type, "step_limit") ||
				    !strcmp(type, "stat") || !strcmp(type, "limit"))) {
			/* only a controller that holds the key starts work here */
			spur_error_log("%s from a controller that has not shown the cluster key; "
				       "ignored",
				       type);
		} else if (!strcmp(type, "ok") && json_is_string(json_object_get(msg, "auth"))) {
			struct spur_ident id;

			if (spur_token_verify(&a->key, spur_json_str(msg, "auth", ""),
					      (int64_t)time(NULL), &id, &err) ||
			    id.role != SPUR_ROLE_CONTROLLER) {
				spur_error_log("the controller's credential is not valid: %s", err.msg);
				json_decref(msg);
				disconnect(a);
				return;
			}
			a->trusted = true;
		} else if (!strcmp(type, "launch")) {
			launch(a, msg);
		} else if (!strcmp(type, "step")) {
			launch_step(a, msg);
		} else if (!strcmp(type, "attach")) {
			attach_step(a, msg);
		} else if (!strcmp(type, "stat")) {
			stat_job(a, msg);
		} else if (!strcmp(type, "signal")) {
			job_signal(a, msg);
		} else if (!strcmp(type, "step_signal")) {
			step_signal(msg);
		} else if (!strcmp(type, "step_limit")) {
			step_limit_update(msg);
		} else if (!strcmp(type, "limit")) {
			job_limit(a, msg);
		} else if (!strcmp(type, "finished_ack")) {
			report_acked(a, msg);
		} else if (!strcmp(type, "error") && spur_json_bool(msg, "not_leader", 0)) {
			/* a follower: the next controller may lead */
			spur_info("%s", spur_json_str(msg, "message", "not the leader"));
			json_decref(msg);
			disconnect(a);
			return;
		} else if (!strcmp(type, "error")) {
			spur_error_log("controller: %s", spur_json_str(msg, "message", "?"));
		}
		json_decref(msg);
	}
	if (rc < 0) {
		spur_error_log("controller sent a bad frame: %s", err.msg);
		disconnect(a);
	}
}

static json_t *failed_gpus(const struct agent *a)
{
	json_t *v = json_array();

	for (size_t g = 0; g < a->gpus.n; g++)
		if (a->gpu_failed >> g & 1)
			json_array_append_new(v, json_integer((json_int_t)g));
	return v;
}

/* Every second: ask the GPU backend which GPUs have failed; a new failure
 * goes to the controller, which drains the node and requeues the jobs on
 * that GPU. A failed GPU stays failed until the agent restarts. */
static void on_health(uv_timer_t *t)
{
	struct agent *a = t->data;
	char why[128];
	uint32_t now = spur_gpu_health(&a->gpus, a->gpu_arg, why, sizeof(why));

	if (!(now & ~a->gpu_failed))
		return;
	a->gpu_failed |= now;
	snprintf(a->gpu_why, sizeof(a->gpu_why), "%s", why);
	spur_error_log("node %s: %s", a->node, why);
	if (a->connected)
		send_msg(a, json_pack("{s:s,s:s,s:o,s:s}", "type", "gpu_failed", "node", a->node,
				      "gpus", failed_gpus(a), "reason", a->gpu_why));
}

/* HealthCheckProgram failed: the controller drains the node with why. */
static void on_health_failed(void *ctx, const char *why)
{
	struct agent *a = ctx;

	snprintf(a->health_why, sizeof(a->health_why), "%s", why);
	spur_error_log("node %s: %s", a->node, why);
	if (a->connected)
		send_msg(a, json_pack("{s:s,s:s,s:s}", "type", "health_failed", "node", a->node,
				      "reason", why));
}

static bool on_health_busy(void *ctx)
{
	const struct agent *a = ctx;

	for (const struct job *j = a->jobs; j; j = j->next)
		if (j->running)
			return true;
	return false;
}

/* The steps running here and what each holds of its job on this node (the
 * controller's "share" of the step), for a controller that took over: it
 * keeps steps' shares in memory only. */
static json_t *running_steps(void)
{
	json_t *out = json_array();

	for (const struct step *st = steps; st; st = st->next)
		if (st->msg)
			json_array_append_new(out, json_pack("{s:I,s:I,s:O*}", "job_id",
							     (json_int_t)st->job_id, "step_id",
							     (json_int_t)st->step_id, "share",
							     json_object_get(st->msg, "share")));
	return out;
}

static void on_connect(uv_connect_t *req, int status)
{
	struct agent *a = req->data;
	json_t *gpus, *jobs;
	char *tok;

	a->connecting = false;
	if (status < 0) {
		spur_debug("connect to %s:%u: %s", a->ctl[a->cur].host, a->ctl[a->cur].port,
			   uv_strerror(status));
		if (!uv_is_closing((uv_handle_t *)&a->tcp))
			uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
		return;
	}
	if (!a->have_key) {
		struct spur_error err;

		if (spur_auth_key_load(a->key_path, false, &a->key, &err)) {
			/* the controller makes it at its first start */
			spur_warn("%s; retrying", err.msg);
			uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
			return;
		}
		a->have_key = true;
	}
	tok = spur_token_sign(&a->key, "root", SPUR_ROLE_AGENT, a->node, (int64_t)time(NULL), 300,
			      NULL);
	if (!tok) {
		uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
		return;
	}
	a->connected = true;
	a->heard = uv_now(a->loop);
	spur_wire_reader_init(&a->rd);
	uv_read_start((uv_stream_t *)&a->tcp, spur_uv_alloc, on_read);
	gpus = json_array();
	jobs = json_array();
	for (size_t g = 0; g < a->gpus.n; g++) {
		json_t *links = json_array();

		for (size_t o = 0; o < a->gpus.n; o++)
			json_array_append_new(links,
					      json_string(spur_gpu_link_name(a->gpus.links[g][o])));
		json_array_append_new(gpus, json_pack("{s:i,s:s,s:s,s:i,s:o}", "index", (int)g, "type",
						      a->gpus.gpus[g].type, "path",
						      a->gpus.gpus[g].path, "numa", a->gpus.gpus[g].numa,
						      "links", links));
	}
	for (struct job *j = a->jobs; j; j = j->next)
		if (j->running)
			json_array_append_new(jobs, json_integer(j->id));
	/* ended while away: they count as known to this node */
	for (size_t i = 0; i < json_array_size(a->unsent); i++)
		json_array_append_new(jobs, json_integer(spur_json_int(
						    json_array_get(a->unsent, i), "job_id", 0)));
	a->load_sent = 0; /* the host's load follows the registration */
	send_msg(a, json_pack("{s:s,s:s,s:i,s:I,s:o,s:o,s:o,s:o,s:s,s:s}", "type", "register",
			      "node", a->node, "cpus", (int)a->cpus, "memory", (json_int_t)a->mem_mb,
			      "gpus", gpus, "jobs", jobs, "steps", running_steps(), "gpus_failed",
			      failed_gpus(a), "gpu_reason", a->gpu_why, "auth", tok));
	free(tok);
	for (size_t i = 0; i < json_array_size(a->unsent); i++)
		send_msg(a, json_incref(json_array_get(a->unsent, i)));
	/* a failed health check while away: the node is still to be drained */
	if (*a->health_why)
		send_msg(a, json_pack("{s:s,s:s,s:s}", "type", "health_failed", "node", a->node,
				      "reason", a->health_why));
	spur_info("registering with %s:%u", a->ctl[a->cur].host, a->ctl[a->cur].port);
}

static void try_connect(struct agent *a)
{
	struct sockaddr_in sa;

	uv_tcp_init(a->loop, &a->tcp);
	a->tcp.data = a;
	a->conn_req.data = a;
	a->heard = uv_now(a->loop);
	a->connecting = true;
	if (uv_ip4_addr(a->ctl[a->cur].host, a->ctl[a->cur].port, &sa) ||
	    uv_tcp_connect(&a->conn_req, &a->tcp, (const struct sockaddr *)&sa, on_connect))
		uv_close((uv_handle_t *)&a->tcp, on_tcp_closed);
}

static void on_signal(uv_signal_t *h, int sig)
{
	spur_info("signal %d: stopping (running jobs continue)", sig);
	uv_stop(h->loop);
}

static void close_handle(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Release everything, so that leak checkers see a clean exit. Running jobs
 * are in their own sessions and go on. */
static void teardown(struct agent *a)
{
	spurd_pmix_fini();
	uv_walk(a->loop, close_handle, NULL);
	uv_run(a->loop, UV_RUN_DEFAULT);
	uv_loop_close(a->loop);
	while (a->warns) {
		struct step_warn *w = a->warns;

		a->warns = w->next;
		free(w);
	}
	while (a->jobs) {
		struct job *j = a->jobs;

		a->jobs = j->next;
		free(j);
	}
	spur_wire_reader_fini(&a->rd);
	json_decref(a->unsent);
	free(a->prolog);
	free(a->epilog);
	free(a->health_program);
	free(a->task_prolog);
	free(a->task_epilog);
	spur_log_close();
}

/* The controllers: -c HOST:PORT[,HOST:PORT...], else every SlurmctldHost
 * of the configuration. */
static int agent_ctlds(struct agent *a, const struct spur_conf *conf, const char *ctl)
{
	size_t len = 0;

	if (ctl && *ctl) {
		long n = spur_hostports_parse(ctl, conf->ctld_port, a->ctl, AGENT_MAX_CTLDS);

		if (n <= 0) {
			fprintf(stderr, "spurd: error: -c %s: expected HOST:PORT[,HOST:PORT...]\n", ctl);
			return -1;
		}
		a->nctl = (size_t)n;
	} else {
		a->nctl = spur_conf_ctld_addrs(conf, a->ctl, AGENT_MAX_CTLDS);
	}
	/* several controllers: a silent one is left for the next at once (the
	 * leader pings every second); with one there is no other to go to, and
	 * a reconnect would drop what it is sending (a controller busy for
	 * seconds sending a step to a thousand nodes is not gone): only a
	 * connection dead for three MessageTimeouts is given up */
	a->silence_ms = AGENT_SILENCE_MS;
	if (a->nctl == 1 && 3000ULL * conf->message_timeout > a->silence_ms)
		a->silence_ms = 3000ULL * conf->message_timeout;
	for (size_t i = 0; i < a->nctl; i++)
		len += (size_t)snprintf(ctld_list + len, sizeof(ctld_list) - len, "%s%s:%u",
					i ? "," : "", a->ctl[i].host, a->ctl[i].port);
	return 0;
}

/* spurd -C: the node as found, ready for slurm.conf (as slurmd -C). */
static void print_found(const struct agent *a, const char *cgline)
{
	printf("NodeName=%s CPUs=%u RealMemory=%llu", a->node, a->cpus,
	       (unsigned long long)a->mem_mb);
	if (a->gpus.n)
		printf(" Gres=gpu:%s:%zu", a->gpus.gpus[0].type, a->gpus.n);
	printf("\n");
	if (a->gpus.n) {
		printf("# GPUs (%s):", a->gpus.backend);
		for (size_t g = 0; g < a->gpus.n; g++)
			printf(" %s", a->gpus.gpus[g].path);
		printf("\n# links:\n");
		for (size_t g = 0; g < a->gpus.n; g++) {
			printf("#  GPU%-2zu", g);
			for (size_t o = 0; o < a->gpus.n; o++)
				printf(" %-6.6s", spur_gpu_link_name(a->gpus.links[g][o]));
			printf("\n");
		}
	}
	printf("# %s\n", cgline);
}

/* The agent's life once configured: its loop, until a signal stops it. 1
 * when it cannot start (an unsafe spool folder). */
static int agent_run(struct agent *a, const char *cgline, const char *conf_gpus)
{
	char why[512];

	a->loop = uv_default_loop();
	a->unsent = json_array();
	uv_timer_init(a->loop, &a->retry);
	a->retry.data = a;
	uv_timer_init(a->loop, &a->watch);
	a->watch.data = a;
	uv_timer_init(a->loop, &a->sweep); /* before adopt_jobs: a job found ended sweeps */
	a->sweep.data = a;
	uv_signal_init(a->loop, &a->sterm);
	uv_signal_start(&a->sterm, on_signal, SIGTERM);
	uv_signal_init(a->loop, &a->sint);
	uv_signal_start(&a->sint, on_signal, SIGINT);
	signal(SIGPIPE, SIG_IGN);
	spur_info("node %s: %u cpus, %llu MB, %zu %s GPUs (%s); controller %s:%u", a->node, a->cpus,
		  (unsigned long long)a->mem_mb, a->gpus.n, a->gpus.n ? a->gpus.gpus[0].type : "",
		  a->gpus.backend ? a->gpus.backend : "none", a->ctl[0].host, a->ctl[0].port);
	if (*conf_gpus && (size_t)atoi(strrchr(conf_gpus, ':') + 1) != a->gpus.n)
		spur_warn("node %s: the configuration says gpu %s, %zu found", a->node, conf_gpus,
			  a->gpus.n);
	spur_info("node %s: %s", a->node, cgline);
	mkdir_p(a->spool, 0755);
	if (!spool_is_safe(a->spool, why, sizeof(why))) {
		spur_error_log("%s", why);
		fprintf(stderr, "spurd: error: %s\n", why);
		return 1;
	}
	if (spurd_spool_init(&a->pool, a->spool))
		spur_warn("spool folder %s: no pool of job folders: %s", a->spool, strerror(errno));
	adopt_jobs(a);
	if (a->health_program)
		spurd_healthcheck_start(&a->hc, a->loop, a->health_program, a->health_interval,
					a->health_states, on_health_failed, on_health_busy, a);
	uv_timer_init(a->loop, &a->health);
	a->health.data = a;
	if (a->gpus.n) {
		on_health(&a->health); /* failed before the agent started: said at registration */
		uv_timer_start(&a->health, on_health, 1000, 1000);
	}
	uv_timer_init(a->loop, &a->alive);
	a->alive.data = a;
	uv_timer_start(&a->alive, on_alive, 500, 500);
	try_connect(a);
	uv_run(a->loop, UV_RUN_DEFAULT);
	return 0;
}

/* The site's node hooks from slurm.conf: Prolog, Epilog, the health
 * check. -1 (said on stderr) when one is not usable. */
static int agent_hooks(struct agent *a, const struct spur_conf *conf)
{
	char why[256];

	struct spur_error err;

	if (spur_conf_daemon_check(conf, &err)) {
		fprintf(stderr, "spurd: error: %s\n", err.msg);
		return -1;
	}
	if (spurd_healthcheck_states(conf->health_states, &a->health_states, why, sizeof(why))) {
		fprintf(stderr, "spurd: error: %s\n", why);
		return -1;
	}
	a->prolog = conf->prolog && *conf->prolog ? strdup(conf->prolog) : NULL;
	a->epilog = conf->epilog && *conf->epilog ? strdup(conf->epilog) : NULL;
	a->health_program = conf->health_program && *conf->health_program
				    ? strdup(conf->health_program)
				    : NULL;
	a->health_interval = conf->health_interval;
	a->task_prolog = conf->task_prolog && *conf->task_prolog ? strdup(conf->task_prolog) : NULL;
	a->task_epilog = conf->task_epilog && *conf->task_epilog ? strdup(conf->task_epilog) : NULL;
	snprintf(a->cluster, sizeof(a->cluster), "%s", conf->cluster_name ? conf->cluster_name : "");
	return 0;
}

/* spurd's command line (a, the agent, takes -N, -s, --cpus, --mem). */
struct spurd_args {
	const char *conf_path, *logfile, *ctl, *gpus_arg, *cgroup_root, *cgroup_name;
	int verbose;
	bool show;
};

/* 0: go on; 1: done (help); -1: an error, said. */
static int parse_args(int argc, char **argv, struct agent *a, struct spurd_args *o)
{
	static const struct option opts[] = {
		{ "gpus", required_argument, NULL, 'g' },
		{ "cpus", required_argument, NULL, 1001 },
		{ "mem", required_argument, NULL, 1002 },
		{ "cgroup-root", required_argument, NULL, 1003 },
		{ "cgroup-name", required_argument, NULL, 1004 },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/* $SPURD_CGROUP_NAME: --cgroup-name for every agent a script starts */
	*o = (struct spurd_args){ .cgroup_name = getenv("SPURD_CGROUP_NAME") };
	while ((opt = getopt_long(argc, argv, "N:f:c:s:L:g:vhC", opts, NULL)) != -1) {
		switch (opt) {
		case 'N': a->node = optarg; break;
		case 'f': o->conf_path = optarg; break;
		case 'c': o->ctl = optarg; break;
		case 's': a->spool = optarg; break;
		case 'L': o->logfile = optarg; break;
		case 'g': o->gpus_arg = optarg; break;
		case 1001: a->cpus = (uint32_t)atoi(optarg); break;
		case 1002: a->mem_mb = (uint64_t)atoll(optarg); break;
		case 1003: o->cgroup_root = optarg; break;
		case 'v': o->verbose++; break;
		case 'C': o->show = true; break;
		case 1004:
			if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") ||
			    !strcmp(optarg, "..")) {
				fprintf(stderr, "spurd: --cgroup-name: one folder name, not '%s'\n",
					optarg);
				return -1;
			}
			o->cgroup_name = optarg;
			break;
		default:
			fprintf(stderr, "Usage: spurd [-C] [-N NODENAME] [-f slurm.conf] [-c HOST:PORT] [-s "
					"SPOOL] [-L LOG] [--gpus auto|kfd[:ROOT]|nvml[:LIB]|none|FILE|TYPE:N] "
					"[--cgroup-name NAME] [-v]\n");
			return opt == 'h' ? 1 : -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct spurd_args args;
	struct agent a = { 0 };
	const char *conf_path, *logfile, *ctl, *gpus_arg, *cgroup_root, *cgroup_name;
	char cgline[1024];
	char conf_gpus[64] = "";
	struct spur_conf *conf;
	struct spur_error err;
	char spool[4096], hostname[256];
	int verbose, rc;
	long idx;
	bool show;

	switch (parse_args(argc, argv, &a, &args)) {
	case 1:
		return 0;
	case -1:
		return 1;
	}
	conf_path = args.conf_path;
	logfile = args.logfile;
	ctl = args.ctl;
	gpus_arg = args.gpus_arg;
	cgroup_root = args.cgroup_root;
	cgroup_name = args.cgroup_name;
	verbose = args.verbose;
	show = args.show;
	if (!conf_path)
		conf_path = getenv("SPUR_CONF") ? getenv("SPUR_CONF") : getenv("SLURM_CONF");
	conf = conf_path ? spur_conf_load(conf_path, 0, &err) : spur_conf_default(&err);
	if (!conf) {
		fprintf(stderr, "spurd: error: %s\n", err.msg);
		return 1;
	}
	spur_auth_key_path(conf, a.key_path, sizeof(a.key_path));
	gethostname(hostname, sizeof(hostname));
	a.node = a.node ? a.node : hostname;
	idx = spur_conf_node_index(conf, a.node);
	if (idx >= 0) {
		const struct spur_conf_node *n = &conf->nodes[idx];

		a.cpus = a.cpus ? a.cpus : n->cpus;
		a.mem_mb = a.mem_mb ? a.mem_mb : n->real_memory_mb;
		for (size_t g = 0; g < n->gres.n; g++)
			if (!strcmp(n->gres.items[g].name, "gpu"))
				snprintf(conf_gpus, sizeof(conf_gpus), "%s:%llu",
					 n->gres.items[g].type[0] ? n->gres.items[g].type : "gpu",
					 (unsigned long long)n->gres.items[g].count);
	}
	/* GPUs: --gpus auto | kfd[:ROOT] | nvml[:LIB] | cdi[:DIRS] | none | FILE | TYPE:N; else the
	 * config's Gres= as fake GPUs (simulated nodes) */
	if (!gpus_arg)
		gpus_arg = *conf_gpus ? conf_gpus : "none";
	{
		rc = spur_gpu_discover(gpus_arg, &a.gpus, &a.gpu_arg, &err);
		if (rc) {
			fprintf(stderr, "spurd: error: GPUs: %s\n", err.msg);
			spur_conf_destroy(conf);
			return 1;
		}
	}
	if (!a.cpus)
		a.cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	if (!a.mem_mb)
		a.mem_mb = (uint64_t)sysconf(_SC_PHYS_PAGES) / 1024 * (uint64_t)sysconf(_SC_PAGESIZE) /
			   1024;
	a.host_cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	spurd_cgroup_init(&a.cg, cgroup_root, cgroup_name, a.node);
	spurd_cgroup_describe(&a.cg, cgline, sizeof(cgline));
	if (a.cg.cpuset && a.cpus > a.host_cpus)
		snprintf(cgline + strlen(cgline), sizeof(cgline) - strlen(cgline),
			 "; no cpusets: %u CPUs configured, %u on this host", a.cpus, a.host_cpus);
	if (show) {
		print_found(&a, cgline);
		spur_conf_destroy(conf);
		return 0;
	}
	if (agent_ctlds(&a, conf, ctl)) {
		spur_conf_destroy(conf);
		return 1;
	}
	a.kill_wait = conf->kill_wait ? (int)conf->kill_wait : 30;
	if (agent_hooks(&a, conf)) {
		spur_conf_destroy(conf);
		return 1;
	}
	if (!a.spool) {
		spool_path(conf->spool_dir, a.node, spool, sizeof(spool));
		a.spool = spool;
	}
	if (spur_log_open("spurd", (enum spur_log_level)(conf->agent_debug + verbose), logfile,
			  &err)) {
		fprintf(stderr, "spurd: error: %s\n", err.msg);
		spur_conf_destroy(conf);
		return 1;
	}
	a.ctr.spool = a.spool;
	a.ctr.node = a.node;
	a.ctr.store = conf->image_store;
	a.ctr.runtime = conf->container_runtime;
	spurd_ctr_node_init(&a.ctr, &a.gpus, a.gpu_arg, conf->cdi_spec_dirs);
	rc = agent_run(&a, cgline, conf_gpus);
	teardown(&a);
	spurd_ctr_node_fini(&a.ctr);
	spur_conf_destroy(conf);
	return rc;
}
