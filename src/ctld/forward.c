/* SPDX-License-Identifier: Apache-2.0 */
/* A follower's forwarding of a client's writes to the leader: the first
 * write makes the client's connection a pipe to the leader's client port
 * for the rest of its life (every later request, and every answer — a
 * --wait job's end, an allocation — comes through it). The leader sees an
 * ordinary client. When either side hangs up the other is closed, as the
 * client would see a controller that went away. */
#include "ctld.h"

#include "common/log.h"
#include "io/uvwire.h"

#include <stdlib.h>
#include <string.h>

struct ctld_forward {
	enum ctld_tcp_kind kind; /* CTLD_TCP_FORWARD */
	uv_tcp_t tcp;
	uv_connect_t creq;
	struct ctld_conn *cn; /* a reference held */
	struct spur_wire_reader rd;
	json_t *queued; /* requests until the connection to the leader is up */
	bool connected, closing;
};

static void fwd_closed(uv_handle_t *h)
{
	struct ctld_forward *f = h->data;

	spur_wire_reader_fini(&f->rd);
	json_decref(f->queued);
	ctld_conn_unref(f->cn);
	free(f);
}

/* Hang up on the leader's side; the client's connection goes too. */
static void fwd_close(struct ctld_forward *f, bool close_client)
{
	struct ctld_conn *cn = f->cn;

	if (f->closing)
		return;
	f->closing = true;
	cn->fwd = NULL;
	uv_close((uv_handle_t *)&f->tcp, fwd_closed);
	if (close_client)
		ctld_conn_close(cn);
}

static void fwd_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct ctld_forward *f = s->data;
	struct spur_error err;
	json_t *msg;
	int rc;

	if (n < 0 || spur_wire_feed(&f->rd, buf->base, n < 0 ? 0 : (size_t)n)) {
		free(buf->base);
		fwd_close(f, true);
		return;
	}
	free(buf->base);
	while ((rc = spur_wire_next(&f->rd, &msg, &err)) == 1)
		ctld_conn_send(f->cn, msg);
	if (rc < 0)
		fwd_close(f, true);
}

static void fwd_connected(uv_connect_t *req, int status)
{
	struct ctld_forward *f = req->data;
	size_t i;
	json_t *m;

	if (f->closing)
		return;
	if (status < 0 || uv_read_start((uv_stream_t *)&f->tcp, spur_uv_alloc, fwd_read)) {
		spur_warn("forwarding to the leader: %s", uv_strerror(status));
		ctld_conn_send(f->cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code",
						SPUR_EAGAIN, "message",
						"Unable to contact slurm controller (the leader)"));
		fwd_close(f, true);
		return;
	}
	f->connected = true;
	json_array_foreach(f->queued, i, m)
		spur_uv_send((uv_stream_t *)&f->tcp, json_incref(m));
	json_array_clear(f->queued);
}

int ctld_forward(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	long leader = ctld_leader_index(c);
	struct ctld_forward *f = cn->fwd;
	struct sockaddr_in sa;

	if (f) {
		if (f->connected)
			return spur_uv_send((uv_stream_t *)&f->tcp, json_incref(msg)) ? -1 : 0;
		return json_array_append(f->queued, msg);
	}
	if (leader < 0 || (size_t)leader == c->self ||
	    uv_ip4_addr(c->conf->ctlds[leader].addr, spur_conf_ctld_port(c->conf, (size_t)leader),
			&sa))
		return -1; /* no leader known, or not by an IPv4 address */
	f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->kind = CTLD_TCP_FORWARD;
	f->cn = cn;
	f->queued = json_array();
	spur_wire_reader_init(&f->rd);
	uv_tcp_init(c->loop, &f->tcp);
	f->tcp.data = f;
	f->creq.data = f;
	ctld_conn_ref(cn);
	cn->fwd = f;
	json_array_append(f->queued, msg);
	if (uv_tcp_connect(&f->creq, &f->tcp, (const struct sockaddr *)&sa, fwd_connected)) {
		fwd_close(f, false);
		return -1;
	}
	return 0;
}

void ctld_tcp_close(uv_handle_t *h)
{
	const enum ctld_tcp_kind *kind = h->data;

	if (*kind == CTLD_TCP_FORWARD) {
		struct ctld_forward *f = h->data;

		f->closing = true;
		f->cn->fwd = NULL;
		uv_close(h, fwd_closed);
	} else {
		uv_close(h, ctld_conn_closed);
	}
}

void ctld_forward_close(struct ctld_conn *cn)
{
	if (cn->fwd)
		fwd_close(cn->fwd, false);
}
