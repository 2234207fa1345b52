/* SPDX-License-Identifier: Apache-2.0 */
/* sattach JOBID.STEPID: the output of a running step's tasks from now on,
 * on this terminal, as Slurm's sattach. The controller asks every node of
 * the job to connect here (as srun's step output does: RFC 0003 §5); the
 * nodes running the step send a hello, the exits of their tasks already
 * done, then every frame of output and every exit, and hang up when the
 * step ends there; the others say they have none of it. sattach ends when
 * every node has answered and those with the step have hung up; Ctrl-C
 * leaves the step running. The tasks' stdin is not sattach's: Spur's
 * steps read /dev/null (srun's --pty steps excepted), so --input-filter
 * and --pty are refused by name, as is --layout. */
#define _GNU_SOURCE /* accept4 */
#include "cli.h"
#include "client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ATTACH_MAX_NODES 4096

struct attach {
	int lfd, nconn, answered, expect, with_step, ntasks, out_filter, err_filter;
	bool label, quiet;
	int verbose; /* -v: the nodes asked to connect, on stderr */
	struct pollfd pfd[ATTACH_MAX_NODES + 1];
	struct spur_wire_reader rd[ATTACH_MAX_NODES + 1];
	bool step_here[ATTACH_MAX_NODES + 1]; /* this connection's node runs the step */
	struct cli_out_state *st;
};

static int usage(const char *prog, int rc)
{
	fprintf(rc ? stderr : stdout,
		"Usage: %s [options] <jobid.stepid>\n"
		"  -l, --label             prepend task number to lines of stdout/err\n"
		"      --output-filter=N   only the output of task N\n"
		"      --error-filter=N    only the error output of task N\n"
		"  -Q, --quiet             quiet mode (suppress informational messages)\n"
		"  -v, --verbose           say which nodes were asked for the step's output\n"
		"  -h, --help              show this message\n"
		"  -V, --version           print the version\n",
		prog);
	return rc;
}

static int parse(const char *prog, int argc, char **argv, struct attach *at)
{
	static const struct option opts[] = {
		{ "label", no_argument, NULL, 'l' },	     { "output-filter", required_argument, NULL, 'O' },
		{ "error-filter", required_argument, NULL, 'E' }, { "input-filter", optional_argument, NULL, 'I' },
		{ "layout", no_argument, NULL, 'L' },	     { "pty", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },	     { "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, 'u' },	     { "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+lQhuVv", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': at->label = true; break;
		case 'Q': at->quiet = true; break;
		case 'v': at->verbose++; break;
		case 'O': at->out_filter = atoi(optarg); break;
		case 'E': at->err_filter = atoi(optarg); break;
		case 'I':
		case 'L':
		case 'P':
			cli_error(prog, "%s is not supported: Spur's steps do not read sattach's stdin",
				  opt == 'I' ? "--input-filter" : opt == 'L' ? "--layout" : "--pty");
			return 1;
		case 'h':
		case 'u': return usage(prog, 0) ? 1 : -1;
		case 'V': cli_version(); return -1;
		default: return usage(prog, 1);
		}
	}
	return 0;
}

static void on_frame(struct attach *at, int k, json_t *m)
{
	const char *type = spur_json_str(m, "type", "");
	int rank = (int)spur_json_int(m, "rank", 0), fd = (int)spur_json_int(m, "fd", 1);

	if (!strcmp(type, "hello")) {
		at->answered++;
		at->step_here[k] = spur_json_bool(m, "step", 0);
		if (at->step_here[k]) {
			at->with_step++;
			if (!at->ntasks && spur_json_int(m, "ntasks", 0) > 0 &&
			    spur_json_int(m, "ntasks", 0) <= 100000) {
				at->ntasks = (int)spur_json_int(m, "ntasks", 0);
				at->st = calloc((size_t)at->ntasks, sizeof(*at->st));
				for (int i = 0; at->st && i < at->ntasks; i++)
					at->st[i].at_line_start[0] = at->st[i].at_line_start[1] = true;
			}
		}
	} else if (!strcmp(type, "io") && at->st && rank >= 0 && rank < at->ntasks) {
		int filter = fd == 2 ? at->err_filter : at->out_filter;

		if (filter < 0 || filter == rank)
			cli_print_io(m, at->label, at->st, at->ntasks, NULL);
	}
}

static void on_readable(struct attach *at, int k)
{
	char buf[65536];
	ssize_t n = recv(at->pfd[k].fd, buf, sizeof(buf), 0);
	json_t *m;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(at->pfd[k].fd);
		at->pfd[k].fd = -1;
		return;
	}
	spur_wire_feed(&at->rd[k], buf, (size_t)n);
	while (spur_wire_next(&at->rd[k], &m, NULL) == 1) {
		on_frame(at, k, m);
		json_decref(m);
	}
}

