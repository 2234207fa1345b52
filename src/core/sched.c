/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct sched: resources, jobs, events in, actions and trace out. */
#include "internal.h"

#include "common/alloc.h"
#include "common/hostlist.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

static const char *const state_names[] = {
	"PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
	"OUT_OF_MEMORY", "DEADLINE",
};

const char *sched_job_state_name(enum sched_job_state st)
{
	return (unsigned)st < sizeof(state_names) / sizeof(state_names[0]) ? state_names[st] : "?";
}

static const char *const reason_names[] = {
	"None",		    "Priority",	       "Resources",	   "Dependency",
	"DependencyNeverSatisfied", "BeginTime", "JobHeldUser",	   "JobHeldAdmin",
	"ReqNodeNotAvail",  "PartitionTimeLimit", "PartitionNodeLimit", "PartitionDown",
	"PartitionInactive", "BadConstraints", "JobArrayTaskLimit", "Reservation",
	"NodeFail",	    "Licenses",	       "DeadLine",	   "job requeued in held state",
};

const char *sched_reason_name(enum sched_reason r)
{
	if (r >= SCHED_REASON_LIMIT)
		return core_limit_reason_name((unsigned)(r - SCHED_REASON_LIMIT));
	return (unsigned)r < sizeof(reason_names) / sizeof(reason_names[0]) ? reason_names[r] : "?";
}

void sched_config_default(struct sched_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->w_age = 1000;
	cfg->w_fairshare = 10000;
	cfg->w_job_size = 1000;
	cfg->w_partition = 1000;
	cfg->w_qos = 2000;
	cfg->max_age = 7 * 86400;
	cfg->decay_half_life = 7 * 86400;
	cfg->bf_max_reservations = 100;
	cfg->bf_window = 7 * 86400;
	cfg->trace = true;
}

/* ---------------------------------------------------------------- create */

struct sched *sched_create(const struct sched_config *cfg, struct spur_error *err)
{
	struct sched *s = spur_calloc(1, sizeof(*s));

	if (!s) {
		spur_error_set(err, SPUR_ENOMEM, "sched: out of memory");
		return NULL;
	}
	if (cfg)
		s->cfg = *cfg;
	else
		sched_config_default(&s->cfg);
	sched_limits_none(&s->root_lim);
	s->parts = spur_calloc(SCHED_MAX_PARTS, sizeof(*s->parts));
	if (!s->parts) {
		spur_free(s);
		spur_error_set(err, SPUR_ENOMEM, "sched: out of memory");
		return NULL;
	}
	return s;
}

/* j's -C: its features, alternatives and counts freed (and zeroed). */
static void constraint_free(struct core_job *j)
{
	for (size_t i = 0; i < j->nfeatures; i++)
		spur_free(j->features[i]);
	spur_free(j->features);
	for (size_t i = 0; i < j->nalts; i++)
		spur_free(j->alts[i]);
	spur_free(j->alts);
	for (size_t i = 0; i < j->ncounts; i++)
		spur_free(j->counts[i].feat);
	spur_free(j->counts);
	j->features = j->alts = NULL;
	j->counts = NULL;
	j->nfeatures = j->nalts = j->ncounts = 0;
	j->match_sel = -1;
}

static void job_free(struct core_job *j)
{
	if (!j)
		return;
	spur_free(j->name);
	spur_free(j->user);
	constraint_free(j);
	spur_free(j->req_nodes);
	spur_free(j->excl_nodes);
	spur_dep_fini(&j->deps);
	spur_free(j->alloc);
	spur_free(j->ctres);
	spur_free(j->lic);
	spur_free(j);
}

/* The array's tasks all have records (or were purged): what stood for
 * the others goes. */
static void array_rest_free(struct core_array *a)
{
	job_free(a->meta);
	spur_free(a->task_ids);
	spur_free(a->made);
	a->meta = NULL;
	a->task_ids = NULL;
	a->made = NULL;
}
/* A reservation's strings and per-node arrays freed. */
static void resv_fini(struct core_resv *r)
{
	spur_free(r->name);
	spur_free(r->nodes);
	spur_free(r->gpus);
	spur_free(r->users);
	spur_free(r->accounts);
}


void sched_destroy(struct sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnodes; i++) {
		struct core_node *n = &s->nodes[i];

		spur_free(n->name);
		for (size_t k = 0; k < n->nfeatures; k++)
			spur_free(n->features[k]);
		spur_free(n->features);
		spur_free(n->jobs);
		spur_free(n->reason);
	}
	spur_free(s->nodes);
	for (size_t i = 0; i < s->ngpu_types; i++)
		spur_free(s->gpu_types[i]);
	spur_free(s->gpu_types);
	for (size_t i = 0; i < s->nswitches; i++)
		spur_free(s->switches[i].name);
	spur_free(s->switches);
	for (size_t i = 0; i < s->nparts; i++)
		spur_free(s->parts[i].name);
	spur_free(s->parts);
	for (size_t i = 0; i < s->nqos; i++)
		spur_free(s->qos[i].name);
	spur_free(s->qos);
	for (size_t i = 0; i < s->naccounts; i++)
		spur_free(s->accounts[i].name);
	spur_free(s->accounts);
	core_limits_free(s);
	for (size_t i = 0; i < s->nresvs; i++)
		resv_fini(&s->resvs[i]);
	spur_free(s->resvs);
	core_licenses_free_all(s);
	for (size_t i = 0; i < s->narrays; i++)
		array_rest_free(&s->arrays[i]);
	spur_free(s->arrays);
	for (size_t i = 0; i < s->njobs; i++)
		job_free(s->jobs[i]);
	spur_free(s->jobs);
	spur_free(s->id_slots);
	spur_free(s->pending.v);
	spur_free(s->running.v);
	for (size_t i = 0; i < s->nbuckets; i++)
		spur_free(s->buckets[i].v);
	spur_free(s->buckets);
	spur_free(s->weights);
	spur_free(s->cresv);
	spur_free(s->touched);
	spur_free(s->acts);
	for (size_t i = 0; i < s->nact_allocs; i++)
		spur_free(s->act_allocs[i]);
	spur_free(s->act_allocs);
	spur_free(s->trace);
	spur_free(s);
}

/* ---------------------------------------------------------------- helpers */

static int oom(struct spur_error *err)
{
	return spur_error_set(err, SPUR_ENOMEM, "sched: out of memory");
}

static int name_index(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

static int split_list(const char *s, char ***out, size_t *nout)
{
	size_t cap = 0;

	*out = NULL;
	*nout = 0;
	while (s && *s) {
		size_t len = strcspn(s, ",&");
		char *w;

		if (len) {
			if (spur_grow((void **)out, &cap, *nout + 1, sizeof(char *)) ||
			    !(w = spur_strndup(s, len)))
				goto out_free;
			(*out)[(*nout)++] = w;
		}
		s += len;
		if (*s)
			s++;
	}
	return 0;
out_free:
	for (size_t i = 0; i < *nout; i++)
		spur_free((*out)[i]);
	spur_free(*out);
	*out = NULL;
	*nout = 0;
	return SPUR_ENOMEM;
}

static int gpu_type_intern(struct sched *s, const char *type)
{
	int i = name_index(s->gpu_types, s->ngpu_types, type);
	char *copy;

	if (i >= 0)
		return i;
	if (spur_grow((void **)&s->gpu_types, &s->gpu_types_cap, s->ngpu_types + 1, sizeof(char *)) ||
	    !(copy = spur_strdup(type)))
		return SPUR_ENOMEM;
	s->gpu_types[s->ngpu_types] = copy;
	return (int)s->ngpu_types++;
}

static int switch_index(const struct sched *s, const char *name)
{
	for (size_t i = 0; i < s->nswitches; i++)
		if (!strcmp(s->switches[i].name, name))
			return (int)i;
	return -1;
}

static long node_index(const struct sched *s, const char *name)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].name, name))
			return (long)i;
	return -1;
}

/* ---------------------------------------------------------------- buckets */

static size_t bucket_of(const struct sched *s, const struct core_node *n)
{
	return ((size_t)(n->gpu_type + 1) * s->nweights + n->wrank) * (SCHED_MAX_GPUS + 1) +
	       (size_t)__builtin_popcount(core_node_free_mask(n));
}

/* Buckets stay sorted by node index, so equal candidates go lowest-numbered
 * first (as Slurm) whatever order nodes registered in. */
static void bucket_remove(struct sched *s, uint32_t ni)
{
	struct core_node *n = &s->nodes[ni];
	struct core_bucket *b;

	if (n->bucket < 0)
		return;
	b = &s->buckets[n->bucket];
	memmove(&b->v[n->bucket_pos], &b->v[n->bucket_pos + 1],
		(b->n - n->bucket_pos - 1) * sizeof(uint32_t));
	b->n--;
	for (size_t i = n->bucket_pos; i < b->n; i++)
		s->nodes[b->v[i]].bucket_pos = i;
	n->bucket = -1;
}

/* Keep node ni in the bucket of its free GPU count (or none when not UP).
 * Growth is reserved at sched_add_node, so this cannot fail. */
void core_node_rebucket(struct sched *s, uint32_t ni)
{
	struct core_node *n = &s->nodes[ni];
	struct core_bucket *b;
	size_t want, lo = 0, hi;

	if (n->state == NODE_UP && n->bucket >= 0 && (size_t)n->bucket == bucket_of(s, n))
		return;
	bucket_remove(s, ni);
	if (n->state != NODE_UP)
		return;
	want = bucket_of(s, n);
	b = &s->buckets[want];
	hi = b->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b->v[mid] < ni)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&b->v[lo + 1], &b->v[lo], (b->n - lo) * sizeof(uint32_t));
	b->v[lo] = ni;
	b->n++;
	for (size_t i = lo; i < b->n; i++)
		s->nodes[b->v[i]].bucket_pos = i;
	n->bucket = (int)want;
}

/* ---------------------------------------------------------------- resources */

/* Record a node weight among the distinct ones (sorted). */
static int add_weight(struct sched *s, uint32_t w)
{
	size_t i = 0;

	while (i < s->nweights && s->weights[i] < w)
		i++;
	if (i < s->nweights && s->weights[i] == w)
		return 0;
	if (spur_grow((void **)&s->weights, &s->weights_cap, s->nweights + 1, sizeof(uint32_t)))
		return SPUR_ENOMEM;
	memmove(&s->weights[i + 1], &s->weights[i], (s->nweights - i) * sizeof(uint32_t));
	s->weights[i] = w;
	s->nweights++;
	return 0;
}

/* Bucket indexes depend on the number of weights: place every node anew.
 * Set-up time only (sched_add_node). */
static void rebucket_all(struct sched *s)
{
	for (size_t b = 0; b < s->nbuckets; b++)
		s->buckets[b].n = 0;
	for (size_t i = 0; i < s->nnodes; i++) {
		struct core_node *n = &s->nodes[i];

		n->bucket = -1;
		for (n->wrank = 0; s->weights[n->wrank] != n->weight; n->wrank++)
			;
		core_node_rebucket(s, (uint32_t)i);
	}
}

uint32_t sched_link_weight(enum sched_link l)
{
	static const uint32_t w[] = { 0, 64, 100, 24, 12, 6 };

	return (unsigned)l < 6 ? w[l] : 1;
}

void sched_node_spec_preset(struct sched_node_spec *spec, enum sched_topo_preset p)
{
	static const char *const names[] = { NULL, "mi300x", "mi250", "nvlink-islands", "nvswitch",
					     "pcie-pairs" };
	const char *name = (unsigned)p < 6 ? names[p] : NULL;

	spec->preset = p;
	spec->ngpus = name ? 8 : 0;
	for (unsigned a = 0; a < SCHED_MAX_GPUS; a++)
		for (unsigned b = 0; b < SCHED_MAX_GPUS; b++)
			spec->links[a][b] = a == b ? SCHED_LINK_SELF
					    : name ? (enum sched_link)spur_topo_link(name, a, b)
						   : SCHED_LINK_SYS;
}

/* The link matrix and what follows from it: weights, best class, uniformity. */
static void node_set_links(struct core_node *n,
			   const enum sched_link links[SCHED_MAX_GPUS][SCHED_MAX_GPUS])
{
	n->uniform = true;
	n->best_link = SCHED_LINK_SYS;
	for (unsigned a = 0; a < n->ngpus; a++) {
		for (unsigned b = 0; b < n->ngpus; b++) {
			n->link[a][b] = (uint8_t)links[a][b];
			n->pair_w[a][b] = (uint16_t)sched_link_weight(links[a][b]);
			if (a != b && links[a][b] < n->best_link)
				n->best_link = (uint8_t)links[a][b];
			if (a != b && links[a][b] != links[0][1])
				n->uniform = false;
		}
	}
}

