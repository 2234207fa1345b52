/* SPDX-License-Identifier: Apache-2.0 */
/* Operations: every accepted change is an op, applied by the same
 * ctld_apply() when it is accepted and when the replicated log is replayed
 * (raftlog.c; docs/rfc/0003-wire.md §4); snapshots are the ops that rebuild
 * the state. */
#include "ctld.h"
#include "resv.h"
#include "assoc.h"
#include "nodeadmin.h"
#include "partupdate.h"
#include "reconf.h"
#include "jobdefs.h"

#include "common/alloc.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/jobspec.h"
#include "common/log.h"
#include "common/timefmt.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int job_slot(struct ctld *c, uint32_t id);

/* An array task's controller record, made on first use: the core lets the
 * tasks of a large array in a window at a time, and the tasks beyond it
 * have no record there (nor here) until then. With rest_too, also for a
 * task the core has no record of yet. */
static struct ctld_job *task_make(struct ctld *c, uint32_t id, bool rest_too)
{
	struct sched_job_info info;
	struct ctld_job *first, *cj;

	if (sched_job_info(c->sched, id, &info) || !info.array_job_id ||
	    info.array_job_id == id || (info.rest && !rest_too) ||
	    info.array_job_id >= c->jobs_cap || !(first = c->jobs[info.array_job_id]) ||
	    job_slot(c, id) || !(cj = calloc(1, sizeof(*cj))))
		return NULL;
	cj->id = id;
	cj->spec = json_incref(first->spec);
	c->jobs[id] = cj;
	return cj;
}

struct ctld_job *ctld_job(struct ctld *c, uint32_t id)
{
	if (id < c->jobs_cap && c->jobs[id])
		return c->jobs[id];
	return task_make(c, id, true);
}

struct ctld_job *ctld_job_rec(struct ctld *c, uint32_t id)
{
	if (id >= c->jobs_cap)
		return NULL;
	return c->jobs[id] ? c->jobs[id] : task_make(c, id, false);
}

const char *ctld_job_partition(const struct ctld *c, const struct ctld_job *cj,
			       const struct sched_job_info *info)
{
	const struct spur_conf_partition *def = spur_conf_default_partition(c->conf);

	if (info->state != SCHED_JOB_PENDING && info->partition < c->conf->nparts)
		return c->conf->parts[info->partition].name;
	return spur_json_str(cj->spec, "partition", def ? def->name : "");
}

static int job_slot(struct ctld *c, uint32_t id)
{
	if (id >= c->jobs_cap) {
		size_t cap = c->jobs_cap ? c->jobs_cap : 1024;
		void *p;

		while (cap <= id)
			cap *= 2;
		p = realloc(c->jobs, cap * sizeof(*c->jobs));
		if (!p)
			return SPUR_ENOMEM;
		c->jobs = p;
		memset(c->jobs + c->jobs_cap, 0, (cap - c->jobs_cap) * sizeof(*c->jobs));
		c->jobs_cap = cap;
	}
	return 0;
}

/* ---------------------------------------------------------------- submit */

/* The core's view of a job from the accepted JSON (strings borrowed). */
int ctld_job_spec(const json_t *j, uint32_t id, struct sched_job_spec *sp,
			  struct spur_gres_list *g, struct spur_error *err)
{
	const char *gres = spur_json_str(j, "gres", NULL);

	memset(sp, 0, sizeof(*sp));
	sp->id = id;
	sp->name = spur_json_str(j, "name", "");
	sp->user = spur_json_str(j, "user", "");
	sp->account = spur_json_str(j, "account", NULL);
	sp->qos = spur_json_str(j, "qos", NULL);
	sp->partitions = spur_json_str(j, "partition", NULL);
	sp->nodes = (uint32_t)spur_json_int(j, "nodes", 0); /* 0: as the tasks need */
	sp->ntasks = (uint32_t)spur_json_int(j, "ntasks", 0);
	sp->cpus_per_task = (uint32_t)spur_json_int(j, "cpus_per_task", 1);
	sp->mem_per_node_mb = (uint64_t)spur_json_int(j, "mem_per_node", 0);
	sp->gpus_per_node = (uint32_t)spur_json_int(j, "gpus_per_node", 0);
	sp->gpus = (uint32_t)spur_json_int(j, "gpus", 0);
	sp->gpus_per_task = (uint32_t)spur_json_int(j, "gpus_per_task", 0);
	sp->gpu_type = spur_json_str(j, "gpu_type", NULL);
	sp->time_limit = spur_json_int(j, "time_limit", 0);
	sp->overcommit = spur_json_bool(j, "overcommit", 0);
	sp->mem_per_cpu_mb = (uint64_t)spur_json_int(j, "mem_per_cpu", 0);
	sp->mem_per_gpu_mb = (uint64_t)spur_json_int(j, "mem_per_gpu", 0);
	sp->cpus_per_gpu = (uint32_t)spur_json_int(j, "cpus_per_gpu", 0);
	sp->min_cpus = (uint32_t)spur_json_int(j, "min_cpus", 0);
	sp->priority = (uint32_t)spur_json_int(j, "priority", 0);
	sp->tmp_mb = (uint64_t)spur_json_int(j, "tmp_mb", 0);
	sp->licenses = spur_json_str(j, "licenses", NULL);
	sp->time_min = spur_json_int(j, "time_min", 0);
	sp->deadline = spur_json_int(j, "deadline", 0);
	if (json_is_boolean(json_object_get(j, "kill_invalid_dep")))
		sp->kill_invalid_dep = spur_json_bool(j, "kill_invalid_dep", 0) ? 1 : -1;
	sp->constraint = spur_json_str(j, "constraint", NULL);
	sp->nodelist = spur_json_str(j, "nodelist", NULL);
	sp->exclude = spur_json_str(j, "exclude", NULL);
	sp->exclusive = spur_json_bool(j, "exclusive", 0);
	sp->exclusive_user = spur_json_bool(j, "exclusive_user", 0);
	sp->contiguous = spur_json_bool(j, "contiguous", 0);
	sp->oversubscribe = spur_json_bool(j, "oversubscribe", 0);
	sp->hold = spur_json_bool(j, "hold", 0);
	sp->requeue = spur_json_bool(j, "requeue", 1);
	sp->dependency = spur_json_str(j, "dependency", NULL);
	sp->array = spur_json_str(j, "array", NULL);
	sp->begin = spur_json_int(j, "begin", 0);
	sp->reservation = spur_json_str(j, "reservation", NULL);
	sp->nice = (int32_t)spur_json_int(j, "nice", 0);
	if (gres && *gres) {
		if (spur_gres_parse(gres, 0, g, err)) /* Slurm's words */
			return err->code == SPUR_ENOMEM ? err->code
							: spur_error_set(err, err->code,
									 "Invalid generic resource (gres) "
									 "specification");
		for (size_t i = 0; i < g->n; i++) {
			if (!strcmp(g->items[i].name, "gpu")) {
				sp->gpus_per_node = (uint32_t)g->items[i].count;
				sp->gpu_type = g->items[i].type[0] ? g->items[i].type : NULL;
			} else if (!strcmp(g->items[i].name, "shard")) {
				sp->shards_per_node = (uint32_t)g->items[i].count;
				sp->gpu_type = g->items[i].type[0] ? g->items[i].type : sp->gpu_type;
			} else if (g->items[i].count) { /* NAME:0 asks for none, as Slurm */
				return spur_error_set(err, SPUR_EINVAL,
						      "Invalid generic resource (gres) specification: "
						      "%s (no node has it)",
						      g->items[i].name);
			}
		}
	}
	return 0;
}

/* How many ids a submission (first job id) took: its array's tasks, or one. */
static uint32_t id_count(struct ctld *c, uint32_t id)
{
	uint32_t n = sched_array_size(c->sched, id);

	return n ? n : 1;
}

