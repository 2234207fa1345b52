/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a PMI-1 request line, or a PMI-2 message body, as a task
 * could write it to its agent (root): split into fields, every field found
 * again by its key; a PMI-2 message written back parses to the same. */
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
	s = spur_malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	if (spur_pmi2_parse(s, size, &m) == 0) {
		char out[2 * SPUR_PMI2_MAX_BODY];
		const char *kv[2 * SPUR_PMI_MAX_FIELDS];
		struct spur_pmi_msg back;
		size_t n;

		if (m.n == 0 || m.n > SPUR_PMI_MAX_FIELDS || strcmp(m.key[0], "cmd"))
			abort();
		for (size_t i = 1; i < m.n; i++) {
			kv[2 * (i - 1)] = m.key[i];
			kv[2 * (i - 1) + 1] = m.val[i];
		}
		n = spur_pmi2_format(out, sizeof(out), m.val[0], kv, m.n - 1);
		if (n && (spur_pmi2_parse(out + SPUR_PMI2_LEN_FIELD, n - SPUR_PMI2_LEN_FIELD, &back) ||
			  back.n != m.n || strcmp(back.val[m.n - 1], m.val[m.n - 1])))
			abort();
	}
	spur_free(s);
	return 0;
}
