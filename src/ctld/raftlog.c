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
#include "raftauth.h"

#include "common/alloc.h"
#include "common/log.h"

#include <errno.h>
#include <raft.h>
#include <raft/uv.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <dirent.h>
#include <limits.h>
#include <unistd.h>

struct ctld_raft {
	struct ctld *c;
	struct raft raft;
	struct raft_io io;
	/* libraft's own append, called by guarded_append */
	int (*append)(struct raft_io *io, struct raft_io_append *req,
		      const struct raft_entry entries[], unsigned n, raft_io_append_cb cb);
	struct raft_uv_transport *transport; /* libraft's TCP, proving the key */
	struct raft_fsm fsm;
	uv_timer_t poll;
	char origin[24];   /* this incarnation's tag on its proposals */
	char address[128]; /* host:port of the Raft transport */
	bool ready;	   /* leader, and every earlier entry applied */
	bool closed;
	bool inited; /* raft_init succeeded: raft_close owes a callback */
	size_t inflight;
	unsigned ticks;	     /* polls since the last once-a-second work */
	size_t segment;	     /* log segment size: what an append may need */
	bool disk_full;	     /* the state folder had no room for a segment */
	uint64_t full_at;    /* when that was seen (the loop's ms) */
	ctld_ready_fn on_ready;
};

/* what a write is refused with while the state folder is full */
#define NO_ROOM                                                                        \
	"the leading controller's state folder is full: leadership moves to another " \
	"controller; try again"
#define NO_ROOM_SOLO \
	"the controller's state folder is full: nothing new is accepted until there is room; " \
	"try again"

/* The largest entry a client's request can make (a frame of the wire). */
#define MAX_ENTRY ((unsigned long long)SPUR_WIRE_MAX_FRAME)

/* A membership change asked by a client: answered when it is done. */
struct change {
	struct raft_change req;
	struct ctld *c;
	struct ctld_conn *cn;
	raft_id id;
	char address[128];
	bool assign; /* added as a spare: make it a voter next */
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
	json_t *doc;
	int rc;

	/* the log before the snapshot goes: the rows it wrote must be in */
	ctld_acct_flush(c);
	if (!(doc = ctld_state_ops(c)))
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
	c->raft->poll.data = c; /* now watching for the loss of leadership */
	spur_info("raft: leader at %s, log applied up to %llu", c->raft->address,
		  (unsigned long long)raft_last_applied(&c->raft->raft));
	c->raft->on_ready(c);
}

/* Bytes free where dir is, or ULLONG_MAX when that cannot be told. */
static unsigned long long free_bytes(const char *dir)
{
	struct statvfs fs;

	return statvfs(dir, &fs) ? ULLONG_MAX : (unsigned long long)fs.f_bavail * fs.f_frsize;
}

/* The log's segment size: SPUR_RAFT_SEGMENT_KB when set, else libraft's
 * 8 MiB, less on a small file system: libraft keeps three segments made
 * ahead, and a controller wants two more free, so a segment is at most a
 * sixteenth of the file system (in 64 KiB steps, at least 64 KiB). */
static size_t segment_bytes(const char *dir, unsigned segment_kb)
{
	struct statvfs fs;
	unsigned long long size, seg = 8u << 20; /* libraft's default */

	if (segment_kb)
		return (size_t)segment_kb * 1024;
	if (!statvfs(dir, &fs)) {
		size = (unsigned long long)fs.f_blocks * fs.f_frsize / 16;
		size &= ~((64ull << 10) - 1);
		if (size < seg)
			seg = size < (64u << 10) ? 64u << 10 : size;
	}
	return (size_t)seg;
}

/* libraft cannot open its log on a full disk: a controller restarted for
 * lack of room (or started on a full disk) waits for two segments' worth,
 * saying so, rather than exit; the others carry on meanwhile. Free space
 * has no event to wait on: look every second. */
static void wait_for_room(const char *dir, unsigned long long segment)
{
	bool said = false;
	unsigned long long avail;

	while ((avail = free_bytes(dir)) < 2 * segment) {
		if (!said)
			spur_error_log("state folder %s: %llu bytes free, less than two log segments: "
				       "waiting for room",
				       dir, avail);
		said = true;
		sleep(1);
	}
	if (said)
		spur_info("state folder %s: room again, starting", dir);
}

