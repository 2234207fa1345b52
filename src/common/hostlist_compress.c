/* SPDX-License-Identifier: Apache-2.0 */
/* Compression of a host list into its shortest bracketed form (the verb
 * "compress" of struct spur_hostlist; uses only the public list API). */
#include "hostlist.h"

#include "alloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HC_MAX_DIGITS 18

/* A name cut into text and number parts. A number part holds the sorted set
 * of values merged into it and the interval of zero-padding widths that
 * print every one of them exactly as it was written. */
struct hc_part {
	bool is_num;
	const char *text;
	size_t len;
	unsigned long long *vals;
	size_t nvals;
	int wmin, wmax;
};

struct hc_entry {
	struct hc_part *parts;
	size_t nparts;
	size_t first; /* index of the first name merged in: output order */
	char *key;
};

struct hc_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void buf_put(struct hc_buf *b, const char *s, size_t len)
{
	if (b->oom)
		return;
	if (spur_grow((void **)&b->s, &b->cap, b->len + len + 1, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

static void buf_num(struct hc_buf *b, int width, unsigned long long v)
{
	char tmp[48];
	int n = snprintf(tmp, sizeof(tmp), "%0*llu", width, v);

	buf_put(b, tmp, (size_t)n);
}

static void entry_fini(struct hc_entry *e)
{
	for (size_t i = 0; i < e->nparts; i++)
		spur_free(e->parts[i].vals);
	spur_free(e->parts);
	spur_free(e->key);
	memset(e, 0, sizeof(*e));
}

static int entry_parse(struct hc_entry *e, const char *name, size_t first)
{
	const char *p = name;
	size_t cap = 0;

	memset(e, 0, sizeof(*e));
	e->first = first;
	while (*p) {
		const char *q = p;
		struct hc_part part = { 0 };

		while (isdigit((unsigned char)*q))
			q++;
		if (q > p && q - p <= HC_MAX_DIGITS) {
			unsigned long long v = strtoull(p, NULL, 10);
			int len = (int)(q - p);

			part.is_num = true;
			part.vals = spur_malloc(sizeof(*part.vals));
			if (!part.vals)
				goto out_fini;
			part.vals[0] = v;
			part.nvals = 1;
			part.wmax = len;
			part.wmin = (len > 1 && *p == '0') ? len : 1;
		} else {
			/* text up to the next number short enough to merge */
			q = p;
			while (*q) {
				const char *d = q;

				while (isdigit((unsigned char)*d))
					d++;
				if (d > q && d - q <= HC_MAX_DIGITS && q > p)
					break;
				q = d > q ? d : q + 1;
			}
			part.text = p;
			part.len = (size_t)(q - p);
		}
		if (spur_grow((void **)&e->parts, &cap, e->nparts + 1, sizeof(part))) {
			spur_free(part.vals);
			goto out_fini;
		}
		e->parts[e->nparts++] = part;
		p = q;
	}
	return 0;
out_fini:
	entry_fini(e);
	return SPUR_ENOMEM;
}

static void render_part(struct hc_buf *b, const struct hc_part *p)
{
	size_t i = 0;

	if (!p->is_num) {
		buf_put(b, p->text, p->len);
		return;
	}
	if (p->nvals == 1) {
		buf_num(b, p->wmin, p->vals[0]);
		return;
	}
	buf_put(b, "[", 1);
	while (i < p->nvals) {
		size_t j = i;

		while (j + 1 < p->nvals && p->vals[j + 1] == p->vals[j] + 1)
			j++;
		if (i)
			buf_put(b, ",", 1);
		buf_num(b, p->wmin, p->vals[i]);
		if (j > i) {
			buf_put(b, "-", 1);
			buf_num(b, p->wmin, p->vals[j]);
		}
		i = j + 1;
	}
	buf_put(b, "]", 1);
}

/* Render every part but `skip` (use SIZE_MAX for none). */
static char *render_entry(const struct hc_entry *e, size_t skip)
{
	struct hc_buf b = { 0 };

	buf_put(&b, "", 0);
	for (size_t i = 0; i < e->nparts; i++) {
		if (i == skip)
			buf_put(&b, "\x01", 1);
		else
			render_part(&b, &e->parts[i]);
	}
	if (b.oom) {
		spur_free(b.s);
		return NULL;
	}
	return b.s;
}

/* Index of the k-th number part from the right, or SIZE_MAX. */
static size_t num_part_from_right(const struct hc_entry *e, size_t k)
{
	for (size_t i = e->nparts; i-- > 0;) {
		if (e->parts[i].is_num && k-- == 0)
			return i;
	}
	return SIZE_MAX;
}

static int entry_key_cmp(const void *x, const void *y)
{
	const struct hc_entry *a = x, *b = y;
	int c;

	if (!a->key || !b->key) {
		if (a->key != b->key)
			return a->key ? -1 : 1;
	} else if ((c = strcmp(a->key, b->key)) != 0) {
		return c;
	}
	return a->first < b->first ? -1 : a->first > b->first;
}

static int entry_first_cmp(const void *x, const void *y)
{
	const struct hc_entry *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

static int ull_cmp(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;

	return a < b ? -1 : a > b;
}

static void part_sort_unique(struct hc_part *p)
{
	size_t w = 0;

	qsort(p->vals, p->nvals, sizeof(*p->vals), ull_cmp);
	for (size_t i = 0; i < p->nvals; i++)
		if (!w || p->vals[w - 1] != p->vals[i])
			p->vals[w++] = p->vals[i];
	p->nvals = w;
}

/* Members of one group (equal but for part idx) join the first subgroup
 * whose width interval they overlap; each subgroup's leader takes all its
 * members' values in one allocation, the others are finalised. */
static int merge_group(struct hc_entry *g, size_t n, size_t idx)
{
	struct hc_sub {
		size_t leader, nvals;
		int wmin, wmax;
	} sub[2 * HC_MAX_DIGITS + 2];
	size_t nsub = 0, *which = spur_malloc(n * sizeof(size_t));

	if (!which)
		return SPUR_ENOMEM;
	for (size_t a = 0; a < n; a++) {
		const struct hc_part *p = &g[a].parts[idx];
		size_t s;

		for (s = 0; s < nsub; s++) {
			int lo = sub[s].wmin > p->wmin ? sub[s].wmin : p->wmin;
			int hi = sub[s].wmax < p->wmax ? sub[s].wmax : p->wmax;

			if (lo <= hi) {
				sub[s].wmin = lo;
				sub[s].wmax = hi;
				sub[s].nvals += p->nvals;
				break;
			}
		}
		/* widths are 1..18 digits, so intervals are few; fall back to a
		 * group of its own past that (never merged) */
		if (s == nsub && nsub < sizeof(sub) / sizeof(sub[0]))
			sub[nsub++] = (struct hc_sub){ a, p->nvals, p->wmin, p->wmax };
		which[a] = s;
	}
	for (size_t s = 0; s < nsub; s++) {
		struct hc_part *lp = &g[sub[s].leader].parts[idx];
		unsigned long long *v = spur_malloc(sub[s].nvals * sizeof(*v));
		size_t fill = 0;

		if (!v) {
			spur_free(which);
			return SPUR_ENOMEM;
		}
		for (size_t a = sub[s].leader; a < n; a++) {
			if (which[a] != s)
				continue;
			memcpy(v + fill, g[a].parts[idx].vals, g[a].parts[idx].nvals * sizeof(*v));
			fill += g[a].parts[idx].nvals;
		}
		for (size_t a = sub[s].leader + 1; a < n; a++)
			if (which[a] == s)
				entry_fini(&g[a]);
		spur_free(lp->vals);
		lp->vals = v;
		lp->nvals = fill;
		lp->wmin = sub[s].wmin;
		lp->wmax = sub[s].wmax;
		part_sort_unique(lp);
	}
	spur_free(which);
	return 0;
}

/* Merge entries equal except for their k-th number from the right. Entries
 * absorbed into another are finalised (nparts == 0) and compacted away. */
static int merge_pass(struct hc_entry *es, size_t *n, size_t k)
{
	size_t i, w;

	for (i = 0; i < *n; i++) {
		size_t idx = num_part_from_right(&es[i], k);

		if (idx != SIZE_MAX) {
			es[i].key = render_entry(&es[i], idx);
			if (!es[i].key)
				return SPUR_ENOMEM;
		}
	}
	qsort(es, *n, sizeof(*es), entry_key_cmp);
	for (i = 0; i < *n;) {
		size_t j = i + 1, idx;

		if (!es[i].key) {
			i++;
			continue;
		}
		while (j < *n && es[j].key && strcmp(es[j].key, es[i].key) == 0)
			j++;
		idx = num_part_from_right(&es[i], k);
		if (merge_group(es + i, j - i, idx))
			return SPUR_ENOMEM;
		i = j;
	}
	for (i = 0, w = 0; i < *n; i++) {
		if (!es[i].nparts)
			continue;
		spur_free(es[i].key);
		es[i].key = NULL;
		es[w++] = es[i];
	}
	memset(&es[w], 0, (*n - w) * sizeof(*es));
	*n = w;
	qsort(es, *n, sizeof(*es), entry_first_cmp);
	return 0;
}

/* By text, then by position, so the first of equal names sorts first. */
static int str_ptr_cmp(const void *x, const void *y)
{
	const char *const *a = *(const char *const *const *)x;
	const char *const *b = *(const char *const *const *)y;
	int c = strcmp(*a, *b);

	return c ? c : (a < b ? -1 : a > b);
}

char *spur_hostlist_compress(const struct spur_hostlist *hl, struct spur_error *err)
{
	size_t count = spur_hostlist_count(hl), n = 0, maxnum = 0;
	struct hc_entry *es = NULL;
	const char **names = NULL, ***sorted = NULL;
	struct hc_buf out = { 0 };
	char *result = NULL;
	bool *dup = NULL;

	es = spur_calloc(count, sizeof(*es));
	names = spur_calloc(count, sizeof(*names));
	sorted = spur_calloc(count, sizeof(*sorted));
	dup = spur_calloc(count, sizeof(*dup));
	if (!es || !names || !sorted || !dup)
		goto out_free;
	/* duplicates: keep the first occurrence only */
	for (size_t i = 0; i < count; i++) {
		names[i] = spur_hostlist_nth(hl, i);
		sorted[i] = &names[i];
	}
	qsort(sorted, count, sizeof(*sorted), str_ptr_cmp);
	for (size_t i = 1; i < count; i++)
		if (strcmp(*sorted[i], *sorted[i - 1]) == 0)
			dup[sorted[i] - names] = true;
	for (size_t i = 0; i < count; i++) {
		size_t nums = 0;

		if (dup[i])
			continue;
		if (entry_parse(&es[n], names[i], i))
			goto out_free;
		for (size_t p = 0; p < es[n].nparts; p++)
			nums += es[n].parts[p].is_num;
		maxnum = nums > maxnum ? nums : maxnum;
		n++;
	}
	for (size_t k = 0; k < maxnum; k++)
		if (merge_pass(es, &n, k))
			goto out_free;
	buf_put(&out, "", 0);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_put(&out, ",", 1);
		for (size_t p = 0; p < es[i].nparts; p++)
			render_part(&out, &es[i].parts[p]);
	}
	if (!out.oom) {
		result = out.s;
		out.s = NULL;
	}
out_free:
	spur_free(out.s);
	for (size_t i = 0; es && i < count; i++)
		entry_fini(&es[i]);
	spur_free(es);
	spur_free(names);
	spur_free(sorted);
	spur_free(dup);
	if (!result)
		spur_error_set(err, SPUR_ENOMEM, "hostlist: out of memory");
	return result;
}
