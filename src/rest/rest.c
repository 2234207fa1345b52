/* SPDX-License-Identifier: Apache-2.0 */
/* spurrestd's router and slurmrestd's JSON shapes (data_parser v0.0.40, as
 * Slurm 23.11 writes them): numbers that may be unset or infinite are
 * {"set","infinite","number"}, states are arrays of flags, every answer has
 * "meta", "errors" and "warnings". */
#include "rest.h"

#include "common/hostlist.h"
#include "common/jobspec.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- shapes */

static json_t *num(json_int_t v)
{
	return json_pack("{s:b,s:b,s:I}", "set", 1, "infinite", 0, "number", v);
}

static json_t *num_unset(void)
{
	return json_pack("{s:b,s:b,s:i}", "set", 0, "infinite", 0, "number", 0);
}

static json_t *num_or_inf(json_int_t v, bool inf)
{
	return json_pack("{s:b,s:b,s:I}", "set", 1, "infinite", inf, "number", inf ? 0 : v);
}

static json_t *meta(const struct rest_request *rq)
{
	return json_pack("{s:{s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s},s:[],s:{s:{s:s,s:s,s:s},s:s,s:s}}",
			 "plugin", "type", "openapi/slurmctld", "name", "Slurm OpenAPI slurmctld",
			 "data_parser", "data_parser/" REST_API, "accounting_storage", "spur",
			 "client", "source", rq->peer ? rq->peer : "", "user",
			 rq->user_name ? rq->user_name : "", "group", "", "command", "slurm",
			 "version", "major", "23", "micro", "0", "minor", "11", "release",
			 "23.11.0 (spur 0.1.0)", "cluster", "");
}

/* A number field a client may send plain (60) or as v0.0.40 writes it
 * ({"set":true,"number":60}); dflt when absent or unset. */
static bool get_num(const json_t *o, const char *key, json_int_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (json_is_object(v) && json_is_integer(json_object_get(v, "number")) &&
	    json_is_true(json_object_get(v, "set")) &&
	    !json_is_true(json_object_get(v, "infinite"))) {
		*out = json_integer_value(json_object_get(v, "number"));
		return true;
	}
	return false;
}

/* The answer: body (stolen) with meta, errors and warnings added. */
static void respond(struct rest_response *rs, int status, const struct rest_request *rq,
		    json_t *body, json_t *errors, json_t *warnings)
{
	json_object_set_new(body, "meta", meta(rq));
	json_object_set_new(body, "errors", errors ? errors : json_array());
	json_object_set_new(body, "warnings", warnings ? warnings : json_array());
	rs->status = status;
	rs->content_type = "application/json";
	rs->body = json_dumps(body, JSON_INDENT(2) | JSON_SORT_KEYS);
	rs->len = rs->body ? strlen(rs->body) : 0;
	json_decref(body);
}

static json_t *error_item(int number, const char *error, const char *description,
			  const char *source)
{
	return json_pack("{s:i,s:s,s:s,s:s}", "error_number", number, "error", error, "description",
			 description ? description : "", "source", source ? source : "");
}

/* Slurm's errors array, with an HTTP status. */
static void fail(struct rest_response *rs, const struct rest_request *rq, int status,
		 int number, const char *error, const char *description)
{
	respond(rs, status, rq, json_object(),
		json_pack("[o]", error_item(number, error, description, rq->url)), NULL);
}

/* A failed call to the controller, as HTTP: authentication 401, access
 * 403, no such thing 404, unreachable 503, a refused request 400. */
static void fail_backend(struct rest_response *rs, const struct rest_request *rq,
			 const struct spur_error *err)
{
	int status = 400, number = 2000;
	const char *what = "Invalid request";

	if (strstr(err->msg, "authentication error") || strstr(err->msg, "may not act as")) {
		status = 401, number = 1007, what = "Protocol authentication error";
	} else if (strstr(err->msg, "Access/permission denied")) {
		status = 403, number = 2002, what = "Access/permission denied";
	} else if (strstr(err->msg, "Invalid job id")) {
		status = 404, number = 2017, what = "Invalid job id specified";
	} else if (err->code == SPUR_EIO || err->code == SPUR_EAGAIN || err->code == SPUR_ERETRY) {
		status = 503, number = 1001, what = "Unable to contact slurm controller";
	}
	fail(rs, rq, status, number, what, err->msg);
}

/* ---------------------------------------------------------------- calls */

/* A request for the controller made in the caller's name. */
static json_t *as_caller(const struct rest_request *rq, json_t *req)
{
	json_object_set_new(req, "auth", json_string(rq->user_token));
	if (rq->user_name && *rq->user_name)
		json_object_set_new(req, "as_user", json_string(rq->user_name));
	return req;
}

static json_t *call(const struct rest_backend *be, const struct rest_request *rq, json_t *req,
		    struct spur_error *err)
{
	spur_error_init(err);
	return be->call(be->ctx, as_caller(rq, req), err);
}

/* ---------------------------------------------------------------- jobs */

static const char *exit_status(const char *state, int code)
{
	if (!strcmp(state, "PENDING") || !strcmp(state, "RUNNING"))
		return "PENDING";
	return code ? "ERROR" : "SUCCESS";
}

/* Slurm's gres_detail: ["gpu:2(IDX:0,1)"] from the GPUs "0,1". */
static json_t *gres_detail(const char *gpus)
{
	char buf[512];
	size_t n = 1;

	if (!*gpus)
		return json_array();
	for (const char *p = gpus; *p; p++)
		n += *p == ',';
	snprintf(buf, sizeof(buf), "gpu:%zu(IDX:%s)", n, gpus);
	return json_pack("[s]", buf);
}

