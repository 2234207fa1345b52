/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_conf: typed interpretation of slurm.conf, gres.conf and
 * topology.conf lines (see docs/rfc/0001-config.md). */
#include "conf.h"

#include "alloc.h"
#include "conf_lex.h"
#include "hostlist.h"
#include "size.h"
#include "timefmt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

#define ORIGIN_FMT "%s:%d: "
#define ORIGIN_ARGS(l) (l)->file, (l)->lineno

static int add_warning(struct spur_conf *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_warning(struct spur_conf *c, const char *fmt, ...)
{
	va_list ap;
	char *w;

	if (spur_grow((void **)&c->warnings, &c->warnings_cap, c->nwarnings + 1, sizeof(char *)))
		return SPUR_ENOMEM;
	va_start(ap, fmt);
	w = spur_vasprintf(fmt, ap);
	va_end(ap);
	if (!w)
		return SPUR_ENOMEM;
	c->warnings[c->nwarnings++] = w;
	return 0;
}

/* A Slurm key Spur takes without acting on it: listed, never silent. */
static int add_unacted(struct spur_conf *c, const struct spur_conf_line *l, const char *key,
		       const char *value)
{
	size_t vl = strlen(value);
	char *w;

	/* spurd runs as root */
	if (!strcasecmp(key, "SlurmdUser") && (!strcmp(value, "root") || !strcmp(value, "0")))
		return 0;
	/* asking for nothing (0, no, none, plugin/none) is what Spur does */
	if (!vl || !strcmp(value, "0") || !strcasecmp(value, "none") || !strcasecmp(value, "no") ||
	    (vl > 5 && !strcasecmp(value + vl - 5, "/none")))
		return 0;
	w = spur_asprintf(ORIGIN_FMT "%s=%s: accepted but not acted on by Spur", ORIGIN_ARGS(l),
			  key, value);

	if (!w || spur_grow((void **)&c->unacted, &c->unacted_cap, c->nunacted + 1, sizeof(char *))) {
		spur_free(w);
		return -1;
	}
	c->unacted[c->nunacted++] = w;
	return 0;
}

/* Replace *dst with a copy of src. */
static int set_str(char **dst, const char *src)
{
	char *copy = spur_strdup(src);

	if (!copy)
		return SPUR_ENOMEM;
	spur_free(*dst);
	*dst = copy;
	return 0;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcmp(s, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int bad_value(struct spur_error *err, const struct spur_conf_line *l, const char *key,
		     const char *value, const char *why)
{
	return spur_error_set(err, SPUR_EINVAL, ORIGIN_FMT "%s=%s: %s", ORIGIN_ARGS(l), key, value,
			      why);
}

static int oom(struct spur_error *err)
{
	return spur_error_set(err, SPUR_ENOMEM, "config: out of memory");
}

/* bad_value with the reason from an inner call; out of memory stays so. */
static int bad_inner(struct spur_error *err, const struct spur_conf_line *l, const char *key,
		     const char *value, const struct spur_error *inner)
{
	if (inner->code == SPUR_ENOMEM)
		return oom(err);
	return bad_value(err, l, key, value, spur_error_text(inner));
}

static bool key_in(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(key, *list))
			return true;
	return false;
}

/* ---------------------------------------------------------------- name index */

/* Open-addressing index of node names → position in conf->nodes. */
struct name_index {
	long *slots;
	size_t cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static long index_find(const struct name_index *ix, const struct spur_conf *c, const char *name)
{
	if (!ix->cap)
		return -1;
	for (size_t i = hash_str(name) & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
		if (ix->slots[i] < 0)
			return -1;
		if (!strcmp(c->nodes[ix->slots[i]].name, name))
			return ix->slots[i];
	}
}

static int index_add(struct name_index *ix, const struct spur_conf *c, long pos)
{
	if ((size_t)pos * 2 + 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 64;
		long *ns = spur_malloc(ncap * sizeof(long));

		if (!ns)
			return SPUR_ENOMEM;
		for (size_t i = 0; i < ncap; i++)
			ns[i] = -1;
		for (long p = 0; p < pos; p++) {
			size_t i = hash_str(c->nodes[p].name) & (ncap - 1);

			while (ns[i] >= 0)
				i = (i + 1) & (ncap - 1);
			ns[i] = p;
		}
		spur_free(ix->slots);
		ix->slots = ns;
		ix->cap = ncap;
	}
	size_t i = hash_str(c->nodes[pos].name) & (ix->cap - 1);

	while (ix->slots[i] >= 0)
		i = (i + 1) & (ix->cap - 1);
	ix->slots[i] = pos;
	return 0;
}

/* ---------------------------------------------------------------- loader */

struct nodeset {
	char *name, *nodes_expr, *feature;
	size_t line; /* index into doc.lines */
};

struct loader {
	struct spur_conf *conf;
	struct spur_conf_doc doc;
	struct name_index ix;
	/* indexes into doc.lines, which moves as later files are lexed */
	size_t *node_defaults; /* NodeName=DEFAULT lines */
	size_t nnode_defaults, node_defaults_cap;
	size_t *part_defaults;
	size_t npart_defaults, part_defaults_cap;
	size_t *down_lines;
	size_t ndown, down_cap;
	struct nodeset *nodesets;
	size_t nnodesets, nodesets_cap;
	bool ctld_from_file;
};

static void loader_fini(struct loader *ld)
{
	spur_conf_doc_fini(&ld->doc);
	spur_free(ld->ix.slots);
	spur_free(ld->node_defaults);
	spur_free(ld->part_defaults);
	spur_free(ld->down_lines);
	for (size_t i = 0; i < ld->nnodesets; i++) {
		spur_free(ld->nodesets[i].name);
		spur_free(ld->nodesets[i].nodes_expr);
		spur_free(ld->nodesets[i].feature);
	}
	spur_free(ld->nodesets);
}

static const struct spur_conf_line *ld_line(const struct loader *ld, size_t i)
{
	return &ld->doc.lines[i];
}

static size_t line_index(const struct loader *ld, const struct spur_conf_line *l)
{
	return (size_t)(l - ld->doc.lines);
}

static int push_line(const struct loader *ld, size_t **arr, size_t *n, size_t *cap,
		     const struct spur_conf_line *l)
{
	if (spur_grow((void **)arr, cap, *n + 1, sizeof(**arr)))
		return SPUR_ENOMEM;
	(*arr)[(*n)++] = line_index(ld, l);
	return 0;
}

/* ---------------------------------------------------------------- globals */

enum key_type { K_STR, K_U16, K_U32, K_BOOL, K_DUR, K_MEM, K_LOG, K_PORT, K_SCHED };

static const struct keydef {
	const char *name;
	enum key_type type;
	size_t off;
} global_keys[] = {
#define KD(n, t, f) { n, t, offsetof(struct spur_conf, f) }
	KD("ClusterName", K_STR, cluster_name),
	KD("SlurmctldPort", K_PORT, ctld_port),
	KD("SlurmdPort", K_PORT, agent_port),
	KD("StateSaveLocation", K_STR, state_dir),
	KD("SlurmdSpoolDir", K_STR, spool_dir),
	KD("SlurmctldLogFile", K_STR, ctld_log_file),
	KD("SlurmdLogFile", K_STR, agent_log_file),
	KD("SlurmctldDebug", K_LOG, ctld_debug),
	KD("SlurmdDebug", K_LOG, agent_debug),
	KD("SlurmUser", K_STR, slurm_user),
	KD("Prolog", K_STR, prolog),
	KD("Epilog", K_STR, epilog),
	KD("MpiDefault", K_STR, mpi_default),
	KD("HealthCheckProgram", K_STR, health_program),
	KD("HealthCheckNodeState", K_STR, health_states),
	KD("HealthCheckInterval", K_U32, health_interval),
	KD("TaskProlog", K_STR, task_prolog),
	KD("TaskEpilog", K_STR, task_epilog),
	KD("PrologSlurmctld", K_STR, prolog_slurmctld),
	KD("EpilogSlurmctld", K_STR, epilog_slurmctld),
	KD("MailProg", K_STR, mail_prog),
	KD("MailDomain", K_STR, mail_domain),
	KD("PropagateResourceLimits", K_STR, propagate_limits),
	KD("PropagateResourceLimitsExcept", K_STR, propagate_except),
	KD("DisableRootJobs", K_BOOL, disable_root_jobs),
	KD("SchedulerType", K_STR, scheduler_type),
	KD("SchedulerParameters", K_SCHED, scheduler_params),
	KD("SelectType", K_STR, select_type),
	KD("SelectTypeParameters", K_STR, select_type_params),
	KD("GresTypes", K_STR, gres_types),
	KD("PriorityType", K_STR, priority_type),
	KD("PreemptType", K_STR, preempt_type),
	KD("PreemptMode", K_STR, preempt_mode),
	KD("TopologyPlugin", K_STR, topology_plugin),
	KD("PriorityWeightAge", K_U32, priority_weight_age),
	KD("PriorityWeightFairshare", K_U32, priority_weight_fairshare),
	KD("PriorityWeightJobSize", K_U32, priority_weight_job_size),
	KD("PriorityWeightPartition", K_U32, priority_weight_partition),
	KD("PriorityWeightQOS", K_U32, priority_weight_qos),
	KD("PriorityWeightAssoc", K_U32, priority_weight_assoc),
	KD("PriorityDecayHalfLife", K_DUR, priority_decay_half_life),
	KD("PriorityMaxAge", K_DUR, priority_max_age),
	KD("PriorityFavorSmall", K_BOOL, priority_favor_small),
	KD("DefMemPerCPU", K_MEM, def_mem_per_cpu_mb),
	KD("DefMemPerGPU", K_MEM, def_mem_per_gpu_mb),
	KD("DefMemPerNode", K_MEM, def_mem_per_node_mb),
	KD("DefCpuPerGPU", K_U32, def_cpu_per_gpu),
	KD("Licenses", K_STR, licenses),
	KD("MaxJobCount", K_U32, max_job_count),
	KD("MaxArraySize", K_U32, max_array_size),
	KD("FirstJobId", K_U32, first_job_id),
	KD("ReturnToService", K_U32, return_to_service),
	KD("MinJobAge", K_U32, min_job_age),
	KD("KillWait", K_U32, kill_wait),
	KD("SlurmdTimeout", K_U32, slurmd_timeout),
	KD("MessageTimeout", K_U32, message_timeout),
	KD("InactiveLimit", K_U32, inactive_limit),
	KD("Waittime", K_U32, wait_time),
	KD("OverTimeLimit", K_U32, over_time_limit),
	KD("SpurRestPort", K_PORT, rest_port),
	KD("SpurRaftPort", K_PORT, raft_port),
	KD("SpurGpuBackend", K_STR, gpu_backend),
	KD("SpurFakeGpuFile", K_STR, fake_gpu_file),
	KD("SpurContainerRuntime", K_STR, container_runtime),
	KD("SpurImageStore", K_STR, image_store),
	KD("SpurCdiSpecDirs", K_STR, cdi_spec_dirs),
#undef KD
};

/* Of the keys below, those read where they are used (the rest are listed
 * as accepted but not acted on). */
static const char *const acted_extra_keys[] = {
	"JobSubmitPlugins", "LaunchParameters", "AuthAltParameters", "AuthAltTypes",
	"PlugStackConfig", "DependencyParameters", "AccountingStorageEnforce", NULL,
};

/* Keys of the global table whose values Spur keeps without acting on them. */
static const char *const stored_unacted_keys[] = {
	"InactiveLimit",
	"WaitTime", "ReturnToService", "PriorityWeightAssoc", NULL,
};

/* Plugin choices: Spur does the one named; another is not acted on. */
static const struct {
	const char *key, *value;
} own_plugins[] = {
	{ "SchedulerType", "sched/backfill" },
	{ "SelectType", "select/cons_tres" },
	{ "PriorityType", "priority/multifactor" },
	/* CPUs and memory are what Spur's scheduler counts out (cores,
	 * sockets and boards are not units of its allocation) */
	{ "SelectTypeParameters", "CR_CPU_Memory" },
};

/* Slurm keys Spur understands as valid but does not act on (yet). */
static const char *const known_slurm_keys[] = {
	"AccountingStorageEnforce", "AccountingStorageHost", "AccountingStoragePass",
	"AccountingStoragePort", "AccountingStorageTRES", "AccountingStorageType",
	"AccountingStorageUser", "AccountingStoreFlags", "AcctGatherEnergyType",
	"AcctGatherFilesystemType", "AcctGatherInterconnectType", "AcctGatherNodeFreq",
	"AcctGatherProfileType", "AuthAltParameters", "AuthAltTypes", "AuthInfo", "AuthType",
	"BatchStartTimeout", "BurstBufferType", "CliFilterPlugins", "CommunicationParameters",
	"CompleteWait", "CoreSpecPlugin", "CpuFreqDef", "CpuFreqGovernors", "CredType",
	"DebugFlags", "DependencyParameters", "EioTimeout",
	"EnforcePartLimits", "EpilogMsgTime", "FairShareDampeningFactor",
	"FederationParameters", "GetEnvTimeout", "GpuFreqDef", "GroupUpdateForce",
	"GroupUpdateTime",
	"InteractiveStepOptions", "JobAcctGatherFrequency", "JobAcctGatherParams",
	"JobAcctGatherType", "JobCompHost", "JobCompLoc", "JobCompPass", "JobCompPort",
	"JobCompType", "JobCompUser", "JobContainerType", "JobFileAppend", "JobRequeue",
	"JobSubmitPlugins", "KeepAliveTime", "KillOnBadExit", "LaunchParameters",
	"LaunchType", "LogTimeFormat", "MaxDBDMsgs",
	"MaxMemPerCPU", "MaxMemPerNode", "MaxNodeCount", "MaxStepCount", "MaxTasksPerNode",
	"MCSParameters", "MCSPlugin", "MinJobAge", "MpiParams",
	"NodeFeaturesPlugins", "OverTimeLimit", "PluginDir", "PlugStackConfig",
	"PowerParameters", "PowerPlugin", "PreemptExemptTime", "PrEpParameters",
	"PrEpPlugins", "PriorityCalcPeriod", "PriorityFlags", "PriorityParameters",
	"PrioritySiteFactorParameters", "PrioritySiteFactorPlugin", "PriorityUsageResetPeriod",
	"PriorityWeightTRES", "PrivateData", "ProctrackType", "PrologEpilogTimeout",
	"PrologFlags", "PropagatePrioProcess", "RebootProgram", "ReconfigFlags", "RequeueExit",
	"RequeueExitHold", "ResumeFailProgram", "ResumeProgram", "ResumeRate", "ResumeTimeout",
	"ResvEpilog", "ResvOverRun", "ResvProlog", "RoutePlugin",
	"SchedulerTimeSlice", "ScronParameters", "SlurmctldAddr", "SlurmctldParameters",
	"SlurmctldPidFile", "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg",
	"SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmdParameters", "SlurmdPidFile",
	"SlurmdSyslogDebug", "SlurmdUser", "SlurmSchedLogFile", "SlurmSchedLogLevel",
	"SrunEpilog", "SrunPortRange", "SrunProlog", "SuspendExcNodes", "SuspendExcParts",
	"SuspendProgram", "SuspendRate", "SuspendTime", "SuspendTimeout", "SwitchParameters",
	"SwitchType", "TaskPlugin", "TaskPluginParam",
	"TCPTimeout", "TmpFS", "TopologyParam", "TrackWCKey", "TreeWidth", "UnkillableStepProgram",
	"UnkillableStepTimeout", "UsePAM", "VSizeFactor", "X11Parameters",
	"AccountingStorageExternalHost", "JobCompParams", "SlurmdLogFile", NULL,
};

int spur_conf_daemon_check(const struct spur_conf *conf, struct spur_error *err)
{
	static const struct {
		const char *key, *what;
	} refused[] = {
		{ "PlugStackConfig", "SPANK plugins" },
	};

	for (size_t i = 0; i < conf->nextra; i++)
		for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			if (!strcasecmp(conf->extra[i].key, refused[k].key) && *conf->extra[i].value)
				return spur_error_set(err, SPUR_EINVAL,
						      "%s=%s: %s are not supported by Spur",
						      refused[k].key, conf->extra[i].value,
						      refused[k].what);
	return 0;
}

static int add_ctld(struct spur_conf *c, const char *value, const struct spur_conf_line *l,
		    struct spur_error *err)
{
	const char *open = strchr(value, '(');
	struct spur_conf_ctld ct = { 0 };
	size_t cap = c->nctlds;

	if (!*value || (open && (open == value || value[strlen(value) - 1] != ')')))
		return bad_value(err, l, "SlurmctldHost", value, "expected NAME or NAME(ADDRESS)");
	ct.name = open ? spur_strndup(value, (size_t)(open - value)) : spur_strdup(value);
	ct.addr = open ? spur_strndup(open + 1, strlen(open + 1) - 1) : spur_strdup(value);
	if (ct.addr && strchr(ct.addr, ':') == strrchr(ct.addr, ':') && strchr(ct.addr, ':')) {
		/* NAME(ADDR:PORT): one ':' only, so an IPv6 address is left whole */
		char *colon = strchr(ct.addr, ':'), *end;
		unsigned long port = strtoul(colon + 1, &end, 10);

		if (*end || !port || port > 65535 || colon == ct.addr) {
			spur_free(ct.name);
			spur_free(ct.addr);
			return bad_value(err, l, "SlurmctldHost", value,
					 "expected NAME, NAME(ADDRESS) or NAME(ADDRESS:PORT)");
		}
		*colon = '\0';
		ct.port = (uint16_t)port;
	}
	if (!ct.name || !ct.addr ||
	    spur_grow((void **)&c->ctlds, &cap, c->nctlds + 1, sizeof(ct))) {
		spur_free(ct.name);
		spur_free(ct.addr);
		return oom(err);
	}
	c->ctlds[c->nctlds++] = ct;
	return 0;
}

static void clear_ctlds(struct spur_conf *c)
{
	for (size_t i = 0; i < c->nctlds; i++) {
		spur_free(c->ctlds[i].name);
		spur_free(c->ctlds[i].addr);
	}
	c->nctlds = 0;
}

/* SchedulerParameters: the options Spur acts on set their fields; any
 * other is a warning that names it (not supported, no effect). */
static const struct {
	const char *name;
	size_t off;
	uint64_t min, max;
} sched_opts[] = {
	{ "max_script_size", offsetof(struct spur_conf, max_script_size), 1, 512u << 20 },
	{ "default_queue_depth", offsetof(struct spur_conf, default_queue_depth), 1, 1000000 },
	{ "bf_max_job_test", offsetof(struct spur_conf, bf_max_job_test), 1, 1000000 },
};

static int set_sched_params(struct spur_conf *c, const struct spur_conf_line *l,
			    const char *value, struct spur_error *err)
{
	char item[256];

	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ","), i, nopts = sizeof(sched_opts) / sizeof(sched_opts[0]);
		const char *eq;
		uint64_t u;

		snprintf(item, sizeof(item), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
		if (!*item)
			continue;
		eq = strchr(item, '=');
		for (i = 0; i < nopts; i++)
			if (eq && strlen(sched_opts[i].name) == (size_t)(eq - item) &&
			    !strncmp(item, sched_opts[i].name, (size_t)(eq - item)))
				break;
		if (i == nopts) {
			if (add_warning(c, ORIGIN_FMT "SchedulerParameters: '%s' not supported, ignored",
					ORIGIN_ARGS(l), item))
				return oom(err);
			continue;
		}
		if (parse_u64(eq + 1, sched_opts[i].max, &u) || u < sched_opts[i].min)
			return bad_value(err, l, "SchedulerParameters", item,
					 "expected a whole number in range");
		*(uint32_t *)((char *)c + sched_opts[i].off) = (uint32_t)u;
	}
	return set_str(&c->scheduler_params, value) ? oom(err) : 0;
}

static int set_global_key(struct loader *ld, const struct spur_conf_line *l,
			  const struct spur_conf_pair *p, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	char *base = (char *)c;
	uint64_t u;

	if (!strcasecmp(p->key, "SlurmctldHost") || !strcasecmp(p->key, "ControlMachine") ||
	    !strcasecmp(p->key, "BackupController")) {
		if (!ld->ctld_from_file)
			clear_ctlds(c);
		ld->ctld_from_file = true;
		return add_ctld(c, p->value, l, err);
	}
	if (!strcasecmp(p->key, "ControlAddr") && c->nctlds) {
		return set_str(&c->ctlds[0].addr, p->value) ? oom(err) : 0;
	}
	for (size_t i = 0; i < sizeof(global_keys) / sizeof(global_keys[0]); i++) {
		const struct keydef *k = &global_keys[i];
		void *dst = base + k->off;

		if (strcasecmp(p->key, k->name))
			continue;
		switch (k->type) {
		case K_STR:
			return set_str((char **)dst, p->value) ? oom(err) : 0;
		case K_SCHED:
			return set_sched_params(c, l, p->value, err);
		case K_U16:
		case K_PORT: {
			char *dash = strchr(p->value, '-');
			char first[16];

			/* SlurmctldPort may be a range; the first port is ours */
			snprintf(first, sizeof(first), "%.*s",
				 dash ? (int)(dash - p->value) : (int)strlen(p->value), p->value);
			if (parse_u64(first, 65535, &u) || u == 0)
				return bad_value(err, l, k->name, p->value,
						 "expected a port number 1-65535");
			*(uint16_t *)dst = (uint16_t)u;
			return 0;
		}
		case K_U32:
			if (parse_u64(p->value, UINT32_MAX - 1, &u))
				return bad_value(err, l, k->name, p->value,
						 "expected a whole number");
			*(uint32_t *)dst = (uint32_t)u;
			return 0;
		case K_BOOL:
			if (parse_bool(p->value, (bool *)dst))
				return bad_value(err, l, k->name, p->value, "expected YES or NO");
			return 0;
		case K_DUR: {
			struct spur_error e;

			if (spur_duration_parse(p->value, (int64_t *)dst, &e))
				return bad_inner(err, l, k->name, p->value, &e);
			return 0;
		}
		case K_MEM: {
			struct spur_error e;

			if (spur_mem_parse_mb(p->value, (uint64_t *)dst, &e))
				return bad_inner(err, l, k->name, p->value, &e);
			return 0;
		}
		case K_LOG: {
			struct spur_error e;

			if (spur_log_level_parse(p->value, (enum spur_log_level *)dst, &e))
				return bad_inner(err, l, k->name, p->value, &e);
			return 0;
		}
		}
	}
	if (key_in(p->key, known_slurm_keys)) {
		struct spur_conf_extra x = { spur_strdup(p->key), spur_strdup(p->value) };

		/* kept for the few that are read where they are used */
		if (!key_in(p->key, acted_extra_keys) && add_unacted(c, l, p->key, p->value))
			return oom(err);

		if (!x.key || !x.value ||
		    spur_grow((void **)&c->extra, &c->extra_cap, c->nextra + 1, sizeof(x))) {
			spur_free(x.key);
			spur_free(x.value);
			return oom(err);
		}
		c->extra[c->nextra++] = x;
		return 0;
	}
	return add_warning(c, ORIGIN_FMT "unknown key '%s' ignored", ORIGIN_ARGS(l), p->key)
		       ? oom(err)
		       : 0;
}

static int set_global(struct loader *ld, const struct spur_conf_line *l,
		      const struct spur_conf_pair *p, struct spur_error *err)
{
	int rc = set_global_key(ld, l, p, err);
	bool unacted = key_in(p->key, stored_unacted_keys);

	for (size_t i = 0; i < sizeof(own_plugins) / sizeof(own_plugins[0]); i++)
		unacted |= !strcasecmp(p->key, own_plugins[i].key) &&
			   strcasecmp(p->value, own_plugins[i].value);
	if (!rc && unacted && add_unacted(ld->conf, l, p->key, p->value))
		return oom(err);
	return rc;
}

/* ---------------------------------------------------------------- nodes */

static void node_fini(struct spur_conf_node *n)
{
	spur_free(n->name);
	spur_free(n->hostname);
	spur_free(n->addr);
	spur_gres_fini(&n->gres);
	spur_free(n->features);
	spur_free(n->state);
	spur_free(n->reason);
}

static const char *const node_states[] = { "UNKNOWN", "IDLE",  "DOWN",   "DRAIN", "FAIL",
					   "FUTURE",  "CLOUD", "DRAINED", NULL };
static const char *const node_ignored[] = {
	"Bcast", "Comment", "CoreSpecCount", "CpuBind", "CpuSpecList", "Extra", "Features_Act",
	"MemSpecLimit", "Parameters", "TRESWeights", "ResumeTimeout", "SuspendTime",
	"SuspendTimeout", NULL,
};

struct node_flags {
	bool cpus_set, sockets_set;
	uint32_t sockets_per_board;
};

/* Apply one key of a NodeName line to n. NodeHostname, NodeAddr and Port
 * are handled by the caller (they expand per node). */
static int node_key(struct loader *ld, struct spur_conf_node *n, struct node_flags *fl,
		    const struct spur_conf_line *l, const struct spur_conf_pair *p,
		    struct spur_error *err)
{
	uint64_t u;
	struct {
		const char *key;
		uint32_t *dst;
	} nums[] = {
		{ "CPUs", &n->cpus },
		{ "Procs", &n->cpus },
		{ "Boards", &n->boards },
		{ "Sockets", &n->sockets },
		{ "SocketsPerBoard", &fl->sockets_per_board },
		{ "CoresPerSocket", &n->cores_per_socket },
		{ "ThreadsPerCore", &n->threads_per_core },
		{ "Weight", &n->weight },
	};

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcasecmp(p->key, nums[i].key))
			continue;
		if (parse_u64(p->value, UINT32_MAX - 1, &u) || (u == 0 && i != 7))
			return bad_value(err, l, p->key, p->value, "expected a positive number");
		*nums[i].dst = (uint32_t)u;
		if (i < 2)
			fl->cpus_set = true;
		if (i == 3 || i == 4)
			fl->sockets_set = true;
		return 0;
	}
	if (!strcasecmp(p->key, "RealMemory") || !strcasecmp(p->key, "TmpDisk")) {
		if (parse_u64(p->value, UINT64_C(1) << 40, &u))
			return bad_value(err, l, p->key, p->value, "expected megabytes");
		*(tolower((unsigned char)p->key[0]) == 'r' ? &n->real_memory_mb : &n->tmp_disk_mb) = u;
		return 0;
	}
	if (!strcasecmp(p->key, "Gres")) {
		struct spur_gres_list g = { 0 };
		struct spur_error e;

		if (!strcasecmp(p->value, "none") || !*p->value) {
			spur_gres_fini(&n->gres);
			return 0;
		}
		if (spur_gres_parse(p->value, SPUR_GRES_NODE_SPEC, &g, &e)) {
			spur_gres_fini(&g);
			return bad_inner(err, l, p->key, p->value, &e);
		}
		spur_gres_fini(&n->gres);
		n->gres = g;
		return 0;
	}
	if (!strcasecmp(p->key, "Feature") || !strcasecmp(p->key, "Features") ||
	    !strcasecmp(p->key, "AvailableFeatures"))
		return set_str(&n->features, p->value) ? oom(err) : 0;
	if (!strcasecmp(p->key, "State")) {
		char up[32];
		size_t i;

		for (i = 0; i < sizeof(up) - 1 && p->value[i]; i++)
			up[i] = (char)toupper((unsigned char)p->value[i]);
		up[i] = '\0';
		if (!key_in(up, node_states))
			return bad_value(err, l, p->key, p->value,
					 "expected UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FUTURE or CLOUD");
		return set_str(&n->state, up) ? oom(err) : 0;
	}
	if (!strcasecmp(p->key, "Reason"))
		return set_str(&n->reason, p->value) ? oom(err) : 0;
	if (key_in(p->key, node_ignored))
		return add_unacted(ld->conf, l, p->key, p->value) ? oom(err) : 0;
	return add_warning(ld->conf, ORIGIN_FMT "NodeName: unknown key '%s' ignored",
			   ORIGIN_ARGS(l), p->key)
		       ? oom(err)
		       : 0;
}