/* Every node answered, and those with the step hung up at its end. */
static bool done(const struct attach *at)
{
	if (at->answered < at->expect)
		return false;
	for (int k = 1; k <= at->nconn; k++)
		if (at->pfd[k].fd >= 0 && at->step_here[k])
			return false;
	return true;
}

static int relay(const char *prog, struct attach *at, const char *jobstep)
{
	time_t start = time(NULL);

	at->pfd[0] = (struct pollfd){ .fd = at->lfd, .events = POLLIN };
	while (!done(at)) {
		int fd;

		if (poll(at->pfd, (nfds_t)at->nconn + 1, 1000) < 0 && errno != EINTR)
			break;
		while (at->nconn < ATTACH_MAX_NODES &&
		       (fd = accept4(at->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
			at->nconn++;
			at->pfd[at->nconn] = (struct pollfd){ .fd = fd, .events = POLLIN };
			spur_wire_reader_init(&at->rd[at->nconn]);
		}
		for (int k = 1; k <= at->nconn; k++)
			if (at->pfd[k].fd >= 0 && (at->pfd[k].revents & (POLLIN | POLLHUP)))
				on_readable(at, k);
		fflush(stdout);
		if (at->answered < at->expect && time(NULL) - start > 6 * cli_message_timeout()) {
			cli_error(prog, "%d of %d nodes of job step %s did not answer", at->expect - at->answered,
				  at->expect, jobstep);
			return 1;
		}
	}
	if (!at->with_step) {
		cli_error(prog, "Job step %s is not running on any node", jobstep);
		return 1;
	}
	return 0;
}

/* JOB.STEP, both numbers. */
static int parse_jobstep(const char *s, unsigned *job, unsigned *step)
{
	char tail;

	return sscanf(s, "%u.%u%c", job, step, &tail) == 2 ? 0 : -1;
}

static void say_nodes(const char *prog, const char *jobstep, const json_t *nodes)
{
	const json_t *n;
	size_t i;

	fprintf(stderr, "%s: asked %zu node(s) for job step %s:", prog, json_array_size(nodes), jobstep);
	json_array_foreach(nodes, i, n)
		fprintf(stderr, " %s", json_string_value(n) ? json_string_value(n) : "?");
	fputc('\n', stderr);
}

static int listen_any(struct sockaddr_in *sa)
{
	socklen_t sl = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) || listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)sa, &sl)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int cli_sattach_main(const char *prog, int argc, char **argv)
{
	struct attach *at = calloc(1, sizeof(*at));
	char *pargv[256 + 1];
	struct sockaddr_in sa;
	struct spur_error err;
	unsigned job, step;
	json_t *reply;
	int pargc, rc;

	if (!at) {
		cli_error(prog, "out of memory");
		return 1;
	}
	at->out_filter = at->err_filter = -1;
	pargc = cli_getopt_argv("sattach", argc, argv, pargv, 256);
	if ((rc = parse(prog, pargc, pargv, at)) != 0)
		goto out;
	rc = 1;
	if (optind != pargc - 1 || parse_jobstep(pargv[optind], &job, &step)) {
		cli_error(prog, "a job step is required: sattach JOBID.STEPID");
		goto out;
	}
	if ((at->lfd = listen_any(&sa)) < 0) {
		cli_error(prog, "cannot open a port for the step's output");
		goto out;
	}
	reply = cli_call(json_pack("{s:s,s:i,s:i,s:i}", "type", "attach", "job_id", (int)job,
				   "step_id", (int)step, "io_port", (int)ntohs(sa.sin_port)),
			 &err);
	if (!reply) {
		cli_error(prog, "Job step %u.%u: %s", job, step, err.msg);
		goto out;
	}
	at->expect = (int)json_array_size(json_object_get(reply, "nodes"));
	if (at->verbose && !at->quiet)
		say_nodes(prog, pargv[optind], json_object_get(reply, "nodes"));
	json_decref(reply);
	rc = relay(prog, at, pargv[optind]);
out:
	if (at->lfd > 0)
		close(at->lfd);
	for (int k = 1; k <= at->nconn; k++) {
		if (at->pfd[k].fd >= 0)
			close(at->pfd[k].fd);
		spur_wire_reader_fini(&at->rd[k]);
	}
	free(at->st);
	free(at);
	return rc < 0 ? 0 : rc;
}