/* The controller's job object as v0.0.40's job_info. */
static json_t *job_info(const json_t *j)
{
	const char *state = spur_json_str(j, "state", "PENDING");
	json_int_t limit = spur_json_int(j, "time_limit", 0), end = spur_json_int(j, "end_time", 0);
	json_int_t code = spur_json_int(j, "exit_code", 0);
	json_t *o = json_object();
	char out[4096], host[256];

	/* the batch host (the first node, where the output is written: %N
	 * in its name), "" while it is pending */
	spur_hostlist_first(spur_json_str(j, "nodelist", ""), host, sizeof(host));
	spur_job_output_path(j, "output", *host ? host : "%N", spur_json_str(j, "workdir", "/"), out,
			     sizeof(out));
	json_object_set_new(o, "job_id", json_integer(spur_json_int(j, "job_id", 0)));
	json_object_set_new(o, "name", json_string(spur_json_str(j, "name", "")));
	json_object_set_new(o, "user_name", json_string(spur_json_str(j, "user", "")));
	json_object_set_new(o, "user_id", json_integer(spur_json_int(j, "uid", 0)));
	json_object_set_new(o, "group_id", json_integer(spur_json_int(j, "gid", 0)));
	json_object_set_new(o, "account", json_string(spur_json_str(j, "account", "")));
	json_object_set_new(o, "partition", json_string(spur_json_str(j, "partition", "")));
	json_object_set_new(o, "job_state", json_pack("[s]", state));
	json_object_set_new(o, "state_reason", json_string(spur_json_str(j, "reason", "None")));
	json_object_set_new(o, "priority", num(spur_json_int(j, "priority", 0)));
	json_object_set_new(o, "submit_time", num(spur_json_int(j, "submit_time", 0)));
	json_object_set_new(o, "start_time", num(spur_json_int(j, "start_time", 0)));
	json_object_set_new(o, "end_time", end ? num(end) : num_unset());
	/* minutes, as Slurm's time_limit */
	json_object_set_new(o, "time_limit", num_or_inf((limit + 59) / 60, limit <= 0));
	json_object_set_new(o, "nodes", json_string(spur_json_str(j, "nodelist", "")));
	json_object_set_new(o, "node_count", num(spur_json_int(j, "nodes", 1)));
	json_object_set_new(o, "tasks", num(spur_json_int(j, "ntasks", 0)));
	json_object_set_new(o, "cpus_per_task", num(spur_json_int(j, "cpus_per_task", 1)));
	json_object_set_new(o, "current_working_directory",
			    json_string(spur_json_str(j, "workdir", "")));
	json_object_set_new(o, "standard_output", json_string(out));
	json_object_set_new(o, "tres_per_node",
			    json_string(*spur_json_str(j, "gres", "")
						? spur_json_str(j, "gres", "")
						: ""));
	json_object_set_new(o, "gres_detail", gres_detail(spur_json_str(j, "gpus", "")));
	json_object_set_new(o, "requeue", json_boolean(spur_json_int(j, "requeue", 1)));
	json_object_set_new(o, "restart_cnt", json_integer(spur_json_int(j, "restarts", 0)));
	json_object_set_new(o, "batch_flag", json_true());
	json_object_set_new(o, "array_job_id",
			    json_object_get(j, "array_job_id") ? num(spur_json_int(j, "array_job_id", 0))
							       : num(0));
	json_object_set_new(o, "array_task_id",
			    json_object_get(j, "array_task_id")
				    ? num(spur_json_int(j, "array_task_id", 0))
				    : num_unset());
	json_object_set_new(o, "exit_code",
			    json_pack("{s:[s],s:o,s:{s:o,s:s}}", "status", exit_status(state, (int)code),
				      "return_code", num(code), "signal", "id", num_unset(), "name",
				      ""));
	return o;
}

static void get_jobs(const struct rest_backend *be, const struct rest_request *rq,
		     struct rest_response *rs, long one)
{
	struct spur_error err;
	json_t *reply, *jobs = json_array(), *j;
	size_t i;

	reply = one > 0 ? call(be, rq, json_pack("{s:s,s:I}", "type", "job", "job_id", (json_int_t)one),
			       &err)
			: call(be, rq, json_pack("{s:s,s:b}", "type", "queue", "all", 1), &err);
	if (!reply) {
		json_decref(jobs);
		fail_backend(rs, rq, &err);
		return;
	}
	if (one > 0) {
		json_array_append_new(jobs, job_info(json_object_get(reply, "job")));
	} else {
		json_array_foreach(json_object_get(reply, "jobs"), i, j)
			json_array_append_new(jobs, job_info(j));
	}
	respond(rs, 200, rq,
		json_pack("{s:o,s:o,s:o}", "jobs", jobs, "last_backfill",
			  num(spur_json_int(reply, "now", 0)), "last_update",
			  num(spur_json_int(reply, "now", 0))),
		NULL, NULL);
	json_decref(reply);
}

/* v0.0.40's job_desc_msg fields Spur takes, and what they become. */
/* job.nodes: a count, "N", or "N-N" (one count written as a range); a
 * range of several counts is not supported, an impossible one ("5-2") is
 * refused. */
static int rest_node_count(const json_t *v, char *why, size_t wlen, json_int_t *out)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	char *end = NULL;
	long lo = json_is_integer(v) ? (long)json_integer_value(v) : -1, hi;

	if (s) {
		lo = strtol(s, &end, 10);
		hi = lo;
		if (end != s && *end == '-')
			hi = strtol(end + 1, &end, 10);
		if (end == s || *end || hi < lo) {
			snprintf(why, wlen, "job.nodes: '%s' is not a node count or range", s);
			return SPUR_EINVAL;
		}
		if (hi != lo) {
			snprintf(why, wlen,
				 "job.nodes: a range of node counts (%s) is not supported; give one "
				 "count",
				 s);
			return SPUR_EINVAL;
		}
	}
	if (lo < 1 || lo > 100000) {
		snprintf(why, wlen, "job.nodes: expected a node count");
		return SPUR_EINVAL;
	}
	*out = lo;
	return 0;
}

