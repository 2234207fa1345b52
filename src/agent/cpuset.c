/* SPDX-License-Identifier: Apache-2.0 */
/* Host CPUs of a node's jobs: a count per CPU (SPURD_CPU_WHOLE: held by one
 * job alone). */
#include "agent/cpuset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void take_one(uint8_t *c, unsigned share, int sign)
{
	if (share <= 1)
		*c = sign > 0 ? SPURD_CPU_WHOLE : 0;
	else if (sign > 0 && *c < SPURD_CPU_WHOLE - 1)
		(*c)++;
	else if (sign < 0 && *c && *c != SPURD_CPU_WHOLE)
		(*c)--;
}

void spurd_cpus_take(uint8_t *used, unsigned ncpu, const char *list, unsigned share, int sign)
{
	for (const char *p = list; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (unsigned long c = lo; c <= hi && c < ncpu; c++)
			take_one(&used[c], share, sign);
		p = *end == ',' ? end + 1 : end;
		if (*p && *p != ',' && (*p < '0' || *p > '9'))
			break;
	}
}

/* The CPUs marked in pick (ascending) as a cpuset list. */
static void list_of(const uint8_t *pick, unsigned ncpu, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < ncpu; c++) {
		unsigned lo = c;

		if (!pick[c])
			continue;
		while (c + 1 < ncpu && pick[c + 1])
			c++;
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%u", o ? "," : "", lo);
		if (c > lo)
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "-%u", c);
	}
}

void spurd_cpus_pick(uint8_t *used, unsigned ncpu, uint32_t n, unsigned share, char *buf,
		     size_t len)
{
	uint8_t *pick = calloc(ncpu + 1, 1);
	uint32_t got = 0;

	buf[0] = '\0';
	if (!pick || !n)
		goto out;
	/* the least shared first: level 0 (free), then 1, ... up to share - 1 */
	for (unsigned level = 0; got < n && level < (share > 1 ? share : 1); level++)
		for (unsigned c = 0; got < n && c < ncpu; c++)
			if (used[c] == level && !pick[c]) {
				pick[c] = 1;
				got++;
			}
	if (got < n)
		goto out;
	list_of(pick, ncpu, buf, len);
	spurd_cpus_take(used, ncpu, buf, share, 1);
out:
	free(pick);
}
