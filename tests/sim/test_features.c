/* SPDX-License-Identifier: Apache-2.0 */
/* Simulation tests, one per scheduling feature: GRES types, GPU topology,
 * switches, shards, arrays, dependencies, reservations, preemption,
 * pending reasons, failures, priority. */
#include "simtest.h"

#include <stdio.h>
#include <string.h>

static struct sim *one_node(enum sched_topo_preset topo, const char *type, uint32_t shards)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);

	sim_add_nodes(sim, "n", 1, 1, 64, 512 * 1024, type, topo, shards, NULL);
	sim_add_partition(sim, &p);
	return sim;
}

/* ---------------------------------------------------------------- requeue */

/* scontrol requeue: a running job gives its GPUs back and is pending,
 * keeping its place in the queue; an ended one runs again; refused for a
 * pending job and for --no-requeue; requeuehold holds it. */
static void test_requeue(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H), c = job(3, 1, 8, H);
	struct spur_error err;

	(void)state;
	a.requeue = b.requeue = true;
	assert_int_equal(sim_submit_now(sim, &a, H / 2, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H / 2, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_REQUEUE,
							      .time = sim_now(sim),
							      .job_id = 2 },
				   &err),
			 SPUR_ESTATE);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_REQUEUE,
							      .time = sim_now(sim),
							      .job_id = 1 },
				   &err),
			 0);
	/* it keeps its place (submit time): it starts again, before 2 */
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	sim_run_until(sim, sim_now(sim) + H / 2 + 1);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	sim_run_until(sim, sim_now(sim) + H / 2 + 1);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_COMPLETED);
	/* an ended job runs again; held with admin (requeuehold) */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_REQUEUE,
							      .time = sim_now(sim),
							      .job_id = 2,
							      .admin = true },
				   &err),
			 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_HELD_ADMIN);
	c.requeue = false;
	sim_run_until(sim, sim_now(sim) + H);
	assert_int_equal(sim_submit_now(sim, &c, H / 2, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_REQUEUE,
							      .time = sim_now(sim),
							      .job_id = 3 },
				   &err),
			 SPUR_EPERM);
	assert_non_null(strstr(err.msg, "Requested operation is presently disabled"));
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- bounds */

/* A cycle tries at most max_job_test pending jobs (highest priority first)
 * and the next pass, a second later, goes on: five jobs that become
 * eligible together on five free nodes start three, then two. */
static void test_max_job_test(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec js[5];
	struct spur_error err;

	(void)state;
	sched_config_default(&cfg);
	cfg.max_job_test = 3;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 5, 64, 512 * 1024, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	for (uint32_t i = 0; i < 5; i++) {
		js[i] = job(i + 1, 1, 8, H);
		js[i].begin = 100;
		assert_int_equal(sim_submit_now(sim, &js[i], H / 2, 0, &err), 0);
	}
	sim_run_until(sim, 100);
	for (uint32_t i = 1; i <= 3; i++)
		assert_int_equal(sim_job_state(sim, i), SCHED_JOB_RUNNING);
	for (uint32_t i = 4; i <= 5; i++) {
		assert_int_equal(sim_job_state(sim, i), SCHED_JOB_PENDING);
		assert_int_equal(sim_job_reason(sim, i), SCHED_REASON_PRIORITY);
	}
	sim_run_until(sim, 101);
	for (uint32_t i = 4; i <= 5; i++)
		assert_int_equal(sim_job_state(sim, i), SCHED_JOB_RUNNING);
	sim_destroy(sim);
}

/* A large array: a cycle sees a window of its pending tasks, the rest wait
 * (pending, reason Priority) and come in as tasks start; every task runs,
 * in order, and a cancelled waiting task is skipped. */
static void test_array_window(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec a = job(1, 1, 8, H);
	struct spur_error err;
	uint32_t n = 2500, done = 0;

	(void)state;
	a.array = "0-2499";
	assert_int_equal(sim_submit_now(sim, &a, 10, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2001), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 2001), SCHED_REASON_PRIORITY);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_CANCEL,
							      .time = sim_now(sim),
							      .job_id = 2100 },
				   &err),
			 0);
	sim_run_until_idle(sim);
	for (uint32_t id = 1; id <= n; id++)
		done += sim_job_state(sim, id) == SCHED_JOB_COMPLETED;
	assert_int_equal(done, n - 1);
	assert_int_equal(sim_job_state(sim, 2100), SCHED_JOB_CANCELLED);
	/* one node, one task at a time: in task order */
	assert_true(sim_job_start(sim, 2000) < sim_job_start(sim, 2001));
	assert_true(sim_job_start(sim, 1500) < sim_job_start(sim, 2500));
	sim_destroy(sim);
}

/* A large array is one record until its tasks come in: beyond the window
 * a task has no record (sched_job_info answers from the array's meta
 * record, `rest` set), a task named by an event gets one, a whole-array
 * cancel cancels the rest as one, and an ended rest is purged. A job
 * after the whole array waits on the rest and, once it is cancelled,
 * can never run. */
static void test_array_one_record(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched *s = sim_sched(sim);
	struct sched_job_spec a = job(1, 1, 8, H), d = job(200001, 1, 8, H);
	struct sched_job_info info, meta;
	struct spur_error err;
	uint32_t count = 0, jid = 0, tid = 0;
	enum { WINDOW = 1000 }; /* the core's CORE_ARRAY_WINDOW */

	(void)state;
	a.array = "0-199999:1";
	d.dependency = "afterok:1";
	assert_int_equal(sim_submit_now(sim, &a, 10, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &d, 10, 0, &err), 0);
	assert_int_equal(sched_job_count(s), 200001);
	/* records: the window's, one more for the task that started, and d's */
	assert_int_equal(sched_job_info_nth(s, WINDOW + 1, &info), 0);
	assert_int_equal(sched_job_info_nth(s, WINDOW + 2, &info), SPUR_ENOENT);
	assert_int_equal(sched_array_rest_nth(s, 0, &meta, &count), 0);
	assert_int_equal(count, 200000 - WINDOW - 1);
	assert_int_equal(meta.id, 1);
	assert_int_equal(sched_array_rest_nth(s, 1, &meta, &count), SPUR_ENOENT);
	assert_int_equal(sched_job_info(s, 150001, &info), 0);
	assert_true(info.rest);
	assert_int_equal(info.array_task_id, 150000);
	assert_int_equal(info.state, SCHED_JOB_PENDING);
	assert_int_equal(sched_array_task_id(s, 1, 150000), 150001);
	assert_true(sched_array_rest_task(s, 1, 150000, &jid, &tid));
	assert_int_equal(jid, 150001);
	/* an event names a task with no record: it gets one */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_HOLD,
							      .time = sim_now(sim),
							      .job_id = 150001 },
				   &err),
			 0);
	assert_int_equal(sched_job_info(s, 150001, &info), 0);
	assert_false(info.rest);
	assert_int_equal(info.reason, SCHED_REASON_PRIORITY); /* deferred: not seen yet */
	assert_false(sched_array_rest_task(s, 1, 150000, &jid, &tid));
	/* the rest is cancelled as one; a second time is an error */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_CANCEL,
							      .time = sim_now(sim),
							      .job_id = 1, .array_rest = true },
				   &err),
			 0);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_CANCEL,
							      .time = sim_now(sim),
							      .job_id = 1, .array_rest = true },
				   &err),
			 SPUR_ESTATE);
	assert_int_equal(sched_job_info(s, 199001, &info), 0);
	assert_int_equal(info.state, SCHED_JOB_CANCELLED);
	assert_int_equal(sim_job_state(sim, 150001), SCHED_JOB_PENDING); /* had its record */
	sim_run_until(sim, sim_now(sim) + 20 * WINDOW);
	/* the tasks with records ran (the held one waits); none of the rest did */
	assert_int_equal(sim_job_state(sim, WINDOW + 1), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_job_reason(sim, 150001), SCHED_REASON_HELD_USER);
	assert_int_equal(sched_job_info(s, WINDOW + 2, &info), 0);
	assert_int_equal(info.state, SCHED_JOB_CANCELLED);
	assert_int_equal(sim_job_state(sim, 200001), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 200001), SCHED_REASON_DEPENDENCY_NEVER);
	/* a pending rest is not purged; an ended one is, task by task */
	assert_int_equal(sched_job_purge(s, 150001, &err), SPUR_ESTATE);
	for (uint32_t id = WINDOW + 2; id <= 200000; id++)
		if (id != 150001)
			assert_int_equal(sched_job_purge(s, id, &err), 0);
	assert_int_equal(sched_array_rest_nth(s, 0, &meta, &count), SPUR_ENOENT);
	assert_int_equal(sched_job_info(s, 199001, &info), SPUR_ENOENT);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- GRES */

