/* SPDX-License-Identifier: Apache-2.0 */
/* libsched: the pure scheduling core. The driver feeds events (each with
 * its own timestamp) to sched_step() and carries out the actions it returns.
 * No I/O, no clock, no globals; see docs/rfc/0002-core.md. */
#ifndef SPUR_CORE_SCHED_H
#define SPUR_CORE_SCHED_H

#include "common/error.h"
#include "common/gputopo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_MAX_GPUS 16    /* per node */
#define SCHED_MAX_PARTS 64   /* partitions */
#define SCHED_INFINITE INT64_MAX

struct sched;

/* ---------------------------------------------------------------- config */

struct sched_config {
	/* multifactor priority weights (Slurm's PriorityWeight*) */
	uint32_t w_age, w_fairshare, w_job_size, w_partition, w_qos;
	int64_t max_age;	   /* PriorityMaxAge, seconds */
	int64_t decay_half_life;   /* PriorityDecayHalfLife, seconds; 0 = no decay */
	bool favor_small;	   /* PriorityFavorSmall */
	uint32_t bf_max_reservations; /* jobs that get a future reservation per cycle */
	int64_t bf_window;	   /* how far ahead reservations are planned, seconds */
	bool preempt_partition_prio; /* PreemptType=preempt/partition_prio */
	bool preempt_qos;	   /* PreemptType=preempt/qos */
	bool kill_invalid_depend;  /* DependencyParameters=kill_invalid_depend: a job whose
				      dependency can never be met is cancelled, not kept pending */
	bool trace;		   /* keep the decision trace (sched_trace()) */
	enum sched_place_policy {
		SCHED_PLACE_TOPO = 0, /* default: link-aware GPUs, switch-aware nodes */
		SCHED_PLACE_FIRST,    /* first free GPUs / nodes (baseline) */
	} place;
	bool fifo; /* baseline: strict FIFO by submit time, no backfill */
	/* pending jobs a cycle tries, highest priority first (0: all) */
	uint32_t max_job_test;
	/* AccountingStorageEnforce: associations (a job's user must have an
	 * association with its account), limits (associations' and QOS'
	 * limits hold jobs), qos (a job's QOS must exist) */
	bool enforce_assoc, enforce_limits, enforce_qos;
};

/* Defaults: weights as a typical GPU site (age 1000, fairshare 10000, size
 * 1000, partition 1000, qos 2000), 7-day max age and half-life, 100
 * reservations, 7-day window, trace on. */
void sched_config_default(struct sched_config *cfg);

struct sched *sched_create(const struct sched_config *cfg, struct spur_error *err);
void sched_destroy(struct sched *s);

/* ---------------------------------------------------------------- resources */

/* Link classes between two GPUs of a node, best first (common/gputopo.h). */
enum sched_link {
	SCHED_LINK_SELF = SPUR_LINK_SELF,
	SCHED_LINK_XGMI = SPUR_LINK_XGMI,		/* AMD Infinity Fabric */
	SCHED_LINK_NVLINK = SPUR_LINK_NVLINK,		/* NVLink / NVSwitch */
	SCHED_LINK_PCIE_SWITCH = SPUR_LINK_PCIE_SWITCH, /* same PCIe switch */
	SCHED_LINK_NUMA = SPUR_LINK_NUMA, /* same socket, through the host bridge */
	SCHED_LINK_SYS = SPUR_LINK_SYS,	  /* across sockets */
};

/* Relative bandwidth weight of a link class (XGMI 64, NVLink 100, PCIe
 * switch 24, NUMA 12, SYS 6). */
uint32_t sched_link_weight(enum sched_link l);

/* Preset GPU topologies for nodes, as the fake backend and tests use them. */
enum sched_topo_preset {
	SCHED_TOPO_NONE,	 /* no GPUs */
	SCHED_TOPO_MI300X,	 /* 8 GPUs, one all-to-all XGMI hive */
	SCHED_TOPO_MI250,	 /* 4 packages x 2 GCDs; XGMI in and between packages */
	SCHED_TOPO_NVLINK_ISLANDS, /* 8 GPUs, two NVLink islands of 4, SYS between */
	SCHED_TOPO_NVSWITCH,	 /* 8 GPUs all-to-all NVLink (DGX H100) */
	SCHED_TOPO_PCIE_PAIRS,	 /* 8 GPUs, pairs on PCIe switches, 2 sockets */
};

