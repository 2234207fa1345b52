/* SPDX-License-Identifier: Apache-2.0 */
/* Associations, QOS and limits in the core, on the simulated clock: the
 * TRES text, Grp limits over a subtree, Max limits inherited down the
 * tree, QOS limits overriding the association's, submit limits at a live
 * submission only, and what each association holds as jobs come and go. */
#include "simtest.h"

#include <stdio.h>

static struct sim *cluster(bool enforce)
{
	struct sched_config cfg;
	struct sim *sim;
	struct sched_part_spec p = part("gpu", "ALL", true);

	sched_config_default(&cfg);
	cfg.enforce_assoc = cfg.enforce_limits = cfg.enforce_qos = enforce;
	sim = sim_create(&cfg);
	sim_add_nodes(sim, "n", 1, 4, 64, 512 * 1024, "mi300x", SCHED_TOPO_MI300X, 0, NULL);
	sim_add_partition(sim, &p);
	return sim;
}

static void account(struct sim *sim, const char *name, const char *parent, const char *grp,
		    int64_t max_jobs)
{
	struct sched_account_spec a = { .name = name, .parent = parent };
	struct spur_error err;

	sched_limits_none(&a.lim);
	a.lim.max_jobs = max_jobs;
	assert_int_equal(sched_tres_parse(sim_sched(sim), grp, a.lim.grp_tres, &err), 0);
	assert_int_equal(sched_set_account(sim_sched(sim), &a, &err), 0);
}

static void user(struct sim *sim, const char *u, const char *acct)
{
	struct sched_user_spec s = { .user = u, .account = acct };
	struct spur_error err;

	sched_limits_none(&s.lim);
	assert_int_equal(sched_set_user_assoc(sim_sched(sim), &s, &err), 0);
}

static const char *reason_of(struct sim *sim, uint32_t id)
{
	return sched_reason_name(sim_job_reason(sim, id));
}

static void test_tres_text(void **state)
{
	struct sim *sim = cluster(false);
	int64_t t[SCHED_TRES_MAX];
	char buf[256];
	struct spur_error err;

	(void)state;
	for (int i = 0; i < SCHED_TRES_MAX; i++)
		t[i] = SCHED_NO_LIMIT;
	assert_int_equal(sched_tres_parse(sim_sched(sim),
					  "cpu=4,mem=10G,node=2,gres/gpu=8,gres/gpu:mi300x=4", t,
					  &err),
			 0);
	assert_int_equal(t[SCHED_TRES_MEM], 10240);
	sched_tres_format(sim_sched(sim), t, buf, sizeof(buf));
	assert_string_equal(buf, "cpu=4,mem=10G,node=2,gres/gpu=8,gres/gpu:mi300x=4");
	/* a refused text changes nothing */
	assert_int_equal(sched_tres_parse(sim_sched(sim), "cpu=1,license/x=2", t, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "license/x"));
	assert_int_equal(t[SCHED_TRES_CPU], 4);
	assert_int_equal(sched_tres_parse(sim_sched(sim), "gres/gpu:h100=1", t, &err), SPUR_EINVAL);
	assert_int_equal(sched_tres_parse(sim_sched(sim), "cpu=-1", t, &err), 0);
	assert_int_equal(t[SCHED_TRES_CPU], SCHED_NO_LIMIT);
	sim_destroy(sim);
}

/* GrpTRES holds for the subtree: a sub-account's job counts in its
 * parent's; the waiting job starts when the first ends. */
static void test_grp_tres_subtree(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H), c = job(3, 1, 8, H);
	struct sched_usage u;
	struct spur_error err;

	(void)state;
	account(sim, "ml", "root", "gres/gpu=8", SCHED_NO_LIMIT);
	account(sim, "ml-sub", "ml", "", SCHED_NO_LIMIT);
	account(sim, "other", NULL, "", SCHED_NO_LIMIT);
	user(sim, "alice", "ml");
	user(sim, "alice", "ml-sub");
	user(sim, "alice", "other");
	b.account = "ml-sub";
	c.account = "other";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	assert_string_equal(reason_of(sim, 2), "AssocGrpGRES");
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING); /* not held by ml's limit */
	assert_int_equal(sched_usage(sim_sched(sim), "ml", NULL, NULL, &u), 0);
	assert_int_equal(u.tres[SCHED_TRES_GPU], 8);
	assert_int_equal(u.jobs, 1);
	assert_int_equal(u.submitted, 2);
	sim_run_until(sim, H + 1);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	sim_run_until_idle(sim);
	assert_int_equal(sched_usage(sim_sched(sim), "ml", NULL, NULL, &u), 0);
	assert_int_equal(u.tres[SCHED_TRES_GPU], 0);
	assert_int_equal(u.submitted, 0);
	sim_destroy(sim);
}