bool ctld_raft_no_room(const char *state_dir, unsigned segment_kb)
{
	return free_bytes(state_dir) < 2 * segment_bytes(state_dir, segment_kb);
}

void ctld_raft_prepare(const char *state_dir, unsigned segment_kb)
{
	wait_for_room(state_dir, segment_bytes(state_dir, segment_kb));
}

static void on_transfer(struct raft_transfer *t)
{
	free(t);
}

/* The only voter: nobody to hand leadership to, nobody to send the log. */
static bool sole_voter(const struct ctld_raft *r)
{
	unsigned voters = 0;

	for (unsigned i = 0; i < r->raft.configuration.n; i++)
		voters += r->raft.configuration.servers[i].role == RAFT_VOTER;
	return voters <= 1;
}

/* A full leader that cannot hand leadership over stops leading: it starts
 * again from its log, as a follower waiting for room, and the others elect
 * a leader among themselves. */
static void step_down(struct ctld *c, const char *why)
{
	spur_warn("state folder %s is full and %s: restarting as a follower", c->state_dir, why);
	c->restart = true;
	uv_stop(c->loop);
}

/* The state folder has less room than two log segments: say so once and,
 * leading others, hand leadership over (they can still commit). The only
 * controller keeps leading: it refuses writes, answers everything else and
 * writes again once there is room. */
static void disk_filled(struct ctld *c, unsigned long long avail)
{
	struct ctld_raft *r = c->raft;
	bool leads = raft_state(&r->raft) == RAFT_LEADER;

	if (r->disk_full)
		return;
	r->disk_full = true;
	r->full_at = uv_now(c->loop);
	spur_error_log("state folder %s: %llu bytes free, less than two log segments: %s",
		       c->state_dir, avail,
		       !leads		   ? "this controller stops storing the log until there is room"
		       : sole_voter(r) ? "refusing new writes until there is room"
				       : "handing leadership to another controller");
	if (leads && !sole_voter(r) && ctld_raft_transfer(c, 0, NULL))
		step_down(c, "no controller to hand leadership to");
}

/* The bytes free when they are fewer than the leader's next writes may
 * need: two segments (libraft's next ones), and op's entry (may be NULL)
 * beyond the segment it starts. Measuring op costs an encoding: done only
 * when the folder is within the largest entry of full. */
static bool short_of_room(struct ctld_raft *r, const char *dir, const json_t *op,
			  unsigned long long *avail)
{
	unsigned long long need = 2 * (unsigned long long)r->segment;

	*avail = free_bytes(dir);
	if (*avail >= need + MAX_ENTRY)
		return false;
	if (op)
		need += json_dumpb(op, NULL, 0, JSON_COMPACT) + 64;
	return *avail < need;
}

/* libraft 0.15 cannot survive a leader's failed write (it truncates its
 * log and goes on leading from it: a crash soon after), so the leader
 * writes nothing without room for it. */
int ctld_raft_room(struct ctld *c, const json_t *op, struct spur_error *err)
{
	struct ctld_raft *r = c->raft;
	unsigned long long avail;

	if (!r)
		return 0;
	if (short_of_room(r, c->state_dir, op, &avail))
		disk_filled(c, avail);
	else if (!r->disk_full)
		return 0;
	return spur_error_set(err, SPUR_ERETRY, "%s", sole_voter(r) ? NO_ROOM_SOLO : NO_ROOM);
}

/* Every second: room for the log? A full leader of others hands leadership
 * over; once there is room again, the log is written again (a write that
 * failed meanwhile restarted the process: guarded_append). */
static bool disk_check(struct ctld *c)
{
	struct ctld_raft *r = c->raft;
	unsigned long long avail;

	if (short_of_room(r, c->state_dir, NULL, &avail)) {
		disk_filled(c, avail);
	} else if (avail >= 4 * r->segment && r->disk_full) {
		spur_warn("state folder %s: room again (%llu bytes free); writing the log again",
			  c->state_dir, avail);
		r->disk_full = false;
	}
	/* a hand-over takes an election timeout or two */
	if (r->disk_full && raft_state(&r->raft) == RAFT_LEADER && !sole_voter(r) &&
	    uv_now(c->loop) - r->full_at >= 1000) {
		step_down(c, "this controller still leads a second after handing over");
		return true;
	}
	return false;
}

/* Until this server leads and has applied the whole log it serves nobody.
 * A leader that is deposed (a partition, a pause longer than the election
 * timeout) may hold state the new leader never saw: it starts again from
 * the log, as a follower. */
