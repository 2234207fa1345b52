/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: spurrestd's router over a fake controller — every path of the
 * OpenAPI document answers, authentication is required where it must be,
 * the caller's token travels with each request, the controller's refusals
 * become the right HTTP statuses, submission bodies are checked. */
#include "../lib/testutil.h"

#include "rest/rest.h"

#include <stdlib.h>
#include <string.h>

static json_t *last_req;	   /* what the fake controller was sent */
static const char *fail_with; /* its refusal, or NULL */
static int fail_code;

static json_t *fake_call(void *ctx, json_t *req, struct spur_error *err)
{
	const char *type = json_string_value(json_object_get(req, "type"));

	(void)ctx;
	json_decref(last_req);
	last_req = req;
	if (fail_with) {
		spur_error_set(err, fail_code, "%s", fail_with);
		return NULL;
	}
	if (!strcmp(type, "nodes"))
		return json_pack("{s:[{s:s,s:s,s:s,s:i,s:i,s:i,s:[s]}],s:[{s:s,s:[i],s:i,s:i}]}",
				 "nodes", "name", "n1", "state", "MIXED", "gres", "gpu:mi300x:8",
				 "gpu_count", 8, "free_gpu_mask", 0xfc, "cpus", 8, "partitions", "p",
				 "partitions", "name", "p", "nodes", 0, "max_time", -1, "state", 0);
	if (!strcmp(type, "members") || !strcmp(type, "stats"))
		return json_pack("{s:[{s:s,s:b}],s:i,s:i,s:i,s:[{s:s,s:s,s:i}]}", "members",
				 "address", "c:6821", "leader", 1, "cycles", 4, "submitted", 3,
				 "term", 2, "jobs", "state", "RUNNING", "partition", "p", "count",
				 1);
	if (!strcmp(type, "submit"))
		return json_pack("{s:i}", "job_id", 42);
	if (!strcmp(type, "cancel"))
		return json_pack("{s:i,s:[]}", "count", 1, "errors");
	if (!strcmp(type, "acct"))
		return json_pack("{s:[{s:i,s:s,s:s}]}", "jobs", "job_id", 1, "name", "a", "state",
				 "COMPLETED");
	return json_pack("{s:I,s:[{s:i,s:s,s:s,s:s}],s:{s:i,s:s,s:s}}", "now", (json_int_t)100,
			 "jobs", "job_id", 1, "name", "a", "state", "RUNNING", "partition", "p",
			 "job", "job_id", 1, "name", "a", "state", "RUNNING");
}

static const struct rest_backend be = { fake_call, NULL };

static json_t *ask(const char *method, const char *url, const char *token, const char *user,
		   const char *body, int *status)
{
	struct rest_request rq = { .method = method, .url = url, .user_token = token,
				   .user_name = user, .body = body,
				   .body_len = body ? strlen(body) : 0 };
	struct rest_response rs;
	json_t *j;

	rest_handle(&be, &rq, &rs);
	*status = rs.status;
	assert_non_null(rs.body);
	j = json_loadb(rs.body, rs.len, 0, NULL);
	free(rs.body);
	return j;
}

static void test_every_documented_path(void **state)
{
	json_t *doc = json_loads(rest_openapi_json, 0, NULL), *ops;
	const char *path, *m;
	json_t *op;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "openapi")), "3.0.3");
	json_object_foreach(json_object_get(doc, "paths"), path, ops) {
		json_object_foreach(ops, m, op) {
			char url[256], method[16];
			const char *p = strchr(path, '{');
			int status;
			json_t *r;

			if (p)
				snprintf(url, sizeof(url), "%.*s%s%s", (int)(p - path), path,
					 strstr(path, "job_id") ? "1" : strstr(path, "node") ? "n1" : "p",
					 strchr(p, '}') + 1);
			else
				snprintf(url, sizeof(url), "%s", path);
			for (size_t i = 0; i <= strlen(m) && i < sizeof(method); i++)
				method[i] = (char)(m[i] >= 'a' && m[i] <= 'z' ? m[i] - 32 : m[i]);
			r = ask(method, url, "tok", NULL,
				"{\"script\":\"x\",\"job\":{\"current_working_directory\":\"/\"}}",
				&status);
			if (status != 200)
				fail_msg("%s %s: %d", method, url, status);
			json_decref(r);
		}
	}
	json_decref(doc);
}

