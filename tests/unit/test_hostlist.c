/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: hostlist expansion and compression. */
#include "../lib/testutil.h"

#include "common/hostlist.h"

#include <stdio.h>
#include <string.h>

/* Expand expr and compare with the comma-joined expected names. */
static void check_expand(const char *expr, const char *expect)
{
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr(expr, &err);
	char got[4096] = "";

	if (!hl)
		fail_msg("'%s': %s", expr, err.msg);
	for (size_t i = 0; i < spur_hostlist_count(hl); i++) {
		if (i)
			strcat(got, ",");
		strcat(got, spur_hostlist_nth(hl, i));
	}
	assert_string_equal(got, expect);
	spur_hostlist_destroy(hl);
}

static void check_form(const char *expr, const char *expect, int which)
{
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr(expr, &err);
	char *s;

	assert_non_null(hl);
	if (which == 2)
		spur_hostlist_sort(hl);
	s = which == 0 ? spur_hostlist_compress(hl, &err) : spur_hostlist_ranged(hl, &err);
	assert_non_null(s);
	assert_string_equal(s, expect);
	spur_free(s);
	spur_hostlist_destroy(hl);
}

#define check_compress(e, x) check_form(e, x, 0)
#define check_slurm(e, x) check_form(e, x, 1)
#define check_sorted(e, x) check_form(e, x, 2)

static void check_error(const char *expr, const char *fragment)
{
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr(expr, &err);

	assert_null(hl);
	if (!strstr(err.msg, fragment))
		fail_msg("'%s': message '%s' lacks '%s'", expr, err.msg, fragment);
}

static void test_expand(void **state)
{
	(void)state;
	check_expand("gpu[01-04,07],cpu1", "gpu01,gpu02,gpu03,gpu04,gpu07,cpu1");
	check_expand("node1", "node1");
	check_expand("n[8-11]", "n8,n9,n10,n11");
	check_expand("n[08-11]", "n08,n09,n10,n11");
	check_expand("n[001-003]", "n001,n002,n003");
	check_expand("rack[1-2]-node[01-03]",
		     "rack1-node01,rack1-node02,rack1-node03,rack2-node01,rack2-node02,"
		     "rack2-node03");
	check_expand("a[1,3]b", "a1b,a3b");
	check_expand("[1-3]", "1,2,3");
	check_expand("  a1 a2,,a3\t", "a1,a2,a3");
	check_expand("", "");
	check_expand("x[5]", "x5");
	check_expand("/dev/dri/renderD[128-129]", "/dev/dri/renderD128,/dev/dri/renderD129");
}

static void test_errors(void **state)
{
	(void)state;
	check_error("gpu[01-", "unterminated '['");
	check_error("gpu01]", "unexpected ']'");
	check_error("gpu[1[2]]", "nested '['");
	check_error("gpu[]", "empty brackets");
	check_error("gpu[5-1]", "goes backwards");
	check_error("gpu[a-b]", "is not a number or range");
	check_error("gpu[1-]", "is not a number or range");
	check_error("gpu[1,,2]", "is not a number or range");
	check_error("gpu[1234567890123456789]", "at most 18 digits");
	check_error("n[0-999999999]", "expands to more than");
	check_error("a[0-1023]b[0-1023]c[0-1]", "expands to more than");
	check_error("bad\x01name", "invalid character 0x01");
	char longname[400];
	memset(longname, 'x', 300);
	strcpy(longname + 300, "[1-2]");
	check_error(longname, "longer than 255 bytes");
}

static void test_push_atomic(void **state)
{
	struct spur_error err;
	struct spur_hostlist *hl = spur_hostlist_from_expr("a[1-3]", &err);

	(void)state;
	assert_int_equal(spur_hostlist_push(hl, "b[1-2],c[", &err), SPUR_EPARSE);
	assert_int_equal(spur_hostlist_count(hl), 3);
	assert_int_equal(spur_hostlist_push(hl, "b[1-2]", &err), 0);
	assert_int_equal(spur_hostlist_count(hl), 5);
	assert_int_equal(spur_hostlist_find(hl, "b2"), 4);
	assert_int_equal(spur_hostlist_find(hl, "zz"), -1);
	assert_null(spur_hostlist_nth(hl, 5));
	spur_hostlist_destroy(hl);
	spur_hostlist_destroy(NULL);
}

static void test_compress(void **state)
{
	(void)state;
	check_compress("gpu01,gpu02,gpu03,gpu04,gpu07,cpu1", "gpu[01-04,07],cpu1");
	check_compress("n8,n9,n10,n11", "n[8-11]");
	check_compress("n09,n10", "n[09-10]");
	check_compress("n1,n01", "n1,n01");
	check_compress("n10,n09", "n[09-10]");
	check_compress("rack[1-2]-node[01-03]", "rack[1-2]-node[01-03]");
	check_compress("rack1-node[01-03],rack2-node[01-02]", "rack1-node[01-03],rack2-node[01-02]");
	check_compress("a1,a1,a2", "a[1-2]");
	check_compress("foo,foo,bar", "foo,bar");
	check_compress("r1n1,r2n1,r1n2,r2n2", "r[1-2]n[1-2]");
	check_compress("x", "x");
	check_compress("", "");
	check_compress("a5b,a6b,a7b", "a[5-7]b");
	check_compress("n1,n3,n5,n6,n7", "n[1,3,5-7]");
	check_compress("n1234567890123456789", "n1234567890123456789");
}

