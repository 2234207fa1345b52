/* SPDX-License-Identifier: Apache-2.0 */
/* Advance reservations in the controller (resv.c). */
#ifndef SPUR_CTLD_RESV_H
#define SPUR_CTLD_RESV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct ctld_conn;
struct spur_error;

/* The "resv" op (create; del: "resv_del") applied to the core and kept in
 * c->resv_ops; a refused one changes nothing. */
int ctld_apply_resv(struct ctld *c, json_t *op, bool del, struct spur_error *err);

/* scontrol create/delete/show reservation (the first two: administrators). */
void ctld_handle_resv_create(struct ctld_conn *cn, json_t *msg);
void ctld_handle_resv_delete(struct ctld_conn *cn, json_t *msg);
/* scontrol update ReservationName= (administrators): a "resv" op with
 * "update": the reservation changed in place. */
void ctld_handle_resv_update(struct ctld_conn *cn, json_t *msg);
void ctld_handle_resvs(struct ctld_conn *cn, json_t *msg);
/* On the leader, each cycle: reservations ended by now go (DAILY and
 * WEEKLY ones move to their next window), each an op; the earlier of wake
 * and the next end of one is returned (the cycle's next wake-up). */
int64_t ctld_resv_tick(struct ctld *c, int64_t now, int64_t wake);


#endif