static int apply_submit(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	json_t *job = json_object_get(op, "job");
	struct sched_job_spec sp;
	struct spur_gres_list g = { 0 };
	struct sched_event ev = { .type = SCHED_EV_SUBMIT, .time = spur_json_int(op, "time", 0),
				  .job = &sp, .defer_cycle = true };
	struct sched_actions acts;
	uint32_t n;
	int rc;

	if (!id || !json_is_object(job))
		return spur_error_set(err, SPUR_EINVAL, "submit: no id or job");
	if (replay && ctld_job(c, id))
		return 0; /* already in the state (a snapshot taken after it) */
	/* ids are given in order, and a snapshot holds every job not purged:
	 * an earlier id that is absent was purged (MinJobAge) */
	if (replay && id < c->next_id)
		return 0;
	sp.submit_time = ev.time;
	/* associations and submit limits hold for new submissions, not for
	 * ones the log already accepted */
	ev.enforce = !replay;
	rc = ctld_job_spec(job, id, &sp, &g, err);
	if (!rc)
		rc = sched_step(c->sched, &ev, &acts, err);
	spur_gres_fini(&g);
	if (rc)
		return rc;
	n = id_count(c, id);
	/* a record for each task the core has one of (an array's window); the
	 * others get theirs as they come in */
	if (job_slot(c, id + n - 1))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < n; k++) {
		struct ctld_job *cj;
		struct sched_job_info info;

		if (sched_job_info(c->sched, id + k, &info) || info.rest)
			break;
		if (!(cj = calloc(1, sizeof(*cj))))
			return spur_error_set(err, SPUR_ENOMEM, "out of memory");
		cj->id = id + k;
		cj->spec = json_incref(job);
		c->jobs[id + k] = cj;
	}
	c->jobs[id]->submit_op = json_incref(op);
	if (spur_json_bool(job, "interactive", 0))
		c->interactive_live += n;
	/* --mail-type=TIME_LIMIT*: the cycle looks at these jobs' run time */
	if (strstr(spur_json_str(job, "mail_type", ""), "TIME_LIMIT"))
		for (uint32_t k = 0; k < n && c->jobs[id + k]; k++)
			if (!spur_grow((void **)&c->limit_mail_ids, &c->limit_mail_cap,
				       c->nlimit_mail + 1, sizeof(uint32_t)))
				c->limit_mail_ids[c->nlimit_mail++] = id + k;
	if (id + n > c->next_id)
		c->next_id = id + n;
	for (uint32_t k = 0; k < n && c->jobs[id + k]; k++)
		ctld_acct_record(c, id + k);
	return 0;
}

/* ---------------------------------------------------------------- start */

static json_t *alloc_json(const struct sched_action *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->nalloc; i++)
		json_array_append_new(arr, json_pack("{s:i,s:i,s:i,s:I,s:i,s:i}", "node",
						     (int)a->alloc[i].node, "gpus",
						     a->alloc[i].gpu_mask, "cpus", (int)a->alloc[i].cpus,
						     "mem", (json_int_t)a->alloc[i].mem_mb, "shard_gpu",
						     a->alloc[i].shard_gpu, "shards", a->alloc[i].shards));
	return arr;
}

static void mask_list(uint16_t m, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned g = 0; g < 16 && o + 4 < len; g++)
		if (m >> g & 1)
			o += (size_t)snprintf(buf + o, len - o, "%s%u", o ? "," : "", g);
}

/* Record where the job runs (names for squeue, GPUs for the environment). */
static void note_alloc(struct ctld *c, struct ctld_job *cj, const json_t *alloc, int64_t start)
{
	struct spur_hostlist *hl = spur_hostlist_create();
	char gpus[64] = "";
	size_t i;
	json_t *a;

	cj->mem_mb = 0;
	cj->cpus = 0;
	json_array_foreach(alloc, i, a) {
		int64_t n = spur_json_int(a, "node", -1);

		cj->mem_mb += (uint64_t)spur_json_int(a, "mem", 0);
		cj->cpus += (uint32_t)spur_json_int(a, "cpus", 0);
		if (n >= 0 && (size_t)n < c->conf->nnodes)
			spur_hostlist_push(hl, c->conf->nodes[n].name, NULL);
		if (i == 0)
			mask_list((uint16_t)spur_json_int(a, "gpus", 0), gpus, sizeof(gpus));
	}
	free(cj->nodes);
	free(cj->gpus);
	cj->nodes = spur_hostlist_ranged(hl, NULL);
	cj->gpus = strdup(gpus);
	cj->start = start;
	spur_hostlist_destroy(hl);
}

void put_env(json_t *env, const char *name, const char *value)
{
	char slurm[128], spur[128];

	snprintf(slurm, sizeof(slurm), "SLURM_%s", name);
	snprintf(spur, sizeof(spur), "SPUR_%s", name);
	json_object_set_new(env, slurm, json_string(value));
	json_object_set_new(env, spur, json_string(value));
}

void put_env_int(json_t *env, const char *name, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	put_env(env, name, buf);
}

/* The job's environment as seen on node k of its allocation (the batch
 * script runs on k = 0): SLURM_* and SPUR_* twins and the device lists. */
/* Slurm's compressed per-node counts: "2(x3),1" for 2,2,2,1. */
void ctld_per_node(const uint32_t *v, size_t n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t run = 1, used = strlen(buf);

		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run > 1)
			snprintf(buf + used, len - used, "%s%u(x%zu)", i ? "," : "", v[i], run);
		else
			snprintf(buf + used, len - used, "%s%u", i ? "," : "", v[i]);
		i += run;
	}
}

/* SLURM_TASKS_PER_NODE (the job's tasks spread as its steps spread them:
 * the first nodes take the remainder; with --exclusive and -c but no -n,
 * as many as each node's CPUs hold, as Slurm) and SLURM_JOB_CPUS_PER_NODE,
 * which mpirun's Slurm support reads to size its allocation. */
static void put_per_node(json_t *env, const struct sched_job_info *info, const json_t *spec,
			 long long nn)
{
	uint32_t tasks[256], cpus[256];
	size_t n = info->nalloc < 256 ? info->nalloc : 256;
	long long ntasks = spur_json_int(spec, "ntasks", nn), cpt = spur_json_int(spec, "cpus_per_task", 0);
	bool fill = !spur_json_int(spec, "ntasks", 0) && cpt > 0 && spur_json_bool(spec, "exclusive", 0);
	char buf[2048];

	if (!n)
		return;
	for (size_t k = 0; k < n; k++) {
		tasks[k] = fill ? (uint32_t)(info->alloc[k].cpus / (uint64_t)cpt)
				: (uint32_t)(ntasks / (long long)n + ((long long)k < ntasks % (long long)n));
		cpus[k] = info->alloc[k].cpus;
	}
	ctld_per_node(tasks, n, buf, sizeof(buf));
	put_env(env, "TASKS_PER_NODE", buf);
	ctld_per_node(cpus, n, buf, sizeof(buf));
	put_env(env, "JOB_CPUS_PER_NODE", buf);
}

/* SLURM_ARRAY_TASK_COUNT/MIN/MAX, and _STEP when the ids are evenly
 * spaced, from the array's --array as submitted (the core keeps them: a
 * task's start does not parse a million ids). */
static void put_array_env(struct ctld *c, json_t *env, uint32_t array_job_id)
{
	uint32_t min, max, step, n = sched_array_size(c->sched, array_job_id);

	if (!n || !sched_array_span(c->sched, array_job_id, &min, &max, &step))
		return;
	put_env_int(env, "ARRAY_TASK_COUNT", (long long)n);
	put_env_int(env, "ARRAY_TASK_MIN", min);
	put_env_int(env, "ARRAY_TASK_MAX", max);
	if (step)
		put_env_int(env, "ARRAY_TASK_STEP", step);
}

/* SLURM_WORKING_CLUSTER, as Slurm writes it: NAME:HOST:PORT:PROTOCOL:
 * SELECT (22.05's protocol, cons_tres's id), the first controller's. */
static void put_working_cluster(struct ctld *c, json_t *env)
{
	char v[512];

	snprintf(v, sizeof(v), "%s:%s:%u:9728:109", c->conf->cluster_name,
		 c->conf->nctlds ? c->conf->ctlds[0].addr : "localhost",
		 c->conf->nctlds && c->conf->ctlds[0].port ? c->conf->ctlds[0].port
							 : c->conf->ctld_port);
	put_env(env, "WORKING_CLUSTER", v);
}

/* The output variables that echo what the job asked for (sbatch -c,
 * --mem, --qos...), each only when it was asked for, as in Slurm. */
