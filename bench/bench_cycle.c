/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: scheduling cycles on 10,000 nodes / 80,000 GPUs with 100,000
 * pending jobs. Prints cycle times and heap bytes per job, for Spur's
 * default policy and, in the same process, for the first-free baseline. */
#define _GNU_SOURCE
#include "core/sched.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NODES 10000
#define JOBS 100000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void die(const struct spur_error *err)
{
	fprintf(stderr, "bench_cycle: %s\n", err->msg);
	exit(1);
}

static const char *const types[] = { "mi300x", "mi250", "h100", "a100" };
static const enum sched_topo_preset topos[] = { SCHED_TOPO_MI300X, SCHED_TOPO_MI250,
						 SCHED_TOPO_NVSWITCH, SCHED_TOPO_PCIE_PAIRS };

static struct sched *build(const struct sched_config *cfg)
{
	struct spur_error err;
	struct sched *s = sched_create(cfg, &err);
	struct sched_part_spec p = { 0 };

	if (!s)
		die(&err);
	for (int sp = 0; sp < 10; sp++) {
		char name[32];

		snprintf(name, sizeof(name), "spine%d", sp);
		if (sched_add_switch(s, name, NULL, &err))
			die(&err);
	}
	for (int leaf = 0; leaf < 100; leaf++) {
		char name[32], parent[32];

		snprintf(name, sizeof(name), "leaf%02d", leaf);
		snprintf(parent, sizeof(parent), "spine%d", leaf / 10);
		if (sched_add_switch(s, name, parent, &err))
			die(&err);
	}
	for (int i = 0; i < NODES; i++) {
		struct sched_node_spec n;
		char name[32], leaf[32];
		int t = i / (NODES / 4);

		memset(&n, 0, sizeof(n));
		snprintf(name, sizeof(name), "gpu%05d", i + 1);
		snprintf(leaf, sizeof(leaf), "leaf%02d", i / 100);
		n.name = name;
		n.cpus = 192;
		n.mem_mb = 2 << 20;
		n.gpu_type = types[t];
		sched_node_spec_preset(&n, topos[t]);
		n.switch_name = leaf;
		if (sched_add_node(s, &n, &err))
			die(&err);
	}
	p.name = "gpu";
	p.nodes = "ALL";
	p.is_default = true;
	p.max_time = 7 * 86400;
	if (sched_add_partition(s, &p, &err))
		die(&err);
	return s;
}

/* The limits run: 1,000 accounts under 10 parents, 10,000 users (user i
 * in account i % 1,000), GrpTRES=gres/gpu=64 on every account, MaxJobs=20
 * per user. */
#define ACCOUNTS 1000
#define USERS 10000
static char acct_names[ACCOUNTS][16], user_names[USERS][16];

static void add_limits(struct sched *s)
{
	struct spur_error err;

	for (int p = 0; p < 10; p++) {
		char name[16];
		struct sched_account_spec a = { .name = name };

		snprintf(name, sizeof(name), "dept%d", p);
		sched_limits_none(&a.lim);
		if (sched_set_account(s, &a, &err))
			die(&err);
	}
	for (int i = 0; i < ACCOUNTS; i++) {
		char parent[16];
		struct sched_account_spec a = { .name = acct_names[i], .parent = parent };

		snprintf(acct_names[i], sizeof(acct_names[i]), "a%d", i);
		snprintf(parent, sizeof(parent), "dept%d", i % 10);
		sched_limits_none(&a.lim);
		a.lim.grp_tres[SCHED_TRES_GPU] = 64;
		if (sched_set_account(s, &a, &err))
			die(&err);
	}
	for (int i = 0; i < USERS; i++) {
		struct sched_user_spec u = { .user = user_names[i], .account = acct_names[i % ACCOUNTS] };

		snprintf(user_names[i], sizeof(user_names[i]), "u%d", i);
		sched_limits_none(&u.lim);
		u.lim.max_jobs = 20;
		if (sched_set_user_assoc(s, &u, &err))
			die(&err);
	}
}

/* A job mix shaped like large GPU clusters: mostly 1-8 GPUs on one node,
 * some multi-node 8-GPU jobs; a third constrained to a GPU type. */
static void make_job(struct sched_job_spec *j, uint32_t id, bool limits)
{
	static const char *const accounts[] = { "ml", "hpc", "vision", "nlp", "speech" };
	uint32_t r = rnd(100), u = rnd(USERS);

	memset(j, 0, sizeof(*j));
	j->id = id;
	j->name = "bench";
	j->user = limits ? user_names[u] : "u";
	j->account = limits ? acct_names[u % ACCOUNTS] : accounts[rnd(5)];
	j->nodes = 1;
	j->gpus_per_node = r < 50 ? 1 : r < 65 ? 2 : r < 80 ? 4 : 8;
	if (r >= 92) {
		j->nodes = 2 + rnd(15);
		j->gpus_per_node = 8;
	}
	j->cpus_per_task = 4 * j->gpus_per_node;
	j->time_limit = 3600 * (1 + (int64_t)rnd(48));
	if (rnd(3) == 0)
		j->gpu_type = types[rnd(4)];
}