static void on_poll(uv_timer_t *t)
{
	struct ctld *c = t->data;
	struct raft_barrier *req;
	bool second; /* polls are 20 ms apart: once a second */

	if (!c)
		return;
	second = ++c->raft->ticks >= 50;
	if (second)
		c->raft->ticks = 0;
	if (second && disk_check(c))
		return;
	if (c->raft->ready && raft_state(&c->raft->raft) != RAFT_LEADER) {
		spur_warn("raft: no longer the leader (term %llu); restarting from the log as a "
			  "follower",
			  (unsigned long long)c->raft->raft.current_term);
		c->raft->ready = false;
		c->restart = true;
		uv_stop(c->loop);
		return;
	}
	/* the leader's accounting rows are committed every 20 ms, a
	 * follower's (it applies the others' ops) once a second */
	if (c->raft->ready || second)
		ctld_acct_flush(c);
	if (c->raft->ready)
		return;
	if (raft_state(&c->raft->raft) != RAFT_LEADER || ctld_raft_room(c, NULL, NULL))
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

/* Every log write goes through here. libraft 0.15 goes on writing after a
 * write failed (a full disk, a quota), leaving a hole that later entries
 * follow (canonical/raft#450), and a leader goes on from a truncated log.
 * So the first failed write starts this process again, inside its
 * callback, before anything is written after it: what is on disk is then a
 * whole log, whose torn tail (never acknowledged: a write is acknowledged
 * only once it is on disk) libraft drops when it loads it, and no entry is
 * ever discarded. */
struct guarded {
	struct raft_io_append inner;
	struct raft_io_append *outer;
	struct ctld_raft *r;
};

static void guarded_append_done(struct raft_io_append *inner, int status)
{
	struct guarded *g = inner->data;
	struct raft_io_append *outer = g->outer;
	struct ctld *c = g->r->c;

	free(g);
	if (status && status != RAFT_CANCELED && !c->stopping) {
		spur_error_log("raft: a log write failed (%s%s%s): starting again from the log "
			       "before anything is written after it",
			       raft_strerror(status), c->raft->io.errmsg[0] ? ": " : "",
			       c->raft->io.errmsg);
		ctld_restart_now(c);
	}
	outer->cb(outer, status);
}

static int guarded_append(struct raft_io *io, struct raft_io_append *req,
			  const struct raft_entry entries[], unsigned n, raft_io_append_cb cb)
{
	/* io is the one in struct ctld_raft */
	struct ctld_raft *r = (struct ctld_raft *)((char *)io - offsetof(struct ctld_raft, io));
	struct guarded *g;
	int rc;

	if (!(g = calloc(1, sizeof(*g))))
		return RAFT_NOMEM;
	g->inner.data = g;
	g->outer = req;
	g->r = r;
	req->cb = cb;
	if ((rc = r->append(io, &g->inner, entries, n, guarded_append_done)))
		free(g);
	return rc;
}

static int raft_fail(struct spur_error *err, const char *what, int rc, const char *detail)
{
	return spur_error_set(err, SPUR_EIO, "raft %s: %s%s%s", what, raft_strerror(rc),
			      detail && *detail ? ": " : "", detail ? detail : "");
}

int ctld_raft_open(struct ctld *c, const struct ctld_raft_opts *o, struct spur_error *err)
{
	struct ctld_raft *r = calloc(1, sizeof(*r));
	struct raft_configuration conf;
	char dir[4096];
	uint64_t tag = 0;
	int rc = 0;

	if (!r)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	c->raft = r;
	r->c = c;
	r->on_ready = o->on_ready;
	snprintf(r->address, sizeof(r->address), "%s", o->address);
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
	/* a last look for room before libraft opens the log: its start fails
	 * on a full disk in a path that frees a buffer twice (Debian's libraft 0.15),
	 * so a disk that filled since the first look is not left to it */
	if (ctld_raft_no_room(c->state_dir, o->segment_kb))
		return spur_error_set(err, SPUR_EIO, "%s: not enough space to open the log", dir);
	if (!(r->transport = ctld_raft_auth_new(c->loop, &c->key, &rc)))
		return raft_fail(err, "transport", rc, NULL);
	if ((rc = raft_uv_init(&r->io, c->loop, dir, r->transport))) {
		ctld_raft_auth_free(r->transport);
		return raft_fail(err, dir, rc, r->io.errmsg);
	}
	r->append = r->io.append;
	r->io.append = guarded_append;
	r->segment = segment_bytes(c->state_dir, o->segment_kb);
	raft_uv_set_segment_size(&r->io, r->segment);
	if ((rc = raft_init(&r->raft, &r->io, &r->fsm, o->id, r->address))) {
		/* the message is the I/O's (no room, no rights): read before
		 * it is closed */
		rc = raft_fail(err, "init", rc, r->io.errmsg);
		raft_uv_close(&r->io);
		ctld_raft_auth_free(r->transport);
		return rc;
	}
	r->inited = true;
	r->raft.data = c;
	/* a pristine log starts with every configured controller as a voter
	 * (one: a 1-voter cluster); a controller that joins a running cluster
	 * starts empty and learns the configuration from the leader */
	if (!o->join) {
		raft_configuration_init(&conf);
		for (size_t i = 0; i < o->npeers && !rc; i++)
			rc = raft_configuration_add(&conf, o->peers[i].id, o->peers[i].address,
						    RAFT_VOTER);
		if (!rc)
			rc = raft_bootstrap(&r->raft, &conf);
		raft_configuration_close(&conf);
		if (rc && rc != RAFT_CANTBOOTSTRAP)
			return raft_fail(err, "bootstrap", rc, raft_errmsg(&r->raft));
	}
	raft_set_snapshot_threshold(&r->raft, o->snapshot_every);
	raft_set_snapshot_trailing(&r->raft, o->snapshot_every / 4 + 1);
	raft_set_election_timeout(&r->raft, o->election_ms ? o->election_ms : 300);
	raft_set_heartbeat_timeout(&r->raft, 50);
	/* a snapshot sent to a follower that restarted meanwhile (a deposed
	 * leader restarts from the log) is lost with it: sent again after 5 s,
	 * not libraft's 30 s, in which that follower applies nothing */
	raft_set_install_snapshot_timeout(&r->raft, 5000);
	/* a controller cut off and back does not depose a working leader */
	raft_set_pre_vote(&r->raft, true);
	c->replaying = true;
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
	return c->raft && c->raft->ready &&
	       raft_state((struct raft *)&c->raft->raft) == RAFT_LEADER;
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
		bool write_failed = status != RAFT_LEADERSHIPLOST && status != RAFT_SHUTDOWN &&
				    status != RAFT_NOTLEADER;

		spur_error_log("operation %s not committed: %s; restarting from the log",
			       spur_json_str(p->op, "op", "?"),
			       status == RAFT_NOSPACE ? "no space left on the disk"
						      : raft_strerror(status));
		if (p->cn)
			ctld_conn_send(p->cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code",
							SPUR_EIO, "message",
							"Unable to contact slurm controller (not committed)"));
		json_decref(p->reply);
		if (write_failed)
			ctld_restart_now(c); /* before libraft goes on from a truncated log */
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

/* ---------------------------------------------------------------- members */

static const char *role_name(int role)
{
	return role == RAFT_VOTER ? "voter" : role == RAFT_STANDBY ? "standby" : "spare";
}

json_t *ctld_raft_members(struct ctld *c)
{
	struct raft *rf = &c->raft->raft;
	const struct raft_configuration *cf = &rf->configuration;
	raft_id leader = 0;
	const char *laddr = NULL;
	json_t *v = json_array();

	raft_leader(rf, &leader, &laddr);
	for (unsigned i = 0; i < cf->n; i++)
		json_array_append_new(v, json_pack("{s:I,s:s,s:s,s:b}", "id",
						   (json_int_t)cf->servers[i].id, "address",
						   cf->servers[i].address, "role",
						   role_name(cf->servers[i].role), "leader",
						   cf->servers[i].id == leader));
	return json_pack("{s:o,s:I,s:I,s:I,s:I,s:I}", "members", v, "id", (json_int_t)rf->id,
			 "leader_id", (json_int_t)leader, "term", (json_int_t)rf->current_term,
			 "commit_index", (json_int_t)rf->commit_index, "last_applied",
			 (json_int_t)raft_last_applied(rf));
}

long ctld_leader_index(struct ctld *c)
{
	raft_id id = 0;
	const char *addr = NULL;

	if (!c->raft)
		return -1;
	raft_leader(&c->raft->raft, &id, &addr);
	return id && id <= c->conf->nctlds ? (long)id - 1 : -1;
}

const char *ctld_leader_name(struct ctld *c)
{
	raft_id id = 0;
	const char *addr = NULL;
	long i = ctld_leader_index(c);

	if (i >= 0)
		return c->conf->ctlds[i].name;
	if (c->raft)
		raft_leader(&c->raft->raft, &id, &addr);
	return id ? addr : NULL; /* a controller added with no SlurmctldHost line */
}

static void change_reply(struct change *ch, int status)
{
	if (status)
		ctld_conn_send(ch->cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", SPUR_EIO,
						 "message", raft_strerror(status)));
	else {
		json_t *m = ctld_raft_members(ch->c);

		json_object_set_new(m, "type", json_string("ok"));
		ctld_conn_send(ch->cn, m);
	}
}

