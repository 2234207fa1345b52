/* SPDX-License-Identifier: Apache-2.0 */
/* The job supervisor: forked by spurd for each batch job (no program of its
 * own is started, so nothing of the job's reaches a loader running as root),
 * in a session of its own, with a fixed environment. It starts
 * DIR/slurm_script in a process group of its own, with the job's
 * environment, as the job's user; the working folder and the output files
 * are entered and opened only after the switch to that user, so they are
 * the user's and only where the user may go. It enforces the time limit,
 * forwards the signals it is sent to the job's group, and writes the result
 * to DIR/status when the script ends. It needs nothing from spurd once
 * started, so a job outlives an agent restart and its result waits in DIR
 * for the next agent (docs/rfc/0003-wire.md §3). The cgroups (one on v2, one
 * per controller on v1) are the job's, which it joins first, so that everything the job starts is
 * inside the limits.
 *
 * DIR/state holds two lines, each added in one write: "SUPERVISOR PGID"
 * once the job's process group exists, then "EXIT TIMED_OUT" when the
 * script ends. */
#include "agent/supervise.h"

#include "agent/exec.h"
#include "agent/oci.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static volatile sig_atomic_t alarm_fired, limit_changed, pending, cancelled;
static volatile pid_t child;

static void on_signal(int sig)
{
	if (sig == SIGALRM)
		alarm_fired = 1;
	else if (sig == SPURD_SUPERVISE_LIMIT_SIG)
		limit_changed = 1;
	else if (sig == SPURD_SUPERVISE_CANCEL_SIG)
		cancelled = 1;
	else if (child > 0)
		kill(-child, sig);
	else
		pending = sig; /* before the job exists: delivered once it does */
}

/* Add one line to DIR/state in one write (O_APPEND): a reader takes only
 * whole lines, so it sees a line all or not at all, and no temporary file
 * and rename are needed (each created file costs the spool's file system an
 * inode, and a node starts many short jobs). No fsync: the file must
 * outlive the agent, not the machine (a machine that goes down takes its
 * jobs with it). */
