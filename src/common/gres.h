/* SPDX-License-Identifier: Apache-2.0 */
/* GRES specifications: "gpu", "gpu:8", "gpu:mi300x:8", "gpu:2,shard:4". */
#ifndef SPUR_COMMON_GRES_H
#define SPUR_COMMON_GRES_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>

#define SPUR_GRES_NAME_MAX 32
#define SPUR_GRES_TYPE_MAX 64
#define SPUR_GRES_COUNT_MAX (UINT64_C(1) << 32)

struct spur_gres_item {
	char name[SPUR_GRES_NAME_MAX]; /* "gpu", "shard", "nic" */
	char type[SPUR_GRES_TYPE_MAX]; /* "mi300x", or "" for any */
	uint64_t count;
};

/* A list of items, each (name, type) at most once. Embedded by the caller;
 * zero-initialise, then spur_gres_fini(). */
struct spur_gres_list {
	struct spur_gres_item *items;
	size_t n, cap;
};

enum spur_gres_flags_b {
	/* Node definitions (slurm.conf Gres=): allow a "(S:0-1)" socket suffix. */
	SPUR_GRES_NODE_SPEC = 1 << 0,
};

/* Parse a comma list of NAME[:TYPE][:COUNT] items (an optional "gres/"
 * prefix is accepted, as in --tres-per-node). COUNT takes K/M/G. Names and
 * types are letters, digits, '_', '-', '.', starting with a letter. On error
 * `out` holds the same items as before (its buffer may have grown, so a
 * fresh list still needs spur_gres_fini) and err quotes the bad item.
 * Appends to `out`. */
int spur_gres_parse(const char *s, unsigned flags, struct spur_gres_list *out,
		    struct spur_error *err);

void spur_gres_fini(struct spur_gres_list *l);

/* Sum of counts for `name`, over all types when type is NULL or "". */
uint64_t spur_gres_count(const struct spur_gres_list *l, const char *name, const char *type);

/* "gpu:mi300x:8,shard:4"; caller frees. NULL when out of memory. */
char *spur_gres_format(const struct spur_gres_list *l);

#endif
