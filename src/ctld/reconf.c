/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol reconfigure (see reconf.h). What a running controller changes:
 *   the cluster's DefMemPerCPU/GPU/Node, DefCpuPerGPU, MaxJobCount,
 *   MaxArraySize, MinJobAge, OverTimeLimit, MailProg, MailDomain, PrologSlurmctld,
 *   EpilogSlurmctld;
 *   each partition's State, MaxTime, DefaultTime, MaxNodes, AllowGroups,
 *   AllowAccounts, DenyAccounts, AllowQos, Hidden, DefMemPerCPU/GPU/Node,
 *   DefCpuPerGPU, MaxMemPerNode, OverSubscribe.
 * Anything else (nodes, partitions added or removed, ports, plugins,
 * weights, the agents' Prolog...) is read at a daemon's start only: a
 * change to it is refused, naming the file and line. */
#include "ctld.h"
#include "reconf.h"
#include "partupdate.h"

#include "common/alloc.h"
#include "common/conf_lex.h"
#include "common/log.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const live_global[] = {
	"DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "DefCpuPerGPU", "MaxJobCount",
	"MaxArraySize", "MinJobAge", "MailProg", "MailDomain", "PrologSlurmctld", "OverTimeLimit",
	"EpilogSlurmctld", NULL,
};
static const char *const live_part[] = {
	"State", "MaxTime", "DefaultTime", "MaxNodes", "AllowGroups", "AllowAccounts",
	"DenyAccounts", "AllowQos", "Hidden", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode",
	"DefCpuPerGPU", "MaxMemPerNode", "OverSubscribe", NULL,
};

static bool in(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcasecmp(*list, key))
			return true;
	return false;
}

/* One file's lines without their live keys, as "LINENO\tkey=value ..."
 * (keys in lower case) in a JSON array; NULL when it cannot be read. */
static json_t *normalized(const char *path, struct spur_error *err)
{
	struct spur_conf_doc doc = { 0 };
	json_t *lines;

	if (spur_conf_lex_file(&doc, path, 0, err)) {
		spur_conf_doc_fini(&doc);
		return NULL;
	}
	lines = json_array();
	for (size_t i = 0; i < doc.n; i++) {
		const struct spur_conf_line *l = &doc.lines[i];
		bool part = l->n && !strcasecmp(l->pairs[0].key, "PartitionName");
		char buf[8192];
		size_t o = (size_t)snprintf(buf, sizeof(buf), "%d\t", l->lineno);

		for (size_t k = 0; k < l->n && o < sizeof(buf); k++) {
			if (k && in(part ? live_part : live_global, l->pairs[k].key))
				continue;
			if (!k && !part && in(live_global, l->pairs[k].key))
				continue;
			for (const char *p = l->pairs[k].key; *p && o + 1 < sizeof(buf); p++)
				buf[o++] = (char)tolower((unsigned char)*p);
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "=%s ", l->pairs[k].value);
		}
		if (o < sizeof(buf) && strchr(buf, '='))
			json_array_append_new(lines, json_string(buf));
	}
	spur_conf_doc_fini(&doc);
	return lines;
}

/* {file: normalized lines} for every file the configuration read. */
static json_t *base_of(const struct spur_conf *cf, struct spur_error *err)
{
	json_t *b = json_object(), *lines;

	for (size_t i = 0; i < cf->nfiles; i++) {
		if (!(lines = normalized(cf->files[i], err))) {
			json_decref(b);
			return NULL;
		}
		json_object_set_new(b, cf->files[i], lines);
	}
	return b;
}

int ctld_reconf_base(struct ctld *c, const char *conf_path, struct spur_error *err)
{
	json_t *b;

	free(c->conf_path);
	c->conf_path = conf_path ? strdup(conf_path) : NULL;
	if (!conf_path)
		return 0;
	if (!(b = base_of(c->conf, err)))
		return err->code;
	json_decref(c->reconf_base);
	c->reconf_base = b;
	return 0;
}

