/* SPDX-License-Identifier: Apache-2.0 */
/* libsched internals shared by the files of src/core: the state struct sched owns. */
#ifndef SPUR_CORE_INTERNAL_H
#define SPUR_CORE_INTERNAL_H

#include "sched.h"

#include "common/jobspec.h"

#include <stdio.h>

enum core_node_state { NODE_UP, NODE_DRAIN, NODE_DOWN };

/* A reservation a higher-priority job holds on a node for this cycle. */
struct cyc_resv {
	int64_t start, end;
	uint32_t cpus;
	uint64_t mem;
	uint32_t gpus, shards;
	bool excl;
	int32_t next; /* next on the same node, -1 */
};

/* A CPU's capacity in share units: a job sharing it N ways (OverSubscribe,
 * N <= SCHED_SHARE_MAX) takes CORE_SHARE_UNIT / N of it. */
#define CORE_SHARE_UNIT 720720u /* divisible by 1..16 */

struct core_node {
	char *name;
	uint32_t cpus, cpus_used; /* cpus_used: held whole, by jobs that share nothing */
	uint64_t share_load;	  /* sharing jobs' CPUs, in CORE_SHARE_UNIT units */
	uint32_t share_cpus;	  /* their CPUs counted whole: closed to jobs that share nothing */
	uint64_t mem, mem_used;
	uint64_t tmp; /* TmpDisk, MB: a job's --tmp is a floor, not consumed (as Slurm) */
	char **features;
	size_t nfeatures;
	uint32_t weight;
	uint32_t wrank; /* rank of weight among the cluster's distinct weights */
	int gpu_type; /* index in sched.gpu_types, -1 */
	uint32_t ngpus;
	uint8_t link[SCHED_MAX_GPUS][SCHED_MAX_GPUS]; /* enum sched_link */
	uint16_t pair_w[SCHED_MAX_GPUS][SCHED_MAX_GPUS];
	bool uniform; /* every pair has the same link: any choice is as good */
	uint8_t best_link;
	uint16_t gpu_used, gpu_failed;	/* whole-GPU allocations, failures */
	uint16_t shards_per_gpu, shard_used[SCHED_MAX_GPUS];
	int leaf; /* switch index, -1 */
	enum core_node_state state;
	char *reason;
	uint64_t parts; /* partition bitmask */
	uint32_t *jobs; /* running job indexes */
	size_t njobs, jobs_cap;
	uint32_t excl_jobs; /* exclusive jobs running here */
	uint32_t user_excl; /* ExclusiveUser jobs running here, all of user_excl_name */
	const char *user_excl_name; /* borrowed from one of them */
	int32_t resv_first; /* cycle reservations, -1 */
	int bucket;	    /* free-GPU bucket, -1 when not schedulable */
	size_t bucket_pos;
};

struct core_switch {
	char *name;
	int parent;
};

struct core_part {
	char *name;
	bool is_default;
	int64_t max_time, default_time;
	uint32_t max_nodes;
	uint16_t tier, job_factor;
	bool preempt_off;
	enum sched_part_state state;
	bool preempt_requeue;
	bool exclusive_user;
	uint16_t share_max; /* OverSubscribe=YES|FORCE:N (0, 1: none) */
	bool share_force;
	bool deleted; /* scontrol delete partition: its slot kept, so indexes stay */
	uint32_t nnodes;
};

/* What a limit counts: running jobs' TRES, running jobs, pending and
 * running jobs (limits.c). */
struct core_use {
	int64_t tres[SCHED_TRES_MAX];
	uint32_t jobs, submitted;
	double tres_secs[SCHED_TRES_MAX]; /* decayed TRES-seconds (GrpTRESMins) */
};

struct core_qos {
	char *name;
	uint32_t priority;
	uint64_t preempts; /* bitmask of qos indexes */
	bool preempt_requeue;
	bool deleted, deny_on_limit;
	double usage_factor;
	struct sched_limits lim;
	struct core_use use;
};

struct core_account {
	char *name;
	uint32_t shares;
	double usage; /* decayed billing-seconds */
	int parent;   /* account index, -1: under the root */
	bool deleted, declared; /* declared: made by sched_set_account, not by a job */
	struct sched_limits lim;
	struct core_use use;
};

/* A user's association with an account (limits.c). */
struct core_uassoc {
	char *user;
	int account;
	uint32_t shares;
	double usage; /* decayed billing-seconds, as the account's */
	double fs;    /* Fair Tree's factor, rank / users (fairtree.c) */
	bool deleted;
	struct sched_limits lim;
	struct core_use use;
};

