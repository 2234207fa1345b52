/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld's request handlers: one function per message type. */
#include "ctld.h"
#include "partaccess.h"
#include "resv.h"
#include "assoc.h"
#include "report.h"
#include "nodeadmin.h"
#include "partupdate.h"
#include "jobdefs.h"
#include "reconf.h"

#include "common/alloc.h"
#include "common/gres.h"
#include "common/hostlist.h"
#include "common/jobfmt.h"
#include "common/jobspec.h"
#include "common/mpmd.h"
#include "common/log.h"
#include "io/uvwire.h"

#include <ctype.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <strings.h>

static void reply_error(struct ctld_conn *cn, int code, const char *msg)
{
	ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", code, "message", msg));
}

/* Slurm's words in message; the line its commands print before them in
 * detail. */
static void reply_error_detail(struct ctld_conn *cn, int code, const char *msg,
			       const char *detail)
{
	ctld_conn_send(cn, json_pack("{s:s,s:i,s:s,s:s?}", "type", "error", "code", code, "message",
				     msg, "detail", detail));
}

static void reply_ok(struct ctld_conn *cn, json_t *body)
{
	json_object_set_new(body, "type", json_string("ok"));
	ctld_conn_send(cn, body);
}

/* root, SlurmUser, and a controller acting for a user are administrators. */
static bool is_admin(const struct ctld_conn *cn)
{
	const char *su = cn->c->conf->slurm_user;

	return cn->authed && (cn->who.uid == 0 || cn->who.role == SPUR_ROLE_CONTROLLER ||
			      (su && !strcmp(su, cn->who.user)));
}

/* Users see and change only their own jobs; administrators, every job. */
static bool owns(const struct ctld_conn *cn, const struct ctld_job *cj)
{
	return is_admin(cn) ||
	       (cj && cn->authed && spur_json_int(cj->spec, "uid", -1) == (json_int_t)cn->who.uid);
}

#define ACCESS_DENIED "Access/permission denied"

/* Refuse (and answer) a request on job id the caller may not touch. */
static bool denied(struct ctld_conn *cn, uint32_t id)
{
	struct ctld_job *cj = ctld_job(cn->c, id);

	if (!cj || owns(cn, cj))
		return false;
	spur_info("%s (uid %u) may not act on job %u", cn->who.user, cn->who.uid, id);
	reply_error(cn, SPUR_EPERM, ACCESS_DENIED);
	return true;
}

/* Dependency= as Slurm shows it: each one still waited on with
 * "(unfulfilled)", or "(failed)" when it can never be met; "(null)" once
 * they are met (Slurm drops them). */
static void dependency_shown(const struct sched_job_info *info, const json_t *sp, json_t *o)
{
	const char *d = spur_json_str(sp, "dependency", "");
	const char *tag = info->reason == SCHED_REASON_DEPENDENCY	 ? "(unfulfilled)"
			  : info->reason == SCHED_REASON_DEPENDENCY_NEVER ? "(failed)"
									  : NULL;
	char buf[1024];
	size_t o2 = 0;

	if (!*d || !tag || info->state != SCHED_JOB_PENDING) {
		json_object_del(o, "dependency");
		return;
	}
	for (const char *p = d; *p && o2 + 32 < sizeof(buf);) {
		size_t l = strcspn(p, ",?");

		o2 += (size_t)snprintf(buf + o2, sizeof(buf) - o2, "%s%.*s%s", o2 ? "," : "", (int)l,
				       p, tag);
		p += l + (p[l] != '\0');
	}
	json_object_set_new(o, "dependency", json_string(buf));
}

/* The rest of what scontrol show job prints, as the job asked for it. */
static void job_json_more(const struct ctld_job *cj, const struct sched_job_info *info, json_t *o)
{
	static const char *const strs[] = { "comment", "wckey",	  "qos",	"dependency",
					    "error",   "input",	  "constraint", "nodelist",
					    "exclude", "reservation", "open_mode", "licenses",
					    "mail_type", "mail_user", "submit_host" };
	static const char *const ints[] = { "mem_per_cpu", "mem_per_gpu", "cpus_per_gpu",
					    "min_cpus",	   "tmp_mb",	  "time_min",
					    "deadline",	   "alloc_sid",	  "ntasks_per_node",
					    "begin" };
	const json_t *sp = cj->spec;
	json_int_t cpus = 0;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (json_is_string(json_object_get(sp, strs[i])))
			json_object_set(o, strcmp(strs[i], "nodelist") ? strs[i] : "nodelist_req",
					json_object_get(sp, strs[i]));
	for (size_t k = 0; k < info->nalloc; k++)
		cpus += info->alloc[k].cpus;
	if (!cpus && info->state != SCHED_JOB_PENDING) /* ended: what it had */
		cpus = (json_int_t)cj->cpus;
	if (!cpus) /* pending: what it asks for */
		cpus = (json_int_t)(spur_json_int(sp, "ntasks", 0) ? spur_json_int(sp, "ntasks", 0)
								   : spur_json_int(sp, "nodes", 1)) *
		       spur_json_int(sp, "cpus_per_task", 1);
	json_object_set_new(o, "num_cpus", json_integer(cpus));
	dependency_shown(info, sp, o);
	json_object_set_new(o, "nice", json_integer(spur_json_int(sp, "nice", 0)));
	json_object_set_new(o, "mem_per_node", json_integer(spur_json_int(sp, "mem_per_node", 0)));
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (json_object_get(sp, ints[i]))
			json_object_set(o, ints[i], json_object_get(sp, ints[i]));
	json_object_set_new(o, "mem_alloc", json_integer((json_int_t)cj->mem_mb));
	json_object_set_new(o, "batch", json_boolean(!ctld_job_interactive(cj)));
	json_object_set_new(o, "exclusive", json_boolean(spur_json_bool(sp, "exclusive", 0)));
	json_object_set_new(o, "exclusive_user",
			    json_boolean(spur_json_bool(sp, "exclusive_user", 0)));
	json_object_set_new(o, "oversubscribe",
			    json_boolean(spur_json_bool(sp, "oversubscribe", 0)));
	json_object_set_new(o, "contiguous", json_boolean(spur_json_bool(sp, "contiguous", 0)));
	json_object_set_new(o, "command", json_string(spur_json_str(sp, "command", "")));
}

/* Array task ids as Slurm writes a set of them, "0-9,12", built from ids
 * in ascending order: add them one by one, then rs_text. */
struct range_str {
	char buf[256];
	size_t len;
	uint32_t lo, hi;
	bool open;
};

/* False, and id not taken, when the text is as long as a row shows. */
static bool rs_add(struct range_str *r, uint32_t id)
{
	if (r->open && id == r->hi + 1) {
		r->hi = id;
		return true;
	}
	if (r->open) {
		if (r->len > 200)
			return false;
		r->len += (size_t)snprintf(r->buf + r->len, sizeof(r->buf) - r->len,
					   r->len ? ",%u" : "%u", r->lo);
		if (r->hi > r->lo)
			r->len += (size_t)snprintf(r->buf + r->len, sizeof(r->buf) - r->len, "-%u",
						   r->hi);
	}
	r->lo = r->hi = id;
	r->open = true;
	return true;
}

static const char *rs_text(struct range_str *r)
{
	if (r->open) {
		rs_add(r, r->hi + 2); /* closes the last run */
		r->open = false;
	}
	return r->buf;
}

/* The task ids of array job id's tasks with no record, from index *from,
 * into r until its text is full (*from then at the first not taken);
 * false when there were none. */
static bool rest_ranges(struct ctld *c, uint32_t id, uint32_t *from, struct range_str *r,
			uint32_t *first_job)
{
	uint32_t jids[1024], tids[1024], at = *from;
	size_t got;
	bool any = false;

	memset(r, 0, sizeof(*r));
	while ((got = sched_array_rest_ids(c->sched, id, &at, jids, tids, 1024))) {
		for (size_t k = 0; k < got; k++) {
			if (!rs_add(r, tids[k])) {
				*from = jids[k] - id;
				return true;
			}
			if (!any)
				*first_job = jids[k];
			any = true;
		}
	}
	*from = at;
	return any;
}

static json_t *job_json(struct ctld *c, const struct ctld_job *cj, const struct sched_job_info *i);

json_t *ctld_job_json(struct ctld *c, uint32_t id)
{
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;

	if (!cj || sched_job_info(c->sched, id, &info))
		return NULL;
	return job_json(c, cj, &info);
}

/* An array's tasks that have no record, as one job (Slurm's pending meta
 * record): the first one's id, "array_task_string" their task ids. */
static json_t *rest_json(struct ctld *c, const struct sched_job_info *meta)
{
	const struct ctld_job *first = ctld_job(c, meta->id);
	struct sched_job_info t = *meta;
	struct range_str r;
	uint32_t from = 0, jid = 0;
	json_t *o;

	if (!first || !rest_ranges(c, meta->id, &from, &r, &jid))
		return NULL;
	t.id = jid;
	o = job_json(c, first, &t);
	if (o) {
		const char *more = from < sched_array_size(c->sched, meta->id) ? ",..." : "";
		char *str = spur_asprintf("%s%s", rs_text(&r), more);

		json_object_set_new(o, "job_id", json_integer(jid));
		json_object_set_new(o, "nodelist", json_string(""));
		json_object_set_new(o, "array_task_string", json_string(str ? str : ""));
		free(str);
	}
	return o;
}


/* A job's end as Slurm shows it: expected while running, and for a
 * pending job with an expected start, that start plus its time limit; 0
 * when unknown. */
static int64_t ctld_job_end(const struct sched_job_info *info)
{
	if (info->state == SCHED_JOB_PENDING)
		return info->est_start && info->time_limit > 0 && info->time_limit != SCHED_INFINITE
			       ? info->est_start + info->time_limit
			       : 0;
	return info->end_time == SCHED_INFINITE ? 0 : info->end_time;
}

static json_t *job_json(struct ctld *c, const struct ctld_job *cj, const struct sched_job_info *i)
{
	const struct sched_job_info info = *i;
	uint32_t id = info.id;
	const json_t *sp = cj->spec;
	json_t *o;

	o = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:i,s:s,s:s,s:i}", "job_id",
		      (int)id, "name", spur_json_str(sp, "name", ""), "user",
		      spur_json_str(sp, "user", ""), "account", spur_json_str(sp, "account", ""),
		      "state", ctld_state_name(&info), "reason",
		      sched_reason_name(info.reason), "priority", (int)info.priority, "submit_time",
		      (json_int_t)info.submit_time, "start_time",
		      (json_int_t)(info.state == SCHED_JOB_PENDING ? info.est_start : cj->start),
		      "end_time", (json_int_t)ctld_job_end(&info), "time_limit",
		      (json_int_t)(info.time_limit && info.time_limit != SCHED_INFINITE
					   ? info.time_limit
					   : spur_json_int(sp, "time_limit", 0)),
		      "nodes",
		      (int)(info.nalloc ? info.nalloc
				  : info.nodes ? info.nodes
					       : (size_t)spur_json_int(sp, "nodes", 1)),
		      "nodelist", cj->nodes ? cj->nodes : "", "gres", spur_json_str(sp, "gres", ""),
		      "exit_code", cj->exit_code);
	json_object_set_new(o, "partition", json_string(ctld_job_partition(c, cj, &info)));
	if (info.suspend_time) { /* scontrol suspend: run time without the time stopped */
		int64_t until = info.suspended ? info.suspend_time
				: info.state == SCHED_JOB_RUNNING ? ctld_now()
								  : info.end_time;

		json_object_set_new(o, "run_secs",
				    json_integer(until - info.start_time - info.suspended_secs));
		json_object_set_new(o, "suspend_time", json_integer(info.suspend_time));
		json_object_set_new(o, "pre_suspend", json_integer(info.pre_suspend));
	}
	/* an ended job whose container did not start: why, as its Reason */
	if (cj->end_op && json_is_string(json_object_get(cj->end_op, "why")) &&
	    info.state != SCHED_JOB_PENDING && info.state != SCHED_JOB_RUNNING)
		json_object_set(o, "reason", json_object_get(cj->end_op, "why"));
	if (info.array_job_id) {
		json_object_set_new(o, "array_job_id", json_integer(info.array_job_id));
		json_object_set_new(o, "array_task_id", json_integer(info.array_task_id));
	}
	json_object_set_new(o, "workdir", json_string(spur_json_str(sp, "workdir", "")));
	json_object_set_new(o, "uid", json_integer(spur_json_int(sp, "uid", 0)));
	json_object_set_new(o, "gid", json_integer(spur_json_int(sp, "gid", 0)));
	json_object_set_new(o, "output", json_string(spur_json_str(sp, "output", "")));
	json_object_set_new(o, "ntasks", json_integer(spur_json_int(sp, "ntasks", 0)));
	json_object_set_new(o, "cpus_per_task", json_integer(spur_json_int(sp, "cpus_per_task", 1)));
	json_object_set_new(o, "gpus", json_string(cj->gpus ? cj->gpus : ""));
	json_object_set_new(o, "requeue", json_integer(spur_json_bool(sp, "requeue", 1)));
	json_object_set_new(o, "restarts",
			    json_integer(cj->start_op ? cj->runs - 1 : cj->runs));
	job_json_more(cj, &info, o);
	return o;
}

/* Commit op (stolen) for job id; answer the client once it is committed;
 * run a cycle. */
/* An array's job id, not "J_T", names every task of it, as in Slurm
 * (scontrol hold, release, update): the op says so. */
static json_t *whole_array(struct ctld_conn *cn, const json_t *msg, json_t *op)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);

	if (op && !spur_json_bool(msg, "one_task", 0) && sched_array_size(cn->c->sched, id))
		json_object_set_new(op, "array", json_true());
	return op;
}

static void commit_reply(struct ctld_conn *cn, json_t *op, uint32_t id)
{
	struct spur_error err;
	json_t *ok = json_pack("{s:s,s:i}", "type", "ok", "job_id", (int)id);
	int rc = ctld_commit(cn->c, op, cn, ok, &err);

	json_decref(op);
	if (rc) {
		reply_error(cn, rc, err.msg);
		return;
	}
	ctld_cycle_soon(cn->c);
}

/* Numbers in a submission must be in range before they reach the core's
 * unsigned fields; the message names the field. */
static bool job_numbers_ok(const json_t *job, char *why, size_t len)
{
	static const struct {
		const char *key;
		json_int_t max;
	} limits[] = {
		{ "nodes", 100000 },	      { "ntasks", 10000000 },	{ "cpus_per_task", 100000 },
		{ "mem_per_node", INT64_C(1) << 40 }, { "gpus_per_node", 16 }, { "gpus", 1600000 },
		{ "gpus_per_task", 16 },     { "time_limit", INT64_C(1) << 40 }, { "nice", 2147483645 },
		{ "ntasks_per_node", 100000 }, { "begin", INT64_C(1) << 40 },
		{ "mem_per_cpu", INT64_C(1) << 40 }, { "mem_per_gpu", INT64_C(1) << 40 },
		{ "cpus_per_gpu", 100000 }, { "min_cpus", 4294967294 }, { "ntasks_per_gpu", 100000 },
		{ "priority", 4000000000 }, { "tmp_mb", INT64_C(1) << 40 },
		{ "time_min", INT64_C(1) << 40 }, { "deadline", INT64_C(1) << 40 },
	};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		const json_t *v = json_object_get(job, limits[i].key);

		if (!v)
			continue;
		if (json_is_integer(v) && json_integer_value(v) > limits[i].max &&
		    (!strcmp(limits[i].key, "nodes") || !strcmp(limits[i].key, "ntasks"))) {
			/* as many nodes or tasks as no cluster has: Slurm's words */
			snprintf(why, len, "More processors requested than permitted");
			return false;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > limits[i].max) {
			snprintf(why, len, "invalid %s: expected a whole number 0-%" JSON_INTEGER_FORMAT,
				 limits[i].key, limits[i].max);
			return false;
		}
	}
	return true;
}

/* What bounds one submission: the script's size and bytes (Slurm's
 * max_script_size and its NUL check), the array's ids (MaxArraySize) and
 * the jobs held (MaxJobCount). Answers and returns false when refused. */
static bool submit_bounded(struct ctld_conn *cn, const json_t *job)
{
	const struct spur_conf *cf = cn->c->conf;
	const json_t *script = json_object_get(job, "script");
	const char *array = spur_json_str(job, "array", NULL);
	struct spur_array_spec a = { 0 };
	struct spur_error err;
	char detail[256];
	size_t ntasks = 1;

	if (json_string_length(script) > cf->max_script_size) {
		snprintf(detail, sizeof(detail),
			 "the batch script is %zu bytes, more than max_script_size=%u",
			 json_string_length(script), cf->max_script_size);
		reply_error_detail(cn, SPUR_EINVAL,
				   "Pathname of a file, directory or other parameter too long",
				   detail);
		return false;
	}
	if (memchr(json_string_value(script), '\0', json_string_length(script))) {
		reply_error(cn, SPUR_EINVAL,
			    "The Slurm controller does not allow scripts that contain a NULL "
			    "character '\\0'.");
		return false;
	}
	if (array) {
		if (spur_array_parse(array, cf->max_array_size ? cf->max_array_size - 1 : 0, &a,
				     &err)) {
			reply_error_detail(cn, SPUR_EINVAL, "Invalid job array specification", err.msg);
			return false;
		}
		ntasks = a.n;
		spur_array_fini(&a);
	}
	if (sched_job_count(cn->c->sched) + ntasks > cf->max_job_count) {
		snprintf(detail, sizeof(detail), "MaxJobCount=%u reached", cf->max_job_count);
		/* sbatch sends it again for MessageTimeout, then says so */
		reply_error_detail(cn, SPUR_ERETRY, "Resource temporarily unavailable", detail);
		return false;
	}
	return true;
}

/* The partition's AllowGroups, AllowAccounts... let the job in; else it
 * is refused in Slurm's words (the detail to the log). */
static bool part_allows(struct ctld_conn *cn, const struct spur_conf_partition *pt,
			const json_t *job)
{
	struct spur_error err;
	char *paren;

	/* State=DRAIN or INACTIVE (slurm.conf or scontrol update): no new jobs */
	if (pt->state == SPUR_PART_DRAIN || pt->state == SPUR_PART_INACTIVE) {
		spur_info("submission by %s refused: partition %s is %s", cn->who.user, pt->name,
			  pt->state == SPUR_PART_DRAIN ? "DRAIN" : "INACTIVE");
		reply_error(cn, SPUR_EPERM, "Required partition not available (inactive or drain)");
		return false;
	}
	if (!ctld_part_access(pt, job, (uid_t)spur_json_int(job, "uid", cn->who.uid), &err))
		return true;
	spur_info("submission by %s refused: %s", cn->who.user, err.msg);
	if ((paren = strstr(err.msg, " (")))
		*paren = '\0';
	reply_error(cn, err.code, err.msg);
	return false;
}

/* The job's partitions (or the default one) exist and let it in, at
 * submission and at update; else the answer is Slurm's words, the detail
 * line before the reason. */
static bool job_partitions_ok(struct ctld_conn *cn, const json_t *job)
{
	const struct spur_conf *cf = cn->c->conf;
	const char *pl = spur_json_str(job, "partition", NULL);

	if (!pl)
		return !spur_conf_default_partition(cf) ||
		       part_allows(cn, spur_conf_default_partition(cf), job);
	for (const char *p = pl; *p;) {
		size_t l = strcspn(p, ",");
		char name[128], detail[256];

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		p += l + (p[l] == ',');
		if (!spur_conf_partition(cf, name)) {
			snprintf(detail, sizeof(detail), "invalid partition specified: %s", name);
			reply_error_detail(cn, SPUR_ENOENT, "Invalid partition name specified", detail);
			return false;
		}
		if (!part_allows(cn, spur_conf_partition(cf, name), job))
			return false;
	}
	return true;
}

