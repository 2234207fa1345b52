/* SPDX-License-Identifier: Apache-2.0 */
/* srun --multi-prog's configuration: Slurm's format and words (srun's
 * check in multi_prog.c, slurmstepd's argv in its own multi_prog.c). */
#include "common/mpmd.h"

#include "common/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most ranks a file may name: past it a rank is refused as invalid. */
#define MPMD_RANK_MAX (1 << 20)

/* One logical line: its text (continuations joined), its first physical
 * line's number. */
struct line {
	char *text;
	int num;
};

/* The next logical line of *pos (a line ending in '\' goes on in the
 * next, the backslash and newline dropped): a copy in l->text, or NULL
 * text at the end. 0, or SPUR_ENOMEM. */
static int next_line(const char **pos, int *num, struct line *l)
{
	const char *p = *pos;
	size_t cap = 64, n = 0;

	l->text = NULL;
	if (!*p)
		return 0;
	if (!(l->text = spur_malloc(cap)))
		return SPUR_ENOMEM;
	l->num = ++*num;
	for (; *p; p++) {
		if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
			p += p[1] == '\r' ? 2 : 1;
			++*num;
			continue;
		}
		if (*p == '\n') {
			p++;
			break;
		}
		if (n + 2 > cap) {
			char *t = spur_realloc(l->text, cap *= 2);

			if (!t) {
				spur_free(l->text);
				l->text = NULL;
				return SPUR_ENOMEM;
			}
			l->text = t;
		}
		l->text[n++] = *p;
	}
	l->text[n] = '\0';
	*pos = p;
	return 0;
}

/* The line's ranks field and the rest after it (NULL when the line is a
 * comment or blank). The ranks field is cut in place. */
static char *split_ranks(char *text, char **rest)
{
	char *p = text, *ranks;

	while (isspace((unsigned char)*p))
		p++;
	*rest = NULL;
	if (*p == '#' || !*p)
		return NULL;
	ranks = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		*p++ = '\0';
	while (isspace((unsigned char)*p))
		p++;
	*rest = p;
	return ranks;
}

/* What srun's check keeps: the tasks named so far. */
struct seen {
	unsigned char *bits;
	int n;		/* the task count */
	bool n_fixed;	/* by the user, or by "*" */
	bool star;	/* "*" came: it must be the last */
};

static int seen_mark(struct seen *s, long low, long high, bool dups_ok, struct spur_error *err)
{
	if (low > high)
		return spur_error_set(err, SPUR_EPARSE, "Invalid task range, %ld-%ld", low, high);
	if (high >= s->n) {
		unsigned char *b;

		if (s->n_fixed || high >= MPMD_RANK_MAX)
			return spur_error_set(err, SPUR_EPARSE, "Invalid task id, %ld >= ntasks",
					      high);
		if (!(b = spur_realloc(s->bits, (size_t)high + 1)))
			return spur_error_set(err, SPUR_ENOMEM, "out of memory");
		memset(b + s->n, 0, (size_t)(high + 1 - s->n));
		s->bits = b;
		s->n = (int)high + 1;
	}
	for (long i = low; i <= high; i++) {
		if (s->bits[i] && !dups_ok)
			return spur_error_set(err, SPUR_EPARSE, "Duplicate record for task %ld", i);
		s->bits[i] = 1;
	}
	return 0;
}

/* A rank number of the field (digits only), or -1. */
static long rank_num(const char *s, const char **end)
{
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		v = v > MPMD_RANK_MAX ? v : v * 10 + (*s - '0');
	*end = s;
	return v;
}

