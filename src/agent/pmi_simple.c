/* SPDX-License-Identifier: Apache-2.0 */
/* The PMI-1 and PMI-2 wire protocols for a step's tasks (see
 * pmi_simple.h): a task starts in PMI-1 and moves to PMI-2 when its init
 * line asks for version 2 (Slurm's libpmi2, MPICH's PMI-2 client). */
#define _GNU_SOURCE
#include "agent/pmi_simple.h"

#include "common/pmiwire.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One task's socket. */
struct pmi_conn {
	uv_pipe_t pipe;
	struct spurd_pmi_step *s;
	uint32_t rank;
	bool open, in_barrier;
	bool v2; /* PMI-2 messages since its init */
	char line[SPUR_PMI2_LEN_FIELD + SPUR_PMI2_MAX_BODY + 1];
	size_t len;
};

struct spurd_pmi_step {
	uv_loop_t *loop;
	char kvsname[64], mapping[512];
	uint32_t ntasks, first, count; /* this node's ranks: [first, first + count) */
	struct pmi_conn *conns;
	json_t *kvs;	/* the step's keys: every node's, after each barrier */
	json_t *pending; /* this node's puts since the last barrier */
	uint32_t waiting; /* local tasks in the barrier */
	unsigned seq;
	spurd_pmix_fence_fn fence;
	spurd_pmi_abort_fn abort_fn;
	void *ctx;
	int open_pipes;
	bool freeing;
};

/* "(vector,(0,2,4))": nodes 0-1 run 4 ranks each, in block order; runs of
 * equal counts are joined, as MPICH's hydra writes it. */
static void process_mapping(const struct spurd_pmix_layout *l, char *buf, size_t len)
{
	snprintf(buf, len, "(vector");
	for (size_t k = 0; k < l->nnodes;) {
		size_t run = 1;

		while (k + run < l->nnodes && l->count[k + run] == l->count[k])
			run++;
		snprintf(buf + strlen(buf), len - strlen(buf), ",(%zu,%zu,%u)", k, run, l->count[k]);
		k += run;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ")");
}

struct spurd_pmi_step *spurd_pmi_step_new(uv_loop_t *loop, uint32_t job, uint32_t step,
					  const struct spurd_pmix_layout *l,
					  spurd_pmix_fence_fn fence, spurd_pmi_abort_fn abort_fn,
					  void *ctx)
{
	struct spurd_pmi_step *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->loop = loop;
	snprintf(s->kvsname, sizeof(s->kvsname), "spur.%u.%u", job, step);
	process_mapping(l, s->mapping, sizeof(s->mapping));
	s->ntasks = l->ntasks;
	s->first = l->first[l->here];
	s->count = l->count[l->here];
	s->conns = calloc(s->count ? s->count : 1, sizeof(*s->conns));
	s->kvs = json_object();
	s->pending = json_object();
	s->fence = fence;
	s->abort_fn = abort_fn;
	s->ctx = ctx;
	if (!s->conns || !s->kvs || !s->pending) {
		json_decref(s->kvs);
		json_decref(s->pending);
		free(s->conns);
		free(s);
		return NULL;
	}
	return s;
}

static void reply(struct pmi_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void on_written(uv_write_t *w, int status)
{
	(void)status;
	free(w->data);
	free(w);
}

static void reply(struct pmi_conn *c, const char *fmt, ...)
{
	uv_write_t *w = malloc(sizeof(*w));
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (!w || n < 0 || !c->open) {
		free(w);
		free(n < 0 ? NULL : text);
		return;
	}
	w->data = text;
	if (uv_write(w, (uv_stream_t *)&c->pipe, &(uv_buf_t){ .base = text, .len = (size_t)n }, 1,
		     on_written)) {
		free(text);
		free(w);
	}
}

/* Every local task is in the barrier: this node's puts go to srun. */
static void barrier_ready(struct spurd_pmi_step *s)
{
	char *lines = NULL, *hex;
	size_t len = 0;
	FILE *f = open_memstream(&lines, &len);
	const char *k;
	json_t *v;

	if (!f)
		return;
	json_object_foreach(s->pending, k, v)
		fprintf(f, "%s=%s\n", k, json_string_value(v));
	fclose(f);
	json_object_clear(s->pending);
	hex = malloc(2 * len + 1);
	for (size_t i = 0; hex && i < len; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)lines[i]);
	if (hex) {
		hex[2 * len] = '\0';
		s->fence(s->ctx, ++s->seq, hex, 2 * len);
	}
	free(hex);
	free(lines);
}

