/* SPDX-License-Identifier: Apache-2.0 */
/* The port proxy's WebSockets (wsproxy.h). */
#define _GNU_SOURCE
#include "cloud/wsproxy.h"
#include "cloud/api_int.h"
#include "cloud/terminal.h"
#include "cloud/ws.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX (16 * 1024) /* the most of the port's answer's head */
#define WAIT_MS 10000	     /* for the connection and the answer */

static void fail(struct cloud_resp *rs, int status, const char *what, const char *detail)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "the session's port: %s%s%s", what, *detail ? ": " : "",
		 detail);
	cloud_error(rs, status, msg);
}

/* A connection to addr:port within WAIT_MS: its descriptor, or -1 (why). */
static int dial(const char *addr, unsigned port, char *why, size_t wlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char ps[8];
	int fd = -1, rc;

	snprintf(ps, sizeof(ps), "%u", port);
	if ((rc = getaddrinfo(addr, ps, &hints, &res))) {
		snprintf(why, wlen, "%s", gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		struct pollfd p;
		int err = 0;
		socklen_t el = sizeof(err);

		if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
			continue;
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if ((connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) ||
		    poll(&p, 1, WAIT_MS) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) ||
		    err) {
			snprintf(why, wlen, "%s", strerror(err ? err : errno ? errno : ETIMEDOUT));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/* The answer's head (to its blank line) into head (NUL-ended; HEAD_MAX
 * bytes), what came after it into *rest (malloc'd): its length, or -1. */
static ssize_t read_head(int fd, char *head, char **rest, size_t *nrest)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *end;
		ssize_t r;

		head[n] = '\0';
		if ((end = strstr(head, "\r\n\r\n"))) {
			size_t hl = (size_t)(end - head) + 4;

			*nrest = n - hl;
			if (!(*rest = malloc(*nrest + 1)))
				return -1;
			memcpy(*rest, head + hl, *nrest);
			head[hl] = '\0';
			return (ssize_t)hl;
		}
		if (n + 1 >= HEAD_MAX || poll(&p, 1, WAIT_MS) != 1)
			return -1;
		r = recv(fd, head + n, HEAD_MAX - 1 - n, 0);
		if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR)))
			return -1;
		n += r > 0 ? (size_t)r : 0;
	}
}

int cloud_wsp_dial(const char *addr, unsigned port, char *why, size_t wlen)
{
	int fd = dial(addr, port, why, wlen);

	if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		snprintf(why, wlen, "%s", strerror(errno));
		close(fd);
		fd = -1;
	}
	return fd;
}

void cloud_wsp_connect(const struct cloud_req *rq, const char *addr, unsigned port,
		       const char *target, const char *secret, struct cloud_resp *rs)
{
	char why[256] = "", *req = NULL, *head = NULL, *rest = NULL, proto[256];
	size_t nrest = 0;
	int fd = dial(addr, port, why, sizeof(why)), code = 0;

	if (fd < 0) {
		fail(rs, 502, "no connection", why);
		return;
	}
	if (asprintf(&req,
		     "GET /%s HTTP/1.1\r\nHost: %s%s%s:%u\r\nUpgrade: websocket\r\n"
		     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
		     "%s%s%s%s%s%s\r\n",
		     target, strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "", port,
		     rq->ws_key, *secret ? "Authorization: token " : "", secret,
		     *secret ? "\r\n" : "", rq->ws_protocol ? "Sec-WebSocket-Protocol: " : "",
		     rq->ws_protocol ? rq->ws_protocol : "", rq->ws_protocol ? "\r\n" : "") < 0)
		req = NULL;
	if (!req || !(head = malloc(HEAD_MAX)) || cloud_send_all(fd, req, strlen(req)) ||
	    read_head(fd, head, &rest, &nrest) < 0 || (code = ws_answer(head, proto, sizeof(proto))) < 0) {
		fail(rs, 502, "no answer to the WebSocket upgrade", "");
	} else if (code != 101) {
		snprintf(why, sizeof(why), "status %d", code);
		fail(rs, code >= 400 && code < 600 ? code : 502, "the WebSocket upgrade refused",
		     why);
	} else {
		rs->status = 101;
		rs->upstream = true;
		rs->upstream_fd = fd;
		rs->body = rest;
		rs->len = nrest;
		rs->ws_protocol = *proto ? strdup(proto) : NULL;
		fd = -1, rest = NULL;
	}
	if (req)
		memset(req, 0, strlen(req)); /* it held the secret */
	free(req);
	free(head);
	free(rest);
	if (fd >= 0)
		close(fd);
}

struct wsp {
	int up;
	MHD_socket sock;
	struct MHD_UpgradeResponseHandle *urh;
	long long job;
	char *first_up, *first_down; /* sent before anything else: to upstream, to the client */
	size_t n_up, n_down;
};

/* What one side sent, passed to the other: false at its end. */
static bool pass(int from, int to)
{
	char buf[65536];
	ssize_t r = recv(from, buf, sizeof(buf), 0);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	return r > 0 && !cloud_send_all(to, buf, (size_t)r);
}

static void *run(void *arg)
{
	struct wsp *w = arg;
	struct pollfd p[2] = { { .fd = w->sock, .events = POLLIN }, { .fd = w->up, .events = POLLIN } };
	bool open = !cloud_send_all(w->up, w->first_up, w->n_up) &&
		    !cloud_send_all(w->sock, w->first_down, w->n_down);

	cloud_term_mark(w->job, true);
	while (open && poll(p, 2, -1) > 0) {
		if (p[0].revents && !pass(w->sock, w->up))
			break;
		if (p[1].revents && !pass(w->up, w->sock))
			break;
	}
	cloud_term_mark(w->job, false);
	close(w->up);
	MHD_upgrade_action(w->urh, MHD_UPGRADE_ACTION_CLOSE);
	free(w->first_up);
	free(w->first_down);
	free(w);
	cloud_thread_end();
	return NULL;
}

void cloud_wsp_start(int upstream, char *up_extra, size_t up_n, const char *extra,
		     size_t nextra, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh,
		     long long job)
{
	struct wsp *w = calloc(1, sizeof(*w));
	pthread_attr_t at;
	pthread_t th;

	if (w && (w->first_up = malloc(nextra + 1))) {
		memcpy(w->first_up, extra, nextra);
		*w = (struct wsp){ .up = upstream, .sock = sock, .urh = urh, .job = job,
				   .first_up = w->first_up, .n_up = nextra,
				   .first_down = up_extra, .n_down = up_n };
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		cloud_thread_begin();
		if (!pthread_create(&th, &at, run, w)) {
			pthread_attr_destroy(&at);
			return;
		}
		cloud_thread_end();
		pthread_attr_destroy(&at);
		free(w->first_up);
	}
	free(w);
	free(up_extra);
	close(upstream);
	MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}
