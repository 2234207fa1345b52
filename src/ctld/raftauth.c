/* SPDX-License-Identifier: Apache-2.0 */
/* Controllers prove the cluster key to each other on the Raft port: a
 * transport around libraft's TCP one. Once libraft's own handshake is done,
 * the connecting controller sends one frame (4-byte big-endian length, then
 * a token with role "controller") and waits for one byte back; the
 * accepting one checks the token and answers before libraft sees the
 * stream. Each side reads exactly those bytes, so nothing of libraft's is
 * consumed; an incoming stream is only read by libraft afterwards (libraft
 * answers over its own outgoing connections), so the byte back is all
 * that ever travels that way before the hand-over. A connection without the
 * key is closed and never reaches libraft. */
#include "raftauth.h"

#include "common/log.h"

#include <arpa/inet.h>
#include <raft.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HELLO_MAX 4096
#define HANDSHAKE_MS 5000

/* One connection being checked, either way. */
struct shake {
	struct ctld_raft_auth *a;
	uv_stream_t *stream; /* libraft's (raft_malloc'd) */
	uv_timer_t timer;
	uv_write_t wreq;
	bool outgoing;
	/* outgoing: the caller's request; incoming: who libraft says it is */
	struct raft_uv_connect *req;
	raft_id id;
	char address[256];
	unsigned char head[4];
	char *hello; /* the token as it arrives (incoming), or the frame sent */
	size_t want, got;
	unsigned char ack;
	bool done;
	unsigned refs; /* the timer, and a write in flight (its request is here) */
	struct shake *next;
};

struct ctld_raft_auth {
	struct raft_uv_transport outer; /* what raft_uv_init is given */
	struct raft_uv_transport inner; /* libraft's TCP transport */
	const struct spur_auth_key *key;
	raft_uv_accept_cb accept_cb;
	raft_uv_transport_close_cb close_cb;
	struct shake *shakes; /* in progress */
	bool closing;
};

static void stream_freed(uv_handle_t *h)
{
	raft_free(h);
}

static void shake_unref(struct shake *s)
{
	if (--s->refs)
		return;
	free(s->hello);
	free(s);
}

static void timer_closed(uv_handle_t *h)
{
	shake_unref(h->data);
}

/* Write buf on the stream; the shake lives until the write's callback. */
static int shake_write(struct shake *s, uv_buf_t buf, uv_write_cb cb)
{
	int rc;

	s->wreq.data = s;
	rc = uv_write(&s->wreq, s->stream, &buf, 1, cb);
	if (!rc)
		s->refs++;
	return rc;
}