static bool is_node_expanding_key(const char *key)
{
	return !strcasecmp(key, "NodeHostname") || !strcasecmp(key, "NodeAddr") ||
	       !strcasecmp(key, "Port");
}

static void node_defaults(struct spur_conf_node *n)
{
	memset(n, 0, sizeof(*n));
	n->cpus = n->boards = n->sockets = n->cores_per_socket = n->threads_per_core = 1;
	n->real_memory_mb = 1;
	n->weight = 1;
}

/* Apply DEFAULT lines then the line's own keys; per-node keys skipped. */
static int node_template(struct loader *ld, const struct spur_conf_line *l,
			 struct spur_conf_node *n, struct node_flags *fl, struct spur_error *err)
{
	int rc;

	node_defaults(n);
	memset(fl, 0, sizeof(*fl));
	for (size_t d = 0; d <= ld->nnode_defaults; d++) {
		const struct spur_conf_line *src =
			d < ld->nnode_defaults ? ld_line(ld, ld->node_defaults[d]) : l;

		for (size_t i = 1; i < src->n; i++) {
			if (is_node_expanding_key(src->pairs[i].key))
				continue;
			rc = node_key(ld, n, fl, src, &src->pairs[i], err);
			if (rc)
				return rc;
		}
	}
	if (!fl->sockets_set || fl->sockets_per_board)
		n->sockets = n->boards * (fl->sockets_per_board ? fl->sockets_per_board : 1);
	if (!fl->cpus_set)
		n->cpus = n->sockets * n->cores_per_socket * n->threads_per_core;
	return 0;
}

