/* SPDX-License-Identifier: Apache-2.0 */
/* Administrators' node states in the Raft log (nodeadmin.c). */
#ifndef SPUR_CTLD_NODEADMIN_H
#define SPUR_CTLD_NODEADMIN_H

#include <jansson.h>
#include <stddef.h>

struct ctld;
struct spur_error;

/* The "node_admin" op: {list: [{node, state: DRAIN|DOWN|"" (resumed),
 * reason, user, time}]}, applied to the controller's node table. */
int ctld_apply_node_admin(struct ctld *c, json_t *op, struct spur_error *err);
/* Every drained or downed node as one op, for a snapshot (NULL: none). */
json_t *ctld_node_admin_state_op(struct ctld *c);
/* Commit state (DRAIN, DOWN or "") for nodes, by user, for reason. */
int ctld_node_admin_commit(struct ctld *c, const char *const *nodes, size_t n, const char *state,
			   const char *reason, const char *user, struct spur_error *err);

/* The "node_features" op: {list: [{node, features}]} (scontrol update
 * NodeName= AvailableFeatures=): each node's features (a comma list, ""
 * none) in the configuration and the scheduler; all nodes known or
 * nothing changed. */
int ctld_apply_node_features(struct ctld *c, const json_t *op, struct spur_error *err);
/* The changed features as one op, for a snapshot (NULL: none). */
json_t *ctld_node_features_state_op(struct ctld *c);
/* slurm.conf's features back (before a snapshot's ops over a fresh
 * scheduler). */
void ctld_node_features_reset(struct ctld *c);

#endif
