/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_wire_reader: framing and JSON decoding of messages. */
#define _GNU_SOURCE /* struct ucred */
#include "wire.h"
#include "auth.h"

#include "alloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void spur_wire_reader_init(struct spur_wire_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->max = SPUR_WIRE_MAX_FRAME;
}

void spur_wire_reader_fini(struct spur_wire_reader *r)
{
	spur_free(r->buf);
	memset(r, 0, sizeof(*r));
}

int spur_wire_feed(struct spur_wire_reader *r, const void *data, size_t len)
{
	if (len == 0)
		return 0;
	if (spur_grow((void **)&r->buf, &r->cap, r->len + len, 1))
		return SPUR_ENOMEM;
	memcpy(r->buf + r->len, data, len);
	r->len += len;
	return 0;
}

int spur_wire_next(struct spur_wire_reader *r, json_t **out, struct spur_error *err)
{
	uint32_t n;
	json_error_t je;
	json_t *msg;

	*out = NULL;
	if (r->len < 4)
		return 0;
	n = (uint32_t)(unsigned char)r->buf[0] << 24 | (uint32_t)(unsigned char)r->buf[1] << 16 |
	    (uint32_t)(unsigned char)r->buf[2] << 8 | (uint32_t)(unsigned char)r->buf[3];
	if (n > r->max)
		return spur_error_set(err, SPUR_ETOOBIG, "frame of %u bytes is over the %u limit", n,
				      r->max);
	if (r->len < 4 + (size_t)n)
		return 0;
	msg = json_loadb(r->buf + 4, n, JSON_REJECT_DUPLICATES, &je);
	memmove(r->buf, r->buf + 4 + n, r->len - 4 - n);
	r->len -= 4 + n;
	if (!msg)
		return spur_error_set(err, SPUR_EPARSE, "bad message: %s (at byte %d)", je.text,
				      je.position);
	if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "type"))) {
		json_decref(msg);
		return spur_error_set(err, SPUR_EPARSE, "bad message: not an object with a \"type\"");
	}
	*out = msg;
	return 1;
}

char *spur_wire_encode(json_t *msg, size_t *len)
{
	char *body, *frame;
	size_t n;

	json_object_set_new(msg, "v", json_integer(SPUR_WIRE_VERSION));
	body = json_dumps(msg, JSON_COMPACT);
	if (!body)
		return NULL;
	n = strlen(body);
	frame = spur_malloc(n + 4);
	if (frame) {
		frame[0] = (char)(n >> 24);
		frame[1] = (char)(n >> 16);
		frame[2] = (char)(n >> 8);
		frame[3] = (char)n;
		memcpy(frame + 4, body, n);
		*len = n + 4;
	}
	free(body);
	return frame;
}

int spur_wire_connect(const char *host, uint16_t port, int timeout_ms, struct spur_error *err)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char ports[8];
	int fd = -1, rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(ports, sizeof(ports), "%u", port);
	rc = getaddrinfo(host, ports, &hints, &res);
	if (rc)
		return spur_error_set(err, SPUR_EIO, "%s: %s", host, gai_strerror(rc));
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd;
		int so = 0;
		socklen_t sl = sizeof(so);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (errno == EINPROGRESS && poll(&pfd, 1, timeout_ms) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && so == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return spur_error_set(err, SPUR_EIO,
				      "Unable to contact slurm controller (connect failure) at %s:%u",
				      host, port);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int spur_wire_connect_local(const char *host, uint16_t port, unsigned *server_uid,
			    struct spur_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	size_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return spur_error_set(err, SPUR_EIO, "unix socket: %s", strerror(errno));
	spur_ctld_socket_name(host, port, sa.sun_path, sizeof(sa.sun_path), &len);
	if (connect(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen)) {
		close(fd);
		return spur_error_set(err, SPUR_EIO, "no local controller at %s:%u", host, port);
	}
	*server_uid = (unsigned)cr.uid;
	return fd;
}

int spur_wire_send(int fd, json_t *msg, struct spur_error *err)
{
	size_t len, off = 0;
	char *frame = spur_wire_encode(msg, &len);

	if (!frame)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	while (off < len) {
		ssize_t w = send(fd, frame + off, len - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			spur_free(frame);
			return spur_error_set(err, SPUR_EIO, "send: %s", strerror(errno));
		}
		off += (size_t)w;
	}
	spur_free(frame);
	return 0;
}

/* Read exactly len bytes (each wait bounded by timeout_ms): never a byte of
 * the next frame, which the caller's next call must find. */
static int recv_exact(int fd, char *buf, size_t len, int timeout_ms, struct spur_error *err)
{
	for (size_t got = 0; got < len;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pfd, 1, timeout_ms) != 1)
			return spur_error_set(err, SPUR_EAGAIN, "no reply from the controller in %d ms",
					      timeout_ms);
		n = recv(fd, buf + got, len - got, 0);
		if (n <= 0)
			return spur_error_set(err, SPUR_EIO, "the controller closed the connection");
		got += (size_t)n;
	}
	return 0;
}