/* An account's MaxJobs is each user's unless the user's association sets
 * its own; a QOS' MaxJobsPerUser overrides both. */
static void test_max_jobs_inherited(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_job_spec a = job(1, 1, 1, H), b = job(2, 1, 1, H), c = job(3, 1, 1, H);
	struct sched_qos_limits_spec q = { .name = "many" };
	struct spur_error err;

	(void)state;
	account(sim, "ml", NULL, "", 1);
	user(sim, "alice", "ml");
	user(sim, "bob", "ml");
	c.user = "bob";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_string_equal(reason_of(sim, 2), "AssocMaxJobsLimit");
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING); /* per user */
	sched_limits_none(&q.lim);
	q.lim.max_jobs = 5;
	assert_int_equal(sched_set_qos(sim_sched(sim), &q, &err), 0);
	b.id = 4;
	b.qos = "many";
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 4), SCHED_JOB_RUNNING);
	sim_destroy(sim);
}

/* MaxWall: the QOS' wins over the association's; a job that asks for no
 * time gets the smaller MaxWall as its limit. */
static void test_max_wall(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_account_spec acct = { .name = "ml" };
	struct sched_qos_limits_spec q = { .name = "long" };
	struct sched_job_spec a = job(1, 1, 1, 3 * H), b = job(2, 1, 1, 3 * H),
			      c = job(3, 1, 1, 0);
	struct spur_error err;

	(void)state;
	sched_limits_none(&acct.lim);
	acct.lim.max_wall = 2 * H;
	assert_int_equal(sched_set_account(sim_sched(sim), &acct, &err), 0);
	user(sim, "alice", "ml");
	sched_limits_none(&q.lim);
	q.lim.max_wall = 4 * H;
	assert_int_equal(sched_set_qos(sim_sched(sim), &q, &err), 0);
	b.qos = "long";
	assert_int_equal(sim_submit_now(sim, &a, 3 * H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, 3 * H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, 10 * H, 0, &err), 0);
	assert_string_equal(reason_of(sim, 1), "AssocMaxWallDurationPerJobLimit");
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	sim_run_until(sim, 3 * H);
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_TIMEOUT);
	assert_int_equal(sim_job_end(sim, 3), sim_job_start(sim, 3) + 2 * H);
	sim_destroy(sim);
}

/* Live submissions: the user's association must exist; MaxSubmitJobs
 * counts an array's tasks; DenyOnLimit refuses a per-job limit. A replayed
 * one (enforce false) is taken as the log has it. */
static void test_submit_limits(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_user_spec us = { .user = "alice", .account = "ml" };
	struct sched_qos_limits_spec q = { .name = "strict", .deny_on_limit = true };
	struct sched_job_spec a = job(1, 1, 1, H), b = job(2, 1, 1, H), c = job(10, 1, 1, H);
	struct sched_event ev = { .type = SCHED_EV_SUBMIT, .enforce = true };
	struct spur_error err;

	(void)state;
	account(sim, "ml", NULL, "", SCHED_NO_LIMIT);
	sched_limits_none(&us.lim);
	us.lim.max_submit = 2;
	assert_int_equal(sched_set_user_assoc(sim_sched(sim), &us, &err), 0);
	a.user = "mallory";
	ev.job = &a;
	assert_int_equal(sim_event(sim, ev, &err), SPUR_EPERM);
	assert_non_null(strstr(err.msg, "Invalid account"));
	ev.enforce = false; /* the log's: taken */
	assert_int_equal(sim_event(sim, ev, &err), 0);
	ev.enforce = true;
	c.array = "0-2";
	ev.job = &c;
	assert_int_equal(sim_event(sim, ev, &err), SPUR_ELIMIT);
	assert_non_null(strstr(err.msg, "Job violates accounting/QOS policy"));
	c.array = "0-1";
	assert_int_equal(sim_event(sim, ev, &err), 0);
	ev.job = &b;
	assert_int_equal(sim_event(sim, ev, &err), SPUR_ELIMIT);
	sched_limits_none(&q.lim);
	q.lim.max_wall = H / 2;
	assert_int_equal(sched_set_qos(sim_sched(sim), &q, &err), 0);
	us.lim.max_submit = SCHED_NO_LIMIT;
	assert_int_equal(sched_set_user_assoc(sim_sched(sim), &us, &err), 0);
	b.qos = "strict";
	assert_int_equal(sim_event(sim, ev, &err), SPUR_ELIMIT);
	b.time_limit = H / 4;
	assert_int_equal(sim_event(sim, ev, &err), 0);
	sim_destroy(sim);
}

