/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: replay GPU-cluster workloads through the fake cluster with
 * three schedulers in one run: Spur (priority + backfill + topology-aware
 * placement), backfill with first-free placement, and FIFO with first-free
 * placement. Workloads: (1) synthesised with the published shape of the
 * Philly and Helios traces, (2) the Alibaba GPU trace (2023) when its CSV
 * files are given. Prints mean job completion time, queueing delay, GPU
 * utilisation and the share of multi-GPU jobs placed compactly.
 *
 * Performance model (bench/README.md): a multi-GPU job on one node whose
 * GPUs are not all on the node's best link (one XGMI hive / NVLink island)
 * runs 1.25x longer; a multi-node job spread over several leaf switches
 * runs 1.3x longer. */
#include "simcluster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wl_job {
	int64_t submit, runtime, limit;
	uint32_t nodes, gpn, shards, cpus;
	uint64_t mem;
	const char *account;
};

struct workload {
	const char *name;
	struct wl_job *jobs;
	size_t n;
	/* cluster */
	void (*build)(struct sim *sim, void *arg);
	void *arg;
};

struct stats {
	size_t multi, compact;
};

static uint64_t rng_state;

static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double lognormal(double median, double sigma)
{
	double u1 = urand(), u2 = urand();
	double z = sqrt(-2 * log(u1 + 1e-300)) * cos(2 * M_PI * u2);

	return median * exp(sigma * z);
}

/* ---------------------------------------------------------------- synthetic */

/* 96 nodes x 8 GPUs, four node kinds spread over four leaf switches. */
static void build_synth(struct sim *sim, void *arg)
{
	static const char *const leaves[] = { "leaf1", "leaf2", "leaf3", "leaf4" };
	static const enum sched_topo_preset kinds[] = { SCHED_TOPO_NVLINK_ISLANDS,
							 SCHED_TOPO_PCIE_PAIRS, SCHED_TOPO_MI250,
							 SCHED_TOPO_NVLINK_ISLANDS };
	struct sched_part_spec p = { 0 };

	(void)arg;
	for (int l = 0; l < 4; l++) {
		char prefix[16];

		snprintf(prefix, sizeof(prefix), "l%dn", l + 1);
		/* each leaf mixes kinds: 6 nodes of each */
		for (int k = 0; k < 4; k++) {
			char pre[24];

			snprintf(pre, sizeof(pre), "%sk%d-", prefix, k);
			sim_add_nodes(sim, pre, 2, 6, 64, 1 << 20, "gpu", kinds[k], 0, leaves[l]);
		}
	}
	p.name = "gpu";
	p.nodes = "ALL";
	p.is_default = true;
	p.max_time = SCHED_INFINITE;
	sim_add_partition(sim, &p);
}

/* Shape from Philly (Jeon et al., ATC'19) and Helios (Hu et al., SC'21):
 * most jobs use 1 GPU, a long tail of 8-64 GPU jobs holds most GPU time;
 * log-normal durations (median minutes, tail days) growing with size;
 * users over-estimate limits 1.2-4x; bursty Poisson arrivals. */
static struct workload synth(size_t n)
{
	static const char *const accts[] = { "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7" };
	struct workload w = { "synthetic Philly/Helios-shaped", calloc(n, sizeof(struct wl_job)), n,
			      build_synth, NULL };
	double t = 0;

	rng_state = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < n; i++) {
		struct wl_job *j = &w.jobs[i];
		double r = urand(), dur;
		uint32_t gpus = r < 0.58 ? 1 : r < 0.70 ? 2 : r < 0.82 ? 4 : r < 0.93 ? 8
							   : r < 0.98 ? 16 : 32;

		/* mean inter-arrival 40 s, in bursts: offered load near 100% */
		t += -log(urand() + 1e-12) * (urand() < 0.3 ? 12.0 : 52.0);
		j->submit = (int64_t)t;
		dur = lognormal(900.0 * (1 + log2(gpus)), 1.6);
		if (dur < 60)
			dur = 60;
		if (dur > 3 * 86400)
			dur = 3 * 86400;
		j->runtime = (int64_t)dur;
		j->limit = (int64_t)(ceil(dur * (1.2 + 2.8 * urand()) / 1800.0) * 1800);
		j->nodes = gpus > 8 ? gpus / 8 : 1;
		j->gpn = gpus > 8 ? 8 : gpus;
		j->cpus = 4 * j->gpn;
		j->account = accts[(size_t)(urand() * urand() * 8)];
	}
	return w;
}

/* ---------------------------------------------------------------- Alibaba */

struct ali_nodes {
	int *gpus, *cpus;
	long *mem;
	size_t n;
	size_t stride; /* keep every stride-th node: contention on the same tasks */
};

