/* SPDX-License-Identifier: Apache-2.0 */
/* Simulation tests: the scheduling core on a fake cluster and fake clock.
 * Each test builds a small cluster, replays a workload and asserts on job
 * outcomes and on the decision trace. */
#include "simtest.h"

#include <stdio.h>
#include <string.h>

/* 4 MI300X nodes under one leaf, partition gpu = all. */
static struct sim *mi300x_cluster(const struct sched_config *cfg, int nodes)
{
	struct sim *sim = sim_create(cfg);
	struct sched_part_spec p = part("gpu", "ALL", true);

	sim_add_nodes(sim, "mi", 2, nodes, 128, 1024 * 1024, "mi300x", SCHED_TOPO_MI300X, 0, "leaf1");
	sim_add_partition(sim, &p);
	return sim;
}

static void test_start_and_finish(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 4);
	struct sched_job_spec j = job(1, 2, 8, H);

	(void)state;
	sim_submit(sim, 0, &j, 600, 0);
	sim_run_until(sim, 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 1), "mi[01-02]");
	assert_trace_has(sim, "[     0] job 1 start on mi[01-02] gpus=0-7 (priority, end=3600)");
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_job_end(sim, 1), 600);
	assert_trace_has(sim, "[   600] job 1 COMPLETED (exit 0)");
	sim_destroy(sim);
}

/* scontrol update TimeLimit of a running job: its end moves with its start
 * (longer or shorter); anything else of a running job is refused. */
static void test_update_running_limit(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 4);
	struct sched_job_spec j = job(1, 1, 8, H);
	struct sched_job_info info;
	struct spur_error err;

	(void)state;
	sim_submit(sim, 0, &j, 600, 0);
	sim_run_until(sim, 10);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 1,
							      .time_limit = 2 * H },
				   &err),
			 0);
	assert_int_equal(sched_job_info(sim_sched(sim), 1, &info), 0);
	assert_int_equal(info.end_time, 2 * H);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 1,
							      .time_limit = 300 },
				   &err),
			 0);
	assert_int_equal(sched_job_info(sim_sched(sim), 1, &info), 0);
	assert_int_equal(info.end_time, 300);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 1,
							      .time_limit = -1, .set_nice = true,
							      .nice = 5 },
				   &err),
			 SPUR_ESTATE);
	assert_string_equal(err.msg, "Job is no longer pending execution");
	sim_destroy(sim);
}

/* --mem-per-cpu and --mem-per-gpu hold memory for the CPUs and GPUs on
 * each node, --cpus-per-gpu and --mincpus hold CPUs: what one job holds
 * decides whether the next fits beside it (nodes: 128 CPUs, 1 TiB). */
static void test_per_cpu_and_gpu_shares(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 1);
	struct sched_job_spec a = job(1, 1, 0, H), b = job(2, 1, 2, H), c = job(3, 1, 0, H);
	struct sched_job_info info;

	(void)state;
	a.ntasks = 8;
	a.mem_per_cpu_mb = 64 * 1024;		/* 8 CPUs x 64 GiB = 512 GiB */
	b.cpus_per_gpu = 30;			/* 2 GPUs x 30 = 60 CPUs */
	b.mem_per_gpu_mb = 200 * 1024;		/* 2 x 200 GiB = 400 GiB */
	c.min_cpus = 61;			/* 128 - 8 - 60 = 60 CPUs left: waits */
	sim_submit(sim, 0, &a, 600, 0);
	sim_submit(sim, 0, &b, 600, 0);
	sim_submit(sim, 0, &c, 600, 0);
	sim_run_until(sim, 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_int_equal(sched_job_info(sim_sched(sim), 1, &info), 0);
	assert_int_equal(info.alloc[0].cpus, 8);
	assert_int_equal(info.alloc[0].mem_mb, 512 * 1024);
	assert_int_equal(sched_job_info(sim_sched(sim), 2, &info), 0);
	assert_int_equal(info.alloc[0].cpus, 60);
	assert_int_equal(info.alloc[0].mem_mb, 400 * 1024);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 3), SCHED_REASON_RESOURCES);
	sim_run_until(sim, 600);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sched_job_info(sim_sched(sim), 3, &info), 0);
	assert_int_equal(info.alloc[0].cpus, 61);
	sim_destroy(sim);
}

/* --priority (an administrator's) fixes a job's priority: submitted last,
 * it starts first when the node frees; scontrol update Priority= too. */
static void test_fixed_priority(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 1);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H), c = job(3, 1, 8, H);
	struct sched_job_info info;
	struct spur_error err;

	(void)state;
	c.priority = 4000000000u;
	sim_submit(sim, 0, &a, 600, 0);
	sim_submit(sim, 10, &b, 600, 0);
	sim_submit(sim, 20, &c, 600, 0);
	sim_run_until(sim, 600);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	/* scontrol update Priority=7 */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 2,
							      .time_limit = -1, .set_priority = true,
							      .priority = 7 },
				   &err),
			 0);
	assert_int_equal(sched_job_info(sim_sched(sim), 2, &info), 0);
	assert_int_equal(info.priority, 7);
	sim_destroy(sim);
}

