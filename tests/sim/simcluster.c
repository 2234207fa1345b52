/* SPDX-License-Identifier: Apache-2.0 */
/* The fake cluster: an event heap on a fake clock driving libsched. */
#include "simcluster.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/jobspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_SUBMIT, EV_FINISH, EV_TICK };

struct sim_ev {
	int64_t time;
	uint64_t seq;
	enum ev_kind kind;
	uint32_t job, gen;
	size_t spec; /* EV_SUBMIT: index in specs */
};

struct sim_job {
	int64_t runtime, start, end;
	int exit_code;
	uint32_t gen;
	uint16_t gpus;
	double gpu_count; /* GPUs held while running (shards as fractions) */
	char *nodes;
	enum sched_job_state state;
};

struct sim_spec {
	struct sched_job_spec spec;
	int64_t runtime;
	int exit_code;
};

struct sim {
	struct sched *s;
	int64_t now, last_tick;
	struct sim_ev *heap;
	size_t nheap, heap_cap;
	uint64_t seq;
	struct sim_spec *specs;
	size_t nspecs, specs_cap;
	struct sim_job *jobs; /* by id */
	size_t jobs_cap;
	uint32_t backfilled, preempted;
	double gpu_seconds;
	sim_start_cb on_start;
	void *on_start_arg;
};

static void die(const char *what)
{
	fprintf(stderr, "sim: %s\n", what);
	abort();
}

struct sim *sim_create(const struct sched_config *cfg)
{
	struct sim *sim = calloc(1, sizeof(*sim));
	struct spur_error err;

	if (!sim)
		die("out of memory");
	sim->s = sched_create(cfg, &err);
	if (!sim->s)
		die(err.msg);
	sim->last_tick = -1;
	return sim;
}

void sim_destroy(struct sim *sim)
{
	if (!sim)
		return;
	sched_destroy(sim->s);
	for (size_t i = 0; i < sim->jobs_cap; i++)
		spur_free(sim->jobs[i].nodes);
	free(sim->jobs);
	free(sim->heap);
	free(sim->specs);
	free(sim);
}

struct sched *sim_sched(struct sim *sim)
{
	return sim->s;
}

int64_t sim_now(const struct sim *sim)
{
	return sim->now;
}

void sim_add_nodes(struct sim *sim, const char *prefix, int width, int count, uint32_t cpus,
		   uint64_t mem_mb, const char *gpu_type, enum sched_topo_preset topo,
		   uint32_t shards, const char *leaf)
{
	for (int i = 1; i <= count; i++) {
		struct sched_node_spec n;
		char name[64];
		struct spur_error err;

		memset(&n, 0, sizeof(n));
		snprintf(name, sizeof(name), "%s%0*d", prefix, width, i);
		n.name = name;
		n.cpus = cpus;
		n.mem_mb = mem_mb;
		n.gpu_type = gpu_type;
		sched_node_spec_preset(&n, topo);
		n.shards = shards;
		n.switch_name = leaf;
		n.features = gpu_type;
		if (sched_add_node(sim->s, &n, &err))
			die(err.msg);
	}
}

void sim_add_partition(struct sim *sim, const struct sched_part_spec *p)
{
	struct spur_error err;

	if (sched_add_partition(sim->s, p, &err))
		die(err.msg);
}

/* ---------------------------------------------------------------- heap */

