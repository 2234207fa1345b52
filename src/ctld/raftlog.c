/* SPDX-License-Identifier: Apache-2.0 */
/* The replicated operation log: libraft (canonical Raft on libuv) holds the
 * ops as log entries in StateSaveLocation/raft, and ctld_apply() is the state
 * machine (docs/rfc/0003-wire.md §4).
 *
 * The leader applies an op to its own state when it accepts it (the core must
 * see a submission before the next cycle can start it), proposes it, and
 * acts on it only once Raft has committed it: the client's answer, the
 * launch of a started job. Each op carries its proposer's incarnation, so
 * the state machine skips the ops this process has already applied and
 * applies everyone else's (log replay at start, followers, snapshots).
 * Applying is idempotent per job, which is what makes a snapshot taken while
 * proposals are in flight safe to replay entries over. */
#include "ctld.h"

#include "common/alloc.h"
#include "common/log.h"

#include <errno.h>
#include <raft.h>
#include <raft/uv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct ctld_raft {
	struct raft raft;
	struct raft_io io;
	struct raft_uv_transport transport;
	struct raft_fsm fsm;
	uv_timer_t poll;
	char origin[24];   /* this incarnation's tag on its proposals */
	char address[128]; /* host:port of the Raft transport */
	bool ready;	   /* leader, and every earlier entry applied */
	bool closed;
	bool inited; /* raft_init succeeded: raft_close owes a callback */
	size_t inflight;
	ctld_ready_fn on_ready;
};

/* One proposal: what to do once the entry is committed. */
struct proposal {
	struct raft_apply req;
	struct ctld *c;
	json_t *op;
	struct ctld_conn *cn; /* answer this client (a reference held) */
	json_t *reply;
};

/* ---------------------------------------------------------------- FSM */

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf, void **result)
{
	struct ctld *c = fsm->data;
	json_error_t je;
	json_t *op = json_loadb(buf->base, buf->len, 0, &je);
	struct spur_error err;

	*result = NULL;
	if (!op) {
		spur_warn("log entry unreadable, skipped: %s", je.text);
		return 0;
	}
	/* ours: applied when it was accepted */
	if (strcmp(spur_json_str(op, "origin", ""), c->raft->origin) &&
	    ctld_apply(c, op, true, &err))
		spur_debug("log entry %s skipped: %s", spur_json_str(op, "op", "?"), err.msg);
	json_decref(op);
	return 0;
}

static int to_raft_buffer(json_t *doc, struct raft_buffer *b)
{
	char *s = json_dumps(doc, JSON_COMPACT);
	size_t n;

	if (!s)
		return RAFT_NOMEM;
	n = strlen(s);
	/* libraft's segments need entries in whole 8-byte words; JSON takes
	 * the padding as trailing blanks */
	b->len = (n + 7) & ~(size_t)7;
	b->base = raft_malloc(b->len);
	if (!b->base) {
		free(s);
		return RAFT_NOMEM;
	}
	memcpy(b->base, s, n);
	memset((char *)b->base + n, ' ', b->len - n);
	free(s);
	return 0;
}

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
	struct ctld *c = fsm->data;
	json_t *doc = ctld_state_ops(c);
	int rc;

	if (!doc)
		return RAFT_NOMEM;
	*bufs = raft_malloc(sizeof(**bufs));
	if (!*bufs) {
		json_decref(doc);
		return RAFT_NOMEM;
	}
	rc = to_raft_buffer(doc, *bufs);
	json_decref(doc);
	if (rc) {
		raft_free(*bufs);
		return rc;
	}
	*n = 1;
	spur_info("snapshot: %zu bytes", (*bufs)[0].len);
	return 0;
}