/* --hint: Spur places by CPUs, which is what each hint asks where a core
 * has one thread; where one has more, the hint would change the placement,
 * so it is refused there (never accepted and dropped). */
static bool hint_ok(struct ctld_conn *cn, const json_t *job)
{
	const struct spur_conf *cf = cn->c->conf;
	const char *hint = spur_json_str(job, "hint", NULL), *pl = spur_json_str(job, "partition", NULL);
	char why[256];

	if (!hint)
		return true;
	for (const char *p = pl ? pl : ""; !pl || *p;) {
		size_t l = strcspn(p, ",");
		char name[128];
		const struct spur_conf_partition *part;

		snprintf(name, sizeof(name), "%.*s", (int)l, p);
		part = pl ? spur_conf_partition(cf, name) : spur_conf_default_partition(cf);
		for (size_t i = 0; part && i < part->nnodes; i++)
			if (cf->nodes[part->nodes[i]].threads_per_core > 1) {
				snprintf(why, sizeof(why),
					 "--hint=%s on nodes with ThreadsPerCore>1 (%s) is not "
					 "supported by Spur",
					 hint, cf->nodes[part->nodes[i]].name);
				reply_error(cn, SPUR_EUNSUPP, why);
				return false;
			}
		if (!pl)
			break;
		p += l + (p[l] == ',');
	}
	return true;
}

/* Who the job runs as: the authenticated caller, or, for root alone,
 * sbatch --uid/--gid's user and group; --priority is an administrator's.
 * Answers and returns false when refused. */
static bool submit_identity(struct ctld_conn *cn, json_t *job)
{
	json_t *as_uid = json_object_get(job, "as_uid"), *as_gid = json_object_get(job, "as_gid");
	struct passwd *pw;

	if (json_object_get(job, "priority") && !is_admin(cn)) {
		spur_info("submission by %s refused: --priority is an administrator's", cn->who.user);
		reply_error_detail(cn, SPUR_EPERM, ACCESS_DENIED, "--priority is an administrator's");
		return false;
	}
	if (!as_uid && !as_gid) {
		json_object_set_new(job, "user", json_string(cn->who.user));
		json_object_set_new(job, "uid", json_integer(cn->who.uid));
		json_object_set_new(job, "gid", json_integer(cn->who.gid));
		return true;
	}
	if (cn->who.uid != 0) {
		spur_info("submission by %s refused: --uid/--gid are root's", cn->who.user);
		reply_error_detail(cn, SPUR_EPERM, ACCESS_DENIED, "--uid and --gid are root's");
		return false;
	}
	pw = as_uid && json_is_integer(as_uid) ? getpwuid((uid_t)json_integer_value(as_uid)) : NULL;
	if (!pw) {
		reply_error(cn, SPUR_EINVAL, "Invalid user id");
		return false;
	}
	json_object_set_new(job, "user", json_string(pw->pw_name));
	json_object_set_new(job, "uid", json_integer(pw->pw_uid));
	json_object_set_new(job, "gid", json_integer(as_gid && json_is_integer(as_gid)
							      ? json_integer_value(as_gid)
							      : (json_int_t)pw->pw_gid));
	spur_info("root submits a job as %s (--uid/--gid)", pw->pw_name);
	json_object_del(job, "as_uid");
	json_object_del(job, "as_gid");
	return true;
}

/* Everything a submission goes through before its op (sbatch --test-only
 * too): its shape and bounds, who it runs as, its account and QOS, the
 * site's job_submit.lua, its partitions, its defaults. Answers and returns
 * false when refused. */
static bool submit_prepare(struct ctld_conn *cn, json_t *job, char *user_msg, size_t len)
{
	struct ctld *c = cn->c;
	struct spur_error err;
	char why[128];

	if (!json_is_object(job) || !json_is_string(json_object_get(job, "script"))) {
		reply_error(cn, SPUR_EINVAL, "submit: a job with a script is required");
		return false;
	}
	if (!job_numbers_ok(job, why, sizeof(why))) {
		reply_error(cn, SPUR_EINVAL, why);
		return false;
	}
	/* the job runs as the authenticated caller, whatever it claims (root:
	 * as --uid says) */
	if (!submit_bounded(cn, job) || !submit_identity(cn, job))
		return false;
	if (spur_json_int(job, "uid", 0) == 0 && c->conf->disable_root_jobs) {
		spur_info("submission by root refused: DisableRootJobs");
		reply_error_detail(cn, SPUR_EPERM, "User ID missing from request",
				   "jobs of root are disabled (DisableRootJobs=YES)");
		return false;
	}
	/* no -A: the user's default account (sacctmgr); account names are
	 * lowercase, as Slurm's */
	ctld_lower(job, "account");
	if (!*spur_json_str(job, "account", "") &&
	    ctld_assoc_default_account(c, spur_json_str(job, "user", "")))
		json_object_set_new(job, "account",
				    json_string(ctld_assoc_default_account(c, spur_json_str(job, "user", ""))));
	/* the association's DefaultQOS; with enforce=qos, its QOS list; the
	 * site's job_submit.lua may change the job or refuse it */
	if (ctld_assoc_qos(c, job, &err)) {
		reply_error(cn, err.code, err.msg);
		return false;
	}
	if (c->jobsubmit &&
	    ctld_jobsubmit_run(c->jobsubmit, c->conf, job, cn->who.uid, user_msg, len, &err)) {
		spur_info("submission by %s refused by job_submit.lua: %s", cn->who.user, err.msg);
		reply_error_detail(cn, err.code, err.msg, *user_msg ? user_msg : NULL);
		return false;
	}
	if (!job_partitions_ok(cn, job) || !hint_ok(cn, job))
		return false;
	if (ctld_job_defaults(c->conf, job, &err)) {
		reply_error(cn, err.code, err.msg);
		return false;
	}
	return true;
}

/* A submission the core refused: Slurm's phrase to the user, the detail
 * in parentheses to the log; a limit's name on its own line first. */
static void reply_refused(struct ctld_conn *cn, const json_t *job, int rc, struct spur_error *err)
{
	char *paren = strstr(err->msg, " ("), *tab = strchr(err->msg, '\t');

	spur_info("submission by %s refused: %s", spur_json_str(job, "user", "?"), err->msg);
	if (paren && (!strncmp(err->msg, "Requested node configuration", 28) ||
		      !strncmp(err->msg, "Invalid license specification", 29)))
		*paren = '\0';
	if (tab) {
		*tab = '\0';
		reply_error_detail(cn, rc, err->msg, tab + 1);
		return;
	}
	reply_error(cn, rc, err->msg);
}

static void handle_submit(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *job = json_object_get(msg, "job");
	struct spur_error err;
	uint32_t id = c->next_id;
	json_t *op, *ok;
	char user_msg[1024] = "";
	struct ctld_job *cj;
	int rc;

	if (!submit_prepare(cn, job, user_msg, sizeof(user_msg)))
		return;
	op = json_pack("{s:s,s:i,s:I,s:O}", "op", "submit", "id", (int)id, "time",
		       (json_int_t)ctld_now(), "job", job);
	ok = json_pack("{s:s,s:i}", "type", "ok", "job_id", (int)id);
	if (*user_msg) /* job_submit.lua's words to the user, said by sbatch */
		json_object_set_new(ok, "user_msg", json_string(user_msg));
	rc = ctld_commit(c, op, cn, ok, &err);
	json_decref(op);
	if (rc) {
		reply_refused(cn, job, rc, &err);
		return;
	}
	spur_info("job %u submitted by %s", id, spur_json_str(job, "user", "?"));
	c->stats.submitted++;
	cj = ctld_job(c, id);
	if (spur_json_bool(msg, "wait", 0))
		cj->waiter = cn;
	if (ctld_job_interactive(cj))
		cj->owner = cn;
	cn->holds_jobs |= cj->waiter == cn || cj->owner == cn;
	ctld_cycle_soon(c);
}

/* sbatch/srun --test-only: the checks of a submission, then when and where
 * the core could start it (nothing is committed; the id is the next one). */
static void handle_will_run(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *job = json_object_get(msg, "job");
	struct sched_job_spec sp;
	struct spur_gres_list g = { 0 };
	struct sched_will_run wr;
	struct spur_hostlist *hl;
	struct spur_error err;
	char user_msg[1024] = "", *names;
	uint32_t *nodes;
	int rc;

	if (!submit_prepare(cn, job, user_msg, sizeof(user_msg)))
		return;
	if (!(nodes = calloc(c->conf->nnodes + 1, sizeof(*nodes)))) {
		reply_error(cn, SPUR_ENOMEM, "out of memory");
		return;
	}
	rc = ctld_job_spec(job, c->next_id, &sp, &g, &err);
	if (!rc)
		rc = sched_will_run(c->sched, &sp, nodes, &wr, &err);
	spur_gres_fini(&g);
	if (rc || !wr.count) {
		if (!rc)
			spur_error_set(&err, rc = SPUR_EINVAL,
				       "Requested node configuration is not available");
		free(nodes);
		reply_refused(cn, job, rc, &err);
		return;
	}
	hl = spur_hostlist_create();
	for (size_t i = 0; i < wr.count; i++)
		spur_hostlist_push(hl, c->conf->nodes[nodes[i]].name, NULL);
	names = spur_hostlist_ranged(hl, NULL);
	reply_ok(cn, json_pack("{s:i,s:I,s:i,s:s,s:s}", "job_id", (int)c->next_id, "start",
			       (json_int_t)wr.start, "cpus", (int)wr.cpus, "nodes", names ? names : "",
			       "partition", c->conf->parts[wr.partition].name));
	free(names);
	spur_hostlist_destroy(hl);
	free(nodes);
}

/* The format engine's view of a job (strings borrowed from the records). */
static void fmt_job(struct ctld *c, const struct ctld_job *cj, const struct sched_job_info *info,
		    struct spur_jobfmt_job *f)
{
	const json_t *sp = cj->spec;
	bool pending = info->state == SCHED_JOB_PENDING;

	f->job_id = cj->id;
	f->array_job_id = info->array_job_id;
	f->array_task_id = info->array_job_id ? info->array_task_id : -1;
	f->array_tasks = NULL;
	/* pending: what the scheduler counts (-n alone spreads over nodes) */
	f->nodes = info->nalloc ? (uint32_t)info->nalloc
		   : info->nodes ? info->nodes
				 : (uint32_t)spur_json_int(sp, "nodes", 1);
	f->ntasks = (uint32_t)spur_json_int(sp, "ntasks", 0);
	f->cpus_per_task = (uint32_t)spur_json_int(sp, "cpus_per_task", 1);
	/* a held job has priority 0, as in Slurm */
	f->priority = info->reason == SCHED_REASON_HELD_USER || info->reason == SCHED_REASON_HELD_ADMIN
			      ? 0
			      : info->priority;
	f->partition = ctld_job_partition(c, cj, info);
	f->name = spur_json_str(sp, "name", "");
	f->user = spur_json_str(sp, "user", "");
	f->account = spur_json_str(sp, "account", "");
	f->qos = spur_json_str(sp, "qos", "");
	f->licenses = spur_json_str(sp, "licenses", "");
	f->uid = (uint32_t)spur_json_int(sp, "uid", 0);
	f->state = ctld_state_name(info);
	f->reason = sched_reason_name(info->reason);
	f->nodelist = cj->nodes ? cj->nodes : "";
	f->gres = spur_json_str(sp, "gres", "");
	f->workdir = spur_json_str(sp, "workdir", "");
	f->start = pending ? info->est_start : cj->start;
	f->submit = info->submit_time;
	f->end = ctld_job_end(info);
	f->time_limit = spur_json_int(sp, "time_limit", 0);
}

struct queue_row {
	struct spur_jobfmt_job f;
	enum sched_job_state state;
};

static int row_cmp(const void *a, const void *b)
{
	const struct queue_row *x = *(struct queue_row *const *)a, *y = *(struct queue_row *const *)b;
	/* most jobs name the same partition string: no strcmp then */
	int c = x->f.partition == y->f.partition ? 0 : strcmp(x->f.partition, y->f.partition);

	if (c)
		return c;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->f.priority != y->f.priority)
		return x->f.priority > y->f.priority ? -1 : 1;
	return x->f.job_id < y->f.job_id ? -1 : x->f.job_id > y->f.job_id;
}

/* squeue -S/--sort: Slurm's comma list of -o field letters, each '-' for
 * descending ("P,t,-p" is the default order above); set while one
 * request's rows are sorted (the controller's one thread). */
static const char *sort_spec;

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

#define CMP_NUM(a, b) ((a) < (b) ? -1 : (a) > (b))

/* One sort key of two rows. */
static int key_cmp(char k, const struct queue_row *x, const struct queue_row *y)
{
	const struct spur_jobfmt_job *a = &x->f, *b = &y->f;

	switch (k) {
	case 'i': case 'A': return CMP_NUM(a->job_id, b->job_id);
	case 'F': return CMP_NUM(a->array_job_id, b->array_job_id);
	case 'K': return CMP_NUM(a->array_task_id, b->array_task_id);
	case 'p': case 'Q': return CMP_NUM(a->priority, b->priority);
	case 'P': case 'R': return cmp_str(a->partition, b->partition);
	case 't': case 'T': return CMP_NUM(x->state, y->state);
	case 'u': case 'U': return cmp_str(a->user, b->user);
	case 'j': return cmp_str(a->name, b->name);
	case 'a': return cmp_str(a->account, b->account);
	case 'q': return cmp_str(a->qos, b->qos);
	case 'r': return cmp_str(a->reason, b->reason);
	case 'N': return cmp_str(a->nodelist, b->nodelist);
	case 'D': return CMP_NUM(a->nodes, b->nodes);
	case 'C': return CMP_NUM((uint64_t)a->ntasks * a->cpus_per_task,
				 (uint64_t)b->ntasks * b->cpus_per_task);
	case 'l': return CMP_NUM(a->time_limit ? a->time_limit : INT64_MAX,
				 b->time_limit ? b->time_limit : INT64_MAX);
	case 'S': return CMP_NUM(a->start, b->start);
	case 'V': return CMP_NUM(a->submit, b->submit);
	case 'e': return CMP_NUM(a->end, b->end);
	case 'M': return CMP_NUM(b->start, a->start); /* longer run: earlier start */
	}
	return 0;
}

static int sort_cmp(const void *pa, const void *pb)
{
	const struct queue_row *x = *(struct queue_row *const *)pa, *y = *(struct queue_row *const *)pb;

	for (const char *s = sort_spec; *s;) {
		bool desc = *s == '-';
		int c;

		s += desc || *s == '+';
		c = *s == ',' ? 0 : key_cmp(*s, x, y);
		if (c)
			return desc ? -c : c;
		s += strcspn(s, ",");
		s += *s == ',';
	}
	return row_cmp(pa, pb);
}

/* Is state (Slurm's name) in a -t list, by name or by code? */
static bool state_in_list(const char *states, const char *name)
{
	return spur_jobfmt_in_list(states, name) ||
	       spur_jobfmt_in_list(states, spur_jobfmt_state_code(name));
}

/* squeue -t: a comma list of states, by name or code, or "all"; without
 * it, the jobs not yet ended (ended ones stay MinJobAge for -t). */
static bool queue_state_wanted(const char *states, enum sched_job_state st, const char *name)
{
	if (!states)
		return st == SCHED_JOB_PENDING || st == SCHED_JOB_RUNNING;
	return spur_jobfmt_in_list(states, "all") || state_in_list(states, name);
}

/* squeue -n -A -q -w: names, accounts, QOS, nodes (each a comma list). */
static bool queue_spec_wanted(const json_t *msg, const struct ctld_job *cj)
{
	const char *nodes = spur_json_str(msg, "nodes", NULL);

	if (nodes && (!cj->nodes || !spur_hostlist_meet(nodes, cj->nodes)))
		return false;
	return spur_jobfmt_in_list(spur_json_str(msg, "names", NULL),
				   spur_json_str(cj->spec, "name", "")) &&
	       spur_jobfmt_in_list(spur_json_str(msg, "accounts", NULL),
				   spur_json_str(cj->spec, "account", "")) &&
	       /* a job that named none runs with the QOS every cluster has */
	       spur_jobfmt_in_list(spur_json_str(msg, "qos", NULL),
				   *spur_json_str(cj->spec, "qos", "") ? spur_json_str(cj->spec, "qos", "")
								       : "normal");
}

/* Pending tasks of one array that would show alike (partition, reason,
 * priority) become one row, "5_[2-4,7]", as squeue prints them without
 * -r; their strings are kept in buf. Returns the rows left in order. */
static size_t collapse_arrays(struct queue_row **order, size_t n, char *buf, size_t cap)
{
	size_t out = 0, used = 0;

	for (size_t r = 0; r < n; r++) {
		struct spur_jobfmt_job *f = &order[r]->f;
		size_t e = r + 1, o;
		int32_t lo, hi;

		order[out++] = order[r];
		if (order[r]->state != SCHED_JOB_PENDING || f->array_task_id < 0 || used + 256 > cap)
			continue;
		while (e < n && e - r < 100000 && order[e]->state == SCHED_JOB_PENDING &&
		       order[e]->f.array_job_id == f->array_job_id && order[e]->f.array_task_id >= 0 &&
		       order[e]->f.priority == f->priority && order[e]->f.reason == f->reason &&
		       !strcmp(order[e]->f.partition, f->partition))
			e++;
		if (e == r + 1)
			continue;
		/* "[" ranges "]", at most ~200 characters: the rest start a new row */
		o = used;
		buf[o++] = '[';
		for (size_t k = r; k < e;) {
			lo = hi = order[k]->f.array_task_id;
			while (++k < e && order[k]->f.array_task_id == hi + 1)
				hi++;
			o += (size_t)snprintf(buf + o, cap - o, o > used + 1 ? ",%d" : "%d", lo);
			if (hi > lo)
				o += (size_t)snprintf(buf + o, cap - o, "-%d", hi);
			if (o - used > 200 && k < e) {
				e = k;
				break;
			}
		}
		buf[o++] = ']';
		buf[o++] = '\0';
		f->array_tasks = buf + used;
		used = o;
		r = e - 1;
	}
	return out;
}

struct queue_build {
	struct queue_row *rows;
	size_t n, cap;
};

/* Has comma list a a member of comma list b (NULL a: yes)? squeue -p
 * shows a pending job whose list holds one of its partitions. */
static bool lists_meet(const char *a, const char *b)
{
	char one[256];

	if (!a)
		return true;
	for (const char *p = b; *p;) {
		size_t len = strcspn(p, ",");

		snprintf(one, sizeof(one), "%.*s", (int)len, p);
		if (spur_jobfmt_in_list(a, one))
			return true;
		p += len + (p[len] == ',');
	}
	return spur_jobfmt_in_list(a, b);
}

/* squeue -P: the pending job of row qb->rows[qb->n] (not yet counted), a
 * row per partition of its list (those of -p's list), each with the job's
 * priority there. False when out of memory. */
static bool queue_add_parts(struct ctld *c, const char *parts, const struct sched_job_info *info,
			    struct queue_build *qb)
{
	struct queue_row row = qb->rows[qb->n];

	for (size_t p = 0; p < c->conf->nparts; p++) {
		const char *name = c->conf->parts[p].name;
		uint32_t prio;

		if (c->conf->parts[p].deleted || !spur_jobfmt_in_list(row.f.partition, name) ||
		    !spur_jobfmt_in_list(parts, name) ||
		    sched_job_part_prio(c->sched, info->id, name, &prio))
			continue;
		if (spur_grow((void **)&qb->rows, &qb->cap, qb->n + 1, sizeof(*qb->rows)))
			return false;
		qb->rows[qb->n] = row;
		qb->rows[qb->n].f.partition = name;
		qb->rows[qb->n].f.priority = prio;
		qb->rows[qb->n++].state = info->state;
	}
	return true;
}