/* The value of the last `key` among the DEFAULT lines and l, or NULL. */
static const char *node_value(struct loader *ld, const struct spur_conf_line *l,
			      const char *key, const struct spur_conf_line **where)
{
	const char *v = NULL;

	for (size_t d = 0; d <= ld->nnode_defaults; d++) {
		const struct spur_conf_line *src =
			d < ld->nnode_defaults ? ld_line(ld, ld->node_defaults[d]) : l;

		for (size_t i = 1; i < src->n; i++) {
			if (!strcasecmp(src->pairs[i].key, key)) {
				v = src->pairs[i].value;
				*where = src;
			}
		}
	}
	return v;
}

/* Expand a per-node key to one value per node (1 value → shared). */
static int expand_per_node(struct loader *ld, const struct spur_conf_line *l, const char *key,
			   size_t nnodes, struct spur_hostlist **out, struct spur_error *err)
{
	const struct spur_conf_line *where = l;
	const char *v = node_value(ld, l, key, &where);
	struct spur_error e;
	size_t n;

	*out = NULL;
	if (!v)
		return 0;
	*out = spur_hostlist_from_expr(v, &e);
	if (!*out)
		return bad_inner(err, where, key, v, &e);
	n = spur_hostlist_count(*out);
	if (n != 1 && n != nnodes) {
		char why[128];

		snprintf(why, sizeof(why), "expands to %zu names for %zu nodes", n, nnodes);
		spur_hostlist_destroy(*out);
		*out = NULL;
		return bad_value(err, where, key, v, why);
	}
	return 0;
}

static const char *per_node(const struct spur_hostlist *hl, size_t i)
{
	if (!hl)
		return NULL;
	return spur_hostlist_nth(hl, spur_hostlist_count(hl) == 1 ? 0 : i);
}

static int node_clone(struct spur_conf_node *dst, const struct spur_conf_node *tmpl)
{
	*dst = *tmpl;
	dst->name = dst->hostname = dst->addr = NULL;
	dst->features = tmpl->features ? spur_strdup(tmpl->features) : NULL;
	dst->state = spur_strdup(tmpl->state ? tmpl->state : "UNKNOWN");
	dst->reason = tmpl->reason ? spur_strdup(tmpl->reason) : NULL;
	memset(&dst->gres, 0, sizeof(dst->gres));
	if (tmpl->gres.n) {
		dst->gres.items = spur_calloc(tmpl->gres.n, sizeof(*tmpl->gres.items));
		if (dst->gres.items) {
			memcpy(dst->gres.items, tmpl->gres.items,
			       tmpl->gres.n * sizeof(*tmpl->gres.items));
			dst->gres.n = dst->gres.cap = tmpl->gres.n;
		}
	}
	if ((tmpl->features && !dst->features) || !dst->state ||
	    (tmpl->reason && !dst->reason) || (tmpl->gres.n && !dst->gres.items)) {
		node_fini(dst);
		return SPUR_ENOMEM;
	}
	return 0;
}

