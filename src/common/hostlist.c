/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_hostlist: expansion and compression of host expressions. */
#include "hostlist.h"

#include "alloc.h"
#include "hostlist_int.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HL_MAX_DIGITS 18

struct spur_hostlist {
	char **names;
	size_t n, cap;
};

struct spur_hostlist *spur_hostlist_create(void)
{
	return spur_calloc(1, sizeof(struct spur_hostlist));
}

static void hl_truncate(struct spur_hostlist *hl, size_t n)
{
	while (hl->n > n)
		spur_free(hl->names[--hl->n]);
}

void spur_hostlist_destroy(struct spur_hostlist *hl)
{
	if (!hl)
		return;
	hl_truncate(hl, 0);
	spur_free(hl->names);
	spur_free(hl);
}

size_t spur_hostlist_count(const struct spur_hostlist *hl)
{
	return hl ? hl->n : 0;
}

const char *spur_hostlist_nth(const struct spur_hostlist *hl, size_t i)
{
	return hl && i < hl->n ? hl->names[i] : NULL;
}

void spur_hostlist_first(const char *expr, char *buf, size_t len)
{
	struct spur_hostlist *hl = expr && *expr ? spur_hostlist_from_expr(expr, NULL) : NULL;

	snprintf(buf, len, "%s", spur_hostlist_count(hl) ? spur_hostlist_nth(hl, 0) : "");
	spur_hostlist_destroy(hl);
}

long spur_hostlist_find(const struct spur_hostlist *hl, const char *name)
{
	for (size_t i = 0; hl && i < hl->n; i++)
		if (strcmp(hl->names[i], name) == 0)
			return (long)i;
	return -1;
}

bool spur_hostlist_meet(const char *a, const char *b)
{
	struct spur_hostlist *ha = spur_hostlist_from_expr(a, NULL);
	struct spur_hostlist *hb = ha ? spur_hostlist_from_expr(b, NULL) : NULL;
	bool meet = false;

	for (size_t i = 0; hb && !meet && i < hb->n; i++)
		meet = spur_hostlist_find(ha, hb->names[i]) >= 0;
	spur_hostlist_destroy(hb);
	spur_hostlist_destroy(ha);
	return meet;
}

static int hl_append(struct spur_hostlist *hl, const char *name, size_t len)
{
	char *copy;

	if (spur_grow((void **)&hl->names, &hl->cap, hl->n + 1, sizeof(char *)))
		return SPUR_ENOMEM;
	copy = spur_strndup(name, len);
	if (!copy)
		return SPUR_ENOMEM;
	hl->names[hl->n++] = copy;
	return 0;
}

/* ---------------------------------------------------------------- expansion */

struct hl_range {
	unsigned long long lo, hi;
	int width;
};

/* One token: text[0] grp[0] text[1] grp[1] ... text[ngroups]. */
struct hl_token {
	const char *text[16];
	size_t text_len[16];
	struct hl_range *ranges[15];
	size_t nranges[15];
	size_t ngroups;
};

#define HL_MAX_GROUPS 15

static int is_name_char(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '[' && c != ']' && c != ',';
}

