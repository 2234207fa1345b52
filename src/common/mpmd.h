/* SPDX-License-Identifier: Apache-2.0 */
/* srun --multi-prog's configuration (MPMD): "RANKS PROGRAM [ARGS...]" lines,
 * checked by srun and turned into each task's argv on its node. */
#ifndef SPUR_COMMON_MPMD_H
#define SPUR_COMMON_MPMD_H

#include <stdbool.h>

#include "common/error.h"

/* The largest configuration srun sends (Slurm's srun's limit, bytes). */
#define SPUR_MPMD_MAX 60000

/* srun's check of data (the file fname's text) for *ntasks tasks: every
 * task has exactly one line; a rank past the count raises *ntasks when
 * ntasks_set is false ("*" then covers them all), as Slurm's srun does.
 * 0, or SPUR_EPARSE with Slurm's words in err->msg (lines apart by '\n'). */
int spur_mpmd_check(const char *data, const char *fname, int *ntasks, bool ntasks_set,
		    struct spur_error *err);

/* Task rank's argv: its line's program and arguments (%t: the rank, %o:
 * its offset in its line's ranks; '...' quotes, \ escapes), then extra
 * (srun's arguments after the file's name; may be NULL). *argv: a
 * NULL-ended array of strings, freed by spur_mpmd_argv_free. 0, or
 * SPUR_ENOENT (no line names rank), SPUR_EPARSE, SPUR_ENOMEM. */
int spur_mpmd_argv(const char *data, int rank, char *const *extra, char ***argv,
		   struct spur_error *err);

void spur_mpmd_argv_free(char **argv);

#endif