static int node_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	const char *expr = l->pairs[0].value;
	struct spur_hostlist *names = NULL, *hosts = NULL, *addrs = NULL, *ports = NULL;
	struct spur_conf_node tmpl;
	struct node_flags fl;
	struct spur_error e;
	size_t start = c->nnodes, count;
	int rc;

	if (!strcasecmp(expr, "DEFAULT")) {
		/* validate now so errors point here */
		rc = node_template(ld, l, &tmpl, &fl, err);
		node_fini(&tmpl);
		if (rc)
			return rc;
		return push_line(ld, &ld->node_defaults, &ld->nnode_defaults, &ld->node_defaults_cap, l)
			       ? oom(err)
			       : 0;
	}
	names = spur_hostlist_from_expr(expr, &e);
	if (!names)
		return bad_inner(err, l, "NodeName", expr, &e);
	count = spur_hostlist_count(names);
	rc = node_template(ld, l, &tmpl, &fl, err);
	if (rc)
		goto out_free_tmpl;
	if ((rc = expand_per_node(ld, l, "NodeHostname", count, &hosts, err)) ||
	    (rc = expand_per_node(ld, l, "NodeAddr", count, &addrs, err)) ||
	    (rc = expand_per_node(ld, l, "Port", count, &ports, err)))
		goto out_free_lists;
	for (size_t i = 0; i < count; i++) {
		const char *name = spur_hostlist_nth(names, i);
		struct spur_conf_node *n;
		long dup = index_find(&ld->ix, c, name);
		uint64_t port = 0;

		if (dup >= 0) {
			rc = spur_error_set(err, SPUR_EEXIST,
					    ORIGIN_FMT "node %s is defined twice (first at %s:%d)",
					    ORIGIN_ARGS(l), name, c->nodes[dup].origin.file,
					    c->nodes[dup].origin.line);
			goto out_undo;
		}
		if (ports && (parse_u64(per_node(ports, i), 65535, &port) || port == 0)) {
			rc = bad_value(err, l, "Port", per_node(ports, i),
				       "expected a port number 1-65535");
			goto out_undo;
		}
		if (spur_grow((void **)&c->nodes, &c->nodes_cap, c->nnodes + 1, sizeof(*n)))
			goto out_oom;
		n = &c->nodes[c->nnodes];
		if (node_clone(n, &tmpl))
			goto out_oom;
		n->port = (uint16_t)port;
		n->origin.file = l->file;
		n->origin.line = l->lineno;
		n->name = spur_strdup(name);
		n->hostname = spur_strdup(hosts ? per_node(hosts, i) : name);
		n->addr = spur_strdup(addrs ? per_node(addrs, i) : n->hostname ? n->hostname : name);
		if (!n->name || !n->hostname || !n->addr) {
			node_fini(n);
			goto out_oom;
		}
		c->nnodes++;
		if (index_add(&ld->ix, c, (long)c->nnodes - 1)) {
			c->nnodes--;
			node_fini(n);
			goto out_oom;
		}
	}
	goto out_free_lists;
out_oom:
	rc = oom(err);
out_undo:
	/* the index is rebuilt lazily on growth; drop what this line added */
	while (c->nnodes > start)
		node_fini(&c->nodes[--c->nnodes]);
	spur_free(ld->ix.slots);
	ld->ix.slots = NULL;
	ld->ix.cap = 0;
	for (size_t i = 0; i < c->nnodes; i++)
		if (index_add(&ld->ix, c, (long)i))
			break;
out_free_lists:
	spur_hostlist_destroy(hosts);
	spur_hostlist_destroy(addrs);
	spur_hostlist_destroy(ports);
out_free_tmpl:
	node_fini(&tmpl);
	spur_hostlist_destroy(names);
	return rc;
}

/* ---------------------------------------------------------------- partitions */

static void part_fini(struct spur_conf_partition *p)
{
	spur_free(p->name);
	spur_free(p->nodes_expr);
	spur_free(p->nodes);
	spur_free(p->allow_accounts);
	spur_free(p->allow_groups);
	spur_free(p->allow_qos);
	spur_free(p->deny_accounts);
	spur_free(p->deny_qos);
	spur_free(p->qos);
	spur_free(p->oversubscribe);
	spur_free(p->preempt_mode);
}

static const char *const part_ignored[] = {
	"AllocNodes", "Alternate", "CpuBind", "DisableRootJobs", "GraceTime", "LLN", "MaxCPUsPerNode", "MaxMemPerCPU",
	"OverTimeLimit", "PowerDownOnIdle", "ReqResv", "ResumeTimeout",
	"SelectTypeParameters", "SuspendTime", "SuspendTimeout", "TRESBillingWeights", "Shared",
	NULL,
};

int spur_conf_oversubscribe(const char *v, uint16_t *ways, bool *force)
{
	const char *colon = strchr(v, ':');
	size_t word = colon ? (size_t)(colon - v) : strlen(v);
	long n = 4; /* Slurm's default for YES and FORCE */
	char *end;

	*ways = 1;
	*force = false;
	if ((word == 2 && !strncasecmp(v, "NO", 2)) || (word == 9 && !strncasecmp(v, "EXCLUSIVE", 9)))
		return colon ? -1 : 0;
	if (!(word == 3 && !strncasecmp(v, "YES", 3)) && !(word == 5 && !strncasecmp(v, "FORCE", 5)))
		return -1;
	if (colon && ((n = strtol(colon + 1, &end, 10)) < 1 || *end || end == colon + 1))
		return -1;
	if (n > SPUR_CONF_SHARE_MAX)
		return -1;
	*ways = (uint16_t)n;
	*force = word == 5;
	return 0;
}

/* Partition keys kept but not acted on, when they ask for more than the
 * default (the access controls are: see src/ctld/partaccess.c). */
static bool part_key_unacted(const struct spur_conf_pair *p)
{
	uint16_t ways;
	bool force;

	if (!strcasecmp(p->key, "OverSubscribe")) /* NO, EXCLUSIVE, YES|FORCE[:N<=16] are */
		return spur_conf_oversubscribe(p->value, &ways, &force) != 0;
	if (!strcasecmp(p->key, "MinNodes")) /* every job has a node */
		return strcmp(p->value, "0") && strcmp(p->value, "1");
	return !strcasecmp(p->key, "QOS");
}

static int part_limit(const char *v, uint32_t *out)
{
	uint64_t u;

	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE")) {
		*out = SPUR_CONF_UNLIMITED;
		return 0;
	}
	if (parse_u64(v, UINT32_MAX - 1, &u))
		return -1;
	*out = (uint32_t)u;
	return 0;
}

static int part_key(struct loader *ld, struct spur_conf_partition *pt,
		    const struct spur_conf_line *l, const struct spur_conf_pair *p,
		    struct spur_error *err)
{
	struct spur_error e;
	uint64_t u;
	struct {
		const char *key;
		char **dst;
	} strs[] = {
		{ "Nodes", &pt->nodes_expr },
		{ "AllowAccounts", &pt->allow_accounts },
		{ "AllowGroups", &pt->allow_groups },
		{ "AllowQos", &pt->allow_qos },
		{ "DenyAccounts", &pt->deny_accounts },
		{ "DenyQos", &pt->deny_qos },
		{ "QOS", &pt->qos },
		{ "OverSubscribe", &pt->oversubscribe },
		{ "PreemptMode", &pt->preempt_mode },
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcasecmp(p->key, strs[i].key))
			return set_str(strs[i].dst, p->value) ? oom(err) : 0;
	if (!strcasecmp(p->key, "Default") || !strcasecmp(p->key, "Hidden") ||
	    !strcasecmp(p->key, "ExclusiveUser") || !strcasecmp(p->key, "RootOnly")) {
		bool *dst = !strcasecmp(p->key, "Default")	  ? &pt->is_default
			    : !strcasecmp(p->key, "Hidden")	  ? &pt->hidden
			    : !strcasecmp(p->key, "RootOnly") ? &pt->root_only
							      : &pt->exclusive_user;

		if (parse_bool(p->value, dst))
			return bad_value(err, l, p->key, p->value, "expected YES or NO");
		return 0;
	}
	if (!strcasecmp(p->key, "MaxTime") || !strcasecmp(p->key, "DefaultTime")) {
		int64_t *dst = !strcasecmp(p->key, "MaxTime") ? &pt->max_time : &pt->default_time;

		if (spur_duration_parse(p->value, dst, &e))
			return bad_inner(err, l, p->key, p->value, &e);
		if (dst == &pt->default_time)
			pt->default_unlimited = *dst == SPUR_TIME_INFINITE;
		return 0;
	}
	if (!strcasecmp(p->key, "MaxNodes") || !strcasecmp(p->key, "MinNodes")) {
		if (part_limit(p->value, !strcasecmp(p->key, "MaxNodes") ? &pt->max_nodes
									 : &pt->min_nodes))
			return bad_value(err, l, p->key, p->value,
					 "expected a number or UNLIMITED");
		return 0;
	}
	if (!strcasecmp(p->key, "PriorityTier") || !strcasecmp(p->key, "PriorityJobFactor") ||
	    !strcasecmp(p->key, "Priority")) {
		if (parse_u64(p->value, 65533, &u))
			return bad_value(err, l, p->key, p->value, "expected a number 0-65533");
		if (strcasecmp(p->key, "PriorityTier")) /* Priority= sets both, as Slurm's */
			pt->priority_job_factor = (uint16_t)u;
		if (strcasecmp(p->key, "PriorityJobFactor"))
			pt->priority_tier = (uint16_t)u;
		return 0;
	}
	if (!strcasecmp(p->key, "State")) {
		static const char *const names[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };

		for (int i = 0; i < 4; i++) {
			if (!strcasecmp(p->value, names[i])) {
				pt->state = (enum spur_part_state)i;
				return 0;
			}
		}
		return bad_value(err, l, p->key, p->value, "expected UP, DOWN, DRAIN or INACTIVE");
	}
	if (!strcasecmp(p->key, "DefCpuPerGPU")) {
		if (parse_u64(p->value, 100000, &u))
			return bad_value(err, l, p->key, p->value, "expected a CPU count");
		pt->def_cpu_per_gpu = (uint32_t)u;
		return 0;
	}
	if (!strcasecmp(p->key, "DefMemPerCPU") || !strcasecmp(p->key, "MaxMemPerNode") ||
	    !strcasecmp(p->key, "DefMemPerGPU") || !strcasecmp(p->key, "DefMemPerNode")) {
		uint64_t *dst = !strcasecmp(p->key, "DefMemPerCPU")    ? &pt->def_mem_per_cpu_mb
				: !strcasecmp(p->key, "DefMemPerGPU")  ? &pt->def_mem_per_gpu_mb
				: !strcasecmp(p->key, "DefMemPerNode") ? &pt->def_mem_per_node_mb
								       : &pt->max_mem_per_node_mb;

		if (!strcasecmp(p->value, "UNLIMITED")) {
			*dst = 0;
			return 0;
		}
		if (spur_mem_parse_mb(p->value, dst, &e))
			return bad_inner(err, l, p->key, p->value, &e);
		return 0;
	}
	if (key_in(p->key, part_ignored))
		return add_unacted(ld->conf, l, p->key, p->value) ? oom(err) : 0;
	return add_warning(ld->conf, ORIGIN_FMT "PartitionName: unknown key '%s' ignored",
			   ORIGIN_ARGS(l), p->key)
		       ? oom(err)
		       : 0;
}