static int job_desc(const json_t *d, json_t *job, json_t *warnings, char *why, size_t wlen)
{
	static const struct {
		const char *rest, *spur;
	} strs[] = {
		{ "name", "name" },
		{ "partition", "partition" },
		{ "account", "account" },
		{ "qos", "qos" },
		{ "current_working_directory", "workdir" },
		{ "standard_output", "output" },
		{ "standard_error", "error" },
		{ "dependency", "dependency" },
		{ "array", "array" },
		{ "constraints", "constraint" },
		{ "reservation", "reservation" },
		{ "required_nodes", "nodelist" },
		{ "excluded_nodes", "exclude" },
		{ "script", "script" },
	};
	static const struct {
		const char *rest, *spur;
		json_int_t scale, min, max;
	} nums[] = {
		{ "tasks", "ntasks", 1, 1, 100000 },
		{ "cpus_per_task", "cpus_per_task", 1, 1, 100000 },
		{ "memory_per_node", "mem_per_node", 1, 0, (json_int_t)1 << 40 },
		{ "time_limit", "time_limit", 60, 0, 365LL * 86400 * 60 },
		{ "nice", "nice", 1, -2147483645, 2147483645 },
		{ "minimum_nodes", "nodes", 1, 1, 100000 },
	};
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)d, key, v) {
		bool known = false;

		for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
			if (strcmp(key, strs[i].rest))
				continue;
			known = true;
			if (!json_is_string(v)) {
				snprintf(why, wlen, "job.%s: expected a string", key);
				return SPUR_EINVAL;
			}
			json_object_set(job, strs[i].spur, (json_t *)v);
		}
		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			json_int_t n;

			if (strcmp(key, nums[i].rest))
				continue;
			known = true;
			if (!get_num(d, key, &n))
				continue; /* unset */
			if (n < nums[i].min || n > nums[i].max) {
				snprintf(why, wlen, "job.%s: %" JSON_INTEGER_FORMAT " is out of range",
					 key, n);
				return SPUR_ERANGE;
			}
			json_object_set_new(job, nums[i].spur, json_integer(n * nums[i].scale));
		}
		if (!strcmp(key, "nodes")) {
			json_int_t count;

			known = true;
			if (rest_node_count(v, why, wlen, &count))
				return SPUR_EINVAL;
			json_object_set_new(job, "nodes", json_integer(count));
		} else if (!strcmp(key, "environment")) {
			json_t *env = json_object(), *e;
			size_t i;

			known = true;
			if (!json_is_array(v)) {
				json_decref(env);
				snprintf(why, wlen, "job.environment: expected [\"NAME=value\", ...]");
				return SPUR_EINVAL;
			}
			json_array_foreach(v, i, e) {
				const char *s = json_string_value(e), *eq = s ? strchr(s, '=') : NULL;
				char name[256];

				if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name)) {
					json_decref(env);
					snprintf(why, wlen, "job.environment[%zu]: expected NAME=value", i);
					return SPUR_EINVAL;
				}
				snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
				json_object_set_new(env, name, json_string(eq + 1));
			}
			json_object_set_new(job, "env", env);
		} else if (!strcmp(key, "tres_per_node") || !strcmp(key, "gres")) {
			const char *s = json_string_value(v);

			known = true;
			if (!s) {
				snprintf(why, wlen, "job.%s: expected a string", key);
				return SPUR_EINVAL;
			}
			/* Slurm writes TRES as gres/gpu:2; the controller reads gpu:2 */
			json_object_set_new(job, "gres",
					    json_string(!strncmp(s, "gres/", 5) ? s + 5 : s));
		} else if (!strcmp(key, "hold") || !strcmp(key, "requeue") ||
			   !strcmp(key, "exclusive")) {
			known = true;
			if (!json_is_boolean(v)) {
				snprintf(why, wlen, "job.%s: expected true or false", key);
				return SPUR_EINVAL;
			}
			json_object_set(job, key, (json_t *)v);
		}
		if (!known)
			json_array_append_new(warnings,
					      json_pack("{s:s,s:s}", "description", "field ignored",
							"source", key));
	}
	return 0;
}

static void submit(const struct rest_backend *be, const struct rest_request *rq,
		   struct rest_response *rs)
{
	json_error_t jerr;
	json_t *body, *job = json_object(), *warnings = json_array(), *reply;
	const json_t *desc;
	struct spur_error err;
	char why[256];

	body = json_loadb(rq->body ? rq->body : "", rq->body_len,
			  JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(body)) {
		snprintf(why, sizeof(why), "the body is not a JSON object: %s", jerr.text);
		fail(rs, rq, 400, 9000, "Unable to parse the request body", body ? "expected an object" : why);
		goto out;
	}
	desc = json_object_get(body, "job");
	if (!json_is_object(desc)) {
		fail(rs, rq, 400, 9001, "Missing job description", "expected {\"job\":{...}}");
		goto out;
	}
	if (job_desc(desc, job, warnings, why, sizeof(why))) {
		fail(rs, rq, 400, 2001, "Invalid job description", why);
		goto out;
	}
	if (json_is_string(json_object_get(body, "script")))
		json_object_set(job, "script", json_object_get(body, "script"));
	if (!json_is_string(json_object_get(job, "script"))) {
		fail(rs, rq, 400, 2001, "Invalid job description", "a batch script is required");
		goto out;
	}
	if (!json_object_get(job, "workdir")) {
		fail(rs, rq, 400, 2001, "Invalid job description",
		     "job.current_working_directory is required");
		goto out;
	}
	reply = call(be, rq, json_pack("{s:s,s:O}", "type", "submit", "job", job), &err);
	if (!reply) {
		fail_backend(rs, rq, &err);
		goto out;
	}
	respond(rs, 200, rq,
		json_pack("{s:I,s:s,s:s}", "job_id", (json_int_t)spur_json_int(reply, "job_id", 0),
			  "step_id", "batch", "job_submit_user_msg", ""),
		NULL, json_incref(warnings));
	json_decref(reply);
out:
	json_decref(warnings);
	json_decref(job);
	json_decref(body);
}

