/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the simulation tests: specs with defaults, trace checks. */
#ifndef SPUR_TESTS_SIMTEST_H
#define SPUR_TESTS_SIMTEST_H

#include "../lib/testutil.h"

#include "simcluster.h"

#include <string.h>

#define H 3600

/* A partition of `nodes` with no limits. */
static inline struct sched_part_spec part(const char *name, const char *nodes, bool def)
{
	struct sched_part_spec p = { 0 };

	p.name = name;
	p.nodes = nodes;
	p.is_default = def;
	p.max_time = SCHED_INFINITE;
	return p;
}

/* Job `id` of alice/ml: `nodes` nodes with `gpn` GPUs each, `limit` seconds. */
static inline struct sched_job_spec job(uint32_t id, uint32_t nodes, uint32_t gpn, int64_t limit)
{
	struct sched_job_spec j = { 0 };

	j.id = id;
	j.name = "job";
	j.user = "alice";
	j.account = "ml";
	j.nodes = nodes;
	j.gpus_per_node = gpn;
	j.time_limit = limit;
	return j;
}

static inline void assert_trace_has(struct sim *sim, const char *fragment)
{
	const char *t = sched_trace(sim_sched(sim));

	if (!strstr(t, fragment))
		fail_msg("trace lacks '%s'; trace:\n%s", fragment, t);
}

#endif