static void test_gres_types(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 4, H), b = job(2, 1, 8, H), bad = job(3, 1, 1, H);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "amd", 1, 2, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_nodes(sim, "nv", 1, 2, 64, 1 << 20, "h100", SCHED_TOPO_NVSWITCH, 0, NULL);
	sim_add_partition(sim, &p);
	a.gpu_type = "h100";
	b.gpu_type = "mi300x";
	bad.gpu_type = "a100";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(strncmp(sim_job_nodes(sim, 1), "nv", 2), 0);
	assert_int_equal(strncmp(sim_job_nodes(sim, 2), "amd", 3), 0);
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "no node has GPUs of type a100"));
	/* more GPUs per node than any node has: refused at submit */
	bad = job(4, 1, 9, H);
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "Requested node configuration is not available"));
	sim_destroy(sim);
}

/* On two NVLink islands of 4, a 4-GPU job takes a whole island; two 2-GPU
 * jobs share one island, leaving the other whole for the next 4-GPU job. */
static void test_gpu_islands(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_NVLINK_ISLANDS, "a100", 0);
	struct sched_job_spec a = job(1, 1, 2, H), b = job(2, 1, 2, H), c = job(3, 1, 4, H);
	struct spur_error err;
	uint16_t ma, mb, mc;

	(void)state;
	sim_submit_now(sim, &a, H, 0, &err);
	sim_submit_now(sim, &b, H, 0, &err);
	sim_submit_now(sim, &c, H, 0, &err);
	ma = sim_job_gpus(sim, 1);
	mb = sim_job_gpus(sim, 2);
	mc = sim_job_gpus(sim, 3);
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, ma));
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, mb));
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, ma | mb));
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, mc));
	assert_int_equal(__builtin_popcount(mc), 4);
	assert_int_equal(ma & mb, 0);
	assert_int_equal((ma | mb) & mc, 0);
	sim_destroy(sim);
}

/* The baseline (first free GPUs) splits islands in the same sequence. */
static void test_gpu_first_free_baseline(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 1, H), b = job(2, 1, 2, H);
	struct spur_error err;

	(void)state;
	sched_config_default(&cfg);
	cfg.place = SCHED_PLACE_FIRST;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 1, 64, 1 << 20, "a100", SCHED_TOPO_PCIE_PAIRS, 0, NULL);
	sim_add_partition(sim, &p);
	sim_submit_now(sim, &a, H, 0, &err);
	sim_submit_now(sim, &b, H, 0, &err);
	assert_int_equal(sim_job_gpus(sim, 1), 0x1);
	assert_int_equal(sim_job_gpus(sim, 2), 0x6); /* GPUs 1,2: across two PCIe switches */
	assert_false(sched_node_mask_is_island(sim_sched(sim), 0, 0x6));
	sim_destroy(sim);
	/* topology-aware: the 2-GPU job gets a PCIe pair */
	sim = one_node(SCHED_TOPO_PCIE_PAIRS, "a100", 0);
	a = job(1, 1, 1, H);
	b = job(2, 1, 2, H);
	sim_submit_now(sim, &a, H, 0, &err);
	sim_submit_now(sim, &b, H, 0, &err);
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, sim_job_gpus(sim, 2)));
	/* and the 1-GPU job's partner stays free for another 1-GPU job, not
	 * a fresh pair */
	struct sched_job_spec c = job(3, 1, 1, H);
	sim_submit_now(sim, &c, H, 0, &err);
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0,
					      sim_job_gpus(sim, 1) | sim_job_gpus(sim, 3)));
	sim_destroy(sim);
}

/* Multi-node jobs prefer nodes under one leaf switch. */
static void test_leaf_switch(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 3, 8, H), c = job(3, 2, 8, H);
	struct spur_error err;
	struct sched_job_info info;

	(void)state;
	sim_add_nodes(sim, "a", 1, 4, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, "leafA");
	sim_add_nodes(sim, "b", 1, 4, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, "leafB");
	sim_add_partition(sim, &p);
	sim_submit_now(sim, &a, H, 0, &err); /* one node busy somewhere */
	sim_submit_now(sim, &b, H, 0, &err); /* 3 nodes: must fit one leaf */
	sim_submit_now(sim, &c, H, 0, &err); /* 2 nodes: one leaf */
	for (uint32_t id = 2; id <= 3; id++) {
		assert_int_equal(sched_job_info(sim_sched(sim), id, &info), 0);
		for (size_t k = 1; k < info.nalloc; k++)
			assert_int_equal(sched_node_leaf(sim_sched(sim), info.alloc[k].node),
					 sched_node_leaf(sim_sched(sim), info.alloc[0].node));
	}
	sim_destroy(sim);
}

/* --contiguous: the job's nodes are next to each other in the node table;
 * with only scattered nodes free it waits where another job starts. */
static void test_contiguous(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 2, 8, H), d = job(4, 2, 8, H),
			      e = job(5, 2, 8, H);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 5, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	a.nodelist = "n2";
	b.contiguous = true;
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_string_equal(sim_job_nodes(sim, 2), "n[3-4]"); /* not n1,n3 */
	/* n1 and n5 free, apart: a contiguous pair waits, another starts */
	d.contiguous = true;
	assert_int_equal(sim_submit_now(sim, &d, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_PENDING);
	assert_int_equal(sim_submit_now(sim, &e, H / 2, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 5), "n[1,5]");
	/* its reservation is a run of nodes too: it starts when one frees */
	sim_run_until(sim, sim_now(sim) + H + 1);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_RUNNING);
	assert_null(strchr(sim_job_nodes(sim, 4), ','));
	sim_destroy(sim);
}