static void cancel(const struct rest_backend *be, const struct rest_request *rq,
		   struct rest_response *rs, long id)
{
	struct spur_error err;
	json_t *reply = call(be, rq, json_pack("{s:s,s:[{s:I}]}", "type", "cancel", "jobs", "job_id",
					       (json_int_t)id),
			     &err);
	const json_t *errs;

	if (!reply) {
		fail_backend(rs, rq, &err);
		return;
	}
	errs = json_object_get(reply, "errors");
	if (json_array_size(errs)) {
		snprintf(err.msg, sizeof(err.msg), "%s",
			 spur_json_str(json_array_get(errs, 0), "error", "refused"));
		err.code = SPUR_EINVAL;
		json_decref(reply);
		fail_backend(rs, rq, &err);
		return;
	}
	json_decref(reply);
	respond(rs, 200, rq, json_object(), NULL, NULL);
}

/* POST job/{id}: the fields a pending job may change (name, time_limit in
 * minutes, nice) and hold (true: hold, false: release); the body is a
 * job_desc_msg, or {"job": job_desc_msg}. */
static void update(const struct rest_backend *be, const struct rest_request *rq,
		   struct rest_response *rs, long id)
{
	json_t *body = json_loadb(rq->body ? rq->body : "", rq->body_len, JSON_REJECT_DUPLICATES,
				  NULL);
	json_t *set = json_object(), *warnings = json_array(), *reply, *v;
	const json_t *desc = json_is_object(json_object_get(body, "job")) ? json_object_get(body, "job")
									 : body;
	struct spur_error err;
	const char *key;
	int hold = -1;

	if (!json_is_object(desc)) {
		fail(rs, rq, 400, 9000, "Unable to parse the request body", "expected an object");
		goto out;
	}
	json_object_foreach((json_t *)desc, key, v) {
		json_int_t n;

		if (!strcmp(key, "name") && json_is_string(v)) {
			json_object_set(set, "name", v);
		} else if ((!strcmp(key, "time_limit") || !strcmp(key, "nice")) &&
			   get_num(desc, key, &n)) {
			json_object_set_new(set, key, json_integer(strcmp(key, "nice") ? n * 60 : n));
		} else if (!strcmp(key, "hold") && json_is_boolean(v)) {
			hold = json_is_true(v);
		} else if (!strcmp(key, "name") || !strcmp(key, "time_limit") ||
			   !strcmp(key, "nice") || !strcmp(key, "hold")) {
			fail(rs, rq, 400, 2001, "Invalid job description", key);
			goto out;
		} else {
			json_array_append_new(warnings, json_pack("{s:s,s:s}", "description",
								  "field not updatable; ignored",
								  "source", key));
		}
	}
	if (json_object_size(set)) {
		reply = call(be, rq,
			     json_pack("{s:s,s:I,s:O}", "type", "update", "job_id", (json_int_t)id,
				       "set", set),
			     &err);
		if (!reply) {
			fail_backend(rs, rq, &err);
			goto out;
		}
		json_decref(reply);
	}
	if (hold >= 0) {
		reply = call(be, rq,
			     json_pack("{s:s,s:I}", "type", hold ? "hold" : "release", "job_id",
				       (json_int_t)id),
			     &err);
		if (!reply) {
			fail_backend(rs, rq, &err);
			goto out;
		}
		json_decref(reply);
	}
	respond(rs, 200, rq,
		json_pack("{s:I,s:s,s:s,s:[{s:I,s:s,s:i}]}", "job_id", (json_int_t)id, "step_id",
			  "", "job_submit_user_msg", "", "results", "job_id", (json_int_t)id,
			  "step_id", "", "error_code", 0),
		NULL, json_incref(warnings));
out:
	json_decref(warnings);
	json_decref(set);
	json_decref(body);
}

/* ---------------------------------------------------------------- nodes */

static json_t *split_list(const char *s)
{
	json_t *a = json_array();

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n)
			json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == ',');
	}
	return a;
}

/* A node's GPUs (the controller's "gpu_count", at most 32) and how many of
 * them its "free_gpu_mask" says are free. */
static unsigned gpus_of(const json_t *n, unsigned *free_count)
{
	json_int_t count = spur_json_int(n, "gpu_count", 0);
	unsigned mask = (unsigned)spur_json_int(n, "free_gpu_mask", 0);

	if (count <= 0) {
		*free_count = 0;
		return 0;
	}
	if (count < 32)
		mask &= (1u << count) - 1;
	*free_count = (unsigned)__builtin_popcount(mask);
	return count < 32 ? (unsigned)count : 32;
}

/* "gpu:mi300x:2(IDX:0-1)" from the node's free mask; "gpu:0" when idle. */
static void gres_used(const json_t *n, char *buf, size_t len)
{
	unsigned freec, count = gpus_of(n, &freec), used = count - freec;
	unsigned mask = (unsigned)spur_json_int(n, "free_gpu_mask", 0);
	size_t o = 0;

	o = (size_t)snprintf(buf, len, "gpu:%u(IDX:", used);
	for (unsigned g = 0, first = 1; g < count && o < len; g++) {
		if (mask >> g & 1)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%u", first ? "" : ",", g);
		first = 0;
	}
	if (o < len)
		snprintf(buf + o, len - o, ")");
	if (!used)
		snprintf(buf, len, "gpu:0");
}