static void on_change(struct raft_change *req, int status)
{
	struct change *ch = req->data;

	if (!status && ch->assign) {
		/* added as a spare; a voter once it has caught up (libraft
		 * promotes it when its log is near the leader's) */
		ch->assign = false;
		spur_info("raft: controller %llu (%s) added, catching up",
			  (unsigned long long)ch->id, ch->address);
		status = raft_assign(&ch->c->raft->raft, &ch->req, ch->id, RAFT_VOTER, on_change);
		if (!status)
			return;
	}
	if (!status)
		spur_info("raft: membership now %u controllers",
			  ch->c->raft->raft.configuration.n);
	else
		spur_warn("raft: membership change for controller %llu: %s",
			  (unsigned long long)ch->id, raft_strerror(status));
	change_reply(ch, status);
	ctld_conn_unref(ch->cn);
	free(ch);
}

int ctld_raft_change(struct ctld *c, bool add, unsigned long long id, const char *address,
		     struct ctld_conn *cn, struct spur_error *err)
{
	struct change *ch = calloc(1, sizeof(*ch));
	int rc;

	if (!ch)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if ((rc = ctld_raft_room(c, NULL, err))) {
		free(ch);
		return rc;
	}
	ch->c = c;
	ch->cn = cn;
	ch->id = id;
	ch->assign = add;
	ch->req.data = ch;
	snprintf(ch->address, sizeof(ch->address), "%s", address ? address : "");
	rc = add ? raft_add(&c->raft->raft, &ch->req, id, ch->address, on_change)
		 : raft_remove(&c->raft->raft, &ch->req, id, on_change);
	if (rc) {
		free(ch);
		return spur_error_set(err, rc == RAFT_NOTFOUND ? SPUR_ENOENT : SPUR_EINVAL,
				      "%s controller %llu: %s", add ? "add" : "remove", id,
				      raft_errmsg(&c->raft->raft)[0] ? raft_errmsg(&c->raft->raft)
								     : raft_strerror(rc));
	}
	ctld_conn_ref(cn);
	return 0;
}

