/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol update PartitionName= (partupdate.c): "part_update" ops in
 * the Raft log. */
#ifndef SPUR_CTLD_PARTUPDATE_H
#define SPUR_CTLD_PARTUPDATE_H

#include <jansson.h>

struct ctld;
struct spur_error;

/* The "part_update" op: {name, state (UP, DOWN, DRAIN, INACTIVE),
 * max_time, default_time (seconds; -1: NONE, -3: UNLIMITED), max_nodes (-1:
 * UNLIMITED), nodes, tier, job_factor}, each absent unchanged: into the configuration's partition
 * and the scheduler. Refused (nothing changed) for an unknown partition
 * or value. */
int ctld_apply_part_update(struct ctld *c, const json_t *op, struct spur_error *err);
/* scontrol create partition: the op {line: "PartitionName=NAME K=V ..."}
 * (read as slurm.conf's line, see spur_conf_partition_create) into the
 * configuration and the scheduler. delete: the op {name}, refused while a
 * pending or running job may run in it ("Partition is in use"). Each
 * changes nothing when refused. */
int ctld_apply_part_create(struct ctld *c, const json_t *op, struct spur_error *err);
int ctld_apply_part_delete(struct ctld *c, const json_t *op, struct spur_error *err);
/* The ops that rebuild the partitions changed since slurm.conf was read
 * (creates and deletes in order, then updates), appended to ops (a
 * snapshot's). */
void ctld_part_state_ops(struct ctld *c, json_t *ops);
/* scontrol's "part_update" request (administrators). */
struct ctld_conn;
void ctld_handle_part_update(struct ctld_conn *cn, json_t *msg);
/* scontrol's "part_create" {line} and "part_delete" {name} (administrators). */
void ctld_handle_part_create(struct ctld_conn *cn, json_t *msg);
void ctld_handle_part_delete(struct ctld_conn *cn, json_t *msg);
/* The deletes of ctld_part_state_ops that go after the snapshot's jobs
 * (partitions not created again): their ended jobs restored first. */
void ctld_part_state_tail_ops(struct ctld *c, json_t *ops);
/* Have partitions been changed since slurm.conf was read? */
int ctld_part_changed(const struct ctld *c);
/* The partitions back to slurm.conf's values (before a snapshot's ops
 * are applied over a fresh scheduler). */
void ctld_part_reset(struct ctld *c);

#endif