int spur_wire_recv_bytes(int fd, char **out, size_t *olen, int timeout_ms, struct spur_error *err)
{
	unsigned char hdr[4];
	uint32_t len;
	char *body;
	int rc;

	if ((rc = recv_exact(fd, (char *)hdr, 4, timeout_ms, err)))
		return rc;
	len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (len > SPUR_WIRE_MAX_REPLY)
		return spur_error_set(err, SPUR_ETOOBIG, "a reply of %u bytes is too large", len);
	if (!(body = malloc((size_t)len + 1)))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if ((rc = recv_exact(fd, body, len, timeout_ms, err))) {
		free(body);
		return rc;
	}
	body[len] = '\0';
	*out = body;
	*olen = len;
	return 0;
}

int spur_wire_recv(int fd, json_t **out, int timeout_ms, struct spur_error *err)
{
	struct spur_wire_reader r;
	unsigned char hdr[4];
	char *body = NULL;
	size_t len;
	int rc;

	/* one frame, exactly: two that arrived together (a reply, then an
	 * allocation) must not lose the second */
	if ((rc = spur_wire_recv_bytes(fd, &body, &len, timeout_ms, err)))
		return rc;
	hdr[0] = (unsigned char)(len >> 24);
	hdr[1] = (unsigned char)(len >> 16);
	hdr[2] = (unsigned char)(len >> 8);
	hdr[3] = (unsigned char)len;
	spur_wire_reader_init(&r);
	r.max = SPUR_WIRE_MAX_REPLY;
	rc = spur_wire_feed(&r, (const char *)hdr, 4) || spur_wire_feed(&r, body, len)
		     ? spur_error_set(err, SPUR_ENOMEM, "out of memory")
		     : spur_wire_next(&r, out, err);
	if (rc == 0)
		rc = spur_error_set(err, SPUR_EPARSE, "an incomplete reply");
	free(body);
	spur_wire_reader_fini(&r);
	return rc < 0 ? rc : 0;
}

const char *spur_json_str(const json_t *o, const char *key, const char *dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : dflt;
}

size_t spur_escape_controls(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 <= cap; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\n' || ch == '\t' || ch == '\r') {
			out[o++] = '\\';
			out[o++] = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
		} else if (ch < 0x20 || ch == 0x7f) {
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", ch);
		} else {
			out[o++] = (char)ch;
		}
	}
	if (cap)
		out[o < cap ? o : cap - 1] = '\0';
	return o;
}

bool spur_has_controls(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

static int escape_string(json_t *v)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v), o;
	char *out;
	int rc;

	if (!spur_has_controls(s, n))
		return 0;
	if (!(out = malloc(4 * n + 5)))
		return SPUR_ENOMEM;
	o = spur_escape_controls(s, n, out, 4 * n + 5);
	rc = json_string_setn_nocheck(v, out, o) ? SPUR_ENOMEM : 0;
	free(out);
	return rc;
}

int spur_json_escape_controls(json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;
	int rc = 0;

	if (json_is_string(v))
		return escape_string(v);
	if (json_is_object(v)) {
		json_object_foreach(v, key, x) {
			/* squeue's lines, formatted (and escaped) by the controller */
			if (strcmp(key, "text"))
				rc = rc ? rc : spur_json_escape_controls(x);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			rc = rc ? rc : spur_json_escape_controls(x);
	}
	return rc;
}

int64_t spur_json_int(const json_t *o, const char *key, int64_t dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

int spur_json_bool(const json_t *o, const char *key, int dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_boolean(v) ? json_is_true(v) : dflt;
}
