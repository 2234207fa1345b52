/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI's requests to spurctld (docs/rfc/0003-wire.md). */
#ifndef SPUR_CLI_CLIENT_H
#define SPUR_CLI_CLIENT_H

#include "cli.h"

#include "common/wire.h"

#include <stdbool.h>

/* The command's name for messages ("sbatch"); set by main(). */
extern const char *cli_prog;

/* Connect to the controller; an fd or a negative error. */
int cli_connect(struct spur_error *err);
/* MessageTimeout in seconds (read by the first connect). */
/* KillWait (seconds), once a connection has read the configuration. */
unsigned cli_kill_wait(void);
unsigned cli_message_timeout(void);
/* Send req (borrowed) on fd and wait for the reply; an "error" reply
 * becomes NULL with its message in err. */
json_t *cli_request(int fd, json_t *req, int timeout_ms, struct spur_error *err);
/* The same, but any reply comes back, an "error" one included (NULL only
 * when the connection failed). */
json_t *cli_request_raw(int fd, json_t *req, int timeout_ms, struct spur_error *err);
/* An "error" reply (stolen) becomes NULL with its message in err; any
 * other comes back. */
json_t *cli_reply(json_t *reply, struct spur_error *err);
/* Connect and send req (borrowed); a controller that turned it down before
 * doing anything (SPUR_ERETRY: its disk is full, leadership is moving) is
 * asked again, connection and all, for up to MessageTimeout. The
 * connection's fd with *reply the reply as it came (cli_request_raw), or a
 * negative error. */
int cli_send(json_t *req, int timeout_ms, json_t **reply, struct spur_error *err);
/* Says why the request for job id failed, in the command's words. */
typedef void (*cli_job_fail_f)(const char *prog, long id, const char *why);

/* For each job id argument, send {"type": type, "job_id": id, "admin":
 * admin}; a bad id is reported here, a refusal through fail. Returns 0 when
 * all succeeded. */
int cli_each_job(const char *prog, int argc, char **argv, const char *type, bool admin,
		 const json_t *extra,
		 cli_job_fail_f fail);

/* sbatch's job options from argv (argv[0] the program name, getopt's
 * "+": up to the first word that is not an option) into job, with the
 * submitter's identity; the index of that word, or -exit status. */
int cli_job_parse(json_t *job, int argc, char **argv);
/* Whether ARG ("--name[=value]" or "-c...") is one of Slurm's srun options
 * (built for a new job, or refused by name): inside a job, srun says such
 * an option is not supported there rather than unrecognized. */
bool cli_srun_knows(const char *arg);
/* cli_job_parse's answer to --help, --usage, --version: done, exit 0 */
#define CLI_JOB_PARSE_DONE (-1000)

/* Ask for an interactive allocation (job stolen) and wait until it is
 * granted; prog's messages are Slurm's ("job N queued and waiting for
 * resources"). The connection (*fd) holds the allocation: closing it gives
 * the allocation up. Returns the job's environment, or NULL (said here). */
json_t *cli_allocate(const char *prog, json_t *job, int *fd, uint32_t *job_id, int *exit_code);
/* sbatch/srun --test-only: the controller's answer for job (submitted
 * nothing), said as Slurm says it; the exit code. */
int cli_will_run(const char *prog, json_t *job);
/* End the allocation with the command's exit code, and close fd. */
void cli_release(const char *prog, int fd, uint32_t job_id, int exit_code);
/* While an allocation's command runs: scontrol notify's messages on its
 * connection printed as "PROG: MESSAGE" (a thread; stop before release). */
struct cli_watch;
struct cli_watch *cli_watch_start(const char *prog, int fd);
void cli_watch_stop(struct cli_watch *w);
/* Put the allocation's environment into this process's. */
void cli_setenv_all(const json_t *env);

/* The environment a job or step gets by --export (NULL: ALL): ALL, NONE,
 * [ALL|NONE,]VAR[=VALUE],...; without ALL only the variables named, and
 * Slurm's own (SLURM_*, SPUR_*). NULL when out of memory. */
json_t *cli_export_env(const char *export);

/* This process's soft resource limits by Slurm's names ({"NOFILE": 1024,
 * "STACK": -1 (unlimited), ...}): what a job or step may get
 * (PropagateResourceLimits, --propagate). */
json_t *cli_rlimits(void);
/* --propagate's list (ALL, NONE, or AS, CORE, CPU, DATA, FSIZE, MEMLOCK,
 * NOFILE, NPROC, RSS, STACK): 0, or -1 naming the bad one (said). */
/* --open-mode's value as Slurm reads it (its first letter): 0 with *append
 * set, or 255 (said). */
int cli_open_mode(const char *prog, const char *arg, bool *append);
/* --hint's value: 0 when Spur may take it (the controller checks the
 * nodes), else the exit code, said (help printed: 1, as Slurm's). */
int cli_hint_check(const char *prog, const char *arg);
int cli_propagate_check(const char *prog, const char *list);

/* A Slurm option of this command that Spur does not build (longs: names
 * without "--", NULL-terminated; shorts: letters) refused by name before
 * getopt, so it is never taken for a typo: true when argv has one (said). */
bool cli_refused_opts(const char *prog, int argc, char **argv, const char *const *longs,
		      const char *shorts);

/* --json and --yaml of squeue (/slurm/v0.0.40/jobs), sinfo (.../nodes)
 * and sacct (/slurmdb/v0.0.40/jobs): slurmrestd's document for path,
 * printed as JSON or (yaml) as block YAML. */
int cli_doc_print(const char *prog, const char *path, bool yaml);

/* A signal by name (USR1, SIGUSR1) or number; 0 when unknown. */
int cli_signal_parse(const char *v);

/* Connect, request (req stolen), close. */
json_t *cli_call(json_t *req, struct spur_error *err);

#endif