/* A row for job info (of record cj, or of the array whose first job cj is
 * when info.rest) when squeue's filters pass; `tasks`: an array rest's
 * "[..]" for its one row. False when out of memory. */
static bool queue_add(struct ctld_conn *cn, const json_t *msg, const struct ctld_job *cj,
		      const struct sched_job_info *info, const char *tasks, struct queue_build *qb)
{
	const char *parts = spur_json_str(msg, "partitions", NULL), *ids = spur_json_str(msg, "jobs", NULL);
	struct spur_jobfmt_job *f;
	char idtxt[64], plain[16], array[16] = "";

	if (!owns(cn, cj) ||
	    !queue_state_wanted(spur_json_str(msg, "states", NULL), info->state,
				ctld_state_name(info)) ||
	    !spur_jobfmt_in_list(spur_json_str(msg, "users", NULL), spur_json_str(cj->spec, "user", "")) ||
	    !queue_spec_wanted(msg, cj))
		return true; /* the cheap filters first: no row for a job not shown */
	if (spur_grow((void **)&qb->rows, &qb->cap, qb->n + 1, sizeof(*qb->rows)))
		return false;
	f = &qb->rows[qb->n].f;
	fmt_job(cn->c, cj, info, f);
	if (info->rest) { /* the array's first job lent its record */
		f->job_id = info->id;
		f->nodelist = "";
		f->array_tasks = tasks;
	}
	if (ids) {
		spur_jobfmt_id(f, idtxt, sizeof(idtxt));
		snprintf(plain, sizeof(plain), "%" PRIu32, f->job_id);
		/* -j of an array's job id lists all its tasks, as in Slurm */
		if (f->array_job_id)
			snprintf(array, sizeof(array), "%" PRIu32, f->array_job_id);
	}
	if (ids && !spur_jobfmt_in_list(ids, array) &&
	    (tasks || (!spur_jobfmt_in_list(ids, idtxt) && !spur_jobfmt_in_list(ids, plain))))
		return true;
	if (spur_json_bool(msg, "per_partition", 0) && info->state == SCHED_JOB_PENDING &&
	    strchr(f->partition, ','))
		return queue_add_parts(cn->c, parts, info, qb);
	if (!lists_meet(parts, f->partition))
		return true;
	qb->rows[qb->n++].state = info->state;
	return true;
}

/* The tasks with no record of array `meta` that squeue's -j list names
 * one by one ("A_T", or a task's own job id), a row each: the list is
 * walked, not the tasks. */
static bool queue_rest_named(struct ctld_conn *cn, const json_t *msg, const struct ctld_job *first,
			     const struct sched_job_info *meta, struct queue_build *qb)
{
	const char *ids = spur_json_str(msg, "jobs", "");
	uint32_t size = sched_array_size(cn->c->sched, meta->id), jid;

	for (const char *p = ids; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		char *end;
		unsigned long v = strtoul(p, &end, 10), t;
		struct sched_job_info info;

		if (end == p)
			continue;
		if (*end == '_' && v == meta->id) {
			t = strtoul(end + 1, &end, 10);
			jid = sched_array_task_id(cn->c->sched, meta->id, (uint32_t)t);
		} else {
			jid = v >= meta->id && v - meta->id < size ? (uint32_t)v : 0;
		}
		if ((*end && *end != ',') || !jid || sched_job_info(cn->c->sched, jid, &info) ||
		    !info.rest)
			continue;
		if (!queue_add(cn, msg, first, &info, NULL, qb))
			return false;
	}
	return true;
}

/* An array's tasks with no record, a row each (squeue -r). */
static bool queue_rest_each(struct ctld_conn *cn, const json_t *msg, const struct ctld_job *first,
			    const struct sched_job_info *meta, struct queue_build *qb)
{
	uint32_t jids[1024], tids[1024], from = 0;
	size_t got;

	while ((got = sched_array_rest_ids(cn->c->sched, meta->id, &from, jids, tids, 1024))) {
		for (size_t k = 0; k < got; k++) {
			struct sched_job_info t = *meta;

			t.id = jids[k];
			t.array_task_id = (int32_t)tids[k];
			if (!queue_add(cn, msg, first, &t, NULL, qb))
				return false;
		}
	}
	return true;
}

/* The rows of the arrays' tasks that have no record: without -r, one row
 * per array holding them all ("5_[1000-999999]", as Slurm shows a pending
 * meta record; another row when the text is too long), with -r (or a -j)
 * a row each. The rows' strings go into strs. */
static bool queue_rests(struct ctld_conn *cn, const json_t *msg, struct queue_build *qb,
			char *strs, size_t len)
{
	struct ctld *c = cn->c;
	bool each = spur_json_bool(msg, "array_tasks", 0);
	const char *ids = spur_json_str(msg, "jobs", NULL);
	struct sched_job_info meta;
	uint32_t count;
	size_t used = 0;
	char plain[16];

	for (size_t a = 0; !sched_array_rest_nth(c->sched, a, &meta, &count); a++) {
		const struct ctld_job *first = ctld_job(c, meta.id);
		struct sched_job_info t = meta;
		struct range_str r;
		uint32_t from = 0;

		if (!first || !owns(cn, first))
			continue;
		snprintf(plain, sizeof(plain), "%" PRIu32, meta.id);
		if (ids && !spur_jobfmt_in_list(ids, plain)) { /* not the whole array */
			if (!queue_rest_named(cn, msg, first, &meta, qb))
				return false;
			continue;
		}
		if (each) {
			if (!queue_rest_each(cn, msg, first, &meta, qb))
				return false;
			continue;
		}
		while (used + 260 < len && rest_ranges(c, meta.id, &from, &r, &t.id)) {
			char *row = strs + used;

			used += (size_t)snprintf(row, len - used, "[%s]", rs_text(&r)) + 1;
			if (!queue_add(cn, msg, first, &t, row, qb))
				return false;
		}
	}
	return true;
}

/* squeue -w: the first name of expr that is no node (or the expression
 * when it is not a hostlist), as Slurm's message in why; false when all
 * are nodes. */
static bool unknown_node(const struct ctld *c, const char *expr, char *why, size_t len)
{
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr(expr, &err);
	bool bad = !hl;

	if (bad)
		snprintf(why, len, "Invalid node name %s", expr);
	for (size_t i = 0; hl && i < spur_hostlist_count(hl) && !bad; i++)
		if (spur_conf_node_index(c->conf, spur_hostlist_nth(hl, i)) < 0) {
			snprintf(why, len, "Invalid node name %s", spur_hostlist_nth(hl, i));
			bad = true;
		}
	spur_hostlist_destroy(hl);
	return bad;
}

/* squeue: the controller formats the lines itself, so a queue of 100,000
 * jobs crosses the wire as text, not as 100,000 JSON objects. */
static void queue_text(struct ctld_conn *cn, json_t *msg, const char *fmt)
{
	struct ctld *c = cn->c;
	int64_t now = ctld_now();
	size_t cap = 1 << 16, len = 0, count = 0, nrows = 0;
	char *buf = malloc(cap);
	struct queue_build qb = { 0 };
	struct queue_row *rows, **order;
	struct sched_job_info info;
	json_t *reply;
	char tasks[65536]; /* the collapsed rows' "[1-3,7]" strings */
	char rest_tasks[16384]; /* the array rests' */
	char bad;

	if (!buf || !spur_jobfmt_valid(fmt)) {
		free(buf);
		reply_error(cn, SPUR_EINVAL, "Invalid job format specification");
		return;
	}
	if (json_is_string(json_object_get(msg, "nodes")) &&
	    unknown_node(c, spur_json_str(msg, "nodes", ""), tasks, sizeof(tasks))) {
		free(buf);
		reply_error(cn, SPUR_ENOENT, tasks); /* "Invalid node name X", Slurm's */
		return;
	}
	if (!spur_jobfmt_sort_valid(spur_json_str(msg, "sort", ""), &bad)) {
		free(buf);
		reply_error(cn, SPUR_EINVAL, "Invalid sort specification");
		return;
	}
	buf[0] = '\0';
	for (size_t k = 0; !sched_job_info_nth(c->sched, k, &info); k++) {
		const struct ctld_job *cj = ctld_job_rec(c, info.id);

		if (cj && !queue_add(cn, msg, cj, &info, NULL, &qb))
			goto out_of_memory;
	}
	if (!queue_rests(cn, msg, &qb, rest_tasks, sizeof(rest_tasks)))
		goto out_of_memory;
	rows = qb.rows;
	nrows = qb.n;
	/* squeue's default order: partition, state (pending first), priority
	 * (highest first), then id; pointers are sorted, not the rows */
	order = nrows ? malloc(nrows * sizeof(*order)) : NULL;
	if (nrows && !order)
		goto out_of_memory;
	for (size_t r = 0; r < nrows; r++)
		order[r] = &rows[r];
	sort_spec = spur_json_str(msg, "sort", "");
	if (nrows)
		qsort(order, nrows, sizeof(*order), *sort_spec ? sort_cmp : row_cmp);
	sort_spec = "";
	if (!spur_json_bool(msg, "array_tasks", 0))
		nrows = collapse_arrays(order, nrows, tasks, sizeof(tasks));
	for (size_t r = 0; r < nrows; r++) {
		while (!spur_jobfmt_line(fmt, &order[r]->f, now, buf, &len, cap)) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(order);
				goto out_of_memory;
			}
			buf = nb;
			cap *= 2;
		}
		count++;
	}
	free(rows);
	free(order);
	if (spur_json_bool(msg, "raw", 0)) {
		/* the lines follow as a raw frame: no JSON escaping of megabytes
		 * on either side (RFC 0003 §2) */
		reply_ok(cn, json_pack("{s:I,s:I}", "count", (json_int_t)count, "text_bytes",
				       (json_int_t)len));
		if (!cn->closing && spur_uv_send_raw((uv_stream_t *)&cn->tcp, buf, len))
			ctld_conn_close(cn);
		return;
	}
	reply = json_pack("{s:s%,s:I}", "text", buf, len, "count", (json_int_t)count);
	free(buf);
	reply_ok(cn, reply);
	return;
out_of_memory:
	free(buf);
	free(qb.rows);
	reply_error(cn, SPUR_ENOMEM, "out of memory");
}

/* Does an active job pass scancel's filters (-u -t -p -n -A -w)? Each is a
 * comma list; an absent one passes everything. */
static bool cancel_filter_ok(struct ctld *c, const struct ctld_job *cj,
			     const struct sched_job_info *info, const json_t *flt)
{
	struct spur_jobfmt_job f;
	const char *states = spur_json_str(flt, "states", NULL);

	if (info->state != SCHED_JOB_PENDING && info->state != SCHED_JOB_RUNNING)
		return false;
	fmt_job(c, cj, info, &f);
	if (states && !state_in_list(states, f.state))
		return false;
	/* -n -A -q -w as squeue's */
	return queue_spec_wanted(flt, cj) &&
	       spur_jobfmt_in_list(spur_json_str(flt, "users", NULL), f.user) &&
	       lists_meet(spur_json_str(flt, "partitions", NULL), f.partition);
}

/* Records one scancel argument may name at most (an array's: those in its
 * window, running, or named one by one before). */
#define CANCEL_MAX 65536

/* The jobs one scancel argument names: N (and, when N is an array's job
 * id, every task of it) or N_M (one task). */
static size_t cancel_targets(struct ctld *c, uint32_t id, long task, uint32_t *out, size_t max)
{
	struct sched_job_info info;
	size_t n = 0;

	if (task < 0 && !sched_job_info(c->sched, id, &info) &&
	    (!info.array_job_id || info.array_job_id != id)) {
		out[n++] = id;
		return n;
	}
	if (task >= 0) { /* one task, with a record or not */
		uint32_t j = sched_array_task_id(c->sched, id, (uint32_t)task);

		if (j && j >= c->purge_low)
			out[n++] = j;
		return n;
	}
	/* the whole array: its tasks with records still active (the ended ones
	 * are no error; those with no record are cancelled as one, see
	 * cancel_rests), or the first task when none is */
	for (size_t j = id >= c->purge_low ? id : c->purge_low,
		    end = (size_t)id + sched_array_size(c->sched, id);
	     j < c->jobs_cap && j < end && n < max; j++) {
		if (!ctld_job_rec(c, (uint32_t)j) || sched_job_info(c->sched, (uint32_t)j, &info) ||
		    info.array_job_id != id)
			continue;
		if (info.state == SCHED_JOB_PENDING || info.state == SCHED_JOB_RUNNING)
			out[n++] = (uint32_t)j;
	}
	if (!n && task < 0 && !sched_job_info(c->sched, id, &info) &&
	    !sched_array_rest_pending(c->sched, id))
		out[n++] = id;
	return n;
}

/* The state of array id's tasks that have no record (its meta record's). */
static bool rest_meta(struct ctld *c, uint32_t id, struct sched_job_info *meta)
{
	uint32_t count;

	for (size_t k = 0; !sched_array_rest_nth(c->sched, k, meta, &count); k++)
		if (meta->id == id)
			return true;
	return false;
}

/* The arrays whose tasks with no record a scancel cancels: those it names
 * whole, or every one passing its filters. Appended to *rests; false when
 * out of memory. */
static bool cancel_rests(struct ctld_conn *cn, const json_t *jobs, const json_t *flt,
			 uint32_t **rests, size_t *n, size_t *cap)
{
	struct ctld *c = cn->c;
	struct sched_job_info meta;
	uint32_t count;
	size_t idx;
	json_t *item;

	if (json_is_array(jobs)) {
		json_array_foreach(jobs, idx, item) {
			uint32_t id = (uint32_t)spur_json_int(item, "job_id", 0);
			long task = (long)spur_json_int(item, "task_id", -1);

			if (task >= 0 || !sched_array_rest_pending(c->sched, id) ||
			    !owns(cn, ctld_job(c, id)) ||
			    (json_is_object(flt) &&
			     (!rest_meta(c, id, &meta) || !cancel_filter_ok(c, ctld_job(c, id), &meta, flt))))
				continue;
			if (spur_grow((void **)rests, cap, *n + 1, sizeof(**rests)))
				return false;
			(*rests)[(*n)++] = id;
		}
		return true;
	}
	for (size_t k = 0; json_is_object(flt) && !sched_array_rest_nth(c->sched, k, &meta, &count); k++) {
		struct ctld_job *cj = ctld_job(c, meta.id);

		if (meta.state != SCHED_JOB_PENDING || !cj || !owns(cn, cj) ||
		    !cancel_filter_ok(c, cj, &meta, flt))
			continue;
		if (spur_grow((void **)rests, cap, *n + 1, sizeof(**rests)))
			return false;
		(*rests)[(*n)++] = meta.id;
	}
	return true;
}

static void cancel_error(json_t *errors, uint32_t id, long task, const char *msg)
{
	json_t *e = json_pack("{s:i,s:s}", "job_id", (int)id, "error", msg);

	if (task >= 0)
		json_object_set_new(e, "task_id", json_integer(task));
	json_array_append_new(errors, e);
}

/* Signal (scancel -s) one job, or find it can be cancelled (*commit);
 * false with *why set when neither. */
static bool cancel_one(struct ctld *c, uint32_t id, int sig, const char *scope, const char **why,
		       bool *commit)
{
	struct sched_job_info info;

	if (sched_job_info(c->sched, id, &info)) {
		*why = "Invalid job id specified";
		return false;
	}
	if (info.state != SCHED_JOB_PENDING && info.state != SCHED_JOB_RUNNING) {
		*why = "Job/step already completing or completed";
		return false;
	}
	if (sig && sig != SIGKILL) {
		if (info.state != SCHED_JOB_RUNNING) {
			*why = "Job is pending execution";
			return false;
		}
		ctld_signal_scope(c, id, sig, scope);
		return true;
	}
	if (info.suspended) /* stopped processes see the end only once continued */
		ctld_signal_job(c, id, SIGCONT);
	*commit = true;
	return true;
}

/* A step request's job (id): known, the caller's, running (else answered,
 * with Slurm's "Job is pending execution" when pending_said and it waits). */
static bool step_job(struct ctld_conn *cn, uint32_t id, struct sched_job_info *info,
		     bool pending_said)
{
	if (!ctld_job(cn->c, id) || sched_job_info(cn->c->sched, id, info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return false;
	}
	if (denied(cn, id))
		return false;
	if (info->state != SCHED_JOB_RUNNING) {
		reply_error(cn, SPUR_ESTATE,
			    pending_said && info->state == SCHED_JOB_PENDING
				    ? "Job is pending execution"
				    : "Job/step already completing or completed");
		return false;
	}
	return true;
}

/* scancel J.S [-s SIG]: {"job_id", "step_id", "signal" (0: cancel)} to
 * the agents of the job's nodes, which end the step (slurmstepd's line,
 * SIGTERM, SIGKILL after KillWait) or signal its tasks. */
static void handle_cancel_step(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	json_int_t step = spur_json_int(msg, "step_id", -1), sig = spur_json_int(msg, "signal", 0);
	struct sched_job_info info;

	if (sig < 0 || sig > 64 || step < 0 || step > INT32_MAX) {
		reply_error(cn, SPUR_EINVAL, "Invalid signal or step id");
		return;
	}
	if (!step_job(cn, id, &info, true))
		return;
	if (!ctld_acct_step_running(c, id, (uint32_t)step)) {
		/* Slurm's words; the code tells it from a job that is not there */
		reply_error(cn, SPUR_ESTATE, "Invalid job id specified");
		return;
	}
	ctld_send_job_nodes(c, &info,
			    json_pack("{s:s,s:i,s:I,s:I}", "type", "step_signal", "job_id", (int)id,
				      "step_id", step, "signal", sig));
	reply_ok(cn, json_object());
}

/* scontrol update StepId=J[.S] TimeLimit=: {"job_id", "step_id" (-1: every
 * running step), "time_limit" (seconds from the step's start; 0: none)}:
 * kept in the log, and the agents of the job's nodes move the steps' alarms. */
static void handle_step_update(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0), steps[256];
	json_int_t step = spur_json_int(msg, "step_id", -1), limit = spur_json_int(msg, "time_limit", -1);
	struct sched_job_info info;
	struct spur_error err;
	size_t n;

	if (limit < 0 || limit > (INT64_C(1) << 40) || step < -1 || step > INT32_MAX) {
		reply_error(cn, SPUR_EINVAL, "Invalid time limit or step id");
		return;
	}
	if (!step_job(cn, id, &info, false))
		return;
	if (step >= 0) {
		steps[0] = (uint32_t)step;
		n = ctld_acct_step_running(c, id, (uint32_t)step);
	} else {
		n = ctld_acct_running_steps(c, id, steps, sizeof(steps) / sizeof(steps[0]));
	}
	if (!n) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	for (size_t k = 0; k < n; k++) {
		json_t *op = json_pack("{s:s,s:i,s:i,s:I}", "op", "step_limit", "id", (int)id, "step",
				       (int)steps[k], "time_limit", limit);
		bool last = k + 1 == n;

		if (ctld_commit(c, op, last ? cn : NULL, last ? json_pack("{s:s}", "type", "ok") : NULL,
				&err)) {
			json_decref(op);
			reply_error(cn, err.code, err.msg);
			return;
		}
		json_decref(op);
		ctld_send_job_nodes(c, &info,
				    json_pack("{s:s,s:i,s:i,s:I}", "type", "step_limit", "job_id",
					      (int)id, "step_id", (int)steps[k], "time_limit", limit));
	}
}

/* scancel: {"jobs":[{"job_id":N,"task_id":M}], "filter":{...}, "signal":S}
 * (or the older single "job_id"). Jobs named and filters both given: the
 * named jobs that pass the filters. The reply lists each job that could not
 * be cancelled; it is sent once every cancellation is committed. */
