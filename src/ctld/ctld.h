/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld's context: the event loop, the scheduling core it drives, the job
 * records, the agents' connections, the operation log. */
#ifndef SPUR_CTLD_CTLD_H
#define SPUR_CTLD_CTLD_H

#include "common/auth.h"
#include "common/conf.h"
#include "common/wire.h"
#include "core/sched.h"
#include "ctld/jobsubmit.h"

#include <stdio.h>
#include <uv.h>

struct ctld_conn;
struct ctld_raft;
struct ctld;
typedef void (*ctld_ready_fn)(struct ctld *c);

/* What the controller keeps about a job beyond the core's view. */
/* What a running step holds on one node of its job (steps.c). */
struct ctld_step_use {
	uint32_t step, node; /* node: index in the job's allocation */
	uint32_t cpus;
	uint16_t gpus;	 /* bit i: GPU i of the node */
	uint64_t mem_mb; /* srun --mem / --mem-per-cpu; 0: none asked */
};

struct ctld_job {
	uint32_t id;
	json_t *spec;  /* the submit request's job object, as accepted */
	char *nodes;   /* allocation, Slurm hostlist form */
	char *gpus;    /* per first node, "0,1,2" */
	uint64_t mem_mb; /* memory held on all its nodes (kept after its end, for accounting) */
	uint32_t cpus;	 /* CPUs held on all its nodes (kept the same way) */
	int exit_code; /* Slurm's raw "exit:signal" not kept: exit code only */
	int64_t start, end;
	bool launched;
	uint32_t next_step;
	uint32_t runs; /* starts so far (a requeue starts it again) */
	uint8_t limit_mails; /* --mail-type=TIME_LIMIT*: the ones sent (bit 0: 50%...3: 100%) */
	struct ctld_conn *waiter; /* sbatch --wait: reply when the job ends */
	struct ctld_conn *owner;  /* salloc/srun: holds an interactive allocation */
	/* the ops that made this job what it is, for snapshots */
	json_t *submit_op; /* on the first job of a submission only */
	json_t *hold_op, *start_op, *end_op, *requeue_op;
	json_t *susp_op; /* the last suspend or resume of the current run */
	json_t *rest_op; /* an array's first job: its tasks with no record cancelled */
	/* ops a snapshot keeps beyond those above: on an array's first job the
	 * whole array's holds, releases and updates; on a task its own updates */
	json_t *extra_ops;
	bool own_spec; /* an array task's spec copied from the array's, then updated */
	struct ctld_step_use *uses; /* running steps' shares (the leader's) */
	size_t nuses;
};

/* A node's state set by an administrator or a failed check (nodeadmin.c). */
enum { CTLD_ADMIN_NONE, CTLD_ADMIN_DRAIN, CTLD_ADMIN_DOWN };

