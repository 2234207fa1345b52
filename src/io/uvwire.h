/* SPDX-License-Identifier: Apache-2.0 */
/* libuv glue for the wire format: send one message on a stream. */
#ifndef SPUR_IO_UVWIRE_H
#define SPUR_IO_UVWIRE_H

#include "common/wire.h"

#include <uv.h>

/* Encode msg (stolen) as a frame and queue it on s; the frame is freed when
 * written. Returns 0, or a negative error (nothing queued). */
int spur_uv_send(uv_stream_t *s, json_t *msg);

/* Queue data[0..len) (malloc'd, stolen) on s as a raw frame: the same
 * 4-byte length, bytes that are not JSON (squeue's lines: RFC 0003 §2). */
int spur_uv_send_raw(uv_stream_t *s, char *data, size_t len);

/* libuv read-buffer allocator for the daemons (malloc; the reader frees). */
void spur_uv_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);

#endif
