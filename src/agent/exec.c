/* SPDX-License-Identifier: Apache-2.0 */
/* The bare executor (see exec.h). */
#define _GNU_SOURCE
#include "agent/exec.h"
#include "agent/oci.h"
#include "common/rlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

int spurd_user_groups(uid_t uid, gid_t gid, gid_t *groups, int max)
{
	struct passwd *pw = getpwuid(uid);
	int n = max;

	if (!pw || getgrouplist(pw->pw_name, gid, groups, &n) < 0) {
		groups[0] = gid;
		return 1;
	}
	return n;
}

int spurd_bind_cpus(const char *list)
{
	cpu_set_t set;
	const char *p = list;

	CPU_ZERO(&set);
	while (p && *p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo >= CPU_SETSIZE)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi >= CPU_SETSIZE)
				return -1;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET((int)c, &set);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return CPU_COUNT(&set) ? sched_setaffinity(0, sizeof(set), &set) : -1;
}

void spurd_umask_from_env(char *const *env)
{
	for (char *const *e = env; e && *e; e++) {
		char *end;
		long m;

		if (strncmp(*e, "SLURM_UMASK=", 12))
			continue;
		m = strtol(*e + 12, &end, 8);
		if (*end == '\0' && end != *e + 12 && m >= 0 && m <= 0777)
			umask((mode_t)m);
		return;
	}
}

/* execve argv[0], looked up in the PATH of env (not the agent's), with
 * the submitter's umask. */
static void exec_in_path(char *const *argv, char *const *env)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char full[4096];
	int saved = ENOENT;

	spurd_umask_from_env(env);
	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, env);
		return;
	}
	for (char *const *e = env; *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			path = *e + 5;
	for (const char *p = path;; p++) {
		const char *colon = strchrnul(p, ':');
		int len = (int)(colon - p);

		snprintf(full, sizeof(full), "%.*s%s%s", len, p, len ? "/" : "", argv[0]);
		execve(full, argv, env);
		if (errno != ENOENT && errno != ENOTDIR)
			saved = errno; /* EACCES and the like: said if nothing runs */
		if (!*colon)
			break;
		p = colon;
	}
	errno = saved;
}

/* env with NAME=VALUE set (val NULL: NAME removed): a new array; the old
 * one's strings are shared (this process execs or exits soon). */
static char **env_set(char **env, const char *name, const char *val)
{
	size_t n = 0, len = strlen(name), k = 0;
	char **out;

	while (env && env[n])
		n++;
	out = malloc((n + 2) * sizeof(char *));
	if (!out)
		return env;
	for (size_t i = 0; i < n; i++)
		if (strncmp(env[i], name, len) || env[i][len] != '=')
			out[k++] = env[i];
	if (val && asprintf(&out[k], "%s=%s", name, val) >= 0)
		k++;
	out[k] = NULL;
	return out;
}

/* One prolog run with env (SLURM_SCRIPT_CONTEXT=prolog_task), its
 * "export", "unset" and "print" lines applied: the environment to go on
 * with, and *status its exit code (1 when it did not exit). */
