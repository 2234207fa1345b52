/* SPDX-License-Identifier: Apache-2.0 */
/* WebSocket frames (ws.h). */
#include "cloud/ws.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

static int parse(const unsigned char *buf, size_t n, size_t max, struct ws_frame *f,
		 const char **why, bool client)
{
	uint64_t len;
	size_t at = 2;

	if (n < 2)
		return 0;
	f->fin = buf[0] >> 7;
	f->op = buf[0] & 0x0f;
	if (buf[0] & 0x70)
		return *why = "reserved bits set", -1;
	if (!(f->op <= WS_BINARY || (f->op >= WS_CLOSE && f->op <= WS_PONG)))
		return *why = "unknown opcode", -1;
	if (client && !(buf[1] & 0x80))
		return *why = "a client's frame must be masked", -1;
	if (!client && (buf[1] & 0x80))
		return *why = "a server's frame must not be masked", -1;
	len = buf[1] & 0x7f;
	if (f->op >= WS_CLOSE && (!f->fin || len > 125))
		return *why = "a control frame fragmented or over 125 bytes", -1;
	if (len == 126) {
		if (n < 4)
			return 0;
		len = (uint64_t)buf[2] << 8 | buf[3];
		at = 4;
	} else if (len == 127) {
		if (n < 10)
			return 0;
		len = 0;
		for (int i = 0; i < 8; i++)
			len = len << 8 | buf[2 + i];
		at = 10;
	}
	if (len > max)
		return *why = "a frame over the size allowed", -1;
	if (n < at + (client ? 4 : 0))
		return 0;
	for (int i = 0; i < 4; i++)
		f->mask[i] = client ? buf[at + (size_t)i] : 0;
	f->hdr = at + (client ? 4 : 0);
	f->len = (size_t)len;
	return n - f->hdr < f->len ? 0 : 1;
}

int ws_parse(const unsigned char *buf, size_t n, size_t max, struct ws_frame *f,
	     const char **why)
{
	return parse(buf, n, max, f, why, true);
}

int ws_parse_server(const unsigned char *buf, size_t n, size_t max, struct ws_frame *f,
		    const char **why)
{
	return parse(buf, n, max, f, why, false);
}

void ws_unmask(const struct ws_frame *f, unsigned char *p)
{
	for (size_t i = 0; i < f->len; i++)
		p[i] ^= f->mask[i & 3];
}

size_t ws_header(unsigned char *out, int op, size_t len)
{
	out[0] = (unsigned char)(0x80 | (op & 0x0f));
	if (len < 126) {
		out[1] = (unsigned char)len;
		return 2;
	}
	if (len <= 0xffff) {
		out[1] = 126;
		out[2] = (unsigned char)(len >> 8);
		out[3] = (unsigned char)len;
		return 4;
	}
	out[1] = 127;
	for (int i = 0; i < 8; i++)
		out[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
	return 10;
}

bool ws_head_field(const char *head, const char *name, char *out, size_t len)
{
	size_t nl = strlen(name);

	for (const char *l = strstr(head, "\r\n"); l && l[2]; l = strstr(l + 2, "\r\n")) {
		const char *v = l + 2;
		size_t vl;

		if (strncasecmp(v, name, nl) || v[nl] != ':')
			continue;
		v += nl + 1;
		v += strspn(v, " \t");
		vl = strcspn(v, "\r\n");
		if (vl >= len)
			return false;
		memcpy(out, v, vl);
		out[vl] = '\0';
		return true;
	}
	return false;
}

int ws_answer(const char *head, char *proto, size_t plen)
{
	int code = -1;

	if (plen)
		*proto = '\0';
	if (strncmp(head, "HTTP/1.", 7) || !isdigit((unsigned char)head[7]) || head[8] != ' ' ||
	    !isdigit((unsigned char)head[9]) || !isdigit((unsigned char)head[10]) ||
	    !isdigit((unsigned char)head[11]) || (head[12] != ' ' && head[12] != '\r'))
		return -1;
	code = (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
	/* a token list only: nothing that could end a header line */
	if (plen && ws_head_field(head, "Sec-WebSocket-Protocol", proto, plen) &&
	    strspn(proto, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_, ") !=
		    strlen(proto))
		*proto = '\0';
	return code;
}