int sched_node_set_links(struct sched *s, const char *node,
			 const enum sched_link links[SCHED_MAX_GPUS][SCHED_MAX_GPUS], uint32_t ngpus,
			 struct spur_error *err)
{
	long ni = node_index(s, node);

	if (ni < 0)
		return spur_error_set(err, SPUR_ENOENT, "node %s is not defined", node);
	if (ngpus != s->nodes[ni].ngpus)
		return spur_error_set(err, SPUR_EINVAL, "node %s: %u GPUs reported, %u configured",
				      node, ngpus, s->nodes[ni].ngpus);
	for (unsigned a = 0; a < ngpus; a++)
		for (unsigned b = 0; b < ngpus; b++)
			if ((unsigned)links[a][b] > SCHED_LINK_SYS || (a == b) != (links[a][b] == SCHED_LINK_SELF))
				return spur_error_set(err, SPUR_EINVAL, "node %s: bad link %u-%u", node,
						      a, b);
	node_set_links(&s->nodes[ni], links);
	return 0;
}

int sched_add_node(struct sched *s, const struct sched_node_spec *spec, struct spur_error *err)
{
	struct core_node n = { 0 };
	size_t nb;

	if (!spec->name || !*spec->name)
		return spur_error_set(err, SPUR_EINVAL, "node: a name is required");
	if (node_index(s, spec->name) >= 0)
		return spur_error_set(err, SPUR_EEXIST, "node %s: defined twice", spec->name);
	if (spec->ngpus > SCHED_MAX_GPUS || (spec->ngpus && !spec->gpu_type))
		return spur_error_set(err, SPUR_EINVAL,
				      "node %s: %u GPUs (at most %d, and a GPU type is needed)",
				      spec->name, spec->ngpus, SCHED_MAX_GPUS);
	if (spec->shards && (!spec->ngpus || spec->shards % spec->ngpus))
		return spur_error_set(err, SPUR_EINVAL,
				      "node %s: shard:%u must split evenly over its %u GPUs",
				      spec->name, spec->shards, spec->ngpus);
	n.cpus = spec->cpus ? spec->cpus : 1;
	n.mem = spec->mem_mb;
	n.tmp = spec->tmp_mb;
	n.weight = spec->weight ? spec->weight : 1;
	n.ngpus = spec->ngpus;
	n.gpu_type = -1;
	n.leaf = -1;
	n.bucket = -1;
	n.resv_first = -1;
	n.shards_per_gpu = (uint16_t)(spec->ngpus ? spec->shards / spec->ngpus : 0);
	node_set_links(&n, spec->links);
	if (spec->gpu_type && (n.gpu_type = gpu_type_intern(s, spec->gpu_type)) < 0)
		return oom(err);
	if (spec->switch_name) {
		n.leaf = switch_index(s, spec->switch_name);
		if (n.leaf < 0) {
			if (sched_add_switch(s, spec->switch_name, NULL, err))
				return err ? err->code : SPUR_ENOMEM;
			n.leaf = (int)s->nswitches - 1;
		}
	}
	if (add_weight(s, n.weight))
		return oom(err);
	/* make room now so that re-bucketing never allocates */
	nb = (s->ngpu_types + 1) * s->nweights * (SCHED_MAX_GPUS + 1);
	if (nb > s->nbuckets) {
		void *p = spur_reallocarray(s->buckets, nb, sizeof(*s->buckets));

		if (!p)
			return oom(err);
		s->buckets = p;
		memset(&s->buckets[s->nbuckets], 0, (nb - s->nbuckets) * sizeof(*s->buckets));
		s->nbuckets = nb;
	}
	for (size_t b = 0; b < s->nbuckets; b++)
		if (spur_grow((void **)&s->buckets[b].v, &s->buckets[b].cap, s->nnodes + 1,
			      sizeof(uint32_t)))
			return oom(err);
	if (spur_grow((void **)&s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof(n)) ||
	    !(n.name = spur_strdup(spec->name)))
		return oom(err);
	if (split_list(spec->features, &n.features, &n.nfeatures)) {
		spur_free(n.name);
		return oom(err);
	}
	s->nodes[s->nnodes++] = n;
	s->total_gpus += n.ngpus;
	s->total_cpus += n.cpus;
	rebucket_all(s);
	return 0;
}

int sched_node_set_features(struct sched *s, const char *node, const char *features,
			    struct spur_error *err)
{
	long i = node_index(s, node);
	char **v;
	size_t n;

	if (i < 0)
		return spur_error_set(err, SPUR_ENOENT, "Invalid node name specified");
	if (split_list(features, &v, &n))
		return oom(err);
	for (size_t k = 0; k < s->nodes[i].nfeatures; k++)
		spur_free(s->nodes[i].features[k]);
	spur_free(s->nodes[i].features);
	s->nodes[i].features = v;
	s->nodes[i].nfeatures = n;
	return 0;
}

int sched_add_switch(struct sched *s, const char *name, const char *parent,
		     struct spur_error *err)
{
	struct core_switch sw = { NULL, -1 };

	if (switch_index(s, name) >= 0)
		return spur_error_set(err, SPUR_EEXIST, "switch %s: defined twice", name);
	if (parent && (sw.parent = switch_index(s, parent)) < 0)
		return spur_error_set(err, SPUR_ENOENT, "switch %s: parent %s is not defined", name,
				      parent);
	if (spur_grow((void **)&s->switches, &s->switches_cap, s->nswitches + 1, sizeof(sw)) ||
	    !(sw.name = spur_strdup(name)))
		return oom(err);
	s->switches[s->nswitches++] = sw;
	return 0;
}

/* Mark the nodes of a hostlist expression (or ALL) in `flags`. */
static int mark_nodes(struct sched *s, const char *expr, uint8_t *flags, struct spur_error *err)
{
	struct spur_hostlist *hl;

	if (!expr || !strcmp(expr, "ALL")) {
		memset(flags, 1, s->nnodes);
		return 0;
	}
	hl = spur_hostlist_from_expr(expr, err);
	if (!hl)
		return err ? err->code : SPUR_EPARSE;
	for (size_t i = 0; i < spur_hostlist_count(hl); i++) {
		long ni = node_index(s, spur_hostlist_nth(hl, i));

		if (ni < 0) {
			spur_error_set(err, SPUR_ENOENT, "node %s is not defined",
				       spur_hostlist_nth(hl, i));
			spur_hostlist_destroy(hl);
			return SPUR_ENOENT;
		}
		flags[ni] = 1;
	}
	spur_hostlist_destroy(hl);
	return 0;
}

int sched_add_partition(struct sched *s, const struct sched_part_spec *spec,
			struct spur_error *err)
{
	struct core_part *p;
	uint8_t *flags;
	int rc;

	size_t slot = s->nparts;
	char *name;

	for (size_t i = 0; i < s->nparts; i++) {
		if (strcmp(s->parts[i].name, spec->name))
			continue;
		if (!s->parts[i].deleted)
			return spur_error_set(err, SPUR_EEXIST, "partition %s: defined twice",
					      spec->name);
		slot = i; /* created again: its old slot */
	}
	if (slot == SCHED_MAX_PARTS)
		return spur_error_set(err, SPUR_ETOOBIG, "at most %d partitions", SCHED_MAX_PARTS);
	flags = spur_calloc(s->nnodes + 1, 1);
	if (!flags)
		return oom(err);
	rc = mark_nodes(s, spec->nodes, flags, err);
	if (rc) {
		spur_free(flags);
		return spur_error_wrap(err, "partition %s", spec->name);
	}
	if (!(name = spur_strdup(spec->name))) {
		spur_free(flags);
		return oom(err);
	}
	p = &s->parts[slot];
	spur_free(p->name); /* a deleted partition's, or none */
	memset(p, 0, sizeof(*p));
	p->name = name;
	if (spec->is_default)
		for (size_t i = 0; i < s->nparts; i++)
			s->parts[i].is_default = false;
	p->is_default = spec->is_default;
	p->max_time = spec->max_time ? spec->max_time : SCHED_INFINITE;
	p->default_time = spec->default_time ? spec->default_time : p->max_time;
	p->max_nodes = spec->max_nodes;
	p->tier = spec->priority_tier;
	p->job_factor = spec->priority_job_factor ? spec->priority_job_factor : 1;
	p->state = spec->state;
	p->preempt_requeue = spec->preempt_requeue;
	p->preempt_off = spec->preempt_off;
	p->exclusive_user = spec->exclusive_user;
	p->share_max = spec->share_max > SCHED_SHARE_MAX ? SCHED_SHARE_MAX : spec->share_max;
	p->share_force = spec->share_force && p->share_max > 1;
	for (size_t i = 0; i < s->nnodes; i++) {
		if (flags[i]) {
			s->nodes[i].parts |= UINT64_C(1) << slot;
			p->nnodes++;
		}
	}
	spur_free(flags);
	if (slot == s->nparts)
		s->nparts++;
	return 0;
}

int sched_delete_partition(struct sched *s, const char *name, struct spur_error *err)
{
	size_t p = 0;
	uint64_t bit;

	while (p < s->nparts && (s->parts[p].deleted || strcmp(s->parts[p].name, name)))
		p++;
	if (p == s->nparts)
		return spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
	bit = UINT64_C(1) << p;
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i] && (s->jobs[i]->parts & bit) &&
		    (s->jobs[i]->state == SCHED_JOB_PENDING || s->jobs[i]->state == SCHED_JOB_RUNNING))
			return spur_error_set(err, SPUR_ESTATE, "Partition is in use");
	for (size_t i = 0; i < s->nnodes; i++)
		s->nodes[i].parts &= ~bit;
	s->parts[p].deleted = true;
	s->parts[p].is_default = false;
	s->parts[p].state = SCHED_PART_INACTIVE;
	s->parts[p].nnodes = 0;
	return 0;
}

int sched_update_partition(struct sched *s, const char *name, const struct sched_part_update *u,
			   struct spur_error *err)
{
	struct core_part *p = NULL;

	for (size_t i = 0; i < s->nparts && !p; i++)
		if (!s->parts[i].deleted && !strcmp(s->parts[i].name, name))
			p = &s->parts[i];
	if (!p)
		return spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
	if (u->state > SCHED_PART_INACTIVE || (u->max_nodes > UINT32_MAX) || u->tier > 65533 ||
	    u->job_factor > 65533)
		return spur_error_set(err, SPUR_EINVAL, "partition %s: a state or size out of range",
				      name);
	bool tied = p->default_time == p->max_time; /* DefaultTime NONE: MaxTime's */
	uint64_t bit = UINT64_C(1) << (p - s->parts);

	if (u->nodes) {
		uint8_t *flags = spur_calloc(s->nnodes + 1, 1);

		if (!flags)
			return oom(err);
		if (mark_nodes(s, u->nodes, flags, err)) {
			spur_free(flags);
			return spur_error_wrap(err, "partition %s", name);
		}
		p->nnodes = 0;
		for (size_t i = 0; i < s->nnodes; i++) {
			s->nodes[i].parts = flags[i] ? s->nodes[i].parts | bit : s->nodes[i].parts & ~bit;
			p->nnodes += flags[i];
		}
		spur_free(flags);
	}

	if (u->state >= 0)
		p->state = (enum sched_part_state)u->state;
	if (u->max_time >= 0)
		p->max_time = u->max_time ? u->max_time : SCHED_INFINITE;
	if (u->max_time >= 0 && tied && u->default_time < 0)
		p->default_time = p->max_time;
	if (u->default_time >= 0)
		p->default_time = u->default_time ? u->default_time : p->max_time;
	if (u->max_nodes >= 0)
		p->max_nodes = (uint32_t)u->max_nodes;
	if (u->tier >= 0)
		p->tier = (uint16_t)u->tier;
	if (u->job_factor >= 0)
		p->job_factor = (uint16_t)(u->job_factor ? u->job_factor : 1);
	return 0;
}

static int qos_index(const struct sched *s, const char *name)
{
	for (size_t i = 0; i < s->nqos; i++)
		if (!strcmp(s->qos[i].name, name))
			return (int)i;
	return -1;
}