/* One PMI-2 message to the task: cmd, then n key/value pairs. */
static void reply2(struct pmi_conn *c, const char *cmd, const char *const *kv, size_t n)
{
	char buf[SPUR_PMI2_LEN_FIELD + SPUR_PMI2_MAX_BODY];
	size_t len = spur_pmi2_format(buf, sizeof(buf), cmd, kv, n);

	if (len)
		reply(c, "%.*s", (int)len, buf);
}

/* A PMI-2 request (Slurm's mpi/pmi2 answers the same). */
static void handle2(struct pmi_conn *c, const struct spur_pmi_msg *m)
{
	struct spurd_pmi_step *s = c->s;
	const char *cmd = spur_pmi_get(m, "cmd"), *key = spur_pmi_get(m, "key");
	const char *val = spur_pmi_get(m, "value");
	char rank[16], size[16], resp[96];

	snprintf(rank, sizeof(rank), "%u", c->rank);
	snprintf(size, sizeof(size), "%u", s->ntasks);
	if (!strcmp(cmd, "fullinit")) {
		const char *kv[] = { "rc", "0", "pmi-version", "2", "pmi-subversion", "0", "rank", rank,
				     "size", size, "appnum", "0", "debugged", "FALSE", "pmiverbose",
				     "FALSE" };
		reply2(c, "fullinit-response", kv, 8);
	} else if (!strcmp(cmd, "job-getid")) {
		reply2(c, "job-getid-response", (const char *const[]){ "rc", "0", "jobid", s->kvsname }, 2);
	} else if (!strcmp(cmd, "info-getjobattr") || !strcmp(cmd, "kvs-get") ||
		   !strcmp(cmd, "info-getnodeattr")) {
		/* job attributes: the process mapping and the universe size; a
		 * node attribute is one of this node's puts */
		const char *v = !key ? NULL
				: !strcmp(cmd, "info-getjobattr")
					? (!strcmp(key, "PMI_process_mapping") ? s->mapping
					   : !strcmp(key, "universeSize")       ? size
										: NULL)
					: json_string_value(json_object_get(s->kvs, key));

		snprintf(resp, sizeof(resp), "%s-response", cmd);
		if (v)
			reply2(c, resp, (const char *const[]){ "rc", "0", "found", "TRUE", "value", v }, 3);
		else
			reply2(c, resp, (const char *const[]){ "rc", "0", "found", "FALSE" }, 2);
	} else if ((!strcmp(cmd, "kvs-put") || !strcmp(cmd, "info-putnodeattr")) && key && val) {
		if (!strcmp(cmd, "kvs-put"))
			json_object_set_new(s->pending, key, json_string(val));
		json_object_set_new(s->kvs, key, json_string(val));
		snprintf(resp, sizeof(resp), "%s-response", cmd);
		reply2(c, resp, (const char *const[]){ "rc", "0" }, 1);
	} else if (!strcmp(cmd, "kvs-fence") && !c->in_barrier) {
		c->in_barrier = true;
		if (++s->waiting == s->count)
			barrier_ready(s);
	} else if (!strcmp(cmd, "finalize")) {
		reply2(c, "finalize-response", (const char *const[]){ "rc", "0" }, 1);
	} else if (!strcmp(cmd, "abort")) {
		s->abort_fn(s->ctx, (int)c->rank, 1);
	} else {
		snprintf(resp, sizeof(resp), "%.80s-response", cmd);
		reply2(c, resp, (const char *const[]){ "rc", "-1", "errmsg", "not supported" }, 2);
	}
}