/* -C [a|b]: all of a job's nodes share one of the alternatives (the one
 * that fits: here rack b, rack a being busy); -C f*N: at least N of its
 * nodes have f, the rest any; bad forms are refused. */
static void test_constraint_forms(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 2, 8, H), c = job(3, 3, 8, H),
			      bad = job(4, 1, 8, H);
	struct sched *sc;
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 6, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	sc = sim_sched(sim);
	/* rack a: n1-n3, rack b: n4-n6; n5 has "big" too */
	for (int i = 1; i <= 6; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(sched_node_set_features(sc, name,
							 i <= 3 ? "ra" : i == 5 ? "rb,big" : "rb",
							 &err),
				 0);
	}
	a.nodelist = "n2";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	b.constraint = "[ra|rb]";
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 2), "n[1,3]"); /* ra: n1, n3 free */
	/* now ra has no node free: 3 nodes of one rack means rb */
	c.constraint = "[ra|rb]&big*1";
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 3), "n[4-6]");
	bad.constraint = "(ra&rb)";
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), SPUR_EINVAL);
	bad.constraint = "big&(ra|rb)"; /* parentheses around alternatives: a|b */
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), 0);
	bad.id = 7;
	bad.constraint = "[ra|rb]&[ra|rb]";
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), SPUR_EINVAL);
	bad.constraint = "big*0";
	assert_int_equal(sim_submit_now(sim, &bad, H, 0, &err), SPUR_EINVAL);
	sim_destroy(sim);
	/* counts: -N3 -C big*2 on 4 nodes, two of them big */
	sim = sim_create(NULL);
	sim_add_nodes(sim, "m", 1, 4, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	sc = sim_sched(sim);
	assert_int_equal(sched_node_set_features(sc, "m3", "big", &err), 0);
	assert_int_equal(sched_node_set_features(sc, "m4", "big", &err), 0);
	c = job(5, 3, 8, H);
	c.constraint = "big*2";
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 5), "m[1,3-4]");
	/* its count alone sets the node count: big*2 is 2 nodes */
	c = job(6, 1, 1, H);
	c.constraint = "big*2";
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 6), SCHED_JOB_PENDING);
	/* scontrol update Features= takes the same forms: the matching OR
	 * now, a bad form refused */
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 6,
							      .time_limit = -1,
							      .constraint = "(big&x)" },
				   &err),
			 SPUR_EINVAL);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE, .job_id = 6,
							      .time_limit = -1,
							      .constraint = "[big|nope]" },
				   &err),
			 0);
	sim_run_until(sim, sim_now(sim) + H + 1); /* job 5 ends: m3, m4 free */
	assert_int_equal(sim_job_state(sim, 6), SCHED_JOB_RUNNING);
	assert_string_equal(sim_job_nodes(sim, 6), "m[3-4]");
	sim_destroy(sim);
}

/* OverSubscribe: YES:2 lets jobs asking -s share a CPU two ways (CPU-only
 * jobs filling an 8-CPU node twice over); a job that shares nothing takes
 * only whole free CPUs; FORCE:2 shares every job's. */
static void test_oversubscribe(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("cpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 0, H), b = job(2, 1, 0, H), c = job(3, 1, 0, H);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "c", 1, 1, 8, 1 << 20, NULL, SCHED_TOPO_NONE, 0, NULL);
	p.share_max = 2;
	sim_add_partition(sim, &p);
	a.ntasks = b.ntasks = c.ntasks = 8;
	a.oversubscribe = b.oversubscribe = true;
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING); /* the same 8 CPUs */
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_PENDING); /* no -s: whole CPUs */
	sim_run_until(sim, sim_now(sim) + H + 1);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	sim_destroy(sim);
	/* FORCE:2: jobs share without asking; a third waits */
	sim = sim_create(NULL);
	sim_add_nodes(sim, "c", 1, 1, 8, 1 << 20, NULL, SCHED_TOPO_NONE, 0, NULL);
	p.share_force = true;
	sim_add_partition(sim, &p);
	a = job(4, 1, 0, H), b = job(5, 1, 0, H), c = job(6, 1, 0, H);
	a.ntasks = b.ntasks = c.ntasks = 8;
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 6), SCHED_JOB_PENDING);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- shards */

static void test_shards(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 64); /* 8 shards per GPU */
	struct sched_job_spec sj[9], whole = job(20, 1, 8, H), seven = job(21, 1, 7, H);
	struct spur_error err;
	struct sched_job_info info;

	(void)state;
	for (int i = 0; i < 9; i++) {
		sj[i] = job((uint32_t)(1 + i), 1, 0, H);
		sj[i].shards_per_node = 1;
		assert_int_equal(sim_submit_now(sim, &sj[i], H, 0, &err), 0);
	}
	/* the first 8 pack onto one GPU; the 9th opens a second one */
	for (uint32_t id = 1; id <= 9; id++)
		assert_int_equal(sim_job_state(sim, id), SCHED_JOB_RUNNING);
	sched_job_info(sim_sched(sim), 1, &info);
	uint8_t g = info.alloc[0].shard_gpu;
	for (uint32_t id = 2; id <= 8; id++) {
		sched_job_info(sim_sched(sim), id, &info);
		assert_int_equal(info.alloc[0].shard_gpu, g);
	}
	sched_job_info(sim_sched(sim), 9, &info);
	assert_int_not_equal(info.alloc[0].shard_gpu, g);
	/* a whole-GPU job never lands on a shared GPU: 8 cannot fit, 6 would */
	assert_int_equal(sim_submit_now(sim, &whole, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 20), SCHED_JOB_PENDING);
	assert_int_equal(sim_submit_now(sim, &seven, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 21), SCHED_JOB_PENDING);
	struct sched_job_spec six = job(22, 1, 6, H);
	assert_int_equal(sim_submit_now(sim, &six, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 22), SCHED_JOB_RUNNING);
	sched_job_info(sim_sched(sim), 22, &info);
	assert_int_equal(info.alloc[0].gpu_mask & (1u << g), 0);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- arrays */

