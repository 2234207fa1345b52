/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol reconfigure and SIGHUP: the leader reads slurm.conf (and the
 * files beside it) again; the keys the controllers can change while they
 * run are replicated to all of them as one "reconfig" op (in the Raft log
 * and in every snapshot after it); a change to any other key is refused
 * by name, nothing applied (docs/rfc/0003-wire.md). */
#ifndef SPUR_CTLD_RECONF_H
#define SPUR_CTLD_RECONF_H

#include <jansson.h>

struct ctld;
struct ctld_conn;
struct spur_error;

/* The configuration as read at the start (or at the last reconfigure),
 * kept to compare the next read with. 0, or an error. */
int ctld_reconf_base(struct ctld *c, const char *conf_path, struct spur_error *err);
/* Read the files again and, when only live keys changed, commit the op;
 * cn (NULL for SIGHUP) is answered once it is committed. */
int ctld_reconfigure(struct ctld *c, struct ctld_conn *cn, struct spur_error *err);
void ctld_handle_reconfigure(struct ctld_conn *cn, json_t *msg);
int ctld_apply_reconfig(struct ctld *c, const json_t *op, struct spur_error *err);
/* A new leader: when slurm.conf's live keys differ from the log's last
 * reconfigure (the file edited while the controllers were down), commit
 * them, as a restarted slurmctld reads its file. Every controller reads
 * the same slurm.conf, as Slurm requires. */
void ctld_reconf_on_lead(struct ctld *c);
/* The last reconfig op (for snapshots), or NULL. */
json_t *ctld_reconf_state_op(const struct ctld *c);

#endif
