/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol suspend / resume (see ctld.h). The op goes through the log like
 * any other (snapshots keep the job's last one); the controller that
 * holds the agents signals them: on suspend the time limit is lifted on
 * the nodes (0: none) and the job's processes get SIGSTOP; on resume they
 * get SIGCONT and the new limit (its end moved by the time stopped). */
#include "ctld.h"

#include "common/log.h"

#include <signal.h>
#include <string.h>

const char *ctld_state_name(const struct sched_job_info *info)
{
	if (info->special_exit) /* scontrol requeuehold State=SpecialExit */
		return "SPECIAL_EXIT";
	return info->suspended && info->state == SCHED_JOB_RUNNING ? "SUSPENDED"
								    : sched_job_state_name(info->state);
}

int ctld_apply_suspend(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	bool stop = !strcmp(spur_json_str(op, "op", ""), "suspend");
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_event ev = { .type = stop ? SCHED_EV_SUSPEND : SCHED_EV_RESUME,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .defer_cycle = true };
	struct sched_actions acts;
	struct sched_job_info info;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (sched_step(c->sched, &ev, &acts, err))
		return replay && err->code == SPUR_ESTATE ? 0 : err->code;
	json_decref(cj->susp_op);
	cj->susp_op = json_incref(op);
	ctld_acct_record(c, id);
	if (replay || sched_job_info(c->sched, id, &info))
		return 0;
	if (stop) {
		ctld_limit_nodes(c, id, &info); /* none while it stands still */
		ctld_signal_job(c, id, SIGSTOP);
	} else {
		ctld_signal_job(c, id, SIGCONT);
		ctld_limit_nodes(c, id, &info);
	}
	spur_info("job %u %s", id, stop ? "suspended" : "resumed");
	return 0;
}

void ctld_handle_suspend(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	bool stop = !strcmp(spur_json_str(msg, "type", ""), "suspend");
	struct spur_error err;
	json_t *op;

	if (!ctld_job(c, id)) {
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", SPUR_ENOENT,
					     "message", "Invalid job id specified"));
		return;
	}
	op = json_pack("{s:s,s:i,s:I}", "op", stop ? "suspend" : "resume", "id", (int)id, "time",
		       (json_int_t)ctld_now());
	if (ctld_commit(c, op, cn, json_pack("{s:s}", "type", "ok"), &err))
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", err.code,
					     "message", err.msg));
	json_decref(op);
}
