/* SPDX-License-Identifier: Apache-2.0 */
/* Sending frames on libuv streams. */
#include "uvwire.h"

#include "common/alloc.h"

#include <stdlib.h>

struct uvwire_req {
	uv_write_t req;
	char *frame;
};

static void on_written(uv_write_t *req, int status)
{
	struct uvwire_req *w = (struct uvwire_req *)req;

	(void)status;
	spur_free(w->frame);
	free(w);
}

int spur_uv_send(uv_stream_t *s, json_t *msg)
{
	struct uvwire_req *w = calloc(1, sizeof(*w));
	size_t len;
	uv_buf_t buf;

	if (w)
		w->frame = spur_wire_encode(msg, &len);
	json_decref(msg);
	if (!w || !w->frame) {
		free(w);
		return SPUR_ENOMEM;
	}
	buf = uv_buf_init(w->frame, (unsigned)len);
	if (uv_write(&w->req, s, &buf, 1, on_written)) {
		spur_free(w->frame);
		free(w);
		return SPUR_EIO;
	}
	return 0;
}

/* A raw frame: its header and the caller's bytes, freed once written. */
struct uvwire_raw {
	uv_write_t req;
	unsigned char hdr[4];
	char *data;
};

static void on_raw_written(uv_write_t *req, int status)
{
	struct uvwire_raw *w = (struct uvwire_raw *)req;

	(void)status;
	free(w->data);
	free(w);
}

int spur_uv_send_raw(uv_stream_t *s, char *data, size_t len)
{
	struct uvwire_raw *w = len <= SPUR_WIRE_MAX_REPLY ? calloc(1, sizeof(*w)) : NULL;
	uv_buf_t bufs[2];

	if (!w) {
		free(data);
		return SPUR_ENOMEM;
	}
	w->data = data;
	w->hdr[0] = (unsigned char)(len >> 24);
	w->hdr[1] = (unsigned char)(len >> 16);
	w->hdr[2] = (unsigned char)(len >> 8);
	w->hdr[3] = (unsigned char)len;
	bufs[0] = uv_buf_init((char *)w->hdr, 4);
	bufs[1] = uv_buf_init(data, (unsigned)len);
	if (uv_write(&w->req, s, bufs, 2, on_raw_written)) {
		free(data);
		free(w);
		return SPUR_EIO;
	}
	return 0;
}

void spur_uv_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)h;
	buf->base = malloc(suggested);
	buf->len = buf->base ? suggested : 0;
}
