/* SPDX-License-Identifier: Apache-2.0 */
/* Accounts, users, associations and QOS as cluster state in the Raft log
 * (assoc.c): sacctmgr's changes are "assoc" ops, applied to the core's
 * limits and kept in c->assoc for snapshots, sacctmgr show and sshare. */
#ifndef SPUR_CTLD_ASSOC_H
#define SPUR_CTLD_ASSOC_H

#include <jansson.h>
#include <stdbool.h>

struct ctld;
struct ctld_conn;
struct sched_config;
struct spur_error;

/* AccountingStorageEnforce=associations,limits,qos[,safe] into cfg;
 * values Spur does not carry out are refused by name. */
int ctld_assoc_enforce(const char *value, struct sched_config *cfg, struct spur_error *err);

/* The "assoc" op: {kind: account|user|assoc|qos, action: set|del, rec}; and
 * "assoc_state": {doc} (a snapshot's whole state). A refused one changes
 * nothing. */
int ctld_apply_assoc(struct ctld *c, json_t *op, struct spur_error *err);
/* The whole state as one "assoc_state" op for a snapshot (NULL: none). */
json_t *ctld_assoc_state_op(struct ctld *c);
/* Forget it all (a snapshot replaces it). */
void ctld_assoc_clear(struct ctld *c);
/* The association's QOS list and DefaultQOS (its own, else the nearest
 * account's up the tree): a job with no QOS gets the default; with
 * AccountingStorageEnforce=qos one outside the list is refused. */
int ctld_assoc_qos(struct ctld *c, json_t *job, struct spur_error *err);
/* The user's default account, or NULL. */
const char *ctld_assoc_default_account(const struct ctld *c, const char *user);
/* o's string key made lowercase (account names, as Slurm keeps them). */
void ctld_lower(json_t *o, const char *key);

/* sacctmgr: the state with each association's use (any user); changes
 * (administrators). */
void ctld_handle_assoc_show(struct ctld_conn *cn, json_t *msg);
void ctld_handle_assoc_change(struct ctld_conn *cn, json_t *msg);

#endif