static int put_line(const char *dir, const char *line)
{
	char path[4200];
	int fd;
	ssize_t n, len = (ssize_t)strlen(line);

	snprintf(path, sizeof(path), "%s/state", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	n = write(fd, line, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}


/* SLURM_TASK_PID=, filled in by the job's process (job_env). */
static char task_pid[48];

/* The job's environment and SLURM_TASK_PID, whose value the job's process
 * writes (into task_pid) once it has its pid. NULL: no memory. */
__attribute__((noinline)) static char **job_env(char **env)
{
	size_t n = 0;
	char **v;

	while (env && env[n])
		n++;
	if (!(v = calloc(n + 2, sizeof(*v))))
		return NULL;
	memcpy(v, env, n * sizeof(*v));
	v[n] = task_pid;
	return v;
}

/* In the job's process, before its script starts: become the job's user,
 * enter its folder (as slurmstepd: /tmp when it cannot), open its output,
 * run its TaskProlog (env NULL: none) and exec. Returns only on failure,
 * having said why. Run in a vfork child where there is no TaskProlog or
 * TaskEpilog: it shares the supervisor's memory until the exec, so it
 * allocates nothing and changes its ids with the raw system calls, which
 * act on this process alone. */
static void become_job(const struct spurd_supervise_args *a, char **env)
{
	int out, err, in, mode, argc;
	char *argv[256];

	snprintf(task_pid, sizeof(task_pid), "SLURM_TASK_PID=%ld", (long)getpid());
	spurd_rlimits_apply(&a->rlimits);
	if (getuid() == 0 && a->uid != 0 &&
	    (syscall(SYS_setgroups, a->ngroups > 0 ? (size_t)a->ngroups : 1,
		     a->ngroups > 0 ? a->groups : &a->gid) ||
	     syscall(SYS_setresgid, a->gid, a->gid, a->gid) ||
	     syscall(SYS_setresuid, a->uid, a->uid, a->uid))) {
		perror("slurmstepd: error: cannot become the job's user");
		return;
	}
	if (chdir(a->workdir)) {
		fprintf(stderr, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
			a->workdir, strerror(errno));
		if (chdir("/tmp"))
			return;
	}
	spurd_umask_from_env(a->env); /* the output files' modes too */
	/* always O_APPEND (after the truncation): slurmstepd's lines, appended
	 * by the supervisor, are not overwritten by the job's later output */
	mode = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | (a->append ? 0 : O_TRUNC);
	out = open(a->out, mode, 0644);
	err = a->err ? open(a->err, mode, 0644) : out;
	if (out < 0 || err < 0) {
		fprintf(stderr, "slurmstepd: error: Could not open %s file %s: %s\n",
			out < 0 ? "stdout" : "stderr", out < 0 ? a->out : a->err, strerror(errno));
		return;
	}
	if (dup2(out, 1) < 0 || dup2(err, 2) < 0)
		return;
	in = open(a->in ? a->in : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || dup2(in, 0) < 0) {
		fprintf(stderr, "slurmstepd: error: Could not open stdin file %s: %s\n",
			a->in ? a->in : "/dev/null", strerror(errno));
		return;
	}
	for (argc = 0; a->args && a->args[argc] && argc < 254; argc++)
		argv[argc + 1] = (char *)a->args[argc];
	argv[0] = (char *)a->script;
	argv[argc + 1] = NULL;
	if (!env) {
		env = spurd_task_prolog(a->task_prolog, NULL, spurd_env_with_task_pid(a->env));
		spurd_task_epilog_wrap(a->task_epilog, NULL, env);
	}
	execve(a->script, argv, env);
	fprintf(stderr, "slurmstepd: error: execve(): %s: %s\n", a->script, strerror(errno));
}

/* Open the job's files (and enter its folder) with the user's file-system
 * identity, staying root for the OCI runtime. 0, or -1 (said). */
static int files_as_user(const struct spurd_supervise_args *a)
{
	int out, err, in, mode = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | (a->append ? 0 : O_TRUNC);

	if (getuid() == 0 && a->uid != 0) {
		syscall(SYS_setgroups, a->ngroups > 0 ? (size_t)a->ngroups : 1,
			a->ngroups > 0 ? a->groups : &a->gid);
		setfsgid(a->gid);
		setfsuid(a->uid);
	}
	if (chdir(a->workdir) && chdir("/tmp"))
		return -1;
	out = open(a->out, mode, 0644);
	err = a->err ? open(a->err, mode, 0644) : out;
	in = open(a->in ? a->in : "/dev/null", O_RDONLY | O_CLOEXEC);
	setfsuid(0);
	setfsgid(0);
	syscall(SYS_setgroups, 0, NULL);
	if (out < 0 || err < 0 || in < 0) {
		fprintf(stderr, "slurmstepd: error: Could not open the job's files: %s\n",
			strerror(errno));
		return -1;
	}
	return dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(in, 0) < 0 ? -1 : 0;
}

/* The batch script in its container (--container-image, --container): the
 * OCI runtime exec'd as root; what stops it is said in the output file and
 * in DIR/reason, for the job's Reason. */
static void become_container_job(const struct spurd_supervise_args *a)
{
	char why[1024], cwd[4096], *argv[256], rpath[4200];
	int argc, fd;

	if (files_as_user(a))
		return;
	argv[0] = (char *)a->script;
	for (argc = 0; a->args && a->args[argc] && argc < 254; argc++)
		argv[argc + 1] = (char *)a->args[argc];
	argv[argc + 1] = NULL;
	spurd_oci_exec(a->oci, argv, spurd_env_with_task_pid(a->env),
		       getcwd(cwd, sizeof(cwd)) ? cwd : a->workdir, why, sizeof(why));
	fprintf(stderr, "slurmstepd: error: container: %s\n", why);
	snprintf(rpath, sizeof(rpath), "%s/reason", a->dir);
	if ((fd = open(rpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0) {
		if (write(fd, why, strlen(why)) < 0)
			perror("slurmstepd: reason");
		close(fd);
	}
}

/* Run a site hook (Prolog, Epilog) as root, stdout to nowhere, stderr to
 * the agent's log: its exit status, -1 when it could not run. */
static int run_hook(const char *path, char **env)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
			_exit(127);
		execve(path, (char *[]){ (char *)path, NULL }, env);
		fprintf(stderr, "spurd: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void join_cgroup(const char *cgroup, const char *pid)
{
	char procs[4200];
	int fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
	fd = open(procs, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		fprintf(stderr, "slurmstepd: error: cannot join cgroup %s: %s\n", cgroup,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* The job's process, in a process group of its own, with the default
 * signal handlers. Without a TaskProlog or TaskEpilog it is a vfork child
 * (the supervisor is a copy of the agent: a fork would copy its page
 * tables, and the exec throw the copy away, for every job), else a fork
 * child, which runs them. Its pid, or -1. */
/* What `su - USER -c "env -0"` prints, read for at most secs seconds
 * (the child killed after); its length in *len, NULL when nothing. */
static char *login_env(const char *user, int secs, size_t *len)
{
	int fd[2], status;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	time_t end = time(NULL) + secs;
	pid_t pid;

	if (!buf || pipe(fd)) {
		free(buf);
		return NULL;
	}
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid(); /* su's signals to its own group, not the supervisor's */
		dup2(fd[1], 1);
		dup2(null, 0);
		dup2(null, 2);
		execl("/bin/su", "su", "-", user, "-c", "/usr/bin/env -0", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && time(NULL) < end) {
		struct pollfd p = { .fd = fd[0], .events = POLLIN };
		ssize_t got;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		if (n + 1 >= cap) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
		if ((got = read(fd[0], buf + n, cap - n - 1)) <= 0)
			break;
		n += (size_t)got;
	}
	close(fd[0]);
	buf[n] = '\0'; /* a last entry cut short ends here */
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}

	*len = n;
	return buf;
}

/* --get-user-env: the job's environment with the user's login variables
 * it does not set itself added (sbatch's win, as in Slurm); NULL when
 * none could be read (the job's own then). */
static char **with_user_env(const struct spurd_supervise_args *a)
{
	struct passwd *pw = getuid() == 0 ? getpwuid(a->uid) : NULL;
	size_t len = 0, n = 0, extra = 0, own;
	char *text = pw ? login_env(pw->pw_name, a->get_user_env, &len) : NULL, **v;

	if (!text || !len) {
		free(text);
		fprintf(stderr, "spurd: --get-user-env: no login environment for uid %ld\n",
			(long)a->uid);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		extra += text[i] == '\0';
	while (a->env[n])
		n++;
	own = n;
	if (!(v = calloc(n + extra + 2, sizeof(*v)))) {
		free(text);
		return NULL;
	}
	memcpy(v, a->env, n * sizeof(*v));
	for (char *p = text; p < text + len; p += strlen(p) + 1) {
		char *eq = strchr(p, '=');
		bool set = false;

		if (!eq || eq == p)
			continue;
		for (size_t k = 0; k < own && !set; k++)
			set = !strncmp(a->env[k], p, (size_t)(eq - p) + 1);
		if (!set)
			v[n++] = strdup(p); /* kept for the job's life */
	}
	free(text);
	return v;
}

static pid_t start_job(const struct spurd_supervise_args *a)
{
	static const int reset[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGALRM };
	static char **env; /* static: nothing the vfork child uses is in a register */
	sigset_t all, old;
	pid_t pid;

	env = a->task_prolog || a->task_epilog || a->oci ? NULL : job_env(a->env);
	/* no handler of the supervisor's runs in the child (on its memory) */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = env ? vfork() : fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
			signal(reset[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (a->oci)
			become_container_job(a);
		else
			become_job(a, env);
		_exit(1);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(env);
	return pid;
}

/* The alarm for a job started at t0 with limit seconds (0: none): at the
 * limit, or warn seconds before it; at least a second from now. */
static void arm(time_t t0, long limit, long warn)
{
	long at = (long)(t0 - time(NULL)) + limit - warn;

	alarm(limit <= 0 ? 0 : at > 0 ? (unsigned)at : 1);
}

/* DIR/limit, the job's new limit in seconds from its start (0: none), as
 * the agent wrote it: 0 with *limit set, or -1. */
/* The limit file: "LIMIT [OVER]" (seconds; OVER, OverTimeLimit, only
 * when the controller sent it: else *over is left as it is). */
static int read_limit(const char *dir, long *limit, long *over)
{
	long o;
	char path[4200], text[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/limit", dir);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	switch (sscanf(text, "%ld %ld", limit, &o)) {
	case 2:
		if (o >= 0)
			*over = o;
		/* fall through */
	case 1:
		return *limit >= 0 ? 0 : -1;
	default:
		return -1;
	}
}

int spurd_supervise_limit(const char *dir, long sup, long limit, long over)
{
	char path[4200], tmp[4200], text[48];
	int fd, n = over >= 0 ? snprintf(text, sizeof(text), "%ld %ld\n", limit, over)
			      : snprintf(text, sizeof(text), "%ld\n", limit);

	snprintf(path, sizeof(path), "%s/limit", dir);
	snprintf(tmp, sizeof(tmp), "%s/limit.new", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, text, (size_t)n) != n || close(fd) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return sup > 0 ? kill((pid_t)sup, SPURD_SUPERVISE_LIMIT_SIG) : -1;
}

/* slurmstepd's line in the job's stderr: "slurmstepd: error: *** JOB N ON
 * NODE CANCELLED AT TIME[ DUE TO TIME LIMIT] ***", appended as the job's
 * user (a child that drops to it: the file is the user's to name). */
static void stepd_line(const struct spurd_supervise_args *a, bool time_limit)
{
	char when[32], line[256];
	time_t now = time(NULL);
	struct tm tm;
	pid_t pid;

	if (!a->job_id)
		return;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(line, sizeof(line), "slurmstepd: error: *** JOB %u ON %s CANCELLED AT %s%s ***\n",
		 a->job_id, a->node ? a->node : "?", when, time_limit ? " DUE TO TIME LIMIT" : "");
	pid = fork();
	if (pid == 0) {
		int fd;

		if (getuid() == 0 && a->uid != 0 &&
		    (setgroups(a->ngroups > 0 ? (size_t)a->ngroups : 1,
			       a->ngroups > 0 ? a->groups : &a->gid) ||
		     setgid(a->gid) || setuid(a->uid)))
			_exit(1);
		if (chdir(a->workdir) && chdir("/tmp"))
			_exit(1);
		fd = open(a->err ? a->err : a->out, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && write(fd, line, strlen(line)) < 0)
			_exit(1);
		_exit(0);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int spurd_supervise(const struct spurd_supervise_args *a)
{
	static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT };
	struct sigaction sa;
	const char *dir = a->dir;
	char buf[64];
	int status = 0, code;
	bool timed_out = false, warn, overtime = false, ending = false;
	long limit, over_time;
	time_t t0;

	prctl(PR_SET_NAME, SPURD_SUPERVISOR_NAME);
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	for (int c = 0; c < SPURD_CG_MAX && a->cgroups[c]; c++)
		join_cgroup(a->cgroups[c], buf);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	sa.sa_flags = 0; /* the alarm and a new limit interrupt waitpid */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SPURD_SUPERVISE_LIMIT_SIG, &sa, NULL);
	sigaction(SPURD_SUPERVISE_CANCEL_SIG, &sa, NULL);
	sigemptyset(&sa.sa_mask); /* forked with every signal blocked */
	sigprocmask(SIG_SETMASK, &sa.sa_mask, NULL);
	if (a->prolog && (code = run_hook(a->prolog, a->hook_env)) != 0) {
		/* the job never starts: "2" in the second field tells the agent */
		fprintf(stderr, "spurd: Prolog %s failed (%d): the job is requeued held\n", a->prolog,
			code);
		snprintf(buf, sizeof(buf), "%ld 0\n%d 2\n", (long)getpid(), code);
		put_line(dir, buf);
		return 1;
	}

	if (a->get_user_env > 0) {
		static struct spurd_supervise_args with; /* the same, another env */
		char **env = with_user_env(a);

		if (env) {
			with = *a;
			with.env = env;
			a = &with;
		}
	}
	if ((child = start_job(a)) < 0) {
		perror("spurd: supervisor: fork");
		snprintf(buf, sizeof(buf), "%ld 0\n1 0\n", (long)getpid());
		put_line(dir, buf);
		return 1;
	}
	setpgid(child, child);
	snprintf(buf, sizeof(buf), "%ld %ld\n", (long)getpid(), (long)child);
	if (put_line(dir, buf))
		perror("spurd: supervisor: state file");
	if (pending)
		kill(-child, pending);
	/* --signal=B:SIG@TIME goes first, TIME before the limit */
	t0 = time(NULL);
	limit = a->limit;
	over_time = a->over_time;
	warn = limit > 0 && a->warn_sig > 0;
	arm(t0, limit, warn ? a->warn_time : 0);
	for (;;) {
		pid_t r = waitpid(child, &status, 0);

		if (r == child)
			break;
		if (r < 0 && errno != EINTR)
			break;
		if (cancelled) {
			cancelled = 0;
			ending = true;
			if (!timed_out)
				stepd_line(a, false);
			continue;
		}
		if (limit_changed) {
			/* scontrol update TimeLimit of the running job (the agent
			 * wrote it): the alarm moves, unless the limit has struck */
			limit_changed = 0;
			if (!timed_out && read_limit(dir, &limit, &over_time) == 0) {
				overtime = false;
				warn = warn && limit > 0;
				arm(t0, limit, warn ? a->warn_time : 0);
			}
			continue;
		}
		if (alarm_fired && warn) {
			/* the batch shell alone, as Slurm's B: */
			alarm_fired = 0;
			warn = false;
			kill(child, a->warn_sig);
			arm(t0, limit, 0);
		} else if (alarm_fired) {
			alarm_fired = 0;
			if (!timed_out && !overtime && over_time > 0) {
				overtime = true; /* OverTimeLimit: it may run this much longer */
				alarm((unsigned)over_time);
			} else if (!timed_out) {
				/* the limit: SIGTERM, then SIGKILL after KillWait */
				timed_out = true;
				stepd_line(a, true);
				kill(-child, SIGCONT);
				kill(-child, SIGTERM);
				alarm((unsigned)(a->kill_wait > 0 ? a->kill_wait : 1));
			} else {
				kill(-child, SIGKILL);
			}
		}
	}
	if (cancelled && !timed_out) /* the job ended before the line was written */
		stepd_line(a, false);
	/* cancelled or past its limit, SIGTERM reached all of the job: what
	 * the script left (an srun ending its step) has KillWait to finish, as
	 * in Slurm; then, or at once, what it left behind goes with it */
	for (int i = 0; (ending || cancelled || timed_out) &&
			i < 10 * (a->kill_wait > 0 ? a->kill_wait : 1) && !kill(-child, 0);
	     i++)
		usleep(100000);
	kill(-child, SIGKILL);
	code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (a->epilog) {
		int e = run_hook(a->epilog, a->hook_env);

		if (e)
			fprintf(stderr, "spurd: Epilog %s failed (%d)\n", a->epilog, e);
	}
	snprintf(buf, sizeof(buf), "%d %d\n", code, timed_out);
	if (put_line(dir, buf)) {
		perror("spurd: supervisor: state file");
		return 1;
	}
	return 0;
}

/* The whole lines of DIR/state, parsed: how many there were (0-2). */
static int read_state(const char *dir, long v[4])
{
	char path[4200], text[128];
	int fd, lines = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/state", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	for (char *line = text, *nl; lines < 2 && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (sscanf(line, "%ld %ld", &v[2 * lines], &v[2 * lines + 1]) != 2)
			break;
		lines++;
	}
	return lines;
}

int spurd_supervise_pids(const char *dir, long *sup, long *pgid)
{
	long v[4] = { 0 };

	if (!read_state(dir, v))
		return 0;
	*sup = v[0];
	*pgid = v[1];
	return 1;
}

int spurd_supervise_status(const char *dir, int *code, bool *timed_out)
{
	long v[4] = { 0 };

	if (read_state(dir, v) < 2)
		return 0;
	*code = (int)v[2];
	*timed_out = v[3] == 1;
	return 1;
}

bool spurd_supervise_prolog_failed(const char *dir)
{
	long v[4] = { 0 };

	return read_state(dir, v) == 2 && v[3] == 2;
}

int spurd_supervise_reason(const char *dir, char *buf, size_t len)
{
	char p[4200];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/reason", dir);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0;
}
