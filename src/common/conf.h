/* SPDX-License-Identifier: Apache-2.0 */
/* The typed cluster configuration read from slurm.conf, gres.conf and
 * topology.conf (Slurm's files, unchanged; Spur* keys may sit beside). */
#ifndef SPUR_COMMON_CONF_H
#define SPUR_COMMON_CONF_H

#include "error.h"
#include "gres.h"
#include "log.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPUR_CONF_UNLIMITED UINT32_MAX

struct spur_conf_origin {
	const char *file; /* borrowed from the conf */
	int line;
};

struct spur_conf_ctld {
	char *name; /* SlurmctldHost=name(addr) */
	char *addr; /* == name when no "(addr)" */
	uint16_t port; /* NAME(ADDR:PORT), a Spur extension for several
			* controllers on one host; 0: SlurmctldPort */
};

/* One node, after NodeName=DEFAULT and hostlist expansion. */
struct spur_conf_node {
	char *name;
	char *hostname; /* NodeHostname, default name */
	char *addr;     /* NodeAddr, default hostname */
	uint16_t port;  /* 0: the cluster's SlurmdPort */
	uint32_t cpus, boards, sockets, cores_per_socket, threads_per_core;
	uint64_t real_memory_mb, tmp_disk_mb;
	uint32_t weight;
	struct spur_gres_list gres;
	char *features; /* comma list as written, or NULL */
	char *state;    /* UNKNOWN, IDLE, DOWN, DRAIN, FUTURE, CLOUD */
	char *reason;
	struct spur_conf_origin origin;
};

enum spur_part_state { SPUR_PART_UP, SPUR_PART_DOWN, SPUR_PART_DRAIN, SPUR_PART_INACTIVE };

struct spur_conf_partition {
	char *name;
	char *nodes_expr;  /* as written ("ALL", hostlist, node sets) */
	size_t *nodes;     /* indexes into conf->nodes */
	size_t nnodes;
	bool is_default, hidden, exclusive_user, root_only;
	bool deleted; /* scontrol delete partition: its slot kept (indexes stay), no lookup finds it */
	int64_t max_time, default_time; /* seconds or SPUR_TIME_INFINITE */
	bool default_unlimited;		/* DefaultTime=UNLIMITED (not NONE, MaxTime's) */
	uint32_t max_nodes, min_nodes;  /* SPUR_CONF_UNLIMITED for none */
	uint16_t priority_tier, priority_job_factor;
	enum spur_part_state state;
	char *allow_accounts, *allow_groups, *allow_qos, *deny_accounts, *deny_qos, *qos;
	char *oversubscribe, *preempt_mode;
	uint64_t def_mem_per_cpu_mb, max_mem_per_node_mb;
	/* 0 where unset: the cluster's DefMemPer* / DefCpuPerGPU hold */
	uint64_t def_mem_per_gpu_mb, def_mem_per_node_mb;
	uint32_t def_cpu_per_gpu;
	struct spur_conf_origin origin;
};

/* One gres.conf line (NodeName may be absent: all nodes). */
struct spur_conf_gres {
	char *nodes_expr; /* NULL: every node */
	char *name, *type, *file, *cores, *links, *flags, *autodetect;
	uint64_t count; /* from Count=, else the number of File= names */
	struct spur_conf_origin origin;
};

/* One topology.conf switch. */
struct spur_conf_switch {
	char *name;
	char *switches_expr, *nodes_expr;
	char **children; /* expanded Switches= */
	size_t nchildren;
	size_t *nodes; /* indexes into conf->nodes */
	size_t nnodes;
	uint32_t link_speed;
	long parent; /* index of the parent switch, -1 for a root */
	struct spur_conf_origin origin;
};

struct spur_conf_extra {
	char *key, *value;
};

/* The whole configuration. Read-only once loaded; owned by the caller of
 * spur_conf_load*(), freed with spur_conf_destroy(). */