/* The handshake is over: hand the stream on (ok) or drop it. */
static void shake_end(struct shake *s, bool ok)
{
	struct ctld_raft_auth *a = s->a;
	uv_stream_t *stream = s->stream;

	if (s->done)
		return;
	s->done = true;
	for (struct shake **p = &a->shakes; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	uv_read_stop(stream);
	if (!ok && !uv_is_closing((uv_handle_t *)stream))
		uv_close((uv_handle_t *)stream, stream_freed);
	if (s->outgoing)
		s->req->cb(s->req, ok ? stream : NULL,
			   ok ? 0 : a->closing ? RAFT_CANCELED : RAFT_NOCONNECTION);
	else if (ok)
		a->accept_cb(&a->outer, s->id, s->address, stream);
	uv_close((uv_handle_t *)&s->timer, timer_closed);
}

static void on_timeout(uv_timer_t *t)
{
	struct shake *s = t->data;

	spur_warn("Raft connection %s %s: no handshake in %d ms; closed",
		  s->outgoing ? "to" : "from", s->address, HANDSHAKE_MS);
	shake_end(s, false);
}

static struct shake *shake_new(struct ctld_raft_auth *a, uv_stream_t *stream, bool outgoing)
{
	struct shake *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->stream = stream;
	s->outgoing = outgoing;
	s->refs = 1;
	stream->data = s;
	uv_timer_init(stream->loop, &s->timer);
	s->timer.data = s;
	uv_timer_start(&s->timer, on_timeout, HANDSHAKE_MS, 0);
	s->next = a->shakes;
	a->shakes = s;
	return s;
}

/* Exactly the bytes still wanted: never a byte of what follows. */
static void alloc_exact(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct shake *s = h->data;

	(void)suggested;
	if (s->outgoing) {
		*buf = uv_buf_init((char *)&s->ack, 1);
	} else if (s->got < 4) {
		*buf = uv_buf_init((char *)s->head + s->got, (unsigned)(4 - s->got));
	} else {
		*buf = uv_buf_init(s->hello + (s->got - 4), (unsigned)(s->want - (s->got - 4)));
	}
}

/* ---------------------------------------------------------------- incoming */

static void ack_written(uv_write_t *w, int status)
{
	struct shake *s = w->data;

	shake_end(s, status == 0);
	shake_unref(s);
}

static void incoming_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	struct shake *s = stream->data;
	struct spur_ident id;
	struct spur_error err;
	uv_buf_t ack;

	(void)buf;
	if (n == 0)
		return;
	if (n < 0) {
		shake_end(s, false);
		return;
	}
	s->got += (size_t)n;
	if (s->got == 4) {
		uint32_t len;

		memcpy(&len, s->head, 4);
		s->want = ntohl(len);
		if (!s->want || s->want > HELLO_MAX || !(s->hello = calloc(1, s->want + 1))) {
			spur_warn("Raft connection from %s (id %llu): no cluster key; refused",
				  s->address, (unsigned long long)s->id);
			shake_end(s, false);
		}
		return;
	}
	if (s->got < 4 + s->want)
		return;
	uv_read_stop(stream);
	if (spur_token_verify(s->a->key, s->hello, (int64_t)time(NULL), &id, &err) ||
	    id.role != SPUR_ROLE_CONTROLLER) {
		spur_warn("Raft connection from %s (id %llu) refused: %s", s->address,
			  (unsigned long long)s->id,
			  err.msg[0] && id.role == SPUR_ROLE_CONTROLLER ? err.msg : "not a controller's key");
		shake_end(s, false);
		return;
	}
	s->ack = 'K';
	ack = uv_buf_init((char *)&s->ack, 1);
	if (shake_write(s, ack, ack_written))
		shake_end(s, false);
}

static void inner_accepted(struct raft_uv_transport *t, raft_id id, const char *address,
			   uv_stream_t *stream)
{
	struct ctld_raft_auth *a = t->data;
	struct shake *s;

	if (a->closing || !(s = shake_new(a, stream, false))) {
		uv_close((uv_handle_t *)stream, stream_freed);
		return;
	}
	s->id = id;
	snprintf(s->address, sizeof(s->address), "%s", address ? address : "?");
	if (uv_read_start(stream, alloc_exact, incoming_read))
		shake_end(s, false);
}

/* ---------------------------------------------------------------- outgoing */

static void outgoing_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
	struct shake *s = stream->data;

	(void)buf;
	if (n == 0)
		return;
	shake_end(s, n == 1 && s->ack == 'K');
}

static void hello_written(uv_write_t *w, int status)
{
	struct shake *s = w->data;

	if (!s->done && (status || uv_read_start(s->stream, alloc_exact, outgoing_read)))
		shake_end(s, false);
	shake_unref(s);
}

/* The caller's request: the inner one is embedded in this. */
struct conn_req {
	struct raft_uv_connect inner;
	struct raft_uv_connect *outer;
	struct ctld_raft_auth *a;
	char address[256];
};