struct sched_node_spec {
	const char *name;
	uint32_t cpus;
	uint64_t mem_mb;
	const char *features; /* comma list or NULL */
	uint32_t weight;      /* lower is preferred (Slurm) */
	const char *gpu_type; /* "mi300x", NULL for none */
	uint32_t ngpus;
	enum sched_link links[SCHED_MAX_GPUS][SCHED_MAX_GPUS]; /* used when preset NONE */
	enum sched_topo_preset preset;
	uint32_t shards; /* shard count over all GPUs (gres shard:N), 0 for none */
	uint64_t tmp_mb; /* TmpDisk */
	const char *switch_name; /* leaf switch (topology.conf), or NULL */
};

/* Fill links[][] from a preset and set ngpus. */
void sched_node_spec_preset(struct sched_node_spec *spec, enum sched_topo_preset p);

/* Nodes and switches are added before jobs arrive; ids are dense indexes. */
int sched_add_node(struct sched *s, const struct sched_node_spec *spec, struct spur_error *err);

/* Replace node's GPU link matrix (what its agent discovered). The GPU count
 * must match the node's. No effect on running jobs; later placements use it. */
int sched_node_set_links(struct sched *s, const char *node,
			 const enum sched_link links[SCHED_MAX_GPUS][SCHED_MAX_GPUS], uint32_t ngpus,
			 struct spur_error *err);

/* scontrol update NodeName= AvailableFeatures=: the node's features (a
 * comma list, "" none) from now on; placed jobs keep their nodes. */
int sched_node_set_features(struct sched *s, const char *node, const char *features,
			    struct spur_error *err);

/* Declare switch `name` with parent `parent` (NULL for a root). Leaf
 * switches are named by nodes; call for every switch above the leaves. */
int sched_add_switch(struct sched *s, const char *name, const char *parent,
		     struct spur_error *err);

enum sched_part_state { SCHED_PART_UP, SCHED_PART_DOWN, SCHED_PART_DRAIN, SCHED_PART_INACTIVE };

struct sched_part_spec {
	const char *name;
	const char *nodes; /* hostlist expression or "ALL" */
	bool is_default;
	int64_t max_time, default_time; /* seconds, SCHED_INFINITE */
	uint32_t max_nodes;		/* 0 = unlimited */
	uint16_t priority_tier, priority_job_factor;
	enum sched_part_state state;
	bool preempt_requeue; /* preempted jobs of this partition requeue (else cancel) */
	bool preempt_off;     /* PreemptMode=OFF: its jobs are never preempted */
	bool exclusive_user;  /* ExclusiveUser=YES: its jobs' nodes run one user's jobs at a time */
	/* OverSubscribe=YES:N (jobs asking -s) or FORCE:N (all its jobs): a
	 * CPU runs up to N such jobs (2..SCHED_SHARE_MAX); 0 or 1: none */
	uint16_t share_max;
	bool share_force;
};

/* The most jobs OverSubscribe lets share a CPU. */
#define SCHED_SHARE_MAX 16

/* Also at run time (scontrol create partition): a partition deleted
 * before under the same name gets its slot back; Default=YES takes the
 * default from the others. */
int sched_add_partition(struct sched *s, const struct sched_part_spec *spec,
			struct spur_error *err);
/* scontrol delete partition: refused ("Partition is in use") while a
 * pending or running job may run in it; then its nodes leave it and its
 * name is free (its slot kept: finished jobs still name it). */
int sched_delete_partition(struct sched *s, const char *name, struct spur_error *err);

/* scontrol update PartitionName=: each field < 0 unchanged; times in
 * seconds (SCHED_INFINITE: none), default_time 0: the maximum. The next
 * cycle sees it (pending jobs of a DOWN or INACTIVE partition wait, with
 * its reason; running ones go on). */
