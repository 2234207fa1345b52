/* SPDX-License-Identifier: Apache-2.0 */
/* The wire format (docs/rfc/0003-wire.md): frames of a 4-byte big-endian
 * length and one JSON object, on TCP between CLI, spurctld and spurd. */
#ifndef SPUR_COMMON_WIRE_H
#define SPUR_COMMON_WIRE_H

#include "error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPUR_WIRE_VERSION 1
#define SPUR_WIRE_MAX_FRAME (16u * 1024 * 1024)
/* Replies the CLI reads from its controller (a queue of 100,000+ jobs). */
#define SPUR_WIRE_MAX_REPLY (1024u * 1024 * 1024)

/* Accumulates bytes from a stream and cuts them into messages. Embedded. */
struct spur_wire_reader {
	char *buf;
	size_t len, cap;
	uint32_t max; /* largest frame accepted; SPUR_WIRE_MAX_FRAME after init */
};

void spur_wire_reader_init(struct spur_wire_reader *r);
void spur_wire_reader_fini(struct spur_wire_reader *r);

/* Append received bytes. SPUR_ENOMEM on failure (nothing appended). */
int spur_wire_feed(struct spur_wire_reader *r, const void *data, size_t len);

/* Take the next complete message: 1 and *out (a new reference) when one was
 * ready, 0 when more bytes are needed, or a negative error for a frame that
 * is too large, not JSON, not an object, or lacks "type" — the stream is
 * then unusable and must be closed. */
int spur_wire_next(struct spur_wire_reader *r, json_t **out, struct spur_error *err);

/* Encode msg as one frame (adds "v"). Caller frees with spur_free(). */
char *spur_wire_encode(json_t *msg, size_t *len);

/* Blocking helpers for the CLI: connect to host:port (with a timeout in ms),
 * send one message and read one reply. */
int spur_wire_connect(const char *host, uint16_t port, int timeout_ms, struct spur_error *err);
/* The controller at host:port on this host, through its abstract Unix
 * socket (where the kernel tells it who we are): the fd, with the server's
 * uid in *server_uid; negative when there is none. */
int spur_wire_connect_local(const char *host, uint16_t port, unsigned *server_uid,
			    struct spur_error *err);
int spur_wire_send(int fd, json_t *msg, struct spur_error *err);
int spur_wire_recv(int fd, json_t **out, int timeout_ms, struct spur_error *err);
/* One raw frame's bytes (malloc'd, NUL-terminated, the caller frees). */
int spur_wire_recv_bytes(int fd, char **out, size_t *len, int timeout_ms, struct spur_error *err);

/* Field helpers that never abort on bad input: the default when missing or
 * of another type. */
const char *spur_json_str(const json_t *o, const char *key, const char *dflt);
/* s[0..n) holds a control byte (below 0x20, or 0x7f). */
bool spur_has_controls(const char *s, size_t n);
/* s[0..n) into out (cap bytes, NUL-terminated) with its control bytes
 * written as escapes (\n, \t, \r, \xHH), cut short where out is full.
 * Returns the length written. */
size_t spur_escape_controls(const char *s, size_t n, char *out, size_t cap);
/* Every string in v (objects and arrays, recursively; a member "text" is
 * squeue's lines, escaped where they were formatted) with its control
 * bytes written as escapes (\n, \t, \r, \xHH), so that a user's job name
 * or comment cannot forge lines or move the cursor of whoever reads a
 * command's output. 0, or SPUR_ENOMEM (v partly escaped). */
int spur_json_escape_controls(json_t *v);
int64_t spur_json_int(const json_t *o, const char *key, int64_t dflt);
int spur_json_bool(const json_t *o, const char *key, int dflt);

#endif
