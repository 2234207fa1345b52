/* SPDX-License-Identifier: Apache-2.0 */
/* One scheduling cycle: eligibility and pending reasons, priority order,
 * start now or reserve the earliest future slot (backfill), preemption. */
#include "internal.h"

#include "common/alloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void set_reason(struct sched *s, struct core_job *j, enum sched_reason r)
{
	if (j->reason != r) {
		j->reason = r;
		if (r != SCHED_REASON_NONE)
			core_trace(s, "job %u pending (%s)", j->id, sched_reason_name(r));
	}
}

/* An array's tasks with no record show what its tasks in the window show:
 * their priority, and the reason unless it is one task's own (a hold);
 * behind the window they wait for Priority. */
static void meta_follow(struct core_job *meta, const struct core_job *j, enum sched_reason why)
{
	if (meta->state != SCHED_JOB_PENDING)
		return;
	meta->prio = j->prio;
	if (meta->hold_admin || meta->hold_user)
		why = meta->hold_admin ? SCHED_REASON_HELD_ADMIN : SCHED_REASON_HELD_USER;
	else if (why == SCHED_REASON_NONE || why == SCHED_REASON_HELD_ADMIN ||
		 why == SCHED_REASON_HELD_USER)
		why = SCHED_REASON_PRIORITY;
	meta->reason = why;
}

/* A job that asked for no time gets its partition's default, or its
 * associations' or QOS' MaxWall when less (as Slurm). */
static int64_t job_limit(const struct sched *s, const struct core_job *j, int p)
{
	int64_t mw;

	if (j->time_limit)
		return j->time_limit;
	mw = s->cfg.enforce_limits ? core_limits_max_wall(s, j) : SCHED_INFINITE;
	return mw < s->parts[p].default_time ? mw : s->parts[p].default_time;
}

static int64_t end_of(int64_t start, int64_t limit)
{
	return limit >= SCHED_INFINITE - start ? SCHED_INFINITE : start + limit;
}

/* The limits j may start with now in partition p: up to *hi (its own,
 * cut down by its deadline to whole minutes, as Slurm), down to *lo (its
 * --time-min, else its own limit when it asked for one, else *hi: the
 * deadline just cuts the partition's limit, as Slurm's). *lo > *hi: it can
 * no longer end by its deadline. */
static void limit_range(const struct sched *s, const struct core_job *j, int p, int64_t *lo,
			int64_t *hi)
{
	int64_t full = job_limit(s, j, p);

	*hi = full;
	if (j->deadline && (full == SCHED_INFINITE || s->now + full > j->deadline))
		*hi = (j->deadline - s->now) / 60 * 60;
	*lo = j->time_min ? (j->time_min < full ? j->time_min : full) : j->time_limit ? full : *hi;
}

/* Past its deadline for good (its shortest limit no longer fits before
 * it, in its first partition): removed as DEADLINE, as Slurm does. */
static bool past_deadline(const struct sched *s, const struct core_job *j)
{
	int64_t lo, hi;
	int p = 0;

	if (!j->deadline)
		return false;
	while (p < (int)s->nparts && !(j->parts >> p & 1))
		p++;
	if (p == (int)s->nparts)
		return s->now >= j->deadline;
	limit_range(s, j, p, &lo, &hi);
	return lo == SCHED_INFINITE || hi <= 0 || s->now + lo > j->deadline;
}

/* Partitions whose state and limits admit j; the reason when none does. */
static enum sched_reason usable_parts(struct sched *s, struct core_job *j)
{
	enum sched_reason why = SCHED_REASON_NONE;

