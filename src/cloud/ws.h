/* SPDX-License-Identifier: Apache-2.0 */
/* WebSocket frames (RFC 6455 section 5), as the server reads a browser's
 * and writes its own. Pure: no I/O. */
#ifndef SPUR_CLOUD_WS_H
#define SPUR_CLOUD_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ws_op { WS_CONT = 0, WS_TEXT = 1, WS_BINARY = 2, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

struct ws_frame {
	int fin;		/* the last fragment of its message */
	int op;			/* enum ws_op */
	size_t hdr;		/* bytes of header before the payload */
	size_t len;		/* payload bytes */
	unsigned char mask[4];	/* a client's frames are masked */
};

/* The frame at buf[0..n) from a client: 1 with f filled (its hdr + len
 * bytes are all in buf), 0 when more bytes are needed, -1 when it breaks
 * the protocol (why says how: not masked, reserved bits, an unknown
 * opcode, a control frame fragmented or over 125 bytes, a payload over
 * max). */
int ws_parse(const unsigned char *buf, size_t n, size_t max, struct ws_frame *f,
	     const char **why);

/* The same for a server's frame, as a client reads it (not masked: mask
 * all zero; hdr 2 to 10). */
int ws_parse_server(const unsigned char *buf, size_t n, size_t max, struct ws_frame *f,
		    const char **why);

/* Unmask f's payload in place (p: its len bytes). */
void ws_unmask(const struct ws_frame *f, unsigned char *p);

/* A server frame's header (not masked, fin set) for a payload of len
 * bytes into out (at least 10 bytes): its size. */
size_t ws_header(unsigned char *out, int op, size_t len);

/* Header name's value in head (NUL-ended, lines ended by CRLF, its first
 * line the request's or status line) into out (len bytes): false when
 * absent or longer. */
bool ws_head_field(const char *head, const char *name, char *out, size_t len);

/* An upgrade's answer head (NUL-ended, to its blank line), as a session's
 * port sends it to the port proxy: its status code (-1 when there is no
 * "HTTP/1.x NNN" line) and its Sec-WebSocket-Protocol into proto (plen
 * bytes; "" when none, or when it holds bytes other than a token list's). */
int ws_answer(const char *head, char *proto, size_t plen);

#endif