static void part_defaults(struct spur_conf_partition *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->max_time = SPUR_TIME_INFINITE;
	pt->default_time = SPUR_TIME_INFINITE;
	pt->max_nodes = SPUR_CONF_UNLIMITED;
	pt->min_nodes = 0;
	pt->priority_job_factor = 1;
	pt->priority_tier = 1;
}

static int part_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	const char *name = l->pairs[0].value;
	struct spur_conf_partition pt;
	int rc = 0;

	part_defaults(&pt);
	for (size_t d = 0; d <= ld->npart_defaults && !rc; d++) {
		const struct spur_conf_line *src =
			d < ld->npart_defaults ? ld_line(ld, ld->part_defaults[d]) : l;

		for (size_t i = 1; i < src->n && !rc; i++) {
			rc = part_key(ld, &pt, src, &src->pairs[i], err);
			if (!rc && d == ld->npart_defaults && part_key_unacted(&src->pairs[i]) &&
			    add_unacted(ld->conf, src, src->pairs[i].key, src->pairs[i].value))
				rc = oom(err);
		}
	}
	if (rc)
		goto out_fini;
	if (!strcasecmp(name, "DEFAULT")) {
		part_fini(&pt);
		return push_line(ld, &ld->part_defaults, &ld->npart_defaults, &ld->part_defaults_cap, l)
			       ? oom(err)
			       : 0;
	}
	if (!*name || strpbrk(name, ",[] ")) {
		rc = bad_value(err, l, "PartitionName", name, "not a valid partition name");
		goto out_fini;
	}
	if (spur_conf_partition(c, name)) {
		rc = spur_error_set(err, SPUR_EEXIST, ORIGIN_FMT "partition %s is defined twice",
				    ORIGIN_ARGS(l), name);
		goto out_fini;
	}
	pt.name = spur_strdup(name);
	if (!pt.name || spur_grow((void **)&c->parts, &c->parts_cap, c->nparts + 1, sizeof(pt))) {
		rc = oom(err);
		goto out_fini;
	}
	pt.origin.file = l->file;
	pt.origin.line = l->lineno;
	c->parts[c->nparts++] = pt;
	return 0;
out_fini:
	part_fini(&pt);
	return rc;
}

static int nodeset_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	struct nodeset ns = { 0 };

	ns.line = line_index(ld, l);
	ns.name = spur_strdup(l->pairs[0].value);
	if (!ns.name)
		return oom(err);
	for (size_t i = 1; i < l->n; i++) {
		char **dst = !strcasecmp(l->pairs[i].key, "Nodes")	? &ns.nodes_expr
			     : !strcasecmp(l->pairs[i].key, "Feature") ? &ns.feature
									: NULL;

		if (!dst) {
			spur_free(ns.name);
			spur_free(ns.nodes_expr);
			spur_free(ns.feature);
			return spur_error_set(err, SPUR_EINVAL,
					      ORIGIN_FMT "NodeSet: unknown key '%s' (expected "
					      "Nodes= or Feature=)",
					      ORIGIN_ARGS(l), l->pairs[i].key);
		}
		if (set_str(dst, l->pairs[i].value)) {
			spur_free(ns.name);
			spur_free(ns.nodes_expr);
			spur_free(ns.feature);
			return oom(err);
		}
	}
	if (spur_grow((void **)&ld->nodesets, &ld->nodesets_cap, ld->nnodesets + 1, sizeof(ns))) {
		spur_free(ns.name);
		spur_free(ns.nodes_expr);
		spur_free(ns.feature);
		return oom(err);
	}
	ld->nodesets[ld->nnodesets++] = ns;
	return 0;
}

static bool has_feature(const char *features, const char *f)
{
	size_t fl = strlen(f);

	for (const char *p = features; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == fl && !strncmp(p, f, len))
			return true;
		p = comma ? comma + 1 : p + len;
	}
	return false;
}

/* Add node index `i` to (*arr, *n) unless present. */
static int add_index(size_t **arr, size_t *n, size_t *cap, size_t i, bool *seen)
{
	if (seen[i])
		return 0;
	if (spur_grow((void **)arr, cap, *n + 1, sizeof(**arr)))
		return SPUR_ENOMEM;
	(*arr)[(*n)++] = i;
	seen[i] = true;
	return 0;
}

/* Resolve a node expression (ALL, hostlists, node sets) into indexes. */
static int resolve_nodes(struct loader *ld, const char *expr, const struct spur_conf_line *l,
			 const char *what, size_t **out, size_t *nout, bool strict,
			 struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	struct spur_hostlist *hl;
	struct spur_error e;
	size_t cap = 0;
	bool *seen = spur_calloc(c->nnodes + 1, sizeof(bool));
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (!seen)
		return oom(err);
	hl = spur_hostlist_from_expr(expr, &e);
	if (!hl) {
		rc = bad_inner(err, l, what, expr, &e);
		goto out_free_seen;
	}
	for (size_t h = 0; h < spur_hostlist_count(hl) && !rc; h++) {
		const char *name = spur_hostlist_nth(hl, h);
		long idx = index_find(&ld->ix, c, name);
		bool matched = false;

		if (!strcasecmp(name, "ALL")) {
			for (size_t i = 0; i < c->nnodes && !rc; i++)
				rc = add_index(out, nout, &cap, i, seen);
			continue;
		}
		if (idx >= 0) {
			rc = add_index(out, nout, &cap, (size_t)idx, seen);
			continue;
		}
		for (size_t s = 0; s < ld->nnodesets && !rc; s++) {
			const struct nodeset *ns = &ld->nodesets[s];

			if (strcmp(ns->name, name))
				continue;
			matched = true;
			if (ns->feature)
				for (size_t i = 0; i < c->nnodes && !rc; i++)
					if (has_feature(c->nodes[i].features, ns->feature))
						rc = add_index(out, nout, &cap, i, seen);
			if (ns->nodes_expr && !rc) {
				size_t *sub, nsub;

				rc = resolve_nodes(ld, ns->nodes_expr, ld_line(ld, ns->line), "Nodes", &sub,
						   &nsub, true, err);
				for (size_t i = 0; i < nsub && !rc; i++)
					rc = add_index(out, nout, &cap, sub[i], seen);
				spur_free(sub);
			}
		}
		if (rc || matched)
			continue;
		if (strict)
			rc = spur_error_set(err, SPUR_ENOENT,
					    ORIGIN_FMT "%s=%s: node '%s' is not defined by any "
					    "NodeName line",
					    ORIGIN_ARGS(l), what, expr, name);
		else if (add_warning(c, ORIGIN_FMT "%s: node '%s' is not defined; ignored",
				     ORIGIN_ARGS(l), what, name))
			rc = SPUR_ENOMEM;
	}
	if (rc == SPUR_ENOMEM)
		oom(err);
	spur_hostlist_destroy(hl);
out_free_seen:
	spur_free(seen);
	if (rc) {
		spur_free(*out);
		*out = NULL;
		*nout = 0;
	}
	return rc;
}

static int resolve_partitions(struct loader *ld, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	long def = -1;
	int rc;

	for (size_t i = 0; i < c->nparts; i++) {
		struct spur_conf_partition *p = &c->parts[i];
		struct spur_conf_line where = { p->origin.file, p->origin.line, NULL, 0, 0 };

		if (p->nodes_expr) {
			rc = resolve_nodes(ld, p->nodes_expr, &where, "Nodes", &p->nodes,
					   &p->nnodes, true, err);
			if (rc)
				return spur_error_wrap(err, "PartitionName=%s", p->name);
		}
		if (p->is_default) {
			if (def >= 0 && add_warning(c, "%s:%d: partition %s is also Default=YES; "
						       "%s is the default",
						    p->origin.file, p->origin.line, p->name, p->name))
				return oom(err);
			if (def >= 0)
				c->parts[def].is_default = false;
			def = (long)i;
		}
	}
	return 0;
}

/* DownNodes=expr State=DOWN|DRAIN|FAIL Reason=... */
static int apply_down_nodes(struct loader *ld, struct spur_error *err)
{
	for (size_t d = 0; d < ld->ndown; d++) {
		const struct spur_conf_line *l = ld_line(ld, ld->down_lines[d]);
		const char *state = "DOWN", *reason = NULL;
		size_t *idx, n;
		int rc;

		for (size_t i = 1; i < l->n; i++) {
			if (!strcasecmp(l->pairs[i].key, "State"))
				state = l->pairs[i].value;
			else if (!strcasecmp(l->pairs[i].key, "Reason"))
				reason = l->pairs[i].value;
			else
				return spur_error_set(err, SPUR_EINVAL,
						      ORIGIN_FMT "DownNodes: unknown key '%s'",
						      ORIGIN_ARGS(l), l->pairs[i].key);
		}
		if (strcasecmp(state, "DOWN") && strcasecmp(state, "DRAIN") &&
		    strcasecmp(state, "FAIL") && strcasecmp(state, "FAILING") &&
		    strcasecmp(state, "UNKNOWN"))
			return bad_value(err, l, "State", state,
					 "expected DOWN, DRAIN, FAIL, FAILING or UNKNOWN");
		rc = resolve_nodes(ld, l->pairs[0].value, l, "DownNodes", &idx, &n, true, err);
		if (rc)
			return rc;
		for (size_t i = 0; i < n; i++) {
			struct spur_conf_node *node = &ld->conf->nodes[idx[i]];
			char up[16];
			size_t k;

			for (k = 0; k < sizeof(up) - 1 && state[k]; k++)
				up[k] = (char)toupper((unsigned char)state[k]);
			up[k] = '\0';
			if (set_str(&node->state, up) || (reason && set_str(&node->reason, reason))) {
				spur_free(idx);
				return oom(err);
			}
		}
		spur_free(idx);
	}
	return 0;
}

/* ---------------------------------------------------------------- slurm.conf */

