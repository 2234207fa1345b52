/* SPDX-License-Identifier: Apache-2.0 */
/* Interactive allocations: salloc, and srun outside a job. The request is a
 * submission with "interactive": the controller starts nothing on the nodes
 * and tells this connection when the allocation is granted; the connection
 * holds it, and "complete" (or the connection closing) ends it. */
#include "client.h"

#include "common/conf.h"

#include "common/alloc.h"
#include "common/timefmt.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

/* Slurm's words when an allocation is refused: srun's, salloc's. */
static const char *alloc_failed(const char *prog)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;

	return !strcmp(base, "srun") ? "Unable to allocate resources" : "Job submit/allocate failed";
}

/* The exit code when --immediate could not be met: SLURM_EXIT_IMMEDIATE, or 1. */
static int immediate_exit(void)
{
	const char *v = getenv("SLURM_EXIT_IMMEDIATE");

	return v && *v ? atoi(v) : 1;
}

/* Wait for the grant: "allocated", or the controller's refusal. imm: the
 * seconds --immediate allows (0: forever, 1: the controller decides at its
 * next cycle). 0, or the exit code (said). */
static int alloc_wait(const char *prog, int fd, uint32_t id, int imm, json_t **reply)
{
	bool srun = !strcmp(alloc_failed(prog), "Unable to allocate resources");
	struct spur_error err;
	int rc = spur_wire_recv(fd, reply, imm == 1 ? -1 : 1000, &err);

	if (rc && imm != 1) { /* granted at once, or after a wait Slurm mentions */
		if (!srun)
			fprintf(stderr, "%s: Pending job allocation %u\n", prog, id);
		fprintf(stderr, "%s: job %u queued and waiting for resources\n", prog, id);
		rc = spur_wire_recv(fd, reply, imm > 1 ? (imm - 1) * 1000 : -1, &err);
		if (rc && imm > 1 && err.code == SPUR_EAGAIN) {
			/* the connection's end cancels the allocation */
			if (!srun)
				fprintf(stderr, "%s: Job allocation %u has been revoked.\n", prog, id);
			cli_error(prog, "Unable to allocate resources: %s",
				  srun ? "Requested nodes are busy" : "Connection timed out");
			return immediate_exit();
		}
		if (!rc)
			fprintf(stderr, "%s: job %u has been allocated resources\n", prog, id);
	}
	if (!rc && !strcmp(spur_json_str(*reply, "type", ""), "error")) {
		bool imm_fail = spur_json_bool(*reply, "revoked", 0);

		cli_error(prog, "%s: %s",
			  imm_fail && !strcmp(spur_json_str(*reply, "message", ""),
					      "Job dependency problem")
				  ? alloc_failed(prog)
				  : "Unable to allocate resources",
			  spur_json_str(*reply, "message", ""));
		if (!srun)
			fprintf(stderr, "%s: Job allocation %u has been revoked.\n", prog, id);
		json_decref(*reply);
		return imm_fail ? immediate_exit() : 1;
	}
	if (rc || strcmp(spur_json_str(*reply, "type", ""), "allocated")) {
		cli_error(prog, "Job allocation %u has been revoked%s%s", id, rc ? ": " : "",
			  rc ? err.msg : "");
		if (!rc)
			json_decref(*reply);
		return 1;
	}
	return 0;
}

json_t *cli_allocate(const char *prog, json_t *job, int *fd, uint32_t *job_id, int *exit_code)
{
	int imm = (int)spur_json_int(job, "immediate", 0);
	struct spur_error err;
	json_t *req, *reply, *env;

	*exit_code = 1;
	json_object_set_new(job, "interactive", json_true());
	if (!json_object_get(job, "script"))
		json_object_set_new(job, "script", json_string(""));
	req = json_pack("{s:s,s:o}", "type", "submit", "job", job);
	*fd = cli_connect(&err);
	if (*fd < 0) {
		json_decref(req);
		cli_error(prog, "%s: %s", alloc_failed(prog), err.msg);
		return NULL;
	}
	reply = cli_request(*fd, req, 30000, &err);
	json_decref(req);
	if (!reply) {
		cli_error(prog, "%s: %s", alloc_failed(prog), err.msg);
		close(*fd);
		return NULL;
	}
	*job_id = (uint32_t)spur_json_int(reply, "job_id", 0);
	json_decref(reply);
	if ((*exit_code = alloc_wait(prog, *fd, *job_id, imm, &reply))) {
		close(*fd);
		return NULL;
	}
	env = json_incref(json_object_get(reply, "env"));
	json_decref(reply);
	return env;
}