int sched_add_qos(struct sched *s, const struct sched_qos_spec *spec, struct spur_error *err)
{
	struct core_qos q = { 0 };
	char **names;
	size_t n;

	if (qos_index(s, spec->name) >= 0)
		return spur_error_set(err, SPUR_EEXIST, "qos %s: defined twice", spec->name);
	if (s->nqos == 64)
		return spur_error_set(err, SPUR_ETOOBIG, "at most 64 QoS");
	if (split_list(spec->preempt, &names, &n))
		return oom(err);
	for (size_t i = 0; i < n; i++) {
		int qi = qos_index(s, names[i]);

		if (qi < 0) {
			spur_error_set(err, SPUR_ENOENT, "qos %s: preempts unknown qos %s",
				       spec->name, names[i]);
			for (size_t k = 0; k < n; k++)
				spur_free(names[k]);
			spur_free(names);
			return SPUR_ENOENT;
		}
		q.preempts |= UINT64_C(1) << qi;
	}
	for (size_t k = 0; k < n; k++)
		spur_free(names[k]);
	spur_free(names);
	q.priority = spec->priority;
	q.usage_factor = 1.0;
	sched_limits_none(&q.lim);
	q.preempt_requeue = spec->preempt_requeue;
	if (spur_grow((void **)&s->qos, &s->qos_cap, s->nqos + 1, sizeof(q)) ||
	    !(q.name = spur_strdup(spec->name)))
		return oom(err);
	s->qos[s->nqos++] = q;
	return 0;
}

int sched_set_account_shares(struct sched *s, const char *account, uint32_t shares,
			     struct spur_error *err)
{
	int a = core_account_index(s, account, true);

	if (a < 0)
		return oom(err);
	s->accounts[a].shares = shares ? shares : 1;
	return 0;
}

/* A user named in Users=, or an account in Accounts= (either list, when
 * both are given); neither list: everyone. */
static bool in_comma_list(const char *list, const char *v)
{
	size_t vl = v ? strlen(v) : 0;

	for (const char *p = list; p && *p && vl;) {
		size_t l = strcspn(p, ",");

		if (l == vl && !strncmp(p, v, l))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static bool resv_admits(const struct core_resv *r, const char *user, const char *account)
{
	if (!r->users && !r->accounts)
		return true;
	return in_comma_list(r->users, user) || in_comma_list(r->accounts, account);
}

bool sched_node_reserved(const struct sched *s, uint32_t node, int64_t t0, int64_t t1)
{
	for (size_t r = 0; node < s->nnodes && r < s->nresvs; r++)
		if (s->resvs[r].nodes[node] && t0 < s->resvs[r].end && s->resvs[r].start < t1)
			return true;
	return false;
}

int sched_del_reservation(struct sched *s, const char *name, struct spur_error *err)
{
	size_t r = 0;

	while (r < s->nresvs && strcmp(s->resvs[r].name, name))
		r++;
	if (r == s->nresvs)
		return spur_error_set(err, SPUR_ENOENT, "Reservation %s not found", name);
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i] && s->jobs[i]->resv == (int)r &&
		    (s->jobs[i]->state == SCHED_JOB_PENDING || s->jobs[i]->state == SCHED_JOB_RUNNING))
			return spur_error_set(err, SPUR_ESTATE, "Reservation is in use (job %u)",
					      s->jobs[i]->id);
	resv_fini(&s->resvs[r]);
	memmove(&s->resvs[r], &s->resvs[r + 1], (s->nresvs - r - 1) * sizeof(s->resvs[0]));
	s->nresvs--;
	/* the jobs that named a later one: its index moved down */
	for (size_t i = 0; i < s->njobs; i++)
		if (s->jobs[i] && s->jobs[i]->resv == (int)r)
			s->jobs[i]->resv = -1;
		else if (s->jobs[i] && s->jobs[i]->resv > (int)r)
			s->jobs[i]->resv--;
	return 0;
}

/* A GPU reservation's "NODE:COUNT,..." into r's per-node GPUs and nodes
 * (a count past the node's GPUs refused). */
static int mark_gpus(struct sched *s, const char *spec, struct core_resv *r,
		     struct spur_error *err)
{
	if (!(r->gpus = spur_calloc(s->nnodes + 1, 1)))
		return oom(err);
	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		char name[256];
		long ni, k = colon ? strtol(colon + 1, NULL, 10) : 0;

		snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - p) : (int)len, p);
		ni = node_index(s, name);
		if (ni < 0)
			return spur_error_set(err, SPUR_ENOENT, "node %s is not defined", name);
		if (k <= 0 || k > (long)s->nodes[ni].ngpus)
			return spur_error_set(err, SPUR_ERANGE, "node %s has %u GPUs, not %ld", name,
					      s->nodes[ni].ngpus, k);
		r->gpus[ni] = (uint8_t)k;
		r->nodes[ni] = 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* A reservation of spec into r (its name aside). 0, or the error (r
 * left empty). */
static int resv_build(struct sched *s, const struct sched_resv_spec *spec, struct core_resv *r,
		      struct spur_error *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (!spec->name || spec->end <= spec->start)
		return spur_error_set(err, SPUR_EINVAL, "reservation: a name and end > start");
	r->nodes = spur_calloc(s->nnodes + 1, 1);
	if (!r->nodes)
		return oom(err);
	rc = spec->gpus ? mark_gpus(s, spec->gpus, r, err) : mark_nodes(s, spec->nodes, r->nodes, err);
	if (rc)
		goto fail;
	r->flex = spec->flex;
	r->start = spec->start;
	r->end = spec->end;
	r->users = spec->users ? spur_strdup(spec->users) : NULL;
	r->accounts = spec->accounts ? spur_strdup(spec->accounts) : NULL;
	if ((spec->users && !r->users) || (spec->accounts && !r->accounts)) {
		rc = oom(err);
		goto fail;
	}
	return 0;
fail:
	spur_free(r->nodes);
	spur_free(r->gpus);
	spur_free(r->users);
	spur_free(r->accounts);
	memset(r, 0, sizeof(*r));
	return rc;
}


int sched_add_reservation(struct sched *s, const struct sched_resv_spec *spec,
			  struct spur_error *err)
{
	struct core_resv r;
	int rc;

	for (size_t i = 0; spec->name && i < s->nresvs; i++)
		if (!strcmp(s->resvs[i].name, spec->name))
			return spur_error_set(err, SPUR_EEXIST, "reservation %s exists", spec->name);
	if ((rc = resv_build(s, spec, &r, err)))
		return spec->name ? spur_error_wrap(err, "reservation %s", spec->name) : rc;
	r.name = spur_strdup(spec->name);
	if (!r.name || spur_grow((void **)&s->resvs, &s->resvs_cap, s->nresvs + 1, sizeof(r))) {
		resv_fini(&r);
		return oom(err);
	}
	s->resvs[s->nresvs++] = r;
	return 0;
}

int sched_update_reservation(struct sched *s, const struct sched_resv_spec *spec,
			     struct spur_error *err)
{
	struct core_resv r;
	size_t i = 0;
	int rc;

	while (spec->name && i < s->nresvs && strcmp(s->resvs[i].name, spec->name))
		i++;
	if (!spec->name || i == s->nresvs)
		return spur_error_set(err, SPUR_ENOENT, "Requested reservation is invalid");
	if ((rc = resv_build(s, spec, &r, err)))
		return spur_error_wrap(err, "reservation %s", spec->name);
	r.name = s->resvs[i].name; /* kept; the rest replaced */
	s->resvs[i].name = NULL;
	resv_fini(&s->resvs[i]);
	s->resvs[i] = r;
	return 0;
}

/* ---------------------------------------------------------------- output */

int core_emit(struct sched *s, struct sched_action a)
{
	if (a.nalloc) {
		struct sched_alloc_node *copy = spur_malloc(a.nalloc * sizeof(*copy));

		if (!copy || spur_grow((void **)&s->act_allocs, &s->act_allocs_cap,
				       s->nact_allocs + 1, sizeof(*s->act_allocs))) {
			spur_free(copy);
			return SPUR_ENOMEM;
		}
		memcpy(copy, a.alloc, a.nalloc * sizeof(*copy));
		s->act_allocs[s->nact_allocs++] = copy;
		a.alloc = copy;
	}
	if (spur_grow((void **)&s->acts, &s->acts_cap, s->nacts + 1, sizeof(a)))
		return SPUR_ENOMEM;
	s->acts[s->nacts++] = a;
	return 0;
}

void core_trace(struct sched *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, m;

	if (!s->cfg.trace)
		return;
	n = snprintf(line, sizeof(line), "[%6" PRId64 "] ", s->now);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = m < 0 ? n : (n + m >= (int)sizeof(line) - 1 ? (int)sizeof(line) - 2 : n + m);
	line[n++] = '\n';
	line[n] = '\0';
	if (spur_grow((void **)&s->trace, &s->trace_cap, s->trace_len + (size_t)n + 1, 1))
		return; /* the trace is best effort */
	memcpy(s->trace + s->trace_len, line, (size_t)n + 1);
	s->trace_len += (size_t)n;
}

const char *sched_trace(const struct sched *s)
{
	return s->trace ? s->trace : "";
}

void sched_trace_clear(struct sched *s)
{
	s->trace_len = 0;
	if (s->trace)
		s->trace[0] = '\0';
}

char *core_alloc_names(const struct sched *s, const struct sched_alloc_node *a, size_t n)
{
	struct spur_hostlist *hl = spur_hostlist_create();
	char *r = NULL;

	if (!hl)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (spur_hostlist_push(hl, s->nodes[a[i].node].name, NULL))
			goto out;
	r = spur_hostlist_ranged(hl, NULL);
out:
	spur_hostlist_destroy(hl);
	return r;
}

/* ---------------------------------------------------------------- jobs */

static int ptr_vec_push(struct ptr_vec *v, void *p, size_t *pos)
{
	if (spur_grow((void **)&v->v, &v->cap, v->n + 1, sizeof(void *)))
		return SPUR_ENOMEM;
	*pos = v->n;
	v->v[v->n++] = p;
	return 0;
}

static void ptr_vec_remove(struct ptr_vec *v, size_t pos)
{
	struct core_job *last = v->v[--v->n];

	v->v[pos] = last;
	last->list_pos = pos;
}

static uint64_t hash_id(uint32_t id)
{
	uint64_t h = id * UINT64_C(0x9E3779B97F4A7C15);

	return h ^ (h >> 29);
}

struct core_job *core_job_find(const struct sched *s, uint32_t id)
{
	if (!s->id_cap)
		return NULL;
	for (size_t i = hash_id(id) & (s->id_cap - 1);; i = (i + 1) & (s->id_cap - 1)) {
		uint32_t v = s->id_slots[i];

		if (!v)
			return NULL;
		if (s->jobs[v - 1]->id == id)
			return s->jobs[v - 1];
	}
}

static void id_insert(uint32_t *slots, size_t cap, uint32_t id, uint32_t value)
{
	size_t i = hash_id(id) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = value;
}

/* Room for `more` jobs in the job table and the id index. */
static int jobs_reserve(struct sched *s, size_t more)
{
	size_t need = s->njobs + more;

	if (spur_grow((void **)&s->jobs, &s->jobs_cap, need, sizeof(*s->jobs)))
		return SPUR_ENOMEM;
	if (need * 2 > s->id_cap) {
		size_t cap = s->id_cap ? s->id_cap : 1024;
		uint32_t *slots;

		while (need * 2 > cap)
			cap *= 2;
		slots = spur_calloc(cap, sizeof(uint32_t));
		if (!slots)
			return SPUR_ENOMEM;
		for (size_t i = 0; i < s->njobs; i++)
			id_insert(slots, cap, s->jobs[i]->id, (uint32_t)i + 1);
		spur_free(s->id_slots);
		s->id_slots = slots;
		s->id_cap = cap;
	}
	return 0;
}

/* The array whose task with no record of its own has this job id, or -1. */
static int array_of_virtual(const struct sched *s, uint32_t id)
{
	if (!s->nvirtual)
		return -1;
	for (size_t i = s->narrays; i-- > 0;) {
		const struct core_array *a = &s->arrays[i];

		if (a->nvirtual && id >= a->array_job_id && id - a->array_job_id < a->ntasks)
			return core_array_made(a, id - a->array_job_id) ? -1 : (int)i;
	}
	return -1;
}

const struct core_job *core_job_view(const struct sched *s, uint32_t id)
{
	const struct core_job *j = core_job_find(s, id);
	int a;

	if (j)
		return j;
	a = array_of_virtual(s, id);
	return a < 0 ? NULL : s->arrays[a].meta;
}

static void *mem_dup(const void *p, size_t n)
{
	void *q = spur_malloc(n);

	if (q)
		memcpy(q, p, n);
	return q;
}

/* A copy of job t, in no list and with no allocation; NULL when out of
 * memory. */
static struct core_job *job_clone(const struct core_job *t)
{
	struct core_job *j = spur_malloc(sizeof(*j));

