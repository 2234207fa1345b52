/* SPDX-License-Identifier: Apache-2.0 */
/* TRES strings: "cpu=4,mem=16G,node=1,billing=4,gres/gpu:mi300x=8". */
#ifndef SPUR_COMMON_TRES_H
#define SPUR_COMMON_TRES_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>

struct spur_tres_item {
	char type[16];  /* cpu, mem, node, billing, energy, gres, license, fs, bb, vmem, pages */
	char name[96];  /* "" for simple types; "gpu" or "gpu:mi300x" for gres */
	uint64_t count; /* mem in MiB */
};

/* Embedded by the caller; zero-initialise, then spur_tres_fini(). */
struct spur_tres {
	struct spur_tres_item *items;
	size_t n, cap;
};

/* Parse a comma list of TYPE[/NAME]=VALUE. mem takes size suffixes (MiB by
 * default); other values take K/M/G. Unknown types, missing names
 * ("gres/"), names on simple types and repeats fail. On error `out` holds
 * the same items (a fresh one still needs spur_tres_fini). Appends. */
int spur_tres_parse(const char *s, struct spur_tres *out, struct spur_error *err);

void spur_tres_fini(struct spur_tres *t);

/* The count of type/name, or 0 when absent. name may be NULL for "". */
uint64_t spur_tres_get(const struct spur_tres *t, const char *type, const char *name);

/* As Slurm prints them: "cpu=4,mem=16G,node=1,gres/gpu=8". Caller frees. */
char *spur_tres_format(const struct spur_tres *t);

#endif