static void handle_cancel(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const json_t *jobs = json_object_get(msg, "jobs"), *flt = json_object_get(msg, "filter");
	int sig = (int)spur_json_int(msg, "signal", 0);
	json_t *errors = json_array(), *one = NULL, *reply, *item, *done = NULL;
	uint32_t *ids = NULL, *rests = NULL;
	size_t nids = 0, cap = 0, count = 0, ncancel = 0, idx, nrests = 0, rests_cap = 0;
	struct spur_error err;

	if (sig < 0 || sig > 64) {
		json_decref(errors);
		reply_error(cn, SPUR_EINVAL, "Invalid signal");
		return;
	}
	if (!jobs && json_object_get(msg, "job_id")) {
		one = json_pack("[{s:O}]", "job_id", json_object_get(msg, "job_id"));
		jobs = one;
	}
	if (spur_grow((void **)&ids, &cap, 1024, sizeof(*ids)))
		goto out_of_memory;
	if (json_is_array(jobs)) {
		json_array_foreach(jobs, idx, item) {
			uint32_t id = (uint32_t)spur_json_int(item, "job_id", 0);
			long task = (long)spur_json_int(item, "task_id", -1);
			size_t got;

			if (spur_grow((void **)&ids, &cap, nids + CANCEL_MAX, sizeof(*ids)))
				goto out_of_memory;
			got = cancel_targets(c, id, task, ids + nids, CANCEL_MAX);
			if (!got && (task >= 0 || !sched_array_rest_pending(c->sched, id)))
				cancel_error(errors, id, task, "Invalid job id specified");
			nids += got;
		}
	} else if (json_is_object(flt)) {
		for (size_t j = c->purge_low; j < c->jobs_cap; j++) {
			if (!ctld_job_rec(c, (uint32_t)j))
				continue;
			if (spur_grow((void **)&ids, &cap, nids + 1, sizeof(*ids)))
				goto out_of_memory;
			ids[nids++] = (uint32_t)j;
		}
	} else {
		json_decref(errors);
		free(ids);
		reply_error(cn, SPUR_EINVAL, "No job identification provided");
		return;
	}
	/* keep in ids[0..ncancel) the jobs to cancel */
	for (size_t i = 0; i < nids; i++) {
		struct sched_job_info info;
		const char *why;
		bool commit = false;

		struct ctld_job *cj = ctld_job(c, ids[i]);

		if (json_is_object(flt) &&
		    (!cj || !owns(cn, cj) || sched_job_info(c->sched, ids[i], &info) ||
		     !cancel_filter_ok(c, cj, &info, flt)))
			continue;
		if (!owns(cn, cj)) {
			/* scancel's "Kill job error on job id N: ..." */
			if (!json_is_object(flt))
				cancel_error(errors, ids[i], -1, ACCESS_DENIED);
			continue;
		}
		if (!cancel_one(c, ids[i], sig,
				spur_json_bool(msg, "full", 0)	  ? "full"
				: spur_json_bool(msg, "batch", 0) ? "batch"
								  : "steps",
				&why, &commit)) {
			if (!json_is_object(flt))
				cancel_error(errors, ids[i], -1, why);
			continue;
		}
		count++;
		if (!done)
			done = json_array();
		if (json_array_size(done) < 1000) /* scancel -v names them */
			json_array_append_new(done, json_integer(ids[i]));
		if (commit)
			ids[ncancel++] = ids[i];
	}
	/* the tasks of arrays with no record (not for a signal: none runs) */
	if (!sig && !cancel_rests(cn, jobs, flt, &rests, &nrests, &rests_cap))
		goto out_of_memory;
	for (size_t i = 0; i < nrests; i++)
		count += sched_array_rest_pending(c->sched, rests[i]);
	json_decref(one);
	one = NULL;
	reply = json_pack("{s:s,s:I,s:o,s:o}", "type", "ok", "count", (json_int_t)count, "errors",
			  errors, "ids", done ? done : json_array());
	done = NULL;
	if (!ncancel && !nrests)
		ctld_conn_send(cn, reply);
	/* the reply goes with the last cancellation, once it is committed; the
	 * rests first, so that no task comes in as those before it go */
	for (size_t i = 0; i < ncancel + nrests; i++) {
		struct sched_job_info info;
		bool rest = i < nrests, last = i + 1 == ncancel + nrests;
		uint32_t id = rest ? rests[i] : ids[i - nrests];
		json_t *op = json_pack("{s:s,s:i,s:I}", "op", "cancel", "id", (int)id, "time",
				       (json_int_t)ctld_now());

		if (rest)
			json_object_set_new(op, "rest", json_true());
		else if (!sched_job_info(c->sched, id, &info) && info.state == SCHED_JOB_RUNNING &&
			 sig)
			ctld_signal_job(c, id, sig);
		else if (!sched_job_info(c->sched, id, &info) && info.state == SCHED_JOB_RUNNING)
			ctld_cancel_signal(c, id); /* SIGTERM, said in the job's stderr */
		if (ctld_commit(c, op, last ? cn : NULL, last ? reply : NULL, &err)) {
			spur_error_log("job %u: %s", id, err.msg);
			if (last)
				reply_error(cn, err.code, err.msg);
		}
		json_decref(op);
	}
	free(ids);
	free(rests);
	ctld_cycle_soon(c);
	return;
out_of_memory:
	free(ids);
	free(rests);
	json_decref(one);
	json_decref(errors);
	json_decref(done);
	reply_error(cn, SPUR_ENOMEM, "out of memory");
}

/* The arrays' tasks with no record the caller may see, an object each
 * array (pending ones; with all, cancelled ones too). */
static void rests_json(struct ctld_conn *cn, json_t *jobs, bool all)
{
	struct sched_job_info meta;
	uint32_t count;
	json_t *o;

	for (size_t a = 0; !sched_array_rest_nth(cn->c->sched, a, &meta, &count); a++)
		if ((all || meta.state == SCHED_JOB_PENDING) && owns(cn, ctld_job(cn->c, meta.id)) &&
		    (o = rest_json(cn->c, &meta)))
			json_array_append_new(jobs, o);
}

static void handle_queue(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *jobs;
	bool all = spur_json_bool(msg, "all", 0);
	const char *fmt = spur_json_str(msg, "format", NULL);

	if (fmt) {
		queue_text(cn, msg, fmt);
		return;
	}
	jobs = json_array();

	for (size_t id = c->purge_low; id < c->jobs_cap; id++) {
		struct sched_job_info info;

		if (!ctld_job_rec(c, (uint32_t)id) || !owns(cn, c->jobs[id]) ||
		    sched_job_info(c->sched, (uint32_t)id, &info))
			continue;
		if (!all && info.state != SCHED_JOB_PENDING && info.state != SCHED_JOB_RUNNING)
			continue;
		json_array_append_new(jobs, ctld_job_json(c, (uint32_t)id));
	}
	rests_json(cn, jobs, all);
	reply_ok(cn, json_pack("{s:o,s:I}", "jobs", jobs, "now", (json_int_t)ctld_now()));
}

/* scontrol show job with no id: every job the caller may see, by id. */
static void all_jobs(struct ctld_conn *cn)
{
	struct ctld *c = cn->c;
	json_t *jobs = json_array(), *o;

	for (uint32_t id = c->purge_low; id < c->next_id && id < c->jobs_cap; id++)
		if (ctld_job_rec(c, id) && owns(cn, c->jobs[id]) && (o = ctld_job_json(c, id)))
			json_array_append_new(jobs, o);
	rests_json(cn, jobs, true);
	reply_ok(cn, json_pack("{s:o,s:I}", "jobs", jobs, "now", (json_int_t)ctld_now()));
}

static void handle_job(struct ctld_conn *cn, json_t *msg)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	json_t *o;

	if (!json_object_get(msg, "job_id")) {
		all_jobs(cn);
		return;
	}
	/* another user's job is not there for this caller */
	o = id && owns(cn, ctld_job(cn->c, id)) ? ctld_job_json(cn->c, id) : NULL;

	if (!o) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	reply_ok(cn, json_pack("{s:o,s:I}", "job", o, "now", (json_int_t)ctld_now()));
}

/* A node's GPUs for the dashboard's map: how many, which are free
 * (bit i: GPU i), and the pairs joined by the node's best link class. */
static json_t *gpu_map(struct ctld *c, uint32_t node)
{
	const struct spur_conf_node *n = &c->conf->nodes[node];
	json_t *links = json_array();
	uint64_t ngpu = 0;

	for (size_t g = 0; g < n->gres.n; g++)
		if (!strcmp(n->gres.items[g].name, "gpu"))
			ngpu += n->gres.items[g].count;
	if (ngpu > SCHED_MAX_GPUS)
		ngpu = SCHED_MAX_GPUS;
	for (unsigned a = 0; a < ngpu; a++)
		for (unsigned b = a + 1; b < ngpu; b++)
			if (sched_node_mask_is_island(c->sched, node, (uint16_t)(1u << a | 1u << b)))
				json_array_append_new(links, json_pack("[i,i]", (int)a, (int)b));
	return json_pack("{s:I,s:i,s:o}", "gpu_count", (json_int_t)ngpu, "free_gpu_mask",
			 (int)sched_node_free_gpus(c->sched, node), "gpu_links", links);
}

/* sdiag, /metrics: the scheduler's cycles, submissions, the log's place. */
static void handle_stats(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *m = ctld_raft_members(c);
	size_t counts[8] = { 0 };
	json_t *by = json_object(), *jobs = json_array(), *v;
	const char *key;
	struct sched_job_info meta;
	uint32_t count;

	(void)msg;
	/* counts only, so any user may read them (spurrestd needs no rights) */
	for (size_t id = c->purge_low; id < c->jobs_cap; id++) {
		struct sched_job_info info;
		char k[300];

		if (!ctld_job_rec(c, (uint32_t)id) || sched_job_info(c->sched, (uint32_t)id, &info))
			continue;
		if ((size_t)info.state < sizeof(counts) / sizeof(counts[0]))
			counts[info.state]++;
		snprintf(k, sizeof(k), "%s\t%s", sched_job_state_name(info.state),
			 ctld_job_partition(c, c->jobs[id], &info));
		json_object_set_new(by, k, json_integer(spur_json_int(by, k, 0) + 1));
	}
	for (size_t a = 0; !sched_array_rest_nth(c->sched, a, &meta, &count); a++) {
		char k[300];

		if (!ctld_job(c, meta.id))
			continue;
		if ((size_t)meta.state < sizeof(counts) / sizeof(counts[0]))
			counts[meta.state] += count;
		snprintf(k, sizeof(k), "%s\t%s", sched_job_state_name(meta.state),
			 ctld_job_partition(c, ctld_job(c, meta.id), &meta));
		json_object_set_new(by, k, json_integer(spur_json_int(by, k, 0) + count));
	}
	json_object_foreach(by, key, v) {
		const char *tab = strchr(key, '\t');

		json_array_append_new(jobs, json_pack("{s:s%,s:s,s:O}", "state", key,
						      (size_t)(tab - key), "partition", tab + 1,
						      "count", v));
	}
	json_decref(by);
	reply_ok(cn, ctld_stats_more(c, json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:O,s:O,s:O,s:o}", "submitted",
			       (json_int_t)c->stats.submitted, "cycles",
			       (json_int_t)c->stats.cycles, "cycle_us_last",
			       (json_int_t)c->stats.cycle_us_last, "cycle_us_max",
			       (json_int_t)c->stats.cycle_us_max, "cycle_us_total",
			       (json_int_t)c->stats.cycle_us_total, "started_at",
			       (json_int_t)c->stats.started_at, "now", (json_int_t)ctld_now(),
			       "jobs_pending", (json_int_t)counts[SCHED_JOB_PENDING], "jobs_running",
			       (json_int_t)counts[SCHED_JOB_RUNNING], "term",
			       json_object_get(m, "term"), "commit_index",
			       json_object_get(m, "commit_index"), "last_applied",
			       json_object_get(m, "last_applied"), "jobs", jobs)));
	json_decref(m);
}

/* nodes: every node, and its GPU map (links, free mask) when the request
 * asks for it ("gpu_map": spurrestd's dashboard; sinfo and scontrol do
 * not). Each node's partitions come from one pass over the partitions, not
 * a pass per node (sinfo grew with the square of the nodes). */
/* The core's word for a node, "resv" for an idle one that an active
 * reservation holds, as sinfo shows it. */
static const char *node_state_now(struct ctld *c, uint32_t i)
{
	const char *st = sched_node_state(c->sched, i);

	if (!strcmp(st, "IDLE") && sched_node_reserved(c->sched, i, ctld_now(), ctld_now() + 1))
		return "RESERVED";
	return st;
}

/* A partition's access controls and job defaults, as slurm.conf (or the
 * last reconfigure) set them: what scontrol show partition prints. */
static json_t *part_access_json(const struct spur_conf_partition *pt)
{
	json_t *o = json_pack("{s:b,s:b,s:I,s:I,s:I,s:I,s:i}", "root_only", pt->root_only,
			      "exclusive_user", pt->exclusive_user, "def_mem_per_cpu",
			      (json_int_t)pt->def_mem_per_cpu_mb, "def_mem_per_node",
			      (json_int_t)pt->def_mem_per_node_mb, "def_mem_per_gpu",
			      (json_int_t)pt->def_mem_per_gpu_mb, "max_mem_per_node",
			      (json_int_t)pt->max_mem_per_node_mb, "def_cpu_per_gpu",
			      (int)pt->def_cpu_per_gpu);
	const struct {
		const char *key, *value;
	} strs[] = { { "allow_groups", pt->allow_groups },   { "allow_accounts", pt->allow_accounts },
		     { "deny_accounts", pt->deny_accounts }, { "allow_qos", pt->allow_qos },
		     { "deny_qos", pt->deny_qos },	     { "oversubscribe", pt->oversubscribe },
		     { "qos", pt->qos } };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i].value && *strs[i].value)
			json_object_set_new(o, strs[i].key, json_string(strs[i].value));
	return o;
}

/* An agent's word on its host: the load average (x100) and the memory
 * available (MB), kept for scontrol show node and sinfo (not logged: a
 * reading, gone with the controller). */
static void handle_node_load(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	int64_t load = spur_json_int(msg, "load", -1), free_mb = spur_json_int(msg, "free_mb", -1);

	if (cn->node < 0 || (size_t)cn->node >= c->conf->nnodes)
		return;
	c->node_load[cn->node] = load < 0 ? -1 : load;
	c->node_free_mb[cn->node] = free_mb < 0 ? -1 : free_mb;
}

static void handle_nodes(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *nodes = json_array(), *parts = json_array(), **pl;
	bool want_map = spur_json_bool(msg, "gpu_map", 0);

	pl = calloc(c->conf->nnodes + 1, sizeof(*pl));
	if (!pl) {
		json_decref(nodes);
		json_decref(parts);
		reply_error(cn, SPUR_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < c->conf->nnodes; i++)
		pl[i] = json_array();
	for (size_t p = 0; p < c->conf->nparts; p++)
		for (size_t k = 0; k < c->conf->parts[p].nnodes; k++)
			if (c->conf->parts[p].nodes[k] < c->conf->nnodes)
				json_array_append_new(pl[c->conf->parts[p].nodes[k]],
						      json_string(c->conf->parts[p].name));
	for (size_t i = 0; i < c->conf->nnodes; i++) {
		const struct spur_conf_node *n = &c->conf->nodes[i];
		char *gres = spur_gres_format(&n->gres);
		uint32_t cpus;
		uint64_t mem;
		json_t *o;

		sched_node_usage(c->sched, (uint32_t)i, &cpus, &mem);
		o = json_pack("{s:s,s:s,s:i,s:i,s:I,s:I,s:s,s:i,s:o,s:s,s:s,s:I}", "name", n->name,
			      "state", node_state_now(c, (uint32_t)i), "cpus", (int)n->cpus,
			      "alloc_cpus", (int)cpus, "memory", (json_int_t)n->real_memory_mb,
			      "alloc_memory", (json_int_t)mem, "gres", gres ? gres : "", "free_gpus",
			      __builtin_popcount(sched_node_free_gpus(c->sched, (uint32_t)i)),
			      "partitions", pl[i], "features", n->features ? n->features : "",
			      "reason", c->node_reason[i], "reason_time",
			      (json_int_t)c->node_reason_time[i]);
		if (o)
			json_object_set_new(o, "reason_user",
					    json_string(*c->node_reason_user[i] ? c->node_reason_user[i]
										: "root"));
		if (o)
			json_object_update_new(
				o, json_pack("{s:i,s:i,s:i,s:i,s:s,s:s,s:i,s:I,s:b}", "sockets",
					     (int)n->sockets, "cores_per_socket", (int)n->cores_per_socket,
					     "threads_per_core", (int)n->threads_per_core, "boards",
					     (int)n->boards, "addr", n->addr ? n->addr : n->name,
					     "hostname", n->hostname ? n->hostname : n->name, "weight",
					     (int)n->weight, "tmp_disk", (json_int_t)n->tmp_disk_mb,
					     "agent", c->agents[i] != NULL));
		if (o && c->node_load[i] >= 0) /* its host's, as its agent last said */
			json_object_update_new(o, json_pack("{s:I,s:I}", "cpu_load",
							    (json_int_t)c->node_load[i], "free_mem",
							    (json_int_t)c->node_free_mb[i]));
		if (o && want_map)
			json_object_update_new(o, gpu_map(c, (uint32_t)i));
		json_array_append_new(nodes, o);
		spur_free(gres);
	}
	free(pl);
	for (size_t p = 0; p < c->conf->nparts; p++) {
		const struct spur_conf_partition *pt = &c->conf->parts[p];
		json_t *idx;

		if (pt->deleted)
			continue;
		idx = json_array();

		for (size_t k = 0; k < pt->nnodes; k++)
			json_array_append_new(idx, json_integer((json_int_t)pt->nodes[k]));
		json_array_append_new(parts, json_pack("{s:s,s:b,s:I,s:I,s:i,s:o}", "name", pt->name,
						       "default", pt->is_default, "max_time",
						       (json_int_t)pt->max_time, "default_time",
						       (json_int_t)pt->default_time, "state",
						       (int)pt->state, "nodes", idx));
		json_object_update_missing_new(
			json_array_get(parts, json_array_size(parts) - 1),
			json_pack("{s:I,s:I,s:b,s:i,s:i,s:b,s:s}", "max_nodes",
				  (json_int_t)(pt->max_nodes == SPUR_CONF_UNLIMITED ? 0 : pt->max_nodes),
				  "min_nodes", (json_int_t)pt->min_nodes, "default_unlimited",
				  pt->default_unlimited,
				  "tier", (int)pt->priority_tier, "job_factor",
				  (int)pt->priority_job_factor, "hidden", pt->hidden, "preempt_mode",
				  pt->preempt_mode && *pt->preempt_mode ? pt->preempt_mode : "OFF"));
		json_object_update_missing_new(json_array_get(parts, json_array_size(parts) - 1),
					       part_access_json(pt));
	}
	reply_ok(cn, json_pack("{s:o,s:o}", "nodes", nodes, "partitions", parts));
}

/* Jobs whose batch script should run on node idx but that its agent does
 * not know are requeued (--no-requeue ones fail), not RUNNING forever. */
static void lost_jobs(struct ctld *c, long idx, const json_t *known)
{
	for (size_t id = c->purge_low; id < c->jobs_cap; id++) {
		struct sched_job_info info;
		struct spur_error err;
		bool found = false;
		size_t i;
		json_t *v, *op;

		if (!c->jobs[id] || ctld_job_interactive(c->jobs[id]) ||
		    sched_job_info(c->sched, (uint32_t)id, &info) ||
		    info.state != SCHED_JOB_RUNNING || !info.nalloc || info.alloc[0].node != idx)
			continue;
		json_array_foreach(known, i, v)
			found |= json_integer_value(v) == (json_int_t)id;
		if (found)
			continue;
		/* the agent never got it: the launch was lost with its old
		 * connection (it left while this controller was busy) or never
		 * sent (a controller that committed the start died first). It
		 * is sent again on the same allocation, unless it may have run
		 * already (launched) and must not run twice (--no-requeue): that
		 * one fails */
		if ((!c->jobs[id]->launched || spur_json_bool(c->jobs[id]->spec, "requeue", 1)) &&
		    ctld_relaunch(c, c->jobs[id])) {
			spur_warn("job %zu: node %s never got it; launched again", id,
				  c->conf->nodes[idx].name);
			continue;
		}
		if (spur_json_bool(c->jobs[id]->spec, "requeue", 1)) {
			spur_warn("job %zu: node %s never got it; requeued", id,
				  c->conf->nodes[idx].name);
			op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "requeue", "id", (int)id,
				       "time", (json_int_t)ctld_now(), "run", (int)c->jobs[id]->runs,
				       "hold", 0);
		} else {
			spur_warn("job %zu: node %s lost it; failing it", id,
				  c->conf->nodes[idx].name);
			op = json_pack("{s:s,s:i,s:I,s:i}", "op", "finish", "id", (int)id, "time",
				       (json_int_t)ctld_now(), "exit", 1);
		}
		if (ctld_commit(c, op, NULL, NULL, &err))
			spur_error_log("job %zu: %s", id, err.msg);
		json_decref(op);
	}
}

