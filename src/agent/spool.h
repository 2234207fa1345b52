/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's spool: a folder per batch job (its script and the
 * supervisor's state file, supervise.c), owned by root and passable, not
 * writable, by the job. A finished job's folder is kept, emptied, in
 * SPOOL/.free (root's, 0700) and renamed for the next job: a job then costs
 * the file system one new file (its script, which is the user's) instead
 * of a folder and two files made and removed. On a file system without a
 * journal each new inode is a scan past the ones freed lately, which was a
 * fifth of the agent's work for a short job. */
#ifndef SPURD_SPOOL_H
#define SPURD_SPOOL_H

#include <stddef.h>

#define SPURD_SPOOL_POOL 64

struct spurd_spool {
	const char *dir;
	unsigned free[SPURD_SPOOL_POOL]; /* the pool's folders: SPOOL/.free/N */
	unsigned nfree;
};

/* Empty the pool a last run left, and make it. 0, or -1 with errno. */
int spurd_spool_init(struct spurd_spool *s, const char *dir);
/* Make a job's folder dir (0700, root's; from the pool when it has one).
 * 0, or -1 with errno. */
int spurd_spool_make(struct spurd_spool *s, const char *dir);
/* A job's folder is done with: its script goes, the folder goes back to
 * the pool (or away when the pool is full). */
void spurd_spool_free(struct spurd_spool *s, const char *dir);

#endif