static void put_spec_env(json_t *env, const json_t *spec)
{
	static const struct {
		const char *key, *var;
	} ints[] = {
		{ "cpus_per_task", "CPUS_PER_TASK" }, { "mem_per_node", "MEM_PER_NODE" },
		{ "mem_per_cpu", "MEM_PER_CPU" },     { "mem_per_gpu", "MEM_PER_GPU" },
		{ "gpus_per_task", "GPUS_PER_TASK" }, { "ntasks_per_node", "NTASKS_PER_NODE" },
		{ "gpus_per_node", "GPUS_PER_NODE" }, { "cpus_per_gpu", "CPUS_PER_GPU" },
		{ "ntasks_per_gpu", "NTASKS_PER_GPU" },
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (json_object_get(spec, ints[i].key))
			put_env_int(env, ints[i].var, spur_json_int(spec, ints[i].key, 0));
	if (*spur_json_str(spec, "qos", ""))
		put_env(env, "JOB_QOS", spur_json_str(spec, "qos", ""));
	if (spur_json_bool(spec, "overcommit", 0)) /* -O, as Slurm tells the job */
		put_env(env, "OVERCOMMIT", "1");
	if (*spur_json_str(spec, "reservation", ""))
		put_env(env, "JOB_RESERVATION", spur_json_str(spec, "reservation", ""));
	put_env(env, "GTIDS", "0");
	put_env_int(env, "PRIO_PROCESS", spur_json_int(spec, "prio_process", 0));
	put_env(env, "NODE_ALIASES", "(null)");
}

json_t *ctld_job_env(struct ctld *c, struct ctld_job *cj, const struct sched_job_info *info,
		     size_t k)
{
	const json_t *spec = cj->spec;
	json_t *env = json_object();
	const char *gpu_type = spur_json_str(spec, "gpu_type", "");
	uint16_t mask = k < info->nalloc ? info->alloc[k].gpu_mask : 0;
	char gpus[64];
	int ngpus = __builtin_popcount(mask);
	long long nn = (long long)info->nalloc;

	mask_list(mask, gpus, sizeof(gpus));
	put_env_int(env, "JOB_ID", cj->id);
	put_env_int(env, "JOBID", cj->id);
	put_env(env, "JOB_NAME", spur_json_str(spec, "name", ""));
	put_env(env, "JOB_NODELIST", cj->nodes ? cj->nodes : "");
	put_env(env, "NODELIST", cj->nodes ? cj->nodes : "");
	put_env_int(env, "JOB_NUM_NODES", nn);
	put_env_int(env, "NNODES", nn);
	/* as Slurm: the task count only when one was asked for */
	if (spur_json_int(spec, "ntasks", 0)) {
		put_env_int(env, "NTASKS", spur_json_int(spec, "ntasks", 0));
		put_env_int(env, "NPROCS", spur_json_int(spec, "ntasks", 0));
	}
	put_spec_env(env, spec);
	put_env_int(env, "CPUS_ON_NODE", k < info->nalloc ? info->alloc[k].cpus : 1);
	put_per_node(env, info, spec, nn);
	put_env(env, "JOB_PARTITION",
		c->conf->parts[info->partition < c->conf->nparts ? info->partition : 0].name);
	put_env(env, "SUBMIT_DIR", spur_json_str(spec, "workdir", "/"));
	put_env(env, "SUBMIT_HOST", spur_json_str(spec, "submit_host", "localhost"));
	put_env(env, "JOB_USER", spur_json_str(spec, "user", ""));
	if (*spur_json_str(spec, "account", ""))
		put_env(env, "JOB_ACCOUNT", spur_json_str(spec, "account", ""));
	put_env_int(env, "JOB_UID", spur_json_int(spec, "uid", 0));
	put_env_int(env, "JOB_GID", spur_json_int(spec, "gid", 0));
	put_env(env, "CLUSTER_NAME", c->conf->cluster_name);
	put_working_cluster(c, env);
	if (!c->conf->nswitches && k < info->nalloc && info->alloc[k].node < c->conf->nnodes) {
		/* no topology.conf: the node is its own address, as in Slurm */
		put_env(env, "TOPOLOGY_ADDR", c->conf->nodes[info->alloc[k].node].name);
		put_env(env, "TOPOLOGY_ADDR_PATTERN", "node");
	}
	put_env_int(env, "NODEID", (long long)k);
	put_env_int(env, "PROCID", 0);
	put_env_int(env, "LOCALID", 0);
	if (info->array_job_id) {
		put_env_int(env, "ARRAY_JOB_ID", info->array_job_id);
		put_env_int(env, "ARRAY_TASK_ID", info->array_task_id);
		put_array_env(c, env, info->array_job_id);
	}
	if (ngpus) {
		put_env(env, "JOB_GPUS", gpus);
		put_env(env, "STEP_GPUS", gpus);
		put_env_int(env, "GPUS_ON_NODE", ngpus);
		put_env_int(env, "GPUS", ngpus * nn);
		json_object_set_new(env, "CUDA_VISIBLE_DEVICES", json_string(gpus));
		json_object_set_new(env, "ROCR_VISIBLE_DEVICES", json_string(gpus));
		json_object_set_new(env, "HIP_VISIBLE_DEVICES", json_string(gpus));
		json_object_set_new(env, "GPU_DEVICE_ORDINAL", json_string(gpus));
		if (*gpu_type)
			put_env(env, "JOB_GPU_TYPE", gpu_type);
	}
	return env;
}

void ctld_signal_nodes(struct ctld *c, uint32_t id, const uint32_t *nodes, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++)
		if (nodes[i] < c->conf->nnodes && c->agents[nodes[i]])
			ctld_conn_send(c->agents[nodes[i]],
				       json_pack("{s:s,s:i,s:i}", "type", "signal", "job_id", (int)id,
						 "signal", sig));
}

/* A signal to the agents of a job's allocation; why (NULL: none) says
 * "cancelled" or "time_limit" (slurmstepd's lines in the job's output and
 * its steps'). */
void ctld_send_job_nodes(struct ctld *c, const struct sched_job_info *info, json_t *m)
{
	for (size_t n = 0; m && n < info->nalloc; n++)
		if (info->alloc[n].node < c->conf->nnodes && c->agents[info->alloc[n].node])
			ctld_conn_send(c->agents[info->alloc[n].node], json_incref(m));
	json_decref(m);
}

static void signal_alloc(struct ctld *c, uint32_t id, int sig, const char *why,
			 const char *scope)
{
	struct sched_job_info info;
	json_t *m;

	if (sched_job_info(c->sched, id, &info))
		return;
	m = json_pack("{s:s,s:i,s:i}", "type", "signal", "job_id", (int)id, "signal", sig);
	if (m && why)
		json_object_set_new(m, why, json_true());
	if (m && scope)
		json_object_set_new(m, "scope", json_string(scope));
	ctld_send_job_nodes(c, &info, m);
}

void ctld_cancel_signal(struct ctld *c, uint32_t id)
{
	signal_alloc(c, id, SIGTERM, "cancelled", NULL);
}

void ctld_limit_signal(struct ctld *c, uint32_t id)
{
	signal_alloc(c, id, SIGKILL, "time_limit", NULL);
}

void ctld_signal_job(struct ctld *c, uint32_t id, int sig)
{
	signal_alloc(c, id, sig, NULL, NULL);
}

void ctld_signal_scope(struct ctld *c, uint32_t id, int sig, const char *scope)
{
	signal_alloc(c, id, sig, NULL, scope);
}

bool ctld_job_interactive(const struct ctld_job *cj)
{
	return spur_json_bool(cj->spec, "interactive", 0);
}

/* An interactive allocation is granted: its owner gets the environment. */
static void grant(struct ctld *c, struct ctld_job *cj)
{
	struct sched_job_info info;

	cj->launched = true;
	if (!cj->owner || sched_job_info(c->sched, cj->id, &info))
		return;
	ctld_conn_send(cj->owner, json_pack("{s:s,s:i,s:s,s:o}", "type", "allocated", "job_id",
					    (int)cj->id, "nodes", cj->nodes ? cj->nodes : "",
					    "env", ctld_job_env(c, cj, &info, 0)));
}

/* Tell the first node's agent to run the batch script. */
void ctld_launch(struct ctld *c, struct ctld_job *cj, const json_t *alloc)
{
	const json_t *spec = cj->spec;
	json_t *first = json_array_get(alloc, 0);
	long node = (long)spur_json_int(first, "node", -1);
	struct sched_job_info info;
	json_t *env, *msg;
	char limit[32];

	if (ctld_job_interactive(cj)) {
		grant(c, cj);
		return;
	}
	if (node < 0 || !c->agents[node]) {
		spur_warn("job %u: node agent not connected; launch deferred", cj->id);
		return;
	}
	sched_job_info(c->sched, cj->id, &info);
	env = ctld_job_env(c, cj, &info, 0);
	spur_duration_format(info.end_time == SCHED_INFINITE ? SPUR_TIME_INFINITE
							     : info.end_time - info.start_time,
			     limit, sizeof(limit));
	msg = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:o,s:I,s:I,s:I,s:I,s:s}", "type", "launch",
			"job_id", (int)cj->id, "script", spur_json_str(spec, "script", ""),
			"workdir", spur_json_str(spec, "workdir", "/"), "output",
			spur_json_str(spec, "output", ""), "error", spur_json_str(spec, "error", ""),
			"name", spur_json_str(spec, "name", ""), "env", env, "uid",
			(json_int_t)spur_json_int(spec, "uid", 0), "gid",
			(json_int_t)spur_json_int(spec, "gid", 0), "time_limit",
			(json_int_t)(info.end_time == SCHED_INFINITE ? 0 : info.end_time - info.start_time),
			"array_job_id", (json_int_t)info.array_job_id, "user",
			spur_json_str(spec, "user", ""));
	if (info.array_job_id)
		json_object_set_new(msg, "array_task_id", json_integer(info.array_task_id));
	json_object_set_new(msg, "run", json_integer(cj->runs));
	/* OverTimeLimit (minutes): how long past its limit it may run */
	if (c->conf->over_time_limit)
		json_object_set_new(msg, "over_time",
				    json_integer((json_int_t)c->conf->over_time_limit * 60));
	/* the submitter's limits it gets (PropagateResourceLimits, --propagate) */
	json_object_set_new(msg, "rlimits", ctld_job_rlimits(c->conf, spec));
	/* sbatch -i, --open-mode, the script's arguments, --signal, its container */
	for (size_t k = 0; k < 6; k++) {
		static const char *const keys[] = { "input",	 "open_mode", "argv",
						    "signal",	 "container", "get_user_env" };
		json_t *v = json_object_get(spec, keys[k]);

		if (v)
			json_object_set(msg, keys[k], v);
	}
	json_object_set(msg, "user_env", json_object_get(spec, "env"));
	/* the first node's share, for the job's cgroup */
	if (info.nalloc) {
		json_object_set_new(msg, "cpus", json_integer(info.alloc[0].cpus));
		if (info.share > 1) /* OverSubscribe: CPUs it shares that many ways */
			json_object_set_new(msg, "share", json_integer(info.share));
		json_object_set_new(msg, "mem_mb", json_integer((json_int_t)info.alloc[0].mem_mb));
	}
	cj->launched = true;
	ctld_conn_send(c->agents[node], msg);
}

