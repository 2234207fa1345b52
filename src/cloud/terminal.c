/* SPDX-License-Identifier: Apache-2.0 */
/* The web terminal (terminal.h): a WebSocket bridged to a PTY whose other
 * end is `srun --jobid=J --overlap --pty SHELL`, so the shell runs inside
 * the session's job on its node, reached through the controller and the
 * agent like any step; no port is opened on the node. One thread per
 * terminal. */
#define _GNU_SOURCE
#include "cloud/terminal.h"
#include "cloud/ws.h"
#include "common/log.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IN_MAX (64 * 1024) /* the most a client's frame may carry */

/* The jobs with a terminal open (the meter counts them as not idle). */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static long long open_jobs[256];
static size_t nopen;
static int live; /* bridge threads (terminals, tunnels, proxied WebSockets) running */

void cloud_thread_begin(void)
{
	pthread_mutex_lock(&open_lock);
	live++;
	pthread_mutex_unlock(&open_lock);
}

void cloud_thread_end(void)
{
	pthread_mutex_lock(&open_lock);
	live--;
	pthread_mutex_unlock(&open_lock);
}

int cloud_threads_wait(int secs)
{
	struct timespec ts = { 0, 50 * 1000000 };
	int n = 0;

	for (int i = 0; i <= secs * 20; i++) {
		pthread_mutex_lock(&open_lock);
		n = live;
		pthread_mutex_unlock(&open_lock);
		if (!n)
			break;
		nanosleep(&ts, NULL);
	}
	return n;
}

void cloud_term_mark(long long job, bool open)
{
	pthread_mutex_lock(&open_lock);
	if (open && nopen < sizeof(open_jobs) / sizeof(open_jobs[0])) {
		open_jobs[nopen++] = job;
	} else if (!open) {
		for (size_t i = 0; i < nopen; i++)
			if (open_jobs[i] == job) {
				open_jobs[i] = open_jobs[--nopen];
				break;
			}
	}
	pthread_mutex_unlock(&open_lock);
}

size_t cloud_term_open(long long *jobs, size_t max)
{
	size_t n;

	pthread_mutex_lock(&open_lock);
	for (n = 0; n < nopen && n < max; n++)
		jobs[n] = open_jobs[n];
	pthread_mutex_unlock(&open_lock);
	return n;
}

struct term {
	int sock;
	struct MHD_UpgradeResponseHandle *urh;
	long long job;
	int tunnel; /* >= 0: an SSH tunnel to this connection, not a shell */
	unsigned char in[IN_MAX + 16];
	size_t nin;
};

int cloud_send_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };

			if (poll(&pf, 1, 10000) <= 0)
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		p += w, n -= (size_t)w;
	}
	return 0;
}

static int send_frame(int fd, int op, const void *p, size_t n)
{
	unsigned char h[10];
	size_t hl = ws_header(h, op, n);

	return cloud_send_all(fd, h, hl) || cloud_send_all(fd, p, n) ? -1 : 0;
}

/* A text frame is a control message: {"rows":R,"cols":C} resizes (a
 * tunnel has no window: nothing to do). */
static void control(int master, const unsigned char *p, size_t n)
{
	if (!isatty(master))
		return;
	json_t *m = json_loadb((const char *)p, n, 0, NULL);
	const json_t *r = json_object_get(m, "rows"), *c = json_object_get(m, "cols");

	if (json_is_integer(r) && json_is_integer(c) && json_integer_value(r) > 0 &&
	    json_integer_value(r) < 1000 && json_integer_value(c) > 0 &&
	    json_integer_value(c) < 1000) {
		struct winsize ws = { .ws_row = (unsigned short)json_integer_value(r),
				      .ws_col = (unsigned short)json_integer_value(c) };

		ioctl(master, TIOCSWINSZ, &ws);
	}
	json_decref(m);
}

/* The frames in t->in: 0 to go on, 1 when the client closed, -1 on a
 * protocol error. */