int cli_will_run(const char *prog, json_t *job)
{
	struct spur_error err;
	char when[64];
	json_t *reply;

	json_object_del(job, "test_only");
	if (!json_object_get(job, "script"))
		json_object_set_new(job, "script", json_string(""));
	reply = cli_call(json_pack("{s:s,s:O}", "type", "will_run", "job", job), &err);
	if (!reply) {
		fprintf(stderr, "allocation failure: %s\n", err.msg);
		return 1;
	}
	spur_time_format((time_t)spur_json_int(reply, "start", 0), when, sizeof(when));
	fprintf(stderr, "%s: Job %" JSON_INTEGER_FORMAT " to start at %s using %" JSON_INTEGER_FORMAT
			" processors on nodes %s in partition %s\n",
		prog, (json_int_t)spur_json_int(reply, "job_id", 0), when,
		(json_int_t)spur_json_int(reply, "cpus", 0), spur_json_str(reply, "nodes", ""),
		spur_json_str(reply, "partition", ""));
	json_decref(reply);
	return 0;
}

/* While the allocation's command runs: what the controller says on the
 * allocation's connection (scontrol notify) printed as "PROG: MESSAGE". */
struct cli_watch {
	pthread_t thread;
	const char *prog;
	int fd, stop[2];
};

static void *watch_main(void *arg)
{
	struct cli_watch *w = arg;
	struct pollfd p[2] = { { .fd = w->fd, .events = POLLIN }, { .fd = w->stop[0], .events = POLLIN } };

	while (poll(p, 2, -1) >= 0 || errno == EINTR) {
		struct spur_error err;
		json_t *msg;

		if (p[1].revents)
			break;
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (spur_wire_recv(w->fd, &msg, 5000, &err))
			break; /* the controller is gone: the release says so */
		if (!strcmp(spur_json_str(msg, "type", ""), "notify"))
			fprintf(stderr, "%s: %s\n", w->prog, spur_json_str(msg, "message", ""));
		else if (!strcmp(spur_json_str(msg, "type", ""), "revoked") &&
			 !strcmp(alloc_failed(w->prog), "Unable to allocate resources"))
			/* srun's step goes with its allocation: Slurm's words */
			fprintf(stderr,
				"%s: Job step aborted: Waiting up to %u seconds for job step to "
				"finish.\n",
				w->prog, cli_kill_wait() + 2);
		else if (!strcmp(spur_json_str(msg, "type", ""), "revoked"))
			fprintf(stderr, "%s: error: Job allocation %d has been revoked\n", w->prog,
				(int)spur_json_int(msg, "job_id", 0));
		json_decref(msg);
	}
	return NULL;
}

struct cli_watch *cli_watch_start(const char *prog, int fd)
{
	struct cli_watch *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int rc;

