/* SPDX-License-Identifier: Apache-2.0 */
/* spurrestd: Slurm's REST API (slurmrestd's paths), /metrics and the
 * dashboard over HTTP (libmicrohttpd), a client of spurctld like the CLI:
 * each request goes to the leading controller in the name of the token's
 * user; the controller decides what that user may see and do. */
#include "rest.h"

#include "cli/client.h"
#include "common/conf.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t backend_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t history_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rest_history history;
static volatile sig_atomic_t stopping;

/* One request to the leading controller (the CLI's client: Unix socket
 * first, then TCP). Calls are one at a time: the client is not thread-safe. */
static json_t *ctld_call(void *ctx, json_t *req, struct spur_error *err)
{
	json_t *reply = NULL;
	int fd;

	(void)ctx;
	pthread_mutex_lock(&backend_lock);
	if ((fd = cli_send(req, 30000, &reply, err)) >= 0)
		close(fd);
	pthread_mutex_unlock(&backend_lock);
	json_decref(req);
	if (reply && !strcmp(spur_json_str(reply, "type", ""), "error")) {
		/* Slurm's words, then the detail ("token expired") */
		const char *detail = spur_json_str(reply, "detail", NULL);

		spur_error_set(err, (int)spur_json_int(reply, "code", SPUR_EINVAL), "%s%s%s",
			       spur_json_str(reply, "message", "error"), detail ? ": " : "",
			       detail ? detail : "");
		json_decref(reply);
		return NULL;
	}
	return reply;
}

static const struct rest_backend backend = { ctld_call, NULL };

/* A request's body as it arrives; too_big once past REST_MAX_BODY. */
struct upload {
	char *buf;
	size_t len, cap;
	bool too_big;
};

static enum MHD_Result send_text(struct MHD_Connection *conn, int status, const char *type,
				 char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	rc = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **state)
{
	struct upload *up = *state;
	struct rest_request rq = { 0 };
	struct rest_response rs;
	struct rest_history *snap = NULL;
	const union MHD_ConnectionInfo *ci;
	char peer[64] = "";

	(void)cls;
	(void)version;
	if (!up) {
		up = calloc(1, sizeof(*up));
		if (!up)
			return MHD_NO;
		*state = up;
		return MHD_YES;
	}
	if (*data_size) {
		/* keep reading a body that is too big, but not keeping it: the
		 * client gets its 413 once it has sent it */
		if (!up->too_big && up->len + *data_size > REST_MAX_BODY) {
			up->too_big = true;
			free(up->buf);
			up->buf = NULL;
		}
		if (!up->too_big) {
			if (up->len + *data_size + 1 > up->cap) {
				size_t cap = (up->len + *data_size + 1) * 2;
				char *nb = realloc(up->buf, cap > REST_MAX_BODY + 1 ? REST_MAX_BODY + 1 : cap);

				if (!nb)
					return MHD_NO;
				up->buf = nb;
				up->cap = cap > REST_MAX_BODY + 1 ? REST_MAX_BODY + 1 : cap;
			}
			memcpy(up->buf + up->len, data, *data_size);
			up->len += *data_size;
			up->buf[up->len] = '\0';
		}
		*data_size = 0;
		return MHD_YES;
	}
	if (up->too_big) {
		char *b = strdup("{\"errors\":[{\"error_number\":9003,\"error\":\"Request body too "
				 "large\",\"description\":\"1 MiB at most\",\"source\":\"\"}],"
				 "\"warnings\":[]}");

		return b ? send_text(conn, 413, "application/json", b, strlen(b)) : MHD_NO;
	}
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ci->client_addr;
		const unsigned char *a = (const unsigned char *)&sin->sin_addr;

		snprintf(peer, sizeof(peer), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	}
	rq.method = method;
	rq.url = url;
	rq.user_name = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-NAME");
	rq.user_token = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-SLURM-USER-TOKEN");
	rq.body = up->buf;
	rq.body_len = up->len;
	rq.peer = peer;
	if (!strcmp(url, "/spur/v1/utilization")) {
		snap = malloc(sizeof(*snap));
		if (snap) {
			pthread_mutex_lock(&history_lock);
			*snap = history;
			pthread_mutex_unlock(&history_lock);
		}
		rq.history = snap;
	}
	rest_handle(&backend, &rq, &rs);
	free(snap);
	spur_debug("%s %s %s -> %d", peer, method, url, rs.status);
	if (!rs.body)
		return MHD_NO;
	return send_text(conn, rs.status, rs.content_type, rs.body, rs.len);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct upload *up = *state;

	(void)cls;
	(void)conn;
	(void)why;
	if (up) {
		free(up->buf);
		free(up);
		*state = NULL;
	}
}