static void build_alibaba(struct sim *sim, void *arg)
{
	struct ali_nodes *an = arg;
	struct sched_part_spec p = { 0 };
	struct spur_error err;

	for (size_t i = 0; i < an->n; i += an->stride) {
		struct sched_node_spec n;
		char name[32];

		memset(&n, 0, sizeof(n));
		snprintf(name, sizeof(name), "openb%04zu", i);
		n.name = name;
		n.cpus = (uint32_t)an->cpus[i];
		n.mem_mb = (uint64_t)an->mem[i];
		n.gpu_type = "gpu";
		/* 8-GPU nodes as two NVLink islands, smaller ones as PCIe pairs */
		sched_node_spec_preset(&n, an->gpus[i] == 8 ? SCHED_TOPO_NVLINK_ISLANDS
							    : SCHED_TOPO_PCIE_PAIRS);
		n.ngpus = (uint32_t)an->gpus[i];
		n.shards = 10 * n.ngpus; /* gpu_milli in steps of 100 */
		n.switch_name = i < an->n / 2 ? "leafA" : "leafB";
		if (sched_add_node(sim_sched(sim), &n, &err)) {
			fprintf(stderr, "bench_replay: %s\n", err.msg);
			exit(1);
		}
	}
	p.name = "gpu";
	p.nodes = "ALL";
	p.is_default = true;
	p.max_time = SCHED_INFINITE;
	sim_add_partition(sim, &p);
}

