/* SPDX-License-Identifier: Apache-2.0 */
/* A fake cluster on a fake clock around libsched: jobs "run" for a given
 * time, the driver loop feeds submissions, finishes and timers in time
 * order. Deterministic; used by tests/sim and bench/. */
#ifndef SPUR_TESTS_SIMCLUSTER_H
#define SPUR_TESTS_SIMCLUSTER_H

#include "core/sched.h"

#include <stdbool.h>
#include <stdint.h>

struct sim;

/* A sim with the scheduler config (NULL: defaults). */
struct sim *sim_create(const struct sched_config *cfg);
void sim_destroy(struct sim *sim);
struct sched *sim_sched(struct sim *sim);

/* Add `count` nodes named prefix%0*d (width `width`, from 1), under leaf
 * switch `leaf` (NULL: none). */
void sim_add_nodes(struct sim *sim, const char *prefix, int width, int count, uint32_t cpus,
		   uint64_t mem_mb, const char *gpu_type, enum sched_topo_preset topo,
		   uint32_t shards, const char *leaf);
void sim_add_partition(struct sim *sim, const struct sched_part_spec *p);

/* Queue a submission at `at` of a job that runs `runtime` seconds (a
 * runtime above its limit ends in TIMEOUT; exit_code applies otherwise).
 * The spec's strings must outlive the call to sim_run*. Returns 0 or the
 * error the scheduler gave when the submission was processed (see
 * sim_last_error) — submissions are processed lazily, so use
 * sim_submit_now for an immediate answer. */
void sim_submit(struct sim *sim, int64_t at, const struct sched_job_spec *spec, int64_t runtime,
		int exit_code);
/* Submit at the current time right away; returns sched_step's result. */
int sim_submit_now(struct sim *sim, const struct sched_job_spec *spec, int64_t runtime,
		   int exit_code, struct spur_error *err);
/* Feed another event right away (time = now if 0). */
int sim_event(struct sim *sim, struct sched_event ev, struct spur_error *err);

/* Process queued events up to time t (inclusive); the clock ends at t. */
void sim_run_until(struct sim *sim, int64_t t);
/* Process until nothing is queued (every job ended or can never start). */
void sim_run_until_idle(struct sim *sim);
int64_t sim_now(const struct sim *sim);

enum sched_job_state sim_job_state(const struct sim *sim, uint32_t id);
enum sched_reason sim_job_reason(const struct sim *sim, uint32_t id);
int64_t sim_job_start(const struct sim *sim, uint32_t id);
int64_t sim_job_end(const struct sim *sim, uint32_t id);
/* "gpu[01-02]" the job ran (or runs) on, "" if never. */
const char *sim_job_nodes(struct sim *sim, uint32_t id);
/* GPU mask on the job's first node. */
uint16_t sim_job_gpus(const struct sim *sim, uint32_t id);
/* How many START actions set .backfilled, and how many preemptions. */
uint32_t sim_backfilled(const struct sim *sim);
uint32_t sim_preempted(const struct sim *sim);

/* Visit every START action as it happens (placement statistics, a
 * performance model). The return value multiplies the job's runtime
 * (1.0: as given), e.g. to model slower communication across links. */
typedef double (*sim_start_cb)(void *arg, const struct sched *s, const struct sched_action *a);
void sim_on_start(struct sim *sim, sim_start_cb cb, void *arg);

/* Busy GPU-seconds so far (whole GPUs; a shard counts its fraction). */
double sim_gpu_seconds(const struct sim *sim);

#endif