static void test_auth_required(void **state)
{
	int status;
	json_t *r = ask("GET", "/slurm/v0.0.40/jobs", NULL, NULL, NULL, &status);

	(void)state;
	assert_int_equal(status, 401);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(r, "errors"), 0), "error")),
			    "Protocol authentication error");
	json_decref(r);
	/* the token and the user name go to the controller with the request */
	json_decref(ask("GET", "/slurm/v0.0.40/jobs", "T0K", "alice", NULL, &status));
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(last_req, "auth")), "T0K");
	assert_string_equal(json_string_value(json_object_get(last_req, "as_user")), "alice");
	/* public: no token needed */
	json_decref(ask("GET", "/openapi/v3", NULL, NULL, NULL, &status));
	assert_int_equal(status, 200);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *msg;
		int code, status;
	} cases[] = {
		{ "Protocol authentication error: token expired", SPUR_EPERM, 401 },
		{ "Access/permission denied", SPUR_EPERM, 403 },
		{ "Invalid job id specified", SPUR_ENOENT, 404 },
		{ "Invalid partition name specified", SPUR_ENOENT, 400 },
		{ "Unable to contact slurm controller", SPUR_EIO, 503 },
	};
	int status;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *r;

		fail_with = cases[i].msg;
		fail_code = cases[i].code;
		r = ask("DELETE", "/slurm/v0.0.40/job/7", "t", NULL, NULL, &status);
		assert_int_equal(status, cases[i].status);
		assert_non_null(strstr(json_string_value(json_object_get(
					       json_array_get(json_object_get(r, "errors"), 0),
					       "description")),
				       cases[i].msg));
		json_decref(r);
	}
	fail_with = NULL;
}

static void test_paths(void **state)
{
	static const struct {
		const char *method, *url;
		int status;
	} cases[] = {
		{ "GET", "/slurm/v0.0.40/job/0", 400 },
		{ "GET", "/slurm/v0.0.40/job/-1", 400 },
		{ "GET", "/slurm/v0.0.40/job/99999999999", 400 },
		{ "GET", "/slurm/v0.0.40/job/12abc", 400 },
		{ "GET", "/slurm/v0.0.40/job/1?x=1", 200 },
		{ "PUT", "/slurm/v0.0.40/jobs", 404 },
		{ "GET", "/slurm/v0.0.39/jobs", 404 },
		{ "GET", "/slurm/v0.0.40/node/a%20b", 400 },
		{ "GET", "/slurm/v0.0.40/node/nosuch", 404 },
		{ "GET", "/slurmdb/v0.0.40/job/x", 404 },
		{ "GET", "/spur/v1/job/1/other", 404 },
		{ "POST", "/slurm/v0.0.40/job/submit", 400 },
	};
	int status;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_decref(ask(cases[i].method, cases[i].url, "t", NULL, NULL, &status));
		if (status != cases[i].status)
			fail_msg("%s %s: %d, expected %d", cases[i].method, cases[i].url, status,
				 cases[i].status);
	}
}