static void test_arrays(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(100, 1, 1, H), b = job(300, 1, 1, H), c = job(400, 1, 1, H);
	struct spur_error err;
	int running = 0;

	(void)state;
	sim_add_nodes(sim, "n", 1, 8, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	a.array = "0-99%10";
	assert_int_equal(sim_submit_now(sim, &a, 600, 0, &err), 0);
	for (uint32_t id = 100; id < 200; id++)
		running += sim_job_state(sim, id) == SCHED_JOB_RUNNING;
	assert_int_equal(running, 10);
	assert_int_equal(sim_job_reason(sim, 150), SCHED_REASON_ARRAY_TASK_LIMIT);
	assert_trace_has(sim, "job 100 submitted: array of 100 tasks (100-199) throttled");
	assert_int_equal(sched_array_task_id(sim_sched(sim), 100, 42), 142);
	sim_run_until_idle(sim);
	for (uint32_t id = 100; id < 200; id++)
		assert_int_equal(sim_job_state(sim, id), SCHED_JOB_COMPLETED);
	for (uint32_t id = 100; id < 200; id++) /* 10 at a time, 10 rounds */
		assert_int_equal(sim_job_end(sim, id), ((id - 100) / 10 + 1) * 600);
	b.array = "1,3,5";
	c.array = "0-15:4";
	assert_int_equal(sim_submit_now(sim, &b, 60, 0, &err), 0);
	assert_int_equal(sched_array_task_id(sim_sched(sim), 300, 5), 302);
	assert_int_equal(sched_array_task_id(sim_sched(sim), 300, 2), 0);
	assert_int_equal(sim_submit_now(sim, &c, 60, 0, &err), 0);
	assert_int_equal(sched_array_task_id(sim_sched(sim), 400, 12), 403);
	c = job(500, 1, 1, H);
	c.array = "0-5%";
	assert_int_equal(sim_submit_now(sim, &c, 60, 0, &err), SPUR_EPARSE);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- dependencies */

static void test_dependencies(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec ok = job(1, 1, 1, H), bad = job(2, 1, 1, H);
	struct sched_job_spec after_ok = job(3, 1, 1, H), after_bad = job(4, 1, 1, H);
	struct sched_job_spec notok = job(5, 1, 1, H), any = job(6, 1, 1, H), after = job(7, 1, 1, H);
	struct sched_job_spec missing = job(8, 1, 1, H);
	struct spur_error err;

	(void)state;
	sim_submit_now(sim, &ok, 100, 0, &err);
	sim_submit_now(sim, &bad, 200, 1, &err); /* exits 1 */
	after_ok.dependency = "afterok:1";
	after_bad.dependency = "afterok:2";
	after_bad.kill_invalid_dep = 1; /* --kill-on-invalid-dep=yes */
	notok.dependency = "afternotok:2";
	any.dependency = "afterany:1:2";
	after.dependency = "after:1";
	sim_submit_now(sim, &after_ok, 10, 0, &err);
	sim_submit_now(sim, &after_bad, 10, 0, &err);
	sim_submit_now(sim, &notok, 10, 0, &err);
	sim_submit_now(sim, &any, 10, 0, &err);
	sim_submit_now(sim, &after, 10, 0, &err);
	assert_int_equal(sim_job_state(sim, 7), SCHED_JOB_RUNNING); /* 1 has started */
	assert_int_equal(sim_job_reason(sim, 3), SCHED_REASON_DEPENDENCY);
	missing.dependency = "afterok:99";
	assert_int_equal(sim_submit_now(sim, &missing, 10, 0, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "Job dependency problem"));
	missing.dependency = "afterok:";
	assert_int_equal(sim_submit_now(sim, &missing, 10, 0, &err), SPUR_EPARSE);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_job_start(sim, 3), 100);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_CANCELLED);
	assert_int_equal(sim_job_reason(sim, 4), SCHED_REASON_DEPENDENCY_NEVER);
	assert_trace_has(sim, "[   200] job 4 cancelled: dependency never satisfied");
	assert_int_equal(sim_job_start(sim, 5), 200);
	assert_int_equal(sim_job_start(sim, 6), 200);
	/* without it (and no kill_invalid_depend), as Slurm: pending for good */
	missing.dependency = "afterok:2";
	assert_int_equal(sim_submit_now(sim, &missing, 10, 0, &err), SPUR_OK);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 8), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_reason(sim, 8), SCHED_REASON_DEPENDENCY_NEVER);
	sim_destroy(sim);
}

static void test_singleton_and_aftercorr(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec s1 = job(1, 1, 1, H), s2 = job(2, 1, 1, H);
	struct sched_job_spec a = job(10, 1, 1, H), b = job(20, 1, 1, H);
	struct spur_error err;

	(void)state;
	s1.name = s2.name = "train";
	s2.dependency = "singleton";
	sim_submit_now(sim, &s1, 100, 0, &err);
	sim_submit_now(sim, &s2, 100, 0, &err);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_DEPENDENCY);
	a.array = "0-2";
	b.array = "0-2";
	b.dependency = "aftercorr:10";
	sim_submit(sim, 1000, &a, 50, 0);
	sim_submit(sim, 1000, &b, 10, 0);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 2), 100);
	for (uint32_t k = 0; k < 3; k++) {
		assert_int_equal(sim_job_state(sim, 20 + k), SCHED_JOB_COMPLETED);
		assert_true(sim_job_start(sim, 20 + k) >= sim_job_end(sim, 10 + k));
	}
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- reservations */

static void test_reservation(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_resv_spec r = {
		.name = "maint", .nodes = "n[1-2]", .start = 1000, .end = 5000, .users = "bob"
	};
	struct sched_job_spec outsider = job(1, 2, 8, 2000), member = job(2, 2, 8, 1000);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 3, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	assert_int_equal(sched_add_reservation(sim_sched(sim), &r, &err), 0);
	/* 2 nodes for 2000 s from t=0 would overlap [1000, 5000) on n[1-2]:
	 * with only n3 outside, the job waits until the reservation ends */
	sim_submit_now(sim, &outsider, 2000, 0, &err);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_PENDING);
	member.reservation = "maint";
	member.user = "bob";
	sim_submit_now(sim, &member, 1000, 0, &err);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_RESERVATION);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 2), 1000);
	assert_string_equal(sim_job_nodes(sim, 2), "n[1-2]");
	assert_int_equal(sim_job_start(sim, 1), 5000);
	member.reservation = "nope";
	member.id = 3;
	assert_int_equal(sim_submit_now(sim, &member, 1, 0, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "Requested reservation is invalid"));
	sim_destroy(sim);
}

