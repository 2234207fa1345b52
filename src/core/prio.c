/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's multifactor priority and classic fair-share with decayed usage. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Decay every account's usage to `now`, then charge running jobs for the
 * time since their last charge. Billing: 1 per CPU plus 16 per GPU (a GPU
 * shard bills 16 / shards-per-GPU), per second. */
void core_fairshare_update(struct sched *s, int64_t now)
{
	int64_t dt = now - s->last_cycle;

	if (dt <= 0)
		return;
	if (s->cfg.decay_half_life > 0) {
		double f = exp2(-(double)dt / (double)s->cfg.decay_half_life);

		for (size_t a = 0; a < s->naccounts; a++)
			s->accounts[a].usage *= f;
		for (size_t u = 0; u < s->nuassocs; u++)
			s->uassocs[u].usage *= f;
	}
	core_limits_usage(s, s->cfg.decay_half_life > 0
				     ? exp2(-(double)dt / (double)s->cfg.decay_half_life)
				     : 1.0,
			  now);
	for (size_t i = 0; i < s->running.n; i++) {
		struct core_job *j = s->running.v[i];
		double bill = 0;
		int64_t since = j->last_charge > j->start ? j->last_charge : j->start;

		for (size_t k = 0; k < j->nalloc; k++) {
			const struct core_node *n = &s->nodes[j->alloc[k].node];

			bill += j->alloc[k].cpus + 16.0 * __builtin_popcount(j->alloc[k].gpu_mask);
			if (j->alloc[k].shards && n->shards_per_gpu)
				bill += 16.0 * j->alloc[k].shards / n->shards_per_gpu;
		}
		/* a QOS' UsageFactor scales what its jobs are charged */
		if (j->qos >= 0)
			bill *= s->qos[j->qos].usage_factor;
		if (now > since)
			s->accounts[j->account].usage += bill * (double)(now - since);
		if (now > since && j->uassoc >= 0)
			s->uassocs[j->uassoc].usage += bill * (double)(now - since);
		j->last_charge = now;
	}
	s->last_cycle = now;
	s->fairtree = core_fairtree_update(s);
}

/* 2^(-U/S): U the account's share of all usage, S its share of all shares. */
double core_fairshare_factor(const struct sched *s, int account)
{
	double total_u = 0, total_s = 0, u, sh;

	for (size_t a = 0; a < s->naccounts; a++) {
		total_u += s->accounts[a].usage;
		total_s += s->accounts[a].shares;
	}
	if (total_u <= 0 || total_s <= 0)
		return 1.0;
	u = s->accounts[account].usage / total_u;
	sh = s->accounts[account].shares / total_s;
	return exp2(-u / sh);
}

/* Each factor of Slurm's multifactor priority, weighted. */
static void factors(const struct sched *s, const struct core_job *j, uint64_t parts, int64_t now,
		    struct sched_prio *f)
{
	const struct sched_config *c = &s->cfg;
	double age, size, part = 0, qos = 0;
	uint16_t max_factor = 1;
	uint32_t max_qos = 0;

	age = c->max_age > 0 && now > j->eligible ? (double)(now - j->eligible) / c->max_age : 0;
	if (age > 1)
		age = 1;
	/* size: the larger share of the cluster's nodes or GPUs */
	size = s->nnodes ? (double)j->nodes / (double)s->nnodes : 0;
	if (s->total_gpus) {
		double g = (double)core_job_gpus_per_node(j) * j->nodes / (double)s->total_gpus;

		size = g > size ? g : size;
	}
	if (size > 1)
		size = 1;
	if (c->favor_small)
		size = 1 - size;
	for (size_t p = 0; p < s->nparts; p++)
		if (!s->parts[p].deleted && s->parts[p].job_factor > max_factor)
			max_factor = s->parts[p].job_factor;
	for (size_t p = 0; p < s->nparts; p++)
		if ((parts >> p & 1) && (double)s->parts[p].job_factor / max_factor > part)
			part = (double)s->parts[p].job_factor / max_factor;
	for (size_t q = 0; q < s->nqos; q++)
		max_qos = s->qos[q].priority > max_qos ? s->qos[q].priority : max_qos;
	if (j->qos >= 0 && max_qos)
		qos = (double)s->qos[j->qos].priority / max_qos;
	f->age = c->w_age * age;
	/* Fair Tree's rank for a user with an association, else the account's
	 * classic factor */
	f->fairshare = c->w_fairshare * (s->fairtree && j->uassoc >= 0 ? s->uassocs[j->uassoc].fs
								   : core_fairshare_factor(s, j->account));
	f->job_size = c->w_job_size * size;
	f->partition = c->w_partition * part;
	f->qos = c->w_qos * qos;
	f->nice = j->nice;
}

/* j's priority were it to run in the partitions of mask parts. */
static uint32_t priority_in(const struct sched *s, const struct core_job *j, uint64_t parts,
			    int64_t now)
{
	struct sched_prio f;
	double prio;

	if (j->prio_fixed)
		return j->prio_fixed;
	factors(s, j, parts, now, &f);
	prio = f.age + f.fairshare + f.job_size + f.partition + f.qos - f.nice;
	if (prio < 1)
		prio = 1;
	if (prio > 4e9)
		prio = 4e9;
	return (uint32_t)prio;
}

uint32_t core_job_priority(const struct sched *s, const struct core_job *j, int64_t now)
{
	return priority_in(s, j, j->parts, now);
}

int sched_job_part_prio(const struct sched *s, uint32_t id, const char *part, uint32_t *prio)
{
	const struct core_job *j = core_job_view(s, id);

	if (!j)
		return SPUR_ENOENT;
	for (size_t p = 0; p < s->nparts; p++)
		if ((j->parts >> p & 1) && !strcmp(s->parts[p].name, part)) {
			*prio = priority_in(s, j, UINT64_C(1) << p, s->now);
			return 0;
		}
	return SPUR_ENOENT;
}

int sched_job_prio(const struct sched *s, uint32_t id, struct sched_prio *out)
{
	const struct core_job *j = core_job_view(s, id);

	if (!j)
		return SPUR_ENOENT;
	factors(s, j, j->parts, s->now, out);
	out->priority = core_job_priority(s, j, s->now);
	return 0;
}