bool ctld_relaunch(struct ctld *c, struct ctld_job *cj)
{
	const json_t *alloc = cj->start_op ? json_object_get(cj->start_op, "alloc") : NULL;

	if (!json_is_array(alloc) || ctld_job_interactive(cj))
		return false;
	cj->launched = false; /* set again only when this launch is sent */
	ctld_launch(c, cj, alloc);
	return cj->launched;
}

static int apply_start(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	json_t *alloc = json_object_get(op, "alloc");
	struct sched_job_info now;

	if (!cj || !json_is_array(alloc))
		return spur_error_set(err, SPUR_ENOENT, "start: unknown job %u", id);
	if (replay && (sched_job_info(c->sched, id, &now) || now.state != SCHED_JOB_PENDING))
		return 0; /* started or ended already */
	if (replay) {
		struct sched_alloc_node al[256];
		size_t n = json_array_size(alloc), i;
		json_t *a;
		struct sched_event ev = { .type = SCHED_EV_STARTED,
					  .time = spur_json_int(op, "time", 0),
					  .job_id = id,
					  .alloc = al,
					  .nalloc = n,
					  .end = spur_json_int(op, "end", 0) };
		struct sched_actions acts;

		if (n > 256)
			return spur_error_set(err, SPUR_ETOOBIG, "start: too many nodes");
		json_array_foreach(alloc, i, a) {
			al[i] = (struct sched_alloc_node){
				.node = (uint32_t)spur_json_int(a, "node", 0),
				.gpu_mask = (uint16_t)spur_json_int(a, "gpus", 0),
				.cpus = (uint32_t)spur_json_int(a, "cpus", 0),
				.mem_mb = (uint64_t)spur_json_int(a, "mem", 0),
				.shard_gpu = (uint8_t)spur_json_int(a, "shard_gpu", 0),
				.shards = (uint16_t)spur_json_int(a, "shards", 0),
			};
		}
		if (sched_step(c->sched, &ev, &acts, err))
			return err->code;
		cj->launched = true; /* it was launched before the restart */
	}
	note_alloc(c, cj, alloc, spur_json_int(op, "time", 0));
	cj->runs = (uint32_t)spur_json_int(op, "run", 1);
	json_decref(cj->start_op);
	cj->start_op = json_incref(op);
	json_decref(cj->susp_op); /* a new run: not suspended */
	cj->susp_op = NULL;
	ctld_acct_record(c, id);
	return 0;
}

/* ---------------------------------------------------------------- end */

/* {"op":"cancel","id":ARRAY,"rest":true}: an array's tasks that have no
 * record yet are cancelled as one (as Slurm cancels a pending meta
 * record); the op stays with the array's first job for snapshots. */
static int apply_cancel_rest(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_event ev = { .type = SCHED_EV_CANCEL, .time = spur_json_int(op, "time", 0),
				  .job_id = id, .array_rest = true, .defer_cycle = true };
	struct sched_actions acts;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (sched_step(c->sched, &ev, &acts, err))
		return replay && err->code == SPUR_ESTATE ? 0 : err->code;
	json_decref(cj->rest_op);
	cj->rest_op = json_incref(op);
	return 0;
}

static void reply_waiter(struct ctld *c, struct ctld_job *cj)
{
	struct sched_job_info info;

	if (!cj->waiter)
		return;
	sched_job_info(c->sched, cj->id, &info);
	ctld_conn_send(cj->waiter, json_pack("{s:s,s:i,s:s,s:i}", "type", "ok", "job_id",
					     (int)cj->id, "state", sched_job_state_name(info.state),
					     "exit_code", cj->exit_code));
	cj->waiter = NULL;
}

static int apply_end(struct ctld *c, json_t *op, bool cancel, bool replay,
		     struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_event ev = { .type = cancel ? SCHED_EV_CANCEL : SCHED_EV_FINISH,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .exit_code = (int)spur_json_int(op, "exit", 0),
				  .timed_out = spur_json_bool(op, "timeout", 0),
				  .oom = spur_json_bool(op, "oom", 0),
				  .bad_constraints = cancel && spur_json_bool(op, "failed", 0),
				  .defer_cycle = true };
	struct sched_actions acts;
	struct sched_job_info now;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (replay && (sched_job_info(c->sched, id, &now) ||
		       (now.state != SCHED_JOB_PENDING && now.state != SCHED_JOB_RUNNING)))
		return 0; /* ended already */
	if (sched_step(c->sched, &ev, &acts, err))
		return err->code;
	if (!replay) /* sdiag's counts */
		*(cancel				  ? &c->stats.canceled
		  : ev.exit_code || ev.timed_out || ev.oom ? &c->stats.failed
							  : &c->stats.completed) += 1;
	cj->exit_code = ev.exit_code;
	cj->end = ev.time;
	ctld_steps_clear(cj); /* its steps end with it */
	if (ctld_job_interactive(cj))
		c->interactive_live--;
	if (cj->owner) {
		ctld_conn_send(cj->owner, json_pack("{s:s,s:i}", "type", "revoked", "job_id", (int)id));
		cj->owner = NULL;
	}
	json_decref(cj->end_op);
	cj->end_op = json_incref(op);
	ctld_acct_record(c, id);
	reply_waiter(c, cj);
	return 0;
}

/* An op on a whole array ("array": true; cj its first job): the event
 * for each of its pending tasks with a record, then for those with none
 * (the array's meta record). The first refusal (a partition that is not
 * there...) is the op's error, before anything changed; a task no longer
 * pending is passed over. The op stays with the first job for snapshots. */
static int array_apply(struct ctld *c, struct ctld_job *cj, json_t *op, struct sched_event *ev,
		       struct spur_error *err)
{
	uint32_t id = cj->id, n = sched_array_size(c->sched, id);
	struct sched_actions acts;
	size_t took = 0;

	for (uint32_t k = 0; k < n; k++) {
		struct sched_job_info info;

		if (!ctld_job_rec(c, id + k) || sched_job_info(c->sched, id + k, &info) ||
		    info.state != SCHED_JOB_PENDING)
			continue;
		ev->job_id = id + k;
		if (sched_step(c->sched, ev, &acts, err)) {
			if (!took)
				return err->code;
			spur_warn("job %u: %s", id + k, err->msg);
			continue;
		}
		took++;
	}
	ev->job_id = id;
	ev->array_rest = true;
	if (sched_array_rest_pending(c->sched, id)) {
		if (!sched_step(c->sched, ev, &acts, err))
			took++;
		else if (!took)
			return err->code;
	}
	if (!took)
		return spur_error_set(err, SPUR_ESTATE, "Job is no longer pending execution");
	if (!cj->extra_ops)
		cj->extra_ops = json_array();
	json_array_append(cj->extra_ops, op);
	return 0;
}

/* The accounting rows of array id's pending tasks with records. */
static void array_acct(struct ctld *c, uint32_t id)
{
	uint32_t n = sched_array_size(c->sched, id);

	for (uint32_t k = 0; k < n && id + k < c->jobs_cap; k++)
		if (c->jobs[id + k])
			ctld_acct_record(c, id + k);
}

static int apply_hold(struct ctld *c, json_t *op, bool hold, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct sched_event ev = { .type = hold ? SCHED_EV_HOLD : SCHED_EV_RELEASE,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .admin = spur_json_bool(op, "admin", 0),
				  /* a snapshot's hold of a job requeued held */
				  .requeue_held = (uint8_t)spur_json_int(op, "held_state", 0),
				  .defer_cycle = true };
	struct sched_actions acts;

	struct ctld_job *cj = ctld_job(c, id);

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (spur_json_bool(op, "array", 0)) {
		if (array_apply(c, cj, op, &ev, err))
			return err->code;
		array_acct(c, id);
		return 0;
	}
	if (sched_step(c->sched, &ev, &acts, err))
		return err->code == SPUR_ESTATE
			       ? spur_error_set(err, SPUR_ESTATE, "Job is no longer pending execution")
			       : err->code;
	json_decref(cj->hold_op);
	cj->hold_op = json_incref(op);
	ctld_acct_record(c, id);
	return 0;
}