	if (!j)
		return NULL;
	*j = *t;
	j->features = NULL;
	j->nfeatures = 0;
	j->alts = NULL;
	j->nalts = 0;
	j->counts = NULL;
	j->ncounts = 0;
	j->req_nodes = j->excl_nodes = NULL;
	j->deps = (struct spur_dep_list){ 0 };
	j->alloc = NULL;
	j->nalloc = 0;
	j->ctres = NULL;
	j->lic = NULL;
	j->name = spur_strdup(t->name);
	j->user = spur_strdup(t->user);
	if (!j->name || !j->user)
		goto fail;
	if (t->nfeatures) {
		if (!(j->features = spur_calloc(t->nfeatures, sizeof(char *))))
			goto fail;
		for (; j->nfeatures < t->nfeatures; j->nfeatures++)
			if (!(j->features[j->nfeatures] = spur_strdup(t->features[j->nfeatures])))
				goto fail;
	}
	if (t->nalts) {
		if (!(j->alts = spur_calloc(t->nalts, sizeof(char *))))
			goto fail;
		for (; j->nalts < t->nalts; j->nalts++)
			if (!(j->alts[j->nalts] = spur_strdup(t->alts[j->nalts])))
				goto fail;
	}
	if (t->ncounts) {
		if (!(j->counts = spur_calloc(t->ncounts, sizeof(*j->counts))))
			goto fail;
		for (; j->ncounts < t->ncounts; j->ncounts++) {
			j->counts[j->ncounts].n = t->counts[j->ncounts].n;
			if (!(j->counts[j->ncounts].feat = spur_strdup(t->counts[j->ncounts].feat)))
				goto fail;
		}
	}
	if ((t->nreq && !(j->req_nodes = mem_dup(t->req_nodes, t->nreq * sizeof(uint32_t)))) ||
	    (t->nexcl && !(j->excl_nodes = mem_dup(t->excl_nodes, t->nexcl * sizeof(uint32_t)))))
		goto fail;
	if (t->deps.n) {
		if (!(j->deps.deps = mem_dup(t->deps.deps, t->deps.n * sizeof(*t->deps.deps))))
			goto fail;
		j->deps.n = t->deps.n;
	}
	if (t->nlic && !(j->lic = mem_dup(t->lic, t->nlic * sizeof(*t->lic))))
		goto fail;
	return j;
fail:
	job_free(j);
	return NULL;
}

/* Task k of array a gets its record, as the meta record is now: pending
 * outside the pending list (deferred: the window lets it in), or ended as
 * the rest of the array was. NULL, and nothing changed, when out of memory. */
static struct core_job *array_make(struct sched *s, int a, uint32_t k)
{
	struct core_array *ar = &s->arrays[a];
	struct core_job *j;

	if (jobs_reserve(s, 1) ||
	    spur_grow((void **)&s->pending.v, &s->pending.cap, s->njobs + 1, sizeof(void *)) ||
	    spur_grow((void **)&s->running.v, &s->running.cap, s->njobs + 1, sizeof(void *)) ||
	    !(j = job_clone(ar->meta)))
		return NULL;
	j->id = ar->array_job_id + k;
	j->task_id = (int32_t)ar->task_ids[k];
	j->array = a;
	j->deferred = j->state == SCHED_JOB_PENDING;
	j->index = (uint32_t)s->njobs;
	s->jobs[s->njobs] = j;
	id_insert(s->id_slots, s->id_cap, j->id, (uint32_t)s->njobs + 1);
	s->njobs++;
	ar->made[k / 8] |= (uint8_t)(1u << (k % 8));
	s->nvirtual--;
	if (!--ar->nvirtual)
		array_rest_free(ar);
	return j;
}

/* The job an event names: its record, made now for an array task that
 * had none. */
static struct core_job *core_job_get(struct sched *s, uint32_t id)
{
	struct core_job *j = core_job_find(s, id);
	int a;

	if (j || (a = array_of_virtual(s, id)) < 0)
		return j;
	return array_make(s, a, id - s->arrays[a].array_job_id);
}

/* A task of array a left the window: the next one comes in (its record
 * made now when it has none). Out of memory, it comes in at a later turn. */
static void array_promote(struct sched *s, int a)
{
	struct core_array *ar = &s->arrays[a];

	while (ar->next < ar->ntasks) {
		uint32_t k = ar->next;
		struct core_job *t;

		if (core_array_made(ar, k)) {
			t = core_job_find(s, ar->array_job_id + k);
		} else if (ar->meta->state != SCHED_JOB_PENDING) {
			t = NULL; /* the rest was cancelled: only tasks with records come in */
		} else if (!(t = array_make(s, a, k))) {
			return;
		}
		ar->next++;
		if (t && t->deferred) {
			t->deferred = false;
			if (t->state == SCHED_JOB_PENDING) {
				ptr_vec_push(&s->pending, t, &t->list_pos);
				return;
			}
		}
	}
}

void core_job_set_state(struct sched *s, struct core_job *j, enum sched_job_state st)
{
	bool was_pending = j->state == SCHED_JOB_PENDING && !j->deferred;
	bool was_running = j->state == SCHED_JOB_RUNNING;
	bool was_active = j->state == SCHED_JOB_PENDING || was_running;
	bool active = st == SCHED_JOB_PENDING || st == SCHED_JOB_RUNNING;
	bool moved = was_active != active || was_running != (st == SCHED_JOB_RUNNING);

	/* what the limits count: out as it was, in as it is now */
	if (was_active && moved)
		core_limits_charge(s, j, -1);

	if (j->deferred && st == SCHED_JOB_PENDING)
		return; /* still waiting its turn in its array */
	if (j->deferred && st != SCHED_JOB_PENDING)
		j->deferred = false; /* started (replayed), cancelled: out of the array's queue */
	if (was_pending && st != SCHED_JOB_PENDING) {
		ptr_vec_remove(&s->pending, j->list_pos);
		if (j->array >= 0)
			array_promote(s, j->array);
	}
	if (was_running && st != SCHED_JOB_RUNNING) {
		ptr_vec_remove(&s->running, j->list_pos);
		if (j->array >= 0)
			s->arrays[j->array].running--;
	}
	j->state = st;
	/* the lists were reserved for every job at submit: these cannot fail */
	if (st == SCHED_JOB_PENDING && !was_pending)
		ptr_vec_push(&s->pending, j, &j->list_pos);
	if (st == SCHED_JOB_RUNNING && !was_running) {
		ptr_vec_push(&s->running, j, &j->list_pos);
		if (j->array >= 0)
			s->arrays[j->array].running++;
	}
	if (active && moved)
		core_limits_charge(s, j, 1);
}

/* Give back a running job's resources and charge its usage. */
void core_job_release(struct sched *s, struct core_job *j)
{
	for (size_t i = 0; i < j->nalloc; i++) {
		const struct sched_alloc_node *a = &j->alloc[i];
		struct core_node *n = &s->nodes[a->node];

		core_node_cpus_charge(n, j, a->cpus, -1);
		n->mem_used -= a->mem_mb;
		n->gpu_used &= (uint16_t)~a->gpu_mask;
		if (a->shards)
			n->shard_used[a->shard_gpu] -= a->shards;
		if (j->exclusive)
			n->excl_jobs--;
		if (j->excl_user && n->user_excl && !--n->user_excl)
			n->user_excl_name = NULL;
		for (size_t k = 0; k < n->njobs; k++) {
			if (s->jobs[n->jobs[k]] == j) {
				n->jobs[k] = n->jobs[--n->njobs];
				break;
			}
		}
		core_node_rebucket(s, a->node);
	}
	if (j->nalloc)
		core_licenses_take(s, j, -1);
	j->nalloc = 0;
	j->suspended = false;
}

/* The partition mask of a comma list (NULL: the default partition). */
static int resolve_parts(struct sched *s, const char *list, uint64_t *mask, struct spur_error *err)
{
	char **names;
	size_t n;
	int rc = 0;

	*mask = 0;
	if (!list || !*list) {
		for (size_t i = 0; i < s->nparts; i++)
			if (s->parts[i].is_default)
				*mask = UINT64_C(1) << i;
		for (size_t i = 0; i < s->nparts && !*mask; i++)
			if (!s->parts[i].deleted)
				*mask = UINT64_C(1) << i;
		return *mask ? 0 : spur_error_set(err, SPUR_ENOENT, "no partition is defined");
	}
	if (split_list(list, &names, &n))
		return oom(err);
	for (size_t i = 0; i < n && !rc; i++) {
		size_t p;

		for (p = 0; p < s->nparts && (s->parts[p].deleted || strcmp(s->parts[p].name, names[i]));
		     p++)
			;
		if (p == s->nparts)
			rc = spur_error_set(err, SPUR_ENOENT, "invalid partition name specified: %s",
					    names[i]);
		else
			*mask |= UINT64_C(1) << p;
	}
	for (size_t i = 0; i < n; i++)
		spur_free(names[i]);
	spur_free(names);
	if (!rc && !*mask)
		rc = spur_error_set(err, SPUR_EINVAL, "empty partition list");
	return rc;
}

static int node_list(struct sched *s, const char *expr, uint32_t **out, size_t *n,
		     struct spur_error *err)
{
	uint8_t *flags;
	int rc;

	*out = NULL;
	*n = 0;
	if (!expr || !*expr)
		return 0;
	flags = spur_calloc(s->nnodes + 1, 1);
	if (!flags)
		return oom(err);
	rc = mark_nodes(s, expr, flags, err);
	if (!rc) {
		size_t c = 0;

		for (size_t i = 0; i < s->nnodes; i++)
			c += flags[i];
		*out = spur_malloc((c + 1) * sizeof(uint32_t));
		if (!*out)
			rc = oom(err);
		for (size_t i = 0; *out && i < s->nnodes; i++)
			if (flags[i])
				(*out)[(*n)++] = (uint32_t)i;
	}
	spur_free(flags);
	return rc;
}

/* Does some node of the cluster have each feature the job names, each
 * alternative of "a|b" too (Slurm's "Invalid feature specification" when
 * not)? */
/* Is w one of -C's items Spur takes: a name, "a|b", "[a|b|c]" or "f*N"? */
static bool constraint_item_ok(const char *w)
{
	size_t len = strlen(w);
	const char *star = strchr(w, '*');
	char *end;

	if (!len)
		return false;
	if (w[0] == '(') /* (a|b): a group of alternatives alone */
		return len > 2 && w[len - 1] == ')' && !strpbrk(w + 1, "([]*") &&
		       strchr(w + 1, ')') == w + len - 1;
	if (strpbrk(w, "()"))
		return false;
	if (w[0] == '[') /* alternatives alone inside */
		return len > 2 && w[len - 1] == ']' && !strpbrk(w + 1, "[*") &&
		       strchr(w + 1, ']') == w + len - 1 && w[1] != '|' && w[len - 2] != '|' &&
		       !strstr(w, "||");
	if (strpbrk(w, "[]"))
		return false;
	if (star)
		return star != w && !strchr(w, '|') && strtol(star + 1, &end, 10) > 0 && !*end &&
		       strtol(star + 1, NULL, 10) <= 100000;
	return true;
}

/* "a|b|c" into *out (its strings, *n of them). 0 or SPUR_ENOMEM. */
static int split_or(const char *s, char ***out, size_t *n)
{
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, "|");
		char **v = spur_reallocarray(*out, *n + 1, sizeof(char *));

		if (!v)
			return SPUR_ENOMEM;
		*out = v;
		if (!(v[*n] = spur_strndup(p, len)))
			return SPUR_ENOMEM;
		++*n;
		p += len + (p[len] == '|');
	}
	return 0;
}

/* -C's forms past plain AND/OR lists, taken out of j->features: one
 * "[a|b|c]" (matching OR: j->alts) and "f*N" items (j->counts; the job
 * gets at least their sum of nodes). 0, SPUR_EINVAL (said), SPUR_ENOMEM
 * (what was moved is j's still: job_free frees it). */
static int constraint_forms(struct core_job *j, struct spur_error *err)
{
	size_t keep = 0, brackets = 0;
	uint32_t sum = 0;

	for (size_t f = 0; f < j->nfeatures; f++) {
		if (!constraint_item_ok(j->features[f]))
			return spur_error_set(err, SPUR_EINVAL, "Invalid feature specification");
		brackets += j->features[f][0] == '[';
	}
	if (brackets > 1) /* one matching OR (more: Slurm's matching AND) */
		return spur_error_set(err, SPUR_EINVAL, "Invalid feature specification");
	for (size_t f = 0; f < j->nfeatures; f++) {
		char *w = j->features[f], *star = strchr(w, '*');

		if (w[0] == '(') { /* (a|b) is a|b */
			size_t len = strlen(w);

			memmove(w, w + 1, len - 2);
			w[len - 2] = '\0';
		} else if (w[0] == '[') {
			w[strlen(w) - 1] = '\0';
			if (split_or(w + 1, &j->alts, &j->nalts))
				return oom(err);
			spur_free(w);
			j->features[f] = NULL;
		} else if (star) {
			struct core_feat_count *c =
				spur_reallocarray(j->counts, j->ncounts + 1, sizeof(*c));

			if (!c)
				return oom(err);
			j->counts = c;
			*star = '\0';
			c[j->ncounts++] = (struct core_feat_count){ w, (uint32_t)atol(star + 1) };
			sum += (uint32_t)atol(star + 1);
			j->features[f] = NULL;
		}
	}
	for (size_t f = 0; f < j->nfeatures; f++)
		if (j->features[f])
			j->features[keep++] = j->features[f];
	j->nfeatures = keep;
	if (sum > j->nodes)
		j->nodes = sum;
	return 0;
}