static int check_ranks(struct seen *s, char *ranks, struct spur_error *err)
{
	char *save = NULL;

	if (!strcmp(ranks, "*")) {
		s->n_fixed = s->star = true;
		return seen_mark(s, 0, s->n - 1, true, err);
	}
	for (char *r = strtok_r(ranks, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		const char *end = r;
		long low = rank_num(r, &end), high = low;
		int rc;

		if (s->star)
			return spur_error_set(err, SPUR_EPARSE,
					      "Task range specification with asterisk must be last");
		if (low >= 0 && *end == '-') {
			high = rank_num(end + 1, &end);
			if (high < 0 || *end)
				return spur_error_set(err, SPUR_EPARSE,
						      "Invalid task range specification");
		} else if (low < 0 || *end) {
			return spur_error_set(err, SPUR_EPARSE,
					      "Invalid task range specification (%s)", r);
		}
		if ((rc = seen_mark(s, low, high, false, err)))
			return rc;
	}
	return 0;
}

int spur_mpmd_check(const char *data, const char *fname, int *ntasks, bool ntasks_set,
		    struct spur_error *err)
{
	struct seen s = { .n = *ntasks, .n_fixed = ntasks_set };
	const char *pos = data;
	struct line l;
	int num = 0, rc = 0;

	if (*ntasks <= 0)
		return spur_error_set(err, SPUR_EPARSE, "Invalid task count %d", *ntasks);
	if (!(s.bits = spur_calloc((size_t)s.n, 1)))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	while (!(rc = next_line(&pos, &num, &l)) && l.text) {
		char *rest, *ranks = split_ranks(l.text, &rest);
		struct spur_error why;

		if (ranks && !*rest)
			rc = spur_error_set(err, SPUR_EPARSE, "Line %d of configuration file %s invalid",
					    l.num, fname);
		else if (ranks && (rc = check_ranks(&s, ranks, &why)))
			spur_error_set(err, rc, "%s\nLine %d of configuration file %s invalid",
				       why.msg, l.num, fname);
		spur_free(l.text);
		if (rc)
			goto out;
	}
	if (rc) {
		spur_error_set(err, rc, "out of memory");
		goto out;
	}
	for (int i = 0; i < s.n; i++)
		if (!s.bits[i]) {
			rc = spur_error_set(err, SPUR_EPARSE,
					    "Configuration file %s invalid, no record for task id %d",
					    fname, i);
			goto out;
		}
	*ntasks = s.n;
out:
	spur_free(s.bits);
	return rc;
}

/* Whether rank is in spec, and its offset there (slurmstepd's _in_range:
 * a malformed range is passed over). */
static bool in_ranks(int rank, const char *spec, int *offset)
{
	const char *p = spec;
	long passed = 0;

	if (!strcmp(spec, "*")) {
		*offset = rank;
		return true;
	}
	while (*p) {
		const char *end = p;
		long low = rank_num(p, &end), high = low;

		if (low >= 0 && *end == '-')
			high = rank_num(end + 1, &end);
		if (low >= 0 && high >= low && (!*end || *end == ',')) {
			if (rank >= low && rank <= high) {
				*offset = (int)(passed + rank - low);
				return true;
			}
			passed += high - low + 1;
		}
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return false;
}

/* A growing argv and the argument being built. */
struct args {
	char **v;
	size_t n, cap;
	char *cur;
	size_t len, curcap;
	bool open; /* cur is an argument (it may be empty: '') */
};

static int args_putc(struct args *a, char c)
{
	if (a->len + 2 > a->curcap) {
		size_t cap = a->curcap ? a->curcap * 2 : 32;
		char *t = spur_realloc(a->cur, cap);

		if (!t)
			return SPUR_ENOMEM;
		a->cur = t;
		a->curcap = cap;
	}
	a->cur[a->len++] = c;
	a->cur[a->len] = '\0';
	a->open = true;
	return 0;
}

static int args_puts(struct args *a, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (args_putc(a, s[i]))
			return SPUR_ENOMEM;
	return 0;
}

/* Ends the argument being built (if any) and adds it, or adds s when
 * given. */
static int args_push(struct args *a, const char *s)
{
	char *arg;

	if (!s && !a->open)
		return 0;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		char **t = spur_realloc(a->v, cap * sizeof(*t));

		if (!t)
			return SPUR_ENOMEM;
		a->v = t;
		a->cap = cap;
		a->v[a->n] = NULL;
	}
	arg = spur_strdup(s ? s : a->cur ? a->cur : "");
	if (!arg)
		return SPUR_ENOMEM;
	a->v[a->n++] = arg;
	a->v[a->n] = NULL;
	if (!s) {
		a->len = 0;
		a->open = false;
	}
	return 0;
}

/* The line's program and arguments, as slurmstepd splits them. */
static int parse_args(struct args *a, const char *p, int rank, int offset, struct spur_error *err)
{
	char num[16];
	int rc = 0;

	while (*p && !rc) {
		if (isspace((unsigned char)*p)) {
			rc = args_push(a, NULL);
			p++;
		} else if (*p == '%') {
			/* %t: the rank, %o: the offset; any other: dropped */
			if (p[1] == 't' || p[1] == 'o') {
				snprintf(num, sizeof(num), "%d", p[1] == 't' ? rank : offset);
				rc = args_puts(a, num, strlen(num));
			}
			p += p[1] ? 2 : 1;
		} else if (*p == '\\') {
			rc = p[1] ? args_putc(a, p[1]) : 0;
			p += p[1] ? 2 : 1;
		} else if (*p == '\'') {
			const char *close = strchr(p + 1, '\'');

			if (!close)
				return spur_error_set(err, SPUR_EPARSE,
						      "Program arguments specification format invalid: %s.",
						      p);
			rc = args_puts(a, p + 1, (size_t)(close - p - 1));
			a->open = true;
			p = close + 1;
		} else {
			rc = args_putc(a, *p++);
		}
	}
	if (!rc)
		rc = args_push(a, NULL);
	return rc ? spur_error_set(err, rc, "out of memory") : 0;
}

void spur_mpmd_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		spur_free(argv[i]);
	spur_free(argv);
}

int spur_mpmd_argv(const char *data, int rank, char *const *extra, char ***argv,
		   struct spur_error *err)
{
	struct args a = { 0 };
	const char *pos = data;
	struct line l;
	int num = 0, rc, offset = 0;
	bool found = false;

	*argv = NULL;
	while (!found && !(rc = next_line(&pos, &num, &l)) && l.text) {
		char *rest, *ranks = split_ranks(l.text, &rest);

		if (ranks && !*rest)
			rc = spur_error_set(err, SPUR_EPARSE, "Invalid MPMD configuration line %d",
					    l.num);
		else if (ranks && in_ranks(rank, ranks, &offset)) {
			found = true;
			rc = parse_args(&a, rest, rank, offset, err);
		}
		spur_free(l.text);
		if (rc)
			goto fail;
	}
	if (rc) {
		spur_error_set(err, rc, "out of memory");
		goto fail;
	}
	if (!found || !a.n) { /* no line names it, or its line names nothing */
		rc = spur_error_set(err, found ? SPUR_EPARSE : SPUR_ENOENT,
				    "Program for task rank %d not specified.", rank);
		goto fail;
	}
	for (size_t i = 0; extra && extra[i]; i++)
		if (args_push(&a, extra[i])) {
			rc = spur_error_set(err, SPUR_ENOMEM, "out of memory");
			goto fail;
		}
	spur_free(a.cur);
	*argv = a.v;
	return 0;
fail:
	spur_free(a.cur);
	spur_mpmd_argv_free(a.v);
	return rc;
}
