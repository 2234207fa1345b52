/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: srun --multi-prog configurations (the agent reads what any
 * user's srun sends): srun's check, then every task's argv. */
#include "fuzz.h"

#include "common/mpmd.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char **argv, *extra[] = { "x", NULL };
	int n = 4;

	if (!s)
		return 0;
	if (spur_mpmd_check(s, "f", &n, false, NULL) == 0)
		/* what srun passed, every task finds its program in */
		for (int r = 0; r < n && r < 64; r++) {
			if (spur_mpmd_argv(s, r, extra, &argv, NULL) == SPUR_ENOENT)
				abort();
			spur_mpmd_argv_free(argv);
		}
	for (int r = 0; r < 8; r++)
		if (spur_mpmd_argv(s, r, NULL, &argv, NULL) == 0)
			spur_mpmd_argv_free(argv);
	free(s);
	return 0;
}
