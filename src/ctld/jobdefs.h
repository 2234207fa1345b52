/* SPDX-License-Identifier: Apache-2.0 */
/* A submission's resource defaults and the checks between its per-CPU and
 * per-GPU options, as Slurm applies them: DefMemPerGPU, DefMemPerCPU and
 * DefMemPerNode (the partition's over the cluster's) when the job names no
 * memory; DefCpuPerGPU when it names neither -c nor --cpus-per-gpu. */
#ifndef SPUR_CTLD_JOBDEFS_H
#define SPUR_CTLD_JOBDEFS_H

#include "common/conf.h"
#include "common/error.h"

#include <jansson.h>

/* Fills job's "mem_per_gpu" / "mem_per_cpu" / "mem_per_node" and
 * "cpus_per_gpu" from the defaults of its first partition (the default
 * one without -p) and of the cluster. SPUR_EINVAL (job unchanged) when it
 * names two memory options, or a per-GPU option without GPUs. */
int ctld_job_defaults(const struct spur_conf *cf, json_t *job, struct spur_error *err);

/* The submitter's soft limits (the request's "rlimits") that its job or
 * step gets: those its --propagate names (ALL, NONE or a list), else
 * PropagateResourceLimits (ALL by default) less ...Except. A new object. */
json_t *ctld_job_rlimits(const struct spur_conf *cf, const json_t *req);
/* A --propagate / PropagateResourceLimits list of Slurm's names? */
bool ctld_rlimit_list_ok(const char *list);

#endif