/* Flags=FLEX: its jobs start before it and use nodes outside it. */
static void test_reservation_flex(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_resv_spec r = { .name = "f", .nodes = "n1", .start = 1000, .end = 5000,
				     .users = "bob", .flex = true };
	struct sched_job_spec a = job(1, 2, 8, 500);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 3, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	assert_int_equal(sched_add_reservation(sim_sched(sim), &r, &err), 0);
	a.reservation = "f";
	a.user = "bob";
	assert_int_equal(sim_submit_now(sim, &a, 500, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING); /* at 0, before it */
	assert_int_not_equal(strcmp(sim_job_nodes(sim, 1), "n1"), 0); /* 2 nodes: one outside */
	sim_destroy(sim);
}

/* TRES=gres/gpu=N: the reservation holds GPUs of its nodes, not the whole
 * nodes; its own jobs get no more than it holds. */
static void test_reservation_gpus(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_resv_spec r = { .name = "g", .gpus = "n1:6", .start = 0, .end = 5000,
				     .users = "bob" };
	struct sched_job_spec a = job(1, 1, 4, 1000), b = job(2, 1, 2, 1000), c = job(3, 1, 1, 1000),
			      d = job(4, 1, 4, 1000), e = job(5, 1, 3, 1000);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 1, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	assert_int_equal(sched_add_reservation(sim_sched(sim), &r, &err), 0);
	/* others: 8 - 6 = 2 GPUs of n1 */
	assert_int_equal(sim_submit_now(sim, &a, 1000, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_PENDING);
	assert_int_equal(sim_submit_now(sim, &b, 1000, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	/* its own: 4 of its 6, then 3 more is past it, 2 fits */
	d.reservation = e.reservation = c.reservation = "g";
	d.user = e.user = c.user = "bob";
	assert_int_equal(sim_submit_now(sim, &d, 1000, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_RUNNING);
	assert_int_equal(sim_submit_now(sim, &e, 1000, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_PENDING);
	c.gpus_per_node = 2;
	assert_int_equal(sim_submit_now(sim, &c, 1000, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	/* a count past the node's GPUs is refused */
	r.name = "big";
	r.gpus = "n1:9";
	assert_int_equal(sched_add_reservation(sim_sched(sim), &r, &err), SPUR_ERANGE);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- preemption */

static void test_preempt_partition(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec low = part("low", "ALL", true), high = part("high", "ALL", false);
	struct sched_job_spec a = job(1, 2, 8, 10 * H), b = job(2, 2, 8, H);
	struct spur_error err;

	(void)state;
	sched_config_default(&cfg);
	cfg.preempt_partition_prio = true;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 2, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	low.priority_tier = 1;
	low.preempt_requeue = true;
	high.priority_tier = 10;
	a.requeue = true;
	sim_add_partition(sim, &low);
	sim_add_partition(sim, &high);
	sim_submit_now(sim, &a, 5 * H, 0, &err);
	b.partitions = "high";
	sim_run_until(sim, 100);
	sim_submit_now(sim, &b, H, 0, &err);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_PENDING); /* requeued */
	assert_trace_has(sim, "[   100] job 1 preempted by job 2 (requeue)");
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_job_start(sim, 1), 100 + H);
	sim_destroy(sim);
}

/* PreemptMode=REQUEUE cancels a job that may not be requeued
 * (--no-requeue), as Slurm does; a partition with PreemptMode=OFF is never
 * preempted. */
static void test_preempt_no_requeue(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec low = part("low", "n1", true), off = part("off", "n2", false),
			       high = part("high", "ALL", false);
	struct sched_job_spec a = job(1, 1, 8, 10 * H), b = job(2, 1, 8, 10 * H),
			      c = job(3, 1, 8, H), d = job(4, 1, 8, H);
	struct spur_error err;

	(void)state;
	sched_config_default(&cfg);
	cfg.preempt_partition_prio = true;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 2, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	low.priority_tier = off.priority_tier = 1;
	low.preempt_requeue = off.preempt_requeue = true;
	off.preempt_off = true;
	high.priority_tier = 10;
	sim_add_partition(sim, &low);
	sim_add_partition(sim, &off);
	sim_add_partition(sim, &high);
	a.requeue = false;
	b.requeue = true;
	b.partitions = "off";
	c.partitions = d.partitions = "high";
	sim_submit_now(sim, &a, 5 * H, 0, &err);
	sim_submit_now(sim, &b, 5 * H, 0, &err);
	sim_run_until(sim, 100);
	sim_submit_now(sim, &c, H, 0, &err);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_PREEMPTED);
	assert_trace_has(sim, "job 1 preempted by job 3 (cancel)");
	sim_submit_now(sim, &d, H, 0, &err);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_PENDING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	sim_destroy(sim);
}

/* A stop the driver logged (preemption, node failure) replays into the
 * state the live core reached: the same job states, the same free GPUs. */
static void test_stopped_replays(void **state)
{
	struct sched_config cfg;
	struct sim *live, *again;
	struct sched_part_spec low = part("low", "ALL", true), high = part("high", "ALL", false);
	struct sched_job_spec a = job(1, 1, 8, 10 * H), b = job(2, 1, 8, H), c = job(3, 1, 4, H);
	struct sched_alloc_node a_alloc[1], b_alloc[1], c_alloc[1];
	struct sched_job_info info;
	struct spur_error err;
	struct sched_actions acts;

	(void)state;
	sched_config_default(&cfg);
	cfg.preempt_partition_prio = true;
	live = sim_create(&cfg);
	again = sim_create(&cfg);
	low.priority_tier = 1;
	low.preempt_requeue = true;
	high.priority_tier = 10;
	b.partitions = "high";
	a.requeue = true;
	c.partitions = "high"; /* c cannot be preempted: a is the victim */
	for (struct sim **x = (struct sim *[]){ live, again, NULL }; *x; x++) {
		sim_add_nodes(*x, "n", 1, 2, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
		sim_add_partition(*x, &low);
		sim_add_partition(*x, &high);
	}
	/* live: a runs on n1, c on n2; b preempts a (requeue) */
	sim_submit_now(live, &a, 5 * H, 0, &err);
	sim_submit_now(live, &c, 5 * H, 0, &err);
	assert_int_equal(sched_job_info(sim_sched(live), 1, &info), 0);
	a_alloc[0] = info.alloc[0];
	assert_int_equal(sched_job_info(sim_sched(live), 3, &info), 0);
	c_alloc[0] = info.alloc[0];
	sim_run_until(live, 100);
	sim_submit_now(live, &b, H, 0, &err);
	assert_int_equal(sim_job_state(live, 1), SCHED_JOB_PENDING);
	assert_int_equal(sched_job_info(sim_sched(live), 2, &info), 0);
	b_alloc[0] = info.alloc[0];
	assert_int_equal(b_alloc[0].node, a_alloc[0].node);

	/* the log: submit a, c; started a, c; stopped a; started b */
	for (const struct sched_job_spec *j = NULL, *const *x =
		     (const struct sched_job_spec *const[]){ &a, &c, &b, NULL };
	     (j = *x); x++) {
		struct sched_event ev = { .type = SCHED_EV_SUBMIT, .job = j, .defer_cycle = true };

		assert_int_equal(sched_step(sim_sched(again), &ev, &acts, &err), 0);
	}
	struct sched_event st = { .type = SCHED_EV_STARTED, .job_id = 1, .alloc = a_alloc,
				  .nalloc = 1, .end = 10 * H };
	assert_int_equal(sched_step(sim_sched(again), &st, &acts, &err), 0);
	st.job_id = 3;
	st.alloc = c_alloc;
	assert_int_equal(sched_step(sim_sched(again), &st, &acts, &err), 0);
	struct sched_event stop = { .type = SCHED_EV_STOPPED, .time = 100, .job_id = 1,
				    .stop_state = SCHED_JOB_PENDING, .defer_cycle = true };
	assert_int_equal(sched_step(sim_sched(again), &stop, &acts, &err), 0);
	/* stopping it again (a job not running) fails and changes nothing */
	assert_int_equal(sched_step(sim_sched(again), &stop, &acts, &err), SPUR_ESTATE);
	st.time = 100;
	st.job_id = 2;
	st.alloc = b_alloc;
	st.end = 100 + H;
	assert_int_equal(sched_step(sim_sched(again), &st, &acts, &err), 0);
	for (uint32_t id = 1; id <= 3; id++)
		assert_int_equal(sim_job_state(again, id), sim_job_state(live, id));
	for (uint32_t n = 0; n < 2; n++)
		assert_int_equal(sched_node_free_gpus(sim_sched(again), n),
				 sched_node_free_gpus(sim_sched(live), n));
	/* a stop into a state no stop ends in is refused */
	stop.job_id = 3;
	stop.stop_state = SCHED_JOB_COMPLETED;
	assert_int_equal(sched_step(sim_sched(again), &stop, &acts, &err), SPUR_EINVAL);
	assert_int_equal(sim_job_state(again, 3), SCHED_JOB_RUNNING);
	/* a node-failure stop ends it */
	stop.stop_state = SCHED_JOB_NODE_FAIL;
	assert_int_equal(sched_step(sim_sched(again), &stop, &acts, &err), 0);
	assert_int_equal(sim_job_state(again, 3), SCHED_JOB_NODE_FAIL);
	assert_int_equal(sched_node_free_gpus(sim_sched(again), c_alloc[0].node), 0xff);
	sim_destroy(again);
	sim_destroy(live);
}

static void test_preempt_qos(void **state)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_qos_spec scav = { "scavenger", 0, NULL, false }, urgent = { "urgent", 100, "scavenger", false };
	struct sched_job_spec a = job(1, 1, 8, 10 * H), b = job(2, 1, 8, H), c = job(3, 1, 8, H);
	struct spur_error err;

	(void)state;
	sched_config_default(&cfg);
	cfg.preempt_qos = true;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 1, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	assert_int_equal(sched_add_qos(sim_sched(sim), &scav, &err), 0);
	assert_int_equal(sched_add_qos(sim_sched(sim), &urgent, &err), 0);
	a.qos = "scavenger";
	b.qos = "urgent";
	c.qos = "scavenger";
	sim_submit_now(sim, &a, 5 * H, 0, &err);
	sim_submit_now(sim, &b, H, 0, &err);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_PREEMPTED);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	/* equal QoS never preempts */
	sim_submit_now(sim, &c, H, 0, &err);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_PENDING);
	assert_int_equal(sim_preempted(sim), 1);
	c.id = 4;
	c.qos = "gold";
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), SPUR_ENOENT);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- reasons */

static void test_pending_reasons(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true), down = part("down", "ALL", false);
	struct sched_job_spec held = job(1, 1, 1, H), later = job(2, 1, 1, H), toolong = job(3, 1, 1, 9 * H);
	struct sched_job_spec toobig = job(4, 3, 1, H), indown = job(5, 1, 1, H);
	struct spur_error err;
	struct sched_event ev = { .type = SCHED_EV_RELEASE, .job_id = 1 };

	(void)state;
	sim_add_nodes(sim, "n", 1, 4, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	p.max_time = 8 * H;
	p.max_nodes = 2;
	down.state = SCHED_PART_DOWN;
	sim_add_partition(sim, &p);
	sim_add_partition(sim, &down);
	held.hold = true;
	later.begin = 500;
	indown.partitions = "down";
	sim_submit_now(sim, &held, 10, 0, &err);
	sim_submit_now(sim, &later, 10, 0, &err);
	sim_submit_now(sim, &toolong, 10, 0, &err);
	sim_submit_now(sim, &toobig, 10, 0, &err);
	sim_submit_now(sim, &indown, 10, 0, &err);
	assert_int_equal(sim_job_reason(sim, 1), SCHED_REASON_HELD_USER);
	assert_int_equal(sim_job_reason(sim, 2), SCHED_REASON_BEGIN_TIME);
	assert_int_equal(sim_job_reason(sim, 3), SCHED_REASON_PART_TIME_LIMIT);
	assert_int_equal(sim_job_reason(sim, 4), SCHED_REASON_PART_NODE_LIMIT);
	assert_int_equal(sim_job_reason(sim, 5), SCHED_REASON_PART_DOWN);
	assert_string_equal(sched_reason_name(SCHED_REASON_PART_TIME_LIMIT), "PartitionTimeLimit");
	assert_trace_has(sim, "job 1 pending (JobHeldUser)");
	assert_int_equal(sim_event(sim, ev, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 2), 500); /* the timer woke the scheduler */
	ev.job_id = 99;
	assert_int_equal(sim_event(sim, ev, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "Invalid job id specified: 99"));
	struct sched_job_spec nopart = job(6, 1, 1, H);
	nopart.partitions = "nope";
	assert_int_equal(sim_submit_now(sim, &nopart, 10, 0, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "invalid partition name specified: nope"));
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- failures */

static void test_gpu_failure_requeues(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 4, H);
	struct spur_error err;
	struct sched_event fail = { .type = SCHED_EV_GPU_FAIL, .node = "n1", .gpu = 3 };

	(void)state;
	sim_add_nodes(sim, "n", 1, 2, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	a.requeue = true;
	sim_submit_now(sim, &a, 1000, 0, &err);
	sim_submit_now(sim, &b, 1000, 0, &err);
	assert_string_equal(sim_job_nodes(sim, 1), "n1");
	sim_run_until(sim, 100);
	assert_int_equal(sim_event(sim, fail, &err), 0);
	assert_trace_has(sim, "[   100] node n1 gpu 3 failed: drain");
	assert_trace_has(sim, "[   100] job 1 requeued: node n1 failed");
	assert_string_equal(sched_node_state(sim_sched(sim), 0), "DRAINED");
	/* the requeued job waits for n2 (busy with job 2), never back on n1 */
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_COMPLETED);
	assert_string_equal(sim_job_nodes(sim, 1), "n2");
	assert_int_equal(sim_job_start(sim, 1), 1000);
	sim_destroy(sim);
}

static void test_node_down_and_cancel(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H);
	struct spur_error err;
	struct sched_event down = { .type = SCHED_EV_NODE_DOWN, .node = "n1", .reason = "dead" };
	struct sched_event cancel = { .type = SCHED_EV_CANCEL, .job_id = 2 };

	(void)state;
	sim_add_nodes(sim, "n", 1, 1, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	sim_submit_now(sim, &a, 1000, 0, &err);
	sim_submit_now(sim, &b, 1000, 0, &err);
	assert_int_equal(sim_event(sim, down, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_NODE_FAIL);
	assert_string_equal(sched_node_state(sim_sched(sim), 0), "DOWN");
	assert_int_equal(sim_event(sim, cancel, &err), 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_CANCELLED);
	assert_int_equal(sim_event(sim, cancel, &err), SPUR_ESTATE);
	assert_non_null(strstr(err.msg, "already completing or completed"));
	down.node = "zz";
	assert_int_equal(sim_event(sim, down, &err), SPUR_ENOENT);
	sim_destroy(sim);
}

/* ---------------------------------------------------------------- priority */

/* Fair share: after account "heavy" used the cluster, "light" goes first
 * even though heavy's job was submitted earlier. */
static void test_fairshare(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec use = job(1, 1, 8, H), heavy = job(2, 1, 8, H), light = job(3, 1, 8, H);
	struct sched_job_info hi, li;
	struct spur_error err;

	(void)state;
	use.account = heavy.account = "heavy";
	light.account = "light";
	sched_set_account_shares(sim_sched(sim), "light", 1, &err);
	sim_submit_now(sim, &use, H, 0, &err);
	sim_run_until(sim, 100);
	sim_submit_now(sim, &heavy, H, 0, &err);
	sim_run_until(sim, 200);
	sim_submit_now(sim, &light, H, 0, &err);
	sched_job_info(sim_sched(sim), 2, &hi);
	sched_job_info(sim_sched(sim), 3, &li);
	assert_true(li.priority > hi.priority);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 3), H);
	assert_int_equal(sim_job_start(sim, 2), 2 * H);
	sim_destroy(sim);
}

/* Partition tier orders before priority; nice lowers priority. */
static void test_tier_and_nice(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec lo = part("lo", "ALL", true), hi = part("hi", "ALL", false);
	struct sched_job_spec busy = job(1, 1, 8, H), a = job(2, 1, 8, H), b = job(3, 1, 8, H);
	struct sched_job_spec c = job(4, 1, 8, H), d = job(5, 1, 8, H);
	struct spur_error err;

	(void)state;
	sim_add_nodes(sim, "n", 1, 1, 64, 1 << 20, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	hi.priority_tier = 5;
	sim_add_partition(sim, &lo);
	sim_add_partition(sim, &hi);
	sim_submit_now(sim, &busy, 100, 0, &err);
	b.partitions = "hi";
	d.nice = 5000;
	sim_submit_now(sim, &a, 100, 0, &err);
	sim_submit_now(sim, &b, 100, 0, &err);
	sim_submit_now(sim, &d, 100, 0, &err);
	sim_submit_now(sim, &c, 100, 0, &err);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_start(sim, 3), 100); /* tier first */
	assert_int_equal(sim_job_start(sim, 2), 200);
	assert_int_equal(sim_job_start(sim, 4), 300); /* nice job last */
	assert_int_equal(sim_job_start(sim, 5), 400);
	sim_destroy(sim);
}

/* Node lists, exclusions, features, exclusive, memory, weight, time limit. */
static void test_job_options(void **state)
{
	struct sim *sim = sim_create(NULL);
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_node_spec heavy;
	struct sched_job_spec a = job(1, 1, 1, H), b = job(2, 1, 1, H), c = job(3, 1, 0, H);
	struct sched_job_spec d = job(4, 1, 1, H), e = job(5, 1, 1, H), f = job(6, 1, 1, 600);
	struct sched_job_spec g = job(7, 1, 1, H);
	struct spur_error err;
	struct sched_event drain = { .type = SCHED_EV_NODE_DRAIN, .node = "n3", .reason = "x" };

	(void)state;
	sim_add_nodes(sim, "n", 1, 3, 64, 1 << 10, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	memset(&heavy, 0, sizeof(heavy));
	heavy.name = "big1";
	heavy.cpus = 256;
	heavy.mem_mb = 1 << 20;
	heavy.weight = 100; /* used last */
	heavy.gpu_type = "mi300x";
	heavy.features = "mi300x,bigmem";
	sched_node_spec_preset(&heavy, SCHED_TOPO_MI300X);
	assert_int_equal(sched_add_node(sim_sched(sim), &heavy, &err), 0);
	sim_add_partition(sim, &p);
	a.nodelist = "n2";
	b.exclude = "n[1-3]";
	c.constraint = "bigmem";
	d.mem_per_node_mb = 4096; /* only big1 has that much */
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &d, H, 0, &err), 0);
	assert_string_equal(sim_job_nodes(sim, 1), "n2");
	assert_string_equal(sim_job_nodes(sim, 2), "big1");
	assert_string_equal(sim_job_nodes(sim, 3), "big1");
	assert_string_equal(sim_job_nodes(sim, 4), "big1");
	/* weight: a plain 1-GPU job avoids big1 (weight 100) while n* have room */
	assert_int_equal(sim_submit_now(sim, &g, H, 0, &err), 0);
	assert_int_equal(strncmp(sim_job_nodes(sim, 7), "n", 1), 0);
	/* exclusive: a whole node, nothing else beside it */
	e.exclusive = true;
	e.nodelist = "n1";
	assert_int_equal(sim_submit_now(sim, &e, H, 0, &err), 0);
	if (!strcmp(sim_job_nodes(sim, 7), "n1"))
		assert_int_equal(sim_job_state(sim, 5), SCHED_JOB_PENDING);
	else
		assert_int_equal(sched_node_free_gpus(sim_sched(sim), 0), 0);
	/* a required node that is drained */
	assert_int_equal(sim_event(sim, drain, &err), 0);
	struct sched_job_spec r = job(8, 1, 1, H);
	r.nodelist = "n3";
	assert_int_equal(sim_submit_now(sim, &r, H, 0, &err), 0);
	assert_int_equal(sim_job_reason(sim, 8), SCHED_REASON_REQ_NODE_NOT_AVAIL);
	r.id = 9;
	r.nodelist = "zz1";
	assert_int_equal(sim_submit_now(sim, &r, H, 0, &err), SPUR_ENOENT);
	assert_string_equal(err.msg, "Invalid node name specified"); /* Slurm's words */
	/* runtime past the limit: TIMEOUT at the limit */
	assert_int_equal(sim_submit_now(sim, &f, 5000, 0, &err), 0);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 6), SCHED_JOB_TIMEOUT);
	assert_int_equal(sim_job_end(sim, 6) - sim_job_start(sim, 6), 600);
	sim_destroy(sim);
}