static void handle(struct pmi_conn *c, char *line)
{
	struct spurd_pmi_step *s = c->s;
	struct spur_pmi_msg m;
	const char *cmd, *key, *val;

	if (spur_pmi_parse(line, &m)) {
		reply(c, "cmd=error rc=-1 msg=malformed_request\n");
		return;
	}
	cmd = spur_pmi_get(&m, "cmd");
	key = spur_pmi_get(&m, "key");
	val = spur_pmi_get(&m, "value");
	if (!strcmp(cmd, "init") && spur_pmi_get(&m, "pmi_version") &&
	    !strcmp(spur_pmi_get(&m, "pmi_version"), "2")) {
		reply(c, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
		c->v2 = true;
	} else if (!strcmp(cmd, "init"))
		reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
	else if (!strcmp(cmd, "get_maxes"))
		reply(c, "cmd=maxes rc=0 kvsname_max=64 keylen_max=64 vallen_max=%d\n",
		      SPUR_PMI_MAX_LINE - 100);
	else if (!strcmp(cmd, "get_appnum"))
		reply(c, "cmd=appnum rc=0 appnum=0\n");
	else if (!strcmp(cmd, "get_my_kvsname"))
		reply(c, "cmd=my_kvsname rc=0 kvsname=%s\n", s->kvsname);
	else if (!strcmp(cmd, "get_universe_size"))
		reply(c, "cmd=universe_size rc=0 size=%u\n", s->ntasks);
	else if (!strcmp(cmd, "put") && key && val) {
		json_object_set_new(s->pending, key, json_string(val));
		json_object_set_new(s->kvs, key, json_string(val));
		reply(c, "cmd=put_result rc=0\n");
	} else if (!strcmp(cmd, "get") && key) {
		const char *v = !strcmp(key, "PMI_process_mapping")
					? s->mapping
					: json_string_value(json_object_get(s->kvs, key));

		if (v)
			reply(c, "cmd=get_result rc=0 value=%s\n", v);
		else
			reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found\n", key);
	} else if (!strcmp(cmd, "barrier_in") && !c->in_barrier) {
		c->in_barrier = true;
		if (++s->waiting == s->count)
			barrier_ready(s);
	} else if (!strcmp(cmd, "finalize")) {
		reply(c, "cmd=finalize_ack rc=0\n");
	} else if (!strcmp(cmd, "abort")) {
		val = spur_pmi_get(&m, "exitcode");
		s->abort_fn(s->ctx, (int)c->rank, val ? atoi(val) : 1);
	} else {
		reply(c, "cmd=%s_result rc=-1 msg=not_supported\n", cmd);
	}
}

static void on_closed(uv_handle_t *h)
{
	struct pmi_conn *c = h->data;
	struct spurd_pmi_step *s = c->s;

	if (--s->open_pipes == 0 && s->freeing) {
		json_decref(s->kvs);
		json_decref(s->pending);
		free(s->conns);
		free(s);
	}
}

/* PMI-2: whole messages out of what has come so far; false when the
 * task does not speak it. */
static bool take_frames(struct pmi_conn *c)
{
	while (c->open && c->len >= SPUR_PMI2_LEN_FIELD) {
		char head[SPUR_PMI2_LEN_FIELD + 1], *end, body[SPUR_PMI2_MAX_BODY + 1];
		long want;
		struct spur_pmi_msg m;

		memcpy(head, c->line, SPUR_PMI2_LEN_FIELD);
		head[SPUR_PMI2_LEN_FIELD] = '\0';
		want = strtol(head, &end, 10);
		if (end == head || strspn(end, " ") != strlen(end) || want <= 0 ||
		    want > SPUR_PMI2_MAX_BODY)
			return false;
		if (c->len < SPUR_PMI2_LEN_FIELD + (size_t)want)
			return true;
		memcpy(body, c->line + SPUR_PMI2_LEN_FIELD, (size_t)want);
		c->len -= SPUR_PMI2_LEN_FIELD + (size_t)want;
		memmove(c->line, c->line + SPUR_PMI2_LEN_FIELD + want, c->len);
		if (spur_pmi2_parse(body, (size_t)want, &m))
			reply2(c, "error-response", (const char *const[]){ "rc", "-1", "errmsg", "malformed" }, 2);
		else
			handle2(c, &m);
	}
	return true;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct pmi_conn *c = st->data;

	for (ssize_t i = 0; i < n; i++) {
		char ch = buf->base[i];

		if (c->v2) {
			if (c->len == sizeof(c->line) - 1 || (c->line[c->len++] = ch, !take_frames(c))) {
				n = -1;
				break;
			}
			continue;
		}
		if (ch == '\n') {
			c->line[c->len] = '\0';
			c->len = 0;
			handle(c, c->line);
		} else if (c->len < SPUR_PMI_MAX_LINE) {
			c->line[c->len++] = ch;
		} else { /* longer than any request: not PMI */
			n = -1;
			break;
		}
	}
	free(buf->base);
	if (n < 0 && c->open) {
		c->open = false;
		uv_close((uv_handle_t *)&c->pipe, on_closed);
	}
}

static void alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
	(void)h;
	buf->base = malloc(size);
	buf->len = buf->base ? size : 0;
}

