/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: GRES, TRES, memory-size, --array and --dependency parsing,
 * with print round trips where there is a printer. */
#include "fuzz.h"

#include "common/alloc.h"
#include "common/gres.h"
#include "common/jobspec.h"
#include "common/size.h"
#include "common/tres.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct spur_gres_list g = { 0 }, g2 = { 0 };
	struct spur_tres t = { 0 };
	uint64_t mb;

	if (!s)
		return 0;
	if (spur_gres_parse(s, size && data[0] & 1 ? SPUR_GRES_NODE_SPEC : 0, &g, NULL) == 0) {
		char *f = spur_gres_format(&g);

		if (!f || spur_gres_parse(f, 0, &g2, NULL) != 0 || g2.n != g.n)
			abort();
		spur_free(f);
	}
	if (spur_tres_parse(s, &t, NULL) == 0)
		spur_free(spur_tres_format(&t));
	spur_mem_parse_mb(s, &mb, NULL);
	{
		struct spur_array_spec a;
		struct spur_dep_list d;

		if (spur_array_parse(s, 100000, &a, NULL) == 0)
			spur_array_fini(&a);
		if (spur_dep_parse(s, &d, NULL) == 0)
			spur_dep_fini(&d);
	}
	spur_gres_fini(&g);
	spur_gres_fini(&g2);
	spur_tres_fini(&t);
	free(s);
	return 0;
}
