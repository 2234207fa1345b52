/* SPDX-License-Identifier: Apache-2.0 */
/* Partitions changed at run time (partupdate.h): each change a
 * "part_update", "part_create" or "part_delete" op, applied to the
 * configuration's partitions (what scontrol, sinfo and submissions read)
 * and to the scheduler; slurm.conf's partitions kept (c->part_saved) so a
 * snapshot can start over from them, and the changes (c->part_log, then
 * c->part_over) written into every snapshot. */
#include "ctld.h"
#include "partupdate.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"

#include <string.h>
#include <strings.h>

static const char *const states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };
static const char *const fields[] = { "state",	"max_time", "default_time", "max_nodes",
				      "nodes",	"tier",	    "job_factor" };

static struct spur_conf_partition *find(struct ctld *c, const char *name)
{
	return (struct spur_conf_partition *)spur_conf_partition(c->conf, name);
}

/* slurm.conf's partitions and the change records, before the first change. */
static int first_change(struct ctld *c, struct spur_error *err)
{
	if ((!c->part_saved && !(c->part_saved = spur_conf_partitions_save(c->conf))) ||
	    (!c->part_over && !(c->part_over = json_object())) ||
	    (!c->part_log && !(c->part_log = json_array())))
		return spur_error_set(err, SPUR_ENOMEM, "no memory");
	return 0;
}

/* The partition's nodes from a hostlist or "ALL" (each a node of the
 * configuration); the new expression kept. 0, or an error (nothing
 * changed). */
static int set_nodes(struct ctld *c, struct spur_conf_partition *pt, const char *expr,
		     struct spur_error *err)
{
	struct spur_hostlist *hl = NULL;
	size_t *idx = spur_calloc(c->conf->nnodes + 1, sizeof(*idx)), n = 0;
	char *copy = spur_strdup(expr);

	if (!idx || !copy)
		goto oom;
	if (!strcasecmp(expr, "ALL")) {
		for (; n < c->conf->nnodes; n++)
			idx[n] = n;
	} else {
		if (!(hl = spur_hostlist_create()) || spur_hostlist_push(hl, expr, err))
			goto bad;
		for (size_t i = 0; i < spur_hostlist_count(hl); i++) {
			const char *name = spur_hostlist_nth(hl, i);
			long k;

			if ((k = spur_conf_node_index(c->conf, name)) < 0) {
				spur_error_set(err, SPUR_EINVAL, "Invalid node name specified: %s", name);
				goto bad;
			}
			idx[n++] = (size_t)k;
		}
		spur_hostlist_destroy(hl);
	}
	spur_free(pt->nodes_expr);
	spur_free(pt->nodes);
	pt->nodes_expr = copy;
	pt->nodes = idx;
	pt->nnodes = n;
	return 0;
oom:
	spur_error_set(err, SPUR_ENOMEM, "out of memory");
bad:
	spur_hostlist_destroy(hl);
	spur_free(idx);
	spur_free(copy);
	return err->code;
}

/* The op's state: its index, -1 absent, -2 not one. */
static int state_of(const json_t *op)
{
	const char *s = spur_json_str(op, "state", NULL);

	if (!s)
		return -1;
	for (int i = 0; i < 4; i++)
		if (!strcasecmp(s, states[i]))
			return i;
	return -2;
}

int ctld_apply_part_update(struct ctld *c, const json_t *op, struct spur_error *err)
{
	const char *name = spur_json_str(op, "name", "");
	struct spur_conf_partition *pt = find(c, name);
	int64_t mt = spur_json_int(op, "max_time", -2), dt = spur_json_int(op, "default_time", -2),
		mn = spur_json_int(op, "max_nodes", -2);
	struct sched_part_update u = { .state = state_of(op), .max_time = -1, .default_time = -1,
				       .max_nodes = -1, .nodes = spur_json_str(op, "nodes", NULL),
				       .tier = (int)spur_json_int(op, "tier", -1),
				       .job_factor = (int)spur_json_int(op, "job_factor", -1) };
	json_t *over;

	if (!pt)
		return spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
	if (u.state == -2 || mt < -2 || dt < -3 || mn < -2)
		return spur_error_set(err, SPUR_EINVAL, "part_update %s: a value out of range", name);
	if (mt >= -1)
		u.max_time = mt < 0 ? SCHED_INFINITE : mt;
	if (dt >= -1) /* NONE: the maximum */
		u.default_time = dt < 0 ? 0 : dt;
	if (dt == -3) /* UNLIMITED */
		u.default_time = SCHED_INFINITE;
	if (mn >= -1)
		u.max_nodes = mn < 0 ? 0 : mn;
	if (first_change(c, err) || sched_update_partition(c->sched, name, &u, err))
		return err->code;
	/* the core took the names: only memory can fail here */
	if (u.nodes && set_nodes(c, pt, u.nodes, err))
		return err->code;
	if (u.state >= 0)
		pt->state = (enum spur_part_state)u.state;
	if (mt >= -1)
		pt->max_time = mt < 0 ? SPUR_TIME_INFINITE : mt;
	if (dt >= -1 || dt == -3) {
		pt->default_time = dt < 0 ? SPUR_TIME_INFINITE : dt;
		pt->default_unlimited = dt == -3;
	}
	if (mn >= -1)
		pt->max_nodes = mn < 0 ? SPUR_CONF_UNLIMITED : (uint32_t)mn;
	if (u.tier >= 0)
		pt->priority_tier = (uint16_t)u.tier;
	if (u.job_factor >= 0)
		pt->priority_job_factor = (uint16_t)(u.job_factor ? u.job_factor : 1);
	if (!(over = json_object_get(c->part_over, name))) {
		over = json_pack("{s:s,s:s}", "op", "part_update", "name", name);
		json_object_set_new(c->part_over, name, over);
	}
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		if (json_object_get(op, fields[k]))
			json_object_set(over, fields[k], json_object_get(op, fields[k]));
	spur_info("partition %s updated", name);
	return 0;
}

