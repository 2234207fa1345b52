/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_gres_list: parsing and printing GRES specifications. */
#include "gres.h"

#include "alloc.h"
#include "size.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool valid_word(const char *s, size_t len)
{
	if (len == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return false;
	return true;
}

static bool all_digits(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A count field: digits with an optional K/M/G suffix. */
static bool looks_like_count(const char *s, size_t len)
{
	if (len && strchr("kKmMgG", s[len - 1]))
		len--;
	return all_digits(s, len);
}

static int parse_item(const char *spec, const char *s, size_t len, unsigned flags,
		      struct spur_gres_item *it, struct spur_error *err)
{
	const char *f[3];
	size_t flen[3];
	size_t nf = 0;
	const char *p = s, *end = s + len;
	char count[32];

	memset(it, 0, sizeof(*it));
	if ((flags & SPUR_GRES_NODE_SPEC) && len && s[len - 1] == ')') {
		const char *open = memchr(s, '(', len);

		if (!open || strncmp(open, "(S:", 3) != 0)
			goto bad;
		end = open;
	}
	if (end - p > 5 && strncmp(p, "gres/", 5) == 0)
		p += 5;
	for (;;) {
		const char *colon = memchr(p, ':', (size_t)(end - p));

		if (nf == 3)
			goto bad;
		f[nf] = p;
		flen[nf] = colon ? (size_t)(colon - p) : (size_t)(end - p);
		nf++;
		if (!colon)
			break;
		p = colon + 1;
	}
	for (size_t i = 0; i < nf; i++)
		if (flen[i] == 0)
			return spur_error_set(err, SPUR_EPARSE,
					      "invalid GRES '%s': '%.*s' has an empty field "
					      "(expected NAME[:TYPE][:COUNT])",
					      spec, (int)len, s);
	if (!valid_word(f[0], flen[0]) || flen[0] >= SPUR_GRES_NAME_MAX)
		goto bad_name;
	memcpy(it->name, f[0], flen[0]);
	it->count = 1;
	if (nf >= 2 && !(nf == 2 && looks_like_count(f[1], flen[1]))) {
		if (!valid_word(f[1], flen[1]) || flen[1] >= SPUR_GRES_TYPE_MAX)
			goto bad_type;
		memcpy(it->type, f[1], flen[1]);
	}
	if (nf == 3 || (nf == 2 && !it->type[0])) {
		size_t ci = nf - 1;

		if (!looks_like_count(f[ci], flen[ci]) || flen[ci] >= sizeof(count))
			goto bad_count;
		memcpy(count, f[ci], flen[ci]);
		count[flen[ci]] = '\0';
		if (spur_count_parse(count, SPUR_GRES_COUNT_MAX, &it->count, NULL) != 0)
			return spur_error_set(err, SPUR_ERANGE,
					      "invalid GRES '%s': count in '%.*s' is too large", spec,
					      (int)len, s);
	}
	return 0;
bad_name:
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid GRES '%s': '%.*s' has no valid name (a name starts with "
			      "a letter: gpu, gpu:8, gpu:mi300x:8)",
			      spec, (int)len, s);
bad_type:
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid GRES '%s': '%.*s' has an invalid type (a type starts with "
			      "a letter, as in gpu:mi300x:8)",
			      spec, (int)len, s);
bad_count:
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid GRES '%s': '%.*s' has an invalid count (expected "
			      "NAME[:TYPE][:COUNT])",
			      spec, (int)len, s);
bad:
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid GRES '%s': '%.*s' is not NAME[:TYPE][:COUNT]", spec, (int)len,
			      s);
}

static long find_item(const struct spur_gres_list *l, size_t from, const char *name,
		      const char *type)
{
	for (size_t i = from; i < l->n; i++)
		if (!strcmp(l->items[i].name, name) && !strcmp(l->items[i].type, type))
			return (long)i;
	return -1;
}

int spur_gres_parse(const char *s, unsigned flags, struct spur_gres_list *out,
		    struct spur_error *err)
{
	size_t start = out->n;
	const char *p = s;
	int rc;

	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "invalid GRES '': empty specification");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		struct spur_gres_item it;

		/* commas inside "(S:0,1)" do not separate items */
		if (comma && (flags & SPUR_GRES_NODE_SPEC)) {
			const char *open = memchr(p, '(', len);

			if (open) {
				const char *close = strchr(open, ')');

				comma = close ? strchr(close, ',') : NULL;
				len = comma ? (size_t)(comma - p) : strlen(p);
			}
		}
		if (len == 0) {
			rc = spur_error_set(err, SPUR_EPARSE, "invalid GRES '%s': empty item", s);
			goto out_undo;
		}
		rc = parse_item(s, p, len, flags, &it, err);
		if (rc)
			goto out_undo;
		if (find_item(out, start, it.name, it.type) >= 0) {
			rc = spur_error_set(err, SPUR_EINVAL, "invalid GRES '%s': %s%s%s given twice",
					    s, it.name, it.type[0] ? ":" : "", it.type);
			goto out_undo;
		}
		if (spur_grow((void **)&out->items, &out->cap, out->n + 1, sizeof(it))) {
			rc = spur_error_set(err, SPUR_ENOMEM, "GRES: out of memory");
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

void spur_gres_fini(struct spur_gres_list *l)
{
	spur_free(l->items);
	memset(l, 0, sizeof(*l));
}

uint64_t spur_gres_count(const struct spur_gres_list *l, const char *name, const char *type)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].name, name))
			continue;
		if (type && *type && strcmp(l->items[i].type, type))
			continue;
		sum += l->items[i].count;
	}
	return sum;
}

char *spur_gres_format(const struct spur_gres_list *l)
{
	size_t cap = l->n * (SPUR_GRES_NAME_MAX + SPUR_GRES_TYPE_MAX + 24) + 1;
	char *buf = spur_malloc(cap);
	size_t len = 0;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		const struct spur_gres_item *it = &l->items[i];

		len += (size_t)snprintf(buf + len, cap - len, "%s%s%s%s:%" PRIu64, i ? "," : "",
					it->name, it->type[0] ? ":" : "", it->type, it->count);
	}
	return buf;
}