/* Jobs the agent runs that should not run there any more (cancelled,
 * ended, requeued or purged while it was away) are killed now: a job
 * cancelled while its node's agent was down does not run on with its
 * resources counted free. */
static void stale_jobs(struct ctld *c, long idx, const json_t *known)
{
	size_t i, k;
	json_t *v;

	json_array_foreach(known, i, v) {
		uint32_t id = (uint32_t)json_integer_value(v);
		struct sched_job_info info;
		bool here = false;

		if (!sched_job_info(c->sched, id, &info) && info.state == SCHED_JOB_RUNNING)
			for (k = 0; k < info.nalloc && !here; k++)
				here = info.alloc[k].node == (uint32_t)idx;
		if (here)
			continue;
		spur_warn("job %u: still on node %s, which it should no longer run on: killing it",
			  id, c->conf->nodes[idx].name);
		ctld_signal_nodes(c, id, &(uint32_t){ (uint32_t)idx }, 1, SIGKILL);
	}
}

/* The agent's discovered GPU links replace the controller's guess from the
 * GRES type; a mismatch with the configuration is reported, not applied. */
static void use_links(struct ctld *c, const char *node, const json_t *gpus)
{
	enum sched_link links[SCHED_MAX_GPUS][SCHED_MAX_GPUS];
	size_t n = json_array_size(gpus), i;
	struct spur_error err;
	json_t *g;

	if (!n || n > SCHED_MAX_GPUS)
		return;
	json_array_foreach(gpus, i, g) {
		const json_t *row = json_object_get(g, "links");

		if (json_array_size(row) != n)
			return; /* an older agent: keep the guess */
		for (size_t k = 0; k < n; k++) {
			const char *l = json_string_value(json_array_get(row, k));
			int v = -1;

			/* exact names, as agents send them */
			for (int x = 0; l && x <= SPUR_LINK_SYS; x++)
				if (!strcmp(l, spur_topo_link_name(x)))
					v = x;
			if (v < 0)
				return;
			links[i][k] = (enum sched_link)v;
		}
	}
	if (sched_node_set_links(c->sched, node, links, (uint32_t)n, &err))
		spur_warn("%s (keeping the links guessed from the configuration)", err.msg);
}

/* GPUs of node idx failed (the agent's health check): the core drains the
 * node and stops the jobs on those GPUs (requeued when they may be, else
 * NODE_FAIL); each stop is killed and logged. */
static void gpus_failed(struct ctld *c, long idx, const json_t *gpus, const char *why)
{
	const char *name = c->conf->nodes[idx].name;
	size_t i;
	json_t *g;

	json_array_foreach(gpus, i, g) {
		struct sched_event ev = { .type = SCHED_EV_GPU_FAIL,
					  .time = ctld_now(),
					  .node = name,
					  .gpu = (uint32_t)json_integer_value(g),
					  .defer_cycle = true };
		struct sched_actions acts;
		struct spur_error err;
		uint32_t stop[64];
		size_t ns = 0;
		char cause[64];

		if (sched_step(c->sched, &ev, &acts, &err)) {
			spur_warn("node %s: %s", name, err.msg);
			continue;
		}
		c->node_reason_time[idx] = ev.time;
		snprintf(c->node_reason[idx], sizeof(c->node_reason[idx]), "%s", why);
		c->node_reason_time[idx] = ev.time;
		spur_error_log("node %s: GPU %u failed (%s): draining", name, ev.gpu, why);
		/* the actions live until the next step: take the ids first */
		for (size_t k = 0; k < acts.n && ns < 64; k++)
			if (acts.v[k].type == SCHED_ACT_REQUEUE || acts.v[k].type == SCHED_ACT_FAIL)
				stop[ns++] = acts.v[k].job_id;
		snprintf(cause, sizeof(cause), "GPU %u of %s failed", ev.gpu, name);
		for (size_t k = 0; k < ns; k++)
			ctld_stop_job(c, stop[k], cause);
	}
}

/* scontrol update NodeName=LIST State=...: every name is checked before any
 * node changes. */
/* The nodes of hl (every one known) given state by user, in the log. */
static int admin_commit(struct ctld *c, struct spur_hostlist *hl, const char *state,
			const char *why, const char *user, struct spur_error *err)
{
	size_t n = spur_hostlist_count(hl);
	const char **names = calloc(n + 1, sizeof(*names));
	int rc;

	if (!names)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		names[i] = spur_hostlist_nth(hl, i);
	rc = ctld_node_admin_commit(c, names, n, state, why, user, err);
	free(names);
	return rc;
}

/* The nodes' features (scontrol update NodeName= AvailableFeatures=), one
 * op for them all. */
static int features_commit(struct ctld *c, const struct spur_hostlist *hl, const char *features,
			   struct spur_error *err)
{
	json_t *list = json_array(), *op;
	int rc;

	for (size_t i = 0; i < spur_hostlist_count(hl); i++)
		json_array_append_new(list, json_pack("{s:s,s:s}", "node", spur_hostlist_nth(hl, i),
						      "features", features));
	op = json_pack("{s:s,s:o,s:I}", "op", "node_features", "list", list, "time",
		       (json_int_t)ctld_now());
	rc = ctld_commit(c, op, NULL, NULL, err);
	json_decref(op);
	return rc;
}

static void handle_node_update(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const char *state = spur_json_str(msg, "state", ""), *why = spur_json_str(msg, "reason", "");
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr(spur_json_str(msg, "nodes", ""), &err);
	enum sched_event_type type;
	bool resume = false;

	if (!hl || !spur_hostlist_count(hl)) {
		spur_hostlist_destroy(hl);
		reply_error(cn, SPUR_EINVAL, "Invalid node name specified");
		return;
	}
	if (json_is_string(json_object_get(msg, "features")) &&
	    features_commit(c, hl, spur_json_str(msg, "features", ""), &err)) {
		spur_hostlist_destroy(hl);
		reply_error(cn, err.code, err.msg);
		return;
	}
	if (!*state) { /* the features alone */
		spur_hostlist_destroy(hl);
		reply_ok(cn, json_object());
		return;
	}
	if (!strcasecmp(state, "DRAIN")) {
		type = SCHED_EV_NODE_DRAIN;
	} else if (!strcasecmp(state, "DOWN")) {
		type = SCHED_EV_NODE_DOWN;
	} else if (!strcasecmp(state, "RESUME") || !strcasecmp(state, "UNDRAIN") ||
		   !strcasecmp(state, "IDLE")) {
		type = SCHED_EV_NODE_UP;
		resume = true;
	} else {
		spur_hostlist_destroy(hl);
		reply_error(cn, SPUR_EINVAL, "Invalid node state specified");
		return;
	}
	for (size_t i = 0; i < spur_hostlist_count(hl); i++) {
		if (spur_conf_node_index(c->conf, spur_hostlist_nth(hl, i)) < 0) {
			spur_hostlist_destroy(hl);
			reply_error(cn, SPUR_ENOENT, "Invalid node name specified");
			return;
		}
	}
	/* the state, reason, user and time into the log first: a new leader
	 * keeps them */
	if (admin_commit(c, hl, resume ? "" : type == SCHED_EV_NODE_DOWN ? "DOWN" : "DRAIN", why,
			 cn->who.user, &err)) {
		spur_hostlist_destroy(hl);
		reply_error(cn, err.code, err.msg);
		return;
	}
	for (size_t i = 0; i < spur_hostlist_count(hl); i++) {
		const char *name = spur_hostlist_nth(hl, i);
		long idx = spur_conf_node_index(c->conf, name);
		/* a node without its agent stays out of service */
		struct sched_event ev = { .type = resume && !c->agents[idx] ? SCHED_EV_NODE_DRAIN : type,
					  .time = ctld_now(),
					  .node = name,
					  .reason = resume ? "not registered" : why,
					  .defer_cycle = true };
		struct sched_actions acts;
		uint32_t stop[256];
		size_t ns = 0;

		if (sched_step(c->sched, &ev, &acts, &err)) {
			spur_warn("node %s: %s", name, err.msg);
			continue;
		}
		for (size_t k = 0; k < acts.n && ns < 256; k++)
			if (acts.v[k].type == SCHED_ACT_REQUEUE || acts.v[k].type == SCHED_ACT_FAIL)
				stop[ns++] = acts.v[k].job_id;
		if (resume && !c->agents[idx])
			snprintf(c->node_reason[idx], sizeof(c->node_reason[idx]), "not registered");
		spur_info("node %s: %s by scontrol%s%s", name, resume ? "resumed" : state,
			  *why ? ": " : "", why);
		for (size_t k = 0; k < ns; k++)
			ctld_stop_job(c, stop[k], "its node was set DOWN");
	}
	spur_hostlist_destroy(hl);
	reply_ok(cn, json_object());
	ctld_cycle_soon(c);
}

/* Drain node idx for a reason the controller found (a failed Prolog). */
static void drain_node(struct ctld *c, long idx, const char *why)
{
	const char *name = c->conf->nodes[idx].name;
	struct sched_event ev = { .type = SCHED_EV_NODE_DRAIN, .time = ctld_now(), .node = name,
				  .reason = why, .defer_cycle = true };
	struct sched_actions acts;
	struct spur_error err;

	if (c->node_admin[idx] && !strncmp(c->node_reason[idx], why, sizeof(c->node_reason[idx]) - 1))
		return; /* drained for this already (a health check failing each run) */
	if (sched_step(c->sched, &ev, &acts, &err)) {
		spur_warn("node %s: %s", name, err.msg);
		return;
	}
	if (ctld_node_admin_commit(c, &name, 1, "DRAIN", why, "root", &err))
		spur_error_log("node %s: %s", name, err.msg);
	spur_warn("node %s: drained: %s", name, why);
}

/* HealthCheckProgram failed on the agent's node: drained with its reason,
 * until an administrator resumes it (as the health check's own scontrol
 * call would leave it under Slurm). */
static void handle_health_failed(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;

	if (cn->node < 0 || c->agents[cn->node] != cn)
		return; /* only a registered agent speaks for its node */
	drain_node(c, cn->node, spur_json_str(msg, "reason", "HealthCheck failed"));
	ctld_cycle_soon(c);
}

static void handle_gpu_failed(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;

	if (cn->node < 0 || c->agents[cn->node] != cn)
		return; /* only a registered agent speaks for its GPUs */
	gpus_failed(c, cn->node, json_object_get(msg, "gpus"),
		    spur_json_str(msg, "reason", "GPU failed"));
	ctld_cycle_soon(c);
}

/* The steps a registering agent runs: their shares, which a controller
 * that took over does not have (the leader keeps them in memory). */
static void known_steps(struct ctld *c, const char *node, const json_t *steps)
{
	const json_t *s;
	size_t i;

	json_array_foreach(steps, i, s)
	{
		uint32_t id = (uint32_t)spur_json_int(s, "job_id", 0);
		json_int_t step = spur_json_int(s, "step_id", -1);
		struct ctld_job *cj = ctld_job(c, id);
		struct sched_job_info info;

		if (!cj || step < 0 || step > UINT32_MAX || sched_job_info(c->sched, id, &info) ||
		    info.state != SCHED_JOB_RUNNING)
			continue;
		if (ctld_steps_restore(cj, &info, (uint32_t)step, json_object_get(s, "share")))
			spur_warn("node %s: job %u step %u: its share is not in the allocation", node,
				  id, (uint32_t)step);
	}
}

static void handle_register(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const char *name = spur_json_str(msg, "node", "");
	long idx = spur_conf_node_index(c->conf, name);
	struct sched_event ev = { .type = SCHED_EV_NODE_UP, .time = ctld_now(), .node = name };
	struct sched_actions acts;
	struct spur_error err;

	if (idx < 0) {
		reply_error(cn, SPUR_ENOENT, "this node is not in the controller's configuration");
		return;
	}
	if (c->agents[idx] && c->agents[idx] != cn)
		spur_warn("node %s: a second agent registered; the newest wins", name);
	c->agents[idx] = cn;
	cn->node = idx;
	ctld_conn_is_agent(cn);
	ev.defer_cycle = true;
	if (sched_step(c->sched, &ev, &acts, &err)) {
		reply_error(cn, err.code, err.msg);
		return;
	}
	if (c->node_admin[idx]) {
		/* an administrator's drain outlasts the agent's reconnection */
		struct sched_event dr = { .type = c->node_admin[idx] == CTLD_ADMIN_DOWN
							  ? SCHED_EV_NODE_DOWN
							  : SCHED_EV_NODE_DRAIN,
					  .time = ev.time, .node = name,
					  .reason = c->node_reason[idx], .defer_cycle = true };

		sched_step(c->sched, &dr, &acts, &err);
	} else {
		c->node_reason[idx][0] = '\0';
	}
	use_links(c, name, json_object_get(msg, "gpus"));
	if (json_array_size(json_object_get(msg, "gpus_failed")))
		gpus_failed(c, idx, json_object_get(msg, "gpus_failed"),
			    spur_json_str(msg, "gpu_reason", "GPU failed"));
	spur_info("node %s registered (%" JSON_INTEGER_FORMAT " cpus, %" JSON_INTEGER_FORMAT
		  " GPUs)",
		  name, (json_int_t)spur_json_int(msg, "cpus", 0),
		  (json_int_t)json_array_size(json_object_get(msg, "gpus")));
	/* the agent starts work only for a controller that holds the key */
	{
		char *tok = spur_token_sign(&c->key, c->conf->slurm_user ? c->conf->slurm_user : "root",
					    SPUR_ROLE_CONTROLLER, NULL, ctld_now(), 300, &err);

		reply_ok(cn, json_pack("{s:s,s:s*}", "node", name, "auth", tok));
		free(tok);
	}
	/* after the answer that makes the agent trust this controller (it
	 * takes no launch or signal before it) */
	lost_jobs(c, idx, json_object_get(msg, "jobs"));
	stale_jobs(c, idx, json_object_get(msg, "jobs"));
	known_steps(c, name, json_object_get(msg, "steps"));
	ctld_cycle_soon(c);
}

static void handle_finished(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct sched_job_info info;
	struct spur_error err;
	/* the agent keeps the report until this comes back, once it is
	 * committed (or found needless), so a controller killed in between
	 * gets it again from the agent */
	json_t *op, *ack = json_pack("{s:s,s:i,s:I}", "type", "finished_ack", "job_id", (int)id,
				     "run", (json_int_t)spur_json_int(msg, "run", 0));

	/* a job cancelled or requeued meanwhile: its end is already recorded */
	if (sched_job_info(c->sched, id, &info) || info.state != SCHED_JOB_RUNNING) {
		ctld_conn_send(cn, ack);
		return;
	}
	/* the result of an earlier run, requeued since */
	if (json_object_get(msg, "run") && ctld_job(c, id) &&
	    (uint32_t)spur_json_int(msg, "run", 0) != ctld_job(c, id)->runs) {
		ctld_conn_send(cn, ack);
		return;
	}
	if (spur_json_bool(msg, "prolog_failed", 0)) {
		/* as slurmd: the node drains, the job waits held for an admin */
		drain_node(c, cn->node, "Prolog error");
		ctld_signal_job(c, id, SIGKILL);
		op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "requeue", "id", (int)id, "time",
			       (json_int_t)ctld_now(), "run", (int)ctld_job(c, id)->runs, "hold", 1);
		if (ctld_commit(c, op, cn, ack, &err))
			spur_error_log("job %u requeue after its Prolog failed: %s", id, err.msg);
		json_decref(op);
		ctld_cycle_soon(c);
		return;
	}
	/* the batch script is done: steps still running anywhere end with it */
	ctld_signal_job(c, id, SIGKILL);
	op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "finish", "id", (int)id, "time",
		       (json_int_t)ctld_now(), "exit", (int)spur_json_int(msg, "exit_code", 0),
		       "timeout", spur_json_bool(msg, "timed_out", 0));
	if (spur_json_bool(msg, "oom", 0))
		json_object_set_new(op, "oom", json_true());
	if (json_is_string(json_object_get(msg, "reason"))) /* its container did not start */
		json_object_set(op, "why", json_object_get(msg, "reason"));
	if (spur_json_int(msg, "max_rss_kb", 0) > 0) /* the batch step's MaxRSS */
		json_object_set_new(op, "max_rss_kb", json_integer(spur_json_int(msg, "max_rss_kb", 0)));
	if (ctld_commit(c, op, cn, ack, &err))
		spur_error_log("job %u finish: %s", id, err.msg);
	json_decref(op);
	ctld_cycle_soon(c);
}

/* scontrol requeue / requeuehold: kill the running batch script, then the
 * job is pending again (held with requeuehold). */