struct sched_part_update {
	int state; /* enum sched_part_state */
	int64_t max_time, default_time, max_nodes;
	int tier, job_factor; /* PriorityTier, PriorityJobFactor (0-65533) */
	const char *nodes; /* its nodes (a hostlist or "ALL"); NULL unchanged. Running
			      jobs go on where they are */
};
int sched_update_partition(struct sched *s, const char *name, const struct sched_part_update *u,
			   struct spur_error *err);

struct sched_qos_spec {
	const char *name;
	uint32_t priority;
	const char *preempt; /* comma list of QoS names this QoS may preempt */
	bool preempt_requeue;
};

int sched_add_qos(struct sched *s, const struct sched_qos_spec *spec, struct spur_error *err);

/* Fair-share: an account's share (RawShares); accounts not declared get 1. */
int sched_set_account_shares(struct sched *s, const char *account, uint32_t shares,
			     struct spur_error *err);

struct sched_resv_spec {
	const char *name;
	const char *nodes; /* hostlist */
	int64_t start, end;
	const char *users;    /* comma list, or NULL */
	const char *accounts; /* comma list, or NULL */
	/* TRES=gres/gpu=N: "NODE:COUNT,..." -- it holds that many GPUs of each
	 * of its nodes (their CPUs and memory stay open to all); NULL: whole
	 * nodes */
	const char *gpus;
	bool flex; /* Flags=FLEX: its jobs may start before it and use nodes outside it */
};

int sched_add_reservation(struct sched *s, const struct sched_resv_spec *spec,
			  struct spur_error *err);
/* scontrol update ReservationName=: reservation spec->name becomes spec
 * in place (the jobs that name it keep it); SPUR_ENOENT when there is
 * none; a failure changes nothing. */
int sched_update_reservation(struct sched *s, const struct sched_resv_spec *spec,
			     struct spur_error *err);
/* Remove reservation name; SPUR_ESTATE while a pending or running job
 * names it (nothing changes then). */
int sched_del_reservation(struct sched *s, const char *name, struct spur_error *err);
/* Does a reservation hold node at some time in [t0, t1)? */
bool sched_node_reserved(const struct sched *s, uint32_t node, int64_t t0, int64_t t1);

/* A license the cluster has (slurm.conf Licenses=NAME:TOTAL), before
 * jobs arrive. Names are unique. */
int sched_add_license(struct sched *s, const char *name, uint32_t total, struct spur_error *err);
size_t sched_license_count(const struct sched *s);
struct sched_license_info {
	const char *name; /* borrowed */
	uint32_t total, used;
};
/* The i-th license (0 <= i < sched_license_count); SPUR_ENOENT past it. */
int sched_license_info(const struct sched *s, size_t i, struct sched_license_info *out);

/* ---------------------------------------------------------------- limits */

/* Trackable resources a limit counts: cpu, mem (MB), node, gres/gpu, then
 * gres/gpu:TYPE for each GPU type of the nodes, in the order first seen. */
#define SCHED_TRES_MAX 12
enum { SCHED_TRES_CPU, SCHED_TRES_MEM, SCHED_TRES_NODE, SCHED_TRES_GPU, SCHED_TRES_GPU_TYPE };
#define SCHED_NO_LIMIT (-1)

/* An association's or a QOS' limits; SCHED_NO_LIMIT where none. Max* of
 * an association apply per job (jobs, submit: per user) and are inherited
 * down the tree where a child sets none; Grp* hold for the whole subtree. */
struct sched_limits {
	int64_t grp_tres[SCHED_TRES_MAX];
	int64_t max_tres_per_job[SCHED_TRES_MAX];
	int64_t max_tres_per_node[SCHED_TRES_MAX];
	int64_t max_tres_per_user[SCHED_TRES_MAX]; /* QOS only */
	/* TRES-minutes used (decayed by PriorityDecayHalfLife) plus what a job
	 * would use over its time limit */
	int64_t grp_tres_mins[SCHED_TRES_MAX];
	int64_t grp_jobs, grp_submit;	/* running, and pending + running */
	int64_t max_jobs, max_submit;	/* the same, per user */
	int64_t max_wall;		/* seconds */
};
void sched_limits_none(struct sched_limits *l);

