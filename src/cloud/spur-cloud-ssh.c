/* SPDX-License-Identifier: Apache-2.0 */
/* spur-cloud-ssh URL: ssh's ProxyCommand into a Spur-Cloud session
 * (docs/cloud.md "SSH"). It opens URL (http[s]://HOST[:PORT]/v1/orgs/ORG/
 * sessions/ID/ssh) as a WebSocket with the user's token (SPUR_CLOUD_TOKEN)
 * and passes stdin and stdout through it: binary frames carry the SSH
 * connection to the session's own SSH server, inside its job. https is
 * OpenSSL's TLS, the service's certificate checked against the system's
 * CAs or SPUR_CLOUD_CA (a PEM file) and the URL's host name. */
#include "cloud/ws.h"
#include "cloud/wskey.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
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

/* The connection to the service: its socket, and TLS over it for https. */
struct conn {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
};

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

static int conn_write(struct conn *c, const void *buf, size_t n)
{
	if (!c->ssl)
		return write_all(c->fd, buf, n);
	return n && SSL_write(c->ssl, buf, (int)n) != (int)n ? -1 : 0;
}

/* Up to n bytes: their count, 0 at the end, -1 on an error (errno EAGAIN:
 * none yet). */
static ssize_t conn_read(struct conn *c, void *buf, size_t n)
{
	int r;

	if (!c->ssl)
		return recv(c->fd, buf, n, 0);
	r = SSL_read(c->ssl, buf, (int)n);
	if (r > 0)
		return r;
	if (SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_READ) {
		errno = EAGAIN;
		return -1;
	}
	return SSL_get_error(c->ssl, r) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

/* A client's frame (masked, as RFC 6455 wants). */
static int send_frame(struct conn *c, int op, const unsigned char *p, size_t n)
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
	rc = conn_write(c, buf, hl + 4 + n);
	free(buf);
	return rc;
}

