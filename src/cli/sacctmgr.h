/* SPDX-License-Identifier: Apache-2.0 */
/* sacctmgr's parts (sacctmgr.c: words and settings; sacctmgr_show.c:
 * tables; sacctmgr_edit.c: add, modify, delete, dump, load). */
#ifndef SPUR_CLI_SACCTMGR_H
#define SPUR_CLI_SACCTMGR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/jobfmt.h" /* spur_jobfmt_in_list: a name in a comma list */

struct acm_opts {
	const char *prog;
	bool immediate, noheader, parsable, parsable2, quiet, readonly, with_assoc;
};

/* The words after COMMAND ENTITY: bare names; KEY=VALUE conditions (before
 * "set") and settings (after it; for add, all are settings). */
struct acm_words {
	const char **names;
	size_t nnames;
	struct {
		char word[64];
		char *val;
		bool set;
	} *kv;
	size_t nkv;
};

/* The index of a setting's word (Slurm's names, any case), or -1. */
int acm_key(const char *word);
/* Put setting k=v into rec (counts, TRES merged, times); -1 when refused
 * (said on stderr). */
int acm_set(json_t *rec, int k, const char *v, const char *prog);
/* The value of a condition named by one of words (a comma list), or NULL. */
const char *acm_cond(const struct acm_words *w, const char *words);
/* name among the names given (bare, or by words=); true when none given. */
bool acm_name_match(const struct acm_words *w, const char *words, const char *name);

/* The controllers' state ({state, use, cluster}), or NULL (said). */
json_t *acm_fetch(const char *prog);

int acm_show(const struct acm_opts *o, const char *ent, const struct acm_words *w);
int acm_add(const struct acm_opts *o, const char *ent, const struct acm_words *w);
int acm_modify(const struct acm_opts *o, const char *ent, const struct acm_words *w);
int acm_delete(const struct acm_opts *o, const char *ent, const struct acm_words *w);
int acm_dump(const struct acm_opts *o, const char *ent, const struct acm_words *w);
int acm_load(const struct acm_opts *o, const struct acm_words *w);

#endif