static json_t *node_info(const json_t *n)
{
	char used[256];
	json_t *o;

	gres_used(n, used, sizeof(used));
	o = json_pack("{s:s,s:s,s:[s],s:I,s:I,s:I,s:I,s:s,s:s,s:o,s:o,s:s,s:o}", "name",
		      spur_json_str(n, "name", ""), "hostname", spur_json_str(n, "name", ""),
		      "state", spur_json_str(n, "state", "UNKNOWN"), "cpus",
		      (json_int_t)spur_json_int(n, "cpus", 0), "alloc_cpus",
		      (json_int_t)spur_json_int(n, "alloc_cpus", 0), "real_memory",
		      (json_int_t)spur_json_int(n, "memory", 0), "alloc_memory",
		      (json_int_t)spur_json_int(n, "alloc_memory", 0), "gres",
		      spur_json_str(n, "gres", ""), "gres_used", used, "partitions",
		      json_is_array(json_object_get(n, "partitions"))
			      ? json_incref(json_object_get(n, "partitions"))
			      : json_array(),
		      "features",
		      split_list(spur_json_str(n, "features", "")), "reason",
		      spur_json_str(n, "reason", ""), "reason_changed_at",
		      num(spur_json_int(n, "reason_time", 0)));
	/* Spur's additions, for the dashboard's map (clients ignore them) */
	json_object_set_new(o, "spur_gpu_count", json_integer(spur_json_int(n, "gpu_count", 0)));
	json_object_set_new(o, "spur_free_gpu_mask",
			    json_integer(spur_json_int(n, "free_gpu_mask", 0)));
	json_object_set_new(o, "spur_gpu_links",
			    json_is_array(json_object_get(n, "gpu_links"))
				    ? json_incref(json_object_get(n, "gpu_links"))
				    : json_array());
	return o;
}

static const char *const part_states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };

static json_t *partition_info(const json_t *p, const json_t *nodes)
{
	json_t *names = json_array(), *v;
	size_t i, len = 0;
	json_int_t maxt = spur_json_int(p, "max_time", -1), deft = spur_json_int(p, "default_time", -1);
	long st = (long)spur_json_int(p, "state", 0);
	char *list;

	json_array_foreach(json_object_get(p, "nodes"), i, v) {
		const char *nm = spur_json_str(json_array_get(nodes, (size_t)json_integer_value(v)),
					       "name", "");

		json_array_append_new(names, json_string(nm));
		len += strlen(nm) + 1;
	}
	list = calloc(1, len + 1);
	json_array_foreach(names, i, v) {
		if (list)
			strcat(strcat(list, i ? "," : ""), json_string_value(v));
	}
	v = json_pack("{s:s,s:{s:s,s:I,s:s},s:{s:o},s:{s:o},s:{s:[s]},s:o}", "name",
		      spur_json_str(p, "name", ""), "nodes", "configured", list ? list : "", "total",
		      (json_int_t)json_array_size(names), "allowed_allocation", "", "maximums", "time",
		      num_or_inf(maxt / 60, maxt < 0), "defaults", "time",
		      num_or_inf(deft / 60, deft < 0), "partition", "state",
		      part_states[st >= 0 && st < 4 ? st : 0], "spur_nodes", names);
	json_object_set_new(v, "flags",
			    spur_json_bool(p, "default", 0) ? json_pack("[s]", "DEFAULT") : json_array());
	free(list);
	return v;
}

static void get_nodes(const struct rest_backend *be, const struct rest_request *rq,
		      struct rest_response *rs, const char *one, bool parts)
{
	struct spur_error err;
	json_t *reply = call(be, rq, json_pack("{s:s,s:b}", "type", "nodes", "gpu_map", 1), &err), *out = json_array();
	const json_t *nodes, *v;
	size_t i;

	if (!reply) {
		json_decref(out);
		fail_backend(rs, rq, &err);
		return;
	}
	nodes = json_object_get(reply, "nodes");
	json_array_foreach(json_object_get(reply, parts ? "partitions" : "nodes"), i, v) {
		if (one && strcmp(one, spur_json_str(v, "name", "")))
			continue;
		json_array_append_new(out, parts ? partition_info(v, nodes) : node_info(v));
	}
	json_decref(reply);
	if (one && !json_array_size(out)) {
		json_decref(out);
		fail(rs, rq, 404, parts ? 2010 : 2009,
		     parts ? "Invalid partition name specified" : "Invalid node name specified", one);
		return;
	}
	respond(rs, 200, rq,
		json_pack("{s:o,s:o}", parts ? "partitions" : "nodes", out, "last_update", num(0)),
		NULL, NULL);
}

/* ---------------------------------------------------------------- slurmdb */

static json_t *db_job(const json_t *r)
{
	const char *state = spur_json_str(r, "state", "PENDING");
	json_int_t start = spur_json_int(r, "start", 0), end = spur_json_int(r, "end", 0);
	json_int_t code = spur_json_int(r, "exit_code", 0), limit = spur_json_int(r, "time_limit", 0);

	return json_pack("{s:I,s:s,s:s,s:s,s:s,s:{s:[s],s:s},s:{s:[s],s:o},s:{s:I,s:I,s:I,s:I,s:o},"
			 "s:s,s:s,s:o,s:[]}",
			 "job_id", (json_int_t)spur_json_int(r, "job_id", 0), "name",
			 spur_json_str(r, "name", ""), "user", spur_json_str(r, "user", ""), "account",
			 spur_json_str(r, "account", ""), "partition", spur_json_str(r, "partition", ""),
			 "state", "current", state, "reason", "", "exit_code", "status",
			 exit_status(state, (int)code), "return_code", num(code), "time", "submission",
			 (json_int_t)spur_json_int(r, "submit", 0), "start", start, "end", end,
			 "elapsed", (json_int_t)(start && end > start ? end - start : 0), "limit",
			 num_or_inf((limit + 59) / 60, limit <= 0), "nodes",
			 spur_json_str(r, "nodelist", ""), "working_directory",
			 spur_json_str(r, "workdir", ""), "allocation_nodes",
			 num(spur_json_int(r, "nnodes", 0)), "steps");
}

static void get_db_jobs(const struct rest_backend *be, const struct rest_request *rq,
			struct rest_response *rs, const char *one)
{
	struct spur_error err;
	json_t *req = json_pack("{s:s}", "type", "acct"), *reply, *out = json_array(), *r;
	size_t i;