static int slurm_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	const char *first = l->pairs[0].key;
	int rc = 0;

	if (!strcasecmp(first, "NodeName"))
		return node_line(ld, l, err);
	if (!strcasecmp(first, "PartitionName"))
		return part_line(ld, l, err);
	if (!strcasecmp(first, "NodeSet"))
		return nodeset_line(ld, l, err);
	if (!strcasecmp(first, "DownNodes"))
		return push_line(ld, &ld->down_lines, &ld->ndown, &ld->down_cap, l) ? oom(err) : 0;
	if (!strcasecmp(first, "FrontendName"))
		return add_warning(ld->conf, ORIGIN_FMT "FrontendName lines are not supported; "
						       "ignored",
				   ORIGIN_ARGS(l))
			       ? oom(err)
			       : 0;
	for (size_t i = 0; i < l->n && !rc; i++) {
		rc = set_global(ld, l, &l->pairs[i], err);
		/* still read here, but Slurm's own parser stops at it */
		if (!rc && !strncasecmp(l->pairs[i].key, "Spur", 4) &&
		    add_warning(ld->conf,
				ORIGIN_FMT "%s belongs in spur.conf beside slurm.conf (Slurm's tools "
					   "stop at a key they do not know)",
				ORIGIN_ARGS(l), l->pairs[i].key))
			rc = oom(err);
	}
	return rc;
}

/* spur.conf, beside slurm.conf: Spur's own keys (Spur...), so that
 * slurm.conf keeps only Slurm's and stays valid for Slurm's tools during a
 * migration. Another key here is an error. */
static int spur_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < l->n && !rc; i++) {
		if (strncasecmp(l->pairs[i].key, "Spur", 4))
			return spur_error_set(err, SPUR_EINVAL,
					      ORIGIN_FMT "%s: only Spur's own keys (Spur...) belong in "
							 "spur.conf; Slurm's go in slurm.conf",
					      ORIGIN_ARGS(l), l->pairs[i].key);
		rc = set_global(ld, l, &l->pairs[i], err);
	}
	return rc;
}

/* ---------------------------------------------------------------- gres.conf */

static void gres_fini(struct spur_conf_gres *g)
{
	spur_free(g->nodes_expr);
	spur_free(g->name);
	spur_free(g->type);
	spur_free(g->file);
	spur_free(g->cores);
	spur_free(g->links);
	spur_free(g->flags);
	spur_free(g->autodetect);
}

static int gres_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	struct spur_conf_gres g = { 0 };
	bool count_set = false;
	struct spur_error e;
	int rc = 0;

	g.origin.file = l->file;
	g.origin.line = l->lineno;
	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct spur_conf_pair *p = &l->pairs[i];
		char **dst = !strcasecmp(p->key, "NodeName")	 ? &g.nodes_expr
			     : !strcasecmp(p->key, "Name")	 ? &g.name
			     : !strcasecmp(p->key, "Type")	 ? &g.type
			     : !strcasecmp(p->key, "File")	 ? &g.file
			     : !strcasecmp(p->key, "Cores")	 ? &g.cores
			     : !strcasecmp(p->key, "CPUs")	 ? &g.cores
			     : !strcasecmp(p->key, "Links")	 ? &g.links
			     : !strcasecmp(p->key, "Flags")	 ? &g.flags
			     : !strcasecmp(p->key, "AutoDetect") ? &g.autodetect
								 : NULL;

		if (!strcasecmp(p->key, "Count")) {
			if (spur_count_parse(p->value, SPUR_GRES_COUNT_MAX, &g.count, &e))
				rc = bad_inner(err, l, p->key, p->value, &e);
			count_set = true;
		} else if (dst) {
			rc = set_str(dst, p->value) ? oom(err) : 0;
		} else if (!strcasecmp(p->key, "MultipleFiles")) {
			rc = set_str(&g.file, p->value) ? oom(err) : 0;
		} else {
			rc = add_warning(c, ORIGIN_FMT "gres.conf: unknown key '%s' ignored",
					 ORIGIN_ARGS(l), p->key)
				     ? oom(err)
				     : 0;
		}
	}
	if (rc)
		goto out_fini;
	if (!g.name && !g.autodetect) {
		rc = spur_error_set(err, SPUR_EINVAL, ORIGIN_FMT "gres.conf line needs Name=",
				    ORIGIN_ARGS(l));
		goto out_fini;
	}
	if (g.name) {
		struct spur_gres_list tmp = { 0 };

		rc = spur_gres_parse(g.name, 0, &tmp, &e);
		if (!rc && (strchr(g.name, ':') || tmp.n != 1))
			rc = SPUR_EINVAL;
		spur_gres_fini(&tmp);
		if (rc == SPUR_ENOMEM) {
			rc = oom(err);
			goto out_fini;
		}
		if (rc) {
			rc = bad_value(err, l, "Name", g.name, "not a valid GRES name");
			goto out_fini;
		}
	}
	if (g.nodes_expr) {
		struct spur_hostlist *hl = spur_hostlist_from_expr(g.nodes_expr, &e);

		if (!hl) {
			rc = bad_inner(err, l, "NodeName", g.nodes_expr, &e);
			goto out_fini;
		}
		spur_hostlist_destroy(hl);
	}
	if (g.file) {
		struct spur_hostlist *files = spur_hostlist_from_expr(g.file, &e);
		uint64_t nfiles;

		if (!files) {
			rc = bad_inner(err, l, "File", g.file, &e);
			goto out_fini;
		}
		nfiles = spur_hostlist_count(files);
		spur_hostlist_destroy(files);
		if (!count_set) {
			g.count = nfiles;
		} else if (g.count != nfiles && g.name && strcmp(g.name, "shard") &&
			   strcmp(g.name, "mps")) {
			char why[96];

			snprintf(why, sizeof(why), "names %" PRIu64 " files but Count=%" PRIu64,
				 nfiles, g.count);
			rc = bad_value(err, l, "File", g.file, why);
			goto out_fini;
		}
	} else if (!count_set && g.name) {
		g.count = 1;
	}
	if (spur_grow((void **)&c->gres, &c->gres_cap, c->ngres + 1, sizeof(g))) {
		rc = oom(err);
		goto out_fini;
	}
	c->gres[c->ngres++] = g;
	return 0;
out_fini:
	gres_fini(&g);
	return rc;
}

/* Warn where gres.conf and a node's Gres= disagree on a count. */
static int check_gres_counts(struct loader *ld, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	uint64_t *sum = spur_calloc(c->nnodes + 1, sizeof(uint64_t));
	int rc = 0;

	if (!sum)
		return oom(err);
	for (size_t ni = 0; ni < c->nnodes && !rc; ni++) {
		const struct spur_conf_node *n = &c->nodes[ni];

		for (size_t gi = 0; gi < n->gres.n && !rc; gi++) {
			const struct spur_gres_item *it = &n->gres.items[gi];
			uint64_t total = 0;
			bool any = false;

			for (size_t k = 0; k < c->ngres; k++) {
				const struct spur_conf_gres *g = &c->gres[k];
				struct spur_hostlist *hl;

				if (!g->name || strcmp(g->name, it->name) ||
				    (it->type[0] && g->type && strcmp(g->type, it->type)))
					continue;
				if (g->nodes_expr) {
					hl = spur_hostlist_from_expr(g->nodes_expr, NULL);
					if (!hl) {
						rc = SPUR_ENOMEM;
						break;
					}
					bool mine = spur_hostlist_find(hl, n->name) >= 0;

					spur_hostlist_destroy(hl);
					if (!mine)
						continue;
				}
				any = true;
				total += g->count;
			}
			if (any && total != it->count &&
			    add_warning(c, "%s:%d: node %s declares Gres=%s:%s%s%" PRIu64
					   " but gres.conf describes %" PRIu64,
					n->origin.file, n->origin.line, n->name, it->name, it->type,
					it->type[0] ? ":" : "", it->count, total))
				rc = SPUR_ENOMEM;
		}
		/* one warning per line of nodes is enough */
		while (ni + 1 < c->nnodes && c->nodes[ni + 1].origin.line == n->origin.line &&
		       c->nodes[ni + 1].origin.file == n->origin.file)
			ni++;
	}
	spur_free(sum);
	return rc ? oom(err) : 0;
}

/* ---------------------------------------------------------------- topology.conf */

static void switch_fini(struct spur_conf_switch *s)
{
	spur_free(s->name);
	spur_free(s->switches_expr);
	spur_free(s->nodes_expr);
	for (size_t i = 0; i < s->nchildren; i++)
		spur_free(s->children[i]);
	spur_free(s->children);
	spur_free(s->nodes);
}

static long switch_index(const struct spur_conf *c, const char *name)
{
	for (size_t i = 0; i < c->nswitches; i++)
		if (!strcmp(c->switches[i].name, name))
			return (long)i;
	return -1;
}

static int topo_line(struct loader *ld, const struct spur_conf_line *l, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	struct spur_conf_switch s = { 0 };
	uint64_t u;
	int rc = 0;

	s.parent = -1;
	s.origin.file = l->file;
	s.origin.line = l->lineno;
	if (strcasecmp(l->pairs[0].key, "SwitchName"))
		return spur_error_set(err, SPUR_EINVAL,
				      ORIGIN_FMT "topology.conf lines start with SwitchName=, not "
				      "%s=",
				      ORIGIN_ARGS(l), l->pairs[0].key);
	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct spur_conf_pair *p = &l->pairs[i];

		if (!strcasecmp(p->key, "SwitchName"))
			rc = set_str(&s.name, p->value);
		else if (!strcasecmp(p->key, "Switches"))
			rc = set_str(&s.switches_expr, p->value);
		else if (!strcasecmp(p->key, "Nodes"))
			rc = set_str(&s.nodes_expr, p->value);
		else if (!strcasecmp(p->key, "LinkSpeed")) {
			if (parse_u64(p->value, UINT32_MAX, &u)) {
				rc = bad_value(err, l, p->key, p->value, "expected a number");
				goto out_fini;
			}
			s.link_speed = (uint32_t)u;
		} else {
			rc = spur_error_set(err, SPUR_EINVAL,
					    ORIGIN_FMT "topology.conf: unknown key '%s' (expected "
					    "SwitchName, Switches, Nodes, LinkSpeed)",
					    ORIGIN_ARGS(l), p->key);
			goto out_fini;
		}
	}
	if (rc) {
		rc = oom(err);
		goto out_fini;
	}
	if (!*s.name || switch_index(c, s.name) >= 0) {
		rc = bad_value(err, l, "SwitchName", s.name,
			       *s.name ? "switch defined twice" : "empty name");
		goto out_fini;
	}
	if (!s.switches_expr && !s.nodes_expr) {
		rc = spur_error_set(err, SPUR_EINVAL,
				    ORIGIN_FMT "switch %s needs Switches= or Nodes=",
				    ORIGIN_ARGS(l), s.name);
		goto out_fini;
	}
	if (s.switches_expr) {
		struct spur_error e;
		struct spur_hostlist *hl = spur_hostlist_from_expr(s.switches_expr, &e);

		if (!hl) {
			rc = bad_inner(err, l, "Switches", s.switches_expr, &e);
			goto out_fini;
		}
		s.children = spur_calloc(spur_hostlist_count(hl), sizeof(char *));
		s.nchildren = s.children ? spur_hostlist_count(hl) : 0;
		for (size_t i = 0; s.children && i < s.nchildren; i++)
			if (!(s.children[i] = spur_strdup(spur_hostlist_nth(hl, i))))
				rc = SPUR_ENOMEM;
		spur_hostlist_destroy(hl);
		if (!s.children || rc) {
			rc = oom(err);
			goto out_fini;
		}
	}
	if (spur_grow((void **)&c->switches, &c->switches_cap, c->nswitches + 1, sizeof(s))) {
		rc = oom(err);
		goto out_fini;
	}
	c->switches[c->nswitches++] = s;
	return 0;