static int parse_number(const char *s, size_t len, unsigned long long *out)
{
	unsigned long long v = 0;

	if (len == 0 || len > HL_MAX_DIGITS)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_range(const char *expr, const char *s, size_t len, struct hl_range *r,
		       struct spur_error *err)
{
	const char *dash = memchr(s, '-', len);
	size_t lo_len = dash ? (size_t)(dash - s) : len;

	if (parse_number(s, lo_len, &r->lo) != 0)
		goto bad;
	r->hi = r->lo;
	r->width = (int)lo_len;
	if (dash && parse_number(dash + 1, len - lo_len - 1, &r->hi) != 0)
		goto bad;
	if (r->hi < r->lo)
		return spur_error_set(err, SPUR_EPARSE,
				      "hostlist '%s': range '%.*s' goes backwards", expr, (int)len,
				      s);
	return 0;
bad:
	return spur_error_set(err, SPUR_EPARSE,
			      "hostlist '%s': '%.*s' is not a number or range (expected N or "
			      "LO-HI, at most %d digits)",
			      expr, (int)len, s, HL_MAX_DIGITS);
}

/* Parse the inside of one bracket [s, s+len) into a fresh range array. */
static int parse_group(const char *expr, const char *s, size_t len, struct hl_range **out,
		       size_t *nout, struct spur_error *err)
{
	struct hl_range *ranges = NULL;
	size_t n = 0, cap = 0;
	const char *p = s, *end = s + len;
	int rc;

	if (len == 0)
		return spur_error_set(err, SPUR_EPARSE, "hostlist '%s': empty brackets '[]'",
				      expr);
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t elen = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (spur_grow((void **)&ranges, &cap, n + 1, sizeof(*ranges))) {
			rc = spur_error_set(err, SPUR_ENOMEM, "hostlist: out of memory");
			goto out_free_ranges;
		}
		rc = parse_range(expr, p, elen, &ranges[n], err);
		if (rc)
			goto out_free_ranges;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = ranges;
	*nout = n;
	return 0;
out_free_ranges:
	spur_free(ranges);
	return rc;
}

static void token_fini(struct hl_token *t)
{
	for (size_t i = 0; i < t->ngroups; i++)
		spur_free(t->ranges[i]);
}

static int parse_token(const char *expr, const char *s, size_t len, struct hl_token *t,
		       struct spur_error *err)
{
	const char *p = s, *end = s + len, *text = s;
	int rc;

	memset(t, 0, sizeof(*t));
	while (p < end) {
		if (*p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));
			const char *open2 = memchr(p + 1, '[', (size_t)(end - p - 1));

			if (!close) {
				rc = spur_error_set(err, SPUR_EPARSE,
						    "hostlist '%s': unterminated '[' at offset %td",
						    expr, p - expr);
				goto out_fini;
			}
			if (open2 && open2 < close) {
				rc = spur_error_set(err, SPUR_EPARSE,
						    "hostlist '%s': nested '[' at offset %td", expr,
						    open2 - expr);
				goto out_fini;
			}
			if (t->ngroups == HL_MAX_GROUPS) {
				rc = spur_error_set(err, SPUR_EPARSE,
						    "hostlist '%s': more than %d bracket groups in "
						    "one name",
						    expr, HL_MAX_GROUPS);
				goto out_fini;
			}
			t->text[t->ngroups] = text;
			t->text_len[t->ngroups] = (size_t)(p - text);
			rc = parse_group(expr, p + 1, (size_t)(close - p - 1), &t->ranges[t->ngroups],
					 &t->nranges[t->ngroups], err);
			if (rc)
				goto out_fini;
			t->ngroups++;
			p = close + 1;
			text = p;
			continue;
		}
		if (*p == ']') {
			rc = spur_error_set(err, SPUR_EPARSE,
					    "hostlist '%s': unexpected ']' at offset %td", expr,
					    p - expr);
			goto out_fini;
		}
		if (!is_name_char((unsigned char)*p)) {
			rc = spur_error_set(err, SPUR_EPARSE,
					    "hostlist '%s': invalid character 0x%02x at offset %td",
					    expr, (unsigned char)*p, p - expr);
			goto out_fini;
		}
		p++;
	}
	t->text[t->ngroups] = text;
	t->text_len[t->ngroups] = (size_t)(end - text);
	return 0;
out_fini:
	token_fini(t);
	return rc;
}

static unsigned long long group_count(const struct hl_range *r, size_t n)
{
	unsigned long long c = 0;

	for (size_t i = 0; i < n; i++) {
		c += r[i].hi - r[i].lo + 1;
		if (c > SPUR_HOSTLIST_MAX)
			return SPUR_HOSTLIST_MAX + 1ull;
	}
	return c;
}