struct spur_conf {
	char *cluster_name;
	struct spur_conf_ctld *ctlds; /* SlurmctldHost lines, in order (Raft peers) */
	size_t nctlds;
	uint16_t ctld_port, agent_port;
	char *state_dir, *spool_dir, *ctld_log_file, *agent_log_file, *slurm_user;
	char *prolog, *epilog; /* Prolog, Epilog: run as root on the node around each job */
	char *mpi_default;     /* MpiDefault: none, pmix (pmix_v3, pmix_v4) */
	char *health_program, *health_states; /* HealthCheckProgram, HealthCheckNodeState */
	uint32_t health_interval;	      /* HealthCheckInterval, seconds */
	char *task_prolog, *task_epilog;      /* TaskProlog, TaskEpilog: as the user, per task */
	char *prolog_slurmctld, *epilog_slurmctld; /* run by the leading controller */
	char *mail_prog, *mail_domain; /* MailProg (default /bin/mail), MailDomain */
	/* PropagateResourceLimits (NULL: ALL), PropagateResourceLimitsExcept */
	char *propagate_limits, *propagate_except;
	enum spur_log_level ctld_debug, agent_debug;
	bool disable_root_jobs; /* DisableRootJobs (default YES in Spur) */
	char *scheduler_type, *select_type, *select_type_params, *gres_types;
	char *priority_type, *preempt_type, *preempt_mode, *topology_plugin;
	uint32_t priority_weight_age, priority_weight_fairshare, priority_weight_job_size,
		priority_weight_partition, priority_weight_qos, priority_weight_assoc;
	int64_t priority_decay_half_life, priority_max_age; /* seconds */
	bool priority_favor_small;
	uint64_t def_mem_per_cpu_mb, def_mem_per_gpu_mb, def_mem_per_node_mb;
	uint32_t def_cpu_per_gpu; /* DefCpuPerGPU */
	char *licenses;		  /* Licenses=NAME[:COUNT],... (the controller's) */
	uint32_t max_job_count, max_array_size, first_job_id, return_to_service;
	/* SchedulerParameters, as written, and the options Spur acts on */
	char *scheduler_params;
	uint32_t max_script_size;     /* max_script_size=, bytes (4 MiB) */
	uint32_t default_queue_depth; /* default_queue_depth=: jobs a quick pass tries (100) */
	uint32_t bf_max_job_test;     /* bf_max_job_test=: jobs a backfill pass tries (500) */
	uint32_t min_job_age, kill_wait, slurmd_timeout, message_timeout, inactive_limit,
		wait_time, over_time_limit;
	/* Spur's own keys */
	uint16_t rest_port;
	uint16_t raft_port; /* SpurRaftPort; 0: SlurmctldPort + 4 */
	char *gpu_backend;   /* SpurGpuBackend: auto, kfd, nvml, cdi, fake */
	char *fake_gpu_file; /* SpurFakeGpuFile */
	char *container_runtime; /* SpurContainerRuntime: crun, runc, a path; NULL: probe */
	char *image_store;	 /* SpurImageStore: the node's images (/var/lib/spur/images) */
	char *cdi_spec_dirs;	 /* SpurCdiSpecDirs: more CDI spec folders (comma list) */

	struct spur_conf_node *nodes;
	size_t nnodes, nodes_cap;
	struct spur_conf_partition *parts;
	size_t nparts, parts_cap;
	struct spur_conf_gres *gres;
	size_t ngres, gres_cap;
	struct spur_conf_switch *switches;
	size_t nswitches, switches_cap;
	/* known Slurm keys Spur accepts but does not act on, kept as written */
	struct spur_conf_extra *extra;
	size_t nextra, extra_cap;
	char **warnings; /* "file:line: ..." for unknown keys and soft problems */
	size_t nwarnings, warnings_cap;
	char **unacted; /* "file:line: KEY=VALUE": Slurm keys accepted, not acted on */
	size_t nunacted, unacted_cap;
	char **files; /* names of every file read (origins point here) */
	size_t nfiles, files_cap;
};

enum spur_conf_load_flags_b {
	SPUR_CONF_LOAD_NO_INCLUDE = 1 << 0, /* reject Include (untrusted text) */
	SPUR_CONF_LOAD_NO_SIBLINGS = 1 << 1, /* don't look for gres.conf/topology.conf */
};

/* The built-in configuration: one controller on localhost, no nodes, one
 * default partition "batch" with every node. NULL when out of memory. */