/* "cpu=4,mem=10G,node=2,gres/gpu=8,gres/gpu:mi300x=4" into tres[] (the
 * others left as they are; "=-1" clears one). mem takes K/M/G/T, MB when
 * bare. SPUR_EINVAL names an unknown TRES. */
int sched_tres_parse(const struct sched *s, const char *text, int64_t tres[SCHED_TRES_MAX],
		     struct spur_error *err);
/* Slurm's TRES text for tres[] ("cpu=4,mem=10G,gres/gpu=8"; "" when none
 * is set). */
void sched_tres_format(const struct sched *s, const int64_t tres[SCHED_TRES_MAX], char *buf,
		       size_t len);

/* An account under parent (NULL or "root": under the root), created or
 * replaced. Moving it under one of its own descendants is refused. */
struct sched_account_spec {
	const char *name, *parent;
	uint32_t shares; /* 0: 1 */
	struct sched_limits lim;
};
int sched_set_account(struct sched *s, const struct sched_account_spec *spec,
		      struct spur_error *err);
/* SPUR_ESTATE while it has sub-accounts, users or pending/running jobs. */
int sched_del_account(struct sched *s, const char *name, struct spur_error *err);

/* The cluster's own association (root, sacctmgr modify cluster): its Grp*
 * limits hold for all jobs together, its Max* are inherited by every
 * account that sets none. */
void sched_set_root_limits(struct sched *s, const struct sched_limits *lim);

/* A user's association with an account, created or replaced. */
struct sched_user_spec {
	const char *user, *account;
	uint32_t shares;
	struct sched_limits lim;
};
int sched_set_user_assoc(struct sched *s, const struct sched_user_spec *spec,
			 struct spur_error *err);
/* SPUR_ESTATE while the user has pending or running jobs under it. */
int sched_del_user_assoc(struct sched *s, const char *user, const char *account,
			 struct spur_error *err);
/* Does user have an association with account? */
bool sched_user_assoc_exists(const struct sched *s, const char *user, const char *account);

/* A QOS' priority, preemption, usage factor and limits, created or
 * replaced (sched_add_qos creates one with no limits). */
struct sched_qos_limits_spec {
	const char *name;
	uint32_t priority;
	const char *preempt; /* comma list of QOS names */
	bool preempt_requeue;
	double usage_factor; /* 0: 1 */
	bool deny_on_limit;  /* Flags=DenyOnLimit: a job over a per-job limit is refused */
	struct sched_limits lim;
};
int sched_set_qos(struct sched *s, const struct sched_qos_limits_spec *spec,
		  struct spur_error *err);
/* SPUR_ESTATE while a pending or running job uses it. */
int sched_del_qos(struct sched *s, const char *name, struct spur_error *err);

/* What an association (user NULL: the account's own; account "root": the
 * cluster's) or a QOS (account NULL, user NULL) holds now: running jobs, pending + running jobs, TRES
 * of the running ones. SPUR_ENOENT when unknown. */
struct sched_usage {
	int64_t tres[SCHED_TRES_MAX];
	uint32_t jobs, submitted;
	double raw_usage; /* decayed billing-seconds (accounts, associations) */
	double fairshare; /* the fair-share factor priorities use: Fair Tree's rank
			     for a user's association, else the account's classic one */
};
int sched_usage(const struct sched *s, const char *account, const char *user, const char *qos,
		struct sched_usage *out);

/* ---------------------------------------------------------------- jobs */