struct ctld {
	uv_loop_t *loop;
	struct spur_conf *conf;
	struct ctld_jobsubmit *jobsubmit; /* JobSubmitPlugins=lua; NULL: none */
	struct sched *sched;
	uv_tcp_t server;
	uv_pipe_t usock; /* the abstract Unix socket: clients with peer credentials */
	bool usock_open;
	struct spur_auth_key key; /* the cluster's HS256 key */
	uv_timer_t timer;
	struct ctld_job **jobs; /* by id (dense from 1) */
	size_t jobs_cap;
	uint32_t next_id;
	uint32_t purge_low; /* every id below it is purged (MinJobAge) */
	uv_timer_t purge_timer;
	uint64_t op_seq; /* ops applied so far */
	json_t *resv_ops; /* the reservations' "resv" ops, live ones (resv.c) */
	/* partitions changed at run time (partupdate.c): the update ops by
	 * name, the create/delete ops in order, slurm.conf's partitions */
	json_t *part_over, *part_log;
	/* nodes whose features changed at run time (nodeadmin.c): slurm.conf's
	 * features by node name (the configuration holds the new ones) */
	json_t *node_feat_orig;
	struct spur_conf_parts_saved *part_saved;
	char *conf_path;     /* slurm.conf read at the start (NULL: built-in) */
	json_t *reconf_base; /* its lines outside the live keys (reconf.c) */
	json_t *reconf_op;   /* the last reconfig applied, for snapshots */
	json_t *assoc;	  /* accounts, users, associations, QOS (assoc.c); NULL: none */
	bool enforce_qos; /* AccountingStorageEnforce=qos: a job's QOS in its association's */
	uint32_t interactive_live; /* interactive jobs not ended (their limits) */
	uint32_t *limit_mail_ids; /* jobs with --mail-type=TIME_LIMIT*, not ended (as seen) */
	size_t nlimit_mail, limit_mail_cap;
	struct ctld_conn **agents; /* by node index, NULL when not connected */
	char (*node_reason)[160];  /* by node index: why it drained ("" none) */
	uint8_t *node_admin;	   /* by node index: CTLD_ADMIN_*, by scontrol or a check */
	char (*node_reason_user)[32]; /* by node index: who set the reason */
	int64_t *node_reason_time; /* by node index: when the reason was set */
	/* by node index: what its agent last said of the host (node_load),
	 * -1 when nothing yet: load average x100, MemAvailable MB */
	int64_t *node_load, *node_free_mb;
	struct ctld_raft *raft;
	size_t self;	       /* this controller's SlurmctldHost entry */
	uv_timer_t agent_ping; /* the leader's keep-alive to its agents */
	struct sqlite3 *acct; /* accounting database */
	struct sqlite3_stmt *acct_put; /* its job upsert, prepared once */
	char *state_dir;
	bool replaying; /* applying others' ops: log replay, follower */
	bool restart;	/* state ran ahead of the log: start again from it */
	bool stopping;
	bool signaled; /* SIGTERM/SIGINT: stop, even when a restart was due */
	bool failed;
	char **argv; /* this program's arguments: ctld_restart_now() */
	struct ctld_conn *conns; /* every client connection, newest first */
	struct ctld_peer *peers; /* open connections per peer (ctld_conn_peer) */
	size_t npeers, peers_cap;
	uv_timer_t conn_sweep; /* closes idle connections */
	uint64_t conns_refused; /* over a peer's cap, since the last log line */
	struct { /* since this process started: sdiag, /metrics */
		uint64_t submitted, cycles, cycle_us_last, cycle_us_max, cycle_us_total;
		uint64_t started, backfilled, depth_total, depth_last;
		uint64_t completed, canceled, failed; /* ended by this leader */
		int64_t started_at;
		json_t *rpc_types, *rpc_users; /* NAME: [count, total us] (report.c) */
	} stats;
};

/* Both kinds of connection the controller makes start with this tag (their
 * handles' data point at them), so a shutdown walk can close each the right
 * way. */
enum ctld_tcp_kind { CTLD_TCP_CLIENT = 1, CTLD_TCP_FORWARD };

struct ctld_forward;

struct ctld_conn {
	enum ctld_tcp_kind kind; /* CTLD_TCP_CLIENT */
	union { /* a TCP client, or one on the Unix socket */
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	};
	struct ctld *c;
	struct ctld_forward *fwd; /* a follower's pipe to the leader, or NULL */
	struct spur_wire_reader rd;
	long node; /* agent: node index, else -1 */
	bool closing;
	unsigned refs; /* the loop's, plus one per answer awaiting a commit */
	bool holds_jobs; /* some job's waiter or owner: look when it closes */
	bool peer;		  /* on the Unix socket: peer_id is its kernel's word */
	struct spur_ident peer_id;
	struct spur_ident who; /* the current request's authenticated identity */
	bool authed;	       /* who is set */
	struct ctld_conn *prev, *next; /* in ctld.conns */
	uint64_t active_at;	       /* the loop's ms at its last frame in or out */
	uint64_t peer_key;	       /* uid (Unix socket) or IPv4 address; 0: not counted */
};

/* Open client connections of one peer: a user on the Unix socket, a host
 * over TCP. */
struct ctld_peer {
	uint64_t key;
	uint32_t n;
};
/* Connections one peer may hold open (agents, root and SlurmUser on the
 * Unix socket not counted); one with nothing pending may stay silent for
 * MessageTimeout. */
#define CTLD_MAX_CONNS_PER_PEER 1024