	j->usable = 0;
	j->tier = 0;
	for (size_t p = 0; p < s->nparts; p++) {
		const struct core_part *pt = &s->parts[p];

		if (!(j->parts >> p & 1))
			continue;
		if (pt->state == SCHED_PART_INACTIVE) {
			why = why ? why : SCHED_REASON_PART_INACTIVE;
			continue;
		}
		if (pt->state != SCHED_PART_UP) {
			why = why ? why : SCHED_REASON_PART_DOWN;
			continue;
		}
		if (job_limit(s, j, (int)p) > pt->max_time) {
			why = SCHED_REASON_PART_TIME_LIMIT;
			continue;
		}
		if ((pt->max_nodes && j->nodes > pt->max_nodes) || j->nodes > pt->nnodes) {
			why = SCHED_REASON_PART_NODE_LIMIT;
			continue;
		}
		j->usable |= UINT64_C(1) << p;
		if (pt->tier > j->tier)
			j->tier = pt->tier;
	}
	return j->usable ? SCHED_REASON_NONE : why;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct core_job *x = *(struct core_job *const *)a, *y = *(struct core_job *const *)b;

	if (x->tier != y->tier)
		return x->tier > y->tier ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int fifo_cmp(const void *a, const void *b)
{
	const struct core_job *x = *(struct core_job *const *)a, *y = *(struct core_job *const *)b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Put the first k of v[0..n) in cmp's order into v[0..k), in that order;
 * the rest follow in no order. O(n + k log k) on average (quickselect on a
 * middle pivot, then a sort of the k): a cycle with a million pending jobs
 * orders only those it will try. */
static void select_first(struct core_job **v, size_t n, size_t k,
			 int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;

	while (k < n && hi - lo > 1) {
		struct core_job *pivot = v[lo + (hi - lo) / 2], *t;
		size_t lt = lo, i = lo, gt = hi; /* [lo,lt) <, [lt,i) =, [gt,hi) > */

		while (i < gt) {
			int c = cmp(&v[i], &pivot);

			if (c < 0) {
				t = v[lt], v[lt] = v[i], v[i] = t;
				lt++, i++;
			} else if (c > 0) {
				gt--;
				t = v[gt], v[gt] = v[i], v[i] = t;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k > gt)
			lo = gt;
		else
			break;
	}
	qsort(v, k < n ? k : n, sizeof(*v), cmp);
}

/* ---------------------------------------------------------------- starting */

static void mask_text(uint16_t m, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned g = 0; g < SCHED_MAX_GPUS && o + 8 < len; g++) {
		unsigned h = g;

		if (!(m >> g & 1))
			continue;
		while (h + 1 < SCHED_MAX_GPUS && (m >> (h + 1) & 1))
			h++;
		o += (size_t)snprintf(buf + o, len - o, h > g ? "%s%u-%u" : "%s%u", o ? "," : "", g,
				      h);
		g = h;
	}
}

/* Allocate the chosen nodes to j and emit START. */
static int start_job(struct sched *s, struct core_job *j, int p, uint32_t *nodes,
		     int64_t limit, bool backfilled)
{
	uint32_t gpn = core_job_gpus_per_node(j);
	bool topo = s->cfg.place == SCHED_PLACE_TOPO;
	struct sched_alloc_node *al = spur_calloc(j->nodes, sizeof(*al));

	if (!al)
		return SPUR_ENOMEM;
	/* nodes in index order, as Slurm lists them: the first runs the script */
	for (uint32_t i = 1; i < j->nodes; i++)
		for (uint32_t k = i; k > 0 && nodes[k - 1] > nodes[k]; k--) {
			uint32_t t = nodes[k];

			nodes[k] = nodes[k - 1];
			nodes[k - 1] = t;
		}
	for (uint32_t i = 0; i < j->nodes; i++) {
		struct core_node *n = &s->nodes[nodes[i]];
		struct sched_alloc_node *a = &al[i];

		a->node = nodes[i];
		a->cpus = j->exclusive ? n->cpus - n->cpus_used : core_job_cpus_per_node(j);
		a->mem_mb = j->exclusive && !core_job_mem_per_node(j) ? n->mem - n->mem_used
								 : core_job_mem_per_node(j);
		a->gpu_mask = j->exclusive ? core_node_free_mask(n)
					   : core_pick_gpus(n, core_node_free_mask(n), gpn, topo);
		if (j->spn) {
			int g = core_pick_shard_gpu(n, j->spn);

			a->shard_gpu = (uint8_t)(g < 0 ? 0 : g);
			a->shards = (uint16_t)j->spn;
		}
	}
	return core_commit_start(s, j, p, al, end_of(s->now, limit), backfilled, true);
}

int core_commit_start(struct sched *s, struct core_job *j, int p, struct sched_alloc_node *al,
		      int64_t end, bool backfilled, bool emit)
{
	for (uint32_t i = 0; i < j->nodes; i++) {
		struct core_node *n = &s->nodes[al[i].node];

		if (spur_grow((void **)&n->jobs, &n->jobs_cap, n->njobs + 1, sizeof(uint32_t))) {
			spur_free(al);
			return SPUR_ENOMEM;
		}
	}
	for (uint32_t i = 0; i < j->nodes; i++) {
		struct core_node *n = &s->nodes[al[i].node];
		const struct sched_alloc_node *a = &al[i];

		if (a->shards)
			n->shard_used[a->shard_gpu] += a->shards;
		core_node_cpus_charge(n, j, a->cpus, 1);
		n->mem_used += a->mem_mb;
		n->gpu_used |= a->gpu_mask;
		if (j->exclusive)
			n->excl_jobs++;
		if (j->excl_user && !n->user_excl++)
			n->user_excl_name = j->user;
		n->jobs[n->njobs++] = j->index;
		core_node_rebucket(s, a->node);
	}
	spur_free(j->alloc);
	j->alloc = al;
	j->nalloc = j->nodes;
	core_licenses_take(s, j, 1);
	j->part = p;
	j->start = s->now;
	j->suspended = false;
	j->suspend_at = j->susp_secs = j->pre_suspend = 0;
	j->last_charge = s->now;
	j->end = end;
	j->est_start = 0;
	j->reason = SCHED_REASON_NONE;
	core_job_set_state(s, j, SCHED_JOB_RUNNING);
	if (!emit)
		return 0;
	s->stats.started++;
	s->stats.backfilled += backfilled;
	if (s->cfg.trace) {
		char *names = core_alloc_names(s, al, j->nalloc);
		char gpus[64], endtxt[24];

		mask_text(al[0].gpu_mask, gpus, sizeof(gpus));
		if (j->end == SCHED_INFINITE)
			snprintf(endtxt, sizeof(endtxt), "none");
		else
			snprintf(endtxt, sizeof(endtxt), "%" PRId64, j->end);
		core_trace(s, "job %u start on %s%s%s%s (%s, end=%s)", j->id, names ? names : "?",
			   gpus[0] ? " gpus=" : "", gpus, j->spn ? " shards" : "",
			   backfilled ? "backfill" : "priority", endtxt);
		spur_free(names);
	}
	return core_emit(s, (struct sched_action){ .type = SCHED_ACT_START,
						   .job_id = j->id,
						   .time = j->end,
						   .alloc = al,
						   .nalloc = j->nalloc,
						   .backfilled = backfilled });
}

/* The longest limit j fits now with in partition p (nodes in scratch,
 * their count in *got): its own, or with --time-min the longest whole
 * number of minutes down to it that ends before the reservations ahead. */
static int64_t fit_limit(struct sched *s, struct core_job *j, int p, uint32_t *scratch,
			 size_t *got)
{
	uint64_t part = UINT64_C(1) << p;
	int64_t lo, hi, ok;

	limit_range(s, j, p, &lo, &hi);
	j->share = core_job_share(s, j, p); /* OverSubscribe in this partition */
	*got = 0;
	if (lo > hi)
		return hi;
	*got = core_select_nodes(s, j, part, end_of(s->now, hi), scratch);
	if (*got == j->nodes || lo == hi)
		return hi;
	*got = core_select_nodes(s, j, part, end_of(s->now, lo), scratch);
	if (*got != j->nodes)
		return lo;
	/* the longest that fits, in minutes: lo fits, hi does not */
	ok = lo;
	for (int64_t a = lo / 60 + 1, b = (hi == SCHED_INFINITE ? s->cfg.bf_window : hi) / 60;
	     a <= b;) {
		int64_t m = a + (b - a) / 2;

		if (core_select_nodes(s, j, part, end_of(s->now, m * 60), scratch) == j->nodes) {
			ok = m * 60;
			a = m + 1;
		} else {
			b = m - 1;
		}
	}
	*got = core_select_nodes(s, j, part, end_of(s->now, ok), scratch);
	return ok;
}

/* Start j now in the best usable partition if it fits without touching
 * any reservation. Returns 1 started, 0 not, or an error. */
static int try_start(struct sched *s, struct core_job *j, uint32_t *scratch, bool backfilled)
{
	for (int tier_pass = 0; tier_pass < 2; tier_pass++) {
		for (size_t p = 0; p < s->nparts; p++) {
			int64_t limit;
			size_t got;

			if (!(j->usable >> p & 1) || (s->parts[p].tier == j->tier) != !tier_pass)
				continue;
			limit = fit_limit(s, j, (int)p, scratch, &got);
			if (got == j->nodes) {
				int rc;

				if (limit < job_limit(s, j, (int)p)) /* --time-min, --deadline */
					j->time_limit = limit;
				rc = start_job(s, j, (int)p, scratch, limit, backfilled);
				return rc ? rc : 1;
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- reservations */

static int int64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* --contiguous: of the runs of want consecutive nodes, the one that is
 * free first -- when (the latest of its nodes' times) and its first node
 * in *first; INFINITE when none. A sliding window's maximum, kept by a
 * queue of indices whose times decrease (win: room for nnodes). */
static int64_t contiguous_window(const int64_t *at, uint32_t nnodes, uint32_t want,
				 uint32_t *win, uint32_t *first)
{
	int64_t best = SCHED_INFINITE;
	size_t head = 0, tail = 0;

	for (uint32_t n = 0; want && n < nnodes; n++) {
		while (tail > head && at[win[tail - 1]] <= at[n])
			tail--;
		win[tail++] = n;
		if (win[head] + want <= n)
			head++;
		if (n + 1 >= want && at[win[head]] < best) {
			best = at[win[head]];
			*first = n + 1 - want;
		}
	}
	return best;
}

/* The earliest time j can start (N nodes free together): *when (INFINITE:
 * never), the partition and the first N nodes (by index) free by then in
 * nodes[]. Returns how many nodes, or an error. */
static int plan_one(struct sched *s, struct core_job *j, int64_t *when, int *part,
		    int64_t *limit, uint32_t *nodes, size_t *count)
{
	int64_t best_t = SCHED_INFINITE;
	int best_p = -1;
	int64_t *times = spur_malloc((s->nnodes + 1) * sizeof(int64_t));
	/* each node's earliest start, for the partition being tried and the best */
	int64_t *at = spur_malloc((s->nnodes + 1) * sizeof(int64_t));
	int64_t *best_at = spur_malloc((s->nnodes + 1) * sizeof(int64_t));
	uint32_t *win = spur_malloc((s->nnodes + 1) * sizeof(uint32_t)), first = 0, best_first = 0;
	size_t nt;
	int rc = 0;

	*count = 0;
	if (!times || !at || !best_at || !win) {
		rc = SPUR_ENOMEM;
		goto out_free;
	}
	for (size_t p = 0; p < s->nparts; p++) {
		int64_t lim;

		if (!(j->usable >> p & 1))
			continue;
		lim = job_limit(s, j, (int)p);
		j->share = core_job_share(s, j, (int)p);
		nt = 0;
		for (uint32_t n = 0; n < s->nnodes; n++) {
			at[n] = core_node_static_ok(s, j, n, UINT64_C(1) << p)
					? core_node_earliest(s, j, n, lim)
					: SCHED_INFINITE;
			if (at[n] != SCHED_INFINITE)
				times[nt++] = at[n];
		}
		if (nt < j->nodes)
			continue;
		qsort(times, nt, sizeof(int64_t), int64_cmp);
		if (j->contiguous) /* its nodes next to each other: the window's time */
			times[j->nodes - 1] = contiguous_window(at, s->nnodes, j->nodes, win, &first);
		if (times[j->nodes - 1] < best_t) {
			int64_t *swap = best_at;

			best_first = first;
			best_t = times[j->nodes - 1];
			best_p = (int)p;
			*limit = lim;
			best_at = at;
			at = swap;
		}
	}
	*when = best_t;
	*part = best_p;
	if (best_p < 0)
		goto out_free;
	for (uint32_t n = j->contiguous ? best_first : 0; n < s->nnodes && *count < j->nodes; n++)
		if (best_at[n] <= best_t)
			nodes[(*count)++] = n;
out_free:
	spur_free(win);
	spur_free(times);
	spur_free(at);
	spur_free(best_at);
	return rc;
}

/* As plan_one; for -C [a|b|c], the alternative that starts first. (-C's
 * f*N counts are not planned for: the start checks them.) */
static int plan(struct sched *s, struct core_job *j, int64_t *when, int *part, int64_t *limit,
		uint32_t *nodes, size_t *count)
{
	uint32_t *alt_nodes;
	int64_t w, l;
	size_t c;
	int p, rc = 0;

	if (!j->nalts || j->match_sel >= 0)
		return plan_one(s, j, when, part, limit, nodes, count);
	*when = SCHED_INFINITE;
	*part = -1;
	*count = 0;
	if (!(alt_nodes = spur_malloc((s->nnodes + 1) * sizeof(uint32_t))))
		return SPUR_ENOMEM;
	for (size_t a = 0; !rc && a < j->nalts; a++) {
		j->match_sel = (int)a;
		rc = plan_one(s, j, &w, &p, &l, alt_nodes, &c);
		if (!rc && p >= 0 && w < *when) {
			*when = w;
			*part = p;
			*limit = l;
			*count = c;
			memcpy(nodes, alt_nodes, c * sizeof(uint32_t));
		}
	}
	j->match_sel = -1;
	spur_free(alt_nodes);
	return rc;
}

/* Find the earliest time j can start and hold those resources for it, so
 * lower-priority jobs cannot delay it. */
static int reserve(struct sched *s, struct core_job *j, int64_t *when)
{
	uint32_t *nodes = spur_malloc((s->nnodes + 1) * sizeof(uint32_t));
	int64_t limit = 0;
	size_t nt = 0;
	int p, rc;

	if (!nodes)
		return SPUR_ENOMEM;
	rc = plan(s, j, when, &p, &limit, nodes, &nt);
	if (rc || p < 0)
		goto out_free;
	for (size_t i = 0; i < nt; i++) {
		struct core_node *n = &s->nodes[nodes[i]];
		struct cyc_resv r = { *when, end_of(*when, limit), core_job_cpus_per_node(j),
				      core_job_mem_per_node(j),
				      core_job_gpus_per_node(j) + (j->spn ? 1 : 0), j->spn,
				      j->exclusive, n->resv_first };

		if (spur_grow((void **)&s->cresv, &s->cresv_cap, s->ncresv + 1, sizeof(r)) ||
		    spur_grow((void **)&s->touched, &s->touched_cap, s->ntouched + 1,
			      sizeof(uint32_t))) {
			rc = SPUR_ENOMEM;
			goto out_free;
		}
		s->cresv[s->ncresv] = r;
		n->resv_first = (int32_t)s->ncresv++;
		s->touched[s->ntouched++] = nodes[i];
	}
	s->stats.reserved++;
out_free:
	spur_free(nodes);
	return rc;
}

int core_will_run(struct sched *s, struct core_job *j, int64_t *when, int *part,
		  uint32_t *nodes, size_t *count)
{
	enum sched_reason why = usable_parts(s, j);
	int64_t limit = 0;

	*count = 0;
	*part = -1;
	*when = SCHED_INFINITE;
	if (why != SCHED_REASON_NONE) {
		j->reason = why;
		return SPUR_EINVAL;
	}
	for (size_t p = 0; p < s->nparts; p++) {
		size_t got;

		if (!(j->usable >> p & 1))
			continue;
		limit = fit_limit(s, j, (int)p, nodes, &got);
		if (got == j->nodes) {
			*when = s->now;
			*part = (int)p;
			*count = got;
			return 0;
		}
	}
	return plan(s, j, when, part, &limit, nodes, count);
}

/* ---------------------------------------------------------------- preemption */

static bool can_preempt(const struct sched *s, const struct core_job *j, const struct core_job *v)
{
	if (v->part >= 0 && s->parts[v->part].preempt_off)
		return false;
	if (s->cfg.preempt_partition_prio && v->part >= 0 && s->parts[v->part].tier < j->tier)
		return true;
	if (s->cfg.preempt_qos && j->qos >= 0 && v->qos >= 0 && (s->qos[j->qos].preempts >> v->qos & 1))
		return true;
	return false;
}

static bool has_preempt_power(const struct sched *s, const struct core_job *j)
{
	if (s->cfg.preempt_qos && j->qos >= 0 && s->qos[j->qos].preempts)
		return true;
	if (s->cfg.preempt_partition_prio)
		for (size_t p = 0; p < s->nparts; p++)
			if (!s->parts[p].deleted && s->parts[p].tier < j->tier)
				return true;
	return false;
}

static int prio_asc(const void *a, const void *b)
{
	const struct core_job *x = *(struct core_job *const *)a, *y = *(struct core_job *const *)b;

	return x->prio < y->prio ? -1 : x->prio > y->prio ? 1 : (x->id < y->id) - (x->id > y->id);
}

static int preempt_one(struct sched *s, struct core_job *v, const struct core_job *by)
{
	/* PreemptMode=REQUEUE requeues the jobs that may be requeued (Slurm:
	 * --no-requeue ones are cancelled); CANCEL cancels */
	bool requeue = ((v->part >= 0 && s->parts[v->part].preempt_requeue) ||
			(v->qos >= 0 && s->qos[v->qos].preempt_requeue)) &&
		       v->requeue;

	core_fairshare_update(s, s->now);
	core_job_release(s, v);
	v->end = s->now;
	if (requeue) {
		v->start = 0;
		core_job_set_state(s, v, SCHED_JOB_PENDING);
	} else {
		core_job_set_state(s, v, SCHED_JOB_PREEMPTED);
	}
	s->stats.preempted++;
	core_trace(s, "job %u preempted by job %u (%s)", v->id, by->id,
		   requeue ? "requeue" : "cancel");
	return core_emit(s, (struct sched_action){ .type = SCHED_ACT_PREEMPT, .job_id = v->id,
						   .requeue = requeue });
}

/* Preempt the lowest-priority preemptable jobs, one at a time, until j
 * can start; then start it. Returns 1 started, 0 not, or an error. */
static int try_preempt(struct sched *s, struct core_job *j, uint32_t *scratch)
{
	struct core_job **victims;
	size_t nv = 0;
	int rc = 0;

	if (!has_preempt_power(s, j))
		return 0;
	victims = spur_malloc((s->running.n + 1) * sizeof(*victims));
	if (!victims)
		return SPUR_ENOMEM;
	for (size_t i = 0; i < s->running.n; i++) {
		struct core_job *v = s->running.v[i];
		bool useful = false;

		for (size_t a = 0; a < v->nalloc && !useful; a++)
			useful = core_node_static_ok(s, j, v->alloc[a].node, j->usable);
		if (useful && can_preempt(s, j, v))
			victims[nv++] = v;
	}
	qsort(victims, nv, sizeof(*victims), prio_asc);
	for (size_t i = 0; i < nv && !rc; i++) {
		rc = preempt_one(s, victims[i], j);
		if (!rc)
			rc = try_start(s, j, scratch, false);
	}
	spur_free(victims);
	return rc < 0 ? rc : rc == 1;
}

/* ---------------------------------------------------------------- the cycle */

static void clear_reservations(struct sched *s)
{
	for (size_t i = 0; i < s->ntouched; i++)
		s->nodes[s->touched[i]].resv_first = -1;
	s->ntouched = 0;
	s->ncresv = 0;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Pending jobs that may run now get a priority and go into cands; the
 * others get their reason. A dependency that can never be met keeps the
 * job pending with DependencyNeverSatisfied, or cancels it (kill_invalid_depend). */
static int gather(struct sched *s, int64_t now, struct core_job **cands, size_t *ncands,
		  int64_t *timer)
{
	size_t i = 0;

	*ncands = 0;
	while (i < s->pending.n) {
		struct core_job *j = s->pending.v[i];
		enum sched_reason why = SCHED_REASON_NONE;
		enum dep_result dr;

		if (past_deadline(s, j)) {
			j->reason = SCHED_REASON_DEADLINE;
			j->start = j->end = now;
			core_job_set_state(s, j, SCHED_JOB_DEADLINE);
			core_trace(s, "job %u removed: it cannot end by its deadline", j->id);
			if (core_emit(s, (struct sched_action){ .type = SCHED_ACT_FAIL, .job_id = j->id,
								.reason = SCHED_REASON_DEADLINE }))
				return SPUR_ENOMEM;
			continue; /* the list moved job i away */
		}
		if (j->hold_admin)
			why = j->requeue_held ? SCHED_REASON_REQUEUE_HELD : SCHED_REASON_HELD_ADMIN;
		else if (j->hold_user)
			why = SCHED_REASON_HELD_USER;
		else if (j->begin > now) {
			why = SCHED_REASON_BEGIN_TIME;
			*timer = min64(*timer, j->begin);
		} else if (j->deps.n && (dr = core_deps_eval(s, j, now)) != DEP_OK) {
			/* as Slurm: kept pending, DependencyNeverSatisfied, unless
			 * kill_invalid_depend (the site's or the job's) */
			if (dr == DEP_NEVER &&
			    (j->kill_invalid_dep > 0 ||
			     (!j->kill_invalid_dep && s->cfg.kill_invalid_depend))) {
				j->reason = SCHED_REASON_DEPENDENCY_NEVER;
				j->end = now;
				core_job_set_state(s, j, SCHED_JOB_CANCELLED);
				core_trace(s, "job %u cancelled: dependency never satisfied", j->id);
				if (core_emit(s, (struct sched_action){
						 .type = SCHED_ACT_FAIL, .job_id = j->id,
						 .reason = SCHED_REASON_DEPENDENCY_NEVER }))
					return SPUR_ENOMEM;
				continue; /* the list moved job i away */
			}
			why = dr == DEP_NEVER ? SCHED_REASON_DEPENDENCY_NEVER : SCHED_REASON_DEPENDENCY;
		} else if (j->array >= 0 && s->arrays[j->array].throttle &&
			   s->arrays[j->array].running >= s->arrays[j->array].throttle) {
			why = SCHED_REASON_ARRAY_TASK_LIMIT;
		} else if (j->resv >= 0 && !s->resvs[j->resv].flex && now < s->resvs[j->resv].start) {
			why = SCHED_REASON_RESERVATION;
			*timer = min64(*timer, s->resvs[j->resv].start);
		} else if ((why = core_limits_static(s, j)) != SCHED_REASON_NONE) {
			/* a limit it can never meet as it asks: it waits, as in Slurm */
		} else if ((why = usable_parts(s, j)) == SCHED_REASON_NONE && j->nreq) {
			for (size_t k = 0; k < j->nreq; k++)
				if (s->nodes[j->req_nodes[k]].state != NODE_UP)
					why = SCHED_REASON_REQ_NODE_NOT_AVAIL;
		}
		if (why != SCHED_REASON_NONE) {
			set_reason(s, j, why);
			j->est_start = 0;
		} else {
			j->prio = core_job_priority(s, j, now);
			cands[(*ncands)++] = j;
		}
		if (j->array >= 0 && s->arrays[j->array].meta)
			meta_follow(s->arrays[j->array].meta, j, why);
		i++;
	}
	return 0;
}

int core_cycle(struct sched *s, int64_t now)
{
	struct core_job **cands;
	uint32_t *scratch;
	size_t ncands;
	int64_t timer = SCHED_INFINITE;
	bool blocked = false;
	uint32_t reservations = 0;
	int rc;

	memset(&s->stats, 0, sizeof(s->stats));
	core_fairshare_update(s, now);
	clear_reservations(s);
	cands = spur_malloc((s->pending.n + 1) * sizeof(*cands));
	scratch = spur_malloc((s->nnodes + 1) * sizeof(uint32_t));
	if (!cands || !scratch) {
		rc = SPUR_ENOMEM;
		goto out_free;
	}
	rc = gather(s, now, cands, &ncands, &timer);
	if (rc)
		goto out_free;
	s->stats.pending_seen = ncands;
	/* at most max_job_test are tried, the first in priority order; the
	 * others wait for a later cycle (Slurm's bf_max_job_test) */
	select_first(cands, ncands, s->cfg.max_job_test ? s->cfg.max_job_test : ncands,
		     s->cfg.fifo ? fifo_cmp : cand_cmp);
	if (s->cfg.max_job_test && ncands > s->cfg.max_job_test) {
		for (size_t c = s->cfg.max_job_test; c < ncands; c++)
			set_reason(s, cands[c], SCHED_REASON_PRIORITY);
		ncands = s->cfg.max_job_test;
		timer = now + 1; /* the next pass goes on a second later */
	}
	for (size_t c = 0; c < ncands; c++) {
		struct core_job *j = cands[c];
		enum sched_reason lim;
		int64_t when;

		if (j->state != SCHED_JOB_PENDING)
			continue;
		/* throttled arrays may have filled up during this cycle */
		if (j->array >= 0 && s->arrays[j->array].throttle &&
		    s->arrays[j->array].running >= s->arrays[j->array].throttle) {
			set_reason(s, j, SCHED_REASON_ARRAY_TASK_LIMIT);
			continue;
		}
		/* held by a limit or its licenses: no start, no reservation,
		 * nothing blocked */
		if ((lim = core_limits_now(s, j)) != SCHED_REASON_NONE ||
		    (!core_licenses_free(s, j) && (lim = SCHED_REASON_LICENSES))) {
			set_reason(s, j, lim);
			continue;
		}
		if (!(s->cfg.fifo && blocked)) {
			rc = try_start(s, j, scratch, blocked);
			if (rc == 0 && !s->cfg.fifo)
				rc = try_preempt(s, j, scratch);
			if (rc < 0)
				goto out_free;
			if (rc == 1)
				continue;
		}
		if (!s->cfg.fifo && reservations < s->cfg.bf_max_reservations) {
			rc = reserve(s, j, &when);
			if (rc)
				goto out_free;
			reservations++;
			if (when != j->est_start && when != SCHED_INFINITE)
				core_trace(s, "job %u reserved for %" PRId64 " (%s)", j->id, when,
					   blocked ? "Priority" : "Resources");
			j->est_start = when == SCHED_INFINITE ? 0 : when;
		}
		set_reason(s, j, blocked ? SCHED_REASON_PRIORITY : SCHED_REASON_RESOURCES);
		blocked = true;
	}
	rc = 0; /* try_start's 1 ("started") is not an error */
	for (size_t i = 0; i < s->running.n; i++)
		timer = min64(timer, ((struct core_job *)s->running.v[i])->end);
	for (size_t r = 0; r < s->nresvs; r++) {
		if (s->resvs[r].start > now)
			timer = min64(timer, s->resvs[r].start);
		else if (s->resvs[r].end > now)
			timer = min64(timer, s->resvs[r].end);
	}
	if (timer != SCHED_INFINITE)
		rc = core_emit(s, (struct sched_action){ .type = SCHED_ACT_TIMER, .time = timer });
out_free:
	spur_free(cands);
	spur_free(scratch);
	return rc;
}