	if (one)
		json_object_set_new(req, "jobs", json_string(one));
	reply = call(be, rq, req, &err);
	if (!reply) {
		json_decref(out);
		fail_backend(rs, rq, &err);
		return;
	}
	json_array_foreach(json_object_get(reply, "jobs"), i, r)
		json_array_append_new(out, db_job(r));
	json_decref(reply);
	if (one && !json_array_size(out)) {
		json_decref(out);
		fail(rs, rq, 404, 2017, "Invalid job id specified", one);
		return;
	}
	respond(rs, 200, rq, json_pack("{s:o}", "jobs", out), NULL, NULL);
}

/* ---------------------------------------------------------------- others */

static void ping(const struct rest_backend *be, const struct rest_request *rq,
		 struct rest_response *rs)
{
	struct spur_error err;
	json_t *reply = call(be, rq, json_pack("{s:s}", "type", "members"), &err), *pings;
	const json_t *m;
	size_t i;

	if (!reply) {
		fail_backend(rs, rq, &err);
		return;
	}
	pings = json_array();
	json_array_foreach(json_object_get(reply, "members"), i, m)
		json_array_append_new(
			pings, json_pack("{s:s,s:s,s:I,s:s,s:b}", "hostname",
					 spur_json_str(m, "address", ""), "pinged", "UP", "latency",
					 (json_int_t)0, "mode", i == 0 ? "primary" : "backup",
					 "primary", spur_json_bool(m, "leader", 0)));
	json_decref(reply);
	respond(rs, 200, rq, json_pack("{s:o}", "pings", pings), NULL, NULL);
}

static void diag(const struct rest_backend *be, const struct rest_request *rq,
		 struct rest_response *rs)
{
	struct spur_error err;
	json_t *r = call(be, rq, json_pack("{s:s}", "type", "stats"), &err);
	json_int_t cycles;

	if (!r) {
		fail_backend(rs, rq, &err);
		return;
	}
	cycles = spur_json_int(r, "cycles", 0);
	respond(rs, 200, rq,
		json_pack("{s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:I}}", "statistics",
			  "jobs_submitted", (json_int_t)spur_json_int(r, "submitted", 0),
			  "jobs_pending", (json_int_t)spur_json_int(r, "jobs_pending", 0),
			  "jobs_running", (json_int_t)spur_json_int(r, "jobs_running", 0),
			  "schedule_cycle_last", (json_int_t)spur_json_int(r, "cycle_us_last", 0),
			  "schedule_cycle_max", (json_int_t)spur_json_int(r, "cycle_us_max", 0),
			  "schedule_cycle_total", cycles, "schedule_cycle_mean",
			  (json_int_t)(cycles ? spur_json_int(r, "cycle_us_total", 0) / cycles : 0),
			  "req_time", num(spur_json_int(r, "now", 0)), "req_time_start",
			  num(spur_json_int(r, "started_at", 0)), "spur_raft_term",
			  (json_int_t)spur_json_int(r, "term", 0), "spur_raft_commit_index",
			  (json_int_t)spur_json_int(r, "commit_index", 0)),
		NULL, NULL);
	json_decref(r);
}

static void utilization(const struct rest_request *rq, struct rest_response *rs)
{
	json_t *a = json_array();
	const struct rest_history *h = rq->history;

	for (size_t i = 0; h && i < h->n; i++) {
		const struct rest_sample *s = &h->s[(h->head + REST_SAMPLES - h->n + i) % REST_SAMPLES];

		json_array_append_new(a, json_pack("{s:I,s:i,s:i,s:i,s:i}", "time",
						   (json_int_t)s->time, "gpus_alloc",
						   (int)s->gpus_alloc, "gpus_total",
						   (int)s->gpus_total, "cpus_alloc",
						   (int)s->cpus_alloc, "cpus_total",
						   (int)s->cpus_total));
	}
	respond(rs, 200, rq, json_pack("{s:o}", "samples", a), NULL, NULL);
}

/* The last bytes of a job's output, for the dashboard's job detail: the
 * controller shows the job only to its owner (or an administrator); the
 * file must be a regular file that belongs to the job's user. */
static void output_tail(const struct rest_backend *be, const struct rest_request *rq,
			struct rest_response *rs, long id)
{
	struct spur_error err;
	json_t *r = call(be, rq, json_pack("{s:s,s:I}", "type", "job", "job_id", (json_int_t)id), &err);
	const json_t *j;
	char path[4096], buf[16384], host[256];
	struct stat st;
	ssize_t n = 0;
	int fd;

	if (!r) {
		fail_backend(rs, rq, &err);
		return;
	}
	j = json_object_get(r, "job");
	spur_hostlist_first(spur_json_str(j, "nodelist", ""), host, sizeof(host));
	spur_job_output_path(j, "output", host, spur_json_str(j, "workdir", "/"), path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
			(json_int_t)st.st_uid != spur_json_int(j, "uid", -1))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		off_t off = st.st_size > (off_t)sizeof(buf) ? st.st_size - (off_t)sizeof(buf) : 0;

		n = pread(fd, buf, sizeof(buf), off);
		close(fd);
	}
	respond(rs, 200, rq,
		json_pack("{s:I,s:s,s:s%,s:b}", "job_id", (json_int_t)id, "path", path, "tail",
			  buf, (size_t)(n > 0 ? n : 0), "found", fd >= 0 || n > 0),
		NULL, NULL);
	json_decref(r);
}

/* ---------------------------------------------------------------- metrics */

/* Prometheus text format 0.0.4: the controller's counts (any caller may
 * read them: spurrestd needs no rights of its own). */
static void metrics(const struct rest_backend *be, const struct rest_request *rq,
		    struct rest_response *rs)
{
	struct spur_error err;
	json_t *nodes, *stats, *types = json_object(), *v;
	const json_t *j, *n;
	size_t i, cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	const char *key;
	static const char *const nstates[] = { "IDLE", "MIXED", "ALLOCATED", "DRAIN", "DOWN" };

