/* SPDX-License-Identifier: Apache-2.0 */
/* The PMI-1 and PMI-2 wire protocols' messages (see pmiwire.h). */
#include "common/pmiwire.h"

#include <stdio.h>
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

int spur_pmi2_parse(char *body, size_t len, struct spur_pmi_msg *m)
{
	size_t i = 0;

	m->n = 0;
	if (memchr(body, '\0', len))
		return -1; /* text only: a NUL would cut a key or value short */
	body[len] = '\0';
	while (i < len) {
		char *key = body + i, *eq = memchr(key, '=', len - i), *w;

		if (!eq || eq == key || m->n == SPUR_PMI_MAX_FIELDS || memchr(key, ';', (size_t)(eq - key)))
			return -1;
		*eq = '\0';
		i = (size_t)(eq - body) + 1;
		w = body + i;
		m->key[m->n] = key;
		m->val[m->n] = w;
		/* the value up to a lone ';', each ";;" one ';' */
		for (;;) {
			if (i >= len)
				return -1; /* no closing ';' */
			if (body[i] == ';' && !(i + 1 < len && body[i + 1] == ';'))
				break;
			if (body[i] == ';')
				i++;
			*w++ = body[i++];
		}
		*w = '\0';
		i++;
		m->n++;
	}
	return m->n && !strcmp(m->key[0], "cmd") ? 0 : -1;
}

static size_t put_escaped(char *buf, size_t o, size_t cap, const char *v)
{
	for (; *v && o + 2 < cap; v++) {
		if (*v == ';')
			buf[o++] = ';';
		buf[o++] = *v;
	}
	return *v ? cap : o;
}

size_t spur_pmi2_format(char *buf, size_t cap, const char *cmd, const char *const *kv, size_t n)
{
	size_t o = SPUR_PMI2_LEN_FIELD;
	char head[SPUR_PMI2_LEN_FIELD + 1];

	if (cap < o + 8)
		return 0;
	o += (size_t)snprintf(buf + o, cap - o, "cmd=");
	o = put_escaped(buf, o, cap, cmd);
	for (size_t i = 0; o + 1 < cap && i < n; i++) {
		buf[o++] = ';';
		o = put_escaped(buf, o, cap, kv[2 * i]);
		if (o + 1 >= cap)
			break;
		buf[o++] = '=';
		o = put_escaped(buf, o, cap, kv[2 * i + 1]);
	}
	if (o + 1 >= cap || o - SPUR_PMI2_LEN_FIELD > 999999)
		return 0;
	buf[o++] = ';';
	snprintf(head, sizeof(head), "%-6zu", o - SPUR_PMI2_LEN_FIELD);
	memcpy(buf, head, SPUR_PMI2_LEN_FIELD);
	return o;
}