static bool feature_somewhere(const struct sched *s, const char *f)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (core_node_has_feature(&s->nodes[i], f))
			return true;
	return false;
}

static bool features_known(const struct sched *s, const struct core_job *j)
{
	for (size_t a = 0; a < j->nalts; a++)
		if (!feature_somewhere(s, j->alts[a]))
			return false;
	for (size_t c = 0; c < j->ncounts; c++)
		if (!feature_somewhere(s, j->counts[c].feat))
			return false;
	for (size_t f = 0; f < j->nfeatures; f++) {
		for (const char *p = j->features[f]; *p;) {
			size_t len = strcspn(p, "|"), i = 0;
			char one[256];

			snprintf(one, sizeof(one), "%.*s", (int)len, p);
			while (i < s->nnodes && !core_node_has_feature(&s->nodes[i], one))
				i++;
			if (i == s->nnodes || !len)
				return false;
			p += len + (p[len] == '|');
		}
	}
	return true;
}

/* Could any node of the job's partitions ever hold it? */
static bool job_satisfiable(const struct sched *s, const struct core_job *j)
{
	for (size_t n = 0; n < s->nnodes; n++)
		if (core_node_static_ok(s, j, (uint32_t)n, j->parts))
			return true;
	return false;
}
/* Slurm's line before "Requested node configuration is not available" when
 * no node of the job's partitions has its CPUs, memory or disk per node. */
static const char *unsatisfiable_detail(const struct sched *s, const struct core_job *j)
{
	uint64_t cpus = core_job_cpus_per_node(j), mem = core_job_mem_per_node(j);
	bool cpus_ok = false, mem_ok = false, tmp_ok = false;

	for (size_t i = 0; i < s->nnodes; i++) {
		const struct core_node *n = &s->nodes[i];

		if (!(n->parts & j->parts))
			continue;
		cpus_ok |= n->cpus >= cpus;
		mem_ok |= !mem || n->mem >= mem;
		tmp_ok |= !j->tmp || n->tmp >= j->tmp;
	}
	return !cpus_ok	  ? "\tCPU count per node can not be satisfied"
	       : !mem_ok ? "\tMemory specification can not be satisfied"
	       : !tmp_ok ? "\tTemporary disk specification can not be satisfied"
			 : NULL;
}

/* With no node count given, a job of more tasks (times CPUs per task) than
 * the largest node of its partitions holds spreads over just enough of
 * them, as Slurm's -n alone does; else the count it has. */
static uint32_t nodes_for_tasks(const struct sched *s, const struct core_job *j)
{
	uint64_t need = (uint64_t)j->ntasks * j->cpus_per_task, most = 0;
	uint32_t n;

	for (size_t i = 0; i < s->nnodes; i++)
		if ((s->nodes[i].parts & j->parts) && s->nodes[i].cpus > most)
			most = s->nodes[i].cpus;
	if (!most || need <= most * j->nodes)
		return j->nodes;
	n = (uint32_t)((need + most - 1) / most);
	/* one task at least per node, and whole tasks on each */
	while (n < j->ntasks && ((j->ntasks + n - 1) / n) * (uint64_t)j->cpus_per_task > most)
		n++;
	return n > j->ntasks ? j->ntasks : n;
}


static struct core_job *job_from_spec(struct sched *s, const struct sched_job_spec *sp, bool live,
				      int64_t now, struct spur_error *err)
{
	struct core_job *j = spur_calloc(1, sizeof(*j));
	int rc = 0;

	if (!j) {
		oom(err);
		return NULL;
	}
	j->id = sp->id;
	j->array = -1;
	j->task_id = -1;
	j->part = -1;
	j->resv = -1;
	j->gpu_type = -1;
	j->qos = -1;
	j->uassoc = j->quser = -1;
	j->state = SCHED_JOB_COMPLETED; /* not in a list until queued */
	j->name = spur_strdup(sp->name ? sp->name : "");
	j->user = spur_strdup(sp->user ? sp->user : "");
	j->account = core_account_index(s, sp->account, true);
	if (!j->name || !j->user || j->account < 0)
		goto out_oom;
	if (resolve_parts(s, sp->partitions, &j->parts, err))
		goto out_free;
	j->excl_user = sp->exclusive_user;
	for (size_t p = 0; p < s->nparts; p++)
		j->excl_user |= (j->parts >> p & 1) && s->parts[p].exclusive_user;
	if (sp->qos && *sp->qos && (j->qos = qos_index(s, sp->qos)) < 0) {
		spur_error_set(err, SPUR_ENOENT, "invalid qos specification: %s", sp->qos);
		goto out_free;
	}
	j->nodes = sp->nodes ? sp->nodes : 1;
	j->ntasks = sp->ntasks ? sp->ntasks : j->nodes;
	if (j->ntasks < j->nodes) {
		spur_error_set(err, SPUR_EINVAL, "%u tasks cannot cover %u nodes", j->ntasks,
			       j->nodes);
		goto out_free;
	}
	j->cpus_per_task = sp->cpus_per_task ? sp->cpus_per_task : 1;
	j->mem = sp->mem_per_node_mb;
	j->mem_per_cpu = sp->mem_per_cpu_mb;
	j->mem_per_gpu = sp->mem_per_gpu_mb;
	j->cpus_per_gpu = sp->cpus_per_gpu;
	j->min_cpus = sp->min_cpus;
	j->prio_fixed = sp->priority;
	j->prio = sp->priority;
	j->tmp = sp->tmp_mb;
	j->time_min = sp->time_min;
	j->deadline = sp->deadline;
	j->gpt = sp->gpus_per_task;
	j->gpn = sp->gpus_per_node;
	j->gpu_total = sp->gpus;
	j->spn = sp->shards_per_node;
	if (sp->gpu_type && *sp->gpu_type) {
		j->gpu_type = name_index(s->gpu_types, s->ngpu_types, sp->gpu_type);
		if (j->gpu_type < 0) {
			spur_error_set(err, SPUR_EINVAL,
				       "Requested node configuration is not available (no node has "
				       "GPUs of type %s)",
				       sp->gpu_type);
			goto out_free;
		}
	}
	if (j->spn && core_job_gpus_per_node(j)) {
		spur_error_set(err, SPUR_EINVAL, "a job asks for shards or whole GPUs, not both");
		goto out_free;
	}
	j->time_limit = sp->time_limit;
	if (j->deadline && j->deadline <= now) {
		spur_error_set(err, SPUR_EINVAL,
			       "Requested time limit is invalid (missing or exceeds some limit)");
		goto out_free;
	}
	if ((j->time_min && j->time_limit && j->time_min > j->time_limit) ||
	    (j->time_min && j->deadline && now + j->time_min > j->deadline)) {
		spur_error_set(err, SPUR_EINVAL,
			       "Invalid time-min specification (exceeds job's time or other limits)");
		goto out_free;
	}
	j->exclusive = sp->exclusive;
	j->hold_user = sp->hold;
	j->requeue = sp->requeue;
	j->begin = sp->begin;
	j->nice = sp->nice;
	j->kill_invalid_dep = sp->kill_invalid_dep;
	j->overcommit = sp->overcommit;
	j->contiguous = sp->contiguous;
	j->want_share = sp->oversubscribe;
	j->share = 1;
	j->submit = sp->submit_time ? sp->submit_time : now;
	j->eligible = j->begin > j->submit ? j->begin : j->submit;
	j->match_sel = -1;
	if (split_list(sp->constraint, &j->features, &j->nfeatures))
		goto out_oom;
	if (constraint_forms(j, err))
		goto out_free;
	if ((rc = node_list(s, sp->nodelist, &j->req_nodes, &j->nreq, err)) ||
	    (rc = node_list(s, sp->exclude, &j->excl_nodes, &j->nexcl, err))) {
		if (rc == SPUR_ENOENT) /* Slurm's words */
			spur_error_set(err, SPUR_ENOENT, "Invalid node name specified");
		goto out_free;
	}
	if (j->nreq > j->nodes)
		j->nodes = (uint32_t)j->nreq;
	/* no -N: as many nodes as the tasks need on the partitions' largest */
	if (!sp->nodes && !sp->gpus_per_node && !sp->gpus)
		j->nodes = nodes_for_tasks(s, j);
	for (size_t c = 0, sum = 0; c < j->ncounts; c++) /* -C f*N: their nodes at least */
		if ((sum += j->counts[c].n) > j->nodes)
			j->nodes = (uint32_t)sum;
	if (sp->dependency && *sp->dependency) {
		if (spur_dep_parse(sp->dependency, &j->deps, err) ||
		    core_deps_check_targets(s, &j->deps, err))
			goto out_free;
	}
	if (core_licenses_parse(s, sp->licenses, j, err))
		goto out_free;
	if (sp->reservation && *sp->reservation) {
		for (size_t r = 0; r < s->nresvs; r++)
			if (!strcmp(s->resvs[r].name, sp->reservation))
				j->resv = (int)r;
		if (j->resv < 0) {
			spur_error_set(err, SPUR_ENOENT, "Requested reservation is invalid: %s",
				       sp->reservation);
			goto out_free;
		}
		if (!resv_admits(&s->resvs[j->resv], sp->user, sp->account)) {
			spur_error_set(err, SPUR_EPERM, "Access denied to requested reservation (%s)",
				       sp->reservation);
			goto out_free;
		}
	}
	/* live only: a replayed job keeps features the nodes have since lost */
	if (live && !features_known(s, j)) {
		spur_error_set(err, SPUR_EINVAL, "Invalid feature specification");
		goto out_free;
	}
	if (!job_satisfiable(s, j)) {
		const char *detail = unsatisfiable_detail(s, j);

		if (detail)
			spur_error_set(err, SPUR_EINVAL, "Requested node configuration is not available%s",
				       detail);
		else
			spur_error_set(err, SPUR_EINVAL,
				       "Requested node configuration is not available (no node of the "
				       "partition can ever hold job %u)",
				       j->id);
		goto out_free;
	}
	return j;
out_oom:
	oom(err);
out_free:
	job_free(j);
	return NULL;
}

int sched_will_run(struct sched *s, const struct sched_job_spec *sp, uint32_t *nodes,
		   struct sched_will_run *out, struct spur_error *err)
{
	struct spur_error mine = { 0 };
	struct core_job *j;
	int rc;

	if (!err) /* nullable, as every call's */
		err = &mine;
	j = job_from_spec(s, sp, true, s->now, err);
	memset(out, 0, sizeof(*out));
	out->partition = -1;
	if (!j)
		return err->code;

	rc = core_will_run(s, j, &out->start, &out->partition, nodes, &out->count);
	if (rc == SPUR_EINVAL)
		spur_error_set(err, rc, "Requested node configuration is not available (%s)",
			       sched_reason_name(j->reason ? j->reason : SCHED_REASON_PART_NODE_LIMIT));
	else if (rc)
		spur_error_set(err, rc, "out of memory");
	out->cpus = (uint32_t)out->count * core_job_cpus_per_node(j);
	job_free(j);
	return rc;
}

/* The task ids' least, greatest and even step (SLURM_ARRAY_TASK_*). */
static void array_span(struct core_array *a, const uint32_t *ids, size_t n)
{
	bool even = true;

	a->task_min = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		a->task_min = ids[i] < a->task_min ? ids[i] : a->task_min;
		a->task_max = ids[i] > a->task_max ? ids[i] : a->task_max;
		if (i && ids[i] <= ids[i - 1])
			even = false;
		else if (i > 1)
			even &= ids[i] - ids[i - 1] == ids[1] - ids[0];
	}
	a->task_step = !even ? 0 : n > 1 ? ids[1] - ids[0] : 1;
}

/* An array's table entry, with its meta record: what its tasks beyond the
 * window are until each gets a record. On success it takes arr's ids and,
 * when some task has no record, *meta. */
