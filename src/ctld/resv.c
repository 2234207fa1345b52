/* SPDX-License-Identifier: Apache-2.0 */
/* Advance reservations in the controller (scontrol create/delete/show
 * reservation): each a "resv" op in the Raft log, applied to the core's
 * reservations and kept (c->resv_ops) for snapshots and for show. Flags
 * MAINT (kept, shown, and sreport's planned down time), IGNORE_JOBS (made
 * over running jobs; else nodes that a running job holds past the start
 * are busy, as in Slurm), DAILY and WEEKLY (once ended, the same window a
 * day or a week on); an ended reservation goes, as in Slurm. */
#include "ctld.h"
#include "resv.h"

#include "common/hostlist.h"
#include "common/alloc.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	if (del || (spur_json_bool(op, "replace", 0) && find_op(c, name, NULL))) {
		if (sched_del_reservation(c->sched, name, err))
			return err->code;
		if (find_op(c, name, &at))
			json_array_remove(c->resv_ops, at);
		if (del) {
			ctld_acct_resv(c, op, true);
			spur_info("reservation %s deleted", name);
			return 0;
		}
	}
	if (sched_add_reservation(c->sched, &sp, err))
		return err->code;
	json_array_append(c->resv_ops, op);
	ctld_acct_resv(c, op, false);
	spur_info("reservation %s: %s", name, sp.nodes);
	return 0;
}

/* The nodes that running jobs hold past start (a reservation starting
 * then would have them busy): a flag per node (malloc'd), or NULL. */
static uint8_t *busy_nodes(const struct ctld *c, int64_t start)
{
	uint8_t *busy = spur_calloc(c->conf->nnodes + 1, 1);

	for (size_t id = c->purge_low; busy && id < c->jobs_cap; id++) {
		struct sched_job_info info;

		if (!c->jobs[id] || sched_job_info(c->sched, (uint32_t)id, &info) ||
		    info.state != SCHED_JOB_RUNNING || info.end_time <= start)
			continue;
		for (size_t k = 0; k < info.nalloc; k++)
			if (info.alloc[k].node < c->conf->nnodes)
				busy[info.alloc[k].node] = 1;
	}
	return busy;
}

/* Is a node of the hostlist nodes ("ALL": every one) busy? Its name into
 * which (len bytes). */
static bool any_busy(const struct ctld *c, const char *nodes, const uint8_t *busy, char *which,
		     size_t len)
{
	struct spur_hostlist *hl = strcmp(nodes, "ALL") ? spur_hostlist_from_expr(nodes, NULL) : NULL;
	size_t n = hl ? spur_hostlist_count(hl) : c->conf->nnodes;
	bool found = false;

	for (size_t k = 0; !found && k < n; k++) {
		long i = hl ? spur_conf_node_index(c->conf, spur_hostlist_nth(hl, k)) : (long)k;

		if (i >= 0 && busy[i]) {
			snprintf(which, len, "%s", c->conf->nodes[i].name);
			found = true;
		}
	}
	spur_hostlist_destroy(hl);
	return found;
}

/* The flags Spur builds, from scontrol's comma list (any case), into out
 * in Slurm's spelling: NULL, or what is wrong. */
static const char *flags_of(const char *in, char *out, size_t len)
{
	static const char *const known[] = { "MAINT", "IGNORE_JOBS", "DAILY", "WEEKLY" };
	static char why[160];
	size_t o = 0;

	*out = '\0';
	for (const char *p = in; *p;) {
		size_t l = strcspn(p, ","), k;

		for (k = 0; k < 4 && (strlen(known[k]) != l || strncasecmp(p, known[k], l)); k++)
			;
		if (k == 4) {
			snprintf(why, sizeof(why),
				 "Flags=%.*s of a reservation is not supported by Spur (MAINT, "
				 "IGNORE_JOBS, DAILY and WEEKLY are)",
				 (int)(l < 40 ? l : 40), p);
			return why;
		}
		if (!strstr(out, known[k]))
			o += (size_t)snprintf(out + o, len - o, "%s%s", o ? "," : "", known[k]);
		p += l + (p[l] == ',');
	}
	return strstr(out, "DAILY") && strstr(out, "WEEKLY") ? "Flags=DAILY and WEEKLY together"
							     : NULL;
}

/* NodeCnt=N: the first N nodes (of a partition, when named) that no
 * reservation overlapping [start, end) holds (nor, where busy is given, a
 * running job). */