/* Every allocation failure in set-up and submission reports SPUR_ENOMEM and
 * leaves the scheduler usable: the same submission then succeeds. */
static void test_alloc_failures(void **state)
{
	struct sched *s = NULL;
	struct spur_error err;
	struct sched_node_spec n;
	struct sched_part_spec p = part("gpu", "ALL", true);
	struct sched_job_spec j = job(1, 1, 2, H);
	struct sched_event ev = { .type = SCHED_EV_SUBMIT, .job = &j, .defer_cycle = true };
	struct sched_actions acts;
	struct sched_job_info info;

	(void)state;
	memset(&n, 0, sizeof(n));
	n.name = "n1";
	n.cpus = 8;
	n.gpu_type = "mi300x";
	n.features = "a,b";
	n.switch_name = "leaf";
	sched_node_spec_preset(&n, SCHED_TOPO_MI300X);
	ALLOC_SWEEP(!(s = sched_create(NULL, &err)), err.code, (void)0);
	ALLOC_SWEEP(sched_add_node(s, &n, &err), err.code, (void)0);
	ALLOC_SWEEP(sched_add_partition(s, &p, &err), err.code, (void)0);
	j.array = "0-3";
	j.dependency = "singleton";
	j.constraint = "a";
	ALLOC_SWEEP(sched_step(s, &ev, &acts, &err), err.code, (void)0);
	for (uint32_t id = 1; id <= 4; id++) {
		assert_int_equal(sched_job_info(s, id, &info), 0);
		assert_int_equal(info.state, SCHED_JOB_PENDING);
	}
	assert_int_equal(sched_job_info(s, 5, &info), SPUR_ENOENT);
	sched_destroy(s);
}

