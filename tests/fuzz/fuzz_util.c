/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helper for fuzz targets. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s;

	if (size > 64 * 1024)
		return NULL;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
