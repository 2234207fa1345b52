/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: memory sizes, counts, GRES and TRES strings. */
#include "../lib/testutil.h"

#include "common/gres.h"
#include "common/jobspec.h"
#include "common/mpmd.h"
#include "common/pmiwire.h"
#include "common/rlimit.h"
#include "common/size.h"
#include "common/tres.h"

#include <string.h>

static uint64_t mem(const char *s)
{
	uint64_t v = 0;
	struct spur_error err;

	if (spur_mem_parse_mb(s, &v, &err))
		fail_msg("'%s': %s", s, err.msg);
	return v;
}

static void test_mem(void **state)
{
	const char *bad[] = { "", "G", "16GB", "1.5G", "-1", "16 G", "16X", "2000P" };
	struct spur_error err;
	char buf[32];
	uint64_t v;

	(void)state;
	assert_int_equal(mem("16G"), 16384);
	assert_int_equal(mem("16g"), 16384);
	assert_int_equal(mem("512M"), 512);
	assert_int_equal(mem("512"), 512);
	assert_int_equal(mem("1T"), 1024 * 1024);
	assert_int_equal(mem("1025K"), 2);
	assert_int_equal(mem("1024K"), 1);
	assert_int_equal(mem("0"), 0);
	assert_int_equal(mem("1P"), 1024ull * 1024 * 1024);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!spur_mem_parse_mb(bad[i], &v, &err))
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, "memory size"));
	}
	spur_mem_format_mb(16384, buf, sizeof(buf));
	assert_string_equal(buf, "16G");
	spur_mem_format_mb(1000, buf, sizeof(buf));
	assert_string_equal(buf, "1000M");
	spur_mem_format_mb(2 * 1024 * 1024, buf, sizeof(buf));
	assert_string_equal(buf, "2T");
	spur_mem_format_mb(0, buf, sizeof(buf));
	assert_string_equal(buf, "0M");
	assert_int_equal(spur_count_parse("2k", 1 << 20, &v, NULL), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(spur_count_parse("2k", 1000, &v, &err), SPUR_ERANGE);
	assert_int_equal(spur_count_parse("+2", 1000, &v, &err), SPUR_EPARSE);
}

static void check_gres(const char *spec, unsigned flags, const char *expect)
{
	struct spur_gres_list l = { 0 };
	struct spur_error err;
	char *s;

	if (spur_gres_parse(spec, flags, &l, &err))
		fail_msg("'%s': %s", spec, err.msg);
	s = spur_gres_format(&l);
	assert_string_equal(s, expect);
	spur_free(s);
	spur_gres_fini(&l);
}

static void check_gres_error(const char *spec, const char *fragment)
{
	struct spur_gres_list l = { 0 };
	struct spur_error err;

	if (spur_gres_parse(spec, 0, &l, &err) == 0)
		fail_msg("'%s' accepted", spec);
	if (!strstr(err.msg, fragment))
		fail_msg("'%s': message '%s' lacks '%s'", spec, err.msg, fragment);
	assert_int_equal(l.n, 0);
	spur_gres_fini(&l);
}

static void test_gres(void **state)
{
	struct spur_gres_list l = { 0 };

	(void)state;
	check_gres("gpu", 0, "gpu:1");
	check_gres("gpu:8", 0, "gpu:8");
	check_gres("gpu:mi300x:8", 0, "gpu:mi300x:8");
	check_gres("gpu:mi300x", 0, "gpu:mi300x:1");
	check_gres("gpu:a100:2,shard:4", 0, "gpu:a100:2,shard:4");
	check_gres("gres/gpu:h100:4", 0, "gpu:h100:4");
	check_gres("shard:1k", 0, "shard:1024");
	check_gres("gpu:0", 0, "gpu:0");
	check_gres("gpu:mi300x:8(S:0-1),shard:64", SPUR_GRES_NODE_SPEC, "gpu:mi300x:8,shard:64");
	check_gres("gpu:a100:4(S:0,1),nic:2", SPUR_GRES_NODE_SPEC, "gpu:a100:4,nic:2");
	check_gres_error("", "empty specification");
	check_gres_error("gpu:", "empty field");
	check_gres_error(":8", "empty field");
	check_gres_error("8", "no valid name");
	check_gres_error("gpu:mi300x:", "empty field");
	check_gres_error("gpu:2:3", "invalid type");
	check_gres_error("gpu:a:b:c", "is not NAME[:TYPE][:COUNT]");
	check_gres_error("gpu,,shard", "empty item");
	check_gres_error("gpu:2,gpu:4", "given twice");
	check_gres_error("gpu:mi300x:-1", "invalid count");
	check_gres_error("gpu:mi300x:99999999999", "too large");
	check_gres_error("gpu:mi300x:8(S:0)", "is not NAME[:TYPE][:COUNT]");
	check_gres_error("g pu", "no valid name");
	/* parse appends and a failure keeps what was there */
	assert_int_equal(spur_gres_parse("gpu:mi300x:4,gpu:mi250:2", 0, &l, NULL), 0);
	assert_int_equal(spur_gres_parse("nic:1,bad:", 0, &l, NULL), SPUR_EPARSE);
	assert_int_equal(l.n, 2);
	assert_int_equal(spur_gres_count(&l, "gpu", NULL), 6);
	assert_int_equal(spur_gres_count(&l, "gpu", "mi250"), 2);
	assert_int_equal(spur_gres_count(&l, "shard", NULL), 0);
	spur_gres_fini(&l);
}