/* Hand leadership to controller id (0: the most up-to-date one); the
 * client is answered at once: it finds the new leader by itself. */
int ctld_raft_transfer(struct ctld *c, unsigned long long id, struct spur_error *err)
{
	struct raft_transfer *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if ((rc = raft_transfer(&c->raft->raft, t, id, on_transfer))) {
		free(t);
		return spur_error_set(err, SPUR_EINVAL, "transfer to controller %llu: %s", id,
				      raft_errmsg(&c->raft->raft)[0] ? raft_errmsg(&c->raft->raft)
								     : raft_strerror(rc));
	}
	spur_info("raft: handing leadership to controller %llu", id);
	return 0;
}

/* ---------------------------------------------------------------- close */

static void on_raft_closed(struct raft *raft)
{
	struct ctld *c = raft->data;

	c->raft->closed = true;
	/* libraft 0.15's raft_uv can fire its close callback a second time in
	 * the same loop turn, and libraft's then frees the address, the log
	 * and the configuration again (an ASan double free at exit, seen in
	 * t0020 after failed writes): leave it nothing to free twice, and no
	 * callback to call again */
	raft->address = NULL;
	memset(&raft->log, 0, sizeof(raft->log));
	memset(&raft->configuration, 0, sizeof(raft->configuration));
	raft->close_cb = NULL;
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
		ctld_raft_auth_free(r->transport);
	}
	uv_run(c->loop, UV_RUN_NOWAIT);
	free(r);
	c->raft = NULL;
}
