/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: hostlist expansion, and the round trips through Slurm's
 * form (same names, same order) and the shortest form (same set). */
#include "fuzz.h"

#include "common/alloc.h"
#include "common/hostlist.h"

#include <stdlib.h>
#include <string.h>

/* Abort unless a and b hold the same names in the same order. */
static void assert_same(const struct spur_hostlist *a, const struct spur_hostlist *b)
{
	if (!b || spur_hostlist_count(a) != spur_hostlist_count(b))
		abort();
	for (size_t i = 0; i < spur_hostlist_count(a); i++)
		if (strcmp(spur_hostlist_nth(a, i), spur_hostlist_nth(b, i)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct spur_hostlist *a, *b;
	char *r;

	if (!s)
		return 0;
	a = spur_hostlist_from_expr(s, NULL);
	if (a && spur_hostlist_count(a) <= 20000) {
		r = spur_hostlist_ranged(a, NULL);
		b = r ? spur_hostlist_from_expr(r, NULL) : NULL;
		assert_same(a, b);
		spur_hostlist_destroy(b);
		spur_free(r);
		r = spur_hostlist_compress(a, NULL);
		if (!r)
			abort();
		/* compression must denote the same set */
		b = spur_hostlist_from_expr(r, NULL);
		if (!b)
			abort();
		spur_hostlist_uniq(a);
		spur_hostlist_uniq(b);
		assert_same(a, b);
		spur_hostlist_destroy(b);
		spur_free(r);
	}
	spur_hostlist_destroy(a);
	free(s);
	return 0;
}
