/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol update PartitionName= (partupdate.c): "part_update" ops in
 * the Raft log. */
#ifndef SPUR_CTLD_PARTUPDATE_H
#define SPUR_CTLD_PARTUPDATE_H

#include <jansson.h>

struct ctld;
struct spur_error;

/* The "part_update" op: {name, state (UP, DOWN, DRAIN, INACTIVE),
 * max_time, default_time (seconds; -1: UNLIMITED, NONE), max_nodes (-1:
 * UNLIMITED)}, each absent unchanged: into the configuration's partition
 * and the scheduler. Refused (nothing changed) for an unknown partition
 * or value. */
int ctld_apply_part_update(struct ctld *c, const json_t *op, struct spur_error *err);
/* An op for each partition changed since slurm.conf was read, appended
 * to ops (a snapshot's). */
void ctld_part_state_ops(struct ctld *c, json_t *ops);
/* scontrol's "part_update" request (administrators). */
struct ctld_conn;
void ctld_handle_part_update(struct ctld_conn *cn, json_t *msg);
/* Have partitions been changed since slurm.conf was read? */
int ctld_part_changed(const struct ctld *c);
/* The partitions back to slurm.conf's values (before a snapshot's ops
 * are applied over a fresh scheduler). */
void ctld_part_reset(struct ctld *c);

#endif
