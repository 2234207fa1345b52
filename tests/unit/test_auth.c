/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the cluster key's rules and HS256 tokens (sign, verify,
 * every way a token can be wrong). */
#include "../lib/testutil.h"

#include "common/auth.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct spur_auth_key key_of(char c)
{
	struct spur_auth_key k = { .len = 48 };

	memset(k.bytes, c, k.len);
	return k;
}

static void test_roundtrip(void **state)
{
	struct spur_auth_key k = key_of('a');
	struct spur_ident id;
	struct spur_error err;
	char *t = spur_token_sign(&k, "alice", SPUR_ROLE_USER, NULL, 1000, 60, &err);

	(void)state;
	assert_non_null(t);
	assert_int_equal(spur_token_verify(&k, t, 1010, &id, &err), 0);
	assert_string_equal(id.user, "alice");
	assert_int_equal(id.role, SPUR_ROLE_USER);
	assert_int_equal(id.exp, 1060);
	free(t);
	t = spur_token_sign(&k, "root", SPUR_ROLE_AGENT, "mi1", 1000, 60, &err);
	assert_int_equal(spur_token_verify(&k, t, 1000, &id, &err), 0);
	assert_int_equal(id.role, SPUR_ROLE_AGENT);
	assert_string_equal(id.node, "mi1");
	free(t);
}

static void test_refused(void **state)
{
	struct spur_auth_key k = key_of('a'), other = key_of('b');
	struct spur_ident id = { .user = "untouched" };
	struct spur_error err;
	char *t = spur_token_sign(&k, "alice", SPUR_ROLE_USER, NULL, 1000, 60, &err);
	char *tampered = strdup(t), *dot;

	(void)state;
	/* another key, expired, from the future, garbage, empty */
	assert_int_equal(spur_token_verify(&other, t, 1010, &id, &err), SPUR_EPERM);
	assert_non_null(strstr(err.msg, "bad signature"));
	assert_int_equal(spur_token_verify(&k, t, 1060, &id, &err), SPUR_EPERM);
	assert_string_equal(err.msg, "token expired");
	assert_int_equal(spur_token_verify(&k, t, 900, &id, &err), SPUR_EPERM);
	assert_non_null(strstr(err.msg, "future"));
	assert_int_equal(spur_token_verify(&k, "a.b.c", 1010, &id, &err), SPUR_EPERM);
	assert_int_equal(spur_token_verify(&k, "", 1010, &id, &err), SPUR_EPERM);
	assert_int_equal(spur_token_verify(&k, NULL, 1010, &id, &err), SPUR_EPERM);
	/* one byte of the signature changed */
	dot = strrchr(tampered, '.');
	dot[1] = dot[1] == 'A' ? 'B' : 'A';
	assert_int_equal(spur_token_verify(&k, tampered, 1010, &id, &err), SPUR_EPERM);
	/* alg none: header {"alg":"none"}, claims, no signature */
	assert_int_equal(spur_token_verify(&k,
					   "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0."
					   "eyJzdW4iOiJyb290IiwiZXhwIjo5OTk5OTk5OTk5fQ.",
					   1010, &id, &err),
			 SPUR_EPERM);
	/* a failed check leaves the identity as it was */
	assert_string_equal(id.user, "untouched");
	assert_null(spur_token_sign(&k, "", SPUR_ROLE_USER, NULL, 1000, 60, &err));
	free(tampered);
	free(t);
}

static void test_key_file(void **state)
{
	char dir[] = "/tmp/spur-auth.XXXXXX", path[256], tmp[300];
	struct spur_auth_key k, k2;
	struct spur_error err;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jwt.key", dir);
	assert_int_equal(spur_auth_key_load(path, false, &k, &err), SPUR_ENOENT);
	assert_int_equal(spur_auth_key_load(path, true, &k, &err), 0);
	assert_true(k.len >= SPUR_AUTH_KEY_MIN);
	/* a second load reads the same key, it makes no other */
	assert_int_equal(spur_auth_key_load(path, true, &k2, &err), 0);
	assert_memory_equal(k.bytes, k2.bytes, k.len);
	chmod(path, 0640);
	assert_int_equal(spur_auth_key_load(path, false, &k2, &err), SPUR_EPERM);
	assert_non_null(strstr(err.msg, "readable by others"));
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_int_equal(write(fd, "short", 5), 5);
	close(fd);
	assert_int_equal(spur_auth_key_load(path, false, &k2, &err), SPUR_EINVAL);
	assert_non_null(strstr(err.msg, "too short"));
	unlink(path);
	snprintf(tmp, sizeof(tmp), "rmdir %s", dir);
	assert_int_equal(system(tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_key_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