struct sched_job_spec {
	uint32_t id; /* assigned by the driver (Raft log order), unique, > 0 */
	const char *name, *user, *account, *qos;
	const char *partitions; /* comma list; NULL = default partition */
	uint32_t nodes;		/* minimum node count (1 if 0) */
	uint32_t ntasks;	/* 0 = one per node */
	uint32_t cpus_per_task; /* 0 = 1 */
	uint64_t mem_per_node_mb; /* 0 = none requested */
	uint32_t gpus_per_node;
	const char *gpu_type;  /* NULL = any */
	uint32_t gpus;	       /* --gpus total, spread over nodes (if gpus_per_node 0) */
	uint32_t gpus_per_task;
	uint32_t shards_per_node; /* --gres=shard:N */
	int64_t time_limit;	  /* seconds; 0 = partition default; SCHED_INFINITE */
	const char *constraint;	  /* features joined with '&' or ',' (all required) */
	const char *nodelist, *exclude; /* hostlists */
	bool exclusive, hold, requeue;
	bool exclusive_user;	/* --exclusive=user: its nodes run its user's jobs alone */
	const char *dependency; /* Slurm syntax, or NULL */
	const char *array;	/* Slurm syntax, or NULL */
	int64_t begin;		/* earliest start, 0 = now */
	const char *reservation;
	int32_t nice;
	int64_t submit_time; /* filled from the event when 0 */
	int8_t kill_invalid_dep; /* --kill-on-invalid-dep: 1 yes, -1 no, 0 as configured */
	bool overcommit;	 /* -O: CPUs as for one task per node, whatever ntasks */
	bool contiguous;	 /* --contiguous: nodes next to each other in the node table */
	bool oversubscribe;	 /* -s: shares CPUs where its partition is OverSubscribe=YES */
	/* memory per node from the CPUs or GPUs placed there, when
	 * mem_per_node_mb is 0 (--mem-per-cpu, --mem-per-gpu) */
	uint64_t mem_per_cpu_mb, mem_per_gpu_mb;
	uint32_t cpus_per_gpu; /* --cpus-per-gpu: at least this many CPUs per GPU of a node */
	uint32_t min_cpus;     /* --mincpus: at least this many CPUs per node */
	uint32_t priority;     /* --priority (an administrator's): fixed; 0: computed */
	uint64_t tmp_mb;       /* --tmp: nodes with at least this TmpDisk */
	const char *licenses;  /* -L: "NAME[:COUNT],..." of the cluster's licenses */
	/* --time-min: the job may start with a time limit cut down to this
	 * (backfill before a reservation, or a deadline); 0: none */
	int64_t time_min;
	int64_t deadline; /* --deadline: it must end by then, or is removed (DEADLINE); 0 none */
};

/* Slurm's job states, in Slurm's words. */
enum sched_job_state {
	SCHED_JOB_PENDING,
	SCHED_JOB_RUNNING,
	SCHED_JOB_COMPLETED,
	SCHED_JOB_FAILED,
	SCHED_JOB_CANCELLED,
	SCHED_JOB_TIMEOUT,
	SCHED_JOB_NODE_FAIL,
	SCHED_JOB_PREEMPTED,
	SCHED_JOB_OUT_OF_MEMORY, /* a process was killed at its memory limit */
	SCHED_JOB_DEADLINE,	 /* it could no longer end by its --deadline: removed */
};
const char *sched_job_state_name(enum sched_job_state st);

/* Pending reasons, with Slurm's names. */
enum sched_reason {
	SCHED_REASON_NONE,
	SCHED_REASON_PRIORITY,
	SCHED_REASON_RESOURCES,
	SCHED_REASON_DEPENDENCY,
	SCHED_REASON_DEPENDENCY_NEVER,
	SCHED_REASON_BEGIN_TIME,
	SCHED_REASON_HELD_USER,
	SCHED_REASON_HELD_ADMIN,
	SCHED_REASON_REQ_NODE_NOT_AVAIL,
	SCHED_REASON_PART_TIME_LIMIT,
	SCHED_REASON_PART_NODE_LIMIT,
	SCHED_REASON_PART_DOWN,
	SCHED_REASON_PART_INACTIVE,
	SCHED_REASON_BAD_CONSTRAINTS,
	SCHED_REASON_ARRAY_TASK_LIMIT,
	SCHED_REASON_RESERVATION,
	SCHED_REASON_NODE_FAIL_REQUEUED,
	SCHED_REASON_LICENSES, /* its -L licenses are not all free now */
	SCHED_REASON_DEADLINE, /* "DeadLine": it could not end by its --deadline */
	SCHED_REASON_REQUEUE_HELD, /* "job requeued in held state": scontrol requeuehold */
	/* from here, a limit that holds the job: Slurm's Assoc* and QOS*
	 * reasons (sched_reason_name names each) */
	SCHED_REASON_LIMIT = 64,
};
const char *sched_reason_name(enum sched_reason r);