/* The first line outside the live keys that differs; 0 when none. */
static int first_change(const json_t *old, const json_t *now, char *why, size_t len)
{
	const char *file;
	json_t *lines;

	json_object_foreach((json_t *)now, file, lines) {
		const json_t *was = json_object_get(old, file);
		size_t n = json_array_size(lines), m = json_array_size(was);

		for (size_t i = 0; i < n || i < m; i++) {
			const char *a = i < m ? json_string_value(json_array_get(was, i)) : "";
			const char *b = i < n ? json_string_value(json_array_get(lines, i)) : "";

			if (!strcmp(strchr(a, '\t') ? strchr(a, '\t') : a,
				    strchr(b, '\t') ? strchr(b, '\t') : b))
				continue;
			if (*b)
				snprintf(why, len, "%s:%.*s: %s", file, (int)strcspn(b, "\t"), b,
					 strchr(b, '\t') + 1);
			else
				snprintf(why, len, "%s: a line removed (%s)", file,
					 strchr(a, '\t') ? strchr(a, '\t') + 1 : a);
			return 1;
		}
	}
	json_object_foreach((json_t *)old, file, lines)
		if (!json_object_get(now, file)) {
			snprintf(why, len, "%s is no longer read", file);
			return 1;
		}
	return 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The live values of a configuration, as the op carries them. */
static json_t *live_values(const struct spur_conf *cf)
{
	json_t *parts = json_object();
	json_t *g = json_pack("{s:I,s:I,s:I,s:i,s:i,s:i,s:i,s:i,s:o,s:o,s:o,s:o}", "def_mem_per_cpu",
			      (json_int_t)cf->def_mem_per_cpu_mb, "def_mem_per_gpu",
			      (json_int_t)cf->def_mem_per_gpu_mb, "def_mem_per_node",
			      (json_int_t)cf->def_mem_per_node_mb, "def_cpu_per_gpu",
			      (int)cf->def_cpu_per_gpu, "max_job_count", (int)cf->max_job_count,
			      "max_array_size", (int)cf->max_array_size, "min_job_age",
			      (int)cf->min_job_age, "over_time_limit", (int)cf->over_time_limit,
			      "mail_prog", str_or_null(cf->mail_prog),
			      "mail_domain", str_or_null(cf->mail_domain), "prolog_slurmctld",
			      str_or_null(cf->prolog_slurmctld), "epilog_slurmctld",
			      str_or_null(cf->epilog_slurmctld));

	for (size_t i = 0; i < cf->nparts; i++) {
		const struct spur_conf_partition *p = &cf->parts[i];

		json_object_set_new(
			parts, p->name,
			json_pack("{s:i,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:b,s:I,s:I,s:I,s:i,s:I,s:o}",
				  "state", (int)p->state, "max_time", (json_int_t)p->max_time,
				  "default_time", (json_int_t)(p->default_unlimited ? -3 : p->default_time), "max_nodes",
				  (json_int_t)p->max_nodes, "allow_groups",
				  str_or_null(p->allow_groups), "allow_accounts",
				  str_or_null(p->allow_accounts), "deny_accounts",
				  str_or_null(p->deny_accounts), "allow_qos", str_or_null(p->allow_qos),
				  "hidden", p->hidden, "def_mem_per_cpu",
				  (json_int_t)p->def_mem_per_cpu_mb, "def_mem_per_gpu",
				  (json_int_t)p->def_mem_per_gpu_mb, "def_mem_per_node",
				  (json_int_t)p->def_mem_per_node_mb, "def_cpu_per_gpu",
				  (int)p->def_cpu_per_gpu, "max_mem_per_node",
				  (json_int_t)p->max_mem_per_node_mb, "oversubscribe",
				  str_or_null(p->oversubscribe)));
	}
	return json_pack("{s:s,s:I,s:o,s:o}", "op", "reconfig", "time", (json_int_t)ctld_now(),
			 "global", g, "parts", parts);
}

int ctld_reconfigure(struct ctld *c, struct ctld_conn *cn, struct spur_error *err)
{
	struct spur_conf *now;
	json_t *base, *op;
	char why[1024];
	int rc;

	if (!c->conf_path)
		return spur_error_set(err, SPUR_EINVAL,
				      "reconfigure: the controller runs on the built-in "
				      "configuration (no slurm.conf to read again)");
	if (!(now = spur_conf_load(c->conf_path, 0, err)))
		return spur_error_wrap(err, "reconfigure");
	if (!(base = base_of(now, err))) {
		spur_conf_destroy(now);
		return spur_error_wrap(err, "reconfigure");
	}
	if (first_change(c->reconf_base, base, why, sizeof(why))) {
		spur_conf_destroy(now);
		json_decref(base);
		return spur_error_set(err, SPUR_EINVAL,
				      "reconfigure: %s: this change is read only when the daemons "
				      "start; not supported by reconfigure (nothing was changed)",
				      why);
	}
	for (size_t i = 0; i < now->nparts; i++)
		if (!spur_conf_partition(c->conf, now->parts[i].name)) {
			spur_conf_destroy(now);
			json_decref(base);
			return spur_error_set(err, SPUR_EINVAL, "reconfigure: a new partition");
		}
	op = live_values(now);
	spur_conf_destroy(now);
	rc = ctld_commit(c, op, cn, cn ? json_pack("{s:s}", "type", "ok") : NULL, err);
	json_decref(op);
	if (rc) {
		json_decref(base);
		return rc;
	}
	json_decref(c->reconf_base);
	c->reconf_base = base;
	spur_info("reconfigure: slurm.conf read again (%s)", c->conf_path);
	ctld_cycle_soon(c);
	return 0;
}

void ctld_reconf_on_lead(struct ctld *c)
{
	struct spur_error err;
	struct spur_conf *file;
	json_t *want, *have;

	/* no reconfigure in the log: this process read the file at its start */
	if (!c->conf_path || !c->reconf_op || !(file = spur_conf_load(c->conf_path, 0, &err)))
		return;
	want = live_values(file);
	have = json_incref(c->reconf_op);
	spur_conf_destroy(file);
	if (!json_equal(json_object_get(want, "global"), json_object_get(have, "global")) ||
	    !json_equal(json_object_get(want, "parts"), json_object_get(have, "parts"))) {
		spur_info("slurm.conf's live keys differ from the log's: applying the file's");
		if (ctld_reconfigure(c, NULL, &err))
			spur_warn("%s", err.msg);
	}
	json_decref(want);
	json_decref(have);
}

void ctld_handle_reconfigure(struct ctld_conn *cn, json_t *msg)
{
	struct spur_error err;

	(void)msg;
	if (ctld_reconfigure(cn->c, cn, &err)) {
		spur_warn("%s", err.msg);
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", err.code,
					     "message", err.msg));
	}
}