static double step_ms(struct sched *s, struct sched_event *ev, size_t *started)
{
	struct sched_actions acts;
	struct spur_error err;
	double t0 = now_ms();

	if (sched_step(s, ev, &acts, &err))
		die(&err);
	*started = 0;
	for (size_t i = 0; i < acts.n; i++)
		*started += acts.v[i].type == SCHED_ACT_START;
	return now_ms() - t0;
}

struct result {
	double cold_ms, full_ms, churn_ms, bytes_per_job;
	size_t cold_started, churn_started, gpus_busy;
};

static struct result run(const struct sched_config *cfg)
{
	struct result r = { 0 };
	struct sched *s = build(cfg);
	struct sched_job_spec j;
	struct sched_event ev = { 0 };
	struct sched_actions acts;
	struct spur_error err;
	struct mallinfo2 m0, m1;
	uint32_t *running = malloc(JOBS * sizeof(uint32_t));
	size_t nrun = 0, started;

	rng = 88172645463325252ull;
	if (cfg->enforce_limits)
		add_limits(s);
	m0 = mallinfo2();
	for (uint32_t id = 1; id <= JOBS; id++) {
		make_job(&j, id, cfg->enforce_limits);
		ev = (struct sched_event){ .type = SCHED_EV_SUBMIT, .time = 0, .job = &j,
					   .defer_cycle = true };
		if (sched_step(s, &ev, &acts, &err))
			die(&err);
	}
	m1 = mallinfo2();
	r.bytes_per_job = (double)(m1.uordblks - m0.uordblks) / JOBS;
	/* cold: an idle cluster meets 100k pending jobs */
	ev = (struct sched_event){ .type = SCHED_EV_TICK, .time = 1 };
	r.cold_ms = step_ms(s, &ev, &r.cold_started);
	for (uint32_t id = 1; id <= JOBS; id++) {
		struct sched_job_info info;

		if (sched_job_info(s, id, &info) == 0 && info.state == SCHED_JOB_RUNNING)
			running[nrun++] = id;
	}
	for (uint32_t n = 0; n < NODES; n++)
		r.gpus_busy += 8 - (size_t)__builtin_popcount(sched_node_free_gpus(s, n));
	/* full: nothing can start; backfill plans reservations */
	ev = (struct sched_event){ .type = SCHED_EV_TICK, .time = 2 };
	r.full_ms = step_ms(s, &ev, &started);
	/* churn: 2% of running jobs end, then one cycle */
	for (size_t i = 0; i < nrun; i += 50) {
		ev = (struct sched_event){ .type = SCHED_EV_FINISH, .time = 60, .job_id = running[i],
					   .defer_cycle = true };
		if (sched_step(s, &ev, &acts, &err))
			die(&err);
	}
	ev = (struct sched_event){ .type = SCHED_EV_TICK, .time = 60 };
	r.churn_ms = step_ms(s, &ev, &r.churn_started);
	free(running);
	sched_destroy(s);
	return r;
}

int main(void)
{
	struct sched_config cfg, base, lim;
	struct result spur, first, limited;

	sched_config_default(&cfg);
	cfg.trace = false;
	base = cfg;
	base.place = SCHED_PLACE_FIRST;
	lim = cfg;
	lim.enforce_assoc = lim.enforce_limits = true;
	spur = run(&cfg);
	first = run(&base);
	limited = run(&lim);
	printf("cluster: %d nodes, %d GPUs, %d pending jobs\n", NODES, NODES * 8, JOBS);
	printf("spur cycle, idle cluster:   %8.1f ms  (%zu jobs started, %zu of %d GPUs busy)\n",
	       spur.cold_ms, spur.cold_started, spur.gpus_busy, NODES * 8);
	printf("spur cycle, full cluster:   %8.1f ms  (backfill plans %u reservations)\n",
	       spur.full_ms, cfg.bf_max_reservations);
	printf("spur cycle, 2%% churn:       %8.1f ms  (%zu jobs started)\n", spur.churn_ms,
	       spur.churn_started);
	printf("first-free cycle, idle:     %8.1f ms  (%zu started, %zu GPUs busy)  ratio "
	       "spur/first %.2f\n",
	       first.cold_ms, first.cold_started, first.gpus_busy, spur.cold_ms / first.cold_ms);
	printf("first-free cycle, full:     %8.1f ms  ratio %.2f\n", first.full_ms,
	       spur.full_ms / first.full_ms);
	printf("first-free cycle, churn:    %8.1f ms  ratio %.2f\n", first.churn_ms,
	       spur.churn_ms / first.churn_ms);
	printf("memory per pending job:     %8.0f bytes\n", spur.bytes_per_job);
	printf("with limits (%d accounts, %d users, GrpTRES=gres/gpu=64 each, MaxJobs=20):\n",
	       ACCOUNTS, USERS);
	printf("  cycle, idle cluster:      %8.1f ms  (%zu started)  ratio to no limits %.2f\n",
	       limited.cold_ms, limited.cold_started, limited.cold_ms / spur.cold_ms);
	printf("  cycle, full cluster:      %8.1f ms  ratio %.2f\n", limited.full_ms,
	       limited.full_ms / spur.full_ms);
	printf("  cycle, 2%% churn:          %8.1f ms  ratio %.2f\n", limited.churn_ms,
	       limited.churn_ms / spur.churn_ms);
	printf("  memory per pending job:   %8.0f bytes\n", limited.bytes_per_job);
	return 0;
}