out_fini:
	switch_fini(&s);
	return rc;
}

static int resolve_topology(struct loader *ld, struct spur_error *err)
{
	struct spur_conf *c = ld->conf;
	int rc;

	for (size_t i = 0; i < c->nswitches; i++) {
		struct spur_conf_switch *s = &c->switches[i];
		struct spur_conf_line where = { s->origin.file, s->origin.line, NULL, 0, 0 };

		for (size_t k = 0; k < s->nchildren; k++) {
			long child = switch_index(c, s->children[k]);

			if (child < 0)
				return spur_error_set(err, SPUR_ENOENT,
						      "%s:%d: switch %s: child switch '%s' is not "
						      "defined",
						      s->origin.file, s->origin.line, s->name,
						      s->children[k]);
			if (c->switches[child].parent >= 0 || (size_t)child == i)
				return spur_error_set(err, SPUR_EINVAL,
						      "%s:%d: switch %s: switch '%s' has more than "
						      "one parent",
						      s->origin.file, s->origin.line, s->name,
						      s->children[k]);
			c->switches[child].parent = (long)i;
		}
		if (s->nodes_expr) {
			rc = resolve_nodes(ld, s->nodes_expr, &where, "Nodes", &s->nodes,
					   &s->nnodes, false, err);
			if (rc)
				return spur_error_wrap(err, "SwitchName=%s", s->name);
		}
	}
	/* a cycle leaves switches whose parent chain never reaches a root */
	for (size_t i = 0; i < c->nswitches; i++) {
		long p = (long)i;

		for (size_t steps = 0; p >= 0; steps++) {
			if (steps > c->nswitches)
				return spur_error_set(err, SPUR_EINVAL,
						      "%s:%d: switch %s is part of a loop",
						      c->switches[i].origin.file,
						      c->switches[i].origin.line, c->switches[i].name);
			p = c->switches[p].parent;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- public */

struct spur_conf *spur_conf_default(struct spur_error *err)
{
	struct spur_conf *c = spur_calloc(1, sizeof(*c));

	if (!c)
		goto out_oom;
	c->ctld_port = 6817;
	c->agent_port = 6818;
	c->rest_port = 6820;
	c->disable_root_jobs = true; /* Slurm says NO; Spur is safe by default */
	c->ctld_debug = c->agent_debug = SPUR_LOG_INFO;
	c->priority_decay_half_life = 7 * 86400;
	/* Spur's weights when slurm.conf names none (a typical GPU site's); a
	 * weight set to 0 there is 0 */
	c->priority_weight_age = 1000;
	c->priority_weight_fairshare = 10000;
	c->priority_weight_job_size = 1000;
	c->priority_weight_partition = 1000;
	c->priority_weight_qos = 2000;
	c->priority_max_age = 7 * 86400;
	c->max_job_count = 10000;
	c->max_array_size = 1001;
	c->max_script_size = 4u << 20;
	c->default_queue_depth = 100;
	c->bf_max_job_test = 500;
	c->first_job_id = 1;
	c->min_job_age = 300;
	c->kill_wait = 30;
	c->slurmd_timeout = 300;
	c->message_timeout = 10;
	if (set_str(&c->cluster_name, "spur") || set_str(&c->state_dir, "/var/spool/spur/ctld") ||
	    set_str(&c->spool_dir, "/var/spool/spur/d") ||
	    set_str(&c->scheduler_type, "sched/backfill") ||
	    set_str(&c->select_type, "select/cons_tres") ||
	    set_str(&c->priority_type, "priority/multifactor") ||
	    set_str(&c->gpu_backend, "auto"))
		goto out_destroy;
	c->ctlds = spur_calloc(1, sizeof(*c->ctlds));
	if (!c->ctlds)
		goto out_destroy;
	c->ctlds[0].name = spur_strdup("localhost");
	c->ctlds[0].addr = spur_strdup("127.0.0.1");
	c->nctlds = 1;
	if (!c->ctlds[0].name || !c->ctlds[0].addr)
		goto out_destroy;
	return c;
out_destroy:
	spur_conf_destroy(c);
out_oom:
	oom(err);
	return NULL;
}

void spur_conf_destroy(struct spur_conf *c)
{
	if (!c)
		return;
	clear_ctlds(c);
	spur_free(c->ctlds);
	char **strs[] = { &c->cluster_name, &c->state_dir, &c->spool_dir, &c->ctld_log_file,
			  &c->agent_log_file, &c->slurm_user, &c->prolog, &c->epilog, &c->mpi_default, &c->health_program, &c->health_states, &c->task_prolog, &c->task_epilog, &c->prolog_slurmctld, &c->epilog_slurmctld, &c->licenses, &c->mail_prog, &c->mail_domain, &c->propagate_limits, &c->propagate_except, &c->scheduler_type, &c->scheduler_params, &c->select_type,
			  &c->select_type_params, &c->gres_types, &c->priority_type,
			  &c->preempt_type, &c->preempt_mode, &c->topology_plugin, &c->gpu_backend,
			  &c->fake_gpu_file, &c->container_runtime, &c->image_store,
			  &c->cdi_spec_dirs };
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		spur_free(*strs[i]);
	for (size_t i = 0; i < c->nnodes; i++)
		node_fini(&c->nodes[i]);
	spur_free(c->nodes);
	for (size_t i = 0; i < c->nparts; i++)
		part_fini(&c->parts[i]);
	spur_free(c->parts);
	for (size_t i = 0; i < c->ngres; i++)
		gres_fini(&c->gres[i]);
	spur_free(c->gres);
	for (size_t i = 0; i < c->nswitches; i++)
		switch_fini(&c->switches[i]);
	spur_free(c->switches);
	for (size_t i = 0; i < c->nunacted; i++)
		spur_free(c->unacted[i]);
	spur_free(c->unacted);
	for (size_t i = 0; i < c->nextra; i++) {
		spur_free(c->extra[i].key);
		spur_free(c->extra[i].value);
	}
	spur_free(c->extra);
	for (size_t i = 0; i < c->nwarnings; i++)
		spur_free(c->warnings[i]);
	spur_free(c->warnings);
	for (size_t i = 0; i < c->nfiles; i++)
		spur_free(c->files[i]);
	spur_free(c->files);
	spur_free(c);
}

long spur_conf_node_index(const struct spur_conf *c, const char *name)
{
	for (size_t i = 0; i < c->nnodes; i++)
		if (!strcmp(c->nodes[i].name, name))
			return (long)i;
	return -1;
}

const struct spur_conf_partition *spur_conf_partition(const struct spur_conf *c, const char *name)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (!c->parts[i].deleted && !strcmp(c->parts[i].name, name))
			return &c->parts[i];
	return NULL;
}

const struct spur_conf_partition *spur_conf_default_partition(const struct spur_conf *c)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (c->parts[i].is_default)
			return &c->parts[i];
	for (size_t i = 0; i < c->nparts; i++)
		if (!c->parts[i].deleted)
			return &c->parts[i];
	return NULL;
}

/* ---------------------------------------------------------------- partitions at run time */

static int part_copy(struct spur_conf_partition *dst, const struct spur_conf_partition *src)
{
	char *const *from[] = { &src->name, &src->nodes_expr, &src->allow_accounts,
				&src->allow_groups, &src->allow_qos, &src->deny_accounts,
				&src->deny_qos, &src->qos, &src->oversubscribe, &src->preempt_mode };
	char **to[] = { &dst->name, &dst->nodes_expr, &dst->allow_accounts, &dst->allow_groups,
			&dst->allow_qos, &dst->deny_accounts, &dst->deny_qos, &dst->qos,
			&dst->oversubscribe, &dst->preempt_mode };

	*dst = *src;
	for (size_t i = 0; i < sizeof(to) / sizeof(to[0]); i++)
		*to[i] = NULL;
	dst->nodes = spur_malloc((src->nnodes + 1) * sizeof(size_t));
	if (!dst->nodes)
		goto oom;
	memcpy(dst->nodes, src->nodes, src->nnodes * sizeof(size_t));
	for (size_t i = 0; i < sizeof(to) / sizeof(to[0]); i++)
		if (*from[i] && !(*to[i] = spur_strdup(*from[i])))
			goto oom;
	return 0;
oom:
	part_fini(dst);
	return SPUR_ENOMEM;
}

struct spur_conf_parts_saved {
	struct spur_conf_partition *parts;
	size_t n;
};

struct spur_conf_parts_saved *spur_conf_partitions_save(const struct spur_conf *c)
{
	struct spur_conf_parts_saved *sv = spur_calloc(1, sizeof(*sv));

	if (!sv || !(sv->parts = spur_calloc(c->nparts + 1, sizeof(*sv->parts))))
		goto fail;
	for (; sv->n < c->nparts; sv->n++)
		if (part_copy(&sv->parts[sv->n], &c->parts[sv->n]))
			goto fail;
	return sv;
fail:
	spur_conf_partitions_free(sv);
	return NULL;
}

void spur_conf_partitions_free(struct spur_conf_parts_saved *sv)
{
	if (!sv)
		return;
	for (size_t i = 0; i < sv->n; i++)
		part_fini(&sv->parts[i]);
	spur_free(sv->parts);
	spur_free(sv);
}

void spur_conf_partitions_restore(struct spur_conf *c, struct spur_conf_parts_saved *sv)
{
	for (size_t i = 0; i < c->nparts; i++)
		part_fini(&c->parts[i]);
	spur_free(c->parts);
	c->parts = sv->parts;
	c->nparts = c->parts_cap = sv->n;
	spur_free(sv);
}

/* The new partition's nodes (hostlists or ALL), each a node of c. */
static int create_nodes(struct loader *ld, struct spur_conf_partition *pt,
			const struct spur_conf_line *l, struct spur_error *err)
{
	int rc;

	for (size_t i = 0; i < ld->conf->nnodes; i++)
		if (index_add(&ld->ix, ld->conf, (long)i))
			return oom(err);
	if (!pt->nodes_expr) /* Nodes=(null): a partition of no nodes */
		return (pt->nodes = spur_calloc(1, sizeof(size_t))) ? 0 : oom(err);
	rc = resolve_nodes(ld, pt->nodes_expr, l, "Nodes", &pt->nodes, &pt->nnodes, true, err);
	if (rc == SPUR_ENOENT)
		return spur_error_set(err, SPUR_ENOENT, "Invalid node name specified");
	return rc;
}

/* A key of the line that slurm.conf would only warn of, or that Spur does
 * not act on: the warnings it added (taken back), as a refusal. */
static int create_refusal(struct spur_conf *c, size_t nw, size_t nu, const struct spur_conf_line *l,
			  struct spur_error *err)
{
	int rc = 0;

	for (size_t i = 1; i < l->n && c->nwarnings > nw && !rc; i++)
		if (strstr(c->warnings[nw], l->pairs[i].key))
			rc = spur_error_set(err, SPUR_EINVAL,
					    "Update of this parameter is not supported: %s=%s",
					    l->pairs[i].key, l->pairs[i].value);
	if (!rc && (c->nwarnings > nw || c->nunacted > nu))
		rc = spur_error_set(err, SPUR_EUNSUPP, "%s",
				    c->nunacted > nu ? c->unacted[nu] + strlen("scontrol create:1: ")
						     : c->warnings[nw]);
	if (rc == SPUR_EUNSUPP && c->nunacted > nu) { /* "K=V: accepted but not acted on" */
		char *colon = strstr(err->msg, ": accepted");

		if (colon)
			snprintf(colon, sizeof(err->msg) - (size_t)(colon - err->msg),
				 ": not supported by Spur");
	}
	while (c->nwarnings > nw)
		spur_free(c->warnings[--c->nwarnings]);
	while (c->nunacted > nu)
		spur_free(c->unacted[--c->nunacted]);
	return rc;
}

int spur_conf_partition_create(struct spur_conf *c, const char *line, size_t *slot,
			       struct spur_error *err)
{
	struct loader ld = { .conf = c };
	struct spur_conf_partition pt;
	const struct spur_conf_line *l;
	size_t nw = c->nwarnings, nu = c->nunacted, at = c->nparts;
	const char *name;
	int rc;

	part_defaults(&pt);
	pt.min_nodes = 1; /* as Slurm's scontrol create shows it */
	rc = spur_conf_lex_buf(&ld.doc, "scontrol create", line, strlen(line),
			       SPUR_CONF_NO_INCLUDE, err);
	if (rc)
		goto out;
	if (ld.doc.n != 1 || strcasecmp((l = &ld.doc.lines[0])->pairs[0].key, "PartitionName")) {
		rc = spur_error_set(err, SPUR_EINVAL, "Invalid creation entity: %s", line);
		goto out;
	}
	name = l->pairs[0].value;
	if (!*name || strpbrk(name, ",[] ") || !strcasecmp(name, "DEFAULT") ||
	    spur_conf_partition(c, name)) {
		rc = spur_error_set(err, SPUR_EEXIST, "Invalid partition name specified");
		goto out;
	}
	for (size_t i = 1; i < l->n && !rc; i++) {
		rc = part_key(&ld, &pt, l, &l->pairs[i], err);
		if (!rc && part_key_unacted(&l->pairs[i]) &&
		    add_unacted(c, l, l->pairs[i].key, l->pairs[i].value))
			rc = oom(err);
	}
	if (!rc)
		rc = create_refusal(c, nw, nu, l, err);
	if (!rc)
		rc = create_nodes(&ld, &pt, l, err);
	if (!rc && !(pt.name = spur_strdup(name)))
		rc = oom(err);
	for (size_t i = 0; i < c->nparts && !rc; i++)
		if (c->parts[i].deleted && !strcmp(c->parts[i].name, name))
			at = i; /* its old slot: the scheduler's index too */
	if (!rc && at == c->nparts &&
	    spur_grow((void **)&c->parts, &c->parts_cap, c->nparts + 1, sizeof(pt)))
		rc = oom(err);
	if (rc)
		goto out;
	pt.origin.file = "(scontrol create)";
	pt.origin.line = 0;
	if (pt.is_default)
		for (size_t i = 0; i < c->nparts; i++)
			c->parts[i].is_default = false;
	if (at == c->nparts)
		c->nparts++;
	else
		part_fini(&c->parts[at]);
	c->parts[at] = pt;
	*slot = at;
	part_defaults(&pt); /* now the conf's */
out:
	if (rc) {
		char *p = strstr(err->msg, "scontrol create:1: ");

		if (p)
			memmove(p, p + 19, strlen(p + 19) + 1);
	}
	part_fini(&pt);
	loader_fini(&ld);
	return rc;
}

int spur_conf_partition_delete(struct spur_conf *c, const char *name, struct spur_error *err)
{
	struct spur_conf_partition *pt = (struct spur_conf_partition *)spur_conf_partition(c, name);

	if (!pt)
		return spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
	pt->deleted = true;
	pt->is_default = false;
	pt->nnodes = 0;
	return 0;
}

/* With no PartitionName line, every node is in partition "batch". */
static int default_partition(struct spur_conf *c, struct spur_error *err)
{
	struct spur_conf_partition pt;

	if (c->nparts)
		return 0;
	part_defaults(&pt);
	pt.is_default = true;
	pt.name = spur_strdup("batch");
	pt.nodes_expr = spur_strdup("ALL");
	pt.nodes = spur_calloc(c->nnodes + 1, sizeof(size_t));
	if (!pt.name || !pt.nodes_expr || !pt.nodes ||
	    spur_grow((void **)&c->parts, &c->parts_cap, 1, sizeof(pt))) {
		part_fini(&pt);
		return oom(err);
	}
	for (size_t i = 0; i < c->nnodes; i++)
		pt.nodes[i] = i;
	pt.nnodes = c->nnodes;
	pt.origin.file = "(built-in)";
	c->parts[c->nparts++] = pt;
	return 0;
}

/* Lex one file (from text or disk) into the loader's doc and interpret
 * the new lines with `fn`. */
static int load_one(struct loader *ld, const char *name, const char *text, unsigned flags,
		    int (*fn)(struct loader *, const struct spur_conf_line *, struct spur_error *),
		    struct spur_error *err)
{
	unsigned lex_flags = (flags & SPUR_CONF_LOAD_NO_INCLUDE) ? SPUR_CONF_NO_INCLUDE : 0;
	size_t first = ld->doc.n;
	int rc;

	rc = text ? spur_conf_lex_buf(&ld->doc, name, text, strlen(text), lex_flags, err)
		  : spur_conf_lex_file(&ld->doc, name, lex_flags, err);
	for (size_t i = first; !rc && i < ld->doc.n; i++)
		rc = fn(ld, &ld->doc.lines[i], err);
	return rc;
}

static int finish(struct loader *ld, struct spur_error *err)
{
	int rc;

	if ((rc = apply_down_nodes(ld, err)) || (rc = resolve_partitions(ld, err)) ||
	    (rc = default_partition(ld->conf, err)) || (rc = resolve_topology(ld, err)) ||
	    (rc = check_gres_counts(ld, err)))
		return rc;
	/* the conf keeps the file names its origins point at */
	ld->conf->files = ld->doc.files;
	ld->conf->nfiles = ld->doc.nfiles;
	ld->conf->files_cap = ld->doc.files_cap;
	ld->doc.files = NULL;
	ld->doc.nfiles = ld->doc.files_cap = 0;
	return 0;
}

struct spur_conf *spur_conf_load_text(const char *slurm_name, const char *slurm_text,
				      const char *gres_text, const char *topo_text,
				      unsigned flags, struct spur_error *err)
{
	struct loader ld = { 0 };
	int rc;

	ld.conf = spur_conf_default(err);
	if (!ld.conf)
		return NULL;
	rc = load_one(&ld, slurm_name, slurm_text, flags, slurm_line, err);
	if (!rc && gres_text)
		rc = load_one(&ld, "gres.conf", gres_text, flags, gres_line, err);
	if (!rc && topo_text)
		rc = load_one(&ld, "topology.conf", topo_text, flags, topo_line, err);
	if (!rc)
		rc = finish(&ld, err);
	loader_fini(&ld);
	if (rc) {
		spur_conf_destroy(ld.conf);
		return NULL;
	}
	return ld.conf;
}

struct spur_conf *spur_conf_load(const char *path, unsigned flags, struct spur_error *err)
{
	struct loader ld = { 0 };
	const char *slash = strrchr(path, '/');
	int rc;

	ld.conf = spur_conf_default(err);
	if (!ld.conf)
		return NULL;
	rc = load_one(&ld, path, NULL, flags, slurm_line, err);
	for (int k = 0; k < 3 && !rc && !(flags & SPUR_CONF_LOAD_NO_SIBLINGS); k++) {
		static const char *const base[] = { "gres.conf", "topology.conf", "spur.conf" };
		char sib[4096];

		snprintf(sib, sizeof(sib), "%.*s%s%s", slash ? (int)(slash - path) : 0, path,
			 slash ? "/" : "", base[k]);
		if (access(sib, F_OK) != 0)
			continue;
		rc = load_one(&ld, sib, NULL, flags, k == 2 ? spur_line : k ? topo_line : gres_line,
			      err);
	}
	if (!rc)
		rc = finish(&ld, err);
	loader_fini(&ld);
	if (rc) {
		spur_conf_destroy(ld.conf);
		return NULL;
	}
	return ld.conf;
}

uint16_t spur_conf_ctld_port(const struct spur_conf *conf, size_t i)
{
	return i < conf->nctlds && conf->ctlds[i].port ? conf->ctlds[i].port : conf->ctld_port;
}

unsigned spur_conf_raft_port(const struct spur_conf *conf, size_t i)
{
	return conf->raft_port ? conf->raft_port : (unsigned)spur_conf_ctld_port(conf, i) + 4;
}

void spur_conf_raft_address(const struct spur_conf *conf, size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", i < conf->nctlds ? conf->ctlds[i].addr : "127.0.0.1",
		 spur_conf_raft_port(conf, i));
}

