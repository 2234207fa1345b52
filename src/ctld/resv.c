/* SPDX-License-Identifier: Apache-2.0 */
/* Advance reservations in the controller (scontrol create/delete/show
 * reservation): each a "resv" op in the Raft log, applied to the core's
 * reservations and kept (c->resv_ops) for snapshots and for show. Flags
 * MAINT (kept, shown, and sreport's planned down time), IGNORE_JOBS (made
 * over running jobs; else nodes that a running job holds past the start
 * are busy, as in Slurm), DAILY and WEEKLY (once ended, the same window a
 * day or a week on), FLEX (its jobs may start before it and use nodes
 * outside it); TRES=gres/gpu=N holds N GPUs of its nodes (spread over
 * them in order, where running jobs and other reservations leave them
 * free) and leaves their CPUs and memory to all; an ended reservation
 * goes, as in Slurm. */
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
		.gpus = json_is_string(json_object_get(op, "gpus")) ? spur_json_str(op, "gpus", "")
								    : NULL,
		.flex = strstr(spur_json_str(op, "flags", ""), "FLEX") != NULL,
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
	/* an update: in place, its jobs keep it (replayed from a snapshot,
	 * where it is the reservation as it is: made) */
	if (spur_json_bool(op, "update", 0) && find_op(c, name, &at)) {
		if (sched_update_reservation(c->sched, &sp, err))
			return err->code;
		json_array_set(c->resv_ops, at, op);
		ctld_acct_resv(c, op, false);
		spur_info("reservation %s updated: %s", name, sp.nodes);
		return 0;
	}
	if (sched_add_reservation(c->sched, &sp, err))
		return err->code;
	json_array_append(c->resv_ops, op);
	ctld_acct_resv(c, op, false);
	spur_info("reservation %s: %s", name, sp.nodes);
	return 0;
}

/* The nodes that running jobs hold past start (a reservation starting
 * then would have them busy): per node 0 (free), or 1 + the GPUs they
 * hold there (malloc'd), or NULL. */