/* Licenses: a job holds its -L licenses while it runs; one whose
 * licenses are taken waits with reason Licenses and lets a later job run
 * in its place; an unknown license or more than the cluster has is refused. */
static void test_licenses(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 4);
	struct sched_job_spec a = job(1, 1, 0, H), b = job(2, 1, 0, H), c = job(3, 1, 0, H);
	struct sched_job_spec bad = job(4, 1, 0, H);
	struct sched_license_info li;
	struct spur_error err;

	(void)state;
	assert_int_equal(sched_add_license(sim_sched(sim), "matlab", 3, &err), 0);
	assert_int_equal(sched_add_license(sim_sched(sim), "fluent", 1, &err), 0);
	a.licenses = "matlab:2,fluent";
	b.licenses = "matlab:2";
	c.licenses = "matlab";
	sim_submit(sim, 0, &a, 600, 0);
	sim_submit(sim, 0, &b, 600, 0);
	sim_submit(sim, 0, &c, 600, 0);
	sim_run_until(sim, 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_LICENSES);
	assert_string_equal(sched_reason_name(SCHED_REASON_LICENSES), "Licenses");
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sched_license_info(sim_sched(sim), 0, &li), 0);
	assert_string_equal(li.name, "matlab");
	assert_int_equal(li.used, 3);
	assert_int_equal(li.total, 3);
	sim_run_until(sim, 600);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_int_equal(sched_license_info(sim_sched(sim), 1, &li), 0);
	assert_int_equal(li.used, 0);
	bad.licenses = "ansys";
	assert_int_equal(sim_submit_now(sim, &bad, 10, 0, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "Invalid license specification"));
	bad.licenses = "fluent:2";
	assert_int_equal(sim_submit_now(sim, &bad, 10, 0, &err), SPUR_EINVAL);
	sim_destroy(sim);
}

/* --time-min: a job backfills with its limit cut down (whole minutes) to
 * end before the reservation ahead of it. --deadline: a job that cannot
 * end by it is removed (DEADLINE); one with --time-min starts with its
 * limit cut to end by it. */
static void test_time_min_and_deadline(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 2);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 2, 8, H), c = job(3, 1, 8, 2 * H);
	struct sched_job_spec d = job(4, 1, 8, H), e = job(5, 1, 8, H);
	struct sched_job_info info;

	(void)state;
	sim_submit(sim, 0, &a, H, 0);	/* node 1 busy until 3600 */
	sim_submit(sim, 10, &b, 600, 0); /* both nodes at 3600 */
	c.time_min = 10 * 60;
	sim_submit(sim, 30, &c, 600, 0);
	sim_run_until(sim, 30);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sched_job_info(sim_sched(sim), 3, &info), 0);
	assert_int_equal(info.end_time, 30 + 59 * 60); /* 59 whole minutes: ends by 3600 */
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_COMPLETED);

	d.deadline = sim_now(sim) + 300; /* an hour's limit cannot end by then */
	assert_int_equal(sim_submit_now(sim, &d, 60, 0, NULL), 0);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_DEADLINE);
	assert_int_equal(sim_job_reason(sim, 4), SCHED_REASON_DEADLINE);
	assert_string_equal(sched_job_state_name(SCHED_JOB_DEADLINE), "DEADLINE");
	assert_string_equal(sched_reason_name(SCHED_REASON_DEADLINE), "DeadLine");
	e.deadline = sim_now(sim) + 1830;
	e.time_min = 600;
	assert_int_equal(sim_submit_now(sim, &e, 60, 0, NULL), 0);
	assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_RUNNING);
	assert_int_equal(sched_job_info(sim_sched(sim), 5, &info), 0);
	assert_int_equal(info.end_time - info.start_time, 30 * 60);
	/* no limit of its own: the deadline cuts the partition's (whole minutes) */
	struct sched_job_spec f = job(6, 1, 8, 0);

	f.deadline = sim_now(sim) + 3030;
	assert_int_equal(sim_submit_now(sim, &f, 60, 0, NULL), 0);
	assert_int_equal(sim_job_state(sim, 6), SCHED_JOB_RUNNING);
	assert_int_equal(sched_job_info(sim_sched(sim), 6, &info), 0);
	assert_int_equal(info.end_time - info.start_time, 50 * 60);
	sim_destroy(sim);
}

/* scontrol suspend / resume: a suspended job keeps its node (another job
 * waits) and its time stands still: resumed, its end moves by the time it
 * was stopped. */