/* Links reported later (by an agent's discovery) steer placement: a node
 * configured as one hive turns out to be two islands. */
static void test_set_links(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_node_spec isl = { 0 };
	struct sched_job_spec a = job(1, 1, 2, H), b = job(2, 1, 4, H);
	struct spur_error err;

	(void)state;
	sched_node_spec_preset(&isl, SCHED_TOPO_NVLINK_ISLANDS);
	assert_int_equal(sched_node_set_links(sim_sched(sim), "n1", isl.links, 8, &err), 0);
	assert_int_equal(sched_node_set_links(sim_sched(sim), "n1", isl.links, 4, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "4 GPUs reported, 8 configured"));
	assert_int_equal(sched_node_set_links(sim_sched(sim), "zz", isl.links, 8, &err), SPUR_ENOENT);
	isl.links[0][0] = SCHED_LINK_XGMI;
	assert_int_equal(sched_node_set_links(sim_sched(sim), "n1", isl.links, 8, &err), SPUR_EINVAL);
	sim_submit_now(sim, &a, H, 0, &err);
	sim_submit_now(sim, &b, H, 0, &err);
	assert_true(sched_node_mask_is_island(sim_sched(sim), 0, sim_job_gpus(sim, 2)));
	assert_int_equal(__builtin_popcount(sim_job_gpus(sim, 2)), 4);
	sim_destroy(sim);
}

