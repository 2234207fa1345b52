/* SPDX-License-Identifier: Apache-2.0 */
/* spur-cloud: Spur-Cloud's service (docs/cloud.md). HTTP (libmicrohttpd;
 * HTTPS with --cert/--key), one PostgreSQL connection (libpq), requests
 * served one at a time by the server's polling thread; the meter and the
 * budgets' hard stop on the main thread, on a second connection, every
 * --meter-interval seconds (60; 0: never).
 *   spur-cloud -d CONNINFO [-f slurm.conf] [-l ADDR] [-p PORT] [--open-signup]
 *              [--cert FILE --key FILE] [--meter-interval S] [-L LOG]
 *              [--output-dir DIR (absolute: the sessions' output, a folder the nodes share)]
 *              [--oidc-issuer URL --oidc-client-id ID --oidc-client-secret-file F
 *               --oidc-redirect-uri URL]
 * The cluster's controller is found from slurm.conf as the CLI finds it;
 * sessions are submitted as the service's own user. */
#include "cloud/api.h"
#include "cloud/meter.h"
#include "cloud/terminal.h"
#include "cloud/wsproxy.h"
#include "cloud/wskey.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct upload {
	char *buf;
	size_t len;
	bool too_big;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* rs sent, and its parts freed. */
static enum MHD_Result send_resp(struct MHD_Connection *conn, struct cloud_resp *rs)
{
	struct MHD_Response *r = NULL;
	enum MHD_Result rc = MHD_NO;

	if (rs->body)
		r = MHD_create_response_from_buffer(rs->len ? rs->len : strlen(rs->body), rs->body,
						    MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(rs->body);
		goto out;
	}
	MHD_add_response_header(r, "Content-Type", rs->type ? rs->type : "application/json");
	if (!rs->type) /* a proxied answer keeps its own */
		MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (rs->set_cookie)
		MHD_add_response_header(r, "Set-Cookie", rs->set_cookie);
	if (rs->location)
		MHD_add_response_header(r, "Location", rs->location);
	rc = MHD_queue_response(conn, (unsigned)rs->status, r);
	MHD_destroy_response(r);
out:
	free(rs->type);
	free(rs->set_cookie);
	free(rs->location);
	return rc;
}

/* The request's query, re-encoded, without access_token (not passed on
 * by the proxy). */
struct query {
	char buf[8192];
	size_t len;
};

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	struct query *q = cls;
	char k[1024], v[3 * 1024];

	(void)kind;
	if (!strcmp(key, "access_token") || strlen(key) > 300 || (value && strlen(value) > 1000))
		return MHD_YES;
	cloud_url_encode(key, true, k, sizeof(k));
	cloud_url_encode(value ? value : "", true, v, sizeof(v));
	if (q->len + strlen(k) + strlen(v) + 3 < sizeof(q->buf))
		q->len += (size_t)snprintf(q->buf + q->len, sizeof(q->buf) - q->len, "%s%s%s%s",
					   q->len ? "&" : "", k, value ? "=" : "", v);
	return MHD_YES;
}

/* The spur_cloud_token cookie's value, NULL when none. */
static const char *cookie_token(struct MHD_Connection *conn)
{
	return MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, "spur_cloud_token");
}

/* Keep a body as it comes (past CLOUD_MAX_BODY: only that it was too big). */
static int take(struct upload *up, const char *data, size_t n)
{
	char *nb;

	if (up->too_big || up->len + n > CLOUD_MAX_BODY) {
		up->too_big = true;
		return 0;
	}
	if (!(nb = realloc(up->buf, up->len + n + 1)))
		return -1;
	up->buf = nb;
	memcpy(up->buf + up->len, data, n);
	up->len += n;
	up->buf[up->len] = '\0';
	return 0;
}

static const char *query_arg(void *ctx, const char *key)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, key);
}

/* What an upgraded connection becomes: a terminal into job, or (upstream
 * >= 0) the port proxy's WebSocket. */
struct upgraded {
	long long job;
	bool tunnel;
	int upstream;
	char *up_extra;
	size_t up_n;
};

static void on_upgrade(void *cls, struct MHD_Connection *conn, void *state, const char *extra,
		       size_t nextra, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct upgraded *u = cls;

	(void)conn, (void)state;
	if (u->upstream >= 0 && u->tunnel)
		cloud_term_tunnel(u->job, u->upstream, extra, nextra, sock, urh);
	else if (u->upstream >= 0)
		cloud_wsp_start(u->upstream, u->up_extra, u->up_n, extra, nextra, sock, urh, u->job);
	else
		cloud_term_start(u->job, extra, nextra, sock, urh);
	free(u);
}

/* 101: the WebSocket handshake's answer, then the terminal or the port's
 * WebSocket (rs's, taken). */
static enum MHD_Result upgrade(struct MHD_Connection *conn, const char *key,
			       struct cloud_resp *rs)
{
	struct upgraded *u = calloc(1, sizeof(*u));
	struct MHD_Response *r = NULL;
	enum MHD_Result rc = MHD_NO;
	char accept[29];