/* scontrol requeue[hold]: the job is pending again; its next start is a new
 * run (the old run's result, if it comes, is ignored). */
static int apply_requeue(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	bool hold = spur_json_bool(op, "hold", 0);
	uint32_t run = (uint32_t)spur_json_int(op, "run", 0);
	struct sched_job_info now;
	struct sched_event ev = { .type = SCHED_EV_REQUEUE,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .admin = hold,
				  .requeue_held = (uint8_t)spur_json_int(op, "held_state", 0),
				  .defer_cycle = true };
	struct sched_actions acts;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (run > cj->runs)
		cj->runs = run; /* a snapshot: the run count survives */
	if (replay && (sched_job_info(c->sched, id, &now) || now.state == SCHED_JOB_PENDING ||
		       cj->runs > run))
		return 0; /* requeued already, or started again since */
	if (sched_step(c->sched, &ev, &acts, err))
		return err->code;
	free(cj->nodes);
	free(cj->gpus);
	cj->nodes = cj->gpus = NULL;
	cj->start = cj->end = 0;
	ctld_steps_clear(cj);
	cj->exit_code = 0;
	cj->launched = false;
	json_decref(cj->start_op);
	json_decref(cj->end_op);
	cj->start_op = cj->end_op = NULL;
	json_decref(cj->hold_op);
	cj->hold_op = hold ? json_pack("{s:s,s:i,s:I,s:b,s:i}", "op", "hold", "id", (int)id, "time",
				       (json_int_t)ev.time, "admin", 1, "held_state",
				       (int)ev.requeue_held)
			   : NULL;
	json_decref(cj->requeue_op);
	cj->requeue_op = json_incref(op);
	ctld_acct_record(c, id);
	return 0;
}

static bool state_by_name(const char *name, enum sched_job_state *out)
{
	for (int i = 0; strcmp(sched_job_state_name((enum sched_job_state)i), "?"); i++)
		if (!strcmp(sched_job_state_name((enum sched_job_state)i), name)) {
			*out = (enum sched_job_state)i;
			return true;
		}
	return false;
}

static enum sched_reason reason_by_name(const char *name)
{
	for (int i = 0; strcmp(sched_reason_name((enum sched_reason)i), "?"); i++)
		if (!strcmp(sched_reason_name((enum sched_reason)i), name))
			return (enum sched_reason)i;
	return SCHED_REASON_NONE;
}

/* A running job the controller stopped (preemption, a failed node or GPU):
 * {"op":"stop","id","time","run","state","reason","cause"}. Live, the core
 * has already stopped it (the op records what it did); in a replay the core
 * is told, with SCHED_EV_STOPPED. State PENDING: requeued, as apply_requeue;
 * PREEMPTED or NODE_FAIL: ended, as apply_end. */
static int apply_stop(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	uint32_t run = (uint32_t)spur_json_int(op, "run", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info now;
	struct sched_event ev = { .type = SCHED_EV_STOPPED,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .stop_reason = reason_by_name(spur_json_str(op, "reason", "")),
				  .defer_cycle = true };
	struct sched_actions acts;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "stop: unknown job %u", id);
	if (!state_by_name(spur_json_str(op, "state", ""), &ev.stop_state))
		return spur_error_set(err, SPUR_EINVAL, "stop: job %u: bad state '%s'", id,
				      spur_json_str(op, "state", ""));
	if (run > cj->runs)
		cj->runs = run; /* a snapshot: the run count survives */
	if (sched_job_info(c->sched, id, &now))
		return spur_error_set(err, SPUR_ENOENT, "stop: unknown job %u", id);
	if (now.state == SCHED_JOB_RUNNING && cj->runs == run) {
		if (sched_step(c->sched, &ev, &acts, err))
			return err->code;
	} else if (replay) {
		return 0; /* stopped already, or started again since */
	}
	if (ev.stop_state == SCHED_JOB_PENDING) {
		free(cj->nodes);
		free(cj->gpus);
		cj->nodes = cj->gpus = NULL;
		cj->start = cj->end = 0;
		ctld_steps_clear(cj);
		cj->exit_code = 0;
		cj->launched = false;
		json_decref(cj->start_op);
		json_decref(cj->end_op);
		cj->start_op = cj->end_op = NULL;
		json_decref(cj->requeue_op);
		cj->requeue_op = json_incref(op);
	} else {
		cj->end = ev.time;
		cj->exit_code = 0;
		if (ctld_job_interactive(cj))
			c->interactive_live--;
		if (cj->owner) {
			ctld_conn_send(cj->owner,
				       json_pack("{s:s,s:i}", "type", "revoked", "job_id", (int)id));
			cj->owner = NULL;
		}
		json_decref(cj->end_op);
		cj->end_op = json_incref(op);
		reply_waiter(c, cj);
	}
	ctld_acct_record(c, id);
	return 0;
}

/* The core stopped a running job (its actions PREEMPT, REQUEUE, or FAIL of a
 * job that ran): kill what runs of it, then log the stop. */
void ctld_stop_job(struct ctld *c, uint32_t id, const char *cause)
{
	struct ctld_job *cj = ctld_job(c, id);
	const json_t *alloc = cj && cj->start_op ? json_object_get(cj->start_op, "alloc") : NULL;
	struct sched_job_info info;
	struct spur_error err;
	uint32_t nodes[256];
	size_t n = 0, i;
	json_t *a, *op;

	if (!cj || sched_job_info(c->sched, id, &info))
		return;
	json_array_foreach(alloc, i, a)
		if (n < 256)
			nodes[n++] = (uint32_t)spur_json_int(a, "node", 0);
	ctld_signal_nodes(c, id, nodes, n, SIGKILL);
	spur_info("job %u: %s; %s", id, cause,
		  info.state == SCHED_JOB_PENDING ? "requeued" : sched_job_state_name(info.state));
	op = json_pack("{s:s,s:i,s:I,s:i,s:s,s:s,s:s}", "op", "stop", "id", (int)id, "time",
		       (json_int_t)ctld_now(), "run", (int)cj->runs, "state",
		       sched_job_state_name(info.state), "reason", sched_reason_name(info.reason),
		       "cause", cause);
	if (ctld_commit(c, op, NULL, NULL, &err))
		spur_error_log("job %u: %s", id, err.msg);
	json_decref(op);
}

/* A running job's new time limit to the agents of its nodes (the batch
 * host's supervisor holds it); an agent not connected gets none (it is
 * not there to enforce one). */
void ctld_limit_nodes(struct ctld *c, uint32_t id, const struct sched_job_info *info)
{
	ctld_send_job_nodes(c, info,
			    json_pack("{s:s,s:i,s:I,s:I}", "type", "limit", "job_id", (int)id,
				      "time_limit",
				      (json_int_t)(info->end_time == SCHED_INFINITE
							   ? 0
							   : info->end_time - info->start_time),
				      "over_time", (json_int_t)c->conf->over_time_limit * 60));
}

/* scontrol update Gres=: "gpu[:TYPE]:N", "shard:N" or "" into the event
 * (type borrowed from g). */
static int update_gres_event(const json_t *gres, struct sched_event *ev, struct spur_gres_list *g,
			     struct spur_error *err)
{
	const char *text = json_string_value(gres);

	ev->set_gres = true;
	if (!*text)
		return 0;
	if (spur_gres_parse(text, 0, g, err))
		return err->code;
	for (size_t i = 0; i < g->n; i++) {
		if (!strcmp(g->items[i].name, "gpu"))
			ev->gpus_per_node = (uint32_t)g->items[i].count;
		else if (!strcmp(g->items[i].name, "shard"))
			ev->shards_per_node = (uint32_t)g->items[i].count;
		else
			return spur_error_set(err, SPUR_EINVAL,
					      "Invalid generic resource (gres) specification: %s",
					      g->items[i].name);
		if (g->items[i].type[0])
			ev->gpu_type = g->items[i].type;
	}
	return 0;
}

/* The update event applied: to the job (or the array's tasks), its spec
 * changed in place, its accounting row, a running job's new limit to its
 * agents. */
static int apply_update_event(struct ctld *c, struct ctld_job *cj, json_t *op, const json_t *set,
			      struct sched_event *ev, struct spur_error *err)
{
	uint32_t id = cj->id;
	struct sched_actions acts;
	struct sched_job_info info;
	const char *k;
	json_t *v;

