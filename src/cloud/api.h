/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's REST API (docs/cloud.md, served as /openapi.json): accounts
 * (passwords hashed with libsodium's Argon2id), organisations with roles,
 * projects (each a Spur account), login tokens and API keys (shown once,
 * stored as the SHA-256 of their secret, scoped read or write,
 * revocable). One request in, one response out; the database behind. */
#ifndef SPUR_CLOUD_API_H
#define SPUR_CLOUD_API_H

#include "cloud/db.h"
#include "cloud/oidc.h"

#include <stdbool.h>
#include <stddef.h>

#define CLOUD_MAX_BODY (64 * 1024)

struct cloud_api {
	struct cloud_db *db;
	bool open_signup; /* anyone may sign up (else only the first user, the admin) */
	const struct cloud_oidc *oidc; /* OpenID Connect sign-in; NULL: off */
	const char *output_dir; /* the sessions' output (a folder the nodes share); NULL: none kept */
};

struct cloud_req {
	const char *method;
	const char *path;
	const char *auth; /* the Authorization header: "Bearer spc_..." */
	const char *ws_key; /* Sec-WebSocket-Key, when it asks for a WebSocket */
	const char *ws_protocol; /* its Sec-WebSocket-Protocol, NULL when none */
	const char *body;
	size_t len;
	/* the URL's query arguments: arg(ctx, key), NULL when absent (arg
	 * NULL: none) */
	const char *(*arg)(void *ctx, const char *key);
	void *ctx;
	const char *query;	 /* the query string as sent, re-encoded ("" none) */
	const char *cookie_token; /* the spur_cloud_token cookie, NULL when none */
	const char *content_type; /* the request's Content-Type, NULL when none */
};

struct cloud_resp {
	int status;
	char *body; /* malloc'd */
	size_t len; /* body's bytes; 0: strlen(body) */
	char *type; /* its Content-Type, malloc'd; NULL: application/json */
	char *set_cookie; /* a Set-Cookie header, malloc'd; NULL: none */
	char *location;	  /* a Location header (a redirect), malloc'd; NULL: none */
	long long terminal_job; /* status 101: open a terminal into this job */
	/* status 101 of the port proxy: the session's port, upgraded too
	 * (body: its bytes past the answer's head) */
	bool upstream;
	bool tunnel; /* upstream_fd is the session's SSH server: bytes in binary frames */
	int upstream_fd;
	char *ws_protocol; /* the protocol the session's port chose, malloc'd */
};

/* s percent-encoded into out (len bytes; 3 per byte at most): in a path
 * ('/' and sub-delimiters kept) or a query's key or value. */
void cloud_url_encode(const char *s, bool query, char *out, size_t len);

/* 0, or -1 when libsodium or libcurl cannot start. */
int cloud_api_init(void);
void cloud_api_handle(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs);

#endif
