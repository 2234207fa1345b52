/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm hostlist expressions ("gpu[01-04,07],rack[1-2]-n[1-3]") both ways. */
#ifndef SPUR_COMMON_HOSTLIST_H
#define SPUR_COMMON_HOSTLIST_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

/* Hard limits: one expression never expands past SPUR_HOSTLIST_MAX names and
 * a host name is at most SPUR_HOSTNAME_MAX bytes. */
#define SPUR_HOSTLIST_MAX (1u << 20)
#define SPUR_HOSTNAME_MAX 255

/* An ordered list of host names (duplicates allowed). Opaque. */
struct spur_hostlist;

/* Returns a new empty list, or NULL when out of memory. */
struct spur_hostlist *spur_hostlist_create(void);

/* NULL-safe. */
void spur_hostlist_destroy(struct spur_hostlist *hl);

/* Expand `expr` and append the names. Separators at top level are ',' and
 * white space; inside brackets, ',' separates ranges "lo-hi" or single
 * numbers; zero padding follows the low bound ("01-10" → 01..10); several
 * bracket groups multiply ("r[1-2]n[1-3]" → 6 names). On error nothing is
 * appended and err says where and why. */
int spur_hostlist_push(struct spur_hostlist *hl, const char *expr, struct spur_error *err);

/* Convenience: create + push. Returns NULL on error (err set). */
struct spur_hostlist *spur_hostlist_from_expr(const char *expr, struct spur_error *err);

size_t spur_hostlist_count(const struct spur_hostlist *hl);

/* Borrowed; valid until the list changes. NULL when i is out of range. */
const char *spur_hostlist_nth(const struct spur_hostlist *hl, size_t i);

/* The first host expr names (a job's batch host), into buf; "" when expr
 * is empty or not a host list. */
void spur_hostlist_first(const char *expr, char *buf, size_t len);

/* Index of the first `name`, or -1. */
long spur_hostlist_find(const struct spur_hostlist *hl, const char *name);

/* Do two hostlist expressions name a common host? false when either is
 * not a host list. */
bool spur_hostlist_meet(const char *a, const char *b);

/* Sort names (natural order: "n2" < "n10") and drop duplicates. */
void spur_hostlist_uniq(struct spur_hostlist *hl);

/* Slurm's bracketed form, as `scontrol show hostlist` and SLURM_JOB_NODELIST
 * print it: names keep their order and duplicates; a run of names that
 * differ only in their trailing number, each one more than the last, becomes
 * a range; neighbouring ranges with the same prefix share brackets
 * ("n[1-3,5]", "n[10,09]", "a[1,1-2]"). Widths follow Slurm ("n[8-10]",
 * "n[09-10]", "n[1,01]"). Caller frees with spur_free(). NULL with err set
 * when out of memory. */
char *spur_hostlist_ranged(const struct spur_hostlist *hl, struct spur_error *err);

/* The shortest bracketed form, for Spur's own displays: numbers that differ
 * in one field are merged into ranges, field by field from the right, so
 * "rack1-n01..rack2-n03" becomes "rack[1-2]-n[01-03]". The result denotes
 * the same set of names (duplicates dropped; groups keep their first-
 * appearance order). Caller frees. NULL with err set when out of memory. */
char *spur_hostlist_compress(const struct spur_hostlist *hl, struct spur_error *err);

/* Sort as `scontrol show hostlistsorted` does: by prefix, then trailing
 * number, then width ("x1" before "x01"); duplicates stay. */
void spur_hostlist_sort(struct spur_hostlist *hl);

/* Natural comparison used by uniq (digit runs compare by value). */
int spur_hostname_cmp(const char *a, const char *b);

#endif
