/* SPDX-License-Identifier: Apache-2.0 */
/* A batch script's #PBS (Torque, PBS Pro) or #BSUB (LSF) lines, read as
 * Slurm's sbatch reads them: translated into sbatch options. */
#ifndef SPUR_CLI_PBS_H
#define SPUR_CLI_PBS_H

#include <stddef.h>

/* Split one directive line's text into words (shell quoting: '...' and
 * "..."; a '#' outside quotes ends it) into buf: how many (at most max). */
int cli_directive_words(const char *s, char **words, int max, char *buf, size_t len);

/* The script's #BSUB lines, or else its #PBS lines (only the first kind
 * found, as Slurm), up to its 100th line that is not a comment, as sbatch
 * options: words[0] is "sbatch", then one "--name=value" word each, in
 * buf. export: the job's --export so far (#PBS -v adds to it; NULL: none).
 * How many words (1: no such line), or -1 with the reason in err: a PBS
 * or LSF option that Slurm reads but Spur does not act on is refused by
 * name, never dropped. */
int cli_pbs_words(const char *script, const char *export, char **words, int max, char *buf,
		  size_t len, char *err, size_t errlen);

#endif