/* A user's use of a QOS (MaxTRESPerUser, MaxJobsPerUser). */
struct core_quser {
	char *user;
	int qos;
	struct core_use use;
};

struct core_resv {
	char *name;
	uint8_t *nodes; /* per node: 1 when in the reservation */
	uint8_t *gpus;	/* per node: the GPUs it holds there; NULL: the whole nodes */
	int64_t start, end;
	char *users, *accounts;
	bool flex; /* Flags=FLEX */
};

/* Pending tasks of an array a cycle looks at, at most: the others wait
 * outside the pending list and come in one by one as tasks of the window
 * leave it, so a cycle's work does not grow with the size of the arrays
 * queued. A task beyond the window has no record of its own until it comes
 * in (or an event names it): the array's meta record stands for all of
 * them, as Slurm keeps a pending array as one record until its tasks
 * start. */
#define CORE_ARRAY_WINDOW 1000

struct core_array {
	uint32_t array_job_id;
	uint32_t throttle, running, ntasks;
	uint32_t task_min, task_max, task_step; /* step 0: the ids are not evenly spaced */
	uint32_t next;	    /* the window's cursor: tasks below it have been let in */
	uint32_t nvirtual;  /* tasks with no record of their own */
	uint32_t *task_ids; /* by index (task k is job array_job_id + k); NULL when nvirtual is 0 */
	uint8_t *made;	    /* a bit per index: the task has (or had) a record */
	/* what a task with no record is: PENDING, or CANCELLED once the rest
	 * of the array was; NULL when nvirtual is 0 */
	struct core_job *meta;
};

/* A license of the cluster (Licenses=) and how many are held. */
struct core_license {
	char *name;
	uint32_t total, used;
};

/* A job's -L term: so many of license lic. */
struct core_lic_req {
	uint32_t lic, count;
};

struct core_job {
	uint32_t id;
	uint32_t index; /* in sched.jobs */
	char *name, *user;
	int account, qos; /* indexes */
	int uassoc, quser; /* limits.c: the user's association and QOS use, -1 */
	int64_t *ctres;	   /* limits.c: the TRES charged while running */
	enum sched_job_state state;
	enum sched_reason reason;
	uint64_t parts;
	int part; /* partition while running, -1 */
	uint32_t nodes, ntasks, cpus_per_task, gpn, gpu_total, gpt, spn;
	int8_t kill_invalid_dep; /* as sched_job_spec's */
	bool overcommit;	 /* -O: one task's CPUs per node */
	bool contiguous;	 /* --contiguous: consecutive nodes of the table */
	bool want_share;	 /* -s */
	uint16_t share;		 /* how many ways it shares its CPUs (1: not), in the partition
				  * being tried or the one it runs in */
	bool excl_user;		 /* of an ExclusiveUser partition: its nodes hold its user's jobs alone */
	uint64_t mem;		 /* per node; 0: from mem_per_cpu / mem_per_gpu */
	uint64_t mem_per_cpu, mem_per_gpu;
	uint32_t cpus_per_gpu, min_cpus;
	uint32_t prio_fixed; /* --priority, scontrol update Priority=; 0: computed */
	uint64_t tmp;
	int64_t time_min, deadline; /* --time-min, --deadline (0: none) */
	bool suspended;	     /* scontrol suspend: holds its resources, time stands still */
	int64_t suspend_at;  /* the last suspend or resume */
	int64_t remaining;   /* while suspended: its run time left (SCHED_INFINITE: none) */
	int64_t susp_secs, pre_suspend;
	struct core_lic_req *lic; /* -L */
	size_t nlic;
	int gpu_type; /* -1 any */
	int64_t time_limit; /* 0: partition default */
	char **features;
	size_t nfeatures;
	/* -C [a|b|c]: every node of it has the same one of alts; match_sel:
	 * the one a selection is trying (-1: any) */
	char **alts;
	size_t nalts;
	int match_sel;
	/* -C f*N: at least N of its nodes have feature f */
	struct core_feat_count {
		char *feat;
		uint32_t n;
	} *counts;
	size_t ncounts;
	uint32_t *req_nodes, *excl_nodes; /* sorted node indexes */
	size_t nreq, nexcl;
	bool exclusive, hold_user, hold_admin, requeue;
	uint8_t requeue_held; /* held by a requeue: 1, 2 in SPECIAL_EXIT; 0 released */
	bool deferred; /* pending, not in the pending list (CORE_ARRAY_WINDOW) */
	struct spur_dep_list deps;
	int array;	 /* index in sched.arrays, -1 */
	int32_t task_id; /* -1 */
	int64_t begin, submit, eligible, start, end, est_start, last_charge;
	int resv; /* -1 */
	int32_t nice;
	uint32_t prio;
	uint64_t usable; /* this cycle: partitions whose limits the job meets */
	uint16_t tier;	 /* this cycle: best PriorityTier among them */
	int exit_code;
	struct sched_alloc_node *alloc;
	size_t nalloc;
	size_t list_pos; /* position in pending or running list */
};

