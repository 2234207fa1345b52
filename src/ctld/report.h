/* SPDX-License-Identifier: Apache-2.0 */
/* What sdiag and sprio show (report.c): RPC counts by type and user, the
 * scheduler's totals, pending jobs' priority factors. */
#ifndef SPUR_CTLD_REPORT_H
#define SPUR_CTLD_REPORT_H

#include <jansson.h>
#include <stdint.h>

struct ctld;
struct ctld_conn;

/* One request of type from user took us microseconds. */
void ctld_rpc_note(struct ctld *c, const char *type, const char *user, uint64_t us);
/* The stats reply r with the RPC counts and the scheduler's totals; r. */
json_t *ctld_stats_more(struct ctld *c, json_t *r);
void ctld_stats_free(struct ctld *c);
/* sprio: each pending job's factors, and the weights. */
void ctld_handle_prio(struct ctld_conn *cn, json_t *msg);

#endif
