/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a token from anywhere checked against the cluster key (the
 * controller does this for every request that carries one). */
#include "fuzz.h"

#include "common/auth.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spur_auth_key key = { .len = 32 };
	struct spur_ident id;
	char *s = fuzz_cstr(data, size);

	if (!s)
		return 0;
	memset(key.bytes, 'k', key.len);
	if (!spur_token_verify(&key, s, 1000, &id, NULL) && !id.user[0])
		abort(); /* an accepted token always names its user */
	free(s);
	return 0;
}
