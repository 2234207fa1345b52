/* SPDX-License-Identifier: Apache-2.0 */
/* Steps' shares of their job's allocation, as Slurm 22.05 gives them: a
 * step takes, on each of its nodes, the job's CPUs there (with --exact,
 * only its tasks' CPUs) and the GPUs it asks for (none asked: all of the
 * job's there); a step that would need what running steps hold waits
 * ("Requested nodes are busy") unless it or they run with --overlap; so
 * does one whose --mem (or --mem-per-cpu) with the running steps' would
 * pass the job's memory on a node (more than the job has there: refused,
 * "Memory required by task is not available"). The
 * leader keeps this in memory only: the agents say when a step ended on
 * their node (step_end), and a job's end frees all; each agent is told its
 * share of the step and lists it when it registers, so a controller that
 * takes over learns what running steps hold. */
#include "ctld.h"

#include "common/alloc.h"

#include <string.h>

static unsigned popcount16(uint16_t m)
{
	return (unsigned)__builtin_popcount(m);
}

/* What the step asks of node k's GPUs (0: all of the job's there). */
static unsigned gpus_wanted(const json_t *msg, size_t tasks_here, size_t nn)
{
	json_int_t per_task = spur_json_int(msg, "gpus_per_task", 0);
	json_int_t per_node = spur_json_int(msg, "gpus_per_node", 0);
	json_int_t total = spur_json_int(msg, "gpus", 0);

	if (per_task > 0)
		return (unsigned)(per_task * (json_int_t)tasks_here);
	if (per_node > 0)
		return (unsigned)per_node;
	if (total > 0) /* spread over the step's nodes, the first ones take more */
		return (unsigned)((total + (json_int_t)nn - 1) / (json_int_t)nn);
	return 0;
}

/* What the step asks of node k's memory, MB: --mem, or --mem-per-cpu
 * times its tasks' CPUs there; 0: none asked. */
uint64_t ctld_step_mem_mb(const json_t *msg, size_t tasks_here)
{
	json_int_t cpt = spur_json_int(msg, "cpus_per_task", 1);

	if (spur_json_int(msg, "mem_mb", 0) > 0)
		return (uint64_t)spur_json_int(msg, "mem_mb", 0);
	return (uint64_t)(spur_json_int(msg, "mem_per_cpu_mb", 0) > 0
				  ? spur_json_int(msg, "mem_per_cpu_mb", 0)
				  : 0) *
	       (uint64_t)(cpt > 0 ? cpt : 1) * tasks_here;
}

/* The lowest n bits of free, or 0 when free has fewer. */
static uint16_t pick(uint16_t free, unsigned n)
{
	uint16_t out = 0;

	for (unsigned b = 0; b < 16 && n; b++)
		if (free & (1u << b)) {
			out |= (uint16_t)(1u << b);
			n--;
		}
	return n ? 0 : out;
}

int ctld_steps_take(struct ctld_job *cj, const struct sched_job_info *info, const size_t *sel,
		    size_t nn, const size_t *tasks, const json_t *msg, uint32_t step, uint16_t *gpus,
		    struct spur_error *err)
{
	bool overlap = spur_json_bool(msg, "overlap", 0), exact = spur_json_bool(msg, "exact", 0);
	json_int_t cpt = spur_json_int(msg, "cpus_per_task", 1);
	struct ctld_step_use *grown;