static int fsm_snapshot_finalize(struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
	if (*bufs) {
		for (unsigned i = 0; i < *n; i++)
			raft_free((*bufs)[i].base);
		raft_free(*bufs);
	}
	*bufs = NULL;
	*n = 0;
	return 0;
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
	struct ctld *c = fsm->data;
	json_error_t je;
	json_t *doc = json_loadb(buf->base, buf->len, 0, &je);
	struct spur_error err;
	int rc = 0;

	if (!doc) {
		spur_error_log("snapshot unreadable: %s", je.text);
		return RAFT_CORRUPT;
	}
	if (ctld_state_restore(c, doc, &err)) {
		spur_error_log("snapshot: %s", err.msg);
		rc = RAFT_CORRUPT;
	}
	json_decref(doc);
	if (!rc)
		raft_free(buf->base);
	return rc;
}

/* ---------------------------------------------------------------- start */

static void on_barrier(struct raft_barrier *req, int status)
{
	struct ctld *c = req->data;

	free(req);
	if (status) {
		spur_error_log("raft barrier: %s", raft_strerror(status));
		c->raft->poll.data = c; /* try again on the next poll */
		return;
	}
	c->raft->ready = true;
	spur_info("raft: leader at %s, log applied up to %llu", c->raft->address,
		  (unsigned long long)raft_last_applied(&c->raft->raft));
	c->raft->on_ready(c);
}

/* Until this server leads and has applied the whole log it serves nobody. */
static void on_poll(uv_timer_t *t)
{
	struct ctld *c = t->data;
	struct raft_barrier *req;

	if (!c || c->raft->ready || raft_state(&c->raft->raft) != RAFT_LEADER)
		return;
	req = calloc(1, sizeof(*req));
	if (!req)
		return;
	req->data = c;
	t->data = NULL; /* one barrier at a time */
	if (raft_barrier(&c->raft->raft, req, on_barrier)) {
		free(req);
		t->data = c;
	}
}

static int raft_fail(struct spur_error *err, const char *what, int rc, const char *detail)
{
	return spur_error_set(err, SPUR_EIO, "raft %s: %s%s%s", what, raft_strerror(rc),
			      detail && *detail ? ": " : "", detail ? detail : "");
}

int ctld_raft_open(struct ctld *c, const char *address, unsigned snapshot_every,
		   ctld_ready_fn on_ready, struct spur_error *err)
{
	struct ctld_raft *r = calloc(1, sizeof(*r));
	struct raft_configuration conf;
	char dir[4096];
	uint64_t tag = 0;
	int rc;

	if (!r)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	c->raft = r;
	r->on_ready = on_ready;
	snprintf(r->address, sizeof(r->address), "%s", address);
	if (getrandom(&tag, sizeof(tag), 0) != sizeof(tag))
		tag = (uint64_t)uv_hrtime() ^ (uint64_t)getpid() << 32;
	snprintf(r->origin, sizeof(r->origin), "%016llx", (unsigned long long)tag);
	snprintf(dir, sizeof(dir), "%s/raft", c->state_dir);
	if (mkdir(dir, 0700) && errno != EEXIST)
		return spur_error_set(err, SPUR_EIO, "%s: %s", dir, strerror(errno));
	r->fsm = (struct raft_fsm){ .version = 2,
				    .data = c,
				    .apply = fsm_apply,
				    .snapshot = fsm_snapshot,
				    .restore = fsm_restore,
				    .snapshot_finalize = fsm_snapshot_finalize };
	if ((rc = raft_uv_tcp_init(&r->transport, c->loop)))
		return raft_fail(err, "transport", rc, NULL);
	if ((rc = raft_uv_init(&r->io, c->loop, dir, &r->transport))) {
		raft_uv_tcp_close(&r->transport);
		return raft_fail(err, dir, rc, r->io.errmsg);
	}
	if ((rc = raft_init(&r->raft, &r->io, &r->fsm, 1, r->address))) {
		raft_uv_close(&r->io);
		raft_uv_tcp_close(&r->transport);
		return raft_fail(err, "init", rc, NULL);
	}
	r->inited = true;
	r->raft.data = c;
	/* a pristine log starts as a 1-voter cluster (issue 5 adds peers) */
	raft_configuration_init(&conf);
	rc = raft_configuration_add(&conf, 1, r->address, RAFT_VOTER);
	if (!rc)
		rc = raft_bootstrap(&r->raft, &conf);
	raft_configuration_close(&conf);
	if (rc && rc != RAFT_CANTBOOTSTRAP)
		return raft_fail(err, "bootstrap", rc, raft_errmsg(&r->raft));
	raft_set_snapshot_threshold(&r->raft, snapshot_every);
	raft_set_snapshot_trailing(&r->raft, snapshot_every / 4 + 1);
	raft_set_election_timeout(&r->raft, 300);
	raft_set_heartbeat_timeout(&r->raft, 50);
	c->replaying = true;
	ctld_acct_batch(c, true);
	if ((rc = raft_start(&r->raft))) {
		char what[200];

		/* most often the Raft port is taken */
		snprintf(what, sizeof(what), "start (Raft address %s, SpurRaftPort)", r->address);
		return raft_fail(err, what, rc, raft_errmsg(&r->raft));
	}
	uv_timer_init(c->loop, &r->poll);
	r->poll.data = c;
	uv_timer_start(&r->poll, on_poll, 0, 20);
	return 0;
}