int spurd_pmi_task_fd(struct spurd_pmi_step *s, uint32_t rank)
{
	struct pmi_conn *c;
	int sv[2];

	if (rank < s->first || rank >= s->first + s->count)
		return -1;
	c = &s->conns[rank - s->first];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	c->s = s;
	c->rank = rank;
	uv_pipe_init(s->loop, &c->pipe, 0);
	c->pipe.data = c;
	if (uv_pipe_open(&c->pipe, sv[0])) {
		close(sv[0]);
		close(sv[1]);
		uv_close((uv_handle_t *)&c->pipe, NULL);
		return -1;
	}
	c->open = true;
	s->open_pipes++;
	uv_read_start((uv_stream_t *)&c->pipe, alloc_cb, on_read);
	return sv[1];
}

static int nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

void spurd_pmi_fence_done(struct spurd_pmi_step *s, unsigned seq, const char *hex, size_t len)
{
	char *text = malloc(len / 2 + 1);
	size_t n = 0;

	if (seq != s->seq || !text) {
		free(text);
		return;
	}
	for (size_t i = 0; i + 1 < len; i += 2) {
		int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);

		if (hi < 0 || lo < 0)
			break;
		text[n++] = (char)(hi << 4 | lo);
	}
	text[n] = '\0';
	for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq) {
			*eq = '\0';
			json_object_set_new(s->kvs, line, json_string(eq + 1));
		}
	}
	free(text);
	s->waiting = 0;
	for (uint32_t i = 0; i < s->count; i++)
		if (s->conns[i].in_barrier) {
			s->conns[i].in_barrier = false;
			if (s->conns[i].v2)
				reply2(&s->conns[i], "kvs-fence-response",
				       (const char *const[]){ "rc", "0" }, 1);
			else
				reply(&s->conns[i], "cmd=barrier_out rc=0\n");
		}
}

void spurd_pmi_step_free(struct spurd_pmi_step *s)
{
	if (!s)
		return;
	s->freeing = true;
	for (uint32_t i = 0; i < s->count; i++)
		if (s->conns[i].open) {
			s->conns[i].open = false;
			uv_close((uv_handle_t *)&s->conns[i].pipe, on_closed);
		}
	if (s->open_pipes == 0) {
		json_decref(s->kvs);
		json_decref(s->pending);
		free(s->conns);
		free(s);
	}
}
