/* SPDX-License-Identifier: Apache-2.0 */
/* The resource limits Slurm propagates (--propagate, PropagateResourceLimits):
 * one table of Slurm's names for the CLI, the controller and the agent. */
#ifndef SPUR_COMMON_RLIMIT_H
#define SPUR_COMMON_RLIMIT_H

#include <stdbool.h>
#include <stddef.h>

#define SPUR_RLIMIT_COUNT 10

/* Slurm's name of limit i ("AS", "CORE", ... "STACK"), i < SPUR_RLIMIT_COUNT. */
const char *spur_rlimit_name(size_t i);

/* The RLIMIT_* resource of limit i. */
int spur_rlimit_resource(size_t i);

/* Index of the limit named by the first len bytes of name (any case), or -1. */
int spur_rlimit_find(const char *name, size_t len);

/* Whether a comma list names only limits, ALL or NONE (Slurm's --propagate). On
 * false, *bad and *bad_len locate the first wrong item. */
bool spur_rlimit_list_ok(const char *list, const char **bad, size_t *bad_len);

#endif