	if (spur_json_bool(op, "array", 0)) {
		/* the tasks share the array's spec: it changes for all (and so do
		 * the copies of those updated alone) */
		if (array_apply(c, cj, op, ev, err))
			return err->code;
		for (uint32_t t = id + 1; t < id + sched_array_size(c->sched, id) && t < c->jobs_cap; t++)
			if (c->jobs[t] && c->jobs[t]->own_spec)
				json_object_foreach((json_t *)set, k, v)
					json_object_set(c->jobs[t]->spec, k, v);
	} else {
		if (sched_step(c->sched, ev, &acts, err))
			return err->code;
		if (!sched_job_info(c->sched, id, &info) && info.array_job_id) {
			/* one task of an array: its own copy of the spec, and the op
			 * kept for snapshots (the submission's has the array's) */
			if (!cj->own_spec) {
				json_t *copy = json_deep_copy(cj->spec);

				if (copy) {
					json_decref(cj->spec);
					cj->spec = copy;
					cj->own_spec = true;
				}
			}
			if (!cj->extra_ops)
				cj->extra_ops = json_array();
			json_array_append(cj->extra_ops, op);
		}
	}
	json_object_foreach((json_t *)set, k, v)
		json_object_set(cj->spec, k, v);
	if (spur_json_bool(op, "array", 0))
		array_acct(c, id);
	else
		ctld_acct_record(c, id);
	if (!spur_json_bool(op, "array", 0) && json_object_get(set, "time_limit") &&
	    !sched_job_info(c->sched, id, &info) && info.state == SCHED_JOB_RUNNING)
		ctld_limit_nodes(c, id, &info);
	return 0;
}

/* scontrol update of a pending job: time limit, nice, name, partition,
 * account, QOS, dependency, features, node count, Gres, priority (of a
 * running one: its time limit, sent on to its agents). The job's accepted
 * spec is changed in place, so snapshots carry the new values. */
static int apply_update(struct ctld *c, json_t *op, struct spur_error *err)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	const json_t *set = json_object_get(op, "set");
	struct sched_event ev = { .type = SCHED_EV_UPDATE,
				  .time = spur_json_int(op, "time", 0),
				  .job_id = id,
				  .time_limit = spur_json_int(set, "time_limit", -1),
				  .set_nice = json_object_get(set, "nice") != NULL,
				  .nice = (int32_t)spur_json_int(set, "nice", 0),
				  .partitions = spur_json_str(set, "partition", NULL),
				  .account = spur_json_str(set, "account", NULL),
				  .qos = spur_json_str(set, "qos", NULL),
				  .dependency = spur_json_str(set, "dependency", NULL),
				  .constraint = spur_json_str(set, "constraint", NULL),
				  .nodes = (uint32_t)spur_json_int(set, "nodes", 0),
				  .set_priority = json_object_get(set, "priority") != NULL,
				  .priority = (uint32_t)spur_json_int(set, "priority", 0),
				  .defer_cycle = true };
	struct spur_gres_list g = { 0 };
	int rc;

	if (!cj)
		return spur_error_set(err, SPUR_ENOENT, "Invalid job id specified");
	if (!json_is_object(set))
		return spur_error_set(err, SPUR_EINVAL, "update: nothing to set");
	if (json_is_string(json_object_get(set, "gres")) &&
	    (rc = update_gres_event(json_object_get(set, "gres"), &ev, &g, err))) {
		spur_gres_fini(&g);
		return rc;
	}
	rc = apply_update_event(c, cj, op, set, &ev, err);
	spur_gres_fini(&g);
	return rc;
}

/* ---------------------------------------------------------------- purge */

static void job_free(struct ctld_job *cj)
{
	ctld_steps_clear(cj);
	json_decref(cj->spec);
	json_decref(cj->submit_op);
	json_decref(cj->rest_op);
	json_decref(cj->extra_ops);
	json_decref(cj->hold_op);
	json_decref(cj->start_op);
	json_decref(cj->end_op);
	json_decref(cj->requeue_op);
	json_decref(cj->susp_op);
	free(cj->nodes);
	free(cj->gpus);
	free(cj);
}


/* The tasks of the submission whose first job is cj, when every one has
 * ended (their latest end in *end); else 0. */
static uint32_t submission_ended(struct ctld *c, const struct ctld_job *cj, int64_t *end)
{
	uint32_t n = id_count(c, cj->id);

	*end = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct sched_job_info info;

		if (sched_job_info(c->sched, cj->id + k, &info) ||
		    info.state == SCHED_JOB_PENDING || info.state == SCHED_JOB_RUNNING)
			return 0;
		if (info.end_time > *end)
			*end = info.end_time;
	}
	return n;
}

/* A step's start or end: into the accounting; the job's next step number
 * goes past it on every controller (a new leader numbers on from there). */
static int apply_step(struct ctld *c, const json_t *op)
{
	struct ctld_job *cj = ctld_job(c, (uint32_t)spur_json_int(op, "id", 0));
	json_int_t step = spur_json_int(op, "step", -1);

	if (cj && step >= 0 && step <= UINT32_MAX)
		ctld_steps_seen(cj, (uint32_t)step);
	ctld_acct_step(c, op);
	return 0;
}

/* {"op":"purge","ids":[first job of each submission]}: forget them, every
 * task; accounting keeps their history. Replayed, what is gone is skipped. */
static int apply_purge(struct ctld *c, json_t *op, struct spur_error *err)
{
	const json_t *ids = json_object_get(op, "ids");
	size_t i;
	json_t *v;

	if (!json_is_array(ids))
		return spur_error_set(err, SPUR_EINVAL, "purge: no ids");
	json_array_foreach(ids, i, v) {
		uint32_t id = (uint32_t)json_integer_value(v), n;
		struct ctld_job *cj = ctld_job(c, id);
		int64_t end;

		if (!cj || !cj->submit_op || !(n = submission_ended(c, cj, &end)))
			continue;
		for (uint32_t k = 0; k < n; k++) {
			if (sched_job_purge(c->sched, id + k, err))
				spur_warn("purge: %s", err->msg);
			if (c->jobs[id + k])
				job_free(c->jobs[id + k]);
			c->jobs[id + k] = NULL;
		}
	}
	while (c->purge_low < c->next_id && c->purge_low < c->jobs_cap && !c->jobs[c->purge_low])
		c->purge_low++;
	return 0;
}

static void on_purge_timer(uv_timer_t *t)
{
	struct ctld *c = t->data;
	int64_t now = ctld_now(), age = c->conf->min_job_age;
	json_t *ids = json_array(), *op;
	struct spur_error err;

	if (!ids)
		return;
	for (uint32_t id = c->purge_low; id < c->next_id && id < c->jobs_cap; id++) {
		struct ctld_job *cj = c->jobs[id];
		int64_t end;

		if (cj && cj->submit_op && submission_ended(c, cj, &end) && end + age <= now &&
		    json_array_append_new(ids, json_integer(id)) == 0 && json_array_size(ids) >= 10000)
			break;
	}
	if (!json_array_size(ids)) {
		json_decref(ids);
		return;
	}
	op = json_pack("{s:s,s:I,s:o}", "op", "purge", "time", (json_int_t)now, "ids", ids);
	spur_debug("purging %zu submissions ended over %" PRId64 " s ago",
		   json_array_size(json_object_get(op, "ids")), age);
	if (op && ctld_commit(c, op, NULL, NULL, &err))
		spur_error_log("purge: %s", err.msg);
	json_decref(op);
}

/* Slurm's MinJobAge (default 300 s); 0 keeps ended jobs for good. Looked at
 * every half MinJobAge, at least each second, at most each minute. */
void ctld_purge_start(struct ctld *c)
{
	uint64_t every = c->conf->min_job_age / 2;

	if (!c->conf->min_job_age)
		return;
	every = every < 1 ? 1 : every > 60 ? 60 : every;
	uv_timer_init(c->loop, &c->purge_timer);
	c->purge_timer.data = c;
	uv_timer_start(&c->purge_timer, on_purge_timer, every * 1000, every * 1000);
}

