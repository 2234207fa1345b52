/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: durations, --begin dates, time printing (run with TZ=UTC). */
#include "../lib/testutil.h"

#include "common/timefmt.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 2026-12-02T13:40:25Z, a Wednesday */
#define NOW ((time_t)1796218825)

static int64_t dur(const char *s)
{
	int64_t v = -2;
	struct spur_error err;

	if (spur_duration_parse(s, &v, &err))
		fail_msg("'%s': %s", s, err.msg);
	return v;
}

static void test_duration(void **state)
{
	(void)state;
	assert_int_equal(dur("30"), 30 * 60);
	assert_int_equal(dur("0"), 0);
	assert_int_equal(dur("5:30"), 5 * 60 + 30);
	assert_int_equal(dur("1:00:00"), 3600);
	assert_int_equal(dur("36:00:00"), 36 * 3600);
	assert_int_equal(dur("2-12"), 2 * 86400 + 12 * 3600);
	assert_int_equal(dur("1-02:30"), 86400 + 2 * 3600 + 30 * 60);
	assert_int_equal(dur("1-02:30:15"), 86400 + 2 * 3600 + 30 * 60 + 15);
	assert_int_equal(dur("7-0"), 7 * 86400);
	assert_int_equal(dur("UNLIMITED"), SPUR_TIME_INFINITE);
	assert_int_equal(dur("infinite"), SPUR_TIME_INFINITE);
	assert_int_equal(dur("-1"), SPUR_TIME_INFINITE);
	assert_int_equal(spur_duration_minutes_ceil(61), 2);
	assert_int_equal(spur_duration_minutes_ceil(60), 1);
	assert_int_equal(spur_duration_minutes_ceil(SPUR_TIME_INFINITE), SPUR_TIME_INFINITE);
}

static void test_duration_errors(void **state)
{
	const char *bad[] = { "", "abc", "1:", ":30", "1:2:3:4", "1-", "-5", "1-2-3", "5m",
			      "1:60", "1:00:60", "1-24", "1-00:60", " 5", "99999999999" };
	struct spur_error err;
	int64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spur_duration_parse(bad[i], &v, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, "time"));
	}
	spur_duration_parse("1:61", &v, &err);
	assert_int_equal(err.code, SPUR_ERANGE);
	spur_duration_parse("x", &v, &err);
	assert_string_equal(err.msg, "invalid time 'x' (expected MM, MM:SS, HH:MM:SS, D-HH, "
				     "D-HH:MM, D-HH:MM:SS or UNLIMITED)");
	assert_int_equal(spur_duration_parse(NULL, &v, &err), SPUR_EPARSE);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	spur_duration_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "0:00");
	spur_duration_format(65, buf, sizeof(buf));
	assert_string_equal(buf, "1:05");
	spur_duration_format(3600, buf, sizeof(buf));
	assert_string_equal(buf, "1:00:00");
	spur_duration_format(86400 + 3661, buf, sizeof(buf));
	assert_string_equal(buf, "1-01:01:01");
	spur_duration_format(SPUR_TIME_INFINITE, buf, sizeof(buf));
	assert_string_equal(buf, "UNLIMITED");
	spur_duration_format(-5, buf, sizeof(buf));
	assert_string_equal(buf, "INVALID");
	spur_duration_format_hms(65, buf, sizeof(buf));
	assert_string_equal(buf, "00:01:05");
	spur_duration_format_hms(2 * 86400 + 3661, buf, sizeof(buf));
	assert_string_equal(buf, "2-01:01:01");
	spur_duration_format_hms(-3, buf, sizeof(buf));
	assert_string_equal(buf, "00:00:00");
	spur_time_format(NOW, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-02T13:40:25");
	spur_time_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "Unknown");
}

static time_t begin(const char *s)
{
	time_t t = 0;
	struct spur_error err;

	if (spur_begin_parse(s, NOW, &t, &err))
		fail_msg("'%s': %s", s, err.msg);
	return t;
}

static void test_begin(void **state)
{
	time_t midnight = NOW - (13 * 3600 + 40 * 60 + 25);

	(void)state;
	assert_int_equal(begin("now"), NOW);
	assert_int_equal(begin("now+60"), NOW + 60);
	assert_int_equal(begin("now+1hour"), NOW + 3600);
	assert_int_equal(begin("now+2hours"), NOW + 7200);
	assert_int_equal(begin("now+30minutes"), NOW + 1800);
	assert_int_equal(begin("now+3days"), NOW + 3 * 86400);
	assert_int_equal(begin("now+1week"), NOW + 7 * 86400);
	assert_int_equal(begin("now-10s"), NOW - 10);
	assert_int_equal(begin("NOW+5min"), NOW + 300);
	assert_int_equal(begin("today"), midnight);
	assert_int_equal(begin("tomorrow"), midnight + 86400);
	assert_int_equal(begin("midnight"), midnight + 86400);
	assert_int_equal(begin("noon"), midnight + 86400 + 12 * 3600); /* 12:00 passed */
	assert_int_equal(begin("teatime"), midnight + 16 * 3600);
	/* Slurm's TIME DAY and DAY TIME (checked with real Slurm 22.05) */
	assert_int_equal(begin("noon-tomorrow"), midnight + 86400 + 12 * 3600);
	assert_int_equal(begin("noon tomorrow"), midnight + 86400 + 12 * 3600);
	assert_int_equal(begin("tomorrow-noon"), midnight + 86400 + 12 * 3600);
	assert_int_equal(begin("16:00 tomorrow"), midnight + 86400 + 16 * 3600);
	assert_int_equal(begin("noon today"), midnight + 12 * 3600);
	assert_int_equal(begin("fika"), midnight + 15 * 3600);
	assert_int_equal(begin("16:00"), midnight + 16 * 3600);
	assert_int_equal(begin("16:00:30"), midnight + 16 * 3600 + 30);
	assert_int_equal(begin("10:00"), midnight + 86400 + 10 * 3600);
	assert_int_equal(begin("4:00 PM"), midnight + 16 * 3600);
	assert_int_equal(begin("12:30am"), midnight + 86400 + 30 * 60);
	assert_int_equal(begin("2026-12-25"), 1798156800);
	assert_int_equal(begin("2026-12-25T08:30"), 1798156800 + 8 * 3600 + 30 * 60);
	assert_int_equal(begin("2026-12-25T08:30:05"), 1798156800 + 8 * 3600 + 30 * 60 + 5);
	assert_int_equal(begin("12/25"), 1798156800);
	assert_int_equal(begin("12/25/26"), 1798156800);
	assert_int_equal(begin("12.25.26"), 1798156800);
	assert_int_equal(begin("122526"), 1798156800);
}

static void test_begin_errors(void **state)
{
	const char *bad[] = { "",	    "later",	    "now+",	     "now+5parsecs", "now*5",
			      "25:00",	    "12:60",	    "13:00 PM",	     "2026-13-01",   "2026-02-30",
			      "2025-02-29", "2026-12-25T25:00", "2026-12-25X", "13/01",	      "12/32",
			      "2026-1-1",   "now+99999999999w" };
	struct spur_error err;
	time_t t;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spur_begin_parse(bad[i], NOW, &t, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, "begin time"));
	}
	assert_int_equal(begin("2024-02-29"), 1709164800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),     cmocka_unit_test(test_duration_errors),
		cmocka_unit_test(test_format),	     cmocka_unit_test(test_begin),
		cmocka_unit_test(test_begin_errors),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests_name("timefmt", tests, NULL, NULL);
}