/* Schedulable nodes with the same GPU type and free GPU count. */
struct core_bucket {
	uint32_t *v;
	size_t n, cap;
};

struct ptr_vec {
	void **v;
	size_t n, cap;
};

/* Has task k of array a a record (or had one, purged since)? */
static inline bool core_array_made(const struct core_array *a, uint32_t k)
{
	return !a->made || (a->made[k / 8] >> (k % 8)) & 1;
}

struct sched {
	struct sched_config cfg;
	int64_t now, last_cycle;
	struct core_node *nodes;
	size_t nnodes, nodes_cap;
	char **gpu_types;
	size_t ngpu_types, gpu_types_cap;
	struct core_switch *switches;
	size_t nswitches, switches_cap;
	struct core_part *parts;
	size_t nparts;
	struct core_qos *qos;
	size_t nqos, qos_cap;
	struct core_account *accounts;
	size_t naccounts, accounts_cap;
	struct core_uassoc *uassocs;
	size_t nuassocs, uassocs_cap;
	bool fairtree; /* the last update ranked users (core_fairtree_update) */
	/* the cluster's own association, root: its Grp* hold for every job,
	 * its Max* are what accounts that set none inherit (limits.c) */
	struct sched_limits root_lim;
	struct core_use root_use;
	struct core_quser *qusers;
	size_t nqusers, qusers_cap;
	uint32_t *assoc_slots, *quser_slots; /* hashes: index + 1 */
	size_t assoc_slots_cap, quser_slots_cap;
	struct core_resv *resvs;
	size_t nresvs, resvs_cap;
	struct core_license *lics;
	size_t nlics, lics_cap;
	struct core_array *arrays;
	size_t narrays, arrays_cap;
	size_t nvirtual; /* array tasks with no record, all arrays */
	/* jobs: all of them, by index; id -> index through a hash */
	struct core_job **jobs;
	size_t njobs, jobs_cap;
	uint32_t *id_slots; /* open addressing, value = index + 1 */
	size_t id_cap;
	struct ptr_vec pending, running;
	/* node buckets, best first when walked in index order:
	 * ((gpu_type + 1) * nweights + weight rank) * (SCHED_MAX_GPUS + 1) + free GPUs */
	struct core_bucket *buckets;
	uint32_t *weights; /* distinct node weights, ascending */
	size_t nweights, weights_cap;
	size_t nbuckets;
	/* cycle scratch */
	struct cyc_resv *cresv;
	size_t ncresv, cresv_cap;
	uint32_t *touched;
	size_t ntouched, touched_cap;
	/* output */
	struct sched_action *acts;
	size_t nacts, acts_cap;
	struct sched_alloc_node **act_allocs; /* copies owned until next step */
	size_t nact_allocs, act_allocs_cap;
	char *trace;
	size_t trace_len, trace_cap;
	struct sched_cycle_stats stats;
	uint64_t total_gpus, total_cpus;
};

/* sched.c */
struct core_job *core_job_find(const struct sched *s, uint32_t id);
/* The job's record, or for an array task with none yet its array's meta
 * record (which has the array's id, not the task's); NULL when unknown. */