static void test_tres(void **state)
{
	struct spur_tres t = { 0 };
	struct spur_error err;
	char *s;
	const struct {
		const char *spec, *fragment;
	} bad[] = {
		{ "", "empty specification" },
		{ "cpu", "has no '='" },
		{ "cpu=", "has no value" },
		{ "cpu=x", "invalid count 'x'" },
		{ "mem=16Q", "invalid memory size" },
		{ "gpu=8", "unknown type 'gpu'" },
		{ "gres=8", "needs a name" },
		{ "gres/=8", "needs a name" },
		{ "cpu/x=1", "takes no name" },
		{ "gres/gpu:8=1", "is not a GRES NAME[:TYPE]" },
		{ "cpu=1,cpu=2", "given twice" },
		{ "cpu=1,,mem=1", "empty item" },
	};

	(void)state;
	assert_int_equal(
		spur_tres_parse("cpu=4,mem=16G,node=1,billing=4,gres/gpu=8,gres/gpu:mi300x=8", &t,
				&err),
		0);
	assert_int_equal(t.n, 6);
	assert_int_equal(spur_tres_get(&t, "mem", NULL), 16384);
	assert_int_equal(spur_tres_get(&t, "gres", "gpu:mi300x"), 8);
	assert_int_equal(spur_tres_get(&t, "gres", "gpu"), 8);
	assert_int_equal(spur_tres_get(&t, "license", "matlab"), 0);
	s = spur_tres_format(&t);
	assert_string_equal(s, "cpu=4,mem=16G,node=1,billing=4,gres/gpu=8,gres/gpu:mi300x=8");
	spur_free(s);
	spur_tres_fini(&t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spur_tres_parse(bad[i].spec, &t, &err) == 0)
			fail_msg("'%s' accepted", bad[i].spec);
		if (!strstr(err.msg, bad[i].fragment))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].spec, err.msg,
				 bad[i].fragment);
		assert_int_equal(t.n, 0);
	}
	spur_tres_fini(&t);
}

static void test_array(void **state)
{
	struct spur_array_spec a;
	struct spur_error err;
	const struct {
		const char *spec, *fragment;
	} bad[] = {
		{ "", "''" },	       { "a", "expected N" },	   { "5-1", "expected N" },
		{ "0-10:0", "expected N" }, { "1,,2", "expected N" },  { "0-9%", "expected N" },
		{ "0-9%0", "expected N" },  { "0-9%2x", "expected N" }, { "0-2000", "above the limit 1000" },
		{ "-1", "expected N" },
	};

	(void)state;
	assert_int_equal(spur_array_parse("0-99%10", 1000, &a, &err), 0);
	assert_int_equal(a.n, 100);
	assert_int_equal(a.throttle, 10);
	assert_int_equal(a.ids[99], 99);
	spur_array_fini(&a);
	assert_int_equal(spur_array_parse("1,3,5", 1000, &a, &err), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.ids[2], 5);
	assert_int_equal(a.throttle, 0);
	spur_array_fini(&a);
	assert_int_equal(spur_array_parse("0-15:4", 1000, &a, &err), 0);
	assert_int_equal(a.n, 4);
	assert_int_equal(a.ids[3], 12);
	spur_array_fini(&a);
	assert_int_equal(spur_array_parse("7,1-3,2", 1000, &a, &err), 0);
	assert_int_equal(a.n, 4); /* sorted, unique */
	assert_int_equal(a.ids[0], 1);
	assert_int_equal(a.ids[3], 7);
	spur_array_fini(&a);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spur_array_parse(bad[i].spec, 1000, &a, &err) == 0)
			fail_msg("'%s' accepted", bad[i].spec);
		if (!strstr(err.msg, bad[i].fragment))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err.msg, bad[i].fragment);
		assert_int_equal(a.n, 0);
	}
}

