/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: GPU discovery, KFD sysfs (fixtures shaped like real MI300X and
 * MI250 nodes), NVML (a stand-in library) and the fake backend. */
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

/* NVML through a stand-in library (tests/unit/fake_nvml.c). */
static void test_nvml(void **state)
{
	struct spur_gpu_set g;
	struct spur_error err;

	(void)state;
	unsetenv("FAKE_NVML_COUNT");
	unsetenv("FAKE_NVML_FAIL");
	assert_int_equal(spur_gpu_nvml.discover(SPUR_FAKE_NVML, &g, &err), 0);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.backend, "nvml");
	assert_string_equal(g.gpus[0].type, "h100");
	assert_string_equal(g.gpus[5].path, "/dev/nvidia5");
	assert_string_equal(g.gpus[5].uuid, "GPU-fa4e0000-0000-4000-8000-000000000005");
	assert_int_equal(g.gpus[0].vendor, 0x10de);
	assert_int_equal(g.gpus[0].device, 0x2330);
	assert_int_equal(g.links[0][0], SPUR_GPU_LINK_SELF);
	assert_int_equal(g.links[0][3], SPUR_GPU_LINK_NVLINK);
	assert_int_equal(g.links[4][7], SPUR_GPU_LINK_NVLINK);
	assert_int_equal(g.links[0][4], SPUR_GPU_LINK_SYS);
	assert_int_equal(g.links[5][1], SPUR_GPU_LINK_SYS);

	setenv("FAKE_NVML_COUNT", "0", 1);
	assert_int_equal(spur_gpu_nvml.discover(SPUR_FAKE_NVML, &g, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "no NVIDIA GPUs"));
	unsetenv("FAKE_NVML_COUNT");
	setenv("FAKE_NVML_FAIL", "1", 1);
	assert_int_equal(spur_gpu_nvml.discover(SPUR_FAKE_NVML, &g, &err), SPUR_ENOENT);
	assert_string_equal(err.msg, "NVML init: Driver Not Loaded");
	unsetenv("FAKE_NVML_FAIL");
	/* no driver library at all: a plain "not found" */
	assert_int_equal(spur_gpu_nvml.discover("/nonexistent/libnvidia-ml.so.1", &g, &err),
			 SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "NVML: "));
	assert_int_equal(g.n, 0);
}

/* Health checks: a GPU that fails after discovery is reported by each
 * backend (fake: a "failed" line; KFD: its topology node gone; NVML: lost). */
static void test_health(void **state)
{
	char path[] = "/tmp/spur-fake-XXXXXX", tree[] = "/tmp/spur-kfd-XXXXXX", cmd[256];
	char why[128];
	struct spur_gpu_set g;
	struct spur_error err;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "type mi300x\ncount 4\n");
	fclose(f);
	assert_int_equal(spur_gpu_fake.discover(path, &g, &err), 0);
	assert_int_equal(spur_gpu_health(&g, path, why, sizeof(why)), 0);
	f = fopen(path, "a");
	fprintf(f, "failed 2 Xid 79: fallen off the bus\nfailed 9 no such GPU\n");
	fclose(f);
	assert_int_equal(spur_gpu_fake.discover(path, &g, &err), 0); /* still a valid file */
	assert_int_equal(spur_gpu_health(&g, path, why, sizeof(why)), 1u << 2);
	assert_string_equal(why, "GPU 2: Xid 79: fallen off the bus");
	{ /* the usage lines, read again each time; the last for a GPU wins */
		struct spur_gpu_usage u;

		assert_int_not_equal(spur_gpu_usage(&g, path, 1, &u), 0);
		f = fopen(path, "a");
		fprintf(f, "usage 1 40 1500\nusage 1 55 2048\n");
		fclose(f);
		assert_int_equal(spur_gpu_usage(&g, path, 1, &u), 0);
		assert_int_equal(u.util_pct, 55);
		assert_int_equal(u.mem_used_mb, 2048);
	}
	unlink(path);
	assert_int_equal(spur_gpu_fake.discover("mi300x:8", &g, &err), 0);
	assert_int_equal(spur_gpu_health(&g, "mi300x:8", why, sizeof(why)), 0);

	assert_non_null(mkdtemp(tree));
	snprintf(cmd, sizeof(cmd), "cp -r %s/kfd/mi300x/nodes %s/", SPUR_TEST_DATA, tree);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/nodes", tree);
	assert_int_equal(spur_gpu_kfd.discover(cmd, &g, &err), 0);
	assert_int_equal(spur_gpu_health(&g, cmd, why, sizeof(why)), 0);
	assert_int_equal(unlink(g.gpus[3].probe), 0);
	assert_int_equal(spur_gpu_health(&g, cmd, why, sizeof(why)), 1u << 3);
	assert_string_equal(why, "GPU 3 (/dev/dri/renderD131): KFD topology node gone");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	assert_int_equal(system(cmd), 0);

	unsetenv("FAKE_NVML_LOST");
	assert_int_equal(spur_gpu_nvml.discover(SPUR_FAKE_NVML, &g, &err), 0);
	assert_int_equal(spur_gpu_health(&g, SPUR_FAKE_NVML, why, sizeof(why)), 0);
	setenv("FAKE_NVML_LOST", "5", 1);
	assert_int_equal(spur_gpu_health(&g, SPUR_FAKE_NVML, why, sizeof(why)), 1u << 5);
	assert_string_equal(why, "GPU 5: GPU is lost");
	unsetenv("FAKE_NVML_LOST");
	/* sstat's GPU figures: NVML's utilization rates and memory in use */
	{
		struct spur_gpu_usage u;

		assert_int_equal(spur_gpu_usage(&g, SPUR_FAKE_NVML, 3, &u), 0);
		assert_int_equal(u.util_pct, 30);
		assert_int_equal(u.mem_used_mb, 0);
		assert_int_not_equal(spur_gpu_usage(&g, SPUR_FAKE_NVML, 99, &u), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kfd_mi300x),
		cmocka_unit_test(test_kfd_mi250),
		cmocka_unit_test(test_kfd_missing),
		cmocka_unit_test(test_fake),
		cmocka_unit_test(test_nvml),
		cmocka_unit_test(test_health),
	};

	return cmocka_run_group_tests_name("devices", tests, NULL, NULL);
}