static int load_alibaba(const char *dir, struct workload *w, struct ali_nodes *an)
{
	char path[1024], line[512];
	FILE *f;
	size_t cap = 0;

	snprintf(path, sizeof(path), "%s/openb_node_list_gpu_node.csv", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	memset(an, 0, sizeof(*an));
	while (fgets(line, sizeof(line), f)) {
		char sn[64], model[32];
		long cpu, mem;
		int gpu;

		if (sscanf(line, "%63[^,],%ld,%ld,%d,%31s", sn, &cpu, &mem, &gpu, model) != 5)
			continue; /* header */
		if (an->n == cap) {
			cap = cap ? cap * 2 : 1024;
			an->gpus = realloc(an->gpus, cap * sizeof(int));
			an->cpus = realloc(an->cpus, cap * sizeof(int));
			an->mem = realloc(an->mem, cap * sizeof(long));
		}
		an->gpus[an->n] = gpu;
		an->cpus[an->n] = (int)(cpu / 1000);
		an->mem[an->n] = mem;
		an->n++;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/openb_pod_list_default.csv", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	w->name = "Alibaba GPU trace 2023 (openb, 8152 tasks, 1213 nodes)";
	w->build = build_alibaba;
	w->arg = an;
	cap = 0;
	while (fgets(line, sizeof(line), f)) {
		char name[64], spec[64], qos[32], phase[32];
		long cpu, mem, gpu, milli, created, deleted, sched;
		struct wl_job *j;

		if (sscanf(line, "%63[^,],%ld,%ld,%ld,%ld,%63[^,],%31[^,],%31[^,],%ld,%ld,%ld", name,
			   &cpu, &mem, &gpu, &milli, spec, qos, phase, &created, &deleted,
			   &sched) < 10 &&
		    sscanf(line, "%63[^,],%ld,%ld,%ld,%ld,,%31[^,],%31[^,],%ld,%ld,%ld", name, &cpu,
			   &mem, &gpu, &milli, qos, phase, &created, &deleted, &sched) < 9)
			continue;
		if (w->n == cap) {
			cap = cap ? cap * 2 : 4096;
			w->jobs = realloc(w->jobs, cap * sizeof(*w->jobs));
		}
		j = &w->jobs[w->n++];
		memset(j, 0, sizeof(*j));
		j->submit = created;
		j->runtime = deleted > created ? deleted - created : 1;
		j->limit = (int64_t)(ceil((double)j->runtime * 1.5 / 60.0) * 60);
		j->nodes = 1;
		j->cpus = (uint32_t)((cpu + 999) / 1000);
		j->mem = (uint64_t)mem;
		if (gpu == 1 && milli < 1000)
			j->shards = (uint32_t)((milli + 99) / 100);
		else
			j->gpn = (uint32_t)gpu;
		j->account = qos[0] == 'L' ? "ls" : "be";
	}
	fclose(f);
	return 0;
}

/* ---------------------------------------------------------------- the run */

static double on_start(void *arg, const struct sched *s, const struct sched_action *a)
{
	struct stats *st = arg;
	uint32_t gpus = 0;
	bool compact = true;

	for (size_t k = 0; k < a->nalloc; k++)
		gpus += (uint32_t)__builtin_popcount(a->alloc[k].gpu_mask);
	if (gpus < 2)
		return 1.0;
	st->multi++;
	if (a->nalloc == 1) {
		compact = sched_node_mask_is_island(s, a->alloc[0].node, a->alloc[0].gpu_mask);
		st->compact += compact;
		return compact ? 1.0 : 1.25;
	}
	for (size_t k = 1; k < a->nalloc; k++)
		if (sched_node_leaf(s, a->alloc[k].node) != sched_node_leaf(s, a->alloc[0].node))
			compact = false;
	st->compact += compact;
	return compact ? 1.0 : 1.3;
}

struct result {
	double jct, wait, util, compact, makespan;
	size_t done;
};

static struct result replay(const struct workload *w, const struct sched_config *cfg)
{
	struct sim *sim = sim_create(cfg);
	struct sched_job_spec *specs = calloc(w->n, sizeof(*specs));
	struct stats st = { 0 };
	struct result r = { 0 };
	int64_t first = INT64_MAX, last = 0;
	uint64_t total_gpus = 0;

	w->build(sim, w->arg);
	for (uint32_t n = 0; n < sched_node_count(sim_sched(sim)); n++)
		total_gpus += (uint64_t)__builtin_popcount(sched_node_free_gpus(sim_sched(sim), n));
	sim_on_start(sim, on_start, &st);
	for (size_t i = 0; i < w->n; i++) {
		struct sched_job_spec *sp = &specs[i];

		sp->id = (uint32_t)i + 1;
		sp->name = "replay";
		sp->user = w->jobs[i].account;
		sp->account = w->jobs[i].account;
		sp->nodes = w->jobs[i].nodes;
		sp->gpus_per_node = w->jobs[i].gpn;
		sp->shards_per_node = w->jobs[i].shards;
		sp->cpus_per_task = w->jobs[i].cpus;
		sp->mem_per_node_mb = w->jobs[i].mem;
		sp->time_limit = w->jobs[i].limit;
		sp->submit_time = w->jobs[i].submit;
		sim_submit(sim, w->jobs[i].submit, sp, w->jobs[i].runtime, 0);
	}
	sim_run_until_idle(sim);
	for (size_t i = 0; i < w->n; i++) {
		uint32_t id = (uint32_t)i + 1;
		int64_t end = sim_job_end(sim, id), start = sim_job_start(sim, id);

		if (sim_job_state(sim, id) != SCHED_JOB_COMPLETED &&
		    sim_job_state(sim, id) != SCHED_JOB_TIMEOUT)
			continue;
		r.done++;
		r.jct += (double)(end - w->jobs[i].submit);
		r.wait += (double)(start - w->jobs[i].submit);
		first = w->jobs[i].submit < first ? w->jobs[i].submit : first;
		last = end > last ? end : last;
	}
	r.makespan = (double)(last - first);
	r.jct /= (double)r.done;
	r.wait /= (double)r.done;
	r.util = sim_gpu_seconds(sim) / ((double)total_gpus * r.makespan);
	r.compact = st.multi ? (double)st.compact / (double)st.multi : 1.0;
	free(specs);
	sim_destroy(sim);
	return r;
}

static void report(const struct workload *w)
{
	struct sched_config spur, first, fifo;
	struct result a, b, c;

	sched_config_default(&spur);
	spur.trace = false;
	first = spur;
	first.place = SCHED_PLACE_FIRST;
	fifo = first;
	fifo.fifo = true;
	a = replay(w, &spur);
	b = replay(w, &first);
	c = replay(w, &fifo);
	printf("\n%s: %zu jobs\n", w->name, w->n);
	printf("%-28s %10s %10s %8s %9s %10s %5s\n", "scheduler", "mean JCT", "mean wait", "GPU util",
	       "compact", "makespan", "done");
	printf("%-28s %9.0fs %9.0fs %7.1f%% %8.1f%% %9.0fs %5zu\n", "spur (backfill+topology)",
	       a.jct, a.wait, 100 * a.util, 100 * a.compact, a.makespan, a.done);
	printf("%-28s %9.0fs %9.0fs %7.1f%% %8.1f%% %9.0fs %5zu\n", "backfill + first-free GPUs",
	       b.jct, b.wait, 100 * b.util, 100 * b.compact, b.makespan, b.done);
	printf("%-28s %9.0fs %9.0fs %7.1f%% %8.1f%% %9.0fs %5zu\n", "FIFO + first-free GPUs", c.jct,
	       c.wait, 100 * c.util, 100 * c.compact, c.makespan, c.done);
	printf("JCT ratio spur/first-free %.3f, spur/FIFO %.3f\n", a.jct / b.jct, a.jct / c.jct);
}

int main(int argc, char **argv)
{
	struct workload w = synth(argc > 2 ? (size_t)atol(argv[2]) : 6000);
	struct ali_nodes an;
	const char *dir = argc > 1 ? argv[1] : "../shared/traces/alibaba-gpu-v2023";

	printf("performance model: off-island multi-GPU 1.25x, multi-leaf multi-node 1.3x\n");
	report(&w);
	free(w.jobs);
	memset(&w, 0, sizeof(w));
	if (load_alibaba(dir, &w, &an) == 0) {
		an.stride = 1;
		report(&w);
		an.stride = 8;
		w.name = "Alibaba GPU trace 2023 on 1/8 of its nodes (152 nodes)";
		report(&w);
		free(w.jobs);
		free(an.gpus);
		free(an.cpus);
		free(an.mem);
	} else {
		printf("\n(Alibaba trace not found in %s; pass its folder as the first argument)\n",
		       dir);
	}
	return 0;
}
