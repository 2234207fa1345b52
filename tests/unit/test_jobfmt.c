/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the squeue format engine. */
#include "../lib/testutil.h"

#include "common/jobfmt.h"
#include "common/wire.h"

#include <string.h>

static struct spur_jobfmt_job sample(void)
{
	struct spur_jobfmt_job j = { 0 };

	j.job_id = 42;
	j.array_task_id = -1;
	j.nodes = 2;
	j.cpus_per_task = 4;
	j.priority = 1234;
	j.partition = "gpu";
	j.name = "a-very-long-job-name";
	j.user = "alice";
	j.account = "";
	j.state = "RUNNING";
	j.reason = "None";
	j.nodelist = "mi[01-02]";
	j.gres = "gpu:mi300x:8";
	j.workdir = "/home/alice";
	j.start = 1000;
	j.time_limit = 3600;
	return j;
}

static const char *line(const char *fmt, const struct spur_jobfmt_job *j, int64_t now)
{
	static char buf[4096];
	size_t len = 0;

	assert_true(spur_jobfmt_line(fmt, j, now, buf, &len, sizeof(buf)));
	assert_int_equal(buf[len - 1], '\n');
	buf[len - 1] = '\0';
	return buf;
}

static void test_default(void **state)
{
	struct spur_jobfmt_job j = sample();

	(void)state;
	/* exactly squeue's default layout */
	assert_string_equal(line(SPUR_SQUEUE_DEFAULT, NULL, 0),
			    "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
			    "NODELIST(REASON)");
	assert_string_equal(line(SPUR_SQUEUE_DEFAULT, &j, 1065),
			    "                42       gpu a-very-l    alice  R       1:05      2 "
			    "mi[01-02]");
	j.state = "PENDING";
	j.reason = "Resources";
	assert_string_equal(line(SPUR_SQUEUE_DEFAULT, &j, 1065),
			    "                42       gpu a-very-l    alice PD       0:00      2 "
			    "(Resources)");
}

static void test_fields(void **state)
{
	struct spur_jobfmt_job j = sample();

	(void)state;
	assert_string_equal(line("%i|%T|%l|%L|%C|%b|%a|%Q|%Z", &j, 1000 + 600),
			    "42|RUNNING|1:00:00|50:00|8|gres/gpu:mi300x:8|(null)|1234|/home/alice");
	assert_string_equal(line("%5i|%.5i|%3j", &j, 0), "42   |   42|a-v");
	j.array_job_id = 40;
	j.array_task_id = 2;
	assert_string_equal(line("%i %F %K %A", &j, 0), "40_2 40 2 42");
	j.time_limit = 0;
	assert_string_equal(line("%l", &j, 0), "UNLIMITED");
	assert_string_equal(line("no fields", &j, 0), "no fields");
	assert_string_equal(spur_jobfmt_state_code("TIMEOUT"), "TO");
}

/* a user's job name cannot forge a line or move the cursor */
static void test_escape(void **state)
{
	struct spur_jobfmt_job j = { .job_id = 7, .array_task_id = -1, .partition = "gpu",
				     .name = "x\n   UserId=root(0)\x1b[2J\t", .user = "u", .account = "",
				     .state = "PENDING", .reason = "None", .nodelist = "", .gres = "",
				     .workdir = "" };
	char buf[256], out[8];
	size_t len = 0;
	json_t *v = json_pack("{s:s,s:[s],s:s}", "name", "a\rb\x7f", "list", "c\nd", "text",
			      "line1\nline2\n");

	(void)state;
	assert_true(spur_jobfmt_line("%i %j", &j, 0, buf, &len, sizeof(buf)));
	assert_string_equal(buf, "7 x\\n   UserId=root(0)\\x1b[2J\\t\n");
	assert_int_equal(spur_json_escape_controls(v), 0);
	assert_string_equal(json_string_value(json_object_get(v, "name")), "a\\rb\\x7f");
	assert_string_equal(json_string_value(json_array_get(json_object_get(v, "list"), 0)),
			    "c\\nd");
	/* squeue's preformatted lines keep their newlines */
	assert_string_equal(json_string_value(json_object_get(v, "text")), "line1\nline2\n");
	json_decref(v);
	/* cut short where the buffer ends, never in the middle of an escape */
	assert_int_equal(spur_escape_controls("ab\ncd", 5, out, sizeof(out)), 4);
	assert_string_equal(out, "ab\\n");
}

static void test_invalid(void **state)
{
	char buf[16];
	size_t len = 0;
	struct spur_jobfmt_job j = sample();

	(void)state;
	assert_false(spur_jobfmt_valid("%Y"));
	assert_false(spur_jobfmt_valid("%.18"));
	assert_false(spur_jobfmt_valid("abc %"));
	assert_true(spur_jobfmt_valid(SPUR_SQUEUE_DEFAULT));
	/* too small a buffer: false, nothing claimed */
	assert_false(spur_jobfmt_line(SPUR_SQUEUE_DEFAULT, &j, 0, buf, &len, sizeof(buf)));
	assert_int_equal(len, 0);
	assert_true(spur_jobfmt_in_list(NULL, "x"));
	assert_true(spur_jobfmt_in_list("a,PD,b", "pd"));
	assert_false(spur_jobfmt_in_list("a,b", "ab"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests_name("jobfmt", tests, NULL, NULL);
}