int ctld_apply_part_create(struct ctld *c, const json_t *op, struct spur_error *err)
{
	const char *line = spur_json_str(op, "line", "");
	struct spur_conf_parts_saved *before;
	size_t slot;
	json_t *rec;

	if (first_change(c, err))
		return err->code;
	if (!(before = spur_conf_partitions_save(c->conf)))
		return spur_error_set(err, SPUR_ENOMEM, "no memory");
	if (spur_conf_partition_create(c->conf, line, &slot, err))
		goto undo;
	if (ctld_add_partition(c, &c->conf->parts[slot], err))
		goto undo; /* the scheduler is as it was: it refused */
	spur_conf_partitions_free(before);
	rec = json_pack("{s:s,s:s,s:s}", "op", "part_create", "line", line, "name",
			c->conf->parts[slot].name);
	json_array_append_new(c->part_log, rec);
	spur_info("partition %s created", c->conf->parts[slot].name);
	return 0;
undo:
	spur_conf_partitions_restore(c->conf, before);
	return err->code;
}

int ctld_apply_part_delete(struct ctld *c, const json_t *op, struct spur_error *err)
{
	const char *name = spur_json_str(op, "name", "");

	if (!find(c, name))
		return spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
	if (first_change(c, err) || sched_delete_partition(c->sched, name, err))
		return err->code;
	spur_conf_partition_delete(c->conf, name, err); /* found above: cannot fail */
	json_object_del(c->part_over, name);
	/* kept, with the create before it: the partition's ended jobs come back
	 * from a snapshot before it goes (ctld_part_state_tail_ops) */
	json_array_append_new(c->part_log, json_pack("{s:s,s:s}", "op", "part_delete", "name", name));
	spur_info("partition %s deleted", name);
	return 0;
}

/* Is part_log's op i a delete whose name no later op creates again? Such a
 * delete goes after the snapshot's jobs, so the ended jobs of that
 * partition (kept for MinJobAge) come back with it. */
static bool late_delete(const struct ctld *c, size_t i)
{
	json_t *op = json_array_get(c->part_log, i);
	const char *name = spur_json_str(op, "name", "");

	if (strcmp(spur_json_str(op, "op", ""), "part_delete"))
		return false;
	for (size_t k = i + 1; k < json_array_size(c->part_log); k++)
		if (!strcmp(spur_json_str(json_array_get(c->part_log, k), "name", ""), name))
			return false;
	return true;
}

void ctld_part_state_ops(struct ctld *c, json_t *ops)
{
	const char *name;
	size_t i;
	json_t *op;

	json_array_foreach(c->part_log, i, op)
		if (!late_delete(c, i))
			json_array_append(ops, op);
	json_object_foreach(c->part_over, name, op)
		json_array_append(ops, op);
}

void ctld_part_state_tail_ops(struct ctld *c, json_t *ops)
{
	size_t i;
	json_t *op;

	json_array_foreach(c->part_log, i, op)
		if (late_delete(c, i))
			json_array_append(ops, op);
}

int ctld_part_changed(const struct ctld *c)
{
	return c->part_saved != NULL;
}

void ctld_part_reset(struct ctld *c)
{
	if (c->part_saved)
		spur_conf_partitions_restore(c->conf, c->part_saved);
	c->part_saved = NULL;
	json_array_clear(c->part_log);
	json_object_clear(c->part_over);
}

/* Commit op (a request's), answering cn once committed or with the refusal. */
static void commit_part_op(struct ctld_conn *cn, json_t *op)
{
	struct spur_error err;

	if (ctld_commit(cn->c, op, cn, json_pack("{s:s}", "type", "ok"), &err))
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", err.code,
					     "message", err.msg));
	else
		ctld_cycle_soon(cn->c);
	json_decref(op);
}

/* The request {name, state, max_time, default_time, max_nodes} (an
 * administrator's; scontrol has read Slurm's words): one op, answered once
 * committed; the next cycle acts on it. */
void ctld_handle_part_update(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const char *name = spur_json_str(msg, "name", "");
	json_t *op;

	if (!find(c, name)) {
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", SPUR_ENOENT,
					     "message", "Invalid partition name specified"));
		return;
	}
	op = json_pack("{s:s,s:s,s:I}", "op", "part_update", "name", name, "time",
		       (json_int_t)ctld_now());
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		if (json_object_get(msg, fields[k]))
			json_object_set(op, fields[k], json_object_get(msg, fields[k]));
	commit_part_op(cn, op);
}

void ctld_handle_part_create(struct ctld_conn *cn, json_t *msg)
{
	commit_part_op(cn, json_pack("{s:s,s:s,s:I}", "op", "part_create", "line",
				     spur_json_str(msg, "line", ""), "time", (json_int_t)ctld_now()));
}

void ctld_handle_part_delete(struct ctld_conn *cn, json_t *msg)
{
	commit_part_op(cn, json_pack("{s:s,s:s,s:I}", "op", "part_delete", "name",
				     spur_json_str(msg, "name", ""), "time", (json_int_t)ctld_now()));
}
