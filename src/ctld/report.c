/* SPDX-License-Identifier: Apache-2.0 */
/* sdiag's counters and sprio's factors. Counters live since this process
 * started, as Slurm's do (they are not cluster state). */
#include "ctld.h"
#include "report.h"

#include <string.h>

static void bump(json_t **tab, const char *key, uint64_t us)
{
	json_t *v;

	if (!*tab && !(*tab = json_object()))
		return;
	v = json_object_get(*tab, key);
	if (!v) {
		json_object_set_new(*tab, key, json_pack("[I,I]", (json_int_t)1, (json_int_t)us));
		return;
	}
	json_array_set_new(v, 0, json_integer(json_integer_value(json_array_get(v, 0)) + 1));
	json_array_set_new(v, 1, json_integer(json_integer_value(json_array_get(v, 1)) +
					       (json_int_t)us));
}

void ctld_rpc_note(struct ctld *c, const char *type, const char *user, uint64_t us)
{
	bump(&c->stats.rpc_types, type, us);
	bump(&c->stats.rpc_users, user, us);
}

json_t *ctld_stats_more(struct ctld *c, json_t *r)
{
	json_t *empty = json_object();

	if (!r)
		return NULL;
	json_object_set_new(r, "started", json_integer((json_int_t)c->stats.started));
	json_object_set_new(r, "backfilled", json_integer((json_int_t)c->stats.backfilled));
	json_object_set_new(r, "depth_total", json_integer((json_int_t)c->stats.depth_total));
	json_object_set_new(r, "depth_last", json_integer((json_int_t)c->stats.depth_last));
	json_object_set_new(r, "completed", json_integer((json_int_t)c->stats.completed));
	json_object_set_new(r, "canceled", json_integer((json_int_t)c->stats.canceled));
	json_object_set_new(r, "failed", json_integer((json_int_t)c->stats.failed));
	json_object_set(r, "rpc_types", c->stats.rpc_types ? c->stats.rpc_types : empty);
	json_object_set(r, "rpc_users", c->stats.rpc_users ? c->stats.rpc_users : empty);
	json_decref(empty);
	return r;
}

void ctld_stats_free(struct ctld *c)
{
	json_decref(c->stats.rpc_types);
	json_decref(c->stats.rpc_users);
	c->stats.rpc_types = c->stats.rpc_users = NULL;
}

void ctld_handle_prio(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *jobs = json_array();
	const struct spur_conf *cf = c->conf;

	(void)msg;
	for (size_t id = c->purge_low; id < c->jobs_cap; id++) {
		struct sched_job_info info;
		struct sched_prio p;
		struct ctld_job *cj = c->jobs[id];

		if (!cj || sched_job_info(c->sched, (uint32_t)id, &info) ||
		    info.state != SCHED_JOB_PENDING || sched_job_prio(c->sched, (uint32_t)id, &p))
			continue;
		json_array_append_new(
			jobs, json_pack("{s:i,s:s,s:s,s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:i}", "job_id",
					(int)id, "partition", ctld_job_partition(c, cj, &info), "user",
					spur_json_str(cj->spec, "user", ""), "account",
					spur_json_str(cj->spec, "account", ""), "priority",
					(int)p.priority, "age", p.age, "fairshare", p.fairshare,
					"job_size", p.job_size, "partition_f", p.partition, "qos", p.qos,
					"nice", (int)p.nice));
	}
	ctld_conn_send(cn, json_pack("{s:s,s:o,s:{s:i,s:i,s:i,s:i,s:i}}", "type", "ok", "jobs",
				     jobs, "weights", "age", (int)cf->priority_weight_age,
				     "fairshare", (int)cf->priority_weight_fairshare, "job_size",
				     (int)cf->priority_weight_job_size, "partition",
				     (int)cf->priority_weight_partition, "qos",
				     (int)cf->priority_weight_qos));
}