static char **run_prolog(const char *prolog, char **env, int *status)
{
	int p[2], ws = 0;
	pid_t pid;
	FILE *f;
	char line[8192];

	*status = 0;
	if (pipe(p))
		return env;
	env = env_set(env, "SLURM_SCRIPT_CONTEXT", "prolog_task");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (dup2(p[1], 1) < 0)
			_exit(127);
		execve(prolog, (char *[]){ (char *)prolog, NULL }, env);
		fprintf(stderr, "slurmstepd: error: execve(%s): %s\n", prolog, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	f = pid > 0 ? fdopen(p[0], "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		char *eq;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "export ", 7) && (eq = strchr(line + 7, '='))) {
			*eq = '\0';
			env = env_set(env, line + 7, eq + 1);
		} else if (!strncmp(line, "unset ", 6)) {
			env = env_set(env, line + 6, NULL);
		} else if (!strncmp(line, "print ", 6)) {
			dprintf(1, "%s\n", line + 6);
		}
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*status = pid < 0 ? 1 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
	return env_set(env, "SLURM_SCRIPT_CONTEXT", NULL);
}

char **spurd_task_prolog(const char *conf, const char *user, char **env)
{
	int status;

	/* slurm.conf's first, then srun's; a failure ends the task, as in
	 * slurmstepd (with its words) */
	if (conf && *conf && (env = run_prolog(conf, env, &status), status)) {
		dprintf(2, "slurmstepd: error: TaskProlog failed status=%d\n", status);
		_exit(status);
	}
	if (user && *user && (env = run_prolog(user, env, &status), status)) {
		dprintf(2, "slurmstepd: error: --task-prolog failed status=%d\n", status);
		_exit(status);
	}
	return env;
}

/* One epilog run with env; after max_s seconds (0: none) it and what it
 * started are killed. Its wait status (Slurm says that number). */
static int run_epilog(const char *epilog, char *const *env, int max_s)
{
	int status = 0, pfd;
	pid_t e = fork();

	if (e == 0) {
		setpgid(0, 0);
		execve(epilog, (char *[]){ (char *)epilog, NULL }, env);
		_exit(127);
	}
	if (e < 0)
		return 1;
	pfd = max_s > 0 ? (int)syscall(SYS_pidfd_open, e, 0) : -1;
	if (pfd >= 0) {
		struct pollfd pf = { .fd = pfd, .events = POLLIN };
		int r;

		while ((r = poll(&pf, 1, max_s * 1000)) < 0 && errno == EINTR)
			;
		if (r == 0)
			killpg(e, SIGKILL);
		close(pfd);
	}
	while (waitpid(e, &status, 0) < 0 && errno == EINTR)
		;
	killpg(e, SIGKILL); /* what it left behind */
	return status;
}

void spurd_task_epilog_wrap(const char *conf, const char *user, char *const *env)
{
	int status = 0, rc;
	pid_t pid;
	char **eenv;

	if ((!conf || !*conf) && (!user || !*user))
		return;
	if ((pid = fork()) <= 0)
		return; /* the task itself */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	eenv = env_set((char **)env, "SLURM_SCRIPT_CONTEXT", "epilog_task");
	/* srun's first (5 seconds at most), then slurm.conf's, as slurmstepd
	 * runs them -- and names them (its words are swapped: kept) */
	if (user && *user && (rc = run_epilog(user, eenv, 5)))
		dprintf(2, "slurmstepd: error: TaskEpilog failed status=%d\n", rc);
	if (conf && *conf && (rc = run_epilog(conf, eenv, 0)))
		dprintf(2, "slurmstepd: error: --task-epilog failed status=%d\n", rc);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* In the child: everything up to the exec; returns only on failure. The
 * report pipe (*report, closed at the exec) is closed (-1) before a
 * container's executor starts -- it does not exec, and what fails in it is
 * the task's, said on its stderr -- and before task prologs and epilogs. */
static void become_task(const struct spurd_task_spec *t, int *report)
{
	sigset_t none;
	char pid[32], **env;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	for (int c = 0; t->cgroups && t->cgroups[c]; c++) {
		char procs[4300];
		int fd;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", t->cgroups[c]);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, pid, strlen(pid)) < 0) {
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
	}
	if (t->cpus && *t->cpus && spurd_bind_cpus(t->cpus))
		return;
	if (t->pty_fd >= 0) {
		if (ioctl(t->pty_fd, TIOCSCTTY, 0) || dup2(t->pty_fd, 0) < 0 ||
		    dup2(t->pty_fd, 1) < 0 || dup2(t->pty_fd, 2) < 0)
			return;
	} else if ((t->in_fd >= 0 ? dup2(t->in_fd, 0) : null < 0 ? -1 : dup2(null, 0)) < 0 ||
		   dup2(t->out, 1) < 0 || dup2(t->err, 2) < 0) {
		return;
	}
	if (t->pmi_fd >= 0 && (t->pmi_fd == 3 ? fcntl(3, F_SETFD, 0) : dup2(t->pmi_fd, 3)) < 0)
		return;
	if (t->cwd_fd >= 0 ? fchdir(t->cwd_fd) : chdir("/tmp"))
		return;
	if (t->oci) {
		char why[1024], cwd[4096];

		env = spurd_env_with_task_pid((char **)t->env);
		close(*report);
		*report = -1;
		spurd_oci_exec(t->oci, t->argv, env, getcwd(cwd, sizeof(cwd)) ? cwd : "/", why,
			       sizeof(why));
		/* said on the task's stderr, and its exit: not a launch failure */
		dprintf(2, "srun: error: container: %s\n", why);
		_exit(1);
	}
	if (t->rlimits)
		spurd_rlimits_apply(t->rlimits);
	if (getuid() == 0 && t->uid != 0 &&
	    (setgroups((size_t)t->ngroups, t->groups) || setgid(t->gid) || setuid(t->uid)))
		return;
	/* prologs may take long, and an epilog's wait lasts the task's life:
	 * the agent does not wait on them (a failed exec is then said on the
	 * task's stderr) */
	if (t->task_prolog || t->user_prolog || t->task_epilog || t->user_epilog) {
		close(*report);
		*report = -1;
	}
	env = spurd_task_prolog(t->task_prolog, t->user_prolog,
				spurd_env_with_task_pid((char **)t->env));
	spurd_task_epilog_wrap(t->task_epilog, t->user_epilog, env);
	exec_in_path(t->argv, env);
}

void spurd_rlimits_parse(const json_t *o, struct spurd_rlimits *r)
{
	const char *k;
	json_t *v;

	r->n = 0;
	json_object_foreach((json_t *)o, k, v)
		for (size_t i = 0; i < SPUR_RLIMIT_COUNT; i++)
			if (!strcmp(k, spur_rlimit_name(i)) && json_is_integer(v) &&
			    r->n < SPURD_RLIM_MAX) {
				r->res[r->n] = spur_rlimit_resource(i);
				r->val[r->n++] = json_integer_value(v) < 0
							 ? (unsigned long long)RLIM_INFINITY
							 : (unsigned long long)json_integer_value(v);
			}
}

void spurd_rlimits_apply(const struct spurd_rlimits *r)
{
	for (int i = 0; i < r->n; i++) {
		struct rlimit rl;

		if (getrlimit(r->res[i], &rl))
			continue;
		rl.rlim_cur = (rlim_t)r->val[i];
		if (rl.rlim_max != RLIM_INFINITY &&
		    (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max) && getuid() != 0)
			rl.rlim_cur = rl.rlim_max; /* as far as a user may go */
		else if (rl.rlim_max != RLIM_INFINITY &&
			 (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max))
			rl.rlim_max = rl.rlim_cur;
		setrlimit(r->res[i], &rl);
	}
}

char **spurd_env_with_task_pid(char **env)
{
	static char pid[48];
	size_t n = 0;
	char **v;

	while (env && env[n])
		n++;
	v = calloc(n + 2, sizeof(*v));
	if (!v)
		return env;
	for (size_t i = 0; i < n; i++)
		v[i] = env[i];
	snprintf(pid, sizeof(pid), "SLURM_TASK_PID=%ld", (long)getpid());
	v[n] = pid;
	return v;
}

pid_t spurd_task_start(const struct spurd_task_spec *t)
{
	sigset_t all, old;
	int report[2], e = 0;
	pid_t pid;
	ssize_t n;

	if (!t->argv || !t->argv[0])
		return -EINVAL;
	if (pipe2(report, O_CLOEXEC))
		return -errno;
	/* no signal reaches the child before it resets its handlers */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		become_task(t, &report[1]);
		e = errno ? errno : EINVAL;
		if (report[1] < 0) { /* the agent went on: said here, as slurmstepd */
			dprintf(2, "slurmstepd: error: execve(): %s: %s\n", t->argv[0], strerror(e));
			_exit(e > 0 && e < 256 ? e : 1);
		}
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		return -e;
	}
	/* the report pipe closes at the exec: nothing read means it ran */
	do
		n = read(report[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		return -e;
	}
	return pid;
}
