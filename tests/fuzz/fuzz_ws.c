/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: WebSocket frames as a browser (or anyone who reaches
 * spur-cloud's terminal) sends them, read as the terminal reads them: a
 * frame said whole lies inside the bytes given and within the size
 * allowed; unmasking stays inside it; a server header for its length
 * says the same length back. The same bytes as an upgrade's answer head,
 * as a session's port sends it to the port proxy (ws_answer): a status of
 * three digits or -1, and a protocol that fits and holds no line end; and
 * as frames a server sends (spur-cloud-ssh reads them): the same bounds. */
#include "fuzz.h"

#include "cloud/ws.h"

#include <stdlib.h>
#include <string.h>

static void answer(const uint8_t *data, size_t size)
{
	char *head = malloc(size + 1), proto[64];
	int code;

	if (!head)
		return;
	memcpy(head, data, size);
	head[size] = '\0';
	code = ws_answer(head, proto, sizeof(proto));
	if ((code != -1 && (code < 0 || code > 999)) || strlen(proto) >= sizeof(proto) ||
	    strpbrk(proto, "\r\n"))
		abort();
	if (ws_head_field(head, "Sec-WebSocket-Accept", proto, sizeof(proto)) &&
	    (strlen(proto) >= sizeof(proto) || strpbrk(proto, "\r\n")))
		abort();
	free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1), h[10];
	size_t at = 0, max = size ? data[0] * 64u : 0;
	struct ws_frame f;
	const char *why = NULL;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	while (at < size) {
		int rc = ws_parse(buf + at, size - at, max, &f, &why);

		if (rc < 0 && !why)
			abort();
		if (rc != 1)
			break;
		if (f.hdr + f.len > size - at || f.len > max || f.hdr < 6 || f.hdr > 14)
			abort();
		ws_unmask(&f, buf + at + f.hdr);
		if (ws_header(h, f.op, f.len) > 10)
			abort();
		at += f.hdr + f.len;
	}
	at = 0;
	while (at < size) { /* the same bytes as a server's frames */
		int rc = ws_parse_server(data + at, size - at, max, &f, &why);

		if (rc < 0 && !why)
			abort();
		if (rc != 1)
			break;
		if (f.hdr + f.len > size - at || f.len > max || f.hdr < 2 || f.hdr > 10)
			abort();
		at += f.hdr + f.len;
	}
	free(buf);
	answer(data, size);
	return 0;
}