long spur_hostports_parse(const char *list, uint16_t dflt, struct spur_hostport *out, size_t max)
{
	char *buf = spur_strdup(list), *save = NULL;
	long n = 0;

	if (!buf)
		return -1;
	for (char *t = strtok_r(buf, ",", &save); t && (size_t)n < max;
	     t = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(t, ':'), *end = NULL;
		long port = colon ? strtol(colon + 1, &end, 10) : dflt;

		if (colon)
			*colon = '\0';
		if (!*t || (end && *end) || port <= 0 || port > 65535) {
			n = -1;
			break;
		}
		snprintf(out[n].host, sizeof(out[n].host), "%s", t);
		out[n++].port = (uint16_t)port;
	}
	spur_free(buf);
	return n;
}

size_t spur_conf_ctld_addrs(const struct spur_conf *conf, struct spur_hostport *out, size_t max)
{
	size_t n = 0;

	for (; n < conf->nctlds && n < max; n++) {
		snprintf(out[n].host, sizeof(out[n].host), "%s", conf->ctlds[n].addr);
		out[n].port = spur_conf_ctld_port(conf, n);
	}
	if (!n) {
		snprintf(out[0].host, sizeof(out[0].host), "127.0.0.1");
		out[n++].port = conf->ctld_port;
	}
	return n;
}