/* ---------------------------------------------------------------- events */

enum sched_event_type {
	SCHED_EV_TICK,	     /* time passed; run a scheduling cycle */
	SCHED_EV_SUBMIT,     /* job (spec) accepted */
	SCHED_EV_CANCEL,     /* job_id cancelled by a user */
	SCHED_EV_FINISH,     /* job_id ended: exit_code, or timed_out */
	SCHED_EV_HOLD,	     /* job_id held (by user unless admin) */
	SCHED_EV_RELEASE,    /* job_id released */
	SCHED_EV_NODE_UP,    /* node (name) is up and idle */
	SCHED_EV_NODE_DOWN,  /* node failed: running jobs requeue or fail */
	SCHED_EV_NODE_DRAIN, /* node drains: running jobs go on, nothing new */
	SCHED_EV_GPU_FAIL,   /* gpu index on node failed: drain node, requeue its jobs */
	SCHED_EV_STARTED,    /* job_id runs on alloc[] since .time (log replay): no cycle */
	SCHED_EV_REQUEUE,    /* job_id (running or ended) returns to the queue; admin:
				and is held (scontrol requeuehold) */
	SCHED_EV_UPDATE,     /* pending job_id: new time_limit (>= 0) and/or nice */
	SCHED_EV_STOPPED,    /* running job_id was stopped by the driver's earlier actions
				(PREEMPT, REQUEUE, FAIL: log replay): it becomes
				stop_state (PENDING: requeued, with stop_reason; or
				PREEMPTED, NODE_FAIL) */
	SCHED_EV_SUSPEND,    /* running job_id is stopped where it is (scontrol suspend): it
				keeps its resources; its time stands still */
	SCHED_EV_RESUME,     /* suspended job_id goes on; its end moves by the time stopped */
};

struct sched_event {
	enum sched_event_type type;
	int64_t time; /* seconds, the driver's clock */
	const struct sched_job_spec *job;
	uint32_t job_id;
	int exit_code;
	bool timed_out, oom, admin;
	bool array_rest; /* CANCEL, HOLD, RELEASE, UPDATE: array job_id's tasks with no record */
	bool bad_constraints; /* CANCEL of a pending job: FAILED, BadConstraints (--immediate) */
	uint8_t requeue_held; /* REQUEUE with admin, or an admin HOLD restoring one: 1
			       * scontrol requeuehold (its reason), 2 in SPECIAL_EXIT until
			       * released; 0 a plain admin hold */
	const char *node;
	uint32_t gpu;
	const char *reason; /* drain/down reason text */
	bool defer_cycle;   /* apply only; the driver sends a TICK after a batch */
	const struct sched_alloc_node *alloc; /* STARTED */
	size_t nalloc;
	int64_t end; /* STARTED: expected end */
	int64_t time_limit; /* UPDATE: -1 unchanged, 0 the partition's default */
	bool set_nice;	    /* UPDATE */
	int32_t nice;
	/* UPDATE, each NULL (0) unchanged: partitions, account, QOS, dependency
	 * ("" none), features ("" none), node count */
	const char *partitions, *account, *qos, *dependency, *constraint;
	uint32_t nodes;
	bool set_gres;	    /* UPDATE: GPUs or shards per node (scontrol update Gres=) */
	uint32_t gpus_per_node, shards_per_node;
	const char *gpu_type; /* NULL: any */
	bool set_priority;  /* UPDATE: priority fixed (0: computed again) */
	uint32_t priority;
	bool enforce; /* SUBMIT, live (not replayed): associations and submit limits checked */
	enum sched_job_state stop_state; /* STOPPED */
	enum sched_reason stop_reason;	 /* STOPPED, to PENDING */
};

/* ---------------------------------------------------------------- actions */

enum sched_action_type {
	SCHED_ACT_START,   /* launch job on nodes with these devices */
	SCHED_ACT_PREEMPT, /* stop job (requeue or cancel, see .requeue) */
	SCHED_ACT_REQUEUE, /* job's node failed: job returns to the queue */
	SCHED_ACT_FAIL,	   /* job can never run (reason) */
	SCHED_ACT_TIMER,   /* call sched_step with a TICK at .time at the latest */
};