static char *pick_nodes(const struct ctld *c, long n, const char *part, int64_t start, int64_t end,
			const uint8_t *busy)
{
	const struct spur_conf_partition *pt = part ? spur_conf_partition(c->conf, part) : NULL;
	struct spur_hostlist *hl = spur_hostlist_create();
	char *names = NULL;
	long got = 0;

	for (size_t i = 0; hl && i < c->conf->nnodes && got < n; i++) {
		bool in = !pt;

		for (size_t p = 0; pt && p < pt->nnodes && !in; p++)
			in = pt->nodes[p] == i;
		if (in && !(busy && busy[i]) && !sched_node_reserved(c->sched, (uint32_t)i, start, end) &&
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
	const char *nodes = spur_json_str(msg, "nodes", ""), *bad;
	char name[128], *picked = NULL, flags[64], which[128];
	uint8_t *busy = NULL;
	struct spur_error err;
	json_t *op;

	if ((bad = flags_of(spur_json_str(msg, "flags", ""), flags, sizeof(flags)))) {
		answer_error(cn, SPUR_EINVAL, bad);
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
	/* without IGNORE_JOBS, nodes a running job holds past the start are busy */
	if (!strstr(flags, "IGNORE_JOBS") && !(busy = busy_nodes(c, start))) {
		answer_error(cn, SPUR_ENOMEM, "out of memory");
		return;
	}
	if (spur_json_int(msg, "node_cnt", 0) > 0) {
		picked = pick_nodes(c, (long)spur_json_int(msg, "node_cnt", 0),
				    spur_json_str(msg, "partition", NULL), start, end, busy);
		if (!picked) {
			spur_free(busy);
			answer_error(cn, SPUR_EINVAL, "Error creating the reservation: Requested nodes are busy");
			return;
		}
		nodes = picked;
	} else if (busy && *nodes && any_busy(c, nodes, busy, which, sizeof(which))) {
		spur_free(busy);
		spur_info("reservation refused: node %s is busy (a running job; Flags=IGNORE_JOBS "
			  "makes it anyway)", which);
		answer_error(cn, SPUR_EINVAL, "Error creating the reservation: Requested nodes are busy");
		return;
	}
	spur_free(busy);
	if (!*nodes || (!*spur_json_str(msg, "users", "") && !*spur_json_str(msg, "accounts", ""))) {
		spur_free(picked);
		answer_error(cn, SPUR_EINVAL,
			     "Error creating the reservation: Nodes (or NodeCnt) and Users or Accounts are required");
		return;
	}
	op = json_pack("{s:s,s:s,s:I,s:I,s:I,s:s,s:s,s:s,s:s}", "op", "resv", "name", name, "time",
		       (json_int_t)ctld_now(), "start", (json_int_t)start, "end", (json_int_t)end,
		       "nodes", nodes, "users", spur_json_str(msg, "users", ""), "accounts",
		       spur_json_str(msg, "accounts", ""), "flags", flags);
	spur_free(picked);
	if (ctld_commit(c, op, cn, json_pack("{s:s,s:s}", "type", "ok", "name", name), &err)) {
		char text[SPUR_ERROR_MSG_MAX + 64];

		snprintf(text, sizeof(text), "Error creating the reservation: %s", err.msg);
		answer_error(cn, err.code, text);
	} else {
		ctld_cycle_soon(c); /* its end wakes a cycle (it goes, or moves on) */
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

int64_t ctld_resv_tick(struct ctld *c, int64_t now, int64_t wake)
{
	json_t *due = json_array(), *op;
	size_t i;

	json_array_foreach(c->resv_ops, i, op) {
		int64_t end = spur_json_int(op, "end", 0), start = spur_json_int(op, "start", 0);
		const char *fl = spur_json_str(op, "flags", "");
		int64_t period = strstr(fl, "DAILY") ? 86400 : strstr(fl, "WEEKLY") ? 604800 : 0;
		json_t *next;

		if (end > now) {
			wake = end < wake ? end : wake;
			continue;
		}
		if (!period) { /* ended: it goes */
			json_array_append_new(due, json_pack("{s:s,s:s,s:I}", "op", "resv_del",
							     "name", spur_json_str(op, "name", ""),
							     "time", (json_int_t)now));
			continue;
		}
		/* the same window, a day or a week on (the next one not yet over) */
		next = json_deep_copy(op);
		end += ((now - end) / period + 1) * period;
		start = end - (spur_json_int(op, "end", 0) - start);
		json_object_set_new(next, "start", json_integer(start));
		json_object_set_new(next, "end", json_integer(end));
		json_object_set_new(next, "time", json_integer(now));
		json_object_set_new(next, "replace", json_true());
		json_array_append_new(due, next);
	}
	json_array_foreach(due, i, op) {
		struct spur_error err;

		if (ctld_commit(c, op, NULL, NULL, &err))
			spur_warn("reservation %s: %s", spur_json_str(op, "name", ""), err.msg);
	}
	json_decref(due);
	return wake;
}
