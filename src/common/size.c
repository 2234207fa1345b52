/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing and printing of memory sizes and suffixed counts. */
#include "size.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_MB (UINT64_C(1) << 40)

/* Digits then at most one suffix letter from `suffixes`; returns the shift
 * (10 per step) of the suffix index + `base_shift`, or -1. */
static int split_number(const char *s, uint64_t *num, const char *suffixes, char *suffix)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*suffix = '\0';
	if (*p) {
		if (p[1] || !strchr(suffixes, toupper((unsigned char)*p)))
			return -1;
		*suffix = (char)toupper((unsigned char)*p);
	}
	*num = v;
	return 0;
}

int spur_mem_parse_mb(const char *s, uint64_t *mb, struct spur_error *err)
{
	uint64_t v, out;
	char suffix;

	if (!s || split_number(s, &v, "KMGTP", &suffix) != 0)
		return spur_error_set(err, SPUR_EPARSE,
				      "invalid memory size '%s' (expected a number with an optional "
				      "K, M, G, T or P suffix)",
				      s ? s : "");
	switch (suffix) {
	case 'K':
		out = v / 1024 + (v % 1024 != 0);
		break;
	case '\0':
	case 'M':
		out = v;
		break;
	case 'G':
		out = v > MAX_MB >> 10 ? MAX_MB + 1 : v << 10;
		break;
	case 'T':
		out = v > MAX_MB >> 20 ? MAX_MB + 1 : v << 20;
		break;
	default: /* P */
		out = v > MAX_MB >> 30 ? MAX_MB + 1 : v << 30;
		break;
	}
	if (out > MAX_MB)
		return spur_error_set(err, SPUR_ERANGE, "memory size '%s' is too large (at most 1024P)",
				      s);
	*mb = out;
	return 0;
}

void spur_mem_format_mb(uint64_t mb, char *buf, size_t len)
{
	static const char units[] = "MGTP";
	int u = 0;

	while (mb && mb % 1024 == 0 && u < 3) {
		mb /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", mb, units[u]);
}

int spur_count_parse(const char *s, uint64_t max, uint64_t *out, struct spur_error *err)
{
	uint64_t v;
	char suffix;
	int shift;

	if (!s || split_number(s, &v, "KMG", &suffix) != 0)
		return spur_error_set(err, SPUR_EPARSE, "invalid count '%s' (expected a number)",
				      s ? s : "");
	shift = suffix == 'K' ? 10 : suffix == 'M' ? 20 : suffix == 'G' ? 30 : 0;
	if (v > (max >> shift))
		return spur_error_set(err, SPUR_ERANGE, "count '%s' is too large (at most %" PRIu64 ")",
				      s, max);
	*out = v << shift;
	return 0;
}
