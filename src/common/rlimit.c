/* SPDX-License-Identifier: Apache-2.0 */
#include "rlimit.h"

#include <string.h>
#include <strings.h>
#include <sys/resource.h>

static const struct {
	const char *name;
	int res;
} rlimits[SPUR_RLIMIT_COUNT] = {
	{ "AS", RLIMIT_AS },	     { "CORE", RLIMIT_CORE },	{ "CPU", RLIMIT_CPU },
	{ "DATA", RLIMIT_DATA },     { "FSIZE", RLIMIT_FSIZE }, { "MEMLOCK", RLIMIT_MEMLOCK },
	{ "NOFILE", RLIMIT_NOFILE }, { "NPROC", RLIMIT_NPROC }, { "RSS", RLIMIT_RSS },
	{ "STACK", RLIMIT_STACK },
};

const char *spur_rlimit_name(size_t i)
{
	return i < SPUR_RLIMIT_COUNT ? rlimits[i].name : NULL;
}

int spur_rlimit_resource(size_t i)
{
	return i < SPUR_RLIMIT_COUNT ? rlimits[i].res : -1;
}

int spur_rlimit_find(const char *name, size_t len)
{
	for (size_t i = 0; i < SPUR_RLIMIT_COUNT; i++)
		if (len == strlen(rlimits[i].name) && !strncasecmp(name, rlimits[i].name, len))
			return (int)i;
	return -1;
}

bool spur_rlimit_list_ok(const char *list, const char **bad, size_t *bad_len)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (spur_rlimit_find(p, l) < 0 && !(l == 3 && !strncasecmp(p, "ALL", 3)) &&
		    !(l == 4 && !strncasecmp(p, "NONE", 4))) {
			*bad = p;
			*bad_len = l;
			return false;
		}
		p += l + (p[l] == ',');
	}
	return true;
}
