/* SPDX-License-Identifier: Apache-2.0 */
/* PMIx for the tasks of a step (srun --mpi=pmix, MpiDefault=pmix), served
 * by the agent through OpenPMIx's server library: a namespace per step with
 * the job-level and per-rank information MPI libraries read, each local
 * rank registered and given its PMIX_* environment, and fences (the modex)
 * carried across the step's nodes by srun, which every node's agent is
 * connected to already (docs/rfc/0003-wire.md §3). OpenPMIx runs its own
 * thread; its requests reach the agent's loop through a uv_async. */
#ifndef SPUR_AGENT_PMIX_HOST_H
#define SPUR_AGENT_PMIX_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

struct spurd_pmix_step;

/* The step's layout: node k runs ranks [first[k], first[k] + count[k]). */
struct spurd_pmix_layout {
	size_t nnodes, here; /* here: this node's index */
	const char *const *names;
	const uint32_t *first, *count;
	uint32_t ntasks;
};

/* Called on the loop when this node's ranks all entered fence seq: send
 * data (hex, len characters) to srun. */
typedef void (*spurd_pmix_fence_fn)(void *ctx, unsigned seq, const char *data, size_t len);

/* Start the server (once; tmpdir: a folder of the agent's own). 0, or -1
 * with why filled in (no libpmix in this build, or it failed). */
int spurd_pmix_init(uv_loop_t *loop, const char *tmpdir, char *why, size_t wlen);
void spurd_pmix_fini(void);
/* The step's namespace, registered with its ranks; NULL with why. */
struct spurd_pmix_step *spurd_pmix_step_new(uint32_t job, uint32_t step,
					    const struct spurd_pmix_layout *l, uid_t uid,
					    gid_t gid, spurd_pmix_fence_fn fence, void *ctx,
					    char *why, size_t wlen);
/* Local rank's PMIX_* variables ("K=V", NULL-terminated; free each and the
 * array), or NULL. */
char **spurd_pmix_task_env(struct spurd_pmix_step *s, uint32_t rank);
/* srun's answer to fence seq: every node's data, concatenated (hex, len
 * characters). */
void spurd_pmix_fence_done(struct spurd_pmix_step *s, unsigned seq, const char *data,
			   size_t len);
/* The namespace goes (the step ended); pending fences fail. */
void spurd_pmix_step_free(struct spurd_pmix_step *s);

#endif