/* URL's host, port and path; *tls for https. 0, or -1. */
static int parse_url(const char *url, char *host, size_t hl, char *port, size_t pl,
		     const char **path, bool *tls)
{
	const char *h, *slash, *colon;

	*tls = !strncmp(url, "https://", 8);
	h = url + (*tls ? 8 : 7);
	if ((!*tls && strncmp(url, "http://", 7)) || !(slash = strchr(h, '/')) || slash == h)
		return -1;
	colon = memchr(h, ':', (size_t)(slash - h));
	if ((size_t)((colon ? colon : slash) - h) >= hl ||
	    (colon && (size_t)(slash - colon - 1) >= pl))
		return -1;
	snprintf(host, hl, "%.*s", (int)((colon ? colon : slash) - h), h);
	snprintf(port, pl, "%.*s", colon ? (int)(slash - colon - 1) : 3,
		 colon ? colon + 1 : *tls ? "443" : "80");
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

/* TLS over c->fd to host (its certificate checked): 0, or 1 (said). */
static int tls_start(struct conn *c, const char *host)
{
	const char *ca = getenv("SPUR_CLOUD_CA");
	char why[256];

	if (!(c->ctx = SSL_CTX_new(TLS_client_method())) ||
	    !(ca && *ca ? SSL_CTX_load_verify_locations(c->ctx, ca, NULL)
			: SSL_CTX_set_default_verify_paths(c->ctx)))
		goto fail;
	SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
	if (!(c->ssl = SSL_new(c->ctx)) || !SSL_set_fd(c->ssl, c->fd) ||
	    !SSL_set_tlsext_host_name(c->ssl, host) || !SSL_set1_host(c->ssl, host) ||
	    SSL_connect(c->ssl) != 1)
		goto fail;
	return 0;
fail:
	ERR_error_string_n(ERR_get_error(), why, sizeof(why));
	return die("TLS with the service failed", why);
}

/* The upgrade: 0 with the bytes past the answer's head in in (*nin), or
 * 1 (said). */
static int handshake(struct conn *c, const char *host, const char *path, const char *token,
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
	if (conn_write(c, req, strlen(req)))
		return die("cannot send the request", strerror(errno));
	while (!end) {
		ssize_t r = conn_read(c, head + n, sizeof(head) - 1 - n);

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
static int from_service(struct conn *c, unsigned char *in, size_t *nin)
{
	struct ws_frame f;
	const char *why = NULL;
	int rc;

	while ((rc = ws_parse_server(in, *nin, IN_MAX, &f, &why)) == 1) {
		unsigned char *p = in + f.hdr;

		if (f.op == WS_CLOSE)
			return 1;
		if (f.op == WS_PING)
			send_frame(c, WS_PONG, p, f.len);
		else if ((f.op == WS_BINARY || f.op == WS_CONT) && write_all(1, p, f.len))
			return -1;
		memmove(in, p + f.len, *nin - f.hdr - f.len);
		*nin -= f.hdr + f.len;
	}
	if (rc < 0)
		die("the service broke the protocol", why);
	return rc < 0 ? -1 : 0;
}

static int relay(struct conn *c, unsigned char *in, size_t nin)
{
	unsigned char buf[32768];
	bool open_in = true;
	int rc = from_service(c, in, &nin);

	while (!rc) {
		struct pollfd p[2] = { { .fd = c->fd, .events = POLLIN },
				       { .fd = open_in ? 0 : -1, .events = POLLIN } };
		ssize_t r;

		/* bytes TLS has read already are not the socket's any more */
		if (c->ssl && SSL_pending(c->ssl) > 0) {
			p[0].revents = POLLIN, p[1].revents = 0;
		} else if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (p[1].revents) {
			r = read(0, buf, sizeof(buf));
			if (r > 0 && send_frame(c, WS_BINARY, buf, (size_t)r))
				return die("the service is gone", "");
			if (r <= 0) { /* ssh closed its side: the service's close ends it */
				open_in = false;
				send_frame(c, WS_CLOSE, (const unsigned char *)"\x03\xe8", 2);
			}
		}
		if (p[0].revents) {
			r = conn_read(c, in + nin, IN_MAX + 16 - nin);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0)
				return 0;
			nin += (size_t)r;
			rc = from_service(c, in, &nin);
		}
	}
	return rc < 0;
}

int main(int argc, char **argv)
{
	const char *token = getenv("SPUR_CLOUD_TOKEN"), *path;
	char host[256], port[8];
	struct conn c = { .fd = -1 };
	unsigned char *in;
	size_t nin = 0;
	bool tls;
	int rc;

	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: spur-cloud-ssh http[s]://HOST[:PORT]/v1/orgs/ORG/sessions/ID/ssh\n"
				"  (the token in SPUR_CLOUD_TOKEN; for https, a CA file in SPUR_CLOUD_CA\n"
				"  when the service's certificate is not signed by the system's CAs),\n"
				"  as ssh's ProxyCommand:\n"
				"  ssh -o ProxyCommand='spur-cloud-ssh URL' USER@session\n");
		return argc == 2 ? 0 : 1;
	}
	if (parse_url(argv[1], host, sizeof(host), port, sizeof(port), &path, &tls))
		return die("not a URL of the form http[s]://HOST[:PORT]/PATH", argv[1]);
	if (!token || !*token || strpbrk(token, "\r\n"))
		return die("no token", "set SPUR_CLOUD_TOKEN (a login token or an API key)");
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0 || !(in = malloc(IN_MAX + 16)))
		return die("cannot start", "libsodium or memory");
	if ((c.fd = dial(host, port)) < 0) {
		free(in);
		return die("cannot reach the service", argv[1]);
	}
	rc = tls ? tls_start(&c, host) : 0;
	if (!rc)
		rc = handshake(&c, host, path, token, in, &nin);
	if (!rc)
		rc = relay(&c, in, nin);
	if (c.ssl)
		SSL_shutdown(c.ssl);
	SSL_free(c.ssl);
	SSL_CTX_free(c.ctx);
	close(c.fd);
	free(in);
	return rc;
}