int ctld_apply(struct ctld *c, json_t *op, bool replay, struct spur_error *err)
{
	const char *kind = spur_json_str(op, "op", "");
	int rc;

	if (!strcmp(kind, "hold") || !strcmp(kind, "release"))
		rc = apply_hold(c, op, !strcmp(kind, "hold"), err);
	else if (!strcmp(kind, "submit"))
		rc = apply_submit(c, op, replay, err);
	else if (!strcmp(kind, "start"))
		rc = apply_start(c, op, replay, err);
	else if (!strcmp(kind, "finish"))
		rc = apply_end(c, op, false, replay, err);
	else if (!strcmp(kind, "cancel") && spur_json_bool(op, "rest", 0))
		rc = apply_cancel_rest(c, op, replay, err);
	else if (!strcmp(kind, "cancel"))
		rc = apply_end(c, op, true, replay, err);
	else if (!strcmp(kind, "requeue"))
		rc = apply_requeue(c, op, replay, err);
	else if (!strcmp(kind, "update"))
		rc = apply_update(c, op, err);
	else if (!strcmp(kind, "purge"))
		rc = apply_purge(c, op, err);
	else if (!strcmp(kind, "stop"))
		rc = apply_stop(c, op, replay, err);
	else if (!strcmp(kind, "resv") || !strcmp(kind, "resv_del"))
		rc = ctld_apply_resv(c, op, !strcmp(kind, "resv_del"), err);
	else if (!strcmp(kind, "node_admin"))
		rc = ctld_apply_node_admin(c, op, err);
	else if (!strcmp(kind, "node_features"))
		rc = ctld_apply_node_features(c, op, err);
	else if (!strcmp(kind, "part_update"))
		rc = ctld_apply_part_update(c, op, err);
	else if (!strcmp(kind, "part_create"))
		rc = ctld_apply_part_create(c, op, err);
	else if (!strcmp(kind, "part_delete"))
		rc = ctld_apply_part_delete(c, op, err);
	else if (!strcmp(kind, "reconfig"))
		rc = ctld_apply_reconfig(c, op, err);
	else if (!strcmp(kind, "suspend") || !strcmp(kind, "resume"))
		rc = ctld_apply_suspend(c, op, replay, err);
	else if (!strcmp(kind, "assoc") || !strcmp(kind, "assoc_state"))
		rc = ctld_apply_assoc(c, op, err);
	else if (!strcmp(kind, "step")) /* accounting, and the job's step numbers */
		rc = apply_step(c, op);
	else if (!strcmp(kind, "step_limit")) { /* scontrol update StepId= TimeLimit= */
		ctld_acct_step_limit(c, op);
		rc = 0;
	}
	else
		return spur_error_set(err, SPUR_EINVAL, "unknown operation '%s'", kind);
	/* the order ops were applied in, for snapshots */
	if (!rc)
		json_object_set_new(op, "seq", json_integer((json_int_t)++c->op_seq));
	if (!rc && !strcmp(kind, "requeue")) {
		struct ctld_job *cj = ctld_job(c, (uint32_t)spur_json_int(op, "id", 0));

		if (cj && cj->hold_op)
			json_object_set_new(cj->hold_op, "seq", json_integer((json_int_t)c->op_seq));
	}
	return rc;
}

int ctld_commit(struct ctld *c, json_t *op, struct ctld_conn *cn, json_t *reply,
		struct spur_error *err)
{
	int rc = ctld_raft_room(c, op, err);

	if (!rc)
		rc = ctld_apply(c, op, false, err);
	if (rc) {
		json_decref(reply);
		return rc;
	}
	if (ctld_raft_propose(c, op, cn, reply, err)) {
		/* applied but not in the log: rebuild from the log */
		spur_error_log("%s; restarting from the log", err->msg);
		c->restart = true;
		uv_stop(c->loop);
		return SPUR_EIO;
	}
	return 0;
}

void ctld_owner_gone(struct ctld *c, struct ctld_job *cj)
{
	struct sched_job_info info;
	struct spur_error err;
	json_t *op;

	cj->owner = NULL;
	if (sched_job_info(c->sched, cj->id, &info) ||
	    (info.state != SCHED_JOB_PENDING && info.state != SCHED_JOB_RUNNING))
		return;
	spur_info("job %u: its allocation's owner is gone; ending it", cj->id);
	ctld_signal_job(c, cj->id, SIGKILL);
	op = json_pack("{s:s,s:i,s:I}", "op", "cancel", "id", (int)cj->id, "time",
		       (json_int_t)ctld_now());
	if (ctld_commit(c, op, NULL, NULL, &err))
		spur_error_log("job %u: %s", cj->id, err.msg);
	json_decref(op);
}

void ctld_committed(struct ctld *c, const json_t *op)
{
	uint32_t id = (uint32_t)spur_json_int(op, "id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;

	/* launch unless it ended (scancel) while the start was being committed */
	if (cj && !strcmp(spur_json_str(op, "op", ""), "start") &&
	    !sched_job_info(c->sched, id, &info) && info.state == SCHED_JOB_RUNNING &&
	    cj->start_op == op) {
		ctld_mail(c, cj, "Began");
		ctld_prolog_then_launch(c, cj, json_object_get(op, "alloc"));
	}
	if (cj && (!strcmp(spur_json_str(op, "op", ""), "finish") ||
		   !strcmp(spur_json_str(op, "op", ""), "cancel") ||
		   !strcmp(spur_json_str(op, "op", ""), "stop") ||
		   !strcmp(spur_json_str(op, "op", ""), "requeue")))
		ctld_mail_end(c, cj);
	/* a job that ran has ended: the controller's epilog */
	if (cj && cj->start && (!strcmp(spur_json_str(op, "op", ""), "finish") ||
				!strcmp(spur_json_str(op, "op", ""), "cancel")))
		ctld_epilog(c, cj);
}

/* ---------------------------------------------------------------- snapshot */

static int by_seq(const void *a, const void *b)
{
	json_int_t x = spur_json_int(*(json_t *const *)a, "seq", 0),
		   y = spur_json_int(*(json_t *const *)b, "seq", 0);

	return x < y ? -1 : x > y;
}

/* The ops that made each job what it is, in the order they were applied (a
 * sub-sequence of the log: times never go back, and a job's resources are
 * free again before the next one takes them). A release, and the hold of a
 * job that has started since, are left out. */
/* Add op to the list v (grown as needed); false when out of memory. */
static bool push_op(json_t ***v, size_t *n, size_t *cap, json_t *op)
{
	if (!op)
		return true;
	if (spur_grow((void **)v, cap, *n + 1, sizeof(**v)))
		return false;
	(*v)[(*n)++] = op;
	return true;
}

json_t *ctld_state_ops(struct ctld *c)
{
	json_t **v = NULL;
	json_t *ops = json_array(), *r;
	size_t n = 0, cap = 0, k;
	bool ok = ops != NULL;

	/* the reservations before the jobs that name them (by seq, as applied) */
	json_array_foreach(c->resv_ops, k, r)
		ok = ok && push_op(&v, &n, &cap, r);
	for (size_t i = 1; ok && i < c->jobs_cap; i++) {
		struct ctld_job *cj = c->jobs[i];

		if (!cj)
			continue;
		ok = push_op(&v, &n, &cap, cj->submit_op) && push_op(&v, &n, &cap, cj->requeue_op);
		if (cj->hold_op && !cj->start_op && !cj->end_op &&
		    !strcmp(spur_json_str(cj->hold_op, "op", ""), "hold"))
			ok = ok && push_op(&v, &n, &cap, cj->hold_op);
		ok = ok && push_op(&v, &n, &cap, cj->start_op) && push_op(&v, &n, &cap, cj->end_op) &&
		     push_op(&v, &n, &cap, cj->rest_op) && push_op(&v, &n, &cap, cj->susp_op);
		json_array_foreach(cj->extra_ops, k, r)
			ok = ok && push_op(&v, &n, &cap, r);
	}
	if (!ok) {
		json_decref(ops);
		spur_free(v);
		return NULL;
	}
	qsort(v, n, sizeof(*v), by_seq);
	/* accounts and QOS before every job that names them */
	if ((r = ctld_assoc_state_op(c)))
		json_array_append_new(ops, r);
	if ((r = ctld_node_admin_state_op(c)))
		json_array_append_new(ops, r);
	if ((r = ctld_node_features_state_op(c)))
		json_array_append_new(ops, r);
	if ((r = ctld_reconf_state_op(c))) /* slurm.conf's live keys as last read */
		json_array_append_new(ops, r);
	ctld_part_state_ops(c, ops); /* before the jobs: their partitions' states */
	for (size_t i = 0; i < n; i++)
		json_array_append(ops, v[i]);
	spur_free(v);
	ctld_part_state_tail_ops(c, ops); /* deletes after their ended jobs */
	return json_pack("{s:i,s:I,s:o}", "version", 1, "next_id", (json_int_t)c->next_id, "ops",
			 ops);
}

void ctld_jobs_free(struct ctld *c)
{
	c->interactive_live = 0;
	c->nlimit_mail = 0; /* the ids go with the jobs (the array is kept) */
	for (size_t i = 0; i < c->jobs_cap; i++) {
		if (c->jobs[i])
			job_free(c->jobs[i]);
		c->jobs[i] = NULL;
	}
	c->purge_low = 0;
}

static bool any_admin(const struct ctld *c)
{
	for (size_t i = 0; i < c->conf->nnodes; i++)
		if (c->node_admin[i])
			return true;
	return false;
}

int ctld_state_restore(struct ctld *c, const json_t *doc, struct spur_error *err)
{
	const json_t *ops = json_object_get(doc, "ops");
	size_t i;
	json_t *op;

	if (spur_json_int(doc, "version", 0) != 1 || !json_is_array(ops))
		return spur_error_set(err, SPUR_EINVAL, "not a version 1 snapshot");
	/* a follower that is far behind drops what it has */
	if (c->next_id > (c->conf->first_job_id ? c->conf->first_job_id : 1) ||
	    json_array_size(c->resv_ops) || c->assoc || any_admin(c) || ctld_part_changed(c) ||
	    json_object_size(c->node_feat_orig)) {
		ctld_jobs_free(c);
		ctld_part_reset(c);
		ctld_node_features_reset(c);
		json_array_clear(c->resv_ops);
		ctld_assoc_clear(c);
		for (size_t n = 0; n < c->conf->nnodes; n++)
			if (c->node_admin[n]) { /* the snapshot says which are */
				c->node_admin[n] = CTLD_ADMIN_NONE;
				c->node_reason[n][0] = '\0';
			}
		c->next_id = c->conf->first_job_id ? c->conf->first_job_id : 1;
		sched_destroy(c->sched);
		c->sched = NULL;
		if (ctld_build_core(c, err))
			return err->code;
	}
	json_array_foreach(ops, i, op) {
		spur_debug("snapshot op %zu: %s %" PRId64, i, spur_json_str(op, "op", "?"),
			   spur_json_int(op, "id", 0));
		if (ctld_apply(c, op, true, err))
			spur_warn("snapshot op %zu (%s): %s", i, spur_json_str(op, "op", "?"), err->msg);
	}
	if ((uint32_t)spur_json_int(doc, "next_id", 0) > c->next_id)
		c->next_id = (uint32_t)spur_json_int(doc, "next_id", 0);
	spur_info("restored %zu operations from a snapshot", json_array_size(ops));
	return 0;
}

/* ---------------------------------------------------------------- cycle */

static void on_timer(uv_timer_t *t)
{
	ctld_run_cycle(t->data);
}

void ctld_cycle_soon(struct ctld *c)
{
	/* the cycle's own wake-up timer, due now: every request read in this
	 * turn of the loop is in before it runs */
	c->timer.data = c;
	uv_timer_start(&c->timer, on_timer, 0, 0);
}

/* Interactive jobs have no supervisor to keep their time limit: end those
 * past it (TIMEOUT, steps killed, the owner told); the earliest limit still
 * ahead wakes the next cycle. */
/* srun/salloc --immediate: an allocation the cycle did not start fails
 * (FAILED, BadConstraints) and its owner hears Slurm's reason. */
static void immediate_fail(struct ctld *c, struct ctld_job *cj, const struct sched_job_info *info,
			   int64_t now)
{
	bool waits = info->reason == SCHED_REASON_HELD_USER ||
		     info->reason == SCHED_REASON_HELD_ADMIN ||
		     info->reason == SCHED_REASON_DEPENDENCY ||
		     info->reason == SCHED_REASON_DEPENDENCY_NEVER ||
		     info->reason == SCHED_REASON_BEGIN_TIME;
	struct ctld_conn *owner = cj->owner;
	struct spur_error err;
	json_t *op, *msg = NULL;

	/* said when the cancel is committed: after the submit's reply */
	if (owner)
		msg = json_pack("{s:s,s:i,s:s,s:b}", "type", "error", "code", SPUR_ESTATE, "message",
				waits ? "Job dependency problem"
				      : "Immediate execution impossible, insufficient priority",
				"revoked", 1);
	cj->owner = NULL;
	op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "cancel", "id", (int)cj->id, "time",
		       (json_int_t)now, "exit", 1, "failed", 1);
	if (ctld_commit(c, op, owner, msg, &err))
		spur_error_log("job %u: %s", cj->id, err.msg);
	json_decref(op);
}