bool ctld_raft_ready(const struct ctld *c)
{
	return c->raft && c->raft->ready;
}

/* ---------------------------------------------------------------- propose */

static void on_applied(struct raft_apply *req, int status, void *result)
{
	struct proposal *p = req->data;
	struct ctld *c = p->c;

	(void)result;
	c->raft->inflight--;
	if (status && c->stopping) {
		json_decref(p->reply); /* shutting down: the client sees the hang-up */
	} else if (status) {
		/* applied here but not committed: this process's state is now
		 * ahead of the log, so it starts again from the log */
		spur_error_log("operation %s not committed: %s; restarting from the log",
			       spur_json_str(p->op, "op", "?"), raft_strerror(status));
		if (p->cn)
			ctld_conn_send(p->cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code",
							SPUR_EIO, "message",
							"Unable to contact slurm controller (not committed)"));
		json_decref(p->reply);
		c->restart = true;
		uv_stop(c->loop);
	} else {
		if (p->cn && p->reply)
			ctld_conn_send(p->cn, p->reply);
		else
			json_decref(p->reply);
		ctld_committed(c, p->op);
	}
	if (p->cn)
		ctld_conn_unref(p->cn);
	json_decref(p->op);
	free(p);
}

int ctld_raft_propose(struct ctld *c, json_t *op, struct ctld_conn *cn, json_t *reply,
		      struct spur_error *err)
{
	struct proposal *p = calloc(1, sizeof(*p));
	struct raft_buffer buf;
	int rc;

	if (!p) {
		json_decref(reply);
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	}
	json_object_set_new(op, "origin", json_string(c->raft->origin));
	rc = to_raft_buffer(op, &buf);
	json_object_del(op, "origin");
	if (rc) {
		free(p);
		json_decref(reply);
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	}
	p->c = c;
	p->op = json_incref(op);
	p->cn = cn;
	p->reply = reply;
	p->req.data = p;
	if (cn)
		ctld_conn_ref(cn);
	rc = raft_apply(&c->raft->raft, &p->req, &buf, 1, on_applied);
	if (rc) {
		raft_free(buf.base);
		if (cn)
			ctld_conn_unref(cn);
		json_decref(p->op);
		json_decref(reply);
		free(p);
		return raft_fail(err, "apply", rc, raft_errmsg(&c->raft->raft));
	}
	c->raft->inflight++;
	return 0;
}

/* ---------------------------------------------------------------- close */

static void on_raft_closed(struct raft *raft)
{
	struct ctld *c = raft->data;

	c->raft->closed = true;
}

void ctld_raft_close(struct ctld *c)
{
	struct ctld_raft *r = c->raft;

	if (!r)
		return;
	if (r->poll.type == UV_TIMER)
		uv_close((uv_handle_t *)&r->poll, NULL);
	if (r->inited) {
		raft_close(&r->raft, on_raft_closed);
		while (!r->closed)
			uv_run(c->loop, UV_RUN_ONCE);
		raft_uv_close(&r->io);
		raft_uv_tcp_close(&r->transport);
	}
	uv_run(c->loop, UV_RUN_NOWAIT);
	free(r);
	c->raft = NULL;
}