/* QOS GrpTRES and MaxTRESPerUser (typed GPUs too); the per-node limit. */
static void test_qos_per_user(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_qos_limits_spec q = { .name = "gpu" };
	struct sched_job_spec a = job(1, 1, 4, H), b = job(2, 1, 1, H), c = job(3, 1, 4, H),
			      d = job(4, 2, 8, H);
	struct spur_error err;

	(void)state;
	account(sim, "ml", NULL, "", SCHED_NO_LIMIT);
	user(sim, "alice", "ml");
	user(sim, "bob", "ml");
	sched_limits_none(&q.lim);
	assert_int_equal(sched_tres_parse(sim_sched(sim), "gres/gpu:mi300x=4", q.lim.max_tres_per_user,
					  &err),
			 0);
	assert_int_equal(sched_tres_parse(sim_sched(sim), "gres/gpu=4", q.lim.max_tres_per_node,
					  &err),
			 0);
	assert_int_equal(sched_set_qos(sim_sched(sim), &q, &err), 0);
	a.qos = b.qos = c.qos = d.qos = "gpu";
	a.gpu_type = b.gpu_type = "mi300x";
	c.user = "bob";
	c.gpu_type = "mi300x";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &c, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &d, H, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	assert_string_equal(reason_of(sim, 2), "QOSMaxGRESPerUser");
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_string_equal(reason_of(sim, 4), "QOSMaxGRESPerNode");
	sim_destroy(sim);
}

/* Removing what jobs still use is refused; a job moved to another account
 * counts there. */
static void test_remove_and_move(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_job_spec a = job(1, 1, 8, H), b = job(2, 1, 8, H);
	struct sched_usage u;
	struct spur_error err;

	(void)state;
	account(sim, "ml", NULL, "gres/gpu=8", SCHED_NO_LIMIT);
	account(sim, "cv", NULL, "", SCHED_NO_LIMIT);
	user(sim, "alice", "ml");
	user(sim, "alice", "cv");
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	assert_int_equal(sim_submit_now(sim, &b, H, 0, &err), 0);
	assert_string_equal(reason_of(sim, 2), "AssocGrpGRES");
	assert_int_equal(sched_del_account(sim_sched(sim), "ml", &err), SPUR_ESTATE);
	assert_int_equal(sched_del_user_assoc(sim_sched(sim), "alice", "ml", &err), SPUR_ESTATE);
	assert_int_equal(sim_event(sim, (struct sched_event){ .type = SCHED_EV_UPDATE,
							      .job_id = 2, .account = "cv",
							      .time_limit = -1 },
				   &err),
			 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_RUNNING);
	assert_int_equal(sched_usage(sim_sched(sim), "cv", "alice", NULL, &u), 0);
	assert_int_equal(u.jobs, 1);
	sim_run_until_idle(sim);
	assert_int_equal(sched_del_user_assoc(sim_sched(sim), "alice", "ml", &err), 0);
	assert_int_equal(sched_del_account(sim_sched(sim), "ml", &err), 0);
	assert_false(sched_user_assoc_exists(sim_sched(sim), "alice", "ml"));
	sim_destroy(sim);
}

/* Fair Tree: B (no usage) ranks above A (used an hour); B's two users tie
 * at the top rank, A's one user gets rank 1 of 3; the next pending jobs
 * start in that order. */
