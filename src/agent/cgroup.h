/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2 limits for batch jobs: ROOT/spur/NODE/job_ID (job_ID.RUN after a
 * requeue) with cpuset.cpus,
 * memory.max and pids.max, where the machine has those controllers in a
 * cgroup v2 hierarchy; said plainly where it does not. ROOT is the cgroup2
 * mount (found in /proc/self/mounts) or a folder given for tests. */
#ifndef SPUR_AGENT_CGROUP_H
#define SPUR_AGENT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spurd_cgroup {
	char base[4096]; /* ROOT/spur/NODE; empty: no cgroups */
	bool cpuset, memory, pids;
	char why[512]; /* what is missing, and why */
};

/* Find (root NULL) or use root, and prepare ROOT/spur/NODE. Never fails:
 * cg->why says what could not be had. */
void spurd_cgroup_init(struct spurd_cgroup *cg, const char *root, const char *node);
/* One line for logs and spurd -C. */
void spurd_cgroup_describe(const struct spurd_cgroup *cg, char *buf, size_t len);
/* Make job id's cgroup with its limits (cpus: a cpuset list or NULL; 0: no
 * limit); its path goes to dir. Returns 0, or -1 with why filled in. */
int spurd_cgroup_job(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, const char *cpus,
		     uint64_t mem_mb, uint64_t pids, char *dir, size_t len, char *why,
		     size_t wlen);
/* Kill what is left in the job's cgroup and remove it. */
void spurd_cgroup_job_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run);
/* The job's cpuset as written at launch ("" when none), for adoption. */
void spurd_cgroup_job_cpus(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, char *buf,
			   size_t len);

#endif
