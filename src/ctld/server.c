/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld's TCP server: accept, read frames, dispatch, write replies. */
#include "ctld.h"

#include "common/alloc.h"
#include "common/log.h"
#include "io/uvwire.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void on_connection(uv_stream_t *server, int status)
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
	uv_tcp_init(c->loop, &cn->tcp);
	cn->tcp.data = cn;
	if (uv_accept(server, (uv_stream_t *)&cn->tcp) ||
	    uv_read_start((uv_stream_t *)&cn->tcp, spur_uv_alloc, on_read))
		ctld_conn_close(cn);
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
