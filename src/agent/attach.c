/* SPDX-License-Identifier: Apache-2.0 */
/* sattach's connections to a step (see attach.h). */
#include "agent/attach.h"

#include "io/uvwire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct spurd_attach {
	uv_tcp_t tcp;
	uv_connect_t creq;
	uv_shutdown_t sreq;
	struct spurd_attach_set *set; /* NULL: in none (a one-off, or closing) */
	spurd_attach_greet_fn greet;  /* a one-off's */
	void *ctx;
	bool ready; /* greeted: gets the step's frames */
	struct spurd_attach *next;
};

static void leave_set(struct spurd_attach *at)
{
	if (!at->set)
		return;
	for (struct spurd_attach **pp = &at->set->head; *pp; pp = &(*pp)->next)
		if (*pp == at) {
			*pp = at->next;
			break;
		}
	at->set = NULL;
	at->ready = false;
}

static void on_closed(uv_handle_t *h)
{
	free(h->data);
}

static void close_now(struct spurd_attach *at)
{
	leave_set(at);
	if (!uv_is_closing((uv_handle_t *)&at->tcp))
		uv_close((uv_handle_t *)&at->tcp, on_closed);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
	(void)status;
	close_now(req->data);
}

/* Hang up once what was queued is written. */
static void hang_up(struct spurd_attach *at)
{
	leave_set(at);
	if (uv_is_closing((uv_handle_t *)&at->tcp))
		return;
	at->sreq.data = at;
	if (uv_shutdown(&at->sreq, (uv_stream_t *)&at->tcp, on_shutdown))
		close_now(at);
}

/* sattach sends nothing (what it might is dropped); an error or the end
 * is its hang-up */
static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	free(buf->base);
	if (n < 0)
		close_now(s->data);
}

static void on_connect(uv_connect_t *req, int status)
{
	struct spurd_attach *at = req->data;
	json_t *frames, *f;
	size_t i;

	if (uv_is_closing((uv_handle_t *)&at->tcp))
		return; /* cancelled: the step ended first */
	if (status < 0) {
		close_now(at);
		return;
	}
	frames = at->set ? at->set->greet(at->set->ctx) : at->greet(at->ctx);
	json_array_foreach(frames, i, f)
		spur_uv_send((uv_stream_t *)&at->tcp, json_incref(f));
	json_decref(frames);
	if (!at->set) {
		hang_up(at);
		return;
	}
	at->ready = true;
	uv_read_start((uv_stream_t *)&at->tcp, spur_uv_alloc, on_read);
}

int spurd_attach_open(uv_loop_t *loop, struct spurd_attach_set *set, spurd_attach_greet_fn greet,
		      void *ctx, const char *host, int port)
{
	struct spurd_attach *at = calloc(1, sizeof(*at));
	struct sockaddr_in sa;
	int rc;

	if (!at)
		return UV_ENOMEM;
	if ((rc = uv_ip4_addr(host, port, &sa))) {
		free(at);
		return rc;
	}
	uv_tcp_init(loop, &at->tcp);
	at->tcp.data = at;
	at->creq.data = at;
	at->greet = greet;
	at->ctx = ctx;
	if ((rc = uv_tcp_connect(&at->creq, &at->tcp, (const struct sockaddr *)&sa, on_connect))) {
		uv_close((uv_handle_t *)&at->tcp, on_closed);
		return rc;
	}
	if (set) {
		at->set = set;
		at->next = set->head;
		set->head = at;
	}
	return 0;
}

void spurd_attach_send(struct spurd_attach_set *set, const json_t *m)
{
	for (struct spurd_attach *at = set->head; at; at = at->next)
		if (at->ready)
			spur_uv_send((uv_stream_t *)&at->tcp, json_incref((json_t *)m));
}

void spurd_attach_close_all(struct spurd_attach_set *set)
{
	while (set->head) {
		struct spurd_attach *at = set->head;

		if (at->ready)
			hang_up(at);
		else
			close_now(at);
	}
}
