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

void spur_uv_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)h;
	buf->base = malloc(suggested);
	buf->len = buf->base ? suggested : 0;
}
