/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's host-CPU bookkeeping (src/agent/cpuset.c): whole CPUs for
 * jobs that share nothing, shared ones (OverSubscribe) least shared first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agent/cpuset.h"

#include <string.h>

static void test_whole(void **state)
{
	uint8_t used[8] = { 0 };
	char buf[64];

	(void)state;
	spurd_cpus_pick(used, 8, 3, 1, buf, sizeof(buf));
	assert_string_equal(buf, "0-2");
	spurd_cpus_pick(used, 8, 2, 1, buf, sizeof(buf));
	assert_string_equal(buf, "3-4");
	spurd_cpus_pick(used, 8, 4, 1, buf, sizeof(buf)); /* 3 left: none taken */
	assert_string_equal(buf, "");
	assert_int_equal(used[5], 0);
	spurd_cpus_take(used, 8, "0-2", 1, -1);
	spurd_cpus_pick(used, 8, 4, 1, buf, sizeof(buf));
	assert_string_equal(buf, "0-2,5");
}

static void test_shared(void **state)
{
	uint8_t used[4] = { 0 };
	char buf[64];

	(void)state;
	used[0] = SPURD_CPU_WHOLE; /* a job that shares nothing holds CPU 0 */
	spurd_cpus_pick(used, 4, 2, 2, buf, sizeof(buf)); /* free ones first */
	assert_string_equal(buf, "1-2");
	spurd_cpus_pick(used, 4, 3, 2, buf, sizeof(buf)); /* 3, then the least shared */
	assert_string_equal(buf, "1-3");
	assert_int_equal(used[1], 2);
	assert_int_equal(used[3], 1);
	spurd_cpus_pick(used, 4, 2, 2, buf, sizeof(buf)); /* only CPU 3 below 2 */
	assert_string_equal(buf, "");
	spurd_cpus_pick(used, 4, 1, 1, buf, sizeof(buf)); /* no free CPU for a whole one */
	assert_string_equal(buf, "");
	spurd_cpus_take(used, 4, "1-2", 2, -1);
	assert_int_equal(used[1], 1);
	assert_int_equal(used[0], SPURD_CPU_WHOLE); /* a shared give-back leaves it */
	spurd_cpus_take(used, 4, "0", 2, -1);
	assert_int_equal(used[0], SPURD_CPU_WHOLE);
	spurd_cpus_take(used, 4, "0,9", 1, -1); /* past the host's CPUs: ignored */
	assert_int_equal(used[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_shared),
	};

	return cmocka_run_group_tests_name("cpuset", tests, NULL, NULL);
}
