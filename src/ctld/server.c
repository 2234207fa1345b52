/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld's TCP server: accept, read frames, dispatch, write replies. */
#define _GNU_SOURCE /* struct ucred */
#include "ctld.h"

#include "common/alloc.h"
#include "common/log.h"
#include "io/uvwire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int64_t ctld_now(void)
{
	return (int64_t)time(NULL);
}

void ctld_conn_ref(struct ctld_conn *cn)
{
	cn->refs++;
}

void ctld_conn_unref(struct ctld_conn *cn)
{
	if (--cn->refs)
		return;
	spur_wire_reader_fini(&cn->rd);
	free(cn);
}

void ctld_conn_closed(uv_handle_t *h)
{
	ctld_conn_unref(h->data);
}

void ctld_conn_close(struct ctld_conn *cn)
{
	struct ctld *c = cn->c;

	if (cn->closing)
		return;
	cn->closing = true;
	ctld_forward_close(cn);
	if (cn->node >= 0 && c->agents[cn->node] == cn) {
		struct sched_event ev = { .type = SCHED_EV_NODE_DOWN,
					  .time = ctld_now(),
					  .node = c->conf->nodes[cn->node].name,
					  .reason = "agent disconnected",
					  .defer_cycle = true };
		struct sched_actions acts;

		c->agents[cn->node] = NULL;
		spur_warn("node %s: agent disconnected", c->conf->nodes[cn->node].name);
		/* sinfo -R says why, as Slurm does for a node that stops answering
		 * (an administrator's reason stays) */
		if (!c->node_admin[cn->node]) {
			snprintf(c->node_reason[cn->node], sizeof(c->node_reason[cn->node]), "%s",
				 "Not responding");
			c->node_reason_time[cn->node] = ev.time;
		}
		/* jobs keep running on the node (their supervisor is there); the node
		 * only takes no new work until the agent is back */
		ev.type = SCHED_EV_NODE_DRAIN;
		sched_step(c->sched, &ev, &acts, NULL);
	}
	for (size_t i = 1; cn->holds_jobs && i < c->jobs_cap; i++) {
		if (c->jobs[i] && c->jobs[i]->waiter == cn)
			c->jobs[i]->waiter = NULL;
		if (c->jobs[i] && c->jobs[i]->owner == cn && !c->stopping)
			ctld_owner_gone(c, c->jobs[i]);
	}
	uv_close((uv_handle_t *)&cn->tcp, ctld_conn_closed);
}

void ctld_conn_send(struct ctld_conn *cn, json_t *msg)
{
	if (!cn || cn->closing) {
		json_decref(msg);
		return;
	}
	if (spur_uv_send((uv_stream_t *)&cn->tcp, msg))
		ctld_conn_close(cn);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct ctld_conn *cn = s->data;
	struct spur_error err;
	json_t *msg;
	int rc;

	if (n < 0) {
		free(buf->base);
		ctld_conn_close(cn);
		return;
	}
	if (spur_wire_feed(&cn->rd, buf->base, (size_t)n)) {
		free(buf->base);
		ctld_conn_close(cn);
		return;
	}
	free(buf->base);
	while (!cn->closing && (rc = spur_wire_next(&cn->rd, &msg, &err)) == 1) {
		ctld_handle(cn, msg);
		json_decref(msg);
	}
	if (!cn->closing && rc < 0) {
		/* a broken stream: say why, then hang up */
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", rc, "message",
					     err.msg));
		ctld_conn_close(cn);
	}
}

static void accept_conn(uv_stream_t *server, int status, bool unix_sock)
{
	struct ctld *c = server->data;
	struct ctld_conn *cn;

	if (status < 0)
		return;
	cn = calloc(1, sizeof(*cn));
	if (!cn)
		return;
	cn->kind = CTLD_TCP_CLIENT;
	cn->c = c;
	cn->node = -1;
	cn->refs = 1;
	spur_wire_reader_init(&cn->rd);
	if (unix_sock)
		uv_pipe_init(c->loop, &cn->pipe, 0);
	else
		uv_tcp_init(c->loop, &cn->tcp);
	cn->tcp.data = cn;
	if (uv_accept(server, (uv_stream_t *)&cn->tcp)) {
		ctld_conn_close(cn);
		return;
	}
	if (unix_sock) {
		/* the kernel says who is at the other end */
		struct ucred cr;
		socklen_t len = sizeof(cr);
		uv_os_fd_t fd;

		if (uv_fileno((uv_handle_t *)&cn->pipe, &fd) ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
			ctld_conn_close(cn);
			return;
		}
		cn->peer = true;
		spur_ident_by_uid(&cn->peer_id, (uint32_t)cr.uid, (uint32_t)cr.gid);
	}
	if (uv_read_start((uv_stream_t *)&cn->tcp, spur_uv_alloc, on_read))
		ctld_conn_close(cn);
}

static void on_connection(uv_stream_t *server, int status)
{
	accept_conn(server, status, false);
}

static void on_unix_connection(uv_stream_t *server, int status)
{
	accept_conn(server, status, true);
}

int ctld_listen_unix(struct ctld *c, const char *host, uint16_t port, struct spur_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd, rc;

	/* libuv 1.44 binds only named sockets: bind it here, hand it over */
	spur_ctld_socket_name(host, port, sa.sun_path, sizeof(sa.sun_path), &len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return spur_error_set(err, SPUR_EIO, "unix socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) ||
	    listen(fd, 512)) {
		rc = spur_error_set(err, SPUR_EIO, "listen on @%s: %s", sa.sun_path + 1,
				    strerror(errno));
		close(fd);
		return rc;
	}
	uv_pipe_init(c->loop, &c->usock, 0);
	c->usock.data = c;
	c->usock_open = true;
	if ((rc = uv_pipe_open(&c->usock, fd)) ||
	    (rc = uv_listen((uv_stream_t *)&c->usock, 512, on_unix_connection)))
		return spur_error_set(err, SPUR_EIO, "listen on @%s: %s", sa.sun_path + 1,
				      uv_strerror(rc));
	return 0;
}

int ctld_listen(struct ctld *c, const char *addr, uint16_t port, struct spur_error *err)
{
	struct sockaddr_in sa;
	int rc;

	uv_tcp_init(c->loop, &c->server);
	c->server.data = c;
	if ((rc = uv_ip4_addr(addr, port, &sa)) ||
	    (rc = uv_tcp_bind(&c->server, (const struct sockaddr *)&sa, 0)) ||
	    (rc = uv_listen((uv_stream_t *)&c->server, 512, on_connection)))
		return spur_error_set(err, SPUR_EIO, "listen on %s:%u: %s", addr, port,
				      uv_strerror(rc));
	return 0;
}
