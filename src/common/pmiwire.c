/* SPDX-License-Identifier: Apache-2.0 */
/* The PMI-1 wire protocol's requests (see pmiwire.h). */
#include "common/pmiwire.h"

#include <string.h>

int spur_pmi_parse(char *line, struct spur_pmi_msg *m)
{
	char *p = line;

	m->n = 0;
	while (*p) {
		char *eq, *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		end = p + strcspn(p, " \t");
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || eq == p || m->n == SPUR_PMI_MAX_FIELDS)
			return -1;
		*eq = '\0';
		m->key[m->n] = p;
		m->val[m->n] = eq + 1;
		m->n++;
		p = end;
		if (*p)
			*p++ = '\0';
	}
	return m->n && !strcmp(m->key[0], "cmd") ? 0 : -1;
}

const char *spur_pmi_get(const struct spur_pmi_msg *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->key[i], key))
			return m->val[i];
	return NULL;
}
