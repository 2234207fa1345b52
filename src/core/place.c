/* SPDX-License-Identifier: Apache-2.0 */
/* Placement: which GPUs inside a node (link bandwidth), which nodes for a
 * job (fit now or later, leaf switches). Pure functions over struct sched. */
#include "internal.h"

#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

uint16_t core_node_free_mask(const struct core_node *n)
{
	uint16_t all = (uint16_t)((1u << n->ngpus) - 1);
	uint16_t sharded = 0;

	for (unsigned g = 0; g < n->ngpus; g++)
		if (n->shard_used[g])
			sharded |= (uint16_t)(1u << g);
	return all & (uint16_t)~(n->gpu_used | n->gpu_failed | sharded);
}

uint32_t core_job_gpus_per_node(const struct core_job *j)
{
	if (j->gpn)
		return j->gpn;
	if (j->gpt)
		return j->gpt * ((j->ntasks + j->nodes - 1) / j->nodes);
	if (j->gpu_total)
		return (j->gpu_total + j->nodes - 1) / j->nodes;
	return 0;
}

uint32_t core_job_cpus_per_node(const struct core_job *j)
{
	/* -O: as if one task per node were asked for */
	uint32_t n = j->overcommit ? j->cpus_per_task
				   : ((j->ntasks + j->nodes - 1) / j->nodes) * j->cpus_per_task;

	if (j->cpus_per_gpu && j->cpus_per_gpu * core_job_gpus_per_node(j) > n)
		n = j->cpus_per_gpu * core_job_gpus_per_node(j);
	return n > j->min_cpus ? n : j->min_cpus;
}

uint16_t core_job_share(const struct sched *s, const struct core_job *j, int p)
{
	const struct core_part *pt;

	if (p < 0 || (size_t)p >= s->nparts || j->exclusive)
		return 1;
	pt = &s->parts[p];
	if (pt->share_max > 1 && (pt->share_force || j->want_share))
		return pt->share_max;
	return 1;
}

/* The share arithmetic of one node at one time: whole CPUs held alone,
 * sharing jobs' load (units) and their CPUs counted whole. */
static bool cpus_fit(uint32_t total, uint64_t used, uint64_t load, uint64_t shcpus,
		     uint32_t cpus, uint16_t share, uint32_t held)
{
	uint64_t open, whole;

	if (used + held >= total)
		return cpus == 0;
	open = total - used - held; /* CPUs no job holds alone */
	if (share <= 1) /* whole CPUs no sharing job uses either */
		return open - (shcpus < open ? shcpus : open) >= cpus;
	whole = open * CORE_SHARE_UNIT;
	return open >= cpus && whole >= load &&
	       whole - load >= (uint64_t)cpus * (CORE_SHARE_UNIT / share);
}

uint32_t core_node_cpus_free(const struct core_node *n)
{
	uint32_t open = n->cpus_used >= n->cpus ? 0 : n->cpus - n->cpus_used;

	return open - (n->share_cpus < open ? n->share_cpus : open);
}

bool core_node_cpus_fit(const struct core_node *n, uint32_t cpus, uint16_t share, uint32_t held)
{
	return cpus_fit(n->cpus, n->cpus_used, n->share_load, n->share_cpus, cpus, share, held);
}

void core_node_cpus_charge(struct core_node *n, const struct core_job *j, uint32_t cpus, int sign)
{
	if (j->share > 1) {
		uint64_t units = (uint64_t)cpus * (CORE_SHARE_UNIT / j->share);

		n->share_load = sign > 0 ? n->share_load + units
					 : n->share_load > units ? n->share_load - units : 0;
		n->share_cpus = sign > 0 ? n->share_cpus + cpus
					 : n->share_cpus > cpus ? n->share_cpus - cpus : 0;
	} else {
		n->cpus_used = sign > 0 ? n->cpus_used + cpus : n->cpus_used - cpus;
	}
}