static int array_add(struct sched *s, const struct sched_job_spec *sp, struct core_job **meta,
		     struct spur_array_spec *arr, struct spur_error *err)
{
	struct core_array *a;
	uint32_t window = (uint32_t)(arr->n < CORE_ARRAY_WINDOW ? arr->n : CORE_ARRAY_WINDOW);

	if (spur_grow((void **)&s->arrays, &s->arrays_cap, s->narrays + 1, sizeof(*s->arrays)))
		return oom(err);
	a = &s->arrays[s->narrays];
	*a = (struct core_array){ .array_job_id = sp->id, .throttle = arr->throttle,
				  .ntasks = (uint32_t)arr->n, .next = window,
				  .nvirtual = (uint32_t)arr->n - window };
	array_span(a, arr->ids, arr->n);
	if (a->nvirtual) {
		a->made = spur_calloc((arr->n + 7) / 8, 1);
		if (!a->made)
			return oom(err);
		for (uint32_t k = 0; k < window; k++)
			a->made[k / 8] |= (uint8_t)(1u << (k % 8));
		a->task_ids = arr->ids;
		arr->ids = NULL;
		a->meta = *meta;
		*meta = NULL;
		a->meta->id = sp->id;
		a->meta->state = SCHED_JOB_PENDING;
		a->meta->reason = SCHED_REASON_PRIORITY;
		a->meta->array = (int)s->narrays;
		s->nvirtual += a->nvirtual;
	}
	s->narrays++;
	return 0;
}

/* Build every record first (a job's, or the tasks' in an array's window),
 * then reserve the tables, then insert (which cannot fail): a failed
 * submit leaves the scheduler as it was. */
static int submit(struct sched *s, const struct sched_event *ev, struct spur_error *err)
{
	const struct sched_job_spec *sp = ev->job;
	struct spur_array_spec arr = { 0 };
	struct core_job **tasks = NULL, *meta = NULL;
	size_t ntasks = 1, nmade, built = 0;
	int rc = 0;

	if (!sp || !sp->id)
		return spur_error_set(err, SPUR_EINVAL, "submit: a job with an id is required");
	if (sp->array && *sp->array) {
		if (spur_array_parse(sp->array, SPUR_ARRAY_MAX_ID, &arr, err))
			return err ? err->code : SPUR_EPARSE;
		ntasks = arr.n;
	}
	nmade = ntasks < CORE_ARRAY_WINDOW ? ntasks : CORE_ARRAY_WINDOW;
	for (size_t t = 0; t < ntasks; t++) {
		if (core_job_view(s, sp->id + (uint32_t)t)) {
			spur_array_fini(&arr);
			return spur_error_set(err, SPUR_EEXIST, "job %u already exists",
					      sp->id + (uint32_t)t);
		}
	}
	if (!(meta = job_from_spec(s, sp, ev->enforce, ev->time, err))) {
		rc = err ? err->code : SPUR_ENOMEM;
		goto out_free_arr;
	}
	if ((rc = core_limits_bind(s, meta, ev->enforce, (uint32_t)ntasks, err)))
		goto out_free_tasks;
	tasks = spur_calloc(nmade, sizeof(*tasks));
	if (!tasks) {
		rc = oom(err);
		goto out_free_tasks;
	}
	for (built = 0; built < nmade; built++) {
		struct core_job *j = job_clone(meta);

		if (!j) {
			rc = oom(err);
			goto out_free_tasks;
		}
		j->id = sp->id + (uint32_t)built;
		j->task_id = arr.n ? (int32_t)arr.ids[built] : -1;
		j->array = arr.n ? (int)s->narrays : -1;
		tasks[built] = j;
	}
	if (jobs_reserve(s, nmade) ||
	    spur_grow((void **)&s->pending.v, &s->pending.cap, s->njobs + nmade, sizeof(void *)) ||
	    spur_grow((void **)&s->running.v, &s->running.cap, s->njobs + nmade, sizeof(void *)) ||
	    (arr.n && array_add(s, sp, &meta, &arr, err))) {
		rc = oom(err);
		goto out_free_tasks;
	}
	for (size_t t = 0; t < nmade; t++) {
		struct core_job *j = tasks[t];

		j->index = (uint32_t)s->njobs;
		s->jobs[s->njobs] = j;
		id_insert(s->id_slots, s->id_cap, j->id, (uint32_t)s->njobs + 1);
		s->njobs++;
		core_job_set_state(s, j, SCHED_JOB_PENDING);
	}
	if (ntasks > 1 || arr.n)
		core_trace(s, "job %u submitted: array of %zu tasks (%u-%u)%s", sp->id, ntasks,
			   sp->id, sp->id + (uint32_t)ntasks - 1, arr.throttle ? " throttled" : "");
	else
		core_trace(s, "job %u submitted", sp->id);
	job_free(meta);
	spur_free(tasks);
	spur_array_fini(&arr);
	return 0;
out_free_tasks:
	while (built-- > 0)
		job_free(tasks[built]);
	spur_free(tasks);
	job_free(meta);
out_free_arr:
	spur_array_fini(&arr);
	return rc;
}

static int finish(struct sched *s, const struct sched_event *ev, struct core_job *j,
		  struct spur_error *err)
{
	enum sched_job_state st;

	if (j->state != SCHED_JOB_RUNNING)
		return spur_error_set(err, SPUR_ESTATE, "job %u is %s, not RUNNING", j->id,
				      sched_job_state_name(j->state));
	st = ev->timed_out ? SCHED_JOB_TIMEOUT
	     : ev->oom	     ? SCHED_JOB_OUT_OF_MEMORY
	     : ev->exit_code ? SCHED_JOB_FAILED
			     : SCHED_JOB_COMPLETED;
	core_fairshare_update(s, ev->time);
	core_job_release(s, j);
	j->exit_code = ev->exit_code;
	j->end = ev->time;
	core_job_set_state(s, j, st);
	core_trace(s, "job %u %s (exit %d)", j->id, sched_job_state_name(st), ev->exit_code);
	return 0;
}

static int cancel(struct sched *s, const struct sched_event *ev, struct core_job *j,
		  struct spur_error *err)
{
	if (j->state != SCHED_JOB_PENDING && j->state != SCHED_JOB_RUNNING)
		return spur_error_set(err, SPUR_ESTATE,
				      "Job/step already completing or completed (job %u is %s)",
				      j->id, sched_job_state_name(j->state));
	if (j->state == SCHED_JOB_RUNNING) {
		core_fairshare_update(s, s->now);
		core_job_release(s, j);
	} else {
		/* as Slurm: a pending job cancelled keeps no pending reason (a
		 * hold among them) */
		j->hold_user = j->hold_admin = false;
		j->reason = SCHED_REASON_NONE;
	}
	j->end = s->now;
	if (ev->bad_constraints && j->state == SCHED_JOB_PENDING) {
		/* srun/salloc --immediate that could not start at once, as Slurm */
		j->reason = SCHED_REASON_BAD_CONSTRAINTS;
		j->exit_code = 1;
		core_job_set_state(s, j, SCHED_JOB_FAILED);
		core_trace(s, "job %u failed: it could not start at once", j->id);
		return 0;
	}
	core_job_set_state(s, j, SCHED_JOB_CANCELLED);
	core_trace(s, "job %u cancelled", j->id);
	return 0;
}

/* The meta record of array id's pending tasks that have no record: what
 * a hold, release or update of the whole array changes for them. */
static struct core_job *rest_meta(struct sched *s, uint32_t id, struct spur_error *err)
{
	for (size_t i = 0; i < s->narrays; i++) {
		struct core_array *a = &s->arrays[i];

		if (a->array_job_id != id)
			continue;
		if (!a->nvirtual || a->meta->state != SCHED_JOB_PENDING)
			break;
		return a->meta;
	}
	spur_error_set(err, SPUR_ESTATE, "Job/step already completing or completed (array %u)", id);
	return NULL;
}

/* scancel of a whole array: its tasks with no record are cancelled as one,
 * as Slurm cancels a pending meta record (the tasks with records are
 * cancelled one by one). A cancel needs no cycle. */
static int cancel_rest(struct sched *s, const struct sched_event *ev, struct spur_error *err)
{
	struct core_job *meta = rest_meta(s, ev->job_id, err);
	struct core_array *a;

	if (!meta)
		return err->code;
	a = &s->arrays[meta->array];
	a->meta->hold_user = a->meta->hold_admin = false;
	a->meta->reason = SCHED_REASON_NONE;
	a->meta->end = ev->time;
	a->meta->state = SCHED_JOB_CANCELLED;
	core_trace(s, "array %u: %u tasks with no record cancelled", ev->job_id, a->nvirtual);
	return 0;
}

/* scontrol update of a pending job: its time limit and nice value. */
/* What an update asks, resolved before anything of the job changes. */
struct job_change {
	uint64_t parts;
	int account, qos;
	struct spur_dep_list deps;
	struct core_job fc; /* its -C alone (features, alternatives, counts) */
};

static int resolve_change(struct sched *s, const struct sched_event *ev, struct job_change *ch,
			  struct spur_error *err)
{
	memset(ch, 0, sizeof(*ch));
	ch->account = ch->qos = -1;
	if (ev->partitions && resolve_parts(s, ev->partitions, &ch->parts, err))
		return err->code;
	if (ev->account && (ch->account = core_account_index(s, ev->account, true)) < 0)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if (ev->qos && *ev->qos && (ch->qos = qos_index(s, ev->qos)) < 0)
		return spur_error_set(err, SPUR_ENOENT, "invalid qos specification: %s", ev->qos);
	if (ev->dependency && *ev->dependency &&
	    (spur_dep_parse(ev->dependency, &ch->deps, err) ||
	     core_deps_check_targets(s, &ch->deps, err))) {
		spur_dep_fini(&ch->deps);
		return err->code;
	}
	ch->fc.match_sel = -1;
	if (ev->constraint) {
		int rc = split_list(ev->constraint, &ch->fc.features, &ch->fc.nfeatures)
				 ? spur_error_set(err, SPUR_ENOMEM, "out of memory")
				 : constraint_forms(&ch->fc, err);

		if (rc) {
			spur_dep_fini(&ch->deps);
			constraint_free(&ch->fc);
			return rc;
		}
	}
	return 0;
}

/* scontrol update Gres= of a pending job: its GPUs (of a type) or shards
 * per node, kept only when some node of its partitions could hold them. */
static int update_gres(struct sched *s, const struct sched_event *ev, struct core_job *j,
		       struct spur_error *err)
{
	uint32_t gpn = j->gpn, spn = j->spn, gt = j->gpu_total, gpt = j->gpt;
	int type = j->gpu_type, nt = -1;

	if (ev->gpus_per_node && ev->shards_per_node)
		return spur_error_set(err, SPUR_EINVAL, "a job asks for shards or whole GPUs, not both");
	if (ev->gpu_type && *ev->gpu_type &&
	    (nt = name_index(s->gpu_types, s->ngpu_types, ev->gpu_type)) < 0)
		return spur_error_set(err, SPUR_EINVAL,
				      "Invalid generic resource (gres) specification (no node has "
				      "GPUs of type %s)",
				      ev->gpu_type);
	j->gpn = ev->gpus_per_node;
	j->spn = ev->shards_per_node;
	j->gpu_total = j->gpt = 0;
	j->gpu_type = nt;
	if (!job_satisfiable(s, j)) {
		j->gpn = gpn, j->spn = spn, j->gpu_total = gt, j->gpt = gpt, j->gpu_type = type;
		return spur_error_set(err, SPUR_EINVAL, "Requested node configuration is not available");
	}
	return 0;
}

/* scontrol update of a pending job: its time limit, nice value,
 * partition, account, QOS, dependency, features and node count (of a
 * running one: its time limit). All of it or, when one part is refused,
 * none. */
static int update(struct sched *s, const struct sched_event *ev, struct core_job *j,
		  struct spur_error *err)
{
	struct job_change ch;