static void test_submit_body(void **state)
{
	static const struct {
		const char *body;
		int status;
		const char *says;
	} cases[] = {
		{ "{\"job\":", 400, "Unable to parse" },
		{ "[]", 400, "Unable to parse" },
		{ "{\"script\":\"x\"}", 400, "Missing job description" },
		{ "{\"job\":{\"current_working_directory\":\"/\"}}", 400, "a batch script is required" },
		{ "{\"script\":\"x\",\"job\":{}}", 400, "current_working_directory is required" },
		{ "{\"script\":\"x\",\"job\":{\"current_working_directory\":\"/\",\"tasks\":0}}", 400, "out of range" },
		{ "{\"script\":\"x\",\"job\":{\"current_working_directory\":\"/\",\"environment\":[\"=x\"]}}", 400, "NAME=value" },
		{ "{\"script\":\"x\",\"job\":{\"current_working_directory\":\"/\",\"name\":5}}", 400, "expected a string" },
		{ "{\"script\":\"x\",\"job\":{\"current_working_directory\":\"/\",\"nodes\":\"x\"}}", 400, "node count" },
		{ "{\"script\":\"x\",\"script\":\"y\",\"job\":{}}", 400, "Unable to parse" },
	};
	int status;
	char *dump;
	json_t *r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = ask("POST", "/slurm/v0.0.40/job/submit", "t", NULL, cases[i].body, &status);
		dump = json_dumps(r, 0);
		if (status != cases[i].status || !strstr(dump, cases[i].says))
			fail_msg("%s: %d %s", cases[i].body, status, dump);
		free(dump);
		json_decref(r);
	}
	/* what the controller gets */
	r = ask("POST", "/slurm/v0.0.40/job/submit", "t", NULL,
		"{\"script\":\"s\",\"job\":{\"current_working_directory\":\"/w\",\"environment\":"
		"[\"A=1=2\"],\"time_limit\":{\"set\":true,\"number\":5},\"tres_per_node\":"
		"\"gres/gpu:2\",\"nodes\":\"2-2\",\"x\":1}}",
		&status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(r, "job_id")), 42);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(r, "warnings"), 0), "source")),
			    "x");
	json_decref(r);
	r = json_object_get(last_req, "job");
	assert_int_equal(json_integer_value(json_object_get(r, "time_limit")), 300);
	assert_int_equal(json_integer_value(json_object_get(r, "nodes")), 2);
	assert_string_equal(json_string_value(json_object_get(r, "gres")), "gpu:2");
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "env"), "A")), "1=2");
	assert_string_equal(json_string_value(json_object_get(r, "workdir")), "/w");
	/* impossible and unsupported node ranges are refused, not cut */
	for (size_t i = 0; i < 3; i++) {
		static const char *const bad[] = { "5-2", "2-4", "2x" };
		char body[128];

		snprintf(body, sizeof(body), "{\"script\":\"s\",\"job\":{\"nodes\":\"%s\"}}", bad[i]);
		json_decref(ask("POST", "/slurm/v0.0.40/job/submit", "t", NULL, body, &status));
		assert_int_equal(status, 400);
	}
}

static void test_update(void **state)
{
	int status;

	(void)state;
	json_decref(ask("POST", "/slurm/v0.0.40/job/9", "t", NULL, "{\"time_limit\":5}", &status));
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(last_req, "type")), "update");
	assert_int_equal(json_integer_value(json_object_get(last_req, "job_id")), 9);
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(last_req, "set"), "time_limit")),
			 300);
	json_decref(ask("POST", "/slurm/v0.0.40/job/9", "t", NULL, "{\"job\":{\"hold\":false}}",
			&status));
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(last_req, "type")), "release");
	json_decref(ask("POST", "/slurm/v0.0.40/job/9", "t", NULL, "{\"name\":5}", &status));
	assert_int_equal(status, 400);
	json_decref(ask("POST", "/slurm/v0.0.40/job/9", "t", NULL, "nope", &status));
	assert_int_equal(status, 400);
}

static void test_metrics(void **state)
{
	struct rest_request rq = { .method = "GET", .url = "/metrics" };
	struct rest_response rs;

	(void)state;
	rest_handle(&be, &rq, &rs);
	assert_int_equal(rs.status, 200);
	assert_non_null(strstr(rs.body, "\nspur_jobs{state=\"RUNNING\",partition=\"p\"} 1\n"));
	assert_non_null(strstr(rs.body, "\nspur_gpus{type=\"mi300x\",state=\"allocated\"} 2\n"));
	assert_non_null(strstr(rs.body, "\nspur_gpus{type=\"mi300x\",state=\"idle\"} 6\n"));
	assert_non_null(strstr(rs.body, "\nspur_nodes{state=\"MIXED\"} 1\n"));
	assert_non_null(strstr(rs.body, "\nspur_raft_term 2\n"));
	free(rs.body);
	/* the controller away: 503, still text */
	fail_with = "down";
	fail_code = SPUR_EIO;
	rest_handle(&be, &rq, &rs);
	assert_int_equal(rs.status, 503);
	free(rs.body);
	fail_with = NULL;
}

static void test_history(void **state)
{
	static struct rest_history h;
	struct rest_sample s = { 0 };

	(void)state;
	for (int i = 0; i < REST_SAMPLES + 5; i++) {
		s.time = i;
		rest_history_add(&h, &s);
	}
	assert_int_equal(h.n, REST_SAMPLES);
	/* the oldest kept is the 6th added */
	assert_int_equal(h.s[h.head].time, 5);
}

static int teardown(void **state)
{
	(void)state;
	json_decref(last_req);
	last_req = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_documented_path), cmocka_unit_test(test_auth_required),
		cmocka_unit_test(test_refusals),	      cmocka_unit_test(test_paths),
		cmocka_unit_test(test_submit_body),	      cmocka_unit_test(test_update),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_history),
	};

	return cmocka_run_group_tests_name("rest", tests, NULL, teardown);
}