static uint8_t *busy_nodes(const struct ctld *c, int64_t start)
{
	uint8_t *busy = spur_calloc(c->conf->nnodes + 1, 1);

	for (size_t id = c->purge_low; busy && id < c->jobs_cap; id++) {
		struct sched_job_info info;

		if (!c->jobs[id] || sched_job_info(c->sched, (uint32_t)id, &info) ||
		    info.state != SCHED_JOB_RUNNING || info.end_time <= start)
			continue;
		for (size_t k = 0; k < info.nalloc; k++)
			if (info.alloc[k].node < c->conf->nnodes) {
				uint8_t *b = &busy[info.alloc[k].node];
				unsigned v = (*b ? *b : 1u) +
					     (unsigned)__builtin_popcount(info.alloc[k].gpu_mask);

				*b = (uint8_t)(v > 255 ? 255 : v);
			}
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
	static const char *const known[] = { "MAINT", "IGNORE_JOBS", "DAILY", "WEEKLY", "FLEX" };
	static char why[160];
	size_t o = 0;

	*out = '\0';
	for (const char *p = in; *p;) {
		size_t l = strcspn(p, ","), k;

		for (k = 0; k < 5 && (strlen(known[k]) != l || strncasecmp(p, known[k], l)); k++)
			;
		if (k == 5) {
			snprintf(why, sizeof(why),
				 "Flags=%.*s of a reservation is not supported by Spur (MAINT, "
				 "IGNORE_JOBS, DAILY, WEEKLY and FLEX are)",
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

/* TRES=: gres/gpu=N (*gpus) and node=N (*node_cnt, unless NodeCnt gave
 * one). NULL, or what is wrong. */
static const char *tres_of(const char *in, long *gpus, long *node_cnt)
{
	static char why[200];

	for (const char *p = in; *p;) {
		size_t l = strcspn(p, ",");
		char item[64];
		long v;

		snprintf(item, sizeof(item), "%.*s", (int)(l < 63 ? l : 63), p);
		v = strchr(item, '=') ? atol(strchr(item, '=') + 1) : 0;
		if (!strncasecmp(item, "gres/gpu=", 9) && v > 0)
			*gpus = v;
		else if (!strncasecmp(item, "node=", 5) && v > 0 && !*node_cnt)
			*node_cnt = v;
		else {
			snprintf(why, sizeof(why),
				 "TRES=%s of a reservation is not supported by Spur (gres/gpu=N and "
				 "node=N are)",
				 item);
			return why;
		}
		p += l + (p[l] == ',');
	}
	return NULL;
}

/* The GPUs of node i that other reservations overlapping [start, end)
 * hold; 255 when one holds the whole node. */
static unsigned gpus_reserved(const struct ctld *c, size_t i, int64_t start, int64_t end,
			      const char *self)
{
	const char *name = c->conf->nodes[i].name;
	unsigned held = 0;
	size_t k;
	json_t *op;

	json_array_foreach(c->resv_ops, k, op) {
		const char *g = spur_json_str(op, "gpus", NULL);
		struct spur_hostlist *hl;

		if (spur_json_int(op, "start", 0) >= end || spur_json_int(op, "end", 0) <= start ||
		    (self && !strcmp(self, spur_json_str(op, "name", ""))))
			continue;
		if (!g) { /* whole nodes */
			hl = spur_hostlist_from_expr(spur_json_str(op, "nodes", ""), NULL);
			for (size_t h = 0; hl && h < spur_hostlist_count(hl); h++)
				if (!strcmp(spur_hostlist_nth(hl, h), name))
					held = 255;
			spur_hostlist_destroy(hl);
			continue;
		}
		for (const char *p = g; *p;) { /* NODE:COUNT,... */
			size_t l = strcspn(p, ",");
			const char *colon = memchr(p, ':', l);

			if (colon && (size_t)(colon - p) == strlen(name) && !strncmp(p, name, strlen(name)))
				held += (unsigned)atoi(colon + 1);
			p += l + (p[l] == ',');
		}
	}
	return held;
}

/* TRES=gres/gpu=N: N GPUs from the nodes (a hostlist; NULL: the
 * partition's, or all), in order, each giving what running jobs (busy, when
 * given) and other reservations leave it: "NODE:COUNT,..." and the nodes'
 * hostlist, or NULL when they have fewer. */
static char *pick_gpus(const struct ctld *c, long want, const char *nodes, const char *part,
		       int64_t start, int64_t end, const uint8_t *busy, const char *self,
		       char **hosts)
{
	const struct spur_conf_partition *pt = part ? spur_conf_partition(c->conf, part) : NULL;
	struct spur_hostlist *given = nodes && *nodes && strcmp(nodes, "ALL")
					      ? spur_hostlist_from_expr(nodes, NULL)
					      : NULL, *hl = spur_hostlist_create();
	size_t o = 0, cap = 64;
	char *out = spur_malloc(cap);

	for (size_t i = 0; out && hl && want > 0 && i < c->conf->nnodes; i++) {
		bool in = !pt && !given;
		unsigned has = (unsigned)spur_gres_count(&c->conf->nodes[i].gres, "gpu", NULL),
			 gone = (busy && busy[i] ? busy[i] - 1u : 0) + gpus_reserved(c, i, start, end, self);
		size_t need = o + strlen(c->conf->nodes[i].name) + 16;
		long take;

		for (size_t p = 0; pt && p < pt->nnodes && !in; p++)
			in = pt->nodes[p] == i;
		for (size_t h = 0; given && h < spur_hostlist_count(given) && !in; h++)
			in = !strcmp(spur_hostlist_nth(given, h), c->conf->nodes[i].name);
		if (!in || gone >= has)
			continue;
		if (need > cap) {
			char *more = spur_realloc(out, cap = 2 * need);

			if (!more) {
				spur_free(out);
				out = NULL;
				break;
			}
			out = more;
		}
		take = (long)(has - gone) < want ? (long)(has - gone) : want;
		o += (size_t)snprintf(out + o, cap - o, "%s%s:%ld", o ? "," : "",
				      c->conf->nodes[i].name, take);
		spur_hostlist_push(hl, c->conf->nodes[i].name, NULL);
		want -= take;
	}
	*hosts = want == 0 && out && hl ? spur_hostlist_ranged(hl, NULL) : NULL;
	spur_hostlist_destroy(given);
	spur_hostlist_destroy(hl);
	if (!*hosts) {
		spur_free(out);
		return NULL;
	}
	return out;
}

/* Where a new reservation goes: *nodes (a hostlist) and, for
 * TRES=gres/gpu=N, *gpus ("NODE:COUNT,..."), both malloc'd. 0, or the
 * message (said by the caller). */
static const char *resv_place(struct ctld *c, const json_t *msg, const char *flags,
			      int64_t start, int64_t end, char **nodes, char **gpus, long *ngpus)
{
	long want_gpus = 0, node_cnt = spur_json_int(msg, "node_cnt", 0);
	const char *given = spur_json_str(msg, "nodes", ""), *bad;
	uint8_t *busy = NULL;
	char which[128];

	*nodes = *gpus = NULL;
	if ((bad = tres_of(spur_json_str(msg, "tres", ""), &want_gpus, &node_cnt)))
		return bad;
	*ngpus = want_gpus;
	/* without IGNORE_JOBS, what a running job holds past the start is busy */
	if (!strstr(flags, "IGNORE_JOBS") && !(busy = busy_nodes(c, start)))
		return "out of memory";
	if (want_gpus > 0) {
		*gpus = pick_gpus(c, want_gpus, given, spur_json_str(msg, "partition", NULL), start,
				  end, busy, spur_json_str(msg, "self", NULL), nodes);
		bad = *gpus ? NULL : "Error creating the reservation: Requested nodes are busy";
	} else if (node_cnt > 0) {
		*nodes = pick_nodes(c, node_cnt, spur_json_str(msg, "partition", NULL), start, end,
				    busy);
		bad = *nodes ? NULL : "Error creating the reservation: Requested nodes are busy";
	} else if (busy && *given && any_busy(c, given, busy, which, sizeof(which))) {
		spur_info("reservation refused: node %s is busy (a running job; Flags=IGNORE_JOBS "
			  "makes it anyway)", which);
		bad = "Error creating the reservation: Requested nodes are busy";
	} else {
		*nodes = spur_strdup(given);
		bad = *nodes ? NULL : "out of memory";
	}
	spur_free(busy);
	return bad;
}

/* A resv op's GPUs (TRES=gres/gpu=N): "gpus" (node by node, decided by the
 * leader for every replica) and "tres"; both gone when gpus is NULL. */
static void op_set_gpus(json_t *op, const char *gpus, long ngpus)
{
	char tres[48];

	json_object_del(op, "gpus");
	json_object_del(op, "tres");
	if (!gpus)
		return;
	snprintf(tres, sizeof(tres), "gres/gpu=%ld", ngpus);
	json_object_set_new(op, "gpus", json_string(gpus));
	json_object_set_new(op, "tres", json_string(tres));
}

void ctld_handle_resv_create(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	int64_t start = spur_json_int(msg, "start", 0), end = spur_json_int(msg, "end", 0);
	const char *bad;
	char name[128], *nodes = NULL, *gpus = NULL, flags[64];
	struct spur_error err;
	long ngpus = 0;
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
	if ((bad = resv_place(c, msg, flags, start, end, &nodes, &gpus, &ngpus))) {
		answer_error(cn, SPUR_EINVAL, bad);
		goto out;
	}
	if (!*nodes || (!*spur_json_str(msg, "users", "") && !*spur_json_str(msg, "accounts", ""))) {
		answer_error(cn, SPUR_EINVAL,
			     "Error creating the reservation: Nodes (or NodeCnt) and Users or Accounts are required");
		goto out;
	}
	op = json_pack("{s:s,s:s,s:I,s:I,s:I,s:s,s:s,s:s,s:s}", "op", "resv", "name", name, "time",
		       (json_int_t)ctld_now(), "start", (json_int_t)start, "end", (json_int_t)end,
		       "nodes", nodes, "users", spur_json_str(msg, "users", ""), "accounts",
		       spur_json_str(msg, "accounts", ""), "flags", flags);
	op_set_gpus(op, gpus, ngpus);
	if (ctld_commit(c, op, cn, json_pack("{s:s,s:s}", "type", "ok", "name", name), &err)) {
		char text[SPUR_ERROR_MSG_MAX + 64];

		snprintf(text, sizeof(text), "Error creating the reservation: %s", err.msg);
		answer_error(cn, err.code, text);
	} else {
		ctld_cycle_soon(c); /* its end wakes a cycle (it goes, or moves on) */
	}
	json_decref(op);
out:
	spur_free(nodes);
	spur_free(gpus);
}

/* A comma list edited: "=" value, "+" value's items added, "-" removed. */
static char *list_edit(const char *old, const char *val, const char *how)
{
	size_t cap = strlen(old) + strlen(val) + 2, o = 0;
	char *out = spur_malloc(cap);

	if (!out)
		return NULL;
	*out = '\0';
	if (*how == '=') {
		snprintf(out, cap, "%s", val);
		return out;
	}
	for (const char *p = old; *p;) { /* the old items, less those removed */
		size_t l = strcspn(p, ","), k = 0;
		bool drop = false;

		for (const char *q = val; *how == '-' && *q && !drop; q += k + (q[k] == ','))
			drop = (k = strcspn(q, ",")) == l && !strncmp(p, q, l);
		if (!drop && l)
			o += (size_t)snprintf(out + o, cap - o, "%s%.*s", o ? "," : "", (int)l, p);
		p += l + (p[l] == ',');
	}
	if (*how == '+' && *val)
		snprintf(out + o, cap - o, "%s%s", o ? "," : "", val);
	return out;
}

/* The updated reservation's fields into m (a copy of its op): Users,
 * Accounts, Flags (=, +=, -=), StartTime, EndTime, Duration (its start
 * kept). NULL, or what is wrong. */
static const char *resv_merge(json_t *m, const json_t *msg)
{
	static const char *const lists[] = { "users", "accounts", "flags" };
	int64_t start = spur_json_int(m, "start", 0), end = spur_json_int(m, "end", 0);

	for (size_t k = 0; k < 3; k++) {
		char how_key[32], *v;

		if (!json_is_string(json_object_get(msg, lists[k])))
			continue;
		snprintf(how_key, sizeof(how_key), "%s_how", lists[k]);
		v = list_edit(spur_json_str(m, lists[k], ""), spur_json_str(msg, lists[k], ""),
			      spur_json_str(msg, how_key, "="));
		if (!v)
			return "out of memory";
		json_object_set_new(m, lists[k], json_string(v));
		spur_free(v);
	}
	if (json_object_get(msg, "start")) { /* moved, as long as it was */
		end = spur_json_int(msg, "start", 0) + (end - start);
		start = spur_json_int(msg, "start", 0);
	}
	if (json_object_get(msg, "end"))
		end = spur_json_int(msg, "end", 0);
	if (json_object_get(msg, "duration"))
		end = start + spur_json_int(msg, "duration", 0);
	if (end <= start)
		return "Error updating the reservation: Invalid time specification (end before start)";
	json_object_set_new(m, "start", json_integer(start));
	json_object_set_new(m, "end", json_integer(end));
	return NULL;
}

void ctld_handle_resv_update(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const char *name = spur_json_str(msg, "name", ""), *bad = NULL;
	const json_t *old = find_op(c, name, NULL);
	char flags[64], *nodes = NULL, *gpus = NULL;
	long ngpus = 0;
	struct spur_error err;
	json_t *m;

	if (!old) {
		answer_error(cn, SPUR_ENOENT, "Error updating the reservation: Requested reservation is invalid");
		return;
	}
	m = json_deep_copy(old);
	json_object_del(m, "replace");
	if (!m || (bad = resv_merge(m, msg)) ||
	    (bad = flags_of(spur_json_str(m, "flags", ""), flags, sizeof(flags))))
		goto refuse;
	json_object_set_new(m, "flags", json_string(flags));
	if (json_object_get(msg, "nodes") || json_object_get(msg, "tres")) { /* placed again */
		json_t *p = json_pack("{s:s,s:s,s:s}", "nodes",
				      spur_json_str(msg, "nodes", spur_json_str(m, "nodes", "")), "tres",
				      spur_json_str(msg, "tres", spur_json_str(m, "tres", "")), "self",
				      name);

		bad = resv_place(c, p, flags, spur_json_int(m, "start", 0), spur_json_int(m, "end", 0),
				 &nodes, &gpus, &ngpus);
		json_decref(p);
		if (bad)
			goto refuse;
		json_object_set_new(m, "nodes", json_string(nodes));
		op_set_gpus(m, gpus, ngpus);
	}
	json_object_set_new(m, "update", json_true());
	json_object_set_new(m, "time", json_integer((json_int_t)ctld_now()));
	if (ctld_commit(c, m, cn, json_pack("{s:s}", "type", "ok"), &err))
		answer_error(cn, err.code, err.msg);
	else
		ctld_cycle_soon(c);
	goto out;
refuse:
	answer_error(cn, SPUR_EINVAL, bad ? bad : "out of memory");
out:
	json_decref(m);
	spur_free(nodes);
	spur_free(gpus);
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
