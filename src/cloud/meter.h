/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's metering and budgets (docs/cloud.md "Metering"): run by
 * the service's own thread, on its own database connection, every
 * --meter-interval seconds. */
#ifndef SPUR_CLOUD_METER_H
#define SPUR_CLOUD_METER_H

#include "cloud/db.h"

#include <stddef.h>

/* Bill every session's job not yet fully billed up to the controller's
 * now or its end: the number of sessions metered, or negative with why
 * (the database's code, or -1: the controller). Idempotent. */
int cloud_meter_pass(struct cloud_db *db, char *why, size_t wlen);

/* Stop the live sessions of organisations whose credit is spent: 0, or
 * negative with why. */
int cloud_meter_budgets(struct cloud_db *db, char *why, size_t wlen);

/* Stop the sessions idle past their idle limit (no terminal open for
 * that long, since the last one or their start): 0, or negative. */
int cloud_meter_idle(struct cloud_db *db, char *why, size_t wlen);

#endif
