/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld's TCP server: accept, read frames, dispatch, write replies. */
#define _GNU_SOURCE /* struct ucred */
#include "ctld.h"

#include "common/alloc.h"
#include "common/log.h"
#include "io/uvwire.h"

#include <errno.h>
#include <netinet/in.h>
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

/* ---------------------------------------------------------------- limits */

static struct ctld_peer *peer_find(struct ctld *c, uint64_t key)
{
	for (size_t i = 0; i < c->npeers; i++)
		if (c->peers[i].key == key)
			return &c->peers[i];
	return NULL;
}

/* Count cn against its peer; false when that peer is at its cap. */
static bool peer_admit(struct ctld *c, struct ctld_conn *cn, uint64_t key)
{
	struct ctld_peer *p = peer_find(c, key);

	if (p && p->n >= CTLD_MAX_CONNS_PER_PEER)
		return false;
	if (!p) {
		if (spur_grow((void **)&c->peers, &c->peers_cap, c->npeers + 1, sizeof(*c->peers)))
			return false;
		p = &c->peers[c->npeers++];
		*p = (struct ctld_peer){ .key = key };
	}
	p->n++;
	cn->peer_key = key;
	return true;
}

static void peer_release(struct ctld *c, struct ctld_conn *cn)
{
	struct ctld_peer *p = cn->peer_key ? peer_find(c, cn->peer_key) : NULL;

	cn->peer_key = 0;
	if (!p || --p->n)
		return;
	*p = c->peers[--c->npeers]; /* the last one takes its place */
}

void ctld_conn_is_agent(struct ctld_conn *cn)
{
	peer_release(cn->c, cn);
}

static uint64_t idle_ms(const struct ctld *c)
{
	return (c->conf->message_timeout ? c->conf->message_timeout : 1) * 1000ull;
}

/* Once a second: a connection that has nothing pending (no answer
 * awaiting a commit, no job it waits for or holds, not an agent) and has
 * said nothing for the idle time is closed; refusals are logged here,
 * counted, not one line each. */
static void on_conn_sweep(uv_timer_t *t)
{
	struct ctld *c = t->data;
	uint64_t now = uv_now(c->loop), closed = 0;

	for (struct ctld_conn *cn = c->conns, *next; cn; cn = next) {
		next = cn->next;
		if (cn->node < 0 && !cn->holds_jobs && cn->refs == 1 && !cn->closing &&
		    now - cn->active_at > idle_ms(c)) {
			closed++;
			ctld_conn_close(cn);
		}
	}
	if (closed)
		spur_info("closed %llu idle connections (silent for %llu s)",
			  (unsigned long long)closed, (unsigned long long)idle_ms(c) / 1000);
	if (c->conns_refused)
		spur_warn("refused %llu connections of peers already holding %d open",
			  (unsigned long long)c->conns_refused, CTLD_MAX_CONNS_PER_PEER);
	c->conns_refused = 0;
}

void ctld_conns_start(struct ctld *c)
{
	uv_timer_init(c->loop, &c->conn_sweep);
	c->conn_sweep.data = c;
	uv_timer_start(&c->conn_sweep, on_conn_sweep, 1000, 1000);
}

void ctld_conn_close(struct ctld_conn *cn)
{
	struct ctld *c = cn->c;

	if (cn->closing)
		return;
	cn->closing = true;
	peer_release(c, cn);
	if (cn->prev)
		cn->prev->next = cn->next;
	else if (c->conns == cn)
		c->conns = cn->next;
	if (cn->next)
		cn->next->prev = cn->prev;
	cn->prev = cn->next = NULL;
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
	cn->active_at = uv_now(cn->c->loop);
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
		cn->active_at = uv_now(cn->c->loop);
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
	uint64_t key = 0;

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
		key = cr.uid == 0 || (c->conf->slurm_user && !strcmp(c->conf->slurm_user,
								      cn->peer_id.user))
			      ? 0
			      : 1ull << 32 | cr.uid;
	} else {
		struct sockaddr_storage ss;
		int len = sizeof(ss);

		if (!uv_tcp_getpeername(&cn->tcp, (struct sockaddr *)&ss, &len) &&
		    ss.ss_family == AF_INET)
			key = 2ull << 32 | ((struct sockaddr_in *)&ss)->sin_addr.s_addr;
	}
	cn->active_at = uv_now(c->loop);
	cn->next = c->conns;
	if (c->conns)
		c->conns->prev = cn;
	c->conns = cn;
	if (key && !peer_admit(c, cn, key)) {
		c->conns_refused++;
		ctld_conn_close(cn);
		return;
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
