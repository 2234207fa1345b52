/* SPDX-License-Identifier: Apache-2.0 */
/* The job supervisor (forked by spurd, one per batch job) and the files it
 * leaves in a job's spool folder for the agent. */
#ifndef SPUR_AGENT_SUPERVISE_H
#define SPUR_AGENT_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "agent/cgroup.h"
#include "agent/exec.h"

struct spurd_oci;

/* The supervisor's name in /proc/PID/comm: how an agent that starts again
 * tells a supervisor from a process that took its number. */
#define SPURD_SUPERVISOR_NAME "spur-supervise"

struct spurd_supervise_args {
	const char *dir;     /* the job's spool folder (the agent's) */
	const char *script;  /* DIR/slurm_script */
	const char *workdir; /* entered as the job's user */
	const char *cgroups[SPURD_CG_MAX + 1]; /* joined first; NULL-terminated */
	const char *out;     /* stdout, opened as the job's user */
	const char *err;     /* stderr; NULL: with stdout */
	long limit;	     /* seconds; 0: none */
	long over_time;	     /* OverTimeLimit: seconds it may run past the limit */
	long kill_wait;	     /* seconds between SIGTERM and SIGKILL */
	uid_t uid;
	gid_t gid;
	const gid_t *groups; /* the user's supplementary groups, gid first */
	int ngroups;
	char **env; /* the job's environment: the script's, never the supervisor's */
	const char *prolog, *epilog; /* Prolog, Epilog (as root); NULL: none */
	const char *task_prolog, *task_epilog; /* TaskProlog, TaskEpilog (as the user) */
	char **hook_env;	     /* theirs: Slurm's SLURM_JOB_ID, SLURM_JOB_USER... */
	const char *in;		     /* sbatch -i: stdin, opened as the job's user; NULL: /dev/null */
	bool append;		     /* --open-mode=append: output files are not truncated */
	const char *const *args;     /* the script's arguments ($1...), NULL-terminated; NULL: none */
	int warn_sig;		     /* --signal=B:SIG@TIME: SIG to the batch shell... */
	long warn_time;		     /* ...TIME seconds before the limit; 0 sig: none */
	const struct spurd_oci *oci; /* run in a container (oci.h); NULL: bare */
	struct spurd_rlimits rlimits; /* the submitter's, propagated (none: n 0) */
	int get_user_env;	      /* --get-user-env: seconds to read the user's login
					 environment (su - USER -c env); 0: not asked */
	uint32_t job_id;	      /* for slurmstepd's "*** JOB N ON NODE CANCELLED ***" */
	const char *node;
};
/* Why the job's container did not start (DIR/reason), into buf: 1 when
 * there is one. */
int spurd_supervise_reason(const char *dir, char *buf, size_t len);

/* The supervisor's whole life, in a process forked for it; its exit code. */
int spurd_supervise(const struct spurd_supervise_args *a);
/* The supervisor's pid and the job's process group from DIR/state: 1 when
 * there, 0 when not yet (nothing is set). */
int spurd_supervise_pids(const char *dir, long *sup, long *pgid);
/* Did the job's Prolog fail (so the job never started)? */
bool spurd_supervise_prolog_failed(const char *dir);
/* The job's result from DIR/state: 1 when there, 0 when not yet. */
int spurd_supervise_status(const char *dir, int *code, bool *timed_out);

/* The signal that tells a supervisor its job's limit changed. */
#define SPURD_SUPERVISE_LIMIT_SIG (SIGRTMIN + 1)
/* The signal that tells a supervisor its job is being cancelled (scancel):
 * it writes Slurm's "*** JOB N ON NODE CANCELLED AT T ***" to the job's
 * stderr before the job is signalled. */
#define SPURD_SUPERVISE_CANCEL_SIG (SIGRTMIN + 2)

/* A running job's new limit (seconds from its start; 0: none) and, over
 * >= 0, OverTimeLimit (seconds past it; -1: unchanged): written to
 * DIR/limit, then the supervisor sup told. 0, or -1 with errno. */
int spurd_supervise_limit(const char *dir, long sup, long limit, long over);

#endif