	spur_error_init(&err);
	nodes = be->call(be->ctx, json_pack("{s:s,s:b}", "type", "nodes", "gpu_map", 1), &err);
	stats = nodes ? be->call(be->ctx, json_pack("{s:s}", "type", "stats"), &err) : NULL;
	if (!stats || !out) {
		free(out);
		json_decref(nodes);
		json_decref(types);
		rs->status = 503;
		rs->content_type = "text/plain; version=0.0.4";
		rs->body = strdup("# controller unreachable\n");
		rs->len = rs->body ? strlen(rs->body) : 0;
		return;
	}
#define EMIT(...)                                                                   \
	do {                                                                        \
		int w_ = snprintf(out + len, cap - len, __VA_ARGS__);               \
		if (w_ > 0 && (size_t)w_ >= cap - len) {                            \
			char *no_ = realloc(out, cap = (cap + (size_t)w_) * 2);     \
			if (!no_)                                                   \
				break;                                              \
			out = no_;                                                  \
			w_ = snprintf(out + len, cap - len, __VA_ARGS__);           \
		}                                                                   \
		if (w_ > 0)                                                         \
			len += (size_t)w_;                                          \
	} while (0)
	/* jobs by state and partition: the controller's counts */
	EMIT("# HELP spur_jobs Jobs the controller knows, by state and partition.\n"
	     "# TYPE spur_jobs gauge\n");
	json_array_foreach(json_object_get(stats, "jobs"), i, j) {
		EMIT("spur_jobs{state=\"%s\",partition=\"%s\"} %lld\n", spur_json_str(j, "state", "?"),
		     spur_json_str(j, "partition", ""), (long long)spur_json_int(j, "count", 0));
	}
	EMIT("# HELP spur_nodes Nodes by state.\n# TYPE spur_nodes gauge\n");
	for (size_t s = 0; s < sizeof(nstates) / sizeof(nstates[0]); s++) {
		long c = 0;

		json_array_foreach(json_object_get(nodes, "nodes"), i, n)
			c += !strcmp(spur_json_str(n, "state", ""), nstates[s]);
		EMIT("spur_nodes{state=\"%s\"} %ld\n", nstates[s], c);
	}
	/* GPUs by type: the node's Gres type (gpu:TYPE:N) */
	json_array_foreach(json_object_get(nodes, "nodes"), i, n) {
		const char *g = spur_json_str(n, "gres", "");
		const char *t = strstr(g, "gpu:");
		char type[64] = "gpu";
		unsigned freec, count = gpus_of(n, &freec);
		json_t *e;

		if (!count)
			continue;
		if (t && strchr(t + 4, ':'))
			snprintf(type, sizeof(type), "%.*s", (int)(strchr(t + 4, ':') - (t + 4)), t + 4);
		e = json_object_get(types, type);
		if (!e) {
			e = json_pack("{s:I,s:I}", "alloc", (json_int_t)0, "idle", (json_int_t)0);
			json_object_set_new(types, type, e);
		}
		json_object_set_new(e, "alloc",
				    json_integer(spur_json_int(e, "alloc", 0) + count - freec));
		json_object_set_new(e, "idle", json_integer(spur_json_int(e, "idle", 0) + freec));
	}
	EMIT("# HELP spur_gpus GPUs by type, allocated or idle.\n# TYPE spur_gpus gauge\n");
	json_object_foreach(types, key, v) {
		EMIT("spur_gpus{type=\"%s\",state=\"allocated\"} %lld\n", key,
		     (long long)spur_json_int(v, "alloc", 0));
		EMIT("spur_gpus{type=\"%s\",state=\"idle\"} %lld\n", key,
		     (long long)spur_json_int(v, "idle", 0));
	}
	EMIT("# HELP spur_scheduler_cycle_seconds The last scheduling cycle's duration.\n"
	     "# TYPE spur_scheduler_cycle_seconds gauge\nspur_scheduler_cycle_seconds %.6f\n",
	     (double)spur_json_int(stats, "cycle_us_last", 0) / 1e6);
	EMIT("# HELP spur_scheduler_cycle_max_seconds The longest scheduling cycle.\n"
	     "# TYPE spur_scheduler_cycle_max_seconds gauge\nspur_scheduler_cycle_max_seconds "
	     "%.6f\n",
	     (double)spur_json_int(stats, "cycle_us_max", 0) / 1e6);
	EMIT("# HELP spur_scheduler_cycles_total Scheduling cycles run.\n"
	     "# TYPE spur_scheduler_cycles_total counter\nspur_scheduler_cycles_total %lld\n",
	     (long long)spur_json_int(stats, "cycles", 0));
	EMIT("# HELP spur_jobs_submitted_total Submissions accepted by this leader (rate() of it: "
	     "the submit rate).\n# TYPE spur_jobs_submitted_total counter\n"
	     "spur_jobs_submitted_total %lld\n",
	     (long long)spur_json_int(stats, "submitted", 0));
	EMIT("# HELP spur_raft_term The Raft term.\n# TYPE spur_raft_term gauge\nspur_raft_term "
	     "%lld\n",
	     (long long)spur_json_int(stats, "term", 0));
	EMIT("# HELP spur_raft_commit_index The Raft commit index.\n"
	     "# TYPE spur_raft_commit_index gauge\nspur_raft_commit_index %lld\n",
	     (long long)spur_json_int(stats, "commit_index", 0));
#undef EMIT
	json_decref(types);
	json_decref(nodes);
	json_decref(stats);
	rs->status = 200;
	rs->content_type = "text/plain; version=0.0.4; charset=utf-8";
	rs->body = out;
	rs->len = len;
}

/* ---------------------------------------------------------------- samples */

void rest_sample_nodes(const json_t *reply, int64_t now, struct rest_sample *out)
{
	const json_t *n;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->time = now;
	json_array_foreach(json_object_get(reply, "nodes"), i, n) {
		unsigned freec, count = gpus_of(n, &freec);

		out->gpus_total += count;
		out->gpus_alloc += count - freec;
		out->cpus_total += (uint32_t)spur_json_int(n, "cpus", 0);
		out->cpus_alloc += (uint32_t)spur_json_int(n, "alloc_cpus", 0);
	}
}

