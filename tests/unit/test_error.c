/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: error table, spur_error, allocator wrapper and logging. */
#include "../lib/testutil.h"

#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(spur_strerror(0), "success");
	assert_string_equal(spur_strerror(SPUR_ENOMEM), "out of memory");
	assert_string_equal(spur_strerror(SPUR_ESTATE), "invalid state");
	assert_string_equal(spur_strerror(-1), "unknown error");
	assert_string_equal(spur_strerror(SPUR__ELAST), "unknown error");
	assert_string_equal(spur_errname(SPUR_EPARSE), "SPUR_EPARSE");
	assert_true(SPUR_ENOMEM < 0);
}

static void test_error_wrap(void **state)
{
	struct spur_error err;

	(void)state;
	spur_error_init(&err);
	assert_string_equal(spur_error_text(&err), "success");
	assert_int_equal(spur_error_set(&err, SPUR_EPARSE, "bad gres spec '%s'", "gpu:"),
			 SPUR_EPARSE);
	assert_int_equal(spur_error_wrap(&err, "decode job %d", 42), SPUR_EPARSE);
	assert_int_equal(spur_error_wrap(&err, "load state"), SPUR_EPARSE);
	assert_string_equal(err.msg, "load state: decode job 42: bad gres spec 'gpu:'");
	/* wrapping a bare code uses its text */
	spur_error_init(&err);
	err.code = SPUR_EIO;
	spur_error_wrap(&err, "write");
	assert_string_equal(err.msg, "write: I/O error");
	/* NULL is accepted everywhere */
	assert_int_equal(spur_error_set(NULL, SPUR_EINVAL, "x"), SPUR_EINVAL);
	spur_error_wrap(NULL, "x");
	spur_error_init(NULL);
	/* long messages are cut, never overflow */
	char big[2000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	spur_error_set(&err, SPUR_EINVAL, "%s", big);
	assert_int_equal(strlen(err.msg), SPUR_ERROR_MSG_MAX - 1);
	spur_error_wrap(&err, "ctx");
	assert_int_equal(strlen(err.msg), SPUR_ERROR_MSG_MAX - 1);
	assert_memory_equal(err.msg, "ctx: aaa", 8);
}

static void test_alloc_fault(void **state)
{
	void *p;
	char *s;
	size_t cap = 0;
	int *arr = NULL;

	(void)state;
	spur_alloc_fail_after(0);
	assert_null(spur_malloc(10));
	p = spur_malloc(10); /* only one failure */
	assert_non_null(p);
	spur_free(p);
	spur_alloc_fail_after(2);
	s = spur_strdup("a");
	assert_non_null(s);
	spur_free(s);
	s = spur_asprintf("%d", 5);
	assert_string_equal(s, "5");
	spur_free(s);
	assert_null(spur_strdup("b"));
	spur_alloc_fail_after(-1);
	/* grow keeps the old array on failure */
	assert_int_equal(spur_grow((void **)&arr, &cap, 3, sizeof(int)), 0);
	assert_true(cap >= 3);
	arr[0] = 7;
	spur_alloc_fail_after(0);
	assert_int_equal(spur_grow((void **)&arr, &cap, 100, sizeof(int)), SPUR_ENOMEM);
	assert_int_equal(arr[0], 7);
	assert_true(cap < 100);
	assert_null(spur_reallocarray(NULL, SIZE_MAX, 2));
	spur_free(arr);
	assert_true(spur_alloc_count() > 0);
	spur_free(NULL);
}

static void test_log(void **state)
{
	char path[] = "/tmp/spur-log-XXXXXX";
	int fd = mkstemp(path);
	struct spur_error err;
	enum spur_log_level lvl;
	char buf[4096] = { 0 };
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(spur_log_level_parse("debug", &lvl, NULL), 0);
	assert_int_equal(lvl, SPUR_LOG_DEBUG);
	assert_int_equal(spur_log_level_parse("WARN", &lvl, NULL), 0);
	assert_int_equal(lvl, SPUR_LOG_WARN);
	assert_int_equal(spur_log_level_parse("3", &lvl, NULL), 0);
	assert_int_equal(lvl, SPUR_LOG_INFO);
	assert_int_equal(spur_log_level_parse("loud", &lvl, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "invalid log level 'loud'"));
	assert_int_equal(spur_log_open("test", SPUR_LOG_INFO, "/nonexistent/dir/x.log", &err),
			 SPUR_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/x.log"));
	assert_int_equal(spur_log_open("test", SPUR_LOG_INFO, path, &err), 0);
	spur_info("hello %d", 1);
	spur_debug("hidden");
	spur_warn("careful");
	spur_log_close();
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "test: info: hello 1\n"));
	assert_non_null(strstr(buf, "test: warning: careful\n"));
	assert_null(strstr(buf, "hidden"));
	assert_int_equal(buf[0], '[');
	assert_false(spur_log_enabled(SPUR_LOG_DEBUG));
	spur_log_set_level(SPUR_LOG_QUIET);
	assert_false(spur_log_enabled(SPUR_LOG_ERROR));
	spur_log_set_level(SPUR_LOG_INFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_error_wrap),
		cmocka_unit_test(test_alloc_fault),
		cmocka_unit_test(test_log),
	};

	return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