static void test_fair_tree(void **state)
{
	struct sim *sim = cluster(false);
	struct sched_job_spec a = job(1, 4, 8, H), b = job(2, 4, 8, H), c = job(3, 4, 8, H);
	struct sched_usage u;
	struct spur_error err;

	(void)state;
	account(sim, "A", NULL, "", SCHED_NO_LIMIT);
	account(sim, "B", NULL, "", SCHED_NO_LIMIT);
	user(sim, "a1", "A");
	user(sim, "b1", "B");
	user(sim, "b2", "B");
	a.user = "a1", a.account = "A";
	assert_int_equal(sim_submit_now(sim, &a, H, 0, &err), 0);
	b.user = "a1", b.account = "A";
	c.user = "b1", c.account = "B";
	sim_submit(sim, 10, &b, H, 0);
	sim_submit(sim, 20, &c, H, 0);
	sim_run_until(sim, H + 1);
	assert_int_equal(sched_usage(sim_sched(sim), "B", "b1", NULL, &u), 0);
	assert_true(u.fairshare == 1.0);
	assert_int_equal(sched_usage(sim_sched(sim), "B", "b2", NULL, &u), 0);
	assert_true(u.fairshare == 1.0);
	assert_int_equal(sched_usage(sim_sched(sim), "A", "a1", NULL, &u), 0);
	assert_true(u.fairshare > 0.33 && u.fairshare < 0.34);
	/* b1's job, submitted later, went first */
	assert_int_equal(sim_job_state(sim, 3), SCHED_JOB_RUNNING);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	sim_destroy(sim);
}

/* Fair Tree's ties (Slurm's fair_tree.html): under P (never used), sub-
 * accounts A and B and user x all have LevelFS infinity; A's and B's
 * children are merged, a1 and b1 tie, and x, tied with the accounts, gets
 * their highest user's rank: all three rank 4 of 4. Q, which used an hour,
 * comes after: q1 ranks 1 of 4. */
static void test_fair_tree_ties(void **state)
{
	struct sim *sim = cluster(false);
	struct sched_job_spec q = job(1, 1, 8, H);
	struct sched_usage u;
	struct spur_error err;

	(void)state;
	account(sim, "P", NULL, "", SCHED_NO_LIMIT);
	account(sim, "Q", NULL, "", SCHED_NO_LIMIT);
	account(sim, "A", "P", "", SCHED_NO_LIMIT);
	account(sim, "B", "P", "", SCHED_NO_LIMIT);
	user(sim, "a1", "A");
	user(sim, "b1", "B");
	user(sim, "x", "P");
	user(sim, "q1", "Q");
	q.user = "q1", q.account = "Q";
	assert_int_equal(sim_submit_now(sim, &q, H, 0, &err), 0);
	sim_run_until(sim, H + 10);
	assert_int_equal(sched_usage(sim_sched(sim), "A", "a1", NULL, &u), 0);
	assert_true(u.fairshare == 1.0);
	assert_int_equal(sched_usage(sim_sched(sim), "B", "b1", NULL, &u), 0);
	assert_true(u.fairshare == 1.0);
	assert_int_equal(sched_usage(sim_sched(sim), "P", "x", NULL, &u), 0);
	assert_true(u.fairshare == 1.0);
	assert_int_equal(sched_usage(sim_sched(sim), "Q", "q1", NULL, &u), 0);
	assert_true(u.fairshare == 0.25);
	sim_destroy(sim);
}

/* GrpTRESMins: GPU-minutes used (decayed) plus a job's GPUs over its time
 * limit: 8 GPUs for 5 minutes fit 60 GPU-minutes once, not twice. */
static void test_grp_tres_mins(void **state)
{
	struct sim *sim = cluster(true);
	struct sched_account_spec acct = { .name = "ml" };
	struct sched_job_spec a = job(1, 1, 8, 300), b = job(2, 1, 8, 300);
	struct spur_error err;

	(void)state;
	sched_limits_none(&acct.lim);
	assert_int_equal(sched_tres_parse(sim_sched(sim), "gres/gpu=60", acct.lim.grp_tres_mins,
					  &err),
			 0);
	assert_int_equal(sched_set_account(sim_sched(sim), &acct, &err), 0);
	user(sim, "alice", "ml");
	assert_int_equal(sim_submit_now(sim, &a, 300, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_RUNNING);
	sim_run_until(sim, 400);
	assert_int_equal(sim_job_state(sim, 1), SCHED_JOB_COMPLETED);
	assert_int_equal(sim_submit_now(sim, &b, 300, 0, &err), 0);
	assert_int_equal(sim_job_state(sim, 2), SCHED_JOB_PENDING);
	assert_string_equal(reason_of(sim, 2), "AssocGrpGRESMinutes");
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tres_text),	 cmocka_unit_test(test_grp_tres_subtree),
		cmocka_unit_test(test_max_jobs_inherited), cmocka_unit_test(test_max_wall),
		cmocka_unit_test(test_submit_limits),	 cmocka_unit_test(test_qos_per_user),
		cmocka_unit_test(test_remove_and_move),	 cmocka_unit_test(test_fair_tree),
		cmocka_unit_test(test_grp_tres_mins),	 cmocka_unit_test(test_fair_tree_ties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
