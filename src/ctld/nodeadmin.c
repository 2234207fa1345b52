/* SPDX-License-Identifier: Apache-2.0 */
/* Nodes drained or set down by an administrator (scontrol update
 * NodeName=... State=...) or by a failed HealthCheck or Prolog, with the
 * reason, user and time: "node_admin" ops in the Raft log, so a new leader
 * (or a restarted controller) keeps them. The leader carries the state
 * into its scheduler as each node's agent registers. */
#include "ctld.h"
#include "nodeadmin.h"

#include "common/alloc.h"
#include "common/log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int apply_entry(struct ctld *c, const json_t *e, struct spur_error *err)
{
	const char *name = spur_json_str(e, "node", ""), *state = spur_json_str(e, "state", "");
	long idx = spur_conf_node_index(c->conf, name);

	if (idx < 0)
		return spur_error_set(err, SPUR_ENOENT, "node_admin: unknown node %s", name);
	c->node_admin[idx] = !strcasecmp(state, "DOWN")	   ? CTLD_ADMIN_DOWN
			     : !strcasecmp(state, "DRAIN") ? CTLD_ADMIN_DRAIN
							   : CTLD_ADMIN_NONE;
	snprintf(c->node_reason[idx], sizeof(c->node_reason[idx]), "%s",
		 c->node_admin[idx] ? spur_json_str(e, "reason", "") : "");
	snprintf(c->node_reason_user[idx], sizeof(c->node_reason_user[idx]), "%s",
		 spur_json_str(e, "user", "root"));
	c->node_reason_time[idx] = spur_json_int(e, "time", 0);
	return 0;
}

int ctld_apply_node_admin(struct ctld *c, json_t *op, struct spur_error *err)
{
	json_t *list = json_object_get(op, "list"), *e;
	size_t i;

	/* every node known first: a refused op changes nothing */
	json_array_foreach(list, i, e)
		if (spur_conf_node_index(c->conf, spur_json_str(e, "node", "")) < 0)
			return spur_error_set(err, SPUR_ENOENT, "node_admin: unknown node %s",
					      spur_json_str(e, "node", ""));
	json_array_foreach(list, i, e)
		apply_entry(c, e, err);
	return 0;
}

json_t *ctld_node_admin_state_op(struct ctld *c)
{
	json_t *list = json_array();

	for (size_t i = 0; i < c->conf->nnodes; i++)
		if (c->node_admin[i])
			json_array_append_new(
				list, json_pack("{s:s,s:s,s:s,s:s,s:I}", "node", c->conf->nodes[i].name,
						"state",
						c->node_admin[i] == CTLD_ADMIN_DOWN ? "DOWN" : "DRAIN",
						"reason", c->node_reason[i], "user",
						c->node_reason_user[i], "time",
						(json_int_t)c->node_reason_time[i]));
	if (!json_array_size(list)) {
		json_decref(list);
		return NULL;
	}
	return json_pack("{s:s,s:o}", "op", "node_admin", "list", list);
}

int ctld_node_admin_commit(struct ctld *c, const char *const *nodes, size_t n, const char *state,
			   const char *reason, const char *user, struct spur_error *err)
{
	json_t *list = json_array(), *op;
	int rc;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:I}", "node", nodes[i],
						      "state", state, "reason", reason, "user", user,
						      "time", (json_int_t)ctld_now()));
	op = json_pack("{s:s,s:o,s:I}", "op", "node_admin", "list", list, "time",
		       (json_int_t)ctld_now());
	rc = ctld_commit(c, op, NULL, NULL, err);
	json_decref(op);
	return rc;
}

int ctld_apply_node_features(struct ctld *c, const json_t *op, struct spur_error *err)
{
	json_t *list = json_object_get(op, "list"), *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (spur_conf_node_index(c->conf, spur_json_str(e, "node", "")) < 0)
			return spur_error_set(err, SPUR_ENOENT, "Invalid node name specified");
	if (!c->node_feat_orig && !(c->node_feat_orig = json_object()))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	json_array_foreach(list, i, e) {
		const char *name = spur_json_str(e, "node", ""), *f = spur_json_str(e, "features", "");
		struct spur_conf_node *n = &c->conf->nodes[spur_conf_node_index(c->conf, name)];
		char *copy = *f ? spur_strdup(f) : NULL; /* "": none */

		if ((*f && !copy) || sched_node_set_features(c->sched, name, f, err)) {
			spur_free(copy);
			return copy || !*f ? err->code
					   : spur_error_set(err, SPUR_ENOMEM, "out of memory");
		}
		if (!json_object_get(c->node_feat_orig, name))
			json_object_set_new(c->node_feat_orig, name,
					    json_string(n->features ? n->features : ""));
		spur_free(n->features);
		n->features = copy;
		spur_info("node %s: features %s", name, *f ? f : "(none)");
	}
	return 0;
}

json_t *ctld_node_features_state_op(struct ctld *c)
{
	json_t *list = json_array(), *v;
	const char *name;

	json_object_foreach(c->node_feat_orig, name, v) {
		long i = spur_conf_node_index(c->conf, name);
		const char *now = i >= 0 && c->conf->nodes[i].features ? c->conf->nodes[i].features : "";

		json_array_append_new(list, json_pack("{s:s,s:s}", "node", name, "features", now));
	}
	if (!json_array_size(list)) {
		json_decref(list);
		return NULL;
	}
	return json_pack("{s:s,s:o}", "op", "node_features", "list", list);
}

void ctld_node_features_reset(struct ctld *c)
{
	const char *name;
	json_t *v;

	json_object_foreach(c->node_feat_orig, name, v) {
		long i = spur_conf_node_index(c->conf, name);

		if (i < 0)
			continue;
		spur_free(c->conf->nodes[i].features);
		c->conf->nodes[i].features =
			*json_string_value(v) ? spur_strdup(json_string_value(v)) : NULL;
	}
	json_object_clear(c->node_feat_orig);
}