/* The expected strings are what Slurm 22.05's scontrol prints. */
static void test_slurm_form(void **state)
{
	(void)state;
	check_slurm("gpu[01-04,07],cpu1", "gpu[01-04,07],cpu1");
	check_slurm("rack[1-2]-node[01-03]", "rack1-node[01-03],rack2-node[01-03]");
	check_slurm("n[8-11]", "n[8-11]");
	check_slurm("n09,n10", "n[09-10]");
	check_slurm("n1,n01", "n[1,01]");
	check_slurm("n10,n09", "n[10,09]");
	check_slurm("a1,a1,a2", "a[1,1-2]");
	check_slurm("r1n1,r2n1,r1n2,r2n2", "r1n1,r2n1,r1n2,r2n2");
	check_slurm("n1,n3,n5,n6,n7", "n[1,3,5-7]");
	check_slurm("foo,foo,bar", "foo,foo,bar");
	check_slurm("x1,x10,x100,x01", "x[1,10,100,01]");
	check_slurm("", "");
	check_sorted("gpu[01-04,07],cpu1", "cpu1,gpu[01-04,07]");
	check_sorted("n10,n09", "n[09-10]");
	check_sorted("a1,a1,a2", "a[1,1-2]");
	check_sorted("r1n1,r2n1,r1n2,r2n2", "r1n[1-2],r2n[1-2]");
	check_sorted("foo,foo,bar", "bar,foo,foo");
	check_sorted("x1,x10,x100,x01", "x[1,01,10,100]");
}

/* expand(ranged(expand(x))) is the same set as expand(x) */
static void test_roundtrip(void **state)
{
	const char *cases[] = {
		"gpu[01-16]",		   "rack[1-4]-n[001-008],login[1-2]", "a[1-3]b[4-6]c[7-9]",
		"n[1-5,7,9-12],m[01-10]", "x1,x10,x100,x01",		       "p[98-102]",
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct spur_hostlist *a = spur_hostlist_from_expr(cases[c], NULL);
		char *r = spur_hostlist_compress(a, NULL);
		struct spur_hostlist *b = spur_hostlist_from_expr(r, NULL);

		assert_non_null(b);
		spur_hostlist_uniq(a);
		spur_hostlist_uniq(b);
		assert_int_equal(spur_hostlist_count(a), spur_hostlist_count(b));
		for (size_t i = 0; i < spur_hostlist_count(a); i++)
			assert_string_equal(spur_hostlist_nth(a, i), spur_hostlist_nth(b, i));
		assert_true(strlen(r) <= strlen(cases[c]) + 2);
		spur_free(r);
		spur_hostlist_destroy(a);
		spur_hostlist_destroy(b);
	}
}

static void test_uniq_natural(void **state)
{
	struct spur_hostlist *hl = spur_hostlist_from_expr("n10,n2,n1,n2,m1", NULL);

	(void)state;
	spur_hostlist_uniq(hl);
	assert_int_equal(spur_hostlist_count(hl), 4);
	assert_string_equal(spur_hostlist_nth(hl, 0), "m1");
	assert_string_equal(spur_hostlist_nth(hl, 1), "n1");
	assert_string_equal(spur_hostlist_nth(hl, 2), "n2");
	assert_string_equal(spur_hostlist_nth(hl, 3), "n10");
	assert_true(spur_hostname_cmp("a02", "a2") == 0);
	assert_true(spur_hostname_cmp("a", "ab") < 0);
	spur_hostlist_destroy(hl);
}

static void test_large(void **state)
{
	struct spur_hostlist *hl = spur_hostlist_from_expr("gpu[00001-10000]", NULL);
	char *r;

	(void)state;
	assert_int_equal(spur_hostlist_count(hl), 10000);
	r = spur_hostlist_compress(hl, NULL);
	assert_string_equal(r, "gpu[00001-10000]");
	spur_free(r);
	r = spur_hostlist_ranged(hl, NULL);
	assert_string_equal(r, "gpu[00001-10000]");
	spur_free(r);
	spur_hostlist_destroy(hl);
}

static void test_alloc_failures(void **state)
{
	struct spur_error err;
	struct spur_hostlist *hl = NULL;
	char *r = NULL;

	(void)state;
	ALLOC_SWEEP(!(hl = spur_hostlist_from_expr("r[1-2]n[1-3],x", &err)), err.code, (void)0);
	ALLOC_SWEEP(!(r = spur_hostlist_compress(hl, &err)), err.code, (void)0);
	assert_string_equal(r, "r[1-2]n[1-3],x");
	spur_free(r);
	ALLOC_SWEEP(!(r = spur_hostlist_ranged(hl, &err)), err.code, (void)0);
	assert_string_equal(r, "r1n[1-3],r2n[1-3],x");
	spur_free(r);
	spur_hostlist_destroy(hl);
}

/* a job's batch host: the first name, "" when there is none */
static void test_first(void **state)
{
	char b[16];

	(void)state;
	spur_hostlist_first("mi[07-09],h1", b, sizeof(b));
	assert_string_equal(b, "mi07");
	spur_hostlist_first("", b, sizeof(b));
	assert_string_equal(b, "");
	spur_hostlist_first(NULL, b, sizeof(b));
	assert_string_equal(b, "");
	spur_hostlist_first("n[3-", b, sizeof(b));
	assert_string_equal(b, "");
	spur_hostlist_first("averyveryverylongname", b, sizeof(b));
	assert_string_equal(b, "averyveryverylo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),	   cmocka_unit_test(test_errors),
		cmocka_unit_test(test_push_atomic), cmocka_unit_test(test_compress),
		cmocka_unit_test(test_slurm_form),  cmocka_unit_test(test_first),
		cmocka_unit_test(test_roundtrip),  cmocka_unit_test(test_uniq_natural),
		cmocka_unit_test(test_large),	   cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests_name("hostlist", tests, NULL, NULL);
}