/* raftlog.c: the replicated operation log (libraft) */
struct ctld_raft_peer {
	unsigned long long id;
	const char *address; /* host:port of its Raft transport */
};
struct ctld_raft_opts {
	unsigned long long id; /* this controller's Raft id */
	const char *address;
	const struct ctld_raft_peer *peers; /* a pristine log's voters */
	size_t npeers;
	bool join; /* joins a running cluster: no bootstrap */
	unsigned snapshot_every;
	unsigned election_ms; /* 0: 300 */
	unsigned segment_kb;  /* log segment size; 0: libraft's 8 MiB */
	ctld_ready_fn on_ready;
};
int ctld_raft_open(struct ctld *c, const struct ctld_raft_opts *o, struct spur_error *err);
/* {"members":[{id,address,role,leader}],"id","leader_id","term",...} */
json_t *ctld_raft_members(struct ctld *c);
int ctld_raft_transfer(struct ctld *c, unsigned long long id, struct spur_error *err);
/* The leader's SlurmctldHost index, -1 when unknown or not configured. */
long ctld_leader_index(struct ctld *c);
/* The leader's SlurmctldHost name (else its Raft address), NULL: unknown. */
const char *ctld_leader_name(struct ctld *c);
/* Add (a spare, then a voter once caught up) or remove a controller; cn is
 * answered when the change is committed. */
int ctld_raft_change(struct ctld *c, bool add, unsigned long long id, const char *address,
		     struct ctld_conn *cn, struct spur_error *err);
/* Append op (borrowed) to the log; once committed, send reply (stolen, may
 * be NULL) to cn (may be NULL) and call ctld_committed(). */
int ctld_raft_propose(struct ctld *c, json_t *op, struct ctld_conn *cn, json_t *reply,
		      struct spur_error *err);
bool ctld_raft_ready(const struct ctld *c);
/* 0 when the state folder has room for the log's next writes and op's
 * entry (borrowed, may be NULL); else SPUR_ERETRY: it is full, and this
 * controller, leading others, hands leadership over. Nothing may be applied
 * that cannot be written. */
int ctld_raft_room(struct ctld *c, const json_t *op, struct spur_error *err);
/* Before the log is opened: wait until the state folder has room for two
 * segments. */
void ctld_raft_prepare(const char *state_dir, unsigned segment_kb);
/* Less room in the state folder than two log segments. */
bool ctld_raft_no_room(const char *state_dir, unsigned segment_kb);
void ctld_raft_close(struct ctld *c);

/* ops.c: applying operations */
/* Apply op to the state. replay: it comes from the log (another process's
 * proposal): skip what the state already reflects, launch nothing. */
int ctld_apply(struct ctld *c, json_t *op, bool replay, struct spur_error *err);
/* Apply op now and propose it; the answer goes out when it is committed. A
 * refused op changes nothing and proposes nothing. reply is stolen. */
int ctld_commit(struct ctld *c, json_t *op, struct ctld_conn *cn, json_t *reply,
		struct spur_error *err);
/* An op this process proposed is committed: act on it (launch a start). */
void ctld_committed(struct ctld *c, const json_t *op);
/* The core stopped running job id (preemption, node or GPU failure): kill
 * it where it runs and log the stop; cause is for the log. */
void ctld_stop_job(struct ctld *c, uint32_t id, const char *cause);
/* Send a running batch job's launch to its first node again (its agent came
 * back without it: the launch was lost with the agent's old connection, or
 * never sent); false when it cannot be sent now. */
bool ctld_relaunch(struct ctld *c, struct ctld_job *cj);
/* The state as the ops that rebuild it: {"next_id":N,"ops":[...]} */
json_t *ctld_state_ops(struct ctld *c);
/* Replace the state by a snapshot's. */
int ctld_state_restore(struct ctld *c, const json_t *doc, struct spur_error *err);
void ctld_jobs_free(struct ctld *c);
int ctld_run_cycle(struct ctld *c);
/* A scheduling cycle on the loop's next turn: the events of one turn
 * (submissions, ends, an agent's registration) share one cycle. */
void ctld_cycle_soon(struct ctld *c);
/* Forget jobs ended more than MinJobAge ago (a logged op), every so often. */
void ctld_purge_start(struct ctld *c);
/* Job id's record; an array task's is made on first use. NULL: unknown. */
struct ctld_job *ctld_job(struct ctld *c, uint32_t id);
/* The same, but NULL for an array task the core has no record of yet (the
 * walks over every id use it: a million-task array is not a million
 * records). */
struct ctld_job *ctld_job_rec(struct ctld *c, uint32_t id);
/* The partition a job runs in, or, pending, the one(s) it asked for (else
 * the default partition). Borrowed. */
const char *ctld_job_partition(const struct ctld *c, const struct ctld_job *cj,
			       const struct sched_job_info *info);
/* The job's environment on node k of its allocation (a new reference). */
json_t *ctld_job_env(struct ctld *c, struct ctld_job *cj, const struct sched_job_info *info,
		     size_t k);
