/* SPDX-License-Identifier: Apache-2.0 */
/* Job dependencies: after, afterany, afterok, afternotok, aftercorr, singleton. */
#include "internal.h"

#include <string.h>

static bool ended(enum sched_job_state st)
{
	return st != SCHED_JOB_PENDING && st != SCHED_JOB_RUNNING;
}

static bool ended_ok(const struct core_job *t)
{
	return t->state == SCHED_JOB_COMPLETED && t->exit_code == 0;
}

int core_deps_check_targets(const struct sched *s, const struct spur_dep_list *d,
			    struct spur_error *err)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct spur_dep *dp = &d->deps[i];

		if (dp->type != SPUR_DEP_SINGLETON && !core_job_view(s, dp->job_id))
			return spur_error_set(err, SPUR_ENOENT,
					      "Job dependency problem: job %u does not exist",
					      dp->job_id);
	}
	return 0;
}

/* One target job against one dependency term. */
static enum dep_result eval_one(const struct spur_dep *d, const struct core_job *t, int64_t now)
{
	switch (d->type) {
	case SPUR_DEP_AFTER:
		if (t->state == SCHED_JOB_PENDING)
			return DEP_WAIT;
		if (t->state == SCHED_JOB_RUNNING && t->start + d->delay_secs > now)
			return DEP_WAIT;
		return DEP_OK;
	case SPUR_DEP_AFTERANY:
		return ended(t->state) ? DEP_OK : DEP_WAIT;
	case SPUR_DEP_AFTEROK:
	case SPUR_DEP_AFTERCORR:
		if (!ended(t->state))
			return DEP_WAIT;
		return ended_ok(t) ? DEP_OK : DEP_NEVER;
	case SPUR_DEP_AFTERNOTOK:
		if (!ended(t->state))
			return DEP_WAIT;
		return ended_ok(t) ? DEP_NEVER : DEP_OK;
	default:
		return DEP_OK;
	}
}

/* Combine: all terms must hold (',') or any ('?'). */
static enum dep_result combine(enum dep_result acc, enum dep_result r, bool any, bool first)
{
	if (first)
		return r;
	if (any)
		return acc == DEP_OK || r == DEP_OK ? DEP_OK
		       : acc == DEP_WAIT || r == DEP_WAIT ? DEP_WAIT
							  : DEP_NEVER;
	return acc == DEP_NEVER || r == DEP_NEVER ? DEP_NEVER
	       : acc == DEP_WAIT || r == DEP_WAIT ? DEP_WAIT
						  : DEP_OK;
}

static enum dep_result eval_term(const struct sched *s, const struct core_job *j,
				 const struct spur_dep *d, int64_t now)
{
	const struct core_job *t, *tk;
	const struct core_array *a;
	enum dep_result r = DEP_OK;

	if (d->type == SPUR_DEP_SINGLETON) {
		/* no earlier job of the same name and user still queued or running */
		for (size_t i = 0; i < s->running.n; i++) {
			t = s->running.v[i];
			if (t != j && !strcmp(t->name, j->name) && !strcmp(t->user, j->user))
				return DEP_WAIT;
		}
		for (size_t i = 0; i < s->pending.n; i++) {
			t = s->pending.v[i];
			if (t->id < j->id && !strcmp(t->name, j->name) && !strcmp(t->user, j->user))
				return DEP_WAIT;
		}
		return DEP_OK;
	}
	t = core_job_view(s, d->job_id);
	if (!t)
		return DEP_OK; /* purged (submit checks that it exists): Slurm lifts it */
	if (t->array < 0 || s->arrays[t->array].array_job_id != d->job_id)
		return eval_one(d, t, now); /* a job, or one task named by its job id */
	a = &s->arrays[t->array];
	if (d->task_id >= 0 || (d->type == SPUR_DEP_AFTERCORR && j->task_id >= 0)) {
		/* one task: the named one, or for aftercorr the same task id */
		int32_t want = d->task_id >= 0 ? d->task_id : j->task_id;
		uint32_t id = sched_array_task_id(s, a->array_job_id, (uint32_t)want);

		return id && (tk = core_job_view(s, id)) ? eval_one(d, tk, now) : DEP_NEVER;
	}
	/* a whole array: every task must satisfy the term; those with no
	 * record are all as the array's meta record is */
	if (a->nvirtual)
		r = eval_one(d, a->meta, now);
	for (uint32_t k = 0; k < a->ntasks && r != DEP_NEVER; k++) {
		if (!core_array_made(a, k))
			continue;
		tk = core_job_find(s, a->array_job_id + k);
		if (tk)
			r = combine(r, eval_one(d, tk, now), false, k == 0 && !a->nvirtual);
	}
	return r;
}

enum dep_result core_deps_eval(const struct sched *s, const struct core_job *j, int64_t now)
{
	enum dep_result acc = DEP_OK;

	for (size_t i = 0; i < j->deps.n; i++)
		acc = combine(acc, eval_term(s, j, &j->deps.deps[i], now), j->deps.any, i == 0);
	return acc;
}