	/* a running job: only its time limit (as Slurm's scontrol update
	 * TimeLimit), and its end with it */
	if (j->state == SCHED_JOB_RUNNING && ev->time_limit > 0 && !ev->set_nice &&
	    !ev->partitions && !ev->account && !ev->qos && !ev->dependency && !ev->constraint &&
	    !ev->nodes) {
		j->time_limit = ev->time_limit;
		j->end = ev->time_limit >= SCHED_INFINITE - j->start ? SCHED_INFINITE
								     : j->start + ev->time_limit;
		return 0;
	}
	if (j->state != SCHED_JOB_PENDING)
		return spur_error_set(err, SPUR_ESTATE, "Job is no longer pending execution");
	if (resolve_change(s, ev, &ch, err))
		return err->code;
	if (ev->set_gres && update_gres(s, ev, j, err)) { /* the last that may refuse */
		spur_dep_fini(&ch.deps);
		constraint_free(&ch.fc);
		return err->code;
	}
	if (ev->time_limit >= 0)
		j->time_limit = ev->time_limit;
	if (ev->set_nice)
		j->nice = ev->nice;
	if (ev->set_priority) {
		j->prio_fixed = ev->priority;
		j->prio = core_job_priority(s, j, s->now);
	}
	if (ev->partitions)
		j->parts = ch.parts;
	if (ev->account || ev->qos) {
		/* the job counts under its new association and QOS */
		core_limits_charge(s, j, -1);
		if (ev->account)
			j->account = ch.account;
		if (ev->qos)
			j->qos = ch.qos;
		core_limits_bind(s, j, false, 1, NULL);
		core_limits_charge(s, j, 1);
	}
	if (ev->dependency) {
		spur_dep_fini(&j->deps);
		j->deps = ch.deps; /* "" leaves it empty */
	}
	if (ev->constraint) {
		constraint_free(j);
		j->features = ch.fc.features;
		j->nfeatures = ch.fc.nfeatures;
		j->alts = ch.fc.alts;
		j->nalts = ch.fc.nalts;
		j->counts = ch.fc.counts;
		j->ncounts = ch.fc.ncounts;
	}
	if (ev->nodes)
		j->nodes = ev->nodes;
	if (ch.fc.nodes > j->nodes) /* -C f*N: their sum of nodes at least */
		j->nodes = ch.fc.nodes;
	if (j->ntasks < j->nodes)
		j->ntasks = j->nodes;
	core_trace(s, "job %u updated", j->id);
	return 0;
}

/* scontrol suspend / resume: a running job stops where it is, keeping
 * its resources, and goes on later with its end moved by the time it
 * stood still (Slurm's words for the wrong state). */
static int suspend(struct sched *s, struct core_job *j, bool stop, struct spur_error *err)
{
	if (j->state == SCHED_JOB_PENDING)
		return spur_error_set(err, SPUR_ESTATE, "Job is pending execution");
	if (j->state != SCHED_JOB_RUNNING)
		return spur_error_set(err, SPUR_ESTATE, "Job/step already completing or completed");
	if (stop == j->suspended)
		return spur_error_set(err, SPUR_ESTATE, stop ? "Job already suspended"
							      : "Job is not suspended");
	if (stop) {
		j->pre_suspend = s->now - j->start - j->susp_secs;
		j->remaining = j->end == SCHED_INFINITE ? SCHED_INFINITE : j->end - s->now;
		j->end = SCHED_INFINITE;
	} else {
		j->susp_secs += s->now - j->suspend_at;
		j->end = j->remaining == SCHED_INFINITE ? SCHED_INFINITE : s->now + j->remaining;
	}
	j->suspended = stop;
	j->suspend_at = s->now;
	core_trace(s, "job %u %s", j->id, stop ? "suspended" : "resumed");
	return 0;
}

/* scontrol requeue: a running or ended job is pending again. */
static int requeue(struct sched *s, const struct sched_event *ev, struct core_job *j,
		   struct spur_error *err)
{
	if (j->state == SCHED_JOB_PENDING)
		return spur_error_set(err, SPUR_ESTATE, "Job is pending execution (job %u)", j->id);
	if (!j->requeue)
		return spur_error_set(err, SPUR_EPERM, "Requested operation is presently disabled");
	if (j->state == SCHED_JOB_RUNNING) {
		core_fairshare_update(s, s->now);
		core_job_release(s, j);
	}
	j->start = 0;
	j->end = 0;
	j->exit_code = 0;
	if (ev->admin) {
		j->hold_admin = true;
		j->requeue_held = ev->requeue_held;
	}
	core_job_set_state(s, j, SCHED_JOB_PENDING);
	core_trace(s, "job %u requeued", j->id);
	return 0;
}

/* The replay of a stop the driver logged (preemption, node or GPU failure):
 * the same state as when the core stopped the job itself. */
static int stopped(struct sched *s, const struct sched_event *ev, struct core_job *j,
		   struct spur_error *err)
{
	if (j->state != SCHED_JOB_RUNNING)
		return spur_error_set(err, SPUR_ESTATE, "job %u is %s, not RUNNING", j->id,
				      sched_job_state_name(j->state));
	if (ev->stop_state != SCHED_JOB_PENDING && ev->stop_state != SCHED_JOB_PREEMPTED &&
	    ev->stop_state != SCHED_JOB_NODE_FAIL)
		return spur_error_set(err, SPUR_EINVAL, "job %u: a stop cannot end in %s", j->id,
				      sched_job_state_name(ev->stop_state));
	core_fairshare_update(s, s->now);
	core_job_release(s, j);
	if (ev->stop_state == SCHED_JOB_PENDING) {
		j->start = 0;
		j->reason = ev->stop_reason;
	} else {
		j->end = s->now;
	}
	core_job_set_state(s, j, ev->stop_state);
	core_trace(s, "job %u stopped: %s", j->id, sched_job_state_name(ev->stop_state));
	return 0;
}

/* Jobs on a failed node (or using a failed GPU) requeue or fail. */
static int evict_jobs(struct sched *s, uint32_t ni, uint16_t gpu_mask, struct spur_error *err)
{
	struct core_node *n = &s->nodes[ni];

	for (size_t k = n->njobs; k-- > 0;) {
		struct core_job *j = s->jobs[n->jobs[k]];
		bool hit = gpu_mask == 0xffff;

		for (size_t a = 0; a < j->nalloc && !hit; a++)
			if (j->alloc[a].node == ni &&
			    ((j->alloc[a].gpu_mask & gpu_mask) ||
			     (j->alloc[a].shards && ((1u << j->alloc[a].shard_gpu) & gpu_mask))))
				hit = true;
		if (!hit)
			continue;
		core_fairshare_update(s, s->now);
		core_job_release(s, j);
		if (core_emit(s, (struct sched_action){ .type = j->requeue ? SCHED_ACT_REQUEUE
									  : SCHED_ACT_FAIL,
							 .job_id = j->id,
							 .reason = SCHED_REASON_NODE_FAIL_REQUEUED }))
			return oom(err);
		if (j->requeue) {
			j->start = 0;
			j->reason = SCHED_REASON_NODE_FAIL_REQUEUED;
			core_job_set_state(s, j, SCHED_JOB_PENDING);
			core_trace(s, "job %u requeued: node %s failed", j->id, n->name);
		} else {
			j->end = s->now;
			core_job_set_state(s, j, SCHED_JOB_NODE_FAIL);
			core_trace(s, "job %u NODE_FAIL on %s", j->id, n->name);
		}
		if (k > n->njobs)
			k = n->njobs;
	}
	return 0;
}

static int node_event(struct sched *s, const struct sched_event *ev, struct spur_error *err)
{
	long ni = ev->node ? node_index(s, ev->node) : -1;
	struct core_node *n;

	if (ni < 0)
		return spur_error_set(err, SPUR_ENOENT, "node %s is not defined",
				      ev->node ? ev->node : "(null)");
	n = &s->nodes[ni];
	switch (ev->type) {
	case SCHED_EV_NODE_UP:
		n->state = NODE_UP;
		n->gpu_failed = 0;
		core_trace(s, "node %s up", n->name);
		break;
	case SCHED_EV_NODE_DRAIN:
		n->state = NODE_DRAIN;
		core_trace(s, "node %s drain: %s", n->name, ev->reason ? ev->reason : "");
		break;
	case SCHED_EV_NODE_DOWN:
		n->state = NODE_DOWN;
		core_trace(s, "node %s down: %s", n->name, ev->reason ? ev->reason : "");
		if (evict_jobs(s, (uint32_t)ni, 0xffff, err))
			return SPUR_ENOMEM;
		break;
	default: /* GPU_FAIL */
		if (ev->gpu >= n->ngpus)
			return spur_error_set(err, SPUR_EINVAL, "node %s has no GPU %u", n->name,
					      ev->gpu);
		n->gpu_failed |= (uint16_t)(1u << ev->gpu);
		n->state = NODE_DRAIN;
		core_trace(s, "node %s gpu %u failed: drain", n->name, ev->gpu);
		if (evict_jobs(s, (uint32_t)ni, (uint16_t)(1u << ev->gpu), err))
			return SPUR_ENOMEM;
		break;
	}
	core_node_rebucket(s, (uint32_t)ni);
	return 0;
}

/* A recorded start: take the allocation as given, after checking it fits. */
static int started(struct sched *s, const struct sched_event *ev, struct core_job *j,
		   struct spur_error *err)
{
	struct sched_alloc_node *al;
	int part = 0;

	if (j->state != SCHED_JOB_PENDING)
		return spur_error_set(err, SPUR_ESTATE, "job %u is %s, not PENDING", j->id,
				      sched_job_state_name(j->state));
	if (ev->nalloc != j->nodes)
		return spur_error_set(err, SPUR_EINVAL, "job %u: %zu nodes given, %u needed", j->id,
				      ev->nalloc, j->nodes);
	for (size_t p = 0; p < s->nparts; p++)
		if (j->parts >> p & 1) {
			part = (int)p;
			break;
		}
	j->share = core_job_share(s, j, part); /* OverSubscribe there (a pending job's own) */
	for (size_t i = 0; i < ev->nalloc; i++) {
		const struct sched_alloc_node *a = &ev->alloc[i];
		const struct core_node *n;

		if (a->node >= s->nnodes)
			return spur_error_set(err, SPUR_ENOENT, "job %u: no node %u", j->id, a->node);
		n = &s->nodes[a->node];
		if (!core_node_cpus_fit(n, a->cpus, j->share, 0) ||
		    (a->gpu_mask & (n->gpu_used | n->gpu_failed)) ||
		    (a->shards && a->shard_gpu >= n->ngpus))
			return spur_error_set(err, SPUR_ESTATE, "job %u: node %s cannot hold it",
					      j->id, n->name);
	}
	al = spur_malloc(ev->nalloc * sizeof(*al));
	if (!al)
		return oom(err);
	memcpy(al, ev->alloc, ev->nalloc * sizeof(*al));
	return core_commit_start(s, j, part, al, ev->end ? ev->end : SCHED_INFINITE, false, false)
		       ? oom(err)
		       : 0;
}

int sched_step(struct sched *s, const struct sched_event *ev, struct sched_actions *out,
	       struct spur_error *err)
{
	struct core_job *j = NULL;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	if (ev->time < s->now)
		return spur_error_set(err, SPUR_EINVAL, "event time %" PRId64 " is before %" PRId64,
				      ev->time, s->now);
	for (size_t i = 0; i < s->nact_allocs; i++)
		spur_free(s->act_allocs[i]);
	s->nact_allocs = 0;
	s->nacts = 0;
	s->now = ev->time;
	if (ev->type == SCHED_EV_CANCEL || ev->type == SCHED_EV_FINISH ||
	    ev->type == SCHED_EV_HOLD || ev->type == SCHED_EV_RELEASE ||
	    ev->type == SCHED_EV_STARTED || ev->type == SCHED_EV_REQUEUE ||
	    ev->type == SCHED_EV_UPDATE || ev->type == SCHED_EV_STOPPED ||
	    ev->type == SCHED_EV_SUSPEND || ev->type == SCHED_EV_RESUME) {
		if (ev->type == SCHED_EV_CANCEL && ev->array_rest)
			return cancel_rest(s, ev, err);
		if (ev->array_rest && ev->type != SCHED_EV_HOLD && ev->type != SCHED_EV_RELEASE &&
		    ev->type != SCHED_EV_UPDATE)
			return spur_error_set(err, SPUR_EINVAL, "an array's rest takes no such event");
		j = ev->array_rest ? rest_meta(s, ev->job_id, err) : core_job_get(s, ev->job_id);
		if (!j && ev->array_rest)
			return err->code;
		if (!j)
			return spur_error_set(err, array_of_virtual(s, ev->job_id) < 0 ? SPUR_ENOENT
											: SPUR_ENOMEM,
					      "Invalid job id specified: %u", ev->job_id);
	}
	switch (ev->type) {
	case SCHED_EV_TICK:
		break;
	case SCHED_EV_SUBMIT:
		rc = submit(s, ev, err);
		break;
	case SCHED_EV_CANCEL:
		rc = cancel(s, ev, j, err);
		break;
	case SCHED_EV_REQUEUE:
		rc = requeue(s, ev, j, err);
		break;
	case SCHED_EV_SUSPEND:
	case SCHED_EV_RESUME:
		rc = suspend(s, j, ev->type == SCHED_EV_SUSPEND, err);
		break;
	case SCHED_EV_UPDATE:
		rc = update(s, ev, j, err);
		break;
	case SCHED_EV_FINISH:
		rc = finish(s, ev, j, err);
		break;
	case SCHED_EV_STOPPED:
		rc = stopped(s, ev, j, err);
		break;
	case SCHED_EV_HOLD:
	case SCHED_EV_RELEASE:
		if (j->state != SCHED_JOB_PENDING)
			return spur_error_set(err, SPUR_ESTATE, "job %u is not pending", j->id);
		if (ev->type == SCHED_EV_HOLD) {
			*(ev->admin ? &j->hold_admin : &j->hold_user) = true;
			if (ev->admin && ev->requeue_held)
				j->requeue_held = ev->requeue_held;
			core_trace(s, "job %u held", j->id);
		} else {
			j->hold_user = false;
			if (ev->admin) {
				j->hold_admin = false;
				j->requeue_held = 0;
			}
			core_trace(s, "job %u released", j->id);
		}
		break;
	case SCHED_EV_STARTED:
		rc = started(s, ev, j, err);
		if (!rc) {
			out->v = s->acts;
			out->n = s->nacts;
			return 0; /* replay: the cycle runs after the whole log */
		}
		break;
	default:
		rc = node_event(s, ev, err);
		break;
	}
	if (rc)
		return rc;
	if (ev->defer_cycle) {
		out->v = s->acts;
		out->n = s->nacts;
		return 0;
	}
	rc = core_cycle(s, ev->time);
	if (rc)
		return spur_error_set(err, rc, "scheduling cycle: %s", spur_strerror(rc));
	out->v = s->acts;
	out->n = s->nacts;
	return 0;
}

