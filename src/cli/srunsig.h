/* SPDX-License-Identifier: Apache-2.0 */
/* srun's signal handling while a step runs (srunsig.c). */
#ifndef SPUR_CLI_SRUNSIG_H
#define SPUR_CLI_SRUNSIG_H

/* Catch Slurm's srun signals (INT, QUIT, CONT, TERM, HUP, ALRM, USR1,
 * USR2, PIPE) into flags; system calls return EINTR. */
void srun_sig_install(void);
/* Back to the default actions. */
void srun_sig_restore(void);
/* The next signal caught and not yet taken, or 0. */
int srun_sig_take(void);

#endif