static int set_str(char **dst, const json_t *v)
{
	char *s = json_is_string(v) ? spur_strdup(json_string_value(v)) : NULL;

	if (json_is_string(v) && !s)
		return SPUR_ENOMEM;
	spur_free(*dst);
	*dst = s;
	return 0;
}

/* A partition's live values; its state and times through part_update (the
 * scheduler's copy and snapshots follow). */
static int apply_part(struct ctld *c, const char *name, const json_t *v, struct spur_error *err)
{
	struct spur_conf_partition *pt = (struct spur_conf_partition *)spur_conf_partition(c->conf, name);
	static const char *const states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };
	int64_t mt = spur_json_int(v, "max_time", SPUR_TIME_INFINITE);
	int64_t dt = spur_json_int(v, "default_time", SPUR_TIME_INFINITE);
	int64_t mn = spur_json_int(v, "max_nodes", SPUR_CONF_UNLIMITED);
	json_t *pu;
	int rc;

	if (!pt)
		return spur_error_set(err, SPUR_ENOENT, "reconfig: no partition %s", name);
	pu = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I}", "op", "part_update", "name", name, "state",
		       states[spur_json_int(v, "state", 0) & 3], "max_time",
		       (json_int_t)(mt == SPUR_TIME_INFINITE ? -1 : mt), "default_time",
		       (json_int_t)(dt == SPUR_TIME_INFINITE ? -1 : dt), "max_nodes",
		       (json_int_t)(mn == SPUR_CONF_UNLIMITED ? -1 : mn));
	rc = ctld_apply_part_update(c, pu, err);
	json_decref(pu);
	if (rc)
		return rc;
	if (set_str(&pt->allow_groups, json_object_get(v, "allow_groups")) ||
	    set_str(&pt->allow_accounts, json_object_get(v, "allow_accounts")) ||
	    set_str(&pt->deny_accounts, json_object_get(v, "deny_accounts")) ||
	    set_str(&pt->allow_qos, json_object_get(v, "allow_qos")) ||
	    set_str(&pt->oversubscribe, json_object_get(v, "oversubscribe")))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	pt->hidden = spur_json_bool(v, "hidden", 0);
	pt->def_mem_per_cpu_mb = (uint64_t)spur_json_int(v, "def_mem_per_cpu", 0);
	pt->def_mem_per_gpu_mb = (uint64_t)spur_json_int(v, "def_mem_per_gpu", 0);
	pt->def_mem_per_node_mb = (uint64_t)spur_json_int(v, "def_mem_per_node", 0);
	pt->def_cpu_per_gpu = (uint32_t)spur_json_int(v, "def_cpu_per_gpu", 0);
	pt->max_mem_per_node_mb = (uint64_t)spur_json_int(v, "max_mem_per_node", 0);
	return 0;
}

