/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's Fair Tree: at each level of the account tree, siblings (sub-
 * accounts and users' associations) are ordered by LevelFS = S / U, their
 * share of the siblings' shares over their share of the siblings' usage
 * (infinite with no usage); a depth-first walk in that order ranks the
 * users, and each user's factor is rank / users: the first walked gets 1.
 * Ties as Slurm's fair_tree.html says (walk()). */
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

/* LevelFS of the siblings first, first->next...: S / U among them. */
static size_t level_fs(struct ft *t, int32_t first)
{
	double sh = 0, us = 0;
	size_t n = 0;

	for (int32_t k = first; k >= 0; k = t->v[k].next, n++) {
		sh += t->v[k].shares;
		us += t->v[k].usage;
	}
	for (int32_t k = first; k >= 0; k = t->v[k].next) {
		struct ft_node *c = &t->v[k];
		double u = us > 0 ? c->usage / us : 0;

		c->level_fs = u > 0 ? (c->shares / sh) / u : INFINITY;
	}
	return n;
}

/* Rank the nodes of kids (LevelFS set against their own siblings) in
 * descending LevelFS, depth first. Ties, as Slurm's: sibling users of
 * equal LevelFS share a rank; a user tied with a sibling account gets the
 * rank of that account's highest user; tied accounts have their children
 * merged before the walk goes down. */
static int walk(struct ft *t, struct ft_node **kids, size_t n)
{
	qsort(kids, n, sizeof(*kids), by_level_fs);
	for (size_t i = 0, k; i < n; i = k) {
		struct ft_node **merged = NULL;
		size_t users = 0, nm = 0, cap = 0;
		uint32_t r0 = t->rank;

		for (k = i; k < n && kids[k]->level_fs == kids[i]->level_fs; k++) {
			if (kids[k]->ua >= 0) {
				users++;
				continue;
			}
			nm += level_fs(t, kids[k]->first);
		}
		if (nm) {
			merged = spur_malloc(nm * sizeof(*merged));
			if (!merged)
				return SPUR_ENOMEM;
			for (size_t g = i; g < k; g++)
				for (int32_t c = kids[g]->ua < 0 ? kids[g]->first : -1; c >= 0;
				     c = t->v[c].next)
					merged[cap++] = &t->v[c];
			if (walk(t, merged, nm)) {
				spur_free(merged);
				return SPUR_ENOMEM;
			}
			spur_free(merged);
		}
		for (size_t g = i; g < k; g++)
			if (kids[g]->ua >= 0)
				t->s->uassocs[kids[g]->ua].fs = t->users ? (double)r0 / t->users : 0;
		t->rank -= (uint32_t)users;
	}
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
	{
		size_t n = level_fs(&t, root), i = 0;
		struct ft_node **top = spur_malloc((n + 1) * sizeof(*top));

		for (int32_t k = root; top && k >= 0; k = t.v[k].next)
			top[i++] = &t.v[k];
		ok = top && walk(&t, top, n) == 0;
		spur_free(top);
	}
out:
	spur_free(t.v);
	spur_free(node_of);
	return ok;
}