const struct core_job *core_job_view(const struct sched *s, uint32_t id);
int core_emit(struct sched *s, struct sched_action a);
void core_trace(struct sched *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void core_node_rebucket(struct sched *s, uint32_t n);
void core_job_set_state(struct sched *s, struct core_job *j, enum sched_job_state st);
void core_job_release(struct sched *s, struct core_job *j);
char *core_alloc_names(const struct sched *s, const struct sched_alloc_node *a, size_t n);

/* place.c */
uint16_t core_node_free_mask(const struct core_node *n);
uint16_t core_pick_gpus(const struct core_node *n, uint16_t free, unsigned k, bool topo);
int core_pick_shard_gpu(const struct core_node *n, uint32_t shards);
bool core_node_static_ok(const struct sched *s, const struct core_job *j, uint32_t n,
			 uint64_t parts);
/* Can j run on node n over [t0, t1) given running jobs and cycle reservations? */
bool core_node_fits(const struct sched *s, const struct core_job *j, uint32_t n, int64_t t0,
		    int64_t t1);
/* Choose nodes for j now. Fills out[] with up to j->nodes indexes; returns the
 * count (== j->nodes on success). */
size_t core_select_nodes(struct sched *s, struct core_job *j, uint64_t parts, int64_t t1,
			 uint32_t *out);
/* Earliest time j fits on node n within the cycle's window, or SCHED_INFINITE. */
int64_t core_node_earliest(const struct sched *s, const struct core_job *j, uint32_t n,
			   int64_t limit);
uint32_t core_job_gpus_per_node(const struct core_job *j);
uint32_t core_job_cpus_per_node(const struct core_job *j);
/* OverSubscribe: how many ways j shares its CPUs in partition p (1: not). */
uint16_t core_job_share(const struct sched *s, const struct core_job *j, int p);
/* Whole CPUs of n that a job sharing nothing may take (the sharing jobs'
 * load rounded up to whole CPUs). */
uint32_t core_node_cpus_free(const struct core_node *n);
/* Does n hold cpus more for a job sharing `share` ways (1: not), beside
 * `held` whole CPUs the cycle's reservations hold? */
bool core_node_cpus_fit(const struct core_node *n, uint32_t cpus, uint16_t share, uint32_t held);
/* Charge (sign 1) or give back (-1) cpus of n for job j (by its share). */
void core_node_cpus_charge(struct core_node *n, const struct core_job *j, uint32_t cpus, int sign);
/* licenses.c: a job's -L into j->lic (against the cluster's licenses);
 * are they all free now; held (sign 1) or given back (-1) */
int core_licenses_parse(const struct sched *s, const char *text, struct core_job *j,
			struct spur_error *err);
bool core_licenses_free(const struct sched *s, const struct core_job *j);
void core_licenses_take(struct sched *s, const struct core_job *j, int sign);
void core_licenses_free_all(struct sched *s);
/* cycle.c: when and where j could start (now, or its earliest time), as
 * the last cycle left the cluster; nothing is held. count 0: never. */
int core_will_run(struct sched *s, struct core_job *j, int64_t *when, int *part,
		  uint32_t *nodes, size_t *count);
/* MB a job holds on each node (0: none asked for) */
uint64_t core_job_mem_per_node(const struct core_job *j);

/* limits.c */
int core_account_index(struct sched *s, const char *name, bool create);
/* At submit: the job's association and QOS use (made as needed); live
 * submissions (enforce) checked against associations and submit limits,
 * as n jobs (an array's tasks). */
int core_limits_bind(struct sched *s, struct core_job *j, bool enforce, uint32_t n,
		     struct spur_error *err);
/* sign +1: count j (as it is now) in its association's, accounts' and QOS'
 * use; -1: take it out (what +1 put in). */
void core_limits_charge(struct sched *s, struct core_job *j, int sign);
/* Decay every association's and QOS' TRES-seconds by f, then add what
 * running jobs used over the last dt seconds. */
void core_limits_usage(struct sched *s, double f, int64_t now);
/* A limit a job can never meet as it asks (MaxWall, MaxTRES per job or per
 * node), else SCHED_REASON_NONE. */
enum sched_reason core_limits_static(const struct sched *s, const struct core_job *j);
/* A limit the job would break if it started now (Grp*, MaxJobs, per user). */
enum sched_reason core_limits_now(const struct sched *s, const struct core_job *j);
/* The smallest MaxWall over the job's QOS and associations, or SCHED_INFINITE. */
int64_t core_limits_max_wall(const struct sched *s, const struct core_job *j);
void core_limits_free(struct sched *s);
const char *core_limit_reason_name(unsigned code);

/* fairtree.c: Slurm's Fair Tree over the declared accounts and users'
 * associations (each association's fs); false when there is no tree. */
bool core_fairtree_update(struct sched *s);

/* prio.c */
void core_fairshare_update(struct sched *s, int64_t now);
uint32_t core_job_priority(const struct sched *s, const struct core_job *j, int64_t now);
double core_fairshare_factor(const struct sched *s, int account);

/* deps.c */
enum dep_result { DEP_OK, DEP_WAIT, DEP_NEVER };
enum dep_result core_deps_eval(const struct sched *s, const struct core_job *j, int64_t now);
int core_deps_check_targets(const struct sched *s, const struct spur_dep_list *d,
			    struct spur_error *err);

/* cycle.c */
int core_cycle(struct sched *s, int64_t now);
/* Mark pending j running on `al` (taken over) in partition p until end. */
int core_commit_start(struct sched *s, struct core_job *j, int p, struct sched_alloc_node *al,
		      int64_t end, bool backfilled, bool emit);

/* Whether node n has feature f (AvailableFeatures), or one of f's
 * alternatives "a|b". */
bool core_node_has_feature(const struct core_node *n, const char *f);

#endif
