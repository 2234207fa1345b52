/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: durations (parse/print round trip) and --begin dates. */
#include "fuzz.h"

#include "common/timefmt.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char buf[64];
	int64_t secs, again;
	time_t t;

	if (!s)
		return 0;
	if (spur_duration_parse(s, &secs, NULL) == 0) {
		spur_duration_format(secs, buf, sizeof(buf));
		/* what we print, we read back as the same value */
		if (secs != SPUR_TIME_INFINITE && secs >= 86400 &&
		    (spur_duration_parse(buf, &again, NULL) != 0 || again != secs))
			abort();
	}
	spur_begin_parse(s, 1796218825, &t, NULL);
	free(s);
	return 0;
}