uint64_t core_job_mem_per_node(const struct core_job *j)
{
	if (j->mem)
		return j->mem;
	if (j->mem_per_cpu)
		return j->mem_per_cpu * core_job_cpus_per_node(j);
	return j->mem_per_gpu * core_job_gpus_per_node(j);
}

/* Sum of link weights over the pairs in mask. */
static uint32_t mask_weight(const struct core_node *n, uint16_t mask)
{
	uint32_t w = 0;

	for (unsigned a = 0; a < n->ngpus; a++) {
		if (!(mask >> a & 1))
			continue;
		for (unsigned b = a + 1; b < n->ngpus; b++)
			if (mask >> b & 1)
				w += n->pair_w[a][b];
	}
	return w;
}

/* True when every pair in mask uses the node's best link class. */
static bool island_mask(const struct core_node *n, uint16_t mask)
{
	for (unsigned a = 0; a < n->ngpus; a++)
		for (unsigned b = a + 1; b < n->ngpus; b++)
			if ((mask >> a & 1) && (mask >> b & 1) && n->link[a][b] != n->best_link)
				return false;
	return true;
}

/* Mean pair weight in mask, scaled by 16 (0 for fewer than 2 GPUs). */
static uint32_t pair_mean(const struct core_node *n, uint16_t mask)
{
	uint32_t k = (uint32_t)__builtin_popcount(mask);

	return k < 2 ? 0 : 16 * mask_weight(n, mask) / (k * (k - 1) / 2);
}

/* Choose k GPUs out of `free`. Topology-aware: the subset with the highest
 * total link weight; among equals, the one that leaves the remaining free
 * GPUs best connected (less fragmentation); then the lowest indexes.
 * Baseline: the k lowest free indexes. Returns 0 when fewer than k are free. */
uint16_t core_pick_gpus(const struct core_node *n, uint16_t free, unsigned k, bool topo)
{
	unsigned idx[SCHED_MAX_GPUS], m = 0;
	uint16_t best = 0;
	uint64_t best_score = 0;

	if (k == 0)
		return 0;
	for (unsigned g = 0; g < n->ngpus; g++)
		if (free >> g & 1)
			idx[m++] = g;
	if (m < k)
		return 0;
	if (!topo || n->uniform || k == m) {
		uint16_t mask = 0;

		for (unsigned i = 0; i < k; i++)
			mask |= (uint16_t)(1u << idx[i]);
		return mask;
	}
	/* Gosper's hack over k-subsets of the m free positions */
	for (uint32_t c = (1u << k) - 1; c < (1u << m);) {
		uint16_t mask = 0;
		uint64_t score;

		for (unsigned i = 0; i < m; i++)
			if (c >> i & 1)
				mask |= (uint16_t)(1u << idx[i]);
		score = (uint64_t)mask_weight(n, mask) << 32 |
			(uint64_t)mask_weight(n, free & (uint16_t)~mask) << 8;
		if (!best || score > best_score) {
			best = mask;
			best_score = score;
		}
		uint32_t lo = c & -c, r = c + lo;

		c = (((r ^ c) >> 2) / lo) | r;
	}
	return best;
}

/* The GPU to take `shards` shards from: a GPU already shared with room
 * (fullest first, to pack), else a whole free GPU (the least connected one,
 * so that well-linked GPUs stay whole). -1 when none. */
int core_pick_shard_gpu(const struct core_node *n, uint32_t shards)
{
	int best = -1;
	uint32_t best_room = UINT32_MAX, best_w = UINT32_MAX;
	uint16_t free = core_node_free_mask(n);

	if (!n->shards_per_gpu || shards > n->shards_per_gpu)
		return -1;
	for (unsigned g = 0; g < n->ngpus; g++) {
		uint32_t room = n->shards_per_gpu - n->shard_used[g];

		if (!n->shard_used[g] || (n->gpu_failed >> g & 1) || room < shards)
			continue;
		if (room < best_room) {
			best = (int)g;
			best_room = room;
		}
	}
	if (best >= 0)
		return best;
	for (unsigned g = 0; g < n->ngpus; g++) {
		uint32_t w = 0;

		if (!(free >> g & 1))
			continue;
		for (unsigned o = 0; o < n->ngpus; o++)
			if (o != g && (free >> o & 1))
				w += n->pair_w[g][o];
		if (w < best_w) {
			best = (int)g;
			best_w = w;
		}
	}
	return best;
}