int ctld_apply_reconfig(struct ctld *c, const json_t *op, struct spur_error *err)
{
	const json_t *g = json_object_get(op, "global"), *parts = json_object_get(op, "parts"), *v;
	struct spur_conf *cf = c->conf;
	const char *name;
	uint32_t over;

	if (!json_is_object(g) || !json_is_object(parts))
		return spur_error_set(err, SPUR_EINVAL, "reconfig: no global or parts");
	json_object_foreach((json_t *)parts, name, v)
		if (!spur_conf_partition(cf, name))
			return spur_error_set(err, SPUR_ENOENT, "reconfig: no partition %s", name);
	json_object_foreach((json_t *)parts, name, v)
		if (apply_part(c, name, v, err))
			return err->code;
	cf->def_mem_per_cpu_mb = (uint64_t)spur_json_int(g, "def_mem_per_cpu", 0);
	cf->def_mem_per_gpu_mb = (uint64_t)spur_json_int(g, "def_mem_per_gpu", 0);
	cf->def_mem_per_node_mb = (uint64_t)spur_json_int(g, "def_mem_per_node", 0);
	cf->def_cpu_per_gpu = (uint32_t)spur_json_int(g, "def_cpu_per_gpu", 0);
	cf->max_job_count = (uint32_t)spur_json_int(g, "max_job_count", cf->max_job_count);
	cf->max_array_size = (uint32_t)spur_json_int(g, "max_array_size", cf->max_array_size);
	cf->min_job_age = (uint32_t)spur_json_int(g, "min_job_age", cf->min_job_age);
	over = cf->over_time_limit;
	cf->over_time_limit = (uint32_t)spur_json_int(g, "over_time_limit", cf->over_time_limit);
	/* OverTimeLimit holds for the running jobs too, as Slurm's controller
	 * checks it: their batch hosts' supervisors are told */
	for (size_t id = 0; over != cf->over_time_limit && id < c->jobs_cap; id++) {
		struct sched_job_info info;

		if (c->jobs[id] && !sched_job_info(c->sched, (uint32_t)id, &info) &&
		    info.state == SCHED_JOB_RUNNING)
			ctld_limit_nodes(c, (uint32_t)id, &info);
	}
	if (set_str(&cf->mail_prog, json_object_get(g, "mail_prog")) ||
	    set_str(&cf->mail_domain, json_object_get(g, "mail_domain")) ||
	    set_str(&cf->prolog_slurmctld, json_object_get(g, "prolog_slurmctld")) ||
	    set_str(&cf->epilog_slurmctld, json_object_get(g, "epilog_slurmctld")))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	json_decref(c->reconf_op);
	c->reconf_op = json_deep_copy(op);
	spur_info("reconfig applied");
	return 0;
}

json_t *ctld_reconf_state_op(const struct ctld *c)
{
	return c->reconf_op ? json_incref(c->reconf_op) : NULL;
}