/* Set SLURM_name and SPUR_name. */
void put_env(json_t *env, const char *name, const char *value);
void put_env_int(json_t *env, const char *name, long long v);
/* Slurm's compressed per-node counts into buf: "2(x3),1" for 2,2,2,1. */
void ctld_per_node(const uint32_t *v, size_t n, char *buf, size_t len);

/* main.c: the core as configured, every node drained until it registers */
int ctld_build_core(struct ctld *c, struct spur_error *err);
/* slurm.conf's partition pt (or one scontrol created) into the scheduler. */
struct spur_conf_partition;
int ctld_add_partition(struct ctld *c, const struct spur_conf_partition *pt,
		       struct spur_error *err);
/* Start this program again from the log at once, as after a kill -9 (its
 * state may be ahead of the log); returns only if that failed. */
void ctld_restart_now(struct ctld *c);

/* forward.c: a follower sends a client's request (borrowed) to the leader
 * over a pipe that this connection keeps; -1 when no leader is known. */
int ctld_forward(struct ctld_conn *cn, json_t *msg);
void ctld_forward_close(struct ctld_conn *cn);
/* Close a handle of the shutdown walk the way its kind needs. */
void ctld_tcp_close(uv_handle_t *h);

/* server.c */
void ctld_conn_close(struct ctld_conn *cn);
/* The connection is an agent's: no longer counted against its peer. */
void ctld_conn_is_agent(struct ctld_conn *cn);
/* Start closing connections that stay idle (after ctld_listen). */
void ctld_conns_start(struct ctld *c);
int ctld_listen(struct ctld *c, const char *addr, uint16_t port, struct spur_error *err);
/* The abstract Unix socket for host:port (see spur_ctld_socket_name). */
int ctld_listen_unix(struct ctld *c, const char *host, uint16_t port, struct spur_error *err);
void ctld_conn_send(struct ctld_conn *cn, json_t *msg); /* steals msg */
void ctld_conn_closed(uv_handle_t *h); /* close callback: drops the loop's reference */
void ctld_conn_ref(struct ctld_conn *cn);
void ctld_conn_unref(struct ctld_conn *cn);
int64_t ctld_now(void);

/* acct.c: job history for sacct */
int ctld_acct_open(struct ctld *c, struct spur_error *err);
void ctld_acct_close(struct ctld *c);
void ctld_acct_flush(struct ctld *c);
void ctld_acct_record(struct ctld *c, uint32_t id);
/* Send the batch script to the job's first node. */
void ctld_launch(struct ctld *c, struct ctld_job *cj, const json_t *alloc);
/* PrologSlurmctld first (when set), then the launch; EpilogSlurmctld at
 * the job's end (hooks.c). */
void ctld_prolog_then_launch(struct ctld *c, struct ctld_job *cj, const json_t *alloc);
void ctld_epilog(struct ctld *c, struct ctld_job *cj);
/* mail.c: --mail-type's mail for event what ("Began", "Ended", "Failed",
 * "Requeued", "Invalid dependency") through MailProg, when the job asked
 * for it (the leader, as ops commit). */
void ctld_mail(struct ctld *c, struct ctld_job *cj, const char *what);
/* --mail-type=TIME_LIMIT, _90, _80, _50: the mails of running jobs whose
 * time has come (the leader, after a cycle); the next one's time lowers
 * wake. */
int64_t ctld_mail_limits(struct ctld *c, int64_t now, int64_t wake);
/* The job ended or was requeued: "Failed", "Ended" or "Requeued" as asked. */
void ctld_mail_end(struct ctld *c, struct ctld_job *cj);
/* suspend.c: scontrol suspend / resume (an administrator's): the job's
 * processes stopped with SIGSTOP where they run (its time limit held) and
 * continued with SIGCONT (its end moved by the time stopped). */
void ctld_handle_suspend(struct ctld_conn *cn, json_t *msg);
int ctld_apply_suspend(struct ctld *c, json_t *op, bool replay, struct spur_error *err);
/* The core's view of an accepted job object (strings borrowed from j; g
 * holds its parsed --gres, spur_gres_fini after). */
struct spur_gres_list;
int ctld_job_spec(const json_t *j, uint32_t id, struct sched_job_spec *sp,
		  struct spur_gres_list *g, struct spur_error *err);
/* A running job's limit (0: none) to the agents of its nodes. */
void ctld_limit_nodes(struct ctld *c, uint32_t id, const struct sched_job_info *info);
/* "SUSPENDED" for a suspended job, else the core's state name. */
const char *ctld_state_name(const struct sched_job_info *info);
/* What a step asks of a node's memory, MB (srun --mem, or --mem-per-cpu
 * times its tasks' CPUs there); 0: none asked. */