static void inner_connected(struct raft_uv_connect *ireq, uv_stream_t *stream, int status)
{
	struct conn_req *cr = ireq->data;
	struct ctld_raft_auth *a = cr->a;
	struct raft_uv_connect *req = cr->outer;
	struct shake *s;
	char *tok;
	uint32_t len;
	uv_buf_t b;

	if (status || !stream) {
		free(cr);
		req->cb(req, NULL, status ? status : RAFT_NOCONNECTION);
		return;
	}
	if (a->closing || !(s = shake_new(a, stream, true))) {
		uv_close((uv_handle_t *)stream, stream_freed);
		free(cr);
		req->cb(req, NULL, a->closing ? RAFT_CANCELED : RAFT_NOMEM);
		return;
	}
	s->req = req;
	snprintf(s->address, sizeof(s->address), "%s", cr->address);
	free(cr);
	tok = spur_token_sign(a->key, "root", SPUR_ROLE_CONTROLLER, NULL, (int64_t)time(NULL), 60,
			      NULL);
	len = tok ? htonl((uint32_t)strlen(tok)) : 0;
	s->hello = tok ? malloc(4 + strlen(tok)) : NULL;
	if (!s->hello) {
		free(tok);
		shake_end(s, false);
		return;
	}
	memcpy(s->hello, &len, 4);
	memcpy(s->hello + 4, tok, strlen(tok));
	b = uv_buf_init(s->hello, (unsigned)(4 + strlen(tok)));
	free(tok);
	if (shake_write(s, b, hello_written))
		shake_end(s, false);
}

/* ---------------------------------------------------------------- the interface */

static int t_init(struct raft_uv_transport *t, raft_id id, const char *address)
{
	struct ctld_raft_auth *a = t->impl;

	return a->inner.init(&a->inner, id, address);
}

static int t_listen(struct raft_uv_transport *t, raft_uv_accept_cb cb)
{
	struct ctld_raft_auth *a = t->impl;

	a->accept_cb = cb;
	return a->inner.listen(&a->inner, inner_accepted);
}

static int t_connect(struct raft_uv_transport *t, struct raft_uv_connect *req, raft_id id,
		     const char *address, raft_uv_connect_cb cb)
{
	struct ctld_raft_auth *a = t->impl;
	struct conn_req *cr = calloc(1, sizeof(*cr));
	int rc;

	if (!cr)
		return RAFT_NOMEM;
	req->cb = cb;
	cr->outer = req;
	cr->a = a;
	cr->inner.data = cr;
	snprintf(cr->address, sizeof(cr->address), "%s", address);
	rc = a->inner.connect(&a->inner, &cr->inner, id, address, inner_connected);
	if (rc)
		free(cr);
	return rc;
}

static void inner_closed(struct raft_uv_transport *t)
{
	struct ctld_raft_auth *a = t->data;

	if (a->close_cb)
		a->close_cb(&a->outer);
}

static void t_close(struct raft_uv_transport *t, raft_uv_transport_close_cb cb)
{
	struct ctld_raft_auth *a = t->impl;

	a->closing = true;
	a->close_cb = cb;
	while (a->shakes)
		shake_end(a->shakes, false);
	a->inner.close(&a->inner, inner_closed);
}

struct raft_uv_transport *ctld_raft_auth_new(uv_loop_t *loop, const struct spur_auth_key *key,
					     int *rc)
{
	struct ctld_raft_auth *a = calloc(1, sizeof(*a));

	*rc = RAFT_NOMEM;
	if (!a)
		return NULL;
	if ((*rc = raft_uv_tcp_init(&a->inner, loop))) {
		free(a);
		return NULL;
	}
	a->inner.data = a;
	a->key = key;
	a->outer.impl = a;
	a->outer.init = t_init;
	a->outer.listen = t_listen;
	a->outer.connect = t_connect;
	a->outer.close = t_close;
	return &a->outer;
}

void ctld_raft_auth_free(struct raft_uv_transport *t)
{
	struct ctld_raft_auth *a;

	if (!t)
		return;
	a = t->impl;
	raft_uv_tcp_close(&a->inner);
	free(a);
}