static void test_dependency(void **state)
{
	struct spur_dep_list d;
	struct spur_error err;
	const char *bad[] = { "",	"afterok",	  "afterok:",	"afterok:x", "afterok:0",
			      "later:5", "singleton:3",	  "afterok:1,",	"afterok:1;2", "after:1+x",
			      "afterok:1_", "afterok:1,afterany:2?after:3" };

	(void)state;
	assert_int_equal(spur_dep_parse("afterok:12:13,afterany:14_2,singleton", &d, &err), 0);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.deps[0].type, SPUR_DEP_AFTEROK);
	assert_int_equal(d.deps[1].job_id, 13);
	assert_int_equal(d.deps[2].type, SPUR_DEP_AFTERANY);
	assert_int_equal(d.deps[2].task_id, 2);
	assert_int_equal(d.deps[3].type, SPUR_DEP_SINGLETON);
	assert_false(d.any);
	spur_dep_fini(&d);
	assert_int_equal(spur_dep_parse("after:5+10?afternotok:6", &d, &err), 0);
	assert_int_equal(d.deps[0].delay_secs, 600);
	assert_true(d.any);
	assert_string_equal(spur_dep_type_name(d.deps[1].type), "afternotok");
	spur_dep_fini(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (spur_dep_parse(bad[i], &d, &err) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, "invalid dependency"));
	}
	spur_dep_parse("afterok:1,afterany:2?after:3", &d, &err);
	assert_non_null(strstr(err.msg, "cannot be mixed"));
}

/* PMI-1 lines and PMI-2 messages as MPICH and Slurm's libpmi2 write them. */
static void test_pmi_wire(void **state)
{
	char line[] = "cmd=put kvsname=k key=a value=1", bad[] = "put key=a";
	char body[] = "cmd=kvs-put;key=k1;value=v;;1;;;", out[128];
	char torn[] = "cmd=kvs-get;key=k", nokey[] = "cmd=x;=v;";
	const char *kv[] = { "rc", "0", "value", "a;b" };
	struct spur_pmi_msg m;
	size_t n;

	(void)state;
	assert_int_equal(spur_pmi_parse(line, &m), 0);
	assert_string_equal(spur_pmi_get(&m, "value"), "1");
	assert_int_equal(spur_pmi_parse(bad, &m), -1);
	/* ";;" is one ';' inside a value */
	assert_int_equal(spur_pmi2_parse(body, strlen(body), &m), 0);
	assert_string_equal(spur_pmi_get(&m, "cmd"), "kvs-put");
	assert_string_equal(spur_pmi_get(&m, "value"), "v;1;");
	assert_null(spur_pmi_get(&m, "x"));
	assert_int_equal(spur_pmi2_parse(torn, strlen(torn), &m), -1);
	assert_int_equal(spur_pmi2_parse(nokey, strlen(nokey), &m), -1);
	/* the length field, left-aligned as libpmi2 writes it, then the body */
	n = spur_pmi2_format(out, sizeof(out), "kvs-get-response", kv, 2);
	assert_int_equal(n, 6 + strlen("cmd=kvs-get-response;rc=0;value=a;;b;"));
	assert_memory_equal(out, "37    cmd=kvs-get-response;rc=0;value=a;;b;", n);
	assert_int_equal(spur_pmi2_parse(out + 6, n - 6, &m), 0);
	assert_string_equal(spur_pmi_get(&m, "value"), "a;b");
	assert_int_equal(spur_pmi2_format(out, 20, "kvs-get-response", kv, 2), 0);
}

/* --propagate's list: Slurm's names in any case, ALL and NONE; the first bad
 * item located for the error message. */
static void test_rlimit_list(void **state)
{
	const char *bad = NULL;
	size_t l = 0;

	(void)state;
	assert_int_equal(spur_rlimit_find("nofile", 6), 6);
	assert_int_equal(spur_rlimit_find("NOFILES", 7), -1);
	assert_string_equal(spur_rlimit_name(9), "STACK");
	assert_null(spur_rlimit_name(SPUR_RLIMIT_COUNT));
	assert_true(spur_rlimit_list_ok("ALL", &bad, &l));
	assert_true(spur_rlimit_list_ok("core,Stack,NONE", &bad, &l));
	assert_false(spur_rlimit_list_ok("CORE,STAK,AS", &bad, &l));
	assert_int_equal(l, 4);
	assert_memory_equal(bad, "STAK", 4);
}