/* The dashboard's utilisation plot: a sample of the nodes every few
 * seconds, as the server sees them. */
static void *sampler(void *arg)
{
	unsigned every = *(unsigned *)arg;

	while (!stopping) {
		struct spur_error err;
		json_t *reply = ctld_call(NULL, json_pack("{s:s,s:b}", "type", "nodes", "gpu_map", 1), &err);

		if (reply) {
			struct rest_sample s;

			rest_sample_nodes(reply, (int64_t)time(NULL), &s);
			pthread_mutex_lock(&history_lock);
			rest_history_add(&history, &s);
			pthread_mutex_unlock(&history_lock);
			json_decref(reply);
		}
		for (unsigned i = 0; i < every * 10 && !stopping; i++)
			nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL, *logfile = NULL, *listen_addr = "0.0.0.0";
	unsigned port = 0, every = 5;
	struct spur_conf *conf;
	struct spur_error err;
	struct MHD_Daemon *d;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	pthread_t th;
	int opt, verbose = 0;

	cli_prog = "spurrestd";
	while ((opt = getopt(argc, argv, "f:p:a:L:i:vh")) != -1) {
		switch (opt) {
		case 'f':
			conf_path = optarg;
			break;
		case 'p':
			port = (unsigned)strtoul(optarg, NULL, 10);
			if (!port || port > 65535) {
				fprintf(stderr, "spurrestd: error: -p %s: expected a port 1-65535\n",
					optarg);
				return 1;
			}
			break;
		case 'a':
			listen_addr = optarg;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'i':
			every = (unsigned)strtoul(optarg, NULL, 10);
			every = every ? every : 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"Usage: spurrestd [-f slurm.conf] [-p PORT] [-a ADDRESS] [-L LOG] [-i "
				"SAMPLE_SECONDS] [-v]\n");
			return opt == 'h' ? 0 : 1;
		}
	}
	if (conf_path)
		setenv("SPUR_CONF", conf_path, 1); /* the client reads it */
	conf_path = cli_conf_path(conf_path);
	conf = conf_path ? spur_conf_load(conf_path, 0, &err) : spur_conf_default(&err);
	if (!conf) {
		fprintf(stderr, "spurrestd: error: %s\n", err.msg);
		return 1;
	}
	if (spur_log_open("spurrestd", (enum spur_log_level)(conf->ctld_debug + verbose), logfile,
			  &err)) {
		fprintf(stderr, "spurrestd: error: %s\n", err.msg);
		spur_conf_destroy(conf);
		return 1;
	}
	if (!port)
		port = conf->rest_port;
	spur_conf_destroy(conf);
	if (inet_pton(AF_INET, listen_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "spurrestd: error: -a %s: expected an IPv4 address\n", listen_addr);
		return 1;
	}
	sa.sin_port = htons((uint16_t)port);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	/* one thread serves every connection: requests to the controller go one
	 * at a time anyway; headers past 32 KiB are refused by the library */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)port, NULL,
			     NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "spurrestd: error: cannot listen on %s:%u\n", listen_addr, port);
		return 1;
	}
	spur_info("listening on %s:%u (slurm/%s, slurmdb/%s, /openapi/v3, /metrics, /ui)",
		  listen_addr, port, REST_API, REST_API);
	if (pthread_create(&th, NULL, sampler, &every)) {
		MHD_stop_daemon(d);
		return 1;
	}
	while (!stopping)
		pause();
	spur_info("stopping");
	pthread_join(th, NULL);
	MHD_stop_daemon(d);
	return 0;
}