	cpt = cpt > 0 ? cpt : 1;
	/* first, all or nothing: does every node have it free? */
	for (size_t k = 0; k < nn; k++) {
		const struct sched_alloc_node *a = &info->alloc[sel[k]];
		unsigned want_gpus = gpus_wanted(msg, tasks[k], nn);
		uint32_t want_cpus = exact ? (uint32_t)(cpt * (json_int_t)tasks[k]) : a->cpus;
		uint64_t want_mem = ctld_step_mem_mb(msg, tasks[k]), used_mem = 0;
		uint32_t used_cpus = 0;
		uint16_t used_gpus = 0;

		if (want_gpus > popcount16(a->gpu_mask) || want_cpus > a->cpus)
			return spur_error_set(err, SPUR_EINVAL,
					      "Requested node configuration is not available");
		if (a->mem_mb && want_mem > a->mem_mb)
			return spur_error_set(err, SPUR_EINVAL,
					      "Memory required by task is not available");
		for (size_t u = 0; !overlap && u < cj->nuses; u++)
			if (cj->uses[u].node == sel[k]) {
				used_cpus += cj->uses[u].cpus;
				used_gpus |= cj->uses[u].gpus;
				used_mem += cj->uses[u].mem_mb;
			}
		if (!overlap && a->mem_mb && want_mem && used_mem + want_mem > a->mem_mb)
			return spur_error_set(err, SPUR_EAGAIN, "Requested nodes are busy");
		gpus[k] = want_gpus ? pick(a->gpu_mask & (uint16_t)~used_gpus, want_gpus)
				    : a->gpu_mask;
		if (!overlap && (used_cpus + want_cpus > a->cpus ||
				 (want_gpus && !gpus[k]) || (!want_gpus && (used_gpus & a->gpu_mask))))
			return spur_error_set(err, SPUR_EAGAIN, "Requested nodes are busy");
	}
	if (overlap)
		return 0;
	grown = spur_realloc(cj->uses, (cj->nuses + nn) * sizeof(*cj->uses));
	if (!grown)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	cj->uses = grown;
	for (size_t k = 0; k < nn; k++)
		cj->uses[cj->nuses++] = (struct ctld_step_use){
			.step = step,
			.node = (uint32_t)sel[k],
			.cpus = exact ? (uint32_t)(cpt * (json_int_t)tasks[k]) : info->alloc[sel[k]].cpus,
			.gpus = gpus[k],
			.mem_mb = ctld_step_mem_mb(msg, tasks[k]),
		};
	return 0;
}

void ctld_steps_release(struct ctld_job *cj, uint32_t step, long node)
{
	size_t w = 0;

	for (size_t u = 0; u < cj->nuses; u++)
		if (cj->uses[u].step != step || (node >= 0 && cj->uses[u].node != (uint32_t)node))
			cj->uses[w++] = cj->uses[u];
	cj->nuses = w;
}

void ctld_steps_clear(struct ctld_job *cj)
{
	spur_free(cj->uses);
	cj->uses = NULL;
	cj->nuses = 0;
}

void ctld_steps_seen(struct ctld_job *cj, uint32_t step)
{
	if (step >= cj->next_step && step < UINT32_MAX)
		cj->next_step = step + 1;
}

/* What step holds on allocation node `node`; NULL: nothing. */
static const struct ctld_step_use *find_use(const struct ctld_job *cj, uint32_t step, size_t node)
{
	for (size_t u = 0; u < cj->nuses; u++)
		if (cj->uses[u].step == step && cj->uses[u].node == node)
			return &cj->uses[u];
	return NULL;
}

json_t *ctld_steps_share(const struct ctld_job *cj, uint32_t step, size_t node)
{
	const struct ctld_step_use *use = find_use(cj, step, node);

	return use ? json_pack("{s:I,s:I,s:I,s:I}", "node", (json_int_t)node, "cpus",
			       (json_int_t)use->cpus, "gpus", (json_int_t)use->gpus, "mem_mb",
			       (json_int_t)use->mem_mb)
		   : NULL;
}

int ctld_steps_restore(struct ctld_job *cj, const struct sched_job_info *info, uint32_t step,
		       const json_t *share)
{
	json_int_t node = spur_json_int(share, "node", -1), cpus = spur_json_int(share, "cpus", -1);
	json_int_t gpus = spur_json_int(share, "gpus", -1), mem = spur_json_int(share, "mem_mb", 0);
	struct ctld_step_use *grown;

	ctld_steps_seen(cj, step);
	if (!share)
		return 0; /* an --overlap step holds nothing */
	if (node < 0 || (size_t)node >= info->nalloc || cpus < 0 ||
	    cpus > (json_int_t)info->alloc[node].cpus || gpus < 0 ||
	    (gpus & ~(json_int_t)info->alloc[node].gpu_mask) || mem < 0 ||
	    (info->alloc[node].mem_mb && (uint64_t)mem > info->alloc[node].mem_mb))
		return SPUR_EINVAL;
	if (find_use(cj, step, (size_t)node))
		return 0;
	grown = spur_realloc(cj->uses, (cj->nuses + 1) * sizeof(*cj->uses));
	if (!grown)
		return SPUR_ENOMEM;
	cj->uses = grown;
	cj->uses[cj->nuses++] = (struct ctld_step_use){
		.step = step, .node = (uint32_t)node, .cpus = (uint32_t)cpus, .gpus = (uint16_t)gpus,
		.mem_mb = (uint64_t)mem
	};
	return 0;
}