struct sched_alloc_node {
	uint32_t node;	   /* node index */
	uint16_t gpu_mask; /* bit i: GPU i of the node */
	uint8_t shard_gpu; /* GPU holding the shards (if shards) */
	uint16_t shards;
	uint32_t cpus;
	uint64_t mem_mb;
};

struct sched_action {
	enum sched_action_type type;
	uint32_t job_id;
	int64_t time;		 /* TIMER: when; START: expected end */
	bool requeue;		 /* PREEMPT */
	enum sched_reason reason; /* FAIL */
	const struct sched_alloc_node *alloc; /* START: borrowed, valid until next step */
	size_t nalloc;
	bool backfilled; /* START: started ahead of a higher-priority job */
};

/* Returned by sched_step; owned by the core and valid until the next step. */
struct sched_actions {
	const struct sched_action *v;
	size_t n;
};

/* Apply one event, then run a scheduling cycle at ev->time. Time must not go
 * backwards. Returns 0, or an error for an invalid event (unknown job or node,
 * bad spec), in which case nothing changed and no action is returned. */
int sched_step(struct sched *s, const struct sched_event *ev, struct sched_actions *out,
	       struct spur_error *err);

/* Forget an ended job (Slurm's MinJobAge purge): its id is unknown from now
 * on, and a dependency on it counts as satisfied (Slurm: "job is gone,
 * dependency lifted"). SPUR_ESTATE while it is pending or running. No cycle. */
int sched_job_purge(struct sched *s, uint32_t job_id, struct spur_error *err);

/* sbatch --test-only: when and where a job of this spec could start (the
 * cluster as the last cycle left it; nothing is held or kept). nodes
 * (room for the spec's node count or more, sched_node_count() is enough):
 * the node indexes; *count 0: it could never start. Errors as at SUBMIT. */
struct sched_will_run {
	int64_t start;	    /* now, or the earliest time */
	int partition;	    /* index, -1 never */
	uint32_t cpus;	    /* what it would hold */
	size_t count;	    /* nodes */
};
int sched_will_run(struct sched *s, const struct sched_job_spec *spec, uint32_t *nodes,
		   struct sched_will_run *out, struct spur_error *err);

/* ---------------------------------------------------------------- queries */

struct sched_job_info {
	uint32_t id, array_job_id;
	int32_t array_task_id; /* -1 when not an array task */
	enum sched_job_state state;
	enum sched_reason reason;
	uint32_t priority;
	int64_t submit_time, start_time, end_time; /* end: expected while running */
	int64_t est_start; /* pending: reservation time, or 0 */
	int64_t time_limit; /* as asked, or as cut down at its start (--time-min); 0: the partition's */
	uint32_t partition;
	const struct sched_alloc_node *alloc;
	size_t nalloc;
	bool rest; /* an array task with no record of its own yet */
	bool suspended;	      /* scontrol suspend (state RUNNING, shown SUSPENDED) */
	bool special_exit;    /* requeuehold State=SpecialExit (state PENDING, shown SPECIAL_EXIT) */
	uint32_t nodes;	      /* the node count it asks (or that its tasks need: -n alone) */
	int64_t suspend_time; /* the last suspend or resume, 0: never */
	int64_t suspended_secs; /* time spent suspended before the current suspension */
	int64_t pre_suspend;	/* run seconds before the last suspend */
	uint16_t share;		/* running: how many ways it shares its CPUs (OverSubscribe; 1: not) */
};

/* Copies a job's state; SPUR_ENOENT when unknown. Array tasks have their own
 * ids (see sched_array_task_id). */
int sched_job_info(const struct sched *s, uint32_t job_id, struct sched_job_info *out);

/* The job id of task `task` of array job `array_job_id`, or 0. */
uint32_t sched_array_task_id(const struct sched *s, uint32_t array_job_id, uint32_t task);

/* An array's tasks beyond the scheduler's window have no record of their
 * own until they come in (Slurm's pending meta record): sched_job_info
 * answers for them from the array's, with `rest` set. These list them:
 * the nth array (from 0) with such tasks, its meta record's state (id =
 * the array's job id) and how many; ENOENT past the last. */