	if (!u)
		goto out;
	*u = (struct upgraded){ .job = rs->terminal_job, .upstream = -1 };
	if (rs->upstream) {
		u->upstream = rs->upstream_fd, u->up_extra = rs->body, u->up_n = rs->len;
		u->tunnel = rs->tunnel;
		rs->body = NULL, rs->upstream = false;
	}

	if (ws_accept_key(key, accept)) {
		struct cloud_resp bad = { .status = 400,
					  .body = strdup("{\"error\":\"Sec-WebSocket-Key: 16 bytes in "
							 "base64\"}") };

		rc = send_resp(conn, &bad);
		goto out;
	}
	if (!(r = MHD_create_response_for_upgrade(on_upgrade, u)))
		goto out;
	MHD_add_response_header(r, MHD_HTTP_HEADER_UPGRADE, "websocket");
	MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
	if (rs->ws_protocol)
		MHD_add_response_header(r, "Sec-WebSocket-Protocol", rs->ws_protocol);
	rc = MHD_queue_response(conn, MHD_HTTP_SWITCHING_PROTOCOLS, r);
	MHD_destroy_response(r);
	if (rc == MHD_YES)
		u = NULL; /* on_upgrade's now */
out:
	if (u && u->upstream >= 0)
		close(u->upstream);
	if (u)
		free(u->up_extra);
	free(u);
	free(rs->ws_protocol);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **state)
{
	struct cloud_api *api = cls;
	struct upload *up = *state;
	struct query query = { .len = 0 };
	struct cloud_req rq;
	struct cloud_resp rs;

	(void)version;
	if (!up) {
		if (!(up = calloc(1, sizeof(*up))))
			return MHD_NO;
		*state = up;
		return MHD_YES;
	}
	if (*data_size) {
		if (take(up, data, *data_size))
			return MHD_NO;
		*data_size = 0;
		return MHD_YES;
	}
	query.buf[0] = '\0';
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_arg, &query);
	rq = (struct cloud_req){ .method = method, .path = url,
				 .auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								     "Authorization"),
				 .body = up->buf, .len = up->too_big ? CLOUD_MAX_BODY + 1 : up->len,
				 .arg = query_arg, .ctx = conn, .query = query.buf,
				 .cookie_token = cookie_token(conn),
				 .content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
									     "Content-Type") };
	if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_UPGRADE)) {
		rq.ws_key = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Key");
		rq.ws_protocol =
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Protocol");
	}
	cloud_api_handle(api, &rq, &rs);
	spur_debug("%s %s -> %d", method, url, rs.status);
	if (rs.status == 101) {
		enum MHD_Result rc = upgrade(conn, rq.ws_key, &rs);

		free(rs.body);
		free(rs.type);
		free(rs.set_cookie);
		free(rs.location);
		return rc;
	}
	return send_resp(conn, &rs);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct upload *up = *state;

	(void)cls, (void)conn, (void)why;
	if (up) {
		free(up->buf);
		free(up);
	}
	*state = NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *b = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		char *nb = cap - n < 4096 ? realloc(b, cap += 65536) : b;

		if (!nb) {
			free(b);
			fclose(f);
			return NULL;
		}
		b = nb;
		r = fread(b + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	b[n] = '\0';
	fclose(f);
	return b;
}

/* The meter's loop, on this (the main) thread with its own connection,
 * every interval seconds until a signal stops the service. */
static void meter_loop(const char *conninfo, unsigned interval)
{
	struct cloud_db *db = NULL;
	char why[512];
	int rc;

	while (!stopping) {
		struct timespec ts = { .tv_sec = interval };

		if (!interval) {
			pause();
			continue;
		}
		nanosleep(&ts, NULL); /* a signal ends it early */
		if (stopping)
			break;
		if (!db && !(db = cloud_db_open(conninfo, why, sizeof(why)))) {
			spur_warn("meter: %s", why);
			continue;
		}
		if ((rc = cloud_meter_pass(db, why, sizeof(why))) < 0)
			spur_warn("meter: %s", why);
		else if (rc)
			spur_debug("meter: %d sessions metered", rc);
		if (cloud_meter_budgets(db, why, sizeof(why)))
			spur_warn("budgets: %s", why);
		if (cloud_meter_idle(db, why, sizeof(why)))
			spur_warn("idle sessions: %s", why);
	}
	cloud_db_close(db);
}

