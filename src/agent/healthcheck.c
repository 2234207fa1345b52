/* SPDX-License-Identifier: Apache-2.0 */
/* HealthCheckProgram (see healthcheck.h). */
#include "agent/healthcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int spurd_healthcheck_states(const char *text, unsigned *states, char *why, size_t wlen)
{
	char copy[128], *save;

	*states = 0;
	snprintf(copy, sizeof(copy), "%s", text && *text ? text : "ANY");
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "ANY"))
			*states |= 3;
		else if (!strcasecmp(w, "IDLE"))
			*states |= 1;
		else if (!strcasecmp(w, "ALLOC") || !strcasecmp(w, "MIXED"))
			*states |= 2;
		else {
			snprintf(why, wlen, "HealthCheckNodeState=%s is not supported (ANY, IDLE, "
					    "ALLOC, MIXED)", w);
			return -1;
		}
	}
	return 0;
}

static void on_closed(uv_handle_t *hd)
{
	struct spurd_healthcheck *h = hd->data;

	if (--h->open_handles == 0)
		h->running = false;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct spurd_healthcheck *h = s->data;

	if (n > 0 && h->outlen < sizeof(h->output) - 1) {
		size_t take = (size_t)n < sizeof(h->output) - 1 - h->outlen
				      ? (size_t)n
				      : sizeof(h->output) - 1 - h->outlen;

		memcpy(h->output + h->outlen, buf->base, take);
		h->outlen += take;
		h->output[h->outlen] = '\0';
	}
	free(buf->base);
	if (n < 0)
		uv_close((uv_handle_t *)s, on_closed);
}

static void alloc_cb(uv_handle_t *hd, size_t size, uv_buf_t *buf)
{
	(void)hd;
	buf->base = malloc(size);
	buf->len = buf->base ? size : 0;
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct spurd_healthcheck *h = p->data;

	if (status || sig) {
		char why[300];
		size_t line = strcspn(h->output, "\n");

		if (line)
			snprintf(why, sizeof(why), "HealthCheck: %.*s", (int)line, h->output);
		else if (sig)
			snprintf(why, sizeof(why), "HealthCheck: killed by signal %d", sig);
		else
			snprintf(why, sizeof(why), "HealthCheck: exit %lld", (long long)status);
		h->failed(h->ctx, why);
	}
	uv_close((uv_handle_t *)p, on_closed);
}

static void run(uv_timer_t *t)
{
	struct spurd_healthcheck *h = t->data;
	bool busy = h->busy(h->ctx);
	uv_process_options_t opt = { 0 };
	uv_stdio_container_t stdio[3];
	char *args[] = { h->program, NULL };
	char *env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

	if (h->running || !(h->states & (busy ? 2u : 1u)))
		return;
	h->outlen = 0;
	h->output[0] = '\0';
	uv_pipe_init(h->loop, &h->out, 0);
	h->out.data = h->proc.data = h;
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio[1].data.stream = (uv_stream_t *)&h->out;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = 2; /* the agent's log */
	opt.file = h->program;
	opt.args = args;
	opt.env = env;
	opt.stdio = stdio;
	opt.stdio_count = 3;
	opt.exit_cb = on_exit_cb;
	h->running = true;
	h->open_handles = 2;
	if (uv_spawn(h->loop, &h->proc, &opt)) {
		char why[4200];

		snprintf(why, sizeof(why), "HealthCheck: cannot run %s", h->program);
		h->failed(h->ctx, why);
		h->open_handles = 1;
		uv_close((uv_handle_t *)&h->proc, on_closed);
		uv_close((uv_handle_t *)&h->out, NULL);
		h->running = false;
		return;
	}
	uv_read_start((uv_stream_t *)&h->out, alloc_cb, on_read);
}

void spurd_healthcheck_start(struct spurd_healthcheck *h, uv_loop_t *loop, const char *program,
			     unsigned interval_s, unsigned states, spurd_health_failed_fn failed,
			     spurd_health_busy_fn busy, void *ctx)
{
	memset(h, 0, sizeof(*h));
	h->loop = loop;
	snprintf(h->program, sizeof(h->program), "%s", program);
	h->interval_s = interval_s;
	h->states = states;
	h->failed = failed;
	h->busy = busy;
	h->ctx = ctx;
	uv_timer_init(loop, &h->timer);
	h->timer.data = h;
	h->started = true;
	uv_timer_start(&h->timer, run, 0, (uint64_t)interval_s * 1000);
}

void spurd_healthcheck_stop(struct spurd_healthcheck *h)
{
	if (h->started)
		uv_timer_stop(&h->timer);
}