uint64_t ctld_step_mem_mb(const json_t *msg, size_t tasks_here);
/* A step's shares of its job on its nn nodes (sel: allocation indexes,
 * tasks: tasks per node): gpus[k] the GPUs it gets on node k. SPUR_EAGAIN
 * "Requested nodes are busy" while running steps hold them. */
int ctld_steps_take(struct ctld_job *cj, const struct sched_job_info *info, const size_t *sel,
		    size_t nn, const size_t *tasks, const json_t *msg, uint32_t step, uint16_t *gpus,
		    struct spur_error *err);
/* The step ended on allocation node `node` (-1: everywhere). */
void ctld_steps_release(struct ctld_job *cj, uint32_t step, long node);
void ctld_steps_clear(struct ctld_job *cj);
/* Step `step` of the job exists (started here or on another controller):
 * the job's next step number goes past it. */
void ctld_steps_seen(struct ctld_job *cj, uint32_t step);
/* What step holds on allocation node `node`, as the agent is told it
 * ("share": node, cpus, gpus); NULL where it holds nothing (--overlap). */
json_t *ctld_steps_share(const struct ctld_job *cj, uint32_t step, size_t node);
/* A controller that took over learns a running step's share from the
 * agent's registration (share NULL: an --overlap step); the job's step
 * numbers go on past it. SPUR_EINVAL for a share outside the allocation. */
int ctld_steps_restore(struct ctld_job *cj, const struct sched_job_info *info, uint32_t step,
		       const json_t *share);
/* A reservation made (or, del, deleted: its end then) into the
 * accounting's reservations; those overlapping [from, to) (sreport's
 * planned down time from MAINT ones). */
void ctld_acct_resv(struct ctld *c, const json_t *op, bool del);
json_t *ctld_acct_resvs(struct ctld *c, int64_t from, int64_t to);
/* A step's start or end ("step" operation) into the accounting's steps. */
/* The job's running steps (not its batch step), at most max, into out. */
size_t ctld_acct_running_steps(struct ctld *c, uint32_t id, uint32_t *out, size_t max);
/* {"op":"step_limit","id","step","time_limit"}: a step's new limit kept. */
void ctld_acct_step_limit(struct ctld *c, const json_t *op);
/* Is step `step` of job id running, as the accounting has it? */
bool ctld_acct_step_running(struct ctld *c, uint32_t id, uint32_t step);
void ctld_acct_step(struct ctld *c, const json_t *op);
json_t *ctld_acct_query(struct ctld *c, const char *jobs, const char *user, struct spur_error *err);

/* Send signal sig for job id to the agents of nodes[0..n) / of its
 * allocation (its batch script and steps there). */
void ctld_signal_nodes(struct ctld *c, uint32_t id, const uint32_t *nodes, size_t n, int sig);
/* m (taken) to the connected agent of each node of the job's allocation. */
void ctld_send_job_nodes(struct ctld *c, const struct sched_job_info *info, json_t *m);
void ctld_signal_job(struct ctld *c, uint32_t id, int sig);
/* scancel -s SIG (not SIGKILL), as Slurm's: scope "steps" (the default:
 * the job's steps, not its batch shell), "batch" (-b: the batch shell
 * alone, not its children) or "full" (-f: the shell, its children and the
 * steps). */
void ctld_signal_scope(struct ctld *c, uint32_t id, int sig, const char *scope);
/* A running job being cancelled: SIGTERM to it, and its agents write
 * slurmstepd's "*** JOB N ON NODE CANCELLED AT T ***" in its stderr. */
void ctld_cancel_signal(struct ctld *c, uint32_t id);
/* An interactive job at its limit: SIGKILL to it, its steps told why. */
void ctld_limit_signal(struct ctld *c, uint32_t id);

/* An interactive job (salloc, srun outside a job): nothing is launched; its
 * owner's connection holds it. */
bool ctld_job_interactive(const struct ctld_job *cj);
/* The owner is gone (connection closed, or a controller restart): end the
 * allocation and its steps. */
void ctld_owner_gone(struct ctld *c, struct ctld_job *cj);

/* handlers.c */
void ctld_handle(struct ctld_conn *cn, json_t *msg);
json_t *ctld_job_json(struct ctld *c, uint32_t id);

#endif