static void handle_requeue(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;
	struct spur_error err;
	json_t *op;

	if (!cj || sched_job_info(c->sched, id, &info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (ctld_job_interactive(cj)) {
		reply_error(cn, SPUR_EINVAL, "Only batch jobs are accepted or processed");
		return;
	}
	/* the nodes of the running script (the requeue releases them) */
	uint32_t nodes[256];
	size_t nn = info.state == SCHED_JOB_RUNNING ? info.nalloc : 0;

	if (nn > 256)
		nn = 256;
	for (size_t i = 0; i < nn; i++)
		nodes[i] = info.alloc[i].node;
	op = json_pack("{s:s,s:i,s:I,s:i,s:b}", "op", "requeue", "id", (int)id, "time",
		       (json_int_t)ctld_now(), "run", (int)cj->runs, "hold",
		       spur_json_bool(msg, "admin", 0));
	/* scontrol requeuehold: Slurm's reason, or SPECIAL_EXIT (a Prolog's
	 * requeue holds plainly) */
	if (spur_json_bool(msg, "admin", 0))
		json_object_set_new(op, "held_state",
				    json_integer(spur_json_bool(msg, "special_exit", 0) ? 2 : 1));
	/* the running script is killed once the requeue is accepted (before any
	 * new run can be launched: that waits for a commit) */
	if (ctld_commit(c, op, cn, json_pack("{s:s,s:i}", "type", "ok", "job_id", (int)id), &err)) {
		reply_error(cn, err.code, err.msg);
		json_decref(op);
		return;
	}
	json_decref(op);
	ctld_signal_nodes(c, id, nodes, nn, SIGKILL);
	ctld_cycle_soon(c);
}

/* scontrol update JobId=N: the settable fields of a pending job, range
 * checked as at submission. */
static bool update_strings_ok(const json_t *set, char *why, size_t len)
{
	static const char *const strs[] = { "name",	  "partition",	"account", "qos",
					    "dependency", "constraint", "gres" };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (json_object_get(set, strs[i]) && !json_is_string(json_object_get(set, strs[i]))) {
			snprintf(why, len, "invalid %s: expected a string", strs[i]);
			return false;
		}
	return true;
}

/* A new partition (or account, QOS, memory) must let the job in, as at
 * submission; answers and returns false when not. */
static bool update_partition_ok(struct ctld_conn *cn, uint32_t id, const json_t *set)
{
	const struct ctld_job *cj = ctld_job(cn->c, id);
	json_t *job;
	bool ok;

	if (!cj)
		return true; /* the core says the job is unknown */
	job = json_deep_copy(cj->spec);
	json_object_update(job, (json_t *)set);
	ok = job_partitions_ok(cn, job);
	json_decref(job);
	return ok;
}

static void handle_update(struct ctld_conn *cn, json_t *msg)
{
	static const char *const keys[] = { "time_limit", "nice",	  "name",	"partition",
					    "account",	  "qos",	  "dependency", "constraint",
					    "nodes",	  "priority",	  "gres" };
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	const json_t *set = json_object_get(msg, "set");
	json_t *clean = json_object();
	char why[160];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_get(set, keys[i]))
			json_object_set(clean, keys[i], json_object_get(set, keys[i]));
	if (!json_is_object(set) || json_object_size(clean) != json_object_size(set) ||
	    !json_object_size(clean)) {
		json_decref(clean);
		reply_error(cn, SPUR_EINVAL, "Update of this parameter is not supported");
		return;
	}
	ctld_lower(clean, "account");
	if (denied(cn, id)) {
		json_decref(clean);
		return;
	}
	/* as in Slurm, only an administrator raises a time limit or the
	 * priority (a negative nice) */
	if (!is_admin(cn) && ctld_job(cn->c, id) &&
	    (json_object_get(clean, "priority") ||
	     (json_object_get(clean, "nice") && spur_json_int(clean, "nice", 0) < 0) ||
	     (json_object_get(clean, "time_limit") &&
	      (spur_json_int(clean, "time_limit", 0) == 0 ||
	       spur_json_int(clean, "time_limit", 0) >
		       spur_json_int(ctld_job(cn->c, id)->spec, "time_limit", 0))))) {
		json_decref(clean);
		reply_error(cn, SPUR_EPERM, ACCESS_DENIED);
		return;
	}
	if (!update_strings_ok(clean, why, sizeof(why)) || !job_numbers_ok(clean, why, sizeof(why))) {
		json_decref(clean);
		reply_error(cn, SPUR_EINVAL, why);
		return;
	}
	if (!update_partition_ok(cn, id, clean)) {
		json_decref(clean);
		return;
	}
	commit_reply(cn,
		     whole_array(cn, msg,
				 json_pack("{s:s,s:i,s:I,s:o}", "op", "update", "id", (int)id, "time",
					   (json_int_t)ctld_now(), "set", clean)),
		     id);
}

/* salloc/srun ends its allocation with the command's exit code. */
static void handle_complete(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;
	int code = (int)spur_json_int(msg, "exit_code", 0);

	if (!cj || !ctld_job_interactive(cj) || sched_job_info(c->sched, id, &info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	cj->owner = NULL;
	if (info.state != SCHED_JOB_RUNNING) {
		reply_ok(cn, json_pack("{s:i}", "job_id", (int)id)); /* ended already */
		return;
	}
	ctld_signal_job(c, id, SIGKILL); /* steps still running end with it */
	commit_reply(cn,
		     json_pack("{s:s,s:i,s:I,s:i}", "op", "finish", "id", (int)id, "time",
			       (json_int_t)ctld_now(), "exit", code < 0 || code > 255 ? 1 : code),
		     id);
}

static void handle_hold(struct ctld_conn *cn, json_t *msg)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	bool hold = !strcmp(spur_json_str(msg, "type", ""), "hold");

	if (denied(cn, id))
		return;
	/* a user's hold is a user hold, as in Slurm; their release leaves an
	 * administrator's hold in place */
	commit_reply(cn,
		     whole_array(cn, msg, json_pack("{s:s,s:i,s:I,s:b}", "op", hold ? "hold" : "release",
						    "id", (int)id, "time", (json_int_t)ctld_now(),
						    "admin", spur_json_bool(msg, "admin", 0) && is_admin(cn))),
		     id);
}

/* srun inside a job: lay the tasks out in blocks over the job's nodes (or
 * its first -N of them) and tell each node's agent; the agents stream the
 * tasks' output and exit codes to srun at its io address. */
/* The job's nodes a step runs on (indexes into info->alloc, in order):
 * srun -w NODES keeps those (each must be the job's), -x NODES drops
 * those, -r N skips the first N, -N N takes the first N. 0, or an error
 * answered. */
static int step_nodes(struct ctld_conn *cn, const json_t *msg, const struct sched_job_info *info,
		      size_t *sel, size_t *nsel)
{
	struct ctld *c = cn->c;
	struct spur_hostlist *want = NULL, *skip = NULL;
	struct spur_error err;
	size_t n = 0, req = (size_t)spur_json_int(msg, "nodes", 0);
	/* srun -r N: the step starts at the allocation's node N */
	size_t from = (size_t)spur_json_int(msg, "relative", 0);
	int rc = 0;

	if ((json_is_string(json_object_get(msg, "nodelist")) &&
	     !(want = spur_hostlist_from_expr(spur_json_str(msg, "nodelist", ""), &err))) ||
	    (json_is_string(json_object_get(msg, "exclude")) &&
	     !(skip = spur_hostlist_from_expr(spur_json_str(msg, "exclude", ""), &err)))) {
		reply_error(cn, SPUR_EINVAL, "Invalid node name specified");
		rc = -1;
		goto out;
	}
	for (size_t i = 0; want && i < spur_hostlist_count(want); i++) {
		bool in = false;

		for (size_t k = 0; k < info->nalloc; k++)
			in |= !strcmp(c->conf->nodes[info->alloc[k].node].name,
				      spur_hostlist_nth(want, i));
		if (!in) {
			reply_error_detail(cn, SPUR_EINVAL,
					   "Requested node configuration is not available",
					   "a node of --nodelist is not in the job's allocation");
			rc = -1;
			goto out;
		}
	}
	for (size_t k = from; k < info->nalloc && (!req || n < req); k++) {
		const char *name = c->conf->nodes[info->alloc[k].node].name;
		bool listed = !want, skipped = false;

		for (size_t i = 0; want && i < spur_hostlist_count(want); i++)
			listed |= !strcmp(name, spur_hostlist_nth(want, i));
		for (size_t i = 0; skip && i < spur_hostlist_count(skip); i++)
			skipped |= !strcmp(name, spur_hostlist_nth(skip, i));
		if (listed && !skipped)
			sel[n++] = k;
	}
	if (!n || (req && n < req)) {
		reply_error(cn, SPUR_EINVAL, "Requested node configuration is not available");
		rc = -1;
	}
	*nsel = n;
out:
	spur_hostlist_destroy(want);
	spur_hostlist_destroy(skip);
	return rc;
}

/* What one node of a step is sent: its ranks, the step's environment,
 * srun's per-task asks. */
static json_t *step_part(struct ctld *c, struct ctld_job *cj, const struct sched_job_info *info,
			 const json_t *msg, size_t node, uint32_t step, size_t k, size_t first,
			 size_t here, size_t nt, size_t nn, size_t plane)
{
	json_t *ranks = json_array(), *env = ctld_job_env(c, cj, info, node), *m;

	if (!plane) /* -m block: ranks first.. */
		for (size_t r = 0; r < here; r++)
			json_array_append_new(ranks, json_integer((json_int_t)(first + r)));
	/* -m cyclic (plane 1), plane=N: step node k has the k-th plane of
	 * ranks, the (k+nn)-th... */
	for (size_t b = k; plane && b * plane < nt; b += nn)
		for (size_t r = b * plane; r < (b + 1) * plane && r < nt; r++)
			json_array_append_new(ranks, json_integer((json_int_t)r));
	if (json_is_string(json_object_get(msg, "distribution")))
		put_env(env, "DISTRIBUTION", spur_json_str(msg, "distribution", ""));
	if (plane && !strcmp(spur_json_str(msg, "distribution", ""), "plane"))
		put_env_int(env, "DIST_PLANESIZE", (long long)plane);
	put_env_int(env, "STEP_ID", step);
	put_env_int(env, "STEPID", step);
	put_env_int(env, "STEP_NUM_TASKS", (long long)nt);
	put_env_int(env, "STEP_NUM_NODES", (long long)nn);
	put_env_int(env, "NTASKS", (long long)nt);
	put_env_int(env, "NPROCS", (long long)nt);
	put_env_int(env, "NNODES", (long long)nn);
	/* srun -E: srun's own SLURM_NNODES and SLURM_NTASKS instead */
	json_t *keep = json_object_get(msg, "preserve_env");

	if (json_is_string(json_object_get(keep, "NNODES")))
		put_env(env, "NNODES", spur_json_str(keep, "NNODES", ""));
	if (json_is_string(json_object_get(keep, "NTASKS"))) {
		put_env(env, "NTASKS", spur_json_str(keep, "NTASKS", ""));
		put_env(env, "NPROCS", spur_json_str(keep, "NTASKS", ""));
	}
	/* srun -J and -c, as Slurm sets them for the step's tasks */
	if (json_is_string(json_object_get(msg, "name"))) {
		json_object_set(env, "SLURM_JOB_NAME", json_object_get(msg, "name"));
		json_object_set(env, "SPUR_JOB_NAME", json_object_get(msg, "name"));
	}
	if (spur_json_int(msg, "cpus_per_task", 0) > 0)
		put_env_int(env, "CPUS_PER_TASK", spur_json_int(msg, "cpus_per_task", 0));
	m = json_pack("{s:s,s:i,s:i,s:o,s:I,s:I,s:I,s:O,s:o,s:O,s:s,s:I,s:I}", "type", "step",
		      "job_id", (int)cj->id, "step_id", (int)step, "ranks", ranks, "ntasks",
		      (json_int_t)nt, "nnodes", (json_int_t)nn, "node_index", (json_int_t)node,
		      "argv", json_object_get(msg, "argv"), "env", env, "user_env",
		      json_object_get(msg, "env"), "cwd", spur_json_str(msg, "cwd", "/"), "uid",
		      (json_int_t)spur_json_int(cj->spec, "uid", 0), "gid",
		      (json_int_t)spur_json_int(cj->spec, "gid", 0));
	/* srun's per-task asks, which the agent carries out */
	if (spur_json_int(msg, "gpus_per_task", 0) > 0)
		json_object_set_new(m, "gpus_per_task",
				    json_integer(spur_json_int(msg, "gpus_per_task", 0)));
	if (spur_json_int(msg, "cpus_per_task", 0) > 0)
		json_object_set_new(m, "cpus_per_task",
				    json_integer(spur_json_int(msg, "cpus_per_task", 0)));
	if (json_is_string(json_object_get(msg, "cpu_bind")))
		json_object_set(m, "cpu_bind", json_object_get(msg, "cpu_bind"));
	if (json_is_string(json_object_get(msg, "gpu_bind")))
		json_object_set(m, "gpu_bind", json_object_get(msg, "gpu_bind"));
	else if (spur_json_int(cj->spec, "ntasks_per_gpu", 0) > 0) { /* Slurm: single:N implied */
		char bind[32];

		snprintf(bind, sizeof(bind), "single:%lld",
			 (long long)spur_json_int(cj->spec, "ntasks_per_gpu", 0));
		json_object_set_new(m, "gpu_bind", json_string(bind));
	}
	if (spur_json_int(msg, "time_limit", 0) > 0) /* srun -t: the agents end it then */
		json_object_set_new(m, "time_limit",
				    json_integer(spur_json_int(msg, "time_limit", 0)));
	if (json_is_object(json_object_get(msg, "container"))) /* its tasks' container */
		json_object_set(m, "container", json_object_get(msg, "container"));
	/* srun --multi-prog's file, --task-prolog, --task-epilog (checked) */
	for (size_t p = 0; p < 3; p++) {
		static const char *const keys[] = { "multi_prog", "task_prolog", "task_epilog" };

		if (json_is_string(json_object_get(msg, keys[p])))
			json_object_set(m, keys[p], json_object_get(msg, keys[p]));
	}
	/* srun's own limits, as PropagateResourceLimits / srun --propagate say */
	json_object_set_new(m, "rlimits", ctld_job_rlimits(c->conf, msg));
	/* what the job holds on this node: a node other than its first makes
	 * the job's cgroups from it for the steps' tasks */
	if (node < info->nalloc)
		json_object_set_new(m, "node_alloc",
				    json_pack("{s:i,s:I,s:i,s:i,s:i}", "cpus", (int)info->alloc[node].cpus,
					      "mem_mb", (json_int_t)info->alloc[node].mem_mb, "gpus",
					      (int)info->alloc[node].gpu_mask, "run",
					      (int)(cj->runs ? cj->runs : 1), "share", (int)info->share));
	if (spur_json_bool(msg, "pty", 0)) { /* srun --pty: task 0's terminal size */
		json_object_set_new(m, "pty", json_true());
		json_object_set_new(m, "rows", json_integer(spur_json_int(msg, "rows", 24)));
		json_object_set_new(m, "cols", json_integer(spur_json_int(msg, "cols", 80)));
	}
	return m;
}

/* A step's start (RUNNING) or end into the accounting, through the log so
 * that every controller's sacct shows it. */
static void step_record(struct ctld *c, struct ctld_job *cj, const json_t *msg, uint32_t step,
			size_t nn, size_t nt, uint64_t mem_mb, unsigned gpus)
{
	const char *state = "RUNNING";
	int exit_code = 0;
	const json_t *argv = json_object_get(msg, "argv");
	const char *cmd = json_string_value(json_array_get(argv, 0));
	const char *base = cmd && strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	struct spur_error err;
	json_t *op = json_pack("{s:s,s:i,s:i,s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:s}", "op", "step", "id",
			       (int)cj->id, "step", (int)step, "name",
			       spur_json_str(msg, "name", base ? base : ""), "state", state, "exit",
			       exit_code, "start", (json_int_t)ctld_now(), "end", (json_int_t)0,
			       "nnodes", (json_int_t)nn, "ntasks", (json_int_t)nt, "nodes",
			       cj->nodes ? cj->nodes : "");

	/* what scontrol show step prints: its CPUs, and where srun runs */
	json_object_set_new(op, "cpus",
			    json_integer((json_int_t)nt *
					 (spur_json_int(msg, "cpus_per_task", 1) > 0
						  ? spur_json_int(msg, "cpus_per_task", 1)
						  : 1)));
	if (json_is_string(json_object_get(msg, "srun_host")) &&
	    strlen(spur_json_str(msg, "srun_host", "")) < 256)
		json_object_set(op, "srun_host", json_object_get(msg, "srun_host"));
	if (spur_json_int(msg, "srun_pid", 0) > 0)
		json_object_set(op, "srun_pid", json_object_get(msg, "srun_pid"));
	if (spur_json_int(msg, "time_limit", 0) > 0)
		json_object_set_new(op, "time_limit",
				    json_integer(spur_json_int(msg, "time_limit", 0)));
	/* scontrol show step's TRES: its CPUs, memory asked, nodes, GPUs held */
	{
		char tres[160];
		int o = snprintf(tres, sizeof(tres), "cpu=%lld",
				 (long long)spur_json_int(op, "cpus", 1));

		if (mem_mb)
			o += snprintf(tres + o, sizeof(tres) - (size_t)o, ",mem=%lluM",
				      (unsigned long long)mem_mb);
		o += snprintf(tres + o, sizeof(tres) - (size_t)o, ",node=%zu", nn);
		if (gpus)
			snprintf(tres + o, sizeof(tres) - (size_t)o, ",gres/gpu=%u", gpus);
		json_object_set_new(op, "tres", json_string(tres));
	}
	if (ctld_commit(c, op, NULL, NULL, &err))
		spur_warn("job %u step %u: accounting: %s", cj->id, step, err.msg);
	json_decref(op);
}

/* srun's step ended: its state and exit code into the accounting, kept
 * from its start. */
static void handle_step_done(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	const char *state = spur_json_str(msg, "state", "COMPLETED");
	struct spur_error err;
	json_t *op;

	if (!cj) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (strcmp(state, "COMPLETED") && strcmp(state, "FAILED") && strcmp(state, "CANCELLED") &&
	    strcmp(state, "TIMEOUT"))
		state = "FAILED";
	op = json_pack("{s:s,s:i,s:i,s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:s}", "op", "step", "id", (int)id,
		       "step", (int)spur_json_int(msg, "step_id", 0), "name",
		       spur_json_str(msg, "name", ""), "state", state, "exit",
		       (int)spur_json_int(msg, "exit_code", 0), "start",
		       (json_int_t)spur_json_int(msg, "start", 0), "end", (json_int_t)ctld_now(),
		       "nnodes", (json_int_t)spur_json_int(msg, "nnodes", 1), "ntasks",
		       (json_int_t)spur_json_int(msg, "ntasks", 1), "nodes", cj->nodes ? cj->nodes : "");
	if (ctld_commit(c, op, cn, json_pack("{s:s}", "type", "ok"), &err))
		reply_error(cn, err.code, err.msg);
	json_decref(op);
}

/* The step's GPUs on a node, in the variables its tasks read. */
static void step_gpus(json_t *env, uint16_t mask)
{
	static const char *const vars[] = { "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
					    "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
					    "SLURM_STEP_GPUS", "SPUR_STEP_GPUS" };
	char list[64] = "";

	if (!json_object_get(env, "CUDA_VISIBLE_DEVICES"))
		return; /* a job without GPUs */
	for (unsigned b = 0; b < 16; b++)
		if (mask & (1u << b))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u",
				 *list ? "," : "", b);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		json_object_set_new(env, vars[i], json_string(list));
}

/* An agent: a step's tasks on its node are all done; what the step held
 * there is free for the next. */
static void handle_step_end(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	struct ctld_job *cj = ctld_job(c, (uint32_t)spur_json_int(msg, "job_id", 0));
	struct sched_job_info info;

	if (!cj || cn->node < 0 || sched_job_info(c->sched, cj->id, &info))
		return;
	for (size_t k = 0; k < info.nalloc; k++)
		if (info.alloc[k].node == (uint32_t)cn->node)
			ctld_steps_release(cj, (uint32_t)spur_json_int(msg, "step_id", 0), (long)k);
}

/* srun's MPI type, or MpiDefault: "none" or "pmix"; NULL when refused. */
/* srun --multi-prog's file (its text, as Slurm's srun sends it) and
 * --task-prolog/--task-epilog (absolute paths on the nodes): well formed,
 * or refused (said). */
static bool step_programs_ok(struct ctld_conn *cn, const json_t *msg)
{
	const json_t *mp = json_object_get(msg, "multi_prog");

	if (mp && (!json_is_string(mp) || json_string_length(mp) > SPUR_MPMD_MAX)) {
		reply_error(cn, SPUR_EINVAL, "step: multi_prog must be text of at most 60000 bytes");
		return false;
	}
	for (int k = 0; k < 2; k++) {
		const json_t *p = json_object_get(msg, k ? "task_epilog" : "task_prolog");

		if (p && (!json_is_string(p) || json_string_value(p)[0] != '/' ||
			  json_string_length(p) > 4095)) {
			reply_error(cn, SPUR_EINVAL, k ? "step: task_epilog must be an absolute path"
						       : "step: task_prolog must be an absolute path");
			return false;
		}
	}
	return true;
}

/* srun --hint inside a job: taken where cores have one thread (as the
 * job's --hint). False (answered) when a step node has more. */
static bool step_hint_ok(struct ctld_conn *cn, const json_t *msg,
			 const struct sched_job_info *info, const size_t *sel, size_t nn)
{
	const struct spur_conf *cf = cn->c->conf;
	char why[256];

	for (size_t k = 0; json_object_get(msg, "hint") && k < nn; k++) {
		const struct spur_conf_node *n = &cf->nodes[info->alloc[sel[k]].node];

		if (n->threads_per_core > 1) {
			snprintf(why, sizeof(why),
				 "--hint=%s on nodes with ThreadsPerCore>1 (%s) is not supported by "
				 "Spur",
				 spur_json_str(msg, "hint", ""), n->name);
			reply_error(cn, SPUR_EUNSUPP, why);
			return false;
		}
	}
	return true;
}

static const char *step_mpi(struct ctld_conn *cn, const json_t *msg)
{
	const char *conf = cn->c->conf->mpi_default;
	const char *mpi = spur_json_str(msg, "mpi", conf ? conf : "none");
	char why[160];

	if (!strncmp(mpi, "pmix", 4))
		return "pmix";
	if (!strcmp(mpi, "none") || !strcmp(mpi, "pmi2"))
		return mpi;
	snprintf(why, sizeof(why), "MPI type '%.40s' is not supported by Spur (none, pmi2, pmix)",
		 mpi);
	reply_error_detail(cn, SPUR_EINVAL, "MPI type not supported", why);
	return NULL;
}

/* The client's address, where the agents reach srun or sattach. */
static void peer_host(struct ctld_conn *cn, char *host, size_t len)
{
	struct sockaddr_storage peer;
	int plen = sizeof(peer);

	snprintf(host, len, "127.0.0.1");
	if (uv_tcp_getpeername(&cn->tcp, (struct sockaddr *)&peer, &plen) == 0 &&
	    peer.ss_family == AF_INET)
		uv_ip4_name((struct sockaddr_in *)&peer, host, len);
}

/* sattach JOB.STEP: every node of the job is asked to connect to sattach;
 * those running the step send its output from then on, the others say
 * they have none of it. The reply names the nodes asked. */
/* Frame m (stolen) to the agent of each node of the job's allocation that
 * is connected, with the caller's host as io_host: their names. */
static json_t *to_job_nodes(struct ctld_conn *cn, const struct sched_job_info *info, json_t *m)
{
	struct ctld *c = cn->c;
	json_t *names = json_array();
	char host[64];

	peer_host(cn, host, sizeof(host));
	json_object_set_new(m, "io_host", json_string(host));
	for (size_t k = 0; k < info->nalloc; k++) {
		struct ctld_conn *agent = c->agents[info->alloc[k].node];

		if (!agent)
			continue;
		ctld_conn_send(agent, json_incref(m));
		json_array_append_new(names,
				      json_string(c->conf->nodes[info->alloc[k].node].name));
	}
	json_decref(m);
	return names;
}

static void handle_attach(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	json_int_t step = spur_json_int(msg, "step_id", -1), port = spur_json_int(msg, "io_port", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;

	if (!cj || sched_job_info(c->sched, id, &info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (info.state != SCHED_JOB_RUNNING || step < 0 || step >= (json_int_t)cj->next_step) {
		reply_error(cn, SPUR_ENOENT, "Job step not found");
		return;
	}
	if (port <= 0 || port > 65535) {
		reply_error(cn, SPUR_EINVAL, "attach: io_port out of range");
		return;
	}
	reply_ok(cn, json_pack("{s:o}", "nodes",
			       to_job_nodes(cn, &info,
					    json_pack("{s:s,s:i,s:I,s:I}", "type", "attach",
						      "job_id", (int)id, "step_id", step,
						      "io_port", port))));
}

/* sstat: the job's nodes send its use there to sstat's port. */
static void handle_sstat(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	json_int_t port = spur_json_int(msg, "io_port", 0);
	struct sched_job_info info;

	if (!ctld_job(c, id) || sched_job_info(c->sched, id, &info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (info.state != SCHED_JOB_RUNNING) {
		reply_error(cn, SPUR_ESTATE, "Job is not running");
		return;
	}
	if (port <= 0 || port > 65535) {
		reply_error(cn, SPUR_EINVAL, "sstat: io_port out of range");
		return;
	}
	reply_ok(cn, json_pack("{s:o,s:i}", "nodes",
			       to_job_nodes(cn, &info,
					    json_pack("{s:s,s:i,s:I}", "type", "stat", "job_id",
						      (int)id, "io_port", port)),
			       "steps", (int)ctld_job(c, id)->next_step));
}

/* More tasks (times -c) than the step's nodes have CPUs of the job: refused
 * as Slurm's step manager does, unless -O (srun's or the job's). */
static bool step_cpus_ok(struct ctld_conn *cn, const json_t *msg, const struct ctld_job *cj,
			 const struct sched_job_info *info, const size_t *sel, size_t nn,
			 size_t nt)
{
	long long cpt = spur_json_int(msg, "cpus_per_task", 1), have = 0;

	if (spur_json_bool(msg, "overcommit", 0) || spur_json_bool(cj->spec, "overcommit", 0))
		return true;
	for (size_t k = 0; k < nn; k++)
		have += info->alloc[sel[k]].cpus;
	if ((long long)nt * (cpt > 0 ? cpt : 1) <= have)
		return true;
	reply_error(cn, SPUR_EINVAL, "More processors requested than permitted");
	return false;
}

/* The step's layout as Slurm's env_array_for_step gives it to every
 * task: SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE (and
 * SLURM_TASKS_PER_NODE, unless srun -E), SLURM_STEP_LAUNCHER_PORT. */
static json_t *step_layout_env(struct ctld *c, const struct sched_job_info *info,
			       const size_t *sel, const size_t *tasks, size_t nn, const json_t *msg)
{
	struct spur_hostlist *hl = spur_hostlist_create();
	json_t *env = json_object();
	uint32_t counts[1024];
	char buf[4096], *list;

	for (size_t k = 0; k < nn; k++) {
		counts[k] = (uint32_t)tasks[k];
		if (hl)
			spur_hostlist_push(hl, c->conf->nodes[info->alloc[sel[k]].node].name, NULL);
	}
	list = hl ? spur_hostlist_ranged(hl, NULL) : NULL;
	put_env(env, "STEP_NODELIST", list ? list : "");
	spur_free(list);
	spur_hostlist_destroy(hl);
	ctld_per_node(counts, nn, buf, sizeof(buf));
	put_env(env, "STEP_TASKS_PER_NODE", buf);
	if (!json_is_string(json_object_get(json_object_get(msg, "preserve_env"), "NNODES")))
		put_env(env, "TASKS_PER_NODE", buf);
	put_env_int(env, "STEP_LAUNCHER_PORT", spur_json_int(msg, "io_port", 0));
	return env;
}

/* -m: how the step's ranks go round its nodes, *plane at a time (cyclic:
 * 1; block: 0). False, answered, when it cannot be. */
static bool step_plane(struct ctld_conn *cn, const json_t *msg, const char *mpi, size_t *plane)
{
	const char *dist = spur_json_str(msg, "distribution", "block");

	*plane = !strcmp(dist, "cyclic")  ? 1
		 : !strcmp(dist, "plane") ? (size_t)spur_json_int(msg, "plane", 0)
					  : 0;
	if (!strcmp(dist, "plane") && (!*plane || *plane > 65535)) {
		reply_error(cn, SPUR_EINVAL, "Invalid --distribution specification");
		return false;
	}
	if (*plane && strcmp(mpi, "none")) { /* PMI's layout is by blocks of ranks */
		reply_error(cn, SPUR_EINVAL,
			    "-m cyclic or plane with --mpi=pmix or pmi2 is not supported by Spur "
			    "(use -m block)");
		return false;
	}
	return true;
}

static void handle_step(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;
	size_t nn, nt, sel[1024], tasks[1024];
	uint16_t gpus[1024];
	struct spur_error err;
	uint32_t step;
	char host[64];
	const char *mpi;
	json_t *layout, *names, *counts, *cpus, *lenv;
	size_t plane; /* ranks go round the nodes plane at a time; 0: block */
	uint64_t mem_total = 0; /* srun --mem over the step's nodes */
	unsigned gpus_total = 0;

	if (!cj || sched_job_info(c->sched, id, &info)) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (info.state != SCHED_JOB_RUNNING) {
		reply_error(cn, SPUR_ESTATE, "Job/step already completing or completed");
		return;
	}
	if (!json_is_array(json_object_get(msg, "argv")) ||
	    !json_array_size(json_object_get(msg, "argv")) || spur_json_int(msg, "ntasks", 0) < 0 ||
	    spur_json_int(msg, "ntasks", 0) > 100000 || spur_json_int(msg, "nodes", 0) < 0 ||
	    spur_json_int(msg, "io_port", 0) <= 0 || spur_json_int(msg, "io_port", 0) > 65535 ||
	    info.nalloc > sizeof(sel) / sizeof(sel[0])) {
		reply_error(cn, SPUR_EINVAL, "step: argv, ntasks, nodes or io_port out of range");
		return;
	}
	if (!step_programs_ok(cn, msg) || step_nodes(cn, msg, &info, sel, &nn) ||
	    !step_hint_ok(cn, msg, &info, sel, nn) || !(mpi = step_mpi(cn, msg)))
		return;
	if (!step_plane(cn, msg, mpi, &plane))
		return;
	nt = (size_t)spur_json_int(msg, "ntasks", 0);
	/* the job's tasks, unless -N or -w ask for fewer nodes (--ntasks-per-gpu:
	 * its tasks, as srun's SLURM_NTASKS_PER_GPU gives them in Slurm) */
	if (!nt)
		nt = (size_t)spur_json_int(cj->spec, "ntasks", 0) &&
			     ((!spur_json_int(msg, "nodes", 0) && !json_object_get(msg, "nodelist")) ||
			      spur_json_int(cj->spec, "ntasks_per_gpu", 0))
			     ? (size_t)spur_json_int(cj->spec, "ntasks", 0)
			     : nn;
	if (nt < nn)
		nn = nt;
	if (plane > 1 && nn > (nt + plane - 1) / plane) /* no node without a plane of ranks */
		nn = (nt + plane - 1) / plane;
	if (!step_cpus_ok(cn, msg, cj, &info, sel, nn, nt))
		return;
	for (size_t k = 0; k < nn; k++) {
		if (!c->agents[info.alloc[sel[k]].node]) {
			reply_error(cn, SPUR_EAGAIN, "a node of the job has no agent connected");
			return;
		}
	}
	peer_host(cn, host, sizeof(host));
	/* every node's share of the ranks (block distribution, the first
	 * nodes take the remainder): PMIx tells each rank where all are */
	layout = json_array();
	for (size_t k = 0, rank = 0; k < nn; k++) {
		size_t here = nt / nn + (k < nt % nn);

		json_array_append_new(layout, json_pack("{s:s,s:I,s:I}", "node",
							c->conf->nodes[info.alloc[sel[k]].node].name,
							"first", (json_int_t)rank, "count",
							(json_int_t)here));
		rank += here;
	}
	for (size_t k = 0; k < nn; k++)
		tasks[k] = plane ? 0 : nt / nn + (k < nt % nn);
	for (size_t b = 0; plane && b * plane < nt; b++)
		tasks[b % nn] += (b + 1) * plane <= nt ? plane : nt - b * plane;
	step = cj->next_step;
	if (ctld_steps_take(cj, &info, sel, nn, tasks, msg, step, gpus, &err)) {
		json_decref(layout);
		reply_error(cn, err.code, err.msg);
		return;
	}
	cj->next_step++;
	lenv = step_layout_env(c, &info, sel, tasks, nn, msg);
	for (size_t k = 0, rank = 0; k < nn; k++) {
		size_t here = tasks[k];
		json_t *m = step_part(c, cj, &info, msg, sel[k], step, k, rank, here, nt, nn, plane);
		json_t *share = ctld_steps_share(cj, step, sel[k]);

		step_gpus(json_object_get(m, "env"), gpus[k]);
		json_object_update(json_object_get(m, "env"), lenv);
		/* srun --mem: the agent holds the step's tasks to it */
		if (ctld_step_mem_mb(msg, tasks[k]))
			json_object_set_new(m, "step_mem_mb",
					    json_integer((json_int_t)ctld_step_mem_mb(msg, tasks[k])));
		mem_total += ctld_step_mem_mb(msg, tasks[k]);
		if (json_object_get(json_object_get(m, "env"), "CUDA_VISIBLE_DEVICES"))
			gpus_total += (unsigned)__builtin_popcount(gpus[k]);
		if (share)
			json_object_set_new(m, "share", share);

		json_object_set_new(m, "io_host", json_string(host));
		/* where srun is, as Slurm tells its tasks */
		put_env(json_object_get(m, "env"), "LAUNCH_NODE_IPADDR", host);
		put_env(json_object_get(m, "env"), "SRUN_COMM_HOST", host);
		put_env_int(json_object_get(m, "env"), "SRUN_COMM_PORT",
			    spur_json_int(msg, "io_port", 0));
		json_object_set_new(m, "step_node", json_integer((json_int_t)k));
		json_object_set_new(m, "io_port", json_integer(spur_json_int(msg, "io_port", 0)));
		if (strcmp(mpi, "none")) {
			json_object_set_new(m, "mpi", json_string(mpi));
			json_object_set(m, "layout", layout);
		}
		ctld_conn_send(c->agents[info.alloc[sel[k]].node], m);
		rank += here;
	}
	json_decref(layout);
	json_decref(lenv);
	step_record(c, cj, msg, step, nn, nt, mem_total, gpus_total);
	names = json_array();
	counts = json_array();
	cpus = json_array();
	for (size_t k = 0; k < nn; k++) {
		json_array_append_new(names,
				      json_string(c->conf->nodes[info.alloc[sel[k]].node].name));
		json_array_append_new(counts, json_integer((json_int_t)tasks[k]));
		json_array_append_new(cpus, json_integer((json_int_t)info.alloc[sel[k]].cpus));
	}
	spur_info("job %u step %u: %zu tasks on %zu nodes%s%s", id, step, nt, nn,
		  strcmp(mpi, "none") ? ", MPI " : "", strcmp(mpi, "none") ? mpi : "");
	/* each node's task count and how ranks go round them: srun -v says so */
	reply_ok(cn, json_pack("{s:i,s:I,s:I,s:o,s:I,s:o,s:b,s:o,s:I}", "step_id", (int)step, "ntasks",
			       (json_int_t)nt, "nnodes", (json_int_t)nn, "nodes", names, "start",
			       (json_int_t)ctld_now(), "tasks", counts, "cyclic", plane == 1, "cpus",
			       cpus, "plane", (json_int_t)plane));
}

/* sacct's rows for the arrays' tasks that have no record (so none in the
 * accounting database yet): one per array, as Slurm's pending meta record
 * ("5_[1000-999999]"). */
static void acct_rests(struct ctld *c, const char *jobs, const char *user, json_t *rows)
{
	struct sched_job_info meta;
	uint32_t count, from = 0, jid = 0;
	struct range_str r;
	char plain[16];
	const char *txt;

	for (size_t a = 0; !sched_array_rest_nth(c->sched, a, &meta, &count); a++, from = 0) {
		const struct ctld_job *first = ctld_job(c, meta.id);
		const json_t *sp = first ? first->spec : NULL;

		snprintf(plain, sizeof(plain), "%" PRIu32, meta.id);
		if (!first || (user && strcmp(user, spur_json_str(sp, "user", ""))) ||
		    (jobs && !spur_jobfmt_in_list(jobs, plain)) ||
		    !rest_ranges(c, meta.id, &from, &r, &jid))
			continue;
		txt = rs_text(&r);
		json_array_append_new(
			rows,
			json_pack("{s:i,s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:I,s:i,s:I,s:I,s:s,s:I,s:s,s:I,s:s,s:s,s:[]}",
				  "job_id", (int)jid, "array_job_id", (int)meta.id, "array_task_id",
				  -1, "name", spur_json_str(sp, "name", ""), "user",
				  spur_json_str(sp, "user", ""), "account", spur_json_str(sp, "account", ""),
				  "partition", ctld_job_partition(c, first, &meta), "state",
				  sched_job_state_name(meta.state), "exit_code", 0, "submit",
				  (json_int_t)meta.submit_time, "start", 0, "end",
				  (json_int_t)(meta.state == SCHED_JOB_PENDING ? 0 : meta.end_time), "nnodes",
				  (json_int_t)spur_json_int(sp, "nodes", 1), "nodelist", "None assigned",
				  "cpus", (json_int_t)spur_json_int(sp, "cpus_per_task", 1), "gres",
				  spur_json_str(sp, "gres", ""), "time_limit",
				  (json_int_t)spur_json_int(sp, "time_limit", 0), "workdir",
				  spur_json_str(sp, "workdir", ""), "array_task_string", txt, "steps"));
	}
}

static void handle_acct(struct ctld_conn *cn, json_t *msg)
{
	struct spur_error err;
	/* a user's history is their own */
	const char *user = is_admin(cn) ? spur_json_str(msg, "user", NULL) : cn->who.user;
	json_t *rows = ctld_acct_query(cn->c, spur_json_str(msg, "jobs", NULL), user, &err);

	if (!rows) {
		reply_error(cn, err.code, err.msg);
		return;
	}
	acct_rests(cn->c, spur_json_str(msg, "jobs", NULL), user, rows);
	reply_ok(cn, json_pack("{s:o,s:I}", "jobs", rows, "now", (json_int_t)ctld_now()));
}

/* Reservations that overlapped [from, to) ({from, to}), from the
 * accounting (sreport's planned down time). */
static void handle_acct_resvs(struct ctld_conn *cn, json_t *msg)
{
	reply_ok(cn, json_pack("{s:o}", "reservations",
			       ctld_acct_resvs(cn->c, spur_json_int(msg, "from", 0),
					       spur_json_int(msg, "to", INT64_MAX))));
}

/* The controllers: the Raft configuration as this leader sees it. */
static void handle_members(struct ctld_conn *cn, json_t *msg)
{
	(void)msg;
	reply_ok(cn, ctld_raft_members(cn->c));
}

/* Add or remove a controller: {"id":N,"address":"host:raftport"}. */
static void handle_member_change(struct ctld_conn *cn, json_t *msg)
{
	struct spur_error err;
	bool add = !strcmp(spur_json_str(msg, "type", ""), "member_add");
	json_int_t id = spur_json_int(msg, "id", 0);
	const char *address = spur_json_str(msg, "address", NULL);

	if (!strcmp(spur_json_str(msg, "type", ""), "member_lead")) {
		if (id < 0 || ctld_raft_transfer(cn->c, (unsigned long long)id, &err))
			reply_error(cn, id < 0 ? SPUR_EINVAL : err.code,
				    id < 0 ? "a controller needs an id" : err.msg);
		else
			reply_ok(cn, json_object());
		return;
	}
	if (id <= 0 || (add && (!address || !strchr(address, ':')))) {
		reply_error(cn, SPUR_EINVAL,
			    add ? "a controller needs an id and a Raft address host:port"
				: "a controller needs an id");
		return;
	}
	if (ctld_raft_change(cn->c, add, (unsigned long long)id, address, cn, &err))
		reply_error(cn, err.code, err.msg);
}

/* Who may send a request. */
enum access {
	A_USER,	 /* any authenticated caller (each handler checks ownership) */
	A_ADMIN, /* root, SlurmUser */
	A_AGENT, /* register: an agent's token for that node */
	A_NODE,	 /* on a connection an agent registered */
};

/* scontrol token [lifespan=S] [username=U]: a JWT for the caller, or, for
 * an administrator, for anyone. */
static void handle_token(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	const char *user = spur_json_str(msg, "username", cn->who.user);
	json_int_t life = spur_json_int(msg, "lifespan", 1800);
	struct spur_ident id = { .role = SPUR_ROLE_USER };
	struct spur_error err;
	char *tok;

	if (strcmp(user, cn->who.user) && !is_admin(cn)) {
		reply_error(cn, SPUR_EPERM, ACCESS_DENIED);
		return;
	}
	if (life <= 0 || life > 365LL * 86400) {
		reply_error(cn, SPUR_EINVAL, "Invalid lifespan (1 second to 365 days)");
		return;
	}
	snprintf(id.user, sizeof(id.user), "%s", user);
	if (spur_ident_by_name(&id, &err) ||
	    !(tok = spur_token_sign(&c->key, user, SPUR_ROLE_USER, NULL, ctld_now(), life, &err))) {
		reply_error(cn, err.code, err.msg);
		return;
	}
	spur_info("token for %s (%" JSON_INTEGER_FORMAT " s) issued to %s", user, life,
		  cn->who.user);
	reply_ok(cn, json_pack("{s:s,s:s,s:I}", "token", tok, "username", user, "lifespan", life));
	free(tok);
}

/* Who sent msg: its token ("auth") when it has one, else the Unix socket's
 * peer; an administrator's token may act for another user ("as_user",
 * REST's X-SLURM-USER-NAME). 1: nobody (a TCP caller without a token). */
static int authenticate(struct ctld_conn *cn, const json_t *msg, struct spur_error *err)
{
	struct ctld *c = cn->c;
	const char *tok = spur_json_str(msg, "auth", NULL);
	const char *as = spur_json_str(msg, "as_user", NULL);
	struct spur_ident id;
	int rc;

	cn->authed = false;
	if (!tok && !cn->peer)
		return 1;
	if (!tok) {
		id = cn->peer_id;
	} else if ((rc = spur_token_verify(&c->key, tok, ctld_now(), &id, err)) ||
		   (id.role != SPUR_ROLE_AGENT && (rc = spur_ident_by_name(&id, err)))) {
		return rc;
	}
	cn->who = id;
	cn->authed = true;
	if (as && strcmp(as, id.user)) {
		if (!is_admin(cn)) {
			cn->authed = false;
			return spur_error_set(err, SPUR_EPERM, "%s may not act as %s", id.user, as);
		}
		memset(&cn->who, 0, sizeof(cn->who));
		snprintf(cn->who.user, sizeof(cn->who.user), "%s", as);
		if ((rc = spur_ident_by_name(&cn->who, err))) {
			cn->authed = false;
			return rc;
		}
	}
	return 0;
}

static void reply_auth_error(struct ctld_conn *cn, const char *why)
{
	reply_error_detail(cn, SPUR_EPERM, "Protocol authentication error", why);
}

/* A follower sends a client's request on to the leader (ctld_forward); the
 * leader takes this controller's word for who a local caller is. */
static int forward(struct ctld_conn *cn, json_t *msg)
{
	if (cn->authed && !json_object_get(msg, "auth")) {
		char *tok = spur_token_sign(&cn->c->key, cn->who.user, SPUR_ROLE_USER, NULL,
					    ctld_now(), 60, NULL);

		if (tok)
			json_object_set_new(msg, "auth", json_string(tok));
		free(tok);
	}
	return ctld_forward(cn, msg);
}

static void conf_pair(json_t *a, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conf_pair(json_t *a, const char *k, const char *fmt, ...)
{
	char v[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	json_array_append_new(a, json_pack("[s,s]", k, v));
}

static const char *or_null(const char *s)
{
	return s && *s ? s : "(null)";
}

static int pair_cmp(const void *x, const void *y)
{
	return strcasecmp(json_string_value(json_array_get(*(json_t *const *)x, 0)),
			  json_string_value(json_array_get(*(json_t *const *)y, 0)));
}

/* The keys slurm.conf did not set, with the value that says what Spur
 * does (Slurm's words for it): a job over a partition's limits waits with
 * the limit's reason (EnforcePartLimits=NO), no node features plugin, no
 * switch plugin, spurd runs as root. */
static void config_defaults(json_t *a)
{
	static const char *const defaults[][2] = {
		{ "EnforcePartLimits", "NO" },		{ "NodeFeaturesPlugins", "(null)" },
		{ "SwitchType", "switch/none" },	{ "SlurmdUser", "root(0)" },
		{ "DependencyParameters", "(null)" },	{ "AccountingStorageEnforce", "none" },
		{ "JobSubmitPlugins", "(null)" },	{ "LaunchParameters", "(null)" },
	};
	size_t n = json_array_size(a);

	for (size_t d = 0; d < sizeof(defaults) / sizeof(defaults[0]); d++) {
		size_t i = 0;

		while (i < n && strcasecmp(json_string_value(json_array_get(json_array_get(a, i), 0)),
					   defaults[d][0]))
			i++;
		if (i == n)
			conf_pair(a, defaults[d][0], "%s", defaults[d][1]);
	}
}

/* scontrol show config: the controller's configuration as it runs, KEY
 * and VALUE in Slurm's words, sorted by key; the keys Spur keeps without
 * acting on them among them as written. */
static void handle_config(struct ctld_conn *cn, json_t *msg)
{
	const struct spur_conf *f = cn->c->conf;
	json_t *a = json_array(), *sorted = json_array(), **v;
	size_t n;
	char hosts[1024] = "";

	(void)msg;
	for (size_t i = 0; i < f->nctlds; i++)
		snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s", i ? "," : "",
			 f->ctlds[i].name);
	conf_pair(a, "ClusterName", "%s", f->cluster_name);
	conf_pair(a, "SlurmctldHost[0]", "%s", hosts);
	conf_pair(a, "SlurmctldPort", "%u", f->ctld_port);
	conf_pair(a, "SlurmdPort", "%u", f->agent_port);
	conf_pair(a, "StateSaveLocation", "%s", or_null(f->state_dir));
	conf_pair(a, "SlurmdSpoolDir", "%s", or_null(f->spool_dir));
	conf_pair(a, "SlurmctldLogFile", "%s", or_null(f->ctld_log_file));
	conf_pair(a, "SlurmdLogFile", "%s", or_null(f->agent_log_file));
	conf_pair(a, "SlurmUser", "%s", or_null(f->slurm_user));
	conf_pair(a, "SlurmctldDebug", "%s", spur_log_level_name(f->ctld_debug));
	conf_pair(a, "SlurmdDebug", "%s", spur_log_level_name(f->agent_debug));
	conf_pair(a, "Prolog", "%s", or_null(f->prolog));
	conf_pair(a, "Epilog", "%s", or_null(f->epilog));
	conf_pair(a, "PrologSlurmctld", "%s", or_null(f->prolog_slurmctld));
	conf_pair(a, "EpilogSlurmctld", "%s", or_null(f->epilog_slurmctld));
	conf_pair(a, "TaskProlog", "%s", or_null(f->task_prolog));
	conf_pair(a, "TaskEpilog", "%s", or_null(f->task_epilog));
	conf_pair(a, "HealthCheckProgram", "%s", or_null(f->health_program));
	conf_pair(a, "HealthCheckInterval", "%u sec", f->health_interval);
	conf_pair(a, "MpiDefault", "%s", or_null(f->mpi_default));
	conf_pair(a, "SchedulerType", "%s", or_null(f->scheduler_type));
	conf_pair(a, "SchedulerParameters", "%s", or_null(f->scheduler_params));
	conf_pair(a, "SelectType", "%s", or_null(f->select_type));
	/* upper case, as Slurm prints it; when slurm.conf names none (Slurm's
	 * line would be missing), what Spur's scheduler does: CPUs and memory */
	{
		char stp[128];

		snprintf(stp, sizeof(stp), "%s",
			 f->select_type_params ? f->select_type_params : "CR_CPU_MEMORY");
		for (char *p = stp; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		conf_pair(a, "SelectTypeParameters", "%s", stp);
	}
	conf_pair(a, "GresTypes", "%s", or_null(f->gres_types));
	conf_pair(a, "PriorityType", "%s", or_null(f->priority_type));
	conf_pair(a, "PreemptType", "%s", or_null(f->preempt_type));
	conf_pair(a, "PreemptMode", "%s", or_null(f->preempt_mode));
	conf_pair(a, "TopologyPlugin", "%s", or_null(f->topology_plugin));
	conf_pair(a, "MaxJobCount", "%u", f->max_job_count);
	conf_pair(a, "MaxArraySize", "%u", f->max_array_size);
	conf_pair(a, "FirstJobId", "%u", f->first_job_id);
	conf_pair(a, "ReturnToService", "%u", f->return_to_service);
	conf_pair(a, "MinJobAge", "%u sec", f->min_job_age);
	conf_pair(a, "KillWait", "%u sec", f->kill_wait);
	conf_pair(a, "SlurmdTimeout", "%u sec", f->slurmd_timeout);
	conf_pair(a, "MessageTimeout", "%u sec", f->message_timeout);
	conf_pair(a, "InactiveLimit", "%u sec", f->inactive_limit);
	conf_pair(a, "WaitTime", "%u sec", f->wait_time);
	conf_pair(a, "OverTimeLimit", "%u min", f->over_time_limit);
	conf_pair(a, "DefMemPerCPU", "%llu", (unsigned long long)f->def_mem_per_cpu_mb);
	conf_pair(a, "DisableRootJobs", "%s", f->disable_root_jobs ? "Yes" : "No");
	conf_pair(a, "SLURM_VERSION", "22.05.8 (Spur %s)", SPUR_VERSION);
	if (f->nfiles) /* the file this controller read (the expect tests look for its folder) */
		conf_pair(a, "SLURM_CONF", "%s", f->files[0]);
	conf_pair(a, "PropagateResourceLimits", "%s",
		  f->propagate_limits ? f->propagate_limits : "ALL");
	conf_pair(a, "PropagateResourceLimitsExcept", "%s", or_null(f->propagate_except));
	for (size_t i = 0; i < f->nextra; i++)
		conf_pair(a, f->extra[i].key, "%s", f->extra[i].value);
	config_defaults(a);
	n = json_array_size(a);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		json_decref(a);
		json_decref(sorted);
		reply_error(cn, SPUR_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(a, i);
	qsort(v, n, sizeof(*v), pair_cmp);
	for (size_t i = 0; i < n; i++)
		json_array_append(sorted, v[i]);
	free(v);
	json_decref(a);
	reply_ok(cn, json_pack("{s:o,s:I}", "config", sorted, "now", (json_int_t)ctld_now()));
}

/* scontrol notify JOB MESSAGE (the job's user or an administrator): to the
 * connection holding its allocation (salloc, srun print it); a batch
 * job's to this log, as Slurm's reaches no one. */
static void handle_notify(struct ctld_conn *cn, json_t *msg)
{
	uint32_t id = (uint32_t)spur_json_int(msg, "job_id", 0);
	struct ctld_job *cj = ctld_job(cn->c, id);
	const char *text = spur_json_str(msg, "message", "");

	if (!cj) {
		reply_error(cn, SPUR_ENOENT, "Invalid job id specified");
		return;
	}
	if (denied(cn, id))
		return;
	if (cj->owner)
		ctld_conn_send(cj->owner, json_pack("{s:s,s:i,s:s}", "type", "notify", "job_id",
						    (int)id, "message", text));
	else
		spur_info("job %u: notify from %s: %s", id, cn->who.user, text);
	reply_ok(cn, json_object());
}

/* scontrol show licenses: the cluster's licenses and how many jobs hold,
 * by name. */
static void handle_licenses(struct ctld_conn *cn, json_t *msg)
{
	const struct sched *sc = cn->c->sched;
	json_t *list = json_array();
	struct sched_license_info li;

	(void)msg;
	for (size_t i = 0; !sched_license_info(sc, i, &li); i++)
		json_array_append_new(list, json_pack("{s:s,s:i,s:i}", "name", li.name, "total",
						      (int)li.total, "used", (int)li.used));
	reply_ok(cn, json_pack("{s:o}", "licenses", list));
}

/* The requests and who may make them. */
static const struct {
	const char *type;
	void (*fn)(struct ctld_conn *, json_t *);
	enum access access;
	bool local; /* a follower answers from its own copy of the state */
} table[] = {
	{ "submit", handle_submit, A_USER, false },
	{ "will_run", handle_will_run, A_USER, false },
	{ "cancel", handle_cancel, A_USER, false },
	{ "cancel_step", handle_cancel_step, A_USER, false },
	{ "step_update", handle_step_update, A_USER, false },
	{ "queue", handle_queue, A_USER, true },
	{ "job", handle_job, A_USER, true },
	{ "config", handle_config, A_USER, true },
	{ "resv_create", ctld_handle_resv_create, A_ADMIN, false },
	{ "resv_delete", ctld_handle_resv_delete, A_ADMIN, false },
	{ "resv_update", ctld_handle_resv_update, A_ADMIN, false },
	{ "resvs", ctld_handle_resvs, A_USER, true },
	{ "licenses", handle_licenses, A_USER, true },
	{ "notify", handle_notify, A_USER, false },
	{ "assoc_show", ctld_handle_assoc_show, A_USER, true },
	{ "prio", ctld_handle_prio, A_USER, true },
	{ "assoc_change", ctld_handle_assoc_change, A_ADMIN, false },
	{ "nodes", handle_nodes, A_USER, false },
	{ "register", handle_register, A_AGENT, false },
	{ "node_load", handle_node_load, A_NODE, false },
	{ "finished", handle_finished, A_NODE, false },
	{ "acct", handle_acct, A_USER, true },
	{ "acct_resvs", handle_acct_resvs, A_USER, true },
	{ "hold", handle_hold, A_USER, false },
	{ "release", handle_hold, A_USER, false },
	{ "step", handle_step, A_USER, false },
	{ "step_done", handle_step_done, A_USER, false },
	{ "attach", handle_attach, A_USER, false },
	{ "sstat", handle_sstat, A_USER, false },
	{ "step_end", handle_step_end, A_NODE, false },
	{ "complete", handle_complete, A_USER, false },
	{ "requeue", handle_requeue, A_USER, false },
	{ "update", handle_update, A_USER, false },
	{ "token", handle_token, A_USER, false },
	{ "stats", handle_stats, A_USER, false },
	{ "gpu_failed", handle_gpu_failed, A_NODE, false },
	{ "health_failed", handle_health_failed, A_NODE, false },
	{ "node_update", handle_node_update, A_ADMIN, false },
	{ "part_update", ctld_handle_part_update, A_ADMIN, false },
	{ "part_create", ctld_handle_part_create, A_ADMIN, false },
	{ "part_delete", ctld_handle_part_delete, A_ADMIN, false },
	{ "reconfigure", ctld_handle_reconfigure, A_ADMIN, false },
	{ "suspend", ctld_handle_suspend, A_ADMIN, false },
	{ "resume", ctld_handle_suspend, A_ADMIN, false },
	{ "members", handle_members, A_USER, true },
	{ "member_add", handle_member_change, A_ADMIN, false },
	{ "member_remove", handle_member_change, A_ADMIN, false },
	{ "member_lead", handle_member_change, A_ADMIN, false },
};

void ctld_handle(struct ctld_conn *cn, json_t *msg)
{
	const char *type = spur_json_str(msg, "type", "");

	struct ctld *c = cn->c;
	bool leader = ctld_raft_ready(c);
	const char *leader_name = leader ? NULL : ctld_leader_name(c);
	const char *self = c->conf->nctlds ? c->conf->ctlds[c->self].name : NULL;

	struct spur_error err = { 0 };
	uint64_t t0;
	int arc;
	size_t t;

	for (t = 0; t < sizeof(table) / sizeof(table[0]); t++)
		if (!strcmp(type, table[t].type))
			break;
	if (strcmp(type, "ping") && t == sizeof(table) / sizeof(table[0])) {
		reply_error(cn, SPUR_EINVAL, "unknown request type");
		return;
	}
	/* every request but ping says who sends it; an agent's connection
	 * is known once it registered */
	arc = strcmp(type, "ping") ? authenticate(cn, msg, &err) : 0;
	if (arc < 0) {
		spur_info("%s request refused: %s", type, err.msg);
		reply_auth_error(cn, err.msg);
		return;
	}
	if (strcmp(type, "ping") && arc == 1 && cn->node < 0) {
		reply_auth_error(cn, "no credentials: use the local socket, $SLURM_JWT or the "
				     "cluster key");
		return;
	}
	if (t < sizeof(table) / sizeof(table[0]) &&
	    ((table[t].access == A_ADMIN && !is_admin(cn)) ||
	     (table[t].access == A_NODE && cn->node < 0) ||
	     (table[t].access == A_USER && !cn->authed) ||
	     (table[t].access == A_AGENT &&
	      (!cn->authed || cn->who.role != SPUR_ROLE_AGENT ||
	       strcmp(cn->who.node, spur_json_str(msg, "node", "")))))) {
		if (table[t].access == A_ADMIN || table[t].access == A_USER)
			reply_error(cn, SPUR_EPERM, ACCESS_DENIED);
		else
			reply_auth_error(cn, "not an agent's connection");
		return;
	}

	if (!strcmp(type, "ping")) {
		/* clients use the controller that says it leads */
		json_t *r = json_pack("{s:s,s:b,s:s}", "cluster", c->conf->cluster_name, "leader",
				      leader, "name", self ? self : "localhost");

		if (leader_name)
			json_object_set_new(r, "leader_name", json_string(leader_name));
		reply_ok(cn, r);
		return;
	}
	/* a client that skipped the ping ("lead": true, one controller in its
	 * config) wants this done here or not at all: nothing is done, so it
	 * may send the request again */
	if (!leader && spur_json_bool(msg, "lead", 0)) {
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s,s:b}", "type", "error", "code",
					     SPUR_ERETRY, "message",
					     "the controller does not lead yet: try again",
					     "not_leader", 1));
		return;
	}
	/* a follower (or a controller still replaying its log) answers reads
	 * from its copy of the state and the membership; everything else goes
	 * to the leader, which the clients and agents find themselves */
	if (cn->fwd && !leader) {
		/* this client's connection is a pipe to the leader now */
		if (forward(cn, msg))
			ctld_conn_close(cn);
		return;
	}
	if (!leader && !table[t].local) {
		char msgbuf[200];
		json_t *r;

		/* a client's write goes on to the leader; an agent finds the
		 * leader itself (it must talk to it directly) */
		if (table[t].access != A_AGENT && table[t].access != A_NODE && cn->node < 0 &&
		    !forward(cn, msg))
			return;

		snprintf(msgbuf, sizeof(msgbuf), "%s is not the leading controller%s%s",
			 self ? self : "this controller", leader_name ? "; the leader is " : "",
			 leader_name ? leader_name : "");
		r = json_pack("{s:s,s:i,s:s,s:b}", "type", "error", "code", SPUR_EAGAIN, "message",
			      msgbuf, "not_leader", 1);
		ctld_conn_send(cn, r);
		return;
	}
	/* J_T (an array task by its index) wherever a job id is taken */
	if (json_object_get(msg, "task_id") && json_object_get(msg, "job_id") &&
	    strcmp(table[t].type, "cancel")) {
		uint32_t id = sched_array_task_id(cn->c->sched, (uint32_t)spur_json_int(msg, "job_id", 0),
						  (uint32_t)spur_json_int(msg, "task_id", 0));

		json_object_set_new(msg, "job_id", json_integer(id));
		json_object_del(msg, "task_id");
		json_object_set_new(msg, "one_task", json_true()); /* not the whole array */
	}
	t0 = uv_hrtime();
	table[t].fn(cn, msg);
	ctld_rpc_note(c, table[t].type, cn->authed ? cn->who.user : "?", (uv_hrtime() - t0) / 1000);
}
