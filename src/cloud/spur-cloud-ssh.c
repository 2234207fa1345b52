/* SPDX-License-Identifier: Apache-2.0 */
/* spur-cloud-ssh URL: ssh's ProxyCommand into a Spur-Cloud session
 * (docs/cloud.md "SSH"). It opens URL (http://HOST[:PORT]/v1/orgs/ORG/
 * sessions/ID/ssh) as a WebSocket with the user's token (SPUR_CLOUD_TOKEN)
 * and passes stdin and stdout through it: binary frames carry the SSH
 * connection to the session's own SSH server, inside its job. */
#include "cloud/ws.h"
#include "cloud/wskey.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define IN_MAX (1024 * 1024) /* the most of a frame from the service */

static int die(const char *what, const char *detail)
{
	fprintf(stderr, "spur-cloud-ssh: %s%s%s\n", what, *detail ? ": " : "", detail);
	return 1;
}

/* All of p to fd (a socket or stdout; SIGPIPE is ignored). */
static int write_all(int fd, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w, n -= (size_t)w;
	}
	return 0;
}

/* A client's frame (masked, as RFC 6455 wants). */
static int send_frame(int fd, int op, const unsigned char *p, size_t n)
{
	unsigned char h[14], *buf = malloc(n + 14), mask[4];
	size_t hl = ws_header(h, op, n);
	int rc;

	if (!buf)
		return -1;
	randombytes_buf(mask, sizeof(mask));
	h[1] |= 0x80;
	memcpy(h + hl, mask, 4);
	memcpy(buf, h, hl + 4);
	for (size_t i = 0; i < n; i++)
		buf[hl + 4 + i] = p[i] ^ mask[i & 3];
	rc = write_all(fd, buf, hl + 4 + n);
	free(buf);
	return rc;
}

/* URL's host, port and path (http only). 0, or -1. */
static int parse_url(const char *url, char *host, size_t hl, char *port, size_t pl,
		     const char **path)
{
	const char *h = url + 7, *slash, *colon;

	if (strncmp(url, "http://", 7) || !(slash = strchr(h, '/')) || slash == h)
		return -1;
	colon = memchr(h, ':', (size_t)(slash - h));
	if ((size_t)((colon ? colon : slash) - h) >= hl ||
	    (colon && (size_t)(slash - colon - 1) >= pl))
		return -1;
	snprintf(host, hl, "%.*s", (int)((colon ? colon : slash) - h), h);
	snprintf(port, pl, "%.*s", colon ? (int)(slash - colon - 1) : 2, colon ? colon + 1 : "80");
	*path = slash;
	return 0;
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/* The upgrade: 0 with the bytes past the answer's head in in (*nin), or
 * 1 (said). */
static int handshake(int fd, const char *host, const char *path, const char *token,
		     unsigned char *in, size_t *nin)
{
	unsigned char raw[16];
	char key[32], want[29], got[64], req[8192], head[16384], *end = NULL;
	size_t n = 0;
	int code;

	randombytes_buf(raw, sizeof(raw));
	sodium_bin2base64(key, sizeof(key), raw, sizeof(raw), sodium_base64_VARIANT_ORIGINAL);
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
		 "Authorization: Bearer %s\r\n\r\n",
		 path, host, key, token);
	if (write_all(fd, req, strlen(req)))
		return die("cannot send the request", strerror(errno));
	while (!end) {
		ssize_t r = recv(fd, head + n, sizeof(head) - 1 - n, 0);

		if (r <= 0 || (n += (size_t)r) >= sizeof(head) - 1)
			return die("no answer from the service", r < 0 ? strerror(errno) : "");
		head[n] = '\0';
		end = strstr(head, "\r\n\r\n");
	}
	end[2] = '\0';
	code = ws_answer(head, got, sizeof(got));
	if (code != 101) {
		fprintf(stderr, "spur-cloud-ssh: the service refused: %.*s\n",
			(int)strcspn(head, "\r\n"), head);
		if (end + 4 < head + n)
			fprintf(stderr, "spur-cloud-ssh: %.*s\n", (int)(head + n - end - 4), end + 4);
		return 1;
	}
	if (ws_accept_key(key, want) || !ws_head_field(head, "Sec-WebSocket-Accept", got, sizeof(got)) ||
	    strcmp(got, want))
		return die("the service's answer is not a WebSocket's", "Sec-WebSocket-Accept");
	*nin = n - (size_t)(end + 4 - head);
	memcpy(in, end + 4, *nin);
	return 0;
}

