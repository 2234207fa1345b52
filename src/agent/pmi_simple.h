/* SPDX-License-Identifier: Apache-2.0 */
/* srun --mpi=pmi2: PMI served to the step's tasks over a socket each
 * (PMI_FD), in the PMI-1 wire protocol MPICH's simple PMI speaks (Debian's
 * MPICH uses it; Slurm's mpi/pmi2 plugin serves it too). The key-value
 * space is the step's: puts stay on their node until a barrier, when
 * srun joins every node's (the same fence as PMIx's) and the barrier
 * ends everywhere. PMI_process_mapping tells MPICH which ranks share a
 * node. */
#ifndef SPUR_AGENT_PMI_SIMPLE_H
#define SPUR_AGENT_PMI_SIMPLE_H

#include "agent/pmix_host.h"

#include <uv.h>

struct spurd_pmi_step;

/* Called when a task asks to abort the step (cmd=abort). */
typedef void (*spurd_pmi_abort_fn)(void *ctx, int rank, int code);

struct spurd_pmi_step *spurd_pmi_step_new(uv_loop_t *loop, uint32_t job, uint32_t step,
					  const struct spurd_pmix_layout *l,
					  spurd_pmix_fence_fn fence, spurd_pmi_abort_fn abort_fn,
					  void *ctx);
/* A socket for local rank's task: the task's end (to become its PMI_FD),
 * or -1 (errno). The agent's end is watched from now on. */
int spurd_pmi_task_fd(struct spurd_pmi_step *s, uint32_t rank);
/* srun's answer to a barrier: every node's puts (hex, len characters). */
void spurd_pmi_fence_done(struct spurd_pmi_step *s, unsigned seq, const char *hex, size_t len);
/* The step ended: its sockets close, then it is freed. */
void spurd_pmi_step_free(struct spurd_pmi_step *s);

#endif