static bool in_sorted(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool core_node_has_feature(const struct core_node *n, const char *f)
{
	/* f may be alternatives, "a|b" (--constraint's OR) */
	for (const char *p = f; *p;) {
		size_t len = strcspn(p, "|");

		for (size_t i = 0; i < n->nfeatures; i++)
			if (strlen(n->features[i]) == len && !strncmp(n->features[i], p, len))
				return true;
		p += len + (p[len] == '|');
	}
	return false;
}

static bool any_alt(const struct core_node *n, const struct core_job *j)
{
	for (size_t a = 0; a < j->nalts; a++)
		if (core_node_has_feature(n, j->alts[a]))
			return true;
	return false;
}

/* Constraints that do not change with time: partition, features, lists,
 * capacity, GPU type, the job's reservation. */
bool core_node_static_ok(const struct sched *s, const struct core_job *j, uint32_t ni,
			 uint64_t parts)
{
	const struct core_node *n = &s->nodes[ni];
	uint32_t gpn = core_job_gpus_per_node(j);

	if (!(n->parts & parts))
		return false;
	if (n->cpus < core_job_cpus_per_node(j) || n->mem < core_job_mem_per_node(j) || n->tmp < j->tmp)
		return false;
	if (gpn > n->ngpus || (gpn && j->gpu_type >= 0 && n->gpu_type != j->gpu_type))
		return false;
	if (j->spn && (n->shards_per_gpu < j->spn ||
		       (j->gpu_type >= 0 && n->gpu_type != j->gpu_type)))
		return false;
	for (size_t f = 0; f < j->nfeatures; f++)
		if (!core_node_has_feature(n, j->features[f]))
			return false;
	if (j->nexcl && in_sorted(j->excl_nodes, j->nexcl, ni))
		return false;
	if (j->nreq && !in_sorted(j->req_nodes, j->nreq, ni))
		return false;
	/* -C [a|b]: the alternative being tried, or any of them */
	if (j->nalts && (j->match_sel >= 0 ? !core_node_has_feature(n, j->alts[j->match_sel])
					   : !any_alt(n, j)))
		return false;
	/* FLEX: its jobs may use nodes outside it too */
	if (j->resv >= 0 && !s->resvs[j->resv].flex && !s->resvs[j->resv].nodes[ni])
		return false;
	return true;
}

/* Another reservation's nodes are closed to j while it is active (a GPU
 * reservation's only its GPUs: resv_gpus). */
static bool resv_blocks(const struct sched *s, const struct core_job *j, uint32_t ni, int64_t t0,
			int64_t t1)
{
	for (size_t r = 0; r < s->nresvs; r++) {
		const struct core_resv *rv = &s->resvs[r];

		if ((int)r == j->resv || !rv->nodes[ni] || rv->gpus)
			continue;
		if (t0 < rv->end && rv->start < t1)
			return true;
	}
	return false;
}

struct need {
	uint32_t cpus, gpus, shards;
	uint64_t mem;
};

static struct need job_need(const struct core_job *j)
{
	struct need nd = { core_job_cpus_per_node(j), core_job_gpus_per_node(j), j->spn, core_job_mem_per_node(j) };

	return nd;
}

/* Resources the cycle's reservations hold on n at some point in [t0, t1). */
static void reserved_in(const struct sched *s, const struct core_node *n, int64_t t0, int64_t t1,
			struct need *held, bool *excl)
{
	memset(held, 0, sizeof(*held));
	*excl = false;
	for (int32_t r = n->resv_first; r >= 0; r = s->cresv[r].next) {
		const struct cyc_resv *cr = &s->cresv[r];

		if (cr->start >= t1 || cr->end <= t0)
			continue;
		held->cpus += cr->cpus;
		held->mem += cr->mem;
		held->gpus += cr->gpus;
		held->shards += cr->shards;
		*excl |= cr->excl;
	}
}

/* The GPUs of node ni that reservation r's jobs hold at time t. */
static uint32_t resv_members_gpus(const struct sched *s, int r, uint32_t ni, int64_t t)
{
	const struct core_node *n = &s->nodes[ni];
	uint32_t used = 0;

	for (size_t k = 0; k < n->njobs; k++) {
		const struct core_job *o = s->jobs[n->jobs[k]];

		if (o->resv != r || o->end <= t)
			continue;
		for (size_t x = 0; x < o->nalloc; x++)
			if (o->alloc[x].node == ni)
				used += (uint32_t)__builtin_popcount(o->alloc[x].gpu_mask);
	}
	return used;
}

/* GPU reservations (TRES=gres/gpu=N) active in [t0, t1) on node ni: the
 * GPUs they keep from j there (what their own jobs at t do not use yet);
 * or, for j of such a reservation, UINT32_MAX when it asks more of the
 * node than its reservation has left. */
static uint32_t resv_gpus(const struct sched *s, const struct core_job *j, uint32_t ni,
			  int64_t t0, int64_t t1, int64_t t)
{
	uint32_t held = 0;

	for (size_t r = 0; r < s->nresvs; r++) {
		const struct core_resv *rv = &s->resvs[r];
		uint32_t used, has;

		if (!rv->gpus || !rv->gpus[ni] || t0 >= rv->end || rv->start >= t1)
			continue;
		used = resv_members_gpus(s, (int)r, ni, t);
		has = rv->gpus[ni] > used ? rv->gpus[ni] - used : 0;
		if ((int)r != j->resv)
			held += has;
		else if (!rv->flex && core_job_gpus_per_node(j) > has)
			return UINT32_MAX;
	}
	return held;
}

/* ExclusiveUser: a node that runs such a job holds its user's jobs alone,
 * and such a job starts only where no other user's job runs. */
static bool user_excl_ok(const struct sched *s, const struct core_node *n,
			 const struct core_job *j)
{
	if (n->user_excl && strcmp(n->user_excl_name, j->user))
		return false;
	if (!j->excl_user)
		return true;
	for (size_t k = 0; k < n->njobs; k++)
		if (strcmp(s->jobs[n->jobs[k]]->user, j->user))
			return false;
	return true;
}

bool core_node_fits(const struct sched *s, const struct core_job *j, uint32_t ni, int64_t t0,
		    int64_t t1)
{
	const struct core_node *n = &s->nodes[ni];
	struct need nd = job_need(j), held;
	bool excl;
	uint32_t free_gpus = (uint32_t)__builtin_popcount(core_node_free_mask(n)), rg;

	if (n->state != NODE_UP || n->excl_jobs || (j->exclusive && n->njobs))
		return false;
	if (!user_excl_ok(s, n, j)) /* ExclusiveUser=YES */
		return false;
	if (resv_blocks(s, j, ni, t0, t1))
		return false;
	reserved_in(s, n, t0, t1, &held, &excl);
	if (excl || (j->exclusive && (held.cpus || held.gpus || held.shards)))
		return false;
	rg = resv_gpus(s, j, ni, t0, t1, s->now);
	if (rg == UINT32_MAX || (rg && j->exclusive))
		return false;
	held.gpus += rg;
	if (!core_node_cpus_fit(n, nd.cpus, j->share, held.cpus))
		return false;
	if (nd.mem && n->mem - n->mem_used < nd.mem + held.mem)
		return false;
	if (free_gpus < nd.gpus + held.gpus)
		return false;
	if (nd.shards) {
		/* held shard reservations count as whole GPUs taken */
		if (core_pick_shard_gpu(n, nd.shards) < 0 || (held.shards && free_gpus < 1 + held.gpus))
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- node sets */

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int leaf_count_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b; /* (leaf, count) pairs */

	return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : (x[0] > y[0]) - (x[0] < y[0]);
}

/* Scan candidate nodes that fit now, best first: lowest weight, then by
 * free-GPU bucket ascending (fewest free GPUs that still hold the job). CPU-only jobs try
 * GPU-less nodes first; GPU and shard jobs only nodes of their type. */
static size_t collect_fitting_per_bucket(struct sched *s, const struct core_job *j,
					 uint64_t parts, int64_t t1, uint32_t *cand, size_t max,
					 size_t per_bucket);

static size_t collect_fitting(struct sched *s, const struct core_job *j, uint64_t parts,
			      int64_t t1, uint32_t *cand, size_t max)
{
	return collect_fitting_per_bucket(s, j, parts, t1, cand, max, SIZE_MAX);
}

/* As collect_fitting, taking at most per_bucket nodes from each bucket. */
static size_t collect_fitting_per_bucket(struct sched *s, const struct core_job *j,
					 uint64_t parts, int64_t t1, uint32_t *cand, size_t max,
					 size_t per_bucket)
{
	uint32_t gpn = core_job_gpus_per_node(j);
	bool wants_gpu = gpn || j->spn;
	int first = wants_gpu ? (j->gpu_type >= 0 ? j->gpu_type : 0) : -1;
	int last = j->gpu_type >= 0 ? j->gpu_type : (int)s->ngpu_types - 1;
	size_t nc = 0;

	/* lower weight first (Slurm), then fewer free GPUs (best fit) */
	for (size_t w = 0; w < s->nweights && nc < max; w++) {
		for (int type = first; type <= last && nc < max; type++) {
			for (uint32_t f = gpn; f <= SCHED_MAX_GPUS && nc < max; f++) {
				size_t b = ((size_t)(type + 1) * s->nweights + w) * (SCHED_MAX_GPUS + 1) + f;
				size_t taken = 0;

				for (size_t k = 0; k < s->buckets[b].n && nc < max && taken < per_bucket;
				     k++) {
					uint32_t ni = s->buckets[b].v[k];

					if (core_node_static_ok(s, j, ni, parts) &&
					    core_node_fits(s, j, ni, s->now, t1)) {
						cand[nc++] = ni;
						taken++;
					}
				}
			}
		}
	}
	return nc;
}

/* -C f*N: from the candidates (best first), N nodes with f for each such
 * item, then the best of the rest: how many (want, or 0 when the counts
 * cannot be met). */
static size_t select_counted(const struct sched *s, const struct core_job *j,
			     const uint32_t *cand, size_t nc, uint32_t *out)
{
	size_t got = 0;
	uint8_t *taken = spur_calloc(nc + 1, 1);

	if (!taken)
		return 0;
	for (size_t c = 0; c < j->ncounts; c++) {
		uint32_t need = j->counts[c].n;

		for (size_t k = 0; k < nc && need; k++)
			if (!taken[k] && core_node_has_feature(&s->nodes[cand[k]], j->counts[c].feat)) {
				taken[k] = 1;
				out[got++] = cand[k];
				need--;
			}
		if (need) {
			got = 0;
			break;
		}
	}
	for (size_t k = 0; got && k < nc && got < j->nodes; k++)
		if (!taken[k])
			out[got++] = cand[k];
	spur_free(taken);
	return got < j->nodes ? 0 : got;
}

/* -C [a|b|c]: the first alternative all of whose nodes fit. */
static size_t select_alts(struct sched *s, struct core_job *j, uint64_t parts, int64_t t1,
			  uint32_t *out)
{
	size_t got = 0;

	for (size_t a = 0; a < j->nalts && got < j->nodes; a++) {
		j->match_sel = (int)a;
		got = core_select_nodes(s, j, parts, t1, out);
	}
	j->match_sel = -1;
	return got;
}

size_t core_select_nodes(struct sched *s, struct core_job *j, uint64_t parts, int64_t t1,
			 uint32_t *out)
{
	size_t want = j->nodes, nc, got = 0;
	bool topo = s->cfg.place == SCHED_PLACE_TOPO;
	uint32_t *cand;

	if (j->nalts && j->match_sel < 0)
		return select_alts(s, j, parts, t1, out);
	if (topo && want == 1 && !j->ncounts) {
		uint32_t gpn = core_job_gpus_per_node(j);
		uint32_t few[64];
		uint64_t best_score = 0;

		if (gpn < 2)
			return collect_fitting(s, j, parts, t1, out, 1); /* the best fit */
		/* multi-GPU: a few candidates from each free-GPU bucket; the node
		 * where the chosen GPUs are one hive or island wins, then the
		 * best linked, then the best fit (candidates come in that order) */
		nc = collect_fitting_per_bucket(s, j, parts, t1, few, 64, 4);
		for (size_t c = 0; c < nc; c++) {
			const struct core_node *n = &s->nodes[few[c]];
			uint16_t m = core_pick_gpus(n, core_node_free_mask(n), gpn, true);
			/* candidates come lowest weight first: weight stays primary */
			uint64_t score = (uint64_t)(s->nweights - n->wrank) << 48 |
					 (uint64_t)island_mask(n, m) << 40 |
					 (uint64_t)pair_mean(n, m) << 20 | (uint64_t)(63 - c);

			if (!got || score > best_score) {
				out[0] = few[c];
				best_score = score;
				got = 1;
			}
		}
		return got;
	}
	cand = spur_malloc(s->nnodes * sizeof(uint32_t));
	if (!cand)
		return 0;
	nc = collect_fitting(s, j, parts, t1, cand, s->nnodes);
	if (j->ncounts) {
		got = select_counted(s, j, cand, nc, out);
	} else if (j->contiguous) {
		/* --contiguous: the first run of want consecutive nodes (the
		 * node table's order, as Slurm's) that all fit */
		size_t run = 0;

		qsort(cand, nc, sizeof(uint32_t), u32_cmp);
		for (size_t c = 0; c < nc && run < want; c++) {
			run = c && cand[c] == cand[c - 1] + 1 ? run + 1 : 1;
			if (run == want)
				for (size_t k = 0; k < want; k++)
					out[got++] = cand[c + 1 - want + k];
		}
	} else if (!topo) {
		/* baseline: the lowest-numbered nodes that fit, switches ignored */
		qsort(cand, nc, sizeof(uint32_t), u32_cmp);
		for (size_t c = 0; c < nc && got < want; c++)
			out[got++] = cand[c];
	} else if (nc >= want) {
		/* count candidates per leaf switch; a leaf that can hold the
		 * whole job wins (the smallest such, to keep big leaves whole);
		 * otherwise fill from the fullest leaves */
		uint32_t *lc = spur_calloc(s->nswitches + 1, 2 * sizeof(uint32_t));
		long best = -1;

		if (!lc) {
			spur_free(cand);
			return 0;
		}
		for (size_t l = 0; l <= s->nswitches; l++)
			lc[2 * l] = (uint32_t)l;
		for (size_t c = 0; c < nc; c++) {
			int leaf = s->nodes[cand[c]].leaf;

			lc[2 * (size_t)(leaf < 0 ? (int)s->nswitches : leaf) + 1]++;
		}
		for (size_t l = 0; l < s->nswitches; l++)
			if (lc[2 * l + 1] >= want &&
			    (best < 0 || lc[2 * l + 1] < lc[2 * (size_t)best + 1]))
				best = (long)l;
		if (best >= 0) {
			for (size_t c = 0; c < nc && got < want; c++)
				if (s->nodes[cand[c]].leaf == best)
					out[got++] = cand[c];
		} else {
			qsort(lc, s->nswitches + 1, 2 * sizeof(uint32_t), leaf_count_cmp);
			for (size_t l = 0; l <= s->nswitches && got < want; l++) {
				int leaf = lc[2 * l] == s->nswitches ? -1 : (int)lc[2 * l];

				for (size_t c = 0; c < nc && got < want; c++)
					if (s->nodes[cand[c]].leaf == leaf)
						out[got++] = cand[c];
			}
		}
		spur_free(lc);
	}
	spur_free(cand);
	return got;
}

/* ---------------------------------------------------------------- the future */

/* Earliest t in [now, now + window] at which j fits on node ni for `limit`
 * seconds, given when running jobs end (their time limits) and the
 * reservations already made this cycle. Counts resources, not which GPU. */
int64_t core_node_earliest(const struct sched *s, const struct core_job *j, uint32_t ni,
			   int64_t limit)
{
	const struct core_node *n = &s->nodes[ni];
	struct need nd = job_need(j);
	int64_t cands[64];
	size_t nt = 0;
	int64_t horizon = s->now + s->cfg.bf_window;

	if (n->state != NODE_UP)
		return SCHED_INFINITE;
	cands[nt++] = s->now;
	for (size_t k = 0; k < n->njobs && nt < 63; k++)
		cands[nt++] = s->jobs[n->jobs[k]]->end;
	for (int32_t r = n->resv_first; r >= 0 && nt < 64; r = s->cresv[r].next)
		cands[nt++] = s->cresv[r].end;
	/* try candidate times in order: the first that fits is the earliest */
	for (size_t a = 1; a < nt; a++)
		for (size_t b = a; b > 0 && cands[b - 1] > cands[b]; b--) {
			int64_t t = cands[b];

			cands[b] = cands[b - 1];
			cands[b - 1] = t;
		}
	for (size_t a = 0; a < nt; a++) {
		int64_t t = cands[a], t1 = t > SCHED_INFINITE - limit ? SCHED_INFINITE : t + limit;
		/* what running jobs hold at t: whole CPUs, sharing load and CPUs
		 * (an exclusive job: all of them) */
		uint64_t used = 0, load = 0, shcpus = 0;
		int64_t gpus = n->ngpus - __builtin_popcount(n->gpu_failed);
		int64_t mem = (int64_t)n->mem;
		uint32_t jobs_left = 0, rg;
		struct need held;
		bool excl;

		if (t > horizon)
			continue;
		for (size_t k = 0; k < n->njobs; k++) {
			const struct core_job *o = s->jobs[n->jobs[k]];

			if (o->end <= t)
				continue;
			jobs_left++;
			for (size_t x = 0; x < o->nalloc; x++) {
				if (o->alloc[x].node != ni)
					continue;
				if (o->share > 1) {
					load += (uint64_t)o->alloc[x].cpus * (CORE_SHARE_UNIT / o->share);
					shcpus += o->alloc[x].cpus;
				} else {
					used += o->alloc[x].cpus;
				}
				mem -= (int64_t)o->alloc[x].mem_mb;
				gpus -= __builtin_popcount(o->alloc[x].gpu_mask) +
					(o->alloc[x].shards ? 1 : 0);
				if (o->exclusive)
					used = n->cpus;
			}
		}
		if (j->exclusive && jobs_left)
			continue;
		if (resv_blocks(s, j, ni, t, t1))
			continue;
		reserved_in(s, n, t, t1, &held, &excl);
		if (excl || (j->exclusive && (held.cpus || held.gpus)))
			continue;
		rg = resv_gpus(s, j, ni, t, t1, t);
		if (rg == UINT32_MAX || (rg && j->exclusive))
			continue;
		held.gpus += rg;
		if (!cpus_fit(n->cpus, used, load, shcpus, nd.cpus, j->share, held.cpus) ||
		    (nd.mem && mem < (int64_t)(nd.mem + held.mem)) ||
		    gpus < (int64_t)(nd.gpus + held.gpus) + (nd.shards || held.shards ? 1 : 0))
			continue;
		return t;
	}
	return SCHED_INFINITE;
}