static void test_suspend_resume(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 1);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H);
	struct sched_job_info info;
	struct spur_error err;

	(void)state;
	sim_submit(sim, 0, &a, 10 * H, 0); /* runs until its limit */
	sim_submit(sim, 0, &b, 60, 0);
	sim_run_until(sim, 100);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_SUSPEND, .job_id = 2 },
				   &err),
			 SPUR_ESTATE);
	assert_string_equal(err.msg, "Job is pending execution");
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_SUSPEND, .job_id = 1 },
				   &err),
			 0);
	assert_int_equal(sched_job_info(sim_sched(sim), 1, &info), 0);
	assert_true(info.suspended);
	assert_int_equal(info.pre_suspend, 100);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_SUSPEND, .job_id = 1 },
				   &err),
			 SPUR_ESTATE);
	sim_run_until(sim, 500);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING); /* the node is still held */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_RESUME, .job_id = 1 },
				   &err),
			 0);
	assert_int_equal(sched_job_info(sim_sched(sim), 1, &info), 0);
	assert_false(info.suspended);
	assert_int_equal(info.end_time, H + 400);
	assert_int_equal(info.suspended_secs, 400);
	sim_destroy(sim);
}

/* A 4-node job waits for 4 nodes; a stream of 1-node jobs arriving later
 * must not starve it: they only backfill where they end before it starts. */
static void test_backfill_no_starvation(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 4);
	struct sched_job_spec first = job(1, 1, 8, 2 * H), big = job(2, 4, 8, H);
	struct sched_job_spec small[40];

	(void)state;
	sim_submit(sim, 0, &first, 2 * H, 0); /* holds mi01 for 2 hours */
	sim_submit(sim, 10, &big, H, 0);
	for (int i = 0; i < 40; i++) {
		small[i] = job((uint32_t)(10 + i), 1, 8, 3 * H);
		sim_submit(sim, 20 + i * 60, &small[i], 3 * H, 0);
	}
	sim_run_until(sim, 30);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_RESOURCES);
	assert_trace_has(sim, "job 2 reserved for 7200 (Resources)");
	sim_run_until_idle(sim);
	/* the big job started when the first ended, not after the stream */
	assert_int_equal(sim_job_start(sim, 2), 2 * H);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_COMPLETED);
	/* no small job (3h limit) started before the big one could */
	for (int i = 0; i < 40; i++)
		assert_true(sim_job_start(sim, 10 + (uint32_t)i) >= 3 * H);
	sim_destroy(sim);
}

/* A short job fills the hole in front of a reserved big job without delaying it. */
static void test_backfill_fills_hole(void **state)
{
	struct sim *sim = mi300x_cluster(NULL, 4);
	struct sched_job_spec a = job(1, 2, 8, 2 * H), big = job(2, 4, 8, H);
	struct sched_job_spec fits = job(3, 1, 8, H), too_long = job(4, 1, 8, 5 * H);

	(void)state;
	sim_submit(sim, 0, &a, 2 * H, 0);    /* mi[01-02] until 7200 */
	sim_submit(sim, 1, &big, H, 0);	     /* needs all 4: reserved for 7200 */
	sim_submit(sim, 2, &too_long, H, 0); /* 5h would delay the big job */
	sim_submit(sim, 3, &fits, H, 0);     /* 1h ends before 7200: backfill */
	sim_run_until(sim, 3);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_PENDING);
	assert_true(!strcmp(sim_job_nodes(sim, 3), "mi03") || !strcmp(sim_job_nodes(sim, 3), "mi04"));
	assert_trace_has(sim, "gpus=0-7 (backfill, end=3603)");
	assert_true(sim_backfilled(sim) >= 1);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 2), 2 * H);
	assert_true(sim_job_start(sim, 4) >= 3 * H);
	sim_destroy(sim);
}

/* Strict FIFO (the baseline) lets the hole go unused. */
static void test_fifo_baseline(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_job_spec a = job(1, 2, 8, 2 * H), big = job(2, 4, 8, H), fits = job(3, 1, 8, H);

	(void)state;
	sched_config_default(&cfg);
	cfg.fifo = true;
	sim = mi300x_cluster(&cfg, 4);
	sim_submit(sim, 0, &a, 2 * H, 0);
	sim_submit(sim, 1, &big, H, 0);
	sim_submit(sim, 3, &fits, H, 0);
	sim_run_until(sim, 3);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_PENDING);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 3), 3 * H);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_and_finish),
		cmocka_unit_test(test_backfill_no_starvation),
		cmocka_unit_test(test_backfill_fills_hole),
		cmocka_unit_test(test_fifo_baseline),
		cmocka_unit_test(test_update_running_limit),
		cmocka_unit_test(test_per_cpu_and_gpu_shares),
		cmocka_unit_test(test_fixed_priority),
		cmocka_unit_test(test_licenses),
		cmocka_unit_test(test_time_min_and_deadline),
		cmocka_unit_test(test_suspend_resume),
	};

	return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
