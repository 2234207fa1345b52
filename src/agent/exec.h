/* SPDX-License-Identifier: Apache-2.0 */
/* The bare executor: one task of a step started as a process of its own,
 * as the job's user with the user's supplementary groups (Slurm's
 * initgroups), inside the job's cgroups and CPUs. libuv's uv_spawn drops
 * every supplementary group and cannot join a cgroup, so tasks are forked
 * here; the agent watches them through a pidfd. */
#ifndef SPUR_AGENT_EXEC_H
#define SPUR_AGENT_EXEC_H

#include <jansson.h>
#include <sys/types.h>

struct spurd_oci;

#define SPURD_MAX_GROUPS 256

/* The submitting process's resource limits a job or step gets (Slurm's
 * PropagateResourceLimits, --propagate): soft limits, RLIM_INFINITY for
 * none. */
#define SPURD_RLIM_MAX 10
struct spurd_rlimits {
	int res[SPURD_RLIM_MAX];
	unsigned long long val[SPURD_RLIM_MAX];
	int n;
};
/* {"NOFILE": 1024, "STACK": -1 (unlimited), ...} into r (unknown names
 * skipped). */
void spurd_rlimits_parse(const json_t *o, struct spurd_rlimits *r);
/* Set them in this process (a job's, before it becomes the user): the soft
 * limit, and the hard one too where it is below and the caller may raise
 * it (root). Async-signal-safe. */
void spurd_rlimits_apply(const struct spurd_rlimits *r);

struct spurd_task_spec {
	char *const *argv;	  /* argv[0] looked up in the task's own PATH */
	char *const *env;	  /* the task's whole environment */
	int cwd_fd;		  /* entered with fchdir (opened as the user); -1: /tmp */
	uid_t uid;		  /* switched to when the agent is root and uid is not */
	gid_t gid;
	const gid_t *groups; /* the user's groups (spurd_user_groups) */
	int ngroups;
	const char *const *cgroups; /* folders joined first; NULL-terminated or NULL */
	const char *cpus;	    /* a CPU list ("0-3,6") the task is bound to; NULL: none */
	int out, err;		    /* its stdout and stderr */
	const char *task_prolog, *task_epilog; /* TaskProlog, TaskEpilog; NULL: none */
	const char *user_prolog, *user_epilog; /* srun's --task-prolog/--task-epilog */
	int pmi_fd; /* the task's PMI socket, its fd 3 (PMI_FD); -1: none */
	int pty_fd; /* srun --pty: the terminal's slave side, its controlling
		     * terminal and stdin, stdout and stderr; -1: none */
	int in_fd;  /* its stdin (srun's, passed on); -1: /dev/null */
	/* in a container (the OCI executor, oci.h), run by its runtime as
	 * root, the task's user inside; NULL: bare */
	const struct spurd_oci *oci;
	const struct spurd_rlimits *rlimits; /* propagated limits; NULL: none */
};

/* The user's supplementary groups, gid first (getgrouplist): how many, or
 * 1 (gid alone) when the user is not known here. */
int spurd_user_groups(uid_t uid, gid_t gid, gid_t *groups, int max);
/* Start the task: its pid, or a negative errno (a failed exec included:
 * the child says why before it exits). */
pid_t spurd_task_start(const struct spurd_task_spec *t);
/* In a task's process, as its user, just before its exec: run TaskProlog
 * (conf) and then srun's --task-prolog (user), either NULL for none, with
 * env, and apply what they printed: "export NAME=VALUE" sets, "unset NAME"
 * removes, "print TEXT" goes to the task's stdout (fd 1). One that fails
 * ends the task with its exit code, said on its stderr as slurmstepd says
 * it. Returns the environment to exec with (env itself, or a new array). */
char **spurd_task_prolog(const char *conf, const char *user, char **env);
/* env and SLURM_TASK_PID=this process's pid, for the task's own
 * environment (in the task's process, just before its exec). */
char **spurd_env_with_task_pid(char **env);
/* umask(SLURM_UMASK of env, octal), as Slurm's tasks get the submitter's;
 * allocates nothing (a vfork child calls it). */
void spurd_umask_from_env(char *const *env);
/* Then, with an epilog (TaskEpilog, conf; srun's --task-epilog, user):
 * fork; the child returns to exec the task, this process waits for it,
 * runs srun's epilog (killed after 5 seconds, as slurmstepd does) and then
 * TaskEpilog with env, says a failed one on the task's stderr and exits as
 * the task did. Returns only in the child (or without an epilog, or when
 * the fork fails). */
void spurd_task_epilog_wrap(const char *conf, const char *user, char *const *env);
/* Bind the calling process to the CPUs of a list ("0-3,6"): 0 or -1. */
int spurd_bind_cpus(const char *list);

#endif