	if (!w || pipe(w->stop)) {
		free(w);
		return NULL;
	}
	w->prog = prog;
	w->fd = fd;
	/* signals are the main thread's (srun's relay acts on them) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&w->thread, NULL, watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(w->stop[0]);
		close(w->stop[1]);
		free(w);
		return NULL;
	}
	return w;
}

void cli_watch_stop(struct cli_watch *w)
{
	if (!w)
		return;
	if (write(w->stop[1], "x", 1) < 0)
		pthread_cancel(w->thread);
	pthread_join(w->thread, NULL);
	close(w->stop[0]);
	close(w->stop[1]);
	free(w);
}

void cli_release(const char *prog, int fd, uint32_t job_id, int exit_code)
{
	struct spur_error err;
	json_t *req = json_pack("{s:s,s:i,s:i}", "type", "complete", "job_id", (int)job_id,
				"exit_code", exit_code);
	json_t *reply = cli_request(fd, req, 30000, &err);

	json_decref(req);
	if (!reply)
		cli_error(prog, "Unable to end job allocation %u: %s", job_id, err.msg);
	json_decref(reply);
	close(fd);
}

void cli_setenv_all(const json_t *env)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)env, k, v)
		if (json_is_string(v))
			setenv(k, json_string_value(v), 1);
}

/* LaunchParameters=use_interactive_step in the config? */
static bool interactive_step(void)
{
	const char *path = cli_conf_path(NULL);
	struct spur_error err;
	struct spur_conf *c = path ? spur_conf_load(path, 0, &err) : NULL;
	bool on = false;

	for (size_t i = 0; c && i < c->nextra; i++)
		if (!strcasecmp(c->extra[i].key, "LaunchParameters") &&
		    strstr(c->extra[i].value, "use_interactive_step"))
			on = true;
	spur_conf_destroy(c);
	return on;
}

int cli_salloc_main(const char *prog, int argc, char **argv)
{
	char *pargv[257], *shell_argv[4];
	bool step = false;
	json_t *job = json_object(), *env;
	uint32_t id;
	int first, fd, status = 0, rc;
	struct cli_watch *watch;
	pid_t pid;
	char **cmd, *ctr = NULL;

	pargv[0] = "salloc";
	for (int i = 0; i < argc && i < 255; i++)
		pargv[i + 1] = argv[i];
	pargv[argc + 1 < 256 ? argc + 1 : 256] = NULL;
	first = cli_job_parse(job, argc + 1, pargv);
	if (first < 0) {
		json_decref(job);
		return first == CLI_JOB_PARSE_DONE ? 0 : -first;
	}
	if (first < argc + 1) {
		cmd = pargv + first;
	} else if (interactive_step()) {
		/* LaunchParameters=use_interactive_step: the shell runs on the
		 * allocation's first node, in a terminal (srun --pty), as
		 * Slurm's InteractiveStepOptions default */
		shell_argv[0] = "/proc/self/exe";
		shell_argv[1] = "--pty"; /* an interactive step: others may run beside it */
		shell_argv[2] = getenv("SHELL") ? getenv("SHELL") : "/bin/sh";
		shell_argv[3] = NULL;
		cmd = shell_argv;
		step = true;
	} else {
		shell_argv[0] = getenv("SHELL") ? getenv("SHELL") : "/bin/sh";
		shell_argv[1] = NULL;
		cmd = shell_argv;
	}
	if (!json_object_get(job, "name")) {
		const char *base = strrchr(cmd[step ? 2 : 0], '/');

		json_object_set_new(job, "name", json_string(base ? base + 1 : cmd[step ? 2 : 0]));
	}
	/* container options: the allocation's steps run in it (SPUR_CONTAINER,
	 * read by srun inside) */
	if (json_object_get(job, "container")) {
		ctr = json_dumps(json_object_get(job, "container"), JSON_COMPACT);
		json_object_del(job, "container");
	}
	env = cli_allocate(prog, job, &fd, &id, &rc);
	if (!env) {
		free(ctr);
		return rc;
	}
	fprintf(stderr, "%s: Granted job allocation %u\n", prog, id);
	/* the command runs here, as Slurm's salloc runs it on the submit host */
	signal(SIGINT, SIG_IGN);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		cli_setenv_all(env);
		if (ctr)
			setenv("SPUR_CONTAINER", ctr, 1);
		if (step) /* the multi-call binary, as srun */
			execv(cmd[0], (char *[]){ "srun", cmd[1], "--overlap", cmd[2], NULL });
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: error: %s: %s\n", prog, cmd[0], strerror(errno));
		_exit(127);
	}
	json_decref(env);
	free(ctr);
	watch = cli_watch_start(prog, fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 1 << 8;
	cli_watch_stop(watch);
	rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	fprintf(stderr, "%s: Relinquishing job allocation %u\n", prog, id);
	cli_release(prog, fd, id, rc);
	return rc;
}
