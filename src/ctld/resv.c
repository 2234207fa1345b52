/* SPDX-License-Identifier: Apache-2.0 */
/* Advance reservations in the controller (scontrol create/delete/show
 * reservation): each a "resv" op in the Raft log, applied to the core's
 * reservations and kept (c->resv_ops) for snapshots and for show. */
#include "ctld.h"
#include "resv.h"

#include "common/hostlist.h"
#include "common/alloc.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void answer_error(struct ctld_conn *cn, int code, const char *msg)
{
	ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", code, "message", msg));
}

static json_t *find_op(const struct ctld *c, const char *name, size_t *at)
{
	size_t i;
	json_t *op;

	json_array_foreach(c->resv_ops, i, op)
		if (!strcmp(spur_json_str(op, "name", ""), name)) {
			if (at)
				*at = i;
			return op;
		}
	return NULL;
}

int ctld_apply_resv(struct ctld *c, json_t *op, bool del, struct spur_error *err)
{
	const char *name = spur_json_str(op, "name", "");
	struct sched_resv_spec sp = {
		.name = name,
		.nodes = spur_json_str(op, "nodes", ""),
		.start = spur_json_int(op, "start", 0),
		.end = spur_json_int(op, "end", 0),
		.users = *spur_json_str(op, "users", "") ? spur_json_str(op, "users", "") : NULL,
		.accounts = *spur_json_str(op, "accounts", "") ? spur_json_str(op, "accounts", "")
							       : NULL,
	};
	size_t at;

	if (!c->resv_ops && !(c->resv_ops = json_array()))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if (del) {
		if (sched_del_reservation(c->sched, name, err))
			return err->code;
		if (find_op(c, name, &at))
			json_array_remove(c->resv_ops, at);
		spur_info("reservation %s deleted", name);
		return 0;
	}
	if (sched_add_reservation(c->sched, &sp, err))
		return err->code;
	json_array_append(c->resv_ops, op);
	spur_info("reservation %s: %s", name, sp.nodes);
	return 0;
}

/* NodeCnt=N: the first N nodes (of a partition, when named) that no
 * reservation overlapping [start, end) holds. */
static char *pick_nodes(const struct ctld *c, long n, const char *part, int64_t start, int64_t end)
{
	const struct spur_conf_partition *pt = part ? spur_conf_partition(c->conf, part) : NULL;
	struct spur_hostlist *hl = spur_hostlist_create();
	char *names = NULL;
	long got = 0;

	for (size_t i = 0; hl && i < c->conf->nnodes && got < n; i++) {
		bool in = !pt;

		for (size_t p = 0; pt && p < pt->nnodes && !in; p++)
			in = pt->nodes[p] == i;
		if (in && !sched_node_reserved(c->sched, (uint32_t)i, start, end) &&
		    spur_hostlist_push(hl, c->conf->nodes[i].name, NULL) == 0)
			got++;
	}
	if (got == n)
		names = spur_hostlist_ranged(hl, NULL);
	spur_hostlist_destroy(hl);
	return names;
}

void ctld_handle_resv_create(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	int64_t start = spur_json_int(msg, "start", 0), end = spur_json_int(msg, "end", 0);
	const char *nodes = spur_json_str(msg, "nodes", "");
	char name[128], *picked = NULL;
	struct spur_error err;
	json_t *op;

	if (*spur_json_str(msg, "flags", "")) {
		answer_error(cn, SPUR_EINVAL, "Flags= of a reservation are not supported by Spur");
		return;
	}
	snprintf(name, sizeof(name), "%s", spur_json_str(msg, "name", ""));
	if (!*name) /* as Slurm: the user's name and a number */
		snprintf(name, sizeof(name), "%s_%zu", cn->who.user, json_array_size(c->resv_ops) + 1);
	if (!start)
		start = ctld_now();
	if (end <= start) {
		answer_error(cn, SPUR_EINVAL, "Error creating the reservation: Invalid time specification (end before start)");
		return;
	}
	if (spur_json_int(msg, "node_cnt", 0) > 0) {
		picked = pick_nodes(c, (long)spur_json_int(msg, "node_cnt", 0),
				    spur_json_str(msg, "partition", NULL), start, end);
		if (!picked) {
			answer_error(cn, SPUR_EINVAL, "Error creating the reservation: Requested nodes are busy");
			return;
		}
		nodes = picked;
	}
	if (!*nodes || (!*spur_json_str(msg, "users", "") && !*spur_json_str(msg, "accounts", ""))) {
		spur_free(picked);
		answer_error(cn, SPUR_EINVAL,
			     "Error creating the reservation: Nodes (or NodeCnt) and Users or Accounts are required");
		return;
	}
	op = json_pack("{s:s,s:s,s:I,s:I,s:I,s:s,s:s,s:s}", "op", "resv", "name", name, "time",
		       (json_int_t)ctld_now(), "start", (json_int_t)start, "end", (json_int_t)end,
		       "nodes", nodes, "users", spur_json_str(msg, "users", ""), "accounts",
		       spur_json_str(msg, "accounts", ""));
	spur_free(picked);
	if (ctld_commit(c, op, cn, json_pack("{s:s,s:s}", "type", "ok", "name", name), &err)) {
		char text[SPUR_ERROR_MSG_MAX + 64];

		snprintf(text, sizeof(text), "Error creating the reservation: %s", err.msg);
		answer_error(cn, err.code, text);
	}
	json_decref(op);
}

void ctld_handle_resv_delete(struct ctld_conn *cn, json_t *msg)
{
	const char *name = spur_json_str(msg, "name", "");
	struct spur_error err;
	json_t *op;

	if (!find_op(cn->c, name, NULL)) {
		answer_error(cn, SPUR_ENOENT, "Reservation request has invalid name");
		return;
	}
	op = json_pack("{s:s,s:s,s:I}", "op", "resv_del", "name", name, "time",
		       (json_int_t)ctld_now());
	if (ctld_commit(cn->c, op, cn, json_pack("{s:s}", "type", "ok"), &err))
		answer_error(cn, err.code, err.msg);
	json_decref(op);
}

void ctld_handle_resvs(struct ctld_conn *cn, json_t *msg)
{
	(void)msg;
	ctld_conn_send(cn, json_pack("{s:s,s:O,s:I}", "type", "ok", "reservations",
				     cn->c->resv_ops ? cn->c->resv_ops : json_array(), "now",
				     (json_int_t)ctld_now()));
}
