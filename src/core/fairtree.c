/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's Fair Tree: at each level of the account tree, siblings (sub-
 * accounts and users' associations) are ordered by LevelFS = S / U, their
 * share of the siblings' shares over their share of the siblings' usage
 * (infinite with no usage); a depth-first walk in that order ranks the
 * users, and each user's factor is rank / users: the first walked gets 1.
 * Users of equal LevelFS under one account share a rank. */
#include "internal.h"

#include "common/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A node of the walk: an account (acct >= 0) or an association (ua >= 0). */
struct ft_node {
	int acct, ua;
	double shares, usage, level_fs;
	int32_t first, next; /* children, siblings: indexes, -1 */
};

struct ft {
	struct sched *s;
	struct ft_node *v;
	size_t n;
	uint32_t users, rank;
};

static int by_level_fs(const void *a, const void *b)
{
	const struct ft_node *x = *(const struct ft_node *const *)a,
			     *y = *(const struct ft_node *const *)b;

	return x->level_fs < y->level_fs ? 1 : x->level_fs > y->level_fs ? -1 : 0;
}

/* Subtree usage of node i (accounts: their own, which holds their users',
 * and their sub-accounts'). */
static double subtree_usage(struct ft *t, int32_t i)
{
	struct ft_node *n = &t->v[i];

	if (n->acct < 0)
		return n->usage;
	n->usage = t->s->accounts[n->acct].usage;
	for (int32_t k = n->first; k >= 0; k = t->v[k].next)
		if (t->v[k].acct >= 0)
			n->usage += subtree_usage(t, k);
	return n->usage;
}

static int walk(struct ft *t, int32_t first)
{
	double sh = 0, us = 0, prev = -1;
	size_t n = 0, i = 0;
	struct ft_node **kids;
	uint32_t tie_rank = 0;

	for (int32_t k = first; k >= 0; k = t->v[k].next, n++) {
		sh += t->v[k].shares;
		us += t->v[k].usage;
	}
	if (!n)
		return 0;
	kids = spur_malloc(n * sizeof(*kids));
	if (!kids)
		return SPUR_ENOMEM;
	for (int32_t k = first; k >= 0; k = t->v[k].next) {
		struct ft_node *c = &t->v[k];
		double u = us > 0 ? c->usage / us : 0;

		c->level_fs = u > 0 ? (c->shares / sh) / u : INFINITY;
		kids[i++] = c;
	}
	qsort(kids, n, sizeof(*kids), by_level_fs);
	for (i = 0; i < n; i++) {
		struct ft_node *c = kids[i];

		if (c->ua >= 0) {
			/* equal LevelFS, equal rank */
			uint32_t r = prev == c->level_fs && tie_rank ? tie_rank : t->rank;

			t->s->uassocs[c->ua].fs = t->users ? (double)r / t->users : 0;
			tie_rank = r;
			prev = c->level_fs;
			t->rank--;
		} else if (walk(t, c->first)) {
			spur_free(kids);
			return SPUR_ENOMEM;
		}
	}
	spur_free(kids);
	return 0;
}

bool core_fairtree_update(struct sched *s)
{
	struct ft t = { .s = s };
	int32_t *node_of = NULL, root = -1;
	bool ok = false;

	t.v = spur_calloc(s->naccounts + s->nuassocs + 1, sizeof(*t.v));
	node_of = spur_malloc((s->naccounts + 1) * sizeof(*node_of));
	if (!t.v || !node_of)
		goto out;
	for (size_t a = 0; a < s->naccounts; a++) {
		node_of[a] = -1;
		if (s->accounts[a].deleted || !s->accounts[a].declared)
			continue;
		node_of[a] = (int32_t)t.n;
		t.v[t.n++] = (struct ft_node){ .acct = (int)a, .ua = -1, .shares = s->accounts[a].shares,
					       .first = -1, .next = -1 };
	}
	for (size_t u = 0; u < s->nuassocs; u++) {
		int a = s->uassocs[u].account;

		if (s->uassocs[u].deleted || node_of[a] < 0)
			continue;
		t.v[t.n] = (struct ft_node){ .acct = -1, .ua = (int)u, .shares = s->uassocs[u].shares,
					     .usage = s->uassocs[u].usage, .first = -1 };
		t.v[t.n].next = t.v[node_of[a]].first;
		t.v[node_of[a]].first = (int32_t)t.n++;
		t.users++;
	}
	for (size_t a = 0; a < s->naccounts; a++) {
		int32_t i = node_of[a], p;

		if (i < 0)
			continue;
		p = s->accounts[a].parent >= 0 ? node_of[s->accounts[a].parent] : -1;
		if (p >= 0) {
			t.v[i].next = t.v[p].first;
			t.v[p].first = i;
		} else {
			t.v[i].next = root;
			root = i;
		}
	}
	if (!t.users)
		goto out;
	for (int32_t k = root; k >= 0; k = t.v[k].next)
		subtree_usage(&t, k);
	t.rank = t.users;
	ok = walk(&t, root) == 0;
out:
	spur_free(t.v);
	spur_free(node_of);
	return ok;
}