/* Odometer over the groups; idx[g] is (range index, value). */
static int expand_token(const char *expr, struct hl_token *t, struct spur_hostlist *hl,
			size_t budget, struct spur_error *err)
{
	size_t ri[HL_MAX_GROUPS] = { 0 };
	unsigned long long val[HL_MAX_GROUPS];
	unsigned long long total = 1;
	char name[SPUR_HOSTNAME_MAX + 1];

	for (size_t g = 0; g < t->ngroups; g++) {
		total *= group_count(t->ranges[g], t->nranges[g]);
		if (total > budget)
			return spur_error_set(err, SPUR_ETOOBIG,
					      "hostlist '%s': expands to more than %u names", expr,
					      SPUR_HOSTLIST_MAX);
		val[g] = t->ranges[g][0].lo;
	}
	if (budget == 0)
		return spur_error_set(err, SPUR_ETOOBIG,
				      "hostlist '%s': expands to more than %u names", expr,
				      SPUR_HOSTLIST_MAX);
	for (;;) {
		size_t len = 0;
		size_t g;

		for (g = 0; g <= t->ngroups; g++) {
			int w;

			if (t->text_len[g] > sizeof(name) - 1 - len)
				goto too_long;
			memcpy(name + len, t->text[g], t->text_len[g]);
			len += t->text_len[g];
			if (g == t->ngroups)
				break;
			w = snprintf(name + len, sizeof(name) - len, "%0*llu",
				     t->ranges[g][ri[g]].width, val[g]);
			if (w < 0 || (size_t)w >= sizeof(name) - len)
				goto too_long;
			len += (size_t)w;
		}
		if (len == 0)
			return spur_error_set(err, SPUR_EPARSE, "hostlist '%s': empty host name",
					      expr);
		if (hl_append(hl, name, len))
			return spur_error_set(err, SPUR_ENOMEM, "hostlist: out of memory");
		/* Slurm's order: the last group fastest, then the first, the
		 * second...: a[0-1]b[2-3]c[4-5] gives a0b2c4 a0b2c5 a1b2c4 a1b2c5
		 * a0b3c4... */
		size_t k;

		for (k = 0; k < t->ngroups; k++) {
			g = k ? k - 1 : t->ngroups - 1;
			if (val[g] < t->ranges[g][ri[g]].hi) {
				val[g]++;
				break;
			}
			if (ri[g] + 1 < t->nranges[g]) {
				ri[g]++;
				val[g] = t->ranges[g][ri[g]].lo;
				break;
			}
			ri[g] = 0;
			val[g] = t->ranges[g][0].lo;
		}
		if (k == t->ngroups)
			return 0;
	}
too_long:
	return spur_error_set(err, SPUR_ETOOBIG, "hostlist '%s': a host name is longer than %d bytes",
			      expr, SPUR_HOSTNAME_MAX);
}

static int is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int spur_hostlist_push(struct spur_hostlist *hl, const char *expr, struct spur_error *err)
{
	size_t start_n = hl->n;
	const char *p = expr;
	int rc = 0;

	while (*p) {
		const char *tok;
		int depth = 0;
		struct hl_token t;

		while (*p && is_sep(*p))
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && (depth || !is_sep(*p))) {
			if (*p == '[')
				depth = 1;
			else if (*p == ']')
				depth = 0;
			p++;
		}
		rc = parse_token(expr, tok, (size_t)(p - tok), &t, err);
		if (rc)
			goto out_undo;
		rc = expand_token(expr, &t, hl, SPUR_HOSTLIST_MAX - (hl->n - start_n), err);
		token_fini(&t);
		if (rc)
			goto out_undo;
	}
	return 0;
out_undo:
	hl_truncate(hl, start_n);
	return rc;
}

struct spur_hostlist *spur_hostlist_from_expr(const char *expr, struct spur_error *err)
{
	struct spur_hostlist *hl = spur_hostlist_create();

	if (!hl) {
		spur_error_set(err, SPUR_ENOMEM, "hostlist: out of memory");
		return NULL;
	}
	if (spur_hostlist_push(hl, expr, err)) {
		spur_hostlist_destroy(hl);
		return NULL;
	}
	return hl;
}

/* ---------------------------------------------------------------- ordering */

int spur_hostname_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return 0;
}

static int name_qsort_cmp(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	int c = spur_hostname_cmp(a, b);

	return c ? c : strcmp(a, b);
}

void spur_hostlist_sort(struct spur_hostlist *hl)
{
	if (hl && hl->n > 1)
		spur__hostlist_sort_names(hl->names, hl->n);
}

void spur_hostlist_uniq(struct spur_hostlist *hl)
{
	size_t w = 0;

	if (!hl || hl->n < 2)
		return;
	qsort(hl->names, hl->n, sizeof(char *), name_qsort_cmp);
	for (size_t i = 0; i < hl->n; i++) {
		if (w && strcmp(hl->names[w - 1], hl->names[i]) == 0)
			spur_free(hl->names[i]);
		else
			hl->names[w++] = hl->names[i];
	}
	hl->n = w;
}