/* Interactive allocations after a cycle: those at their time limit end
 * (nothing on the nodes ends them), --immediate ones not started fail. */
static int64_t interactive_limits(struct ctld *c, int64_t now, int64_t wake)
{
	/* the scan is for clusters that have some: not on every batch cycle */
	for (size_t i = 1; c->interactive_live && i < c->jobs_cap; i++) {
		struct ctld_job *cj = c->jobs[i];
		struct sched_job_info info;
		struct spur_error err;
		json_t *op;

		if (!cj || !ctld_job_interactive(cj) || sched_job_info(c->sched, cj->id, &info))
			continue;
		if (info.state == SCHED_JOB_PENDING && spur_json_int(cj->spec, "immediate", 0) == 1)
			immediate_fail(c, cj, &info, now);
		if (info.state != SCHED_JOB_RUNNING || info.end_time == SCHED_INFINITE)
			continue;
		if (info.end_time > now) {
			if (info.end_time < wake)
				wake = info.end_time;
			continue;
		}
		spur_info("job %u: time limit reached (interactive)", cj->id);
		ctld_limit_signal(c, cj->id);
		op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "finish", "id", (int)cj->id, "time",
			       (json_int_t)now, "exit", 0, "timeout", 1);
		if (ctld_commit(c, op, NULL, NULL, &err))
			spur_error_log("job %u: %s", cj->id, err.msg);
		json_decref(op);
	}
	return wake;
}

/* One scheduling cycle now: each START becomes a logged op, then a launch;
 * the earliest TIMER re-arms the loop's timer. */
int ctld_run_cycle(struct ctld *c)
{
	struct sched_event ev = { .type = SCHED_EV_TICK, .time = ctld_now() };
	struct sched_actions acts;
	struct spur_error err;
	int64_t wake = ev.time + 60;
	uint64_t t0 = uv_hrtime(), us;

	/* a start that cannot be logged is not made (the full disk's leader
	 * is handing over; the next leader schedules) */
	if (ctld_raft_room(c, NULL, NULL))
		return 0;
	if (sched_step(c->sched, &ev, &acts, &err)) {
		spur_error_log("scheduling cycle: %s", err.msg);
		return err.code;
	}
	us = (uv_hrtime() - t0) / 1000;
	c->stats.cycles++;
	c->stats.cycle_us_last = us;
	c->stats.cycle_us_total += us;
	if (us > c->stats.cycle_us_max)
		c->stats.cycle_us_max = us;
	{
		struct sched_cycle_stats cs;

		sched_last_cycle(c->sched, &cs);
		c->stats.started += cs.started;
		c->stats.backfilled += cs.backfilled;
		c->stats.depth_last = cs.pending_seen;
		c->stats.depth_total += cs.pending_seen;
	}
	for (size_t i = 0; i < acts.n; i++) {
		const struct sched_action *a = &acts.v[i];

		if (a->type == SCHED_ACT_START) {
			struct ctld_job *sj = ctld_job(c, a->job_id);
			json_t *op = json_pack("{s:s,s:i,s:I,s:I,s:o,s:i}", "op", "start", "id",
					       (int)a->job_id, "time", (json_int_t)ev.time, "end",
					       (json_int_t)(a->time == SCHED_INFINITE ? 0 : a->time),
					       "alloc", alloc_json(a), "run",
					       (int)(sj ? sj->runs + 1 : 1));

			/* the core has started it; the launch waits for the commit */
			if (ctld_apply(c, op, false, &err) ||
			    ctld_raft_propose(c, op, NULL, NULL, &err)) {
				spur_error_log("job %u: %s; restarting from the log", a->job_id,
					       err.msg);
				c->restart = true;
				uv_stop(c->loop);
			}
			json_decref(op);
		} else if (a->type == SCHED_ACT_PREEMPT) {
			ctld_stop_job(c, a->job_id, "preempted");
		} else if (a->type == SCHED_ACT_FAIL && ctld_job(c, a->job_id) &&
			   ctld_job(c, a->job_id)->start_op) {
			ctld_stop_job(c, a->job_id, "its node failed");
		} else if (a->type == SCHED_ACT_FAIL) {
			struct ctld_job *cj = ctld_job(c, a->job_id);

			if (cj) {
				reply_waiter(c, cj);
				ctld_acct_record(c, a->job_id); /* sacct agrees (DEADLINE...) */
				if (ctld_raft_ready(c))
				{
					if (a->reason == SCHED_REASON_DEPENDENCY_NEVER)
						ctld_mail(c, cj, "Invalid dependency");
					else
						ctld_mail_end(c, cj);
				}
			}
			if (cj && cj->owner) {
				ctld_conn_send(cj->owner, json_pack("{s:s,s:i,s:s}", "type", "error",
								    "code", SPUR_ESTATE, "message",
								    "Job allocation can never run"));
				cj->owner = NULL;
			}
		} else if (a->type == SCHED_ACT_TIMER && a->time < wake) {
			wake = a->time;
		}
	}
	wake = interactive_limits(c, ev.time, wake);
	if (c->nlimit_mail && ctld_raft_ready(c))
		wake = ctld_mail_limits(c, ev.time, wake);
	wake = ctld_resv_tick(c, ev.time, wake);
	c->timer.data = c;
	uv_timer_start(&c->timer, on_timer, (uint64_t)(wake > ev.time ? wake - ev.time : 1) * 1000,
		       0);
	return 0;
}
