/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_tres: parsing and printing TRES strings. */
#include "tres.h"

#include "alloc.h"
#include "gres.h"
#include "size.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *type;
	bool named; /* takes "/NAME" */
} tres_types[] = {
	{ "cpu", false },    { "mem", false }, { "node", false },    { "billing", false },
	{ "energy", false }, { "vmem", false }, { "pages", false },  { "gres", true },
	{ "license", true }, { "fs", true },   { "bb", true },       { "ic", true },
};

static int type_index(const char *t, size_t len)
{
	for (size_t i = 0; i < sizeof(tres_types) / sizeof(tres_types[0]); i++)
		if (strlen(tres_types[i].type) == len && !strncmp(tres_types[i].type, t, len))
			return (int)i;
	return -1;
}

static int parse_item(const char *spec, const char *s, size_t len, struct spur_tres_item *it,
		      struct spur_error *err)
{
	const char *eq = memchr(s, '=', len);
	const char *slash;
	size_t klen, tlen;
	char value[64];
	int ti, rc;

	memset(it, 0, sizeof(*it));
	if (!eq)
		return spur_error_set(err, SPUR_EPARSE, "invalid TRES '%s': '%.*s' has no '='",
				      spec, (int)len, s);
	klen = (size_t)(eq - s);
	slash = memchr(s, '/', klen);
	tlen = slash ? (size_t)(slash - s) : klen;
	ti = type_index(s, tlen);
	if (ti < 0)
		return spur_error_set(err, SPUR_EPARSE,
				      "invalid TRES '%s': unknown type '%.*s' (known: cpu, mem, node, "
				      "billing, energy, vmem, pages, gres/NAME, license/NAME, fs/NAME, "
				      "bb/NAME, ic/NAME)",
				      spec, (int)tlen, s);
	if (tres_types[ti].named != (slash != NULL) ||
	    (slash && (size_t)(eq - slash - 1) == 0))
		return spur_error_set(err, SPUR_EPARSE,
				      "invalid TRES '%s': '%.*s' %s", spec, (int)klen, s,
				      tres_types[ti].named ? "needs a name (as gres/gpu)"
							   : "takes no name");
	memcpy(it->type, s, tlen);
	if (slash) {
		size_t nlen = (size_t)(eq - slash - 1);

		if (nlen >= sizeof(it->name))
			return spur_error_set(err, SPUR_EPARSE, "invalid TRES '%s': name too long",
					      spec);
		memcpy(it->name, slash + 1, nlen);
		if (!strcmp(it->type, "gres")) {
			struct spur_gres_list g = { 0 };

			/* the name is a GRES NAME[:TYPE] */
			rc = spur_gres_parse(it->name, 0, &g, NULL);
			if (!rc && (g.n != 1 || g.items[0].count != 1 || strchr(it->name, ',')))
				rc = SPUR_EPARSE;
			spur_gres_fini(&g);
			if (rc == SPUR_ENOMEM)
				return spur_error_set(err, SPUR_ENOMEM, "TRES: out of memory");
			if (rc)
				return spur_error_set(err, SPUR_EPARSE,
						      "invalid TRES '%s': '%s' is not a GRES "
						      "NAME[:TYPE]",
						      spec, it->name);
		}
	}
	if (len - klen - 1 == 0 || len - klen - 1 >= sizeof(value))
		return spur_error_set(err, SPUR_EPARSE, "invalid TRES '%s': '%.*s' has no value",
				      spec, (int)len, s);
	memcpy(value, eq + 1, len - klen - 1);
	value[len - klen - 1] = '\0';
	if (!strcmp(it->type, "mem"))
		rc = spur_mem_parse_mb(value, &it->count, err);
	else
		rc = spur_count_parse(value, UINT64_C(1) << 53, &it->count, err);
	if (rc)
		return spur_error_wrap(err, "invalid TRES '%s'", spec);
	return 0;
}

int spur_tres_parse(const char *s, struct spur_tres *out, struct spur_error *err)
{
	size_t start = out->n;
	const char *p = s;
	int rc;

	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "invalid TRES '': empty specification");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		struct spur_tres_item it;

		if (len == 0) {
			rc = spur_error_set(err, SPUR_EPARSE, "invalid TRES '%s': empty item", s);
			goto out_undo;
		}
		rc = parse_item(s, p, len, &it, err);
		if (rc)
			goto out_undo;
		for (size_t i = start; i < out->n; i++) {
			if (!strcmp(out->items[i].type, it.type) &&
			    !strcmp(out->items[i].name, it.name)) {
				rc = spur_error_set(err, SPUR_EINVAL,
						    "invalid TRES '%s': %s%s%s given twice", s,
						    it.type, it.name[0] ? "/" : "", it.name);
				goto out_undo;
			}
		}
		if (spur_grow((void **)&out->items, &out->cap, out->n + 1, sizeof(it))) {
			rc = spur_error_set(err, SPUR_ENOMEM, "TRES: out of memory");
			goto out_undo;
		}
		out->items[out->n++] = it;
		if (!comma)
			return 0;
		p = comma + 1;
	}
out_undo:
	out->n = start;
	return rc;
}

void spur_tres_fini(struct spur_tres *t)
{
	spur_free(t->items);
	memset(t, 0, sizeof(*t));
}

uint64_t spur_tres_get(const struct spur_tres *t, const char *type, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].type, type) && !strcmp(t->items[i].name, name ? name : ""))
			return t->items[i].count;
	return 0;
}

char *spur_tres_format(const struct spur_tres *t)
{
	size_t cap = t->n * (sizeof(t->items[0].type) + sizeof(t->items[0].name) + 24) + 1;
	char *buf = spur_malloc(cap);
	size_t len = 0;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		const struct spur_tres_item *it = &t->items[i];
		char val[32];

		if (!strcmp(it->type, "mem"))
			spur_mem_format_mb(it->count, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "%" PRIu64, it->count);
		len += (size_t)snprintf(buf + len, cap - len, "%s%s%s%s=%s", i ? "," : "", it->type,
					it->name[0] ? "/" : "", it->name, val);
	}
	return buf;
}