static int usage(void)
{
	fprintf(stderr, "Usage: spur-cloud -d CONNINFO [-f slurm.conf] [-l ADDR] [-p PORT] [--open-signup] "
			"[--cert FILE --key FILE] [--meter-interval SECONDS] [--oidc-issuer URL "
			"--oidc-client-id ID --oidc-client-secret-file FILE --oidc-redirect-uri URL] "
			"[--output-dir DIR] [-L LOG] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "open-signup", no_argument, NULL, 'o' },
					      { "cert", required_argument, NULL, 'c' },
					      { "key", required_argument, NULL, 'k' },
					      { "meter-interval", required_argument, NULL, 'm' },
					      { "oidc-issuer", required_argument, NULL, 'I' },
					      { "oidc-client-id", required_argument, NULL, 'C' },
					      { "oidc-client-secret-file", required_argument, NULL, 'S' },
					      { "oidc-redirect-uri", required_argument, NULL, 'R' },
					      { "output-dir", required_argument, NULL, 'O' },
					      { NULL, 0, NULL, 0 } };
	const char *conninfo = NULL, *addr = "127.0.0.1", *logf = NULL, *certf = NULL, *keyf = NULL;
	const char *secretf = NULL;
	struct cloud_oidc oidc = { 0 };
	char *secret = NULL;
	struct cloud_api api = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned port = 6830,
		 flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_UPGRADE;
	char why[512], *cert = NULL, *key = NULL;
	struct spur_error err = { 0 };
	struct MHD_Daemon *d;
	int c, verbose = 0, rc = 1;
	long meter_s = 60;
	char *end;

	while ((c = getopt_long(argc, argv, "d:f:l:p:L:v", opts, NULL)) != -1) {
		switch (c) {
		case 'd': conninfo = optarg; break;
		case 'f': setenv("SLURM_CONF", optarg, 1); break;
		case 'l': addr = optarg; break;
		case 'p': port = (unsigned)atoi(optarg); break;
		case 'L': logf = optarg; break;
		case 'v': verbose++; break;
		case 'o': api.open_signup = true; break;
		case 'c': certf = optarg; break;
		case 'k': keyf = optarg; break;
		case 'I': oidc.issuer = optarg; break;
		case 'C': oidc.client_id = optarg; break;
		case 'S': secretf = optarg; break;
		case 'R': oidc.redirect_uri = optarg; break;
		case 'O':
			if (*optarg != '/' || strlen(optarg) > 3000)
				return usage(); /* the nodes' path: absolute */
			api.output_dir = optarg;
			break;
		case 'm':
			meter_s = strtol(optarg, &end, 10);
			if (*end || meter_s < 0 || meter_s > 86400)
				return usage();
			break;
		default: return usage();
		}
	}
	if (!conninfo || optind < argc || !port || port > 65535 || !certf != !keyf ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return usage();
	if (spur_log_open("spur-cloud", verbose ? SPUR_LOG_DEBUG : SPUR_LOG_INFO, logf, &err) ||
	    cloud_api_init()) {
		fprintf(stderr, "spur-cloud: error: %s\n", err.code ? err.msg : "libsodium or libcurl: cannot start");
		return 1;
	}
	if (certf && (!(cert = slurp(certf)) || !(key = slurp(keyf)))) {
		fprintf(stderr, "spur-cloud: error: cannot read %s\n", cert ? keyf : certf);
		goto out;
	}
	if (oidc.issuer || oidc.client_id || secretf || oidc.redirect_uri) {
		/* all four, or none */
		if (!oidc.issuer || !oidc.client_id || !secretf || !oidc.redirect_uri ||
		    strncmp(oidc.issuer, "http", 4) || strncmp(oidc.redirect_uri, "http", 4)) {
			fprintf(stderr, "spur-cloud: error: OpenID Connect needs --oidc-issuer URL, "
					"--oidc-client-id, --oidc-client-secret-file and "
					"--oidc-redirect-uri URL\n");
			rc = 2;
			goto out;
		}
		if (!(secret = slurp(secretf))) {
			fprintf(stderr, "spur-cloud: error: cannot read %s\n", secretf);
			goto out;
		}
		secret[strcspn(secret, "\r\n")] = '\0';
		oidc.client_secret = secret;
		api.oidc = &oidc;
	}
	if (!(api.db = cloud_db_open(conninfo, why, sizeof(why)))) {
		fprintf(stderr, "spur-cloud: error: %s\n", why);
		goto out;
	}
	sa.sin_port = htons((uint16_t)port);
	d = cert ? MHD_start_daemon(flags | MHD_USE_TLS, (uint16_t)port, NULL, NULL, on_request,
				    &api, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				    MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
				    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				    MHD_OPTION_CONNECTION_LIMIT, (unsigned)512, MHD_OPTION_END)
		 : MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, &api,
				    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				    MHD_OPTION_CONNECTION_LIMIT, (unsigned)512, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "spur-cloud: error: cannot listen on %s:%u\n", addr, port);
		goto out;
	}
	spur_info("listening on %s:%u (%s), schema version %d", addr, port, cert ? "https" : "http",
		  CLOUD_SCHEMA_VERSION);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	meter_loop(conninfo, (unsigned)meter_s);
	spur_info("stopping");
	/* a terminal or proxy thread still ending uses the daemon's connections */
	if (cloud_threads_wait(10))
		spur_warn("stopping with connections still open");
	MHD_stop_daemon(d);
	rc = 0;
out:
	cloud_db_close(api.db);
	free(cert);
	free(key);
	free(secret);
	return rc;
}
