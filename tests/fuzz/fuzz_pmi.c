/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a PMI-1 request line as a task could write it to its
 * agent (root): split into fields, every field found again by its key. */
#include "fuzz.h"

#include "common/alloc.h"
#include "common/pmiwire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	struct spur_pmi_msg m;

	if (!s)
		return 0;
	if (spur_pmi_parse(s, &m) == 0) {
		if (m.n == 0 || m.n > SPUR_PMI_MAX_FIELDS || strcmp(m.key[0], "cmd"))
			abort();
		for (size_t i = 0; i < m.n; i++)
			if (!*m.key[i] || strchr(m.key[i], ' ') || strchr(m.val[i], ' ') ||
			    !spur_pmi_get(&m, m.key[i]))
				abort();
	}
	spur_free(s);
	return 0;
}
