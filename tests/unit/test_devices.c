/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: GPU discovery, KFD sysfs (fixtures shaped like real MI300X and
 * MI250 nodes) and the fake backend. */
#include "../lib/testutil.h"

#include "devices/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_kfd_mi300x(void **state)
{
	struct spur_gpu_set g;
	struct spur_error err;

	(void)state;
	assert_int_equal(spur_gpu_kfd.discover(SPUR_TEST_DATA "/kfd/mi300x/nodes", &g, &err), 0);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.gpus[0].type, "mi300x");
	assert_string_equal(g.gpus[0].path, "/dev/dri/renderD128");
	assert_string_equal(g.gpus[7].path, "/dev/dri/renderD135");
	assert_int_equal(g.gpus[0].numa, 0);
	assert_int_equal(g.gpus[5].numa, 1);
	/* one hive: every pair is XGMI */
	for (size_t a = 0; a < 8; a++)
		for (size_t b = 0; b < 8; b++)
			assert_int_equal(g.links[a][b], a == b ? SPUR_GPU_LINK_SELF : SPUR_GPU_LINK_XGMI);
	assert_string_equal(g.backend, "kfd");
}

static void test_kfd_mi250(void **state)
{
	struct spur_gpu_set g;
	struct spur_error err;

	(void)state;
	assert_int_equal(spur_gpu_kfd.discover(SPUR_TEST_DATA "/kfd/mi250/nodes", &g, &err), 0);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.gpus[3].type, "mi250x");
	assert_int_equal(g.links[0][1], SPUR_GPU_LINK_XGMI);	    /* same package */
	assert_int_equal(g.links[0][2], SPUR_GPU_LINK_PCIE_SWITCH); /* a longer XGMI hop */
	assert_int_equal(g.links[0][4], SPUR_GPU_LINK_NUMA);	    /* same CPU node only */
	assert_string_equal(spur_gpu_link_name(g.links[0][2]), "pcie-switch");
}

static void test_kfd_missing(void **state)
{
	struct spur_gpu_set g;
	struct spur_error err;

	(void)state;
	assert_int_equal(spur_gpu_kfd.discover("/nonexistent/kfd", &g, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "no AMD GPU driver"));
	/* a tree with only CPU nodes */
	assert_int_equal(spur_gpu_kfd.discover(SPUR_TEST_DATA "/conf", &g, &err), SPUR_ENOENT);
}

static void test_fake(void **state)
{
	char path[] = "/tmp/spur-fake-XXXXXX";
	struct spur_gpu_set g;
	struct spur_error err;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(spur_gpu_fake.discover("h100:4", &g, &err), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.gpus[2].type, "h100");
	assert_int_equal(g.links[0][3], SPUR_GPU_LINK_NVLINK);
	assert_int_equal(spur_gpu_fake.discover("x:99", &g, &err), SPUR_ERANGE);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "# two islands\ntype a100\ncount 4\nlink 0 1 nvlink\nlink 2 3 nvlink\n");
	fclose(f);
	assert_int_equal(spur_gpu_fake.discover(path, &g, &err), 0);
	assert_int_equal(g.links[0][1], SPUR_GPU_LINK_NVLINK);
	assert_int_equal(g.links[1][2], SPUR_GPU_LINK_NUMA);
	f = fopen(path, "w");
	fprintf(f, "type a100\ncount 4\nlink 0 9 nvlink\n");
	fclose(f);
	assert_int_equal(spur_gpu_fake.discover(path, &g, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, ":3: bad link"));
	f = fopen(path, "w");
	fprintf(f, "colour blue\n");
	fclose(f);
	assert_int_equal(spur_gpu_fake.discover(path, &g, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, ":1: expected"));
	unlink(path);
	assert_int_equal(spur_gpu_fake.discover("/nonexistent/gpus.txt", &g, &err), SPUR_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kfd_mi300x),
		cmocka_unit_test(test_kfd_mi250),
		cmocka_unit_test(test_kfd_missing),
		cmocka_unit_test(test_fake),
	};

	return cmocka_run_group_tests_name("devices", tests, NULL, NULL);
}