void rest_history_add(struct rest_history *h, const struct rest_sample *s)
{
	h->s[h->head] = *s;
	h->head = (h->head + 1) % REST_SAMPLES;
	if (h->n < REST_SAMPLES)
		h->n++;
}

/* ---------------------------------------------------------------- router */

static void text(struct rest_response *rs, int status, const char *type, const char *body)
{
	rs->status = status;
	rs->content_type = type;
	rs->body = strdup(body);
	rs->len = rs->body ? strlen(rs->body) : 0;
}

/* "/slurm/v0.0.40/job/42" with prefix "/slurm/v0.0.40/job/": 42, else -1 */
static long id_after(const char *path, const char *prefix, const char **rest)
{
	size_t l = strlen(prefix);
	char *end;
	long v;

	if (strncmp(path, prefix, l) || path[l] < '0' || path[l] > '9')
		return -1;
	errno = 0;
	v = strtol(path + l, &end, 10);
	if (errno || v <= 0 || v > 0x7fffffff || (*end && *end != '/'))
		return -1;
	if (rest)
		*rest = end;
	return v;
}

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("-_.[],", *s)))
			return false;
	return true;
}

void rest_handle(const struct rest_backend *be, const struct rest_request *rq,
		 struct rest_response *rs)
{
	const char *m = rq->method ? rq->method : "", *u = rq->url ? rq->url : "/";
	char path[512];
	const char *sl = "/slurm/" REST_API "/", *db = "/slurmdb/" REST_API "/", *tail = NULL;
	bool get = !strcmp(m, "GET") || !strcmp(m, "HEAD");
	long id;

	memset(rs, 0, sizeof(*rs));
	if (strlen(u) >= sizeof(path)) {
		fail(rs, rq, 414, 9002, "URI too long", NULL);
		return;
	}
	/* the query string is not used */
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(u, "?"), u);
	/* public: the page, the API's description, the metrics */
	if (get && (!strcmp(path, "/") || !strcmp(path, "/ui") || !strcmp(path, "/ui/"))) {
		text(rs, 200, "text/html; charset=utf-8", rest_ui_html);
		return;
	}
	if (get && (!strcmp(path, "/openapi/v3") || !strcmp(path, "/openapi") ||
		    !strcmp(path, "/openapi.json"))) {
		text(rs, 200, "application/json", rest_openapi_json);
		return;
	}
	if (get && !strcmp(path, "/metrics")) {
		metrics(be, rq, rs);
		return;
	}
	if (strncmp(path, sl, strlen(sl)) && strncmp(path, db, strlen(db)) &&
	    strncmp(path, "/spur/v1/", 9)) {
		fail(rs, rq, 404, 9404, "Unknown path", path);
		return;
	}
	/* the rest speak for a user, who must say who they are */
	if (!rq->user_token || !*rq->user_token) {
		fail(rs, rq, 401, 1007, "Protocol authentication error",
		     "X-SLURM-USER-TOKEN is required (scontrol token)");
		return;
	}
	if (!strncmp(path, sl, strlen(sl))) {
		const char *p = path + strlen(sl);

		if (get && !strcmp(p, "ping"))
			ping(be, rq, rs);
		else if (get && !strcmp(p, "diag"))
			diag(be, rq, rs);
		else if (get && !strcmp(p, "jobs"))
			get_jobs(be, rq, rs, 0);
		else if (!strcmp(p, "job/submit") && !strcmp(m, "POST"))
			submit(be, rq, rs);
		else if ((id = id_after(path, "/slurm/" REST_API "/job/", &tail)) > 0 && !*tail &&
			 get)
			get_jobs(be, rq, rs, id);
		else if (id > 0 && !*tail && !strcmp(m, "DELETE"))
			cancel(be, rq, rs, id);
		else if (id > 0 && !*tail && !strcmp(m, "POST"))
			update(be, rq, rs, id);
		else if (get && !strcmp(p, "nodes"))
			get_nodes(be, rq, rs, NULL, false);
		else if (get && !strncmp(p, "node/", 5) && name_ok(p + 5))
			get_nodes(be, rq, rs, p + 5, false);
		else if (get && !strcmp(p, "partitions"))
			get_nodes(be, rq, rs, NULL, true);
		else if (get && !strncmp(p, "partition/", 10) && name_ok(p + 10))
			get_nodes(be, rq, rs, p + 10, true);
		else if (get && !strcmp(p, "reservations"))
			respond(rs, 200, rq, json_pack("{s:[],s:o}", "reservations", "last_update", num(0)),
				NULL, NULL);
		else
			fail(rs, rq, strstr(p, "job/") == p || strstr(p, "node/") == p ? 400 : 404,
			     9404, "Unknown path or method", path);
		return;
	}
	if (!strncmp(path, db, strlen(db))) {
		const char *p = path + strlen(db);

		if (get && !strcmp(p, "jobs"))
			get_db_jobs(be, rq, rs, NULL);
		else if (get && (id = id_after(path, "/slurmdb/" REST_API "/job/", &tail)) > 0 &&
			 !*tail) {
			char idtxt[16];

			snprintf(idtxt, sizeof(idtxt), "%ld", id);
			get_db_jobs(be, rq, rs, idtxt);
		} else {
			fail(rs, rq, 404, 9404, "Unknown path or method", path);
		}
		return;
	}
	/* Spur's own, for the dashboard */
	if (get && !strcmp(path, "/spur/v1/utilization"))
		utilization(rq, rs);
	else if (get && (id = id_after(path, "/spur/v1/job/", &tail)) > 0 &&
		 !strcmp(tail, "/output"))
		output_tail(be, rq, rs, id);
	else
		fail(rs, rq, 404, 9404, "Unknown path or method", path);
}
