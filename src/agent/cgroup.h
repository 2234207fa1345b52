/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup limits for batch jobs, as Slurm's cgroup plugins set them, on
 * cgroup v2 or v1 (RHEL 8 and hybrid hosts, where the controllers sit in
 * v1 hierarchies beside an empty cgroup2):
 *   v2: ROOT/NAME/NODE/job_ID with cpuset.cpus, memory.max, pids.max;
 *   v1: ROOT_C/NAME/NODE/job_ID in each controller C's hierarchy, with
 *       cpuset.cpus and cpuset.mems, memory.limit_in_bytes (and
 *       memory.memsw.limit_in_bytes, so swap is no way round it), pids.max.
 * job_ID.RUN after a requeue. NAME is "spur" unless spurd is told another
 * (several clusters' agents on one host). v2 is used when the cgroup2 mount
 * has any of the controllers; ROOT is found in /proc/self/mounts, or given
 * (a v2-shaped folder, for tests). What cannot be had is said plainly. */
#ifndef SPUR_AGENT_CGROUP_H
#define SPUR_AGENT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cpuset, memory, pids, devices: a v1 job has a folder in each hierarchy */
#define SPURD_CG_MAX 4

struct spurd_cgroup {
	int version; /* 2 or 1; 0: no cgroups */
	/* the node's folder per controller (cpuset, memory, pids, devices);
	 * v2: all the same; "" where the controller is missing */
	char base[SPURD_CG_MAX][4096];
	bool cpuset, memory, pids, memsw, devices;
	char why[512]; /* what is missing, and why */
};

/* A job's folders: the ones its processes join (one on v2). */
struct spurd_cgroup_dirs {
	char dir[SPURD_CG_MAX][4200];
	int n;
};

/* Find (root NULL) or use root, and prepare NAME/NODE under each. Never
 * fails: cg->why says what could not be had. */
void spurd_cgroup_init(struct spurd_cgroup *cg, const char *root, const char *name,
		       const char *node);
/* One line for logs and spurd -C. */
void spurd_cgroup_describe(const struct spurd_cgroup *cg, char *buf, size_t len);
/* What a job's cgroups hold it to. */
struct spurd_cgroup_limits {
	const char *cpus; /* a cpuset list; NULL: none */
	uint64_t mem_mb;  /* 0: no limit */
	uint64_t pids;	  /* 0: no limit */
	/* device nodes the job may not open (the node's GPUs it was not
	 * given), NULL-terminated; v1's devices controller denies them, as
	 * Slurm's ConstrainDevices=yes */
	const char *const *deny;
};

/* Make job id's cgroups with its limits. Returns 0 (dirs filled, n 0
 * without cgroups), or -1 with why filled in and nothing left behind. */
int spurd_cgroup_job(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
		     const struct spurd_cgroup_limits *lim, struct spurd_cgroup_dirs *dirs,
		     char *why, size_t wlen);
/* The folders of job id's cgroups (n 0 without cgroups), made earlier. */
void spurd_cgroup_job_dirs(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			   struct spurd_cgroup_dirs *dirs);
/* A step's own limits inside its job's, as Slurm's per-step cgroups: a
 * step given fewer of the node's GPUs than its job (srun --gpus=1 in a job
 * of 4) opens only its own (lim->deny: device nodes, NULL-terminated), and
 * one with srun --mem is held to lim->mem_mb. A folder for the step under
 * the job's devices or memory folder (v1), or the job's folder (v2, with
 * its own BPF program), takes the place of the job's folder in dirs (the
 * job's, from spurd_cgroup_job_dirs), which the step's tasks join. Nothing
 * asked, or no such controller: nothing made, 0. -1 with why, nothing left. */
int spurd_cgroup_step(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, uint32_t step,
		      const struct spurd_cgroup_limits *lim, struct spurd_cgroup_dirs *dirs,
		      char *why, size_t wlen);
/* The step's folder, its processes killed, gone (at the step's end). */
void spurd_cgroup_step_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			    uint32_t step);
/* Did the kernel kill a process of the job for its memory limit? */
bool spurd_cgroup_job_oom(const struct spurd_cgroup *cg, uint32_t id, uint32_t run);
/* The most memory the job's cgroup held (its processes' RSS and page
 * cache, as Slurm's cgroup accounting counts it), in KiB; 0 when unknown. */
uint64_t spurd_cgroup_job_peak_kb(const struct spurd_cgroup *cg, uint32_t id, uint32_t run);
/* Kill what is left in the job's cgroups and remove them; false when a
 * folder is left (a process slow to die): spurd_cgroup_sweep retries. */
bool spurd_cgroup_job_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run);
/* Is job id (run) still this agent's (running, or a step of it here)? */
typedef bool (*spurd_cgroup_live_fn)(void *arg, uint32_t id, uint32_t run);
/* The job folders under this node's folders of jobs live() does not
 * know (a late step's, a process slow to die): killed and removed. Returns
 * how many are left. */
int spurd_cgroup_sweep(const struct spurd_cgroup *cg, spurd_cgroup_live_fn live, void *arg);
/* What the job's processes use now (sstat): CPU time (user + system) and
 * RSS summed over the processes in its memory cgroup (from /proc, as
 * Slurm's jobacct_gather/linux), their count, the cgroup's memory now and
 * at its peak (KiB). -1 when the job has no memory cgroup. */
struct spurd_usage {
	uint64_t cpu_ms, rss_kb, mem_kb, peak_kb;
	uint32_t pids;
};
int spurd_cgroup_job_usage(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			   struct spurd_usage *u);
/* Add process pid's CPU time and RSS (from /proc) to u, and count it. */
void spurd_proc_usage(long pid, struct spurd_usage *u);
/* The same for pid and every process below it (a step's task and what it
 * started; the batch script's tree under its supervisor). */
void spurd_proc_tree_usage(long pid, struct spurd_usage *u);
/* The job's cpuset as written at launch ("" when none), for adoption. */
void spurd_cgroup_job_cpus(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, char *buf,
			   size_t len);

#endif
