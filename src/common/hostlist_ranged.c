/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's own hostlist printing and sorting (the verbs "ranged" and "sort"
 * of struct spur_hostlist; uses only the public list API). */
#include "hostlist.h"

#include "alloc.h"
#include "hostlist_int.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SR_MAX_DIGITS 18

/* A name split as Slurm does: prefix and trailing number. */
struct sr_name {
	const char *name;
	size_t plen;    /* prefix length */
	bool numeric;   /* has a trailing number */
	unsigned long long num;
	int wmin, wmax; /* widths that print num as written */
};

static void sr_split(const char *name, struct sr_name *out)
{
	size_t len = strlen(name), d = len;

	while (d > 0 && isdigit((unsigned char)name[d - 1]) && len - d < SR_MAX_DIGITS)
		d--;
	out->name = name;
	out->plen = d;
	out->numeric = d < len;
	out->num = out->numeric ? strtoull(name + d, NULL, 10) : 0;
	out->wmax = (int)(len - d);
	out->wmin = (len - d > 1 && name[d] == '0') ? out->wmax : 1;
}

/* One Slurm hostrange: prefix + [lo, hi] printed with one width. */
struct sr_range {
	const char *prefix;
	size_t plen;
	bool numeric;
	unsigned long long lo, hi;
	int wmin, wmax;
};

static bool same_prefix(const struct sr_range *r, const char *p, size_t plen, bool numeric)
{
	return r->numeric == numeric && r->plen == plen && !memcmp(r->prefix, p, plen);
}

struct sr_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_put(struct sr_buf *b, const char *s, size_t n)
{
	if (b->oom || spur_grow((void **)&b->s, &b->cap, b->len + n + 1, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_range(struct sr_buf *b, const struct sr_range *r)
{
	char tmp[64];
	int n;

	if (r->lo == r->hi)
		n = snprintf(tmp, sizeof(tmp), "%0*llu", r->wmin, r->lo);
	else
		n = snprintf(tmp, sizeof(tmp), "%0*llu-%0*llu", r->wmin, r->lo, r->wmin, r->hi);
	sb_put(b, tmp, (size_t)n);
}

static char *ranged_names(const struct spur_hostlist *hl, const size_t *order,
			  struct spur_error *err)
{
	size_t count = spur_hostlist_count(hl), nr = 0;
	struct sr_range *rs = spur_calloc(count + 1, sizeof(*rs));
	struct sr_buf b = { 0 };

	if (!rs)
		goto out_oom;
	for (size_t i = 0; i < count; i++) {
		struct sr_name n;
		struct sr_range *last = nr ? &rs[nr - 1] : NULL;

		sr_split(spur_hostlist_nth(hl, order ? order[i] : i), &n);
		if (last && n.numeric && same_prefix(last, n.name, n.plen, true) &&
		    last->hi + 1 == n.num && (last->wmin > n.wmin ? last->wmin : n.wmin) <=
						     (last->wmax < n.wmax ? last->wmax : n.wmax)) {
			last->hi = n.num;
			last->wmin = last->wmin > n.wmin ? last->wmin : n.wmin;
			last->wmax = last->wmax < n.wmax ? last->wmax : n.wmax;
			continue;
		}
		rs[nr++] = (struct sr_range){ n.name, n.plen, n.numeric, n.num, n.num, n.wmin, n.wmax };
	}
	sb_put(&b, "", 0);
	for (size_t i = 0; i < nr;) {
		size_t j = i + 1;

		if (i)
			sb_put(&b, ",", 1);
		sb_put(&b, rs[i].prefix, rs[i].plen);
		if (!rs[i].numeric) {
			i++;
			continue;
		}
		while (j < nr && same_prefix(&rs[j], rs[i].prefix, rs[i].plen, true))
			j++;
		if (j == i + 1 && rs[i].lo == rs[i].hi) {
			sb_range(&b, &rs[i]);
		} else {
			sb_put(&b, "[", 1);
			for (size_t k = i; k < j; k++) {
				if (k > i)
					sb_put(&b, ",", 1);
				sb_range(&b, &rs[k]);
			}
			sb_put(&b, "]", 1);
		}
		i = j;
	}
	spur_free(rs);
	if (!b.oom)
		return b.s;
	spur_free(b.s);
out_oom:
	spur_error_set(err, SPUR_ENOMEM, "hostlist: out of memory");
	return NULL;
}

char *spur_hostlist_ranged(const struct spur_hostlist *hl, struct spur_error *err)
{
	return ranged_names(hl, NULL, err);
}

static int sr_cmp(const char *a, const char *b)
{
	struct sr_name x, y;
	int c;

	sr_split(a, &x);
	sr_split(b, &y);
	c = memcmp(x.name, y.name, x.plen < y.plen ? x.plen : y.plen);
	if (c || x.plen != y.plen)
		return c ? c : (x.plen < y.plen ? -1 : 1);
	if (x.numeric != y.numeric)
		return x.numeric ? 1 : -1;
	if (x.num != y.num)
		return x.num < y.num ? -1 : 1;
	return x.wmax - y.wmax;
}

static int sr_qsort_cmp(const void *a, const void *b)
{
	return sr_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* hostlist.c owns the array and hands it over for sorting. */
void spur__hostlist_sort_names(char **names, size_t n)
{
	qsort(names, n, sizeof(char *), sr_qsort_cmp);
}