struct spur_conf *spur_conf_default(struct spur_error *err);
/* For the daemons: a key of Slurm's the config sets that they cannot
 * honour (SPANK plugins, the controller's prolog and epilog) is an error
 * that names it, never a key silently kept. */
int spur_conf_daemon_check(const struct spur_conf *conf, struct spur_error *err);

/* Read slurm.conf at `path` and, unless SPUR_CONF_LOAD_NO_SIBLINGS, the
 * gres.conf and topology.conf beside it when they exist. Returns a new conf,
 * or NULL with "file:line: reason" in err. Unknown keys do not fail; they
 * are listed in conf->warnings. */
struct spur_conf *spur_conf_load(const char *path, unsigned flags, struct spur_error *err);

/* As spur_conf_load on texts in memory; gres_text and topo_text may be NULL.
 * Names are used in messages. */
struct spur_conf *spur_conf_load_text(const char *slurm_name, const char *slurm_text,
				      const char *gres_text, const char *topo_text,
				      unsigned flags, struct spur_error *err);

void spur_conf_destroy(struct spur_conf *conf);

/* A partition's OverSubscribe: NO and EXCLUSIVE (ways 1), YES[:N] (jobs
 * asking -s share a CPU N ways, 4 when not said), FORCE[:N] (all its jobs;
 * *force). 0, or -1 for anything else, or N past SPUR_CONF_SHARE_MAX. */
#define SPUR_CONF_SHARE_MAX 16
int spur_conf_oversubscribe(const char *v, uint16_t *ways, bool *force);

/* Lookups. */
long spur_conf_node_index(const struct spur_conf *conf, const char *name);
const struct spur_conf_partition *spur_conf_partition(const struct spur_conf *conf,
						      const char *name);
const struct spur_conf_partition *spur_conf_default_partition(const struct spur_conf *conf);
/* Partitions changed at run time (scontrol create/delete partition).
 * create: one "PartitionName=NAME Key=Value ..." line read as slurm.conf's
 * (PartitionName=DEFAULT lines do not apply, MinNodes defaults to 1 as
 * Slurm's create shows it), its Nodes= hostlists or ALL; a key slurm.conf
 * would only warn of or that Spur does not act on is refused here. A
 * deleted partition of that name gives its slot back; *slot: the new
 * partition's index. 0, or an error (Slurm's words) with nothing changed.
 * delete: marked deleted (its name still shown for finished jobs). */
int spur_conf_partition_create(struct spur_conf *conf, const char *line, size_t *slot,
			       struct spur_error *err);
int spur_conf_partition_delete(struct spur_conf *conf, const char *name, struct spur_error *err);
/* A deep copy of the partitions, to put back (restore consumes it). */
struct spur_conf_parts_saved;
struct spur_conf_parts_saved *spur_conf_partitions_save(const struct spur_conf *conf);
void spur_conf_partitions_restore(struct spur_conf *conf, struct spur_conf_parts_saved *saved);
void spur_conf_partitions_free(struct spur_conf_parts_saved *saved);
/* SlurmctldHost i's client port: its own (NAME(ADDR:PORT)), else SlurmctldPort. */
uint16_t spur_conf_ctld_port(const struct spur_conf *conf, size_t i);
/* SlurmctldHost i's Raft port: SpurRaftPort, else four above its client port. */
unsigned spur_conf_raft_port(const struct spur_conf *conf, size_t i);
/* "host:port" of SlurmctldHost i's Raft transport. */
void spur_conf_raft_address(const struct spur_conf *conf, size_t i, char *buf, size_t len);

/* A controller to reach. */
struct spur_hostport {
	char host[256];
	uint16_t port;
};
/* "HOST[:PORT][,HOST[:PORT]...]" (each PORT 1-65535, default dflt) into
 * out[0..max): the count, or -1 when an entry is not of that form. */
long spur_hostports_parse(const char *list, uint16_t dflt, struct spur_hostport *out, size_t max);
/* Every SlurmctldHost with its client port (at most max), else
 * 127.0.0.1:SlurmctldPort: the count, 1 or more. */
size_t spur_conf_ctld_addrs(const struct spur_conf *conf, struct spur_hostport *out, size_t max);

#endif