static int from_client(struct term *t, int master)
{
	struct ws_frame f;
	const char *why = NULL;
	int rc;

	while ((rc = ws_parse(t->in, t->nin, IN_MAX, &f, &why)) == 1) {
		unsigned char *p = t->in + f.hdr;

		ws_unmask(&f, p);
		if (f.op == WS_CLOSE)
			return 1;
		if (f.op == WS_PING)
			send_frame(t->sock, WS_PONG, p, f.len);
		else if (f.op == WS_TEXT && f.fin)
			control(master, p, f.len);
		else if ((f.op == WS_BINARY || f.op == WS_CONT) && f.len &&
			 write(master, p, f.len) < 0)
			return -1;
		memmove(t->in, p + f.len, t->nin - f.hdr - f.len);
		t->nin -= f.hdr + f.len;
	}
	if (rc < 0)
		spur_debug("terminal: job %lld: %s", t->job, why);
	return rc < 0 ? -1 : 0;
}

/* Bridge until either side ends. */
static void bridge(struct term *t, int master)
{
	unsigned char out[16384];

	for (;;) {
		struct pollfd pf[2] = { { .fd = t->sock, .events = POLLIN },
					{ .fd = master, .events = POLLIN } };
		ssize_t n;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pf[1].revents) {
			n = read(master, out, sizeof(out));
			if (n <= 0 || send_frame(t->sock, WS_BINARY, out, (size_t)n))
				return; /* the shell (srun) ended, or the client is gone */
		}
		if (pf[0].revents) {
			n = recv(t->sock, t->in + t->nin, sizeof(t->in) - t->nin, 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				return;
			t->nin += (size_t)n;
			if (from_client(t, master))
				return;
		}
	}
}

/* The shell's process is gone: SIGHUP (the PTY's hangup), then SIGKILL. */
static void reap(pid_t pid)
{
	struct timespec ts = { 0, 50 * 1000000 };

	kill(pid, SIGHUP);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* fd (the shell's PTY, or an SSH server's connection) bridged to the
 * client until either ends, the job counted as used meanwhile. */
static void bridged(struct term *t, int fd, const char *what)
{
	spur_info("%s: job %lld opened", what, t->job);
	cloud_term_mark(t->job, true);
	bridge(t, fd);
	cloud_term_mark(t->job, false);
	spur_info("%s: job %lld closed", what, t->job);
}

/* The shell: srun --pty inside the job, through a PTY. */
static void shell(struct term *t)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	char jobopt[40];
	int master;
	pid_t pid;

	snprintf(jobopt, sizeof(jobopt), "--jobid=%lld", t->job);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid == 0) {
		close_range(3, ~0U, 0);
		setenv("TERM", "xterm-256color", 1);
		execlp("srun", "srun", jobopt, "--overlap", "--pty", "/bin/sh", "-c",
		       "exec \"${SHELL:-/bin/sh}\" -i", (char *)NULL);
		fprintf(stderr, "spur-cloud: cannot run srun: %s\r\n", strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		static const char msg[] = "spur-cloud: no PTY for the terminal\r\n";

		send_frame(t->sock, WS_BINARY, msg, sizeof(msg) - 1);
		return;
	}
	bridged(t, master, "terminal");
	close(master);
	reap(pid);
}

static void *run(void *arg)
{
	struct term *t = arg;

	if (t->tunnel >= 0) {
		bridged(t, t->tunnel, "ssh tunnel");
		close(t->tunnel);
	} else {
		shell(t);
	}
	send_frame(t->sock, WS_CLOSE, "\x03\xe8", 2); /* 1000: normal closure */
	MHD_upgrade_action(t->urh, MHD_UPGRADE_ACTION_CLOSE);
	free(t);
	cloud_thread_end();
	return NULL;
}

static void start(long long job, int tunnel, const char *extra, size_t nextra,
		  MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct term *t = calloc(1, sizeof(*t));
	pthread_attr_t at;
	pthread_t th;

	if (!t || nextra > IN_MAX) {
		free(t);
		if (tunnel >= 0)
			close(tunnel);
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
		return;
	}
	t->sock = sock, t->urh = urh, t->job = job, t->tunnel = tunnel;
	memcpy(t->in, extra, nextra);
	t->nin = nextra;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	cloud_thread_begin();
	if (pthread_create(&th, &at, run, t)) {
		cloud_thread_end();
		if (tunnel >= 0)
			close(tunnel);
		free(t);
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
	}
	pthread_attr_destroy(&at);
}

void cloud_term_start(long long job, const char *extra, size_t nextra, MHD_socket sock,
		      struct MHD_UpgradeResponseHandle *urh)
{
	start(job, -1, extra, nextra, sock, urh);
}

void cloud_term_tunnel(long long job, int fd, const char *extra, size_t nextra,
		       MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	start(job, fd, extra, nextra, sock, urh);
}
