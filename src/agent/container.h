/* SPDX-License-Identifier: Apache-2.0 */
/* What the agent knows for its container jobs: the CDI devices of its GPUs
 * (the specs it writes for them, or with the cdi backend the specs it read)
 * and the site's runtime and image store; and the OCI executor's request
 * (oci.h) for a batch script or a step's task. */
#ifndef SPUR_AGENT_CONTAINER_H
#define SPUR_AGENT_CONTAINER_H

#include "agent/oci.h"
#include "devices/cdi.h"

#include <jansson.h>
#include <stdbool.h>

struct spurd_ctr_node {
	struct spur_cdi_set cdi; /* the node's GPUs as CDI devices */
	const struct spur_gpu_set *gpus;
	const char *store, *runtime, *spool, *node;
};

/* The CDI devices of gpus (discovered with backend arg): generated for
 * them, or read from the specs (cdi backend). */
void spurd_ctr_node_init(struct spurd_ctr_node *n, const struct spur_gpu_set *gpus,
			 const char *gpu_arg, const char *cdi_dirs);
void spurd_ctr_node_fini(struct spurd_ctr_node *n);

/* One container's request, and what its strings live in. */
struct spurd_ctr {
	struct spurd_oci oci;
	char dir[4096], id[256], home[4096], cgroup[4300];
	json_t *edits;
};

/* Fill c for job id (run) from m's "container" options (false: none),
 * with the GPUs of gpu_list ("0,2": host indices, the task's
 * CUDA_VISIBLE_DEVICES) and tag ("b" for the batch script, "STEP-RANK"). */
bool spurd_ctr_prepare(struct spurd_ctr *c, const struct spurd_ctr_node *n, const json_t *m,
		       uint32_t id, uint32_t run, const char *tag, const char *gpu_list,
		       const char *cgroup);
void spurd_ctr_release(struct spurd_ctr *c);

#endif