int sched_array_rest_nth(const struct sched *s, size_t n, struct sched_job_info *meta,
			 uint32_t *count);
/* Task k (0 .. the array's task count - 1) of array job array_job_id, when
 * it has no record: its job id and task id; false otherwise. */
bool sched_array_rest_task(const struct sched *s, uint32_t array_job_id, uint32_t k,
			   uint32_t *job_id, uint32_t *task_id);
/* The tasks of array job array_job_id with no record, from index *from on:
 * up to max of them in order into job_ids and task_ids; *from moves past the last
 * one. Returns how many (0: no more). */
size_t sched_array_rest_ids(const struct sched *s, uint32_t array_job_id, uint32_t *from,
			    uint32_t *job_ids, uint32_t *task_ids, size_t max);
/* How many tasks of array job array_job_id have no record and are pending
 * (0: none, or not an array). */
uint32_t sched_array_rest_pending(const struct sched *s, uint32_t array_job_id);
/* Array job array_job_id's least and greatest task id, and the step
 * between them when evenly spaced in order (else 0); false: no such array. */
bool sched_array_span(const struct sched *s, uint32_t array_job_id, uint32_t *min, uint32_t *max,
		      uint32_t *step);
/* How many tasks array job array_job_id has, records or not (0: not an array). */
uint32_t sched_array_size(const struct sched *s, uint32_t array_job_id);

size_t sched_node_count(const struct sched *s);
/* Jobs the scheduler holds, ended ones not yet purged included, array
 * tasks with no record of their own too. */
size_t sched_job_count(const struct sched *s);
/* The i-th of them (0 <= i < sched_job_count, in no set order): a walk
 * over every job without a lookup by id for each. */
int sched_job_info_nth(const struct sched *s, size_t i, struct sched_job_info *out);
const char *sched_node_name(const struct sched *s, uint32_t node);
/* CPUs and memory allocated on a node. */
void sched_node_usage(const struct sched *s, uint32_t node, uint32_t *cpus, uint64_t *mem_mb);
/* Free GPUs on a node (not allocated, not failed) as a mask. */
uint16_t sched_node_free_gpus(const struct sched *s, uint32_t node);
const char *sched_node_state(const struct sched *s, uint32_t node); /* IDLE, MIXED, ALLOCATED, DRAIN, DOWN */

/* Mean pairwise link weight among the GPUs in mask (0 for < 2 GPUs). */
double sched_node_mask_bandwidth(const struct sched *s, uint32_t node, uint16_t mask);
/* True when the GPUs in mask are all linked by the node's best link class
 * (one XGMI hive / one NVLink island). */
bool sched_node_mask_is_island(const struct sched *s, uint32_t node, uint16_t mask);
/* Shards each GPU of the node splits into (0: not shared). */
uint32_t sched_node_shards_per_gpu(const struct sched *s, uint32_t node);
/* The leaf switch of a node, or -1. */
int sched_node_leaf(const struct sched *s, uint32_t node);

/* The decision trace since the last sched_trace_clear(): one line per
 * decision, "[  120] job 42 start on gpu[01-02] gpus=0-7 (backfill)". */
const char *sched_trace(const struct sched *s);
void sched_trace_clear(struct sched *s);

/* A job's multifactor priority, each factor weighted (sprio). */
struct sched_prio {
	double age, fairshare, job_size, partition, qos;
	int32_t nice;
	uint32_t priority;
};
int sched_job_prio(const struct sched *s, uint32_t id, struct sched_prio *out);
/* A pending job's priority in one of its partitions (squeue --priority):
 * its partition factor that partition's. SPUR_ENOENT: no such job, or the
 * job may not run there. */
int sched_job_part_prio(const struct sched *s, uint32_t id, const char *part, uint32_t *prio);

/* Statistics of the last cycle. */
struct sched_cycle_stats {
	size_t pending_seen, started, backfilled, reserved, preempted;
};
void sched_last_cycle(const struct sched *s, struct sched_cycle_stats *out);

#endif