/* Regression: with no time limits there is no timer to arm, and a cycle
 * whose last candidate started must still succeed. */
static void test_no_limits_no_timer(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched_job_spec a = job(1, 1, 1, SCHED_INFINITE), b = job(2, 1, 1, SCHED_INFINITE);
	struct spur_error err;

	(void)state;
	assert_int_equal(sim_submit_now(sim, &a, 10, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, 10, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	sim_run_until_idle(sim);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_COMPLETED);
	sim_destroy(sim);
}

/* The same workload twice gives the same trace: the core is deterministic. */
static void test_deterministic(void **state)
{
	char *traces[2];

	(void)state;
	for (int run = 0; run < 2; run++) {
		struct sim *sim = sim_create(NULL);
		struct sched_part_spec p = part("gpu", "ALL", true);
		struct sched_job_spec js[60];

		sim_add_nodes(sim, "a", 2, 6, 64, 1 << 20, "a100", SCHED_TOPO_NVLINK_ISLANDS, 0, "l1");
		sim_add_nodes(sim, "b", 2, 6, 64, 1 << 20, "a100", SCHED_TOPO_PCIE_PAIRS, 0, "l2");
		sim_add_partition(sim, &p);
		for (uint32_t i = 0; i < 60; i++) {
			js[i] = job(i + 1, 1 + i % 3, 1u << (i % 4), (int64_t)(1 + i % 5) * 600);
			sim_submit(sim, (int64_t)i * 37, &js[i], (int64_t)(1 + (i * 7) % 5) * 500, 0);
		}
		sim_run_until_idle(sim);
		traces[run] = spur_strdup(sched_trace(sim_sched(sim)));
		sim_destroy(sim);
	}
	assert_true(strlen(traces[0]) > 1000);
	assert_string_equal(traces[0], traces[1]);
	spur_free(traces[0]);
	spur_free(traces[1]);
}

/* ---------------------------------------------------------------- purge */

/* MinJobAge: ended jobs are forgotten while others run and wait; what is
 * left is found by id, running jobs moved in the table still give their
 * GPUs back, and a purged job can no longer be depended on. */
static void test_purge(void **state)
{
	struct sim *sim = one_node(SCHED_TOPO_MI300X, "mi300x", 0);
	struct sched *s = sim_sched(sim);
	static struct sched_job_spec jobs[300];
	struct sched_job_info info;
	struct spur_error err;
	uint32_t purged = 0, refused = 0;

	(void)state;
	for (uint32_t i = 1; i <= 300; i++) {
		jobs[i - 1] = job(i, 1, 1, H);
		assert_int_equal(sim_submit_now(sim, &jobs[i - 1], 10 * (i % 7 + 1), 0, &err), 0);
	}
	sim_run_until(sim, 400);
	for (uint32_t i = 1; i <= 300; i++) {
		assert_int_equal(sched_job_info(s, i, &info), 0);
		if (info.state == SCHED_JOB_PENDING || info.state == SCHED_JOB_RUNNING) {
			assert_int_equal(sched_job_purge(s, i, &err), SPUR_ESTATE);
			refused++;
		} else {
			assert_int_equal(sched_job_purge(s, i, &err), 0);
			purged++;
		}
	}
	assert_true(purged > 50 && refused > 100);
	assert_int_equal(sched_job_purge(s, 1, &err), SPUR_ENOENT);
	for (uint32_t i = 1; i <= 300; i++) {
		int rc = sched_job_info(s, i, &info);

		assert_true(rc == 0 ? info.id == i : rc == SPUR_ENOENT);
	}
	jobs[0] = job(301, 1, 1, H);
	jobs[0].dependency = "afterok:1";
	assert_int_equal(sim_submit_now(sim, &jobs[0], 10, 0, &err), SPUR_ENOENT);
	sim_run_until_idle(sim);
	for (uint32_t i = 1, done = 0; i <= 300; i++) {
		if (!sched_job_info(s, i, &info)) {
			assert_int_equal(info.state, SCHED_JOB_COMPLETED);
			assert_int_equal(sched_job_purge(s, i, &err), 0);
			done++;
		}
		if (i == 300)
			assert_int_equal(done, refused);
	}
	assert_int_equal(sched_node_free_gpus(s, 0), 0xff);
	jobs[1] = job(302, 1, 8, H);
	assert_int_equal(sim_submit_now(sim, &jobs[1], 10, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 302), SCHED_JOB_RUNNING);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requeue),
		cmocka_unit_test(test_max_job_test),
		cmocka_unit_test(test_array_window),
		cmocka_unit_test(test_array_one_record),
		cmocka_unit_test(test_gres_types),
		cmocka_unit_test(test_gpu_islands),
		cmocka_unit_test(test_gpu_first_free_baseline),
		cmocka_unit_test(test_leaf_switch),
		cmocka_unit_test(test_contiguous),
		cmocka_unit_test(test_constraint_forms),
		cmocka_unit_test(test_oversubscribe),
		cmocka_unit_test(test_shards),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_singleton_and_aftercorr),
		cmocka_unit_test(test_reservation),
		cmocka_unit_test(test_reservation_flex),
		cmocka_unit_test(test_reservation_gpus),
		cmocka_unit_test(test_preempt_partition),
		cmocka_unit_test(test_preempt_no_requeue),
		cmocka_unit_test(test_stopped_replays),
		cmocka_unit_test(test_preempt_qos),
		cmocka_unit_test(test_pending_reasons),
		cmocka_unit_test(test_gpu_failure_requeues),
		cmocka_unit_test(test_node_down_and_cancel),
		cmocka_unit_test(test_fairshare),
		cmocka_unit_test(test_tier_and_nice),
		cmocka_unit_test(test_job_options),
		cmocka_unit_test(test_alloc_failures),
		cmocka_unit_test(test_set_links),
		cmocka_unit_test(test_no_limits_no_timer),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_purge),
	};

	return cmocka_run_group_tests_name("features", tests, NULL, NULL);
}