/* srun --multi-prog: srun's check (Slurm's words) and each task's argv. */
static void test_mpmd(void **state)
{
	const char *conf = "# comment\n\n0 echo task:%t:%o\n1-2,4 prog 'a b' c\\ d x%o\n"
			   "3 long\\\nline\n";
	struct spur_error err;
	char **v = NULL, *extra[] = { "E1", NULL };
	int n = 5;

	(void)state;
	assert_int_equal(spur_mpmd_check(conf, "f", &n, true, &err), 0);
	assert_int_equal(n, 5);
	assert_int_equal(spur_mpmd_argv(conf, 0, NULL, &v, &err), 0);
	assert_string_equal(v[0], "echo");
	assert_string_equal(v[1], "task:0:0");
	assert_null(v[2]);
	spur_mpmd_argv_free(v);
	assert_int_equal(spur_mpmd_argv(conf, 4, extra, &v, &err), 0);
	assert_string_equal(v[0], "prog");
	assert_string_equal(v[1], "a b");
	assert_string_equal(v[2], "c d");
	assert_string_equal(v[3], "x2"); /* 4 is the third of 1-2,4 */
	assert_string_equal(v[4], "E1");
	assert_null(v[5]);
	spur_mpmd_argv_free(v);
	assert_int_equal(spur_mpmd_argv(conf, 3, NULL, &v, &err), 0);
	assert_string_equal(v[0], "longline");
	spur_mpmd_argv_free(v);
	assert_int_equal(spur_mpmd_argv(conf, 5, NULL, &v, &err), SPUR_ENOENT);
	assert_string_equal(err.msg, "Program for task rank 5 not specified.");
	assert_null(v);
	assert_int_equal(spur_mpmd_argv("0 'open\n", 0, NULL, &v, &err), SPUR_EPARSE);
	/* the count: raised by the file unless set; "*" covers the rest */
	n = 1;
	assert_int_equal(spur_mpmd_check("0-3 a\n", "f", &n, false, &err), 0);
	assert_int_equal(n, 4);
	n = 2;
	assert_int_equal(spur_mpmd_check("0-3 a\n", "f", &n, true, &err), SPUR_EPARSE);
	assert_string_equal(err.msg, "Invalid task id, 3 >= ntasks\n"
				     "Line 1 of configuration file f invalid");
	n = 4;
	assert_int_equal(spur_mpmd_check("0 a\n* b\n", "f", &n, false, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(spur_mpmd_check("* b\n0 a\n", "f", &n, false, &err), SPUR_EPARSE);
	assert_non_null(strstr(err.msg, "asterisk must be last"));
	n = 3;
	assert_int_equal(spur_mpmd_check("0,2 a\n", "cf", &n, true, &err), SPUR_EPARSE);
	assert_string_equal(err.msg, "Configuration file cf invalid, no record for task id 1");
	assert_int_equal(spur_mpmd_check("0-2 a\n1 b\n", "f", &n, true, &err), SPUR_EPARSE);
	assert_non_null(strstr(err.msg, "Duplicate record for task 1"));
	assert_int_equal(spur_mpmd_check("0-2\n", "f", &n, true, &err), SPUR_EPARSE);
	assert_string_equal(err.msg, "Line 1 of configuration file f invalid");
	assert_int_equal(spur_mpmd_check("x a\n", "f", &n, true, &err), SPUR_EPARSE);
	assert_non_null(strstr(err.msg, "Invalid task range specification (x)"));
	assert_int_equal(spur_mpmd_check("2-1 a\n", "f", &n, true, &err), SPUR_EPARSE);
	assert_non_null(strstr(err.msg, "Invalid task range, 2-1"));
}

static void test_alloc_failures(void **state)
{
	struct spur_gres_list g = { 0 };
	struct spur_tres t = { 0 };
	struct spur_error err;

	(void)state;
	ALLOC_SWEEP(spur_gres_parse("gpu:a:1,shard:2,nic:3", 0, &g, &err), err.code,
		    spur_gres_fini(&g));
	ALLOC_SWEEP(spur_tres_parse("cpu=1,mem=2G,gres/gpu:a=1", &t, &err), err.code,
		    spur_tres_fini(&t));
	struct spur_array_spec a;
	struct spur_dep_list d;
	ALLOC_SWEEP(spur_array_parse("0-40,50-90:5%3", 1000, &a, &err), err.code,
		    spur_array_fini(&a));
	ALLOC_SWEEP(spur_dep_parse("afterok:1:2:3:4:5:6:7:8:9:10,singleton", &d, &err), err.code,
		    spur_dep_fini(&d));
	char **mv = NULL;
	int mn = 1;
	ALLOC_SWEEP(spur_mpmd_argv("0-3 a 'b c' %t\\\n", 2, (char *[]){ "x", NULL }, &mv, &err),
		    err.code, (spur_mpmd_argv_free(mv), mv = NULL));
	ALLOC_SWEEP(spur_mpmd_check("0-3 a\n4-9 b\n", "f", &mn, false, &err), err.code,
		    (void)0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_gres),
		cmocka_unit_test(test_tres),
		cmocka_unit_test(test_array),
		cmocka_unit_test(test_dependency),
		cmocka_unit_test(test_pmi_wire),
		cmocka_unit_test(test_rlimit_list),
		cmocka_unit_test(test_mpmd),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