/* ---------------------------------------------------------------- purge */

/* Linear probing: take id out and shift later entries of its run back. */
static void id_remove(struct sched *s, uint32_t id)
{
	size_t mask = s->id_cap - 1, i = hash_id(id) & mask;

	while (s->id_slots[i] && s->jobs[s->id_slots[i] - 1]->id != id)
		i = (i + 1) & mask;
	if (!s->id_slots[i])
		return;
	s->id_slots[i] = 0;
	for (size_t j = (i + 1) & mask; s->id_slots[j]; j = (j + 1) & mask) {
		size_t home = hash_id(s->jobs[s->id_slots[j] - 1]->id) & mask;

		/* the entry at j may move to the hole at i unless its home lies
		 * cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		s->id_slots[i] = s->id_slots[j];
		s->id_slots[j] = 0;
		i = j;
	}
}

static void id_renumber(struct sched *s, uint32_t id, uint32_t value)
{
	size_t mask = s->id_cap - 1, i = hash_id(id) & mask;

	while (s->jobs[s->id_slots[i] - 1]->id != id)
		i = (i + 1) & mask;
	s->id_slots[i] = value;
}

/* Purge of a task with no record: of an array whose rest ended. */
static int purge_rest(struct sched *s, uint32_t job_id, struct spur_error *err)
{
	int a = array_of_virtual(s, job_id);
	struct core_array *ar;
	uint32_t k;

	if (a < 0)
		return spur_error_set(err, SPUR_ENOENT, "job %u: unknown", job_id);
	ar = &s->arrays[a];
	if (ar->meta->state == SCHED_JOB_PENDING)
		return spur_error_set(err, SPUR_ESTATE, "job %u: not ended (PENDING)", job_id);
	k = job_id - ar->array_job_id;
	ar->made[k / 8] |= (uint8_t)(1u << (k % 8));
	s->nvirtual--;
	if (!--ar->nvirtual)
		array_rest_free(ar);
	return 0;
}

int sched_job_purge(struct sched *s, uint32_t job_id, struct spur_error *err)
{
	struct core_job *j = core_job_find(s, job_id), *last;
	uint32_t idx;

	if (!j)
		return purge_rest(s, job_id, err);
	if (j->state == SCHED_JOB_PENDING || j->state == SCHED_JOB_RUNNING)
		return spur_error_set(err, SPUR_ESTATE, "job %u: not ended (%s)", job_id,
				      sched_job_state_name(j->state));
	idx = j->index;
	id_remove(s, job_id);
	last = s->jobs[--s->njobs];
	if (last != j) {
		/* the last job takes the hole: its id and its nodes follow */
		id_renumber(s, last->id, idx + 1);
		for (size_t a = 0; a < last->nalloc; a++) {
			struct core_node *n = &s->nodes[last->alloc[a].node];

			for (size_t k = 0; k < n->njobs; k++)
				if (n->jobs[k] == last->index)
					n->jobs[k] = idx;
		}
		last->index = idx;
		s->jobs[idx] = last;
	}
	job_free(j);
	return 0;
}

/* ---------------------------------------------------------------- queries */

static void job_info(const struct sched *s, const struct core_job *j, struct sched_job_info *out)
{
	memset(out, 0, sizeof(*out));
	out->id = j->id;
	out->array_job_id = j->array >= 0 ? s->arrays[j->array].array_job_id : 0;
	out->array_task_id = j->task_id;
	out->state = j->state;
	out->reason = j->reason;
	/* a held job's priority is 0, as Slurm shows it */
	out->priority = j->state == SCHED_JOB_PENDING && (j->hold_user || j->hold_admin) ? 0 : j->prio;
	out->special_exit = j->state == SCHED_JOB_PENDING && j->requeue_held == 2;
	out->nodes = j->nodes;
	out->time_limit = j->time_limit;
	out->suspended = j->suspended;
	out->suspend_time = j->suspend_at;
	out->suspended_secs = j->susp_secs;
	out->pre_suspend = j->pre_suspend;
	out->submit_time = j->submit;
	out->start_time = j->start;
	out->end_time = j->end;
	out->est_start = j->est_start;
	/* waiting for its --begin: that is when it can start, as Slurm shows it */
	if (j->state == SCHED_JOB_PENDING && !j->est_start && j->reason == SCHED_REASON_BEGIN_TIME)
		out->est_start = j->begin;
	out->partition = j->part >= 0 ? (uint32_t)j->part : 0;
	out->alloc = j->alloc;
	out->nalloc = j->nalloc;
	out->share = j->share > 1 ? j->share : 1;
}

int sched_job_info(const struct sched *s, uint32_t job_id, struct sched_job_info *out)
{
	const struct core_job *j = core_job_find(s, job_id);
	int a;

	if (j) {
		job_info(s, j, out);
		return 0;
	}
	if ((a = array_of_virtual(s, job_id)) < 0)
		return SPUR_ENOENT;
	job_info(s, s->arrays[a].meta, out);
	out->id = job_id;
	out->array_task_id = (int32_t)s->arrays[a].task_ids[job_id - s->arrays[a].array_job_id];
	out->rest = true;
	return 0;
}

int sched_array_rest_nth(const struct sched *s, size_t n, struct sched_job_info *meta,
			 uint32_t *count)
{
	for (size_t i = 0; i < s->narrays; i++) {
		if (!s->arrays[i].nvirtual || n--)
			continue;
		job_info(s, s->arrays[i].meta, meta);
		meta->array_task_id = -1;
		meta->rest = true;
		*count = s->arrays[i].nvirtual;
		return 0;
	}
	return SPUR_ENOENT;
}

static const struct core_array *array_by_id(const struct sched *s, uint32_t array_job_id)
{
	for (size_t i = s->narrays; i-- > 0;)
		if (s->arrays[i].array_job_id == array_job_id)
			return &s->arrays[i];
	return NULL;
}

bool sched_array_rest_task(const struct sched *s, uint32_t array_job_id, uint32_t k,
			   uint32_t *job_id, uint32_t *task_id)
{
	const struct core_array *a = array_by_id(s, array_job_id);

	if (!a || !a->nvirtual || k >= a->ntasks || core_array_made(a, k))
		return false;
	*job_id = array_job_id + k;
	*task_id = a->task_ids[k];
	return true;
}

size_t sched_array_rest_ids(const struct sched *s, uint32_t array_job_id, uint32_t *from,
			    uint32_t *job_ids, uint32_t *task_ids, size_t max)
{
	const struct core_array *a = array_by_id(s, array_job_id);
	size_t n = 0;
	uint32_t k = *from;

	if (!a || !a->nvirtual)
		return 0;
	for (; k < a->ntasks && n < max; k++)
		if (!core_array_made(a, k)) {
			job_ids[n] = array_job_id + k;
			task_ids[n++] = a->task_ids[k];
		}
	*from = k;
	return n;
}

uint32_t sched_array_rest_pending(const struct sched *s, uint32_t array_job_id)
{
	const struct core_array *a = array_by_id(s, array_job_id);

	return a && a->nvirtual && a->meta->state == SCHED_JOB_PENDING ? a->nvirtual : 0;
}

bool sched_array_span(const struct sched *s, uint32_t array_job_id, uint32_t *min, uint32_t *max,
		      uint32_t *step)
{
	const struct core_array *a = array_by_id(s, array_job_id);

	if (!a)
		return false;
	*min = a->task_min;
	*max = a->task_max;
	*step = a->task_step;
	return true;
}

uint32_t sched_array_size(const struct sched *s, uint32_t array_job_id)
{
	const struct core_array *a = array_by_id(s, array_job_id);

	return a ? a->ntasks : 0;
}

int sched_job_info_nth(const struct sched *s, size_t i, struct sched_job_info *out)
{
	if (i >= s->njobs)
		return SPUR_ENOENT;
	job_info(s, s->jobs[i], out);
	return 0;
}

uint32_t sched_array_task_id(const struct sched *s, uint32_t array_job_id, uint32_t task)
{
	const struct core_array *a = array_by_id(s, array_job_id);

	if (!a)
		return 0;
	for (uint32_t k = 0; k < a->ntasks; k++) {
		const struct core_job *j;

		if (a->nvirtual && !core_array_made(a, k)) {
			if (a->task_ids[k] == task)
				return array_job_id + k;
			continue;
		}
		j = core_job_find(s, array_job_id + k);
		if (j && j->task_id == (int32_t)task)
			return j->id;
	}
	return 0;
}

size_t sched_node_count(const struct sched *s)
{
	return s->nnodes;
}

size_t sched_job_count(const struct sched *s)
{
	return s->njobs + s->nvirtual;
}

const char *sched_node_name(const struct sched *s, uint32_t node)
{
	return node < s->nnodes ? s->nodes[node].name : NULL;
}

void sched_node_usage(const struct sched *s, uint32_t node, uint32_t *cpus, uint64_t *mem_mb)
{
	*cpus = s->nodes[node].cpus - core_node_cpus_free(&s->nodes[node]);
	*mem_mb = s->nodes[node].mem_used;
}

uint16_t sched_node_free_gpus(const struct sched *s, uint32_t node)
{
	return node < s->nnodes ? core_node_free_mask(&s->nodes[node]) : 0;
}

const char *sched_node_state(const struct sched *s, uint32_t node)
{
	const struct core_node *n = &s->nodes[node];

	if (n->state == NODE_DOWN)
		return "DOWN";
	if (n->state == NODE_DRAIN)
		return n->njobs ? "DRAINING" : "DRAINED";
	if (!n->njobs)
		return "IDLE";
	return !core_node_cpus_free(n) || n->excl_jobs ||
		       (n->ngpus && __builtin_popcount(core_node_free_mask(n)) == 0)
		       ? "ALLOCATED"
		       : "MIXED";
}

double sched_node_mask_bandwidth(const struct sched *s, uint32_t node, uint16_t mask)
{
	const struct core_node *n = &s->nodes[node];
	double sum = 0;
	int pairs = 0;

	for (unsigned a = 0; a < n->ngpus; a++)
		for (unsigned b = a + 1; b < n->ngpus; b++)
			if ((mask >> a & 1) && (mask >> b & 1)) {
				sum += n->pair_w[a][b];
				pairs++;
			}
	return pairs ? sum / pairs : 0;
}

bool sched_node_mask_is_island(const struct sched *s, uint32_t node, uint16_t mask)
{
	const struct core_node *n = &s->nodes[node];

	for (unsigned a = 0; a < n->ngpus; a++)
		for (unsigned b = a + 1; b < n->ngpus; b++)
			if ((mask >> a & 1) && (mask >> b & 1) && n->link[a][b] != n->best_link)
				return false;
	return true;
}

uint32_t sched_node_shards_per_gpu(const struct sched *s, uint32_t node)
{
	return s->nodes[node].shards_per_gpu;
}

int sched_node_leaf(const struct sched *s, uint32_t node)
{
	return s->nodes[node].leaf;
}

void sched_last_cycle(const struct sched *s, struct sched_cycle_stats *out)
{
	*out = s->stats;
}