static bool ev_less(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void heap_push(struct sim *sim, struct sim_ev ev)
{
	size_t i;

	if (spur_grow((void **)&sim->heap, &sim->heap_cap, sim->nheap + 1, sizeof(ev)))
		die("out of memory");
	ev.seq = sim->seq++;
	i = sim->nheap++;
	while (i && ev_less(&ev, &sim->heap[(i - 1) / 2])) {
		sim->heap[i] = sim->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	sim->heap[i] = ev;
}

static struct sim_ev heap_pop(struct sim *sim)
{
	struct sim_ev top = sim->heap[0], last = sim->heap[--sim->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= sim->nheap)
			break;
		if (c + 1 < sim->nheap && ev_less(&sim->heap[c + 1], &sim->heap[c]))
			c++;
		if (!ev_less(&sim->heap[c], &last))
			break;
		sim->heap[i] = sim->heap[c];
		i = c;
	}
	if (sim->nheap)
		sim->heap[i] = last;
	return top;
}

/* ---------------------------------------------------------------- jobs */

static struct sim_job *job_slot(struct sim *sim, uint32_t id)
{
	if (id >= sim->jobs_cap) {
		size_t cap = sim->jobs_cap ? sim->jobs_cap : 1024;

		while (cap <= id)
			cap *= 2;
		sim->jobs = realloc(sim->jobs, cap * sizeof(*sim->jobs));
		if (!sim->jobs)
			die("out of memory");
		memset(sim->jobs + sim->jobs_cap, 0, (cap - sim->jobs_cap) * sizeof(*sim->jobs));
		sim->jobs_cap = cap;
	}
	return &sim->jobs[id];
}

static void note_state(struct sim *sim, uint32_t id)
{
	struct sched_job_info info;

	if (sched_job_info(sim->s, id, &info) == 0)
		job_slot(sim, id)->state = info.state;
}

static void handle_actions(struct sim *sim, const struct sched_actions *acts)
{
	for (size_t i = 0; i < acts->n; i++) {
		const struct sched_action *a = &acts->v[i];
		struct sim_job *sj = job_slot(sim, a->job_id);

		switch (a->type) {
		case SCHED_ACT_START: {
			int64_t limit = a->time == SCHED_INFINITE ? SCHED_INFINITE : a->time - sim->now;
			double factor = sim->on_start ? sim->on_start(sim->on_start_arg, sim->s, a) : 1.0;
			int64_t runtime = (int64_t)((double)sj->runtime * factor + 0.5);
			bool timeout = runtime > limit;
			struct spur_hostlist *hl = spur_hostlist_create();
			double gpus = 0;

			for (size_t k = 0; k < a->nalloc; k++) {
				uint32_t per = sched_node_shards_per_gpu(sim->s, a->alloc[k].node);

				gpus += __builtin_popcount(a->alloc[k].gpu_mask);
				if (a->alloc[k].shards && per)
					gpus += (double)a->alloc[k].shards / per;
			}
			sj->gpu_count = gpus;

			sj->gen++;
			sj->start = sim->now;
			sj->gpus = a->alloc[0].gpu_mask;
			for (size_t k = 0; k < a->nalloc; k++)
				spur_hostlist_push(hl, sched_node_name(sim->s, a->alloc[k].node), NULL);
			spur_free(sj->nodes);
			sj->nodes = spur_hostlist_ranged(hl, NULL);
			spur_hostlist_destroy(hl);
			sim->backfilled += a->backfilled;
			heap_push(sim, (struct sim_ev){ .time = sim->now + (timeout ? limit : runtime),
							.kind = EV_FINISH,
							.job = a->job_id,
							.gen = sj->gen | (timeout ? 0x80000000u : 0) });
			break;
		}
		case SCHED_ACT_PREEMPT:
			sim->preempted++;
			/* fall through */
		case SCHED_ACT_REQUEUE:
			sj->gen++;
			sim->gpu_seconds += sj->gpu_count * (double)(sim->now - sj->start);
			break;
		case SCHED_ACT_FAIL:
			break;
		case SCHED_ACT_TIMER:
			if (a->time > sim->now && a->time != sim->last_tick && a->time < SCHED_INFINITE) {
				sim->last_tick = a->time;
				heap_push(sim, (struct sim_ev){ .time = a->time, .kind = EV_TICK });
			}
			break;
		}
		if (a->job_id)
			note_state(sim, a->job_id);
	}
}

static int step(struct sim *sim, struct sched_event *ev, struct spur_error *err)
{
	struct sched_actions acts;
	int rc = sched_step(sim->s, ev, &acts, err);

	if (rc == 0)
		handle_actions(sim, &acts);
	return rc;
}

static void record_spec(struct sim *sim, const struct sched_job_spec *spec, int64_t runtime,
			int exit_code)
{
	uint32_t n = 1;

	if (spec->array) {
		struct spur_array_spec a;

		if (spur_array_parse(spec->array, 1000000, &a, NULL) == 0) {
			n = (uint32_t)a.n;
			spur_array_fini(&a);
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		struct sim_job *sj = job_slot(sim, spec->id + k);

		sj->runtime = runtime;
		sj->exit_code = exit_code;
	}
}

void sim_submit(struct sim *sim, int64_t at, const struct sched_job_spec *spec, int64_t runtime,
		int exit_code)
{
	struct sim_spec ss = { *spec, runtime, exit_code };

	if (spur_grow((void **)&sim->specs, &sim->specs_cap, sim->nspecs + 1, sizeof(ss)))
		die("out of memory");
	sim->specs[sim->nspecs] = ss;
	heap_push(sim, (struct sim_ev){ .time = at, .kind = EV_SUBMIT, .spec = sim->nspecs++ });
}

int sim_submit_now(struct sim *sim, const struct sched_job_spec *spec, int64_t runtime,
		   int exit_code, struct spur_error *err)
{
	struct sched_event ev = { .type = SCHED_EV_SUBMIT, .time = sim->now, .job = spec };
	int rc;

	record_spec(sim, spec, runtime, exit_code);
	rc = step(sim, &ev, err);
	if (rc == 0)
		note_state(sim, spec->id);
	return rc;
}

int sim_event(struct sim *sim, struct sched_event ev, struct spur_error *err)
{
	int rc;

	if (!ev.time)
		ev.time = sim->now;
	sim->now = ev.time;
	rc = step(sim, &ev, err);
	if (rc == 0 && ev.job_id)
		note_state(sim, ev.job_id);
	return rc;
}

void sim_run_until(struct sim *sim, int64_t t)
{
	while (sim->nheap && sim->heap[0].time <= t) {
		struct sim_ev e = heap_pop(sim);
		struct sched_event ev = { .time = e.time };
		struct spur_error err;
		struct sim_job *sj = NULL;

		sim->now = e.time;
		/* events at the same instant are applied together, then one cycle */
		ev.defer_cycle = sim->nheap && sim->heap[0].time == e.time;
		switch (e.kind) {
		case EV_SUBMIT:
			ev.type = SCHED_EV_SUBMIT;
			ev.job = &sim->specs[e.spec].spec;
			record_spec(sim, ev.job, sim->specs[e.spec].runtime,
				    sim->specs[e.spec].exit_code);
			break;
		case EV_FINISH:
			sj = job_slot(sim, e.job);
			if ((e.gen & 0x7fffffffu) != sj->gen) {
				if (!ev.defer_cycle) {
					ev.type = SCHED_EV_TICK;
					break;
				}
				continue; /* stale: the job was preempted or requeued */
			}
			ev.type = SCHED_EV_FINISH;
			ev.job_id = e.job;
			ev.timed_out = e.gen & 0x80000000u;
			ev.exit_code = ev.timed_out ? 0 : sj->exit_code;
			sj->end = e.time;
			sim->gpu_seconds += sj->gpu_count * (double)(e.time - sj->start);
			break;
		case EV_TICK:
			ev.type = SCHED_EV_TICK;
			break;
		}
		if (step(sim, &ev, &err))
			die(err.msg);
		if (ev.job_id)
			note_state(sim, ev.job_id);
		if (ev.type == SCHED_EV_SUBMIT)
			note_state(sim, ev.job->id);
	}
	if (t > sim->now && t != INT64_MAX)
		sim->now = t;
}

void sim_run_until_idle(struct sim *sim)
{
	sim_run_until(sim, INT64_MAX);
}

enum sched_job_state sim_job_state(const struct sim *sim, uint32_t id)
{
	struct sched_job_info info;

	return sched_job_info(sim->s, id, &info) == 0 ? info.state : SCHED_JOB_FAILED;
}

enum sched_reason sim_job_reason(const struct sim *sim, uint32_t id)
{
	struct sched_job_info info;

	return sched_job_info(sim->s, id, &info) == 0 ? info.reason : SCHED_REASON_NONE;
}

int64_t sim_job_start(const struct sim *sim, uint32_t id)
{
	return id < sim->jobs_cap ? sim->jobs[id].start : -1;
}

int64_t sim_job_end(const struct sim *sim, uint32_t id)
{
	return id < sim->jobs_cap ? sim->jobs[id].end : -1;
}

const char *sim_job_nodes(struct sim *sim, uint32_t id)
{
	return id < sim->jobs_cap && sim->jobs[id].nodes ? sim->jobs[id].nodes : "";
}

uint16_t sim_job_gpus(const struct sim *sim, uint32_t id)
{
	return id < sim->jobs_cap ? sim->jobs[id].gpus : 0;
}

uint32_t sim_backfilled(const struct sim *sim)
{
	return sim->backfilled;
}

uint32_t sim_preempted(const struct sim *sim)
{
	return sim->preempted;
}

double sim_gpu_seconds(const struct sim *sim)
{
	return sim->gpu_seconds;
}

void sim_on_start(struct sim *sim, sim_start_cb cb, void *arg)
{
	sim->on_start = cb;
	sim->on_start_arg = arg;
}