/* The service's frames in in: 0 to go on, 1 at its close, -1 on an error. */
static int from_service(int fd, unsigned char *in, size_t *nin)
{
	struct ws_frame f;
	const char *why = NULL;
	int rc;

	while ((rc = ws_parse_server(in, *nin, IN_MAX, &f, &why)) == 1) {
		unsigned char *p = in + f.hdr;

		if (f.op == WS_CLOSE)
			return 1;
		if (f.op == WS_PING)
			send_frame(fd, WS_PONG, p, f.len);
		else if ((f.op == WS_BINARY || f.op == WS_CONT) && write_all(1, p, f.len))
			return -1;
		memmove(in, p + f.len, *nin - f.hdr - f.len);
		*nin -= f.hdr + f.len;
	}
	if (rc < 0)
		die("the service broke the protocol", why);
	return rc < 0 ? -1 : 0;
}

static int relay(int fd, unsigned char *in, size_t nin)
{
	unsigned char buf[32768];
	bool open_in = true;
	int rc = from_service(fd, in, &nin);

	while (!rc) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = open_in ? 0 : -1, .events = POLLIN } };
		ssize_t r;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (p[1].revents) {
			r = read(0, buf, sizeof(buf));
			if (r > 0 && send_frame(fd, WS_BINARY, buf, (size_t)r))
				return die("the service is gone", "");
			if (r <= 0) { /* ssh closed its side: the service's close ends it */
				open_in = false;
				send_frame(fd, WS_CLOSE, (const unsigned char *)"\x03\xe8", 2);
			}
		}
		if (p[0].revents) {
			r = recv(fd, in + nin, IN_MAX + 16 - nin, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return 0;
			nin += (size_t)r;
			rc = from_service(fd, in, &nin);
		}
	}
	return rc < 0;
}

int main(int argc, char **argv)
{
	const char *token = getenv("SPUR_CLOUD_TOKEN"), *path;
	char host[256], port[8];
	unsigned char *in;
	size_t nin = 0;
	int fd, rc;

	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: spur-cloud-ssh http://HOST[:PORT]/v1/orgs/ORG/sessions/ID/ssh\n"
				"  (the token in SPUR_CLOUD_TOKEN), as ssh's ProxyCommand:\n"
				"  ssh -o ProxyCommand='spur-cloud-ssh URL' USER@session\n");
		return argc == 2 ? 0 : 1;
	}
	if (!strncmp(argv[1], "https://", 8))
		return die("https is not supported by spur-cloud-ssh yet", "use the service's http "
									   "address on a trusted network");
	if (parse_url(argv[1], host, sizeof(host), port, sizeof(port), &path))
		return die("not a URL of the form http://HOST[:PORT]/PATH", argv[1]);
	if (!token || !*token || strpbrk(token, "\r\n"))
		return die("no token", "set SPUR_CLOUD_TOKEN (a login token or an API key)");
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0 || !(in = malloc(IN_MAX + 16)))
		return die("cannot start", "libsodium or memory");
	if ((fd = dial(host, port)) < 0) {
		free(in);
		return die("cannot reach the service", argv[1]);
	}
	rc = handshake(fd, host, path, token, in, &nin);
	if (!rc)
		rc = relay(fd, in, nin);
	close(fd);
	free(in);
	return rc;
}
