/* SPDX-License-Identifier: Apache-2.0 */
/* Owns struct spur_conf_doc: lexing Slurm-style configuration text. */
#include "conf_lex.h"

#include "alloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_FILE_SIZE (16 * 1024 * 1024)

int spur_read_file(const char *path, char **out, size_t *len, struct spur_error *err)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!f)
		return spur_error_set(err, errno == ENOENT ? SPUR_ENOENT : SPUR_EIO, "%s: %s",
				      path, strerror(errno));
	for (;;) {
		size_t got;

		if (spur_grow((void **)&buf, &cap, n + 4096 + 1, 1)) {
			rc = spur_error_set(err, SPUR_ENOMEM, "%s: out of memory", path);
			goto out_close;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (n > MAX_FILE_SIZE) {
			rc = spur_error_set(err, SPUR_ETOOBIG, "%s: larger than 16 MiB", path);
			goto out_close;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = spur_error_set(err, SPUR_EIO, "%s: read error", path);
		goto out_close;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;
out_close:
	spur_free(buf);
	fclose(f);
	return rc;
}

static const char *doc_intern_file(struct spur_conf_doc *doc, const char *name)
{
	char *copy;

	if (spur_grow((void **)&doc->files, &doc->files_cap, doc->nfiles + 1, sizeof(char *)))
		return NULL;
	copy = spur_strdup(name);
	if (!copy)
		return NULL;
	doc->files[doc->nfiles++] = copy;
	return copy;
}

static void line_fini(struct spur_conf_line *l)
{
	for (size_t i = 0; i < l->n; i++) {
		spur_free(l->pairs[i].key);
		spur_free(l->pairs[i].value);
	}
	spur_free(l->pairs);
}

void spur_conf_doc_fini(struct spur_conf_doc *doc)
{
	for (size_t i = 0; i < doc->n; i++)
		line_fini(&doc->lines[i]);
	spur_free(doc->lines);
	for (size_t i = 0; i < doc->nfiles; i++)
		spur_free(doc->files[i]);
	spur_free(doc->files);
	memset(doc, 0, sizeof(*doc));
}

/* Join continuations and drop comments: logical line into `out`. Returns the
 * number of physical lines consumed. */
static size_t logical_line(const char *p, const char *end, char *out, size_t *outlen,
			   bool *too_long, const char **next)
{
	size_t n = 0, phys = 1;
	bool comment = false;

	*too_long = false;
	while (p < end && *p != '\n') {
		if (*p == '\\' && p + 1 < end && p[1] == '#' && !comment) {
			if (n < SPUR_CONF_MAX_LINE)
				out[n++] = '#';
			p += 2;
			continue;
		}
		if (!comment && *p == '\\' && (p + 1 == end || p[1] == '\n' ||
				   (p[1] == '\r' && p + 2 < end && p[2] == '\n'))) {
			/* continuation: skip the backslash and the newline */
			p += 1;
			if (p < end && *p == '\r')
				p++;
			if (p < end)
				p++;
			phys++;
			if (n < SPUR_CONF_MAX_LINE)
				out[n++] = ' ';
			continue;
		}
		if (*p == '#')
			comment = true;
		if (!comment && *p != '\r') {
			if (n < SPUR_CONF_MAX_LINE)
				out[n++] = *p;
			else
				*too_long = true;
		}
		p++;
	}
	if (p < end)
		p++; /* the newline */
	out[n] = '\0';
	*outlen = n;
	*next = p;
	return phys;
}

static int add_pair(struct spur_conf_line *l, const char *k, size_t klen, const char *v,
		    size_t vlen)
{
	struct spur_conf_pair pr;

	if (spur_grow((void **)&l->pairs, &l->cap, l->n + 1, sizeof(pr)))
		return SPUR_ENOMEM;
	pr.key = spur_strndup(k, klen);
	pr.value = spur_strndup(v, vlen);
	if (!pr.key || !pr.value) {
		spur_free(pr.key);
		spur_free(pr.value);
		return SPUR_ENOMEM;
	}
	l->pairs[l->n++] = pr;
	return 0;
}

static int do_include(struct spur_conf_doc *doc, const char *from, int lineno, const char *arg,
		      unsigned flags, struct spur_error *err)
{
	char path[4096];
	const char *slash = strrchr(from, '/');
	int rc;

	if (flags & SPUR_CONF_NO_INCLUDE)
		return spur_error_set(err, SPUR_EPERM, "%s:%d: Include is not allowed here", from,
				      lineno);
	if (!*arg)
		return spur_error_set(err, SPUR_EPARSE, "%s:%d: Include needs a file name", from,
				      lineno);
	if (doc->include_depth >= SPUR_CONF_MAX_INCLUDE_DEPTH)
		return spur_error_set(err, SPUR_EINVAL,
				      "%s:%d: Include nested more than %d deep (a loop?)", from,
				      lineno, SPUR_CONF_MAX_INCLUDE_DEPTH);
	if (arg[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - from), from, arg);
	doc->include_depth++;
	rc = spur_conf_lex_file(doc, path, flags, err);
	doc->include_depth--;
	if (rc)
		return spur_error_wrap(err, "%s:%d: Include", from, lineno);
	return 0;
}

/* Split a logical line into pairs. */
static int lex_pairs(struct spur_conf_line *l, const char *s, struct spur_error *err)
{
	const char *p = s;

	for (;;) {
		const char *k, *v;
		size_t klen, vlen;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		k = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '.'))
			p++;
		klen = (size_t)(p - k);
		while (*p == ' ' || *p == '\t')
			p++;
		if (klen == 0 || *p != '=')
			return spur_error_set(err, SPUR_EPARSE,
					      "%s:%d: expected Key=Value, found '%.40s'", l->file,
					      l->lineno, k);
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			v = ++p;
			while (*p && *p != '"')
				p++;
			if (!*p)
				return spur_error_set(err, SPUR_EPARSE,
						      "%s:%d: unterminated quote in value of %.*s",
						      l->file, l->lineno, (int)klen, k);
			vlen = (size_t)(p - v);
			p++;
		} else {
			v = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			vlen = (size_t)(p - v);
		}
		if (add_pair(l, k, klen, v, vlen))
			return spur_error_set(err, SPUR_ENOMEM, "config: out of memory");
	}
}

int spur_conf_lex_buf(struct spur_conf_doc *doc, const char *name, const char *text, size_t len,
		      unsigned flags, struct spur_error *err)
{
	const char *p = text, *end = text + len;
	const char *fname = doc_intern_file(doc, name);
	char *buf = spur_malloc(SPUR_CONF_MAX_LINE + 1);
	int lineno = 1, rc = 0;

	if (!fname || !buf) {
		rc = spur_error_set(err, SPUR_ENOMEM, "config: out of memory");
		goto out_free_buf;
	}
	if (memchr(text, '\0', len)) {
		rc = spur_error_set(err, SPUR_EPARSE, "%s: contains a NUL byte", name);
		goto out_free_buf;
	}
	while (p < end) {
		size_t n;
		bool too_long;
		int start = lineno;
		const char *s;
		struct spur_conf_line line = { fname, start, NULL, 0, 0 };

		lineno += (int)logical_line(p, end, buf, &n, &too_long, &p);
		if (too_long) {
			rc = spur_error_set(err, SPUR_ETOOBIG, "%s:%d: line longer than %d bytes",
					    name, start, SPUR_CONF_MAX_LINE);
			goto out_free_buf;
		}
		for (s = buf; isspace((unsigned char)*s); s++)
			;
		if (!*s)
			continue;
		if (!strncasecmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
			char *e;

			s += 8;
			while (isspace((unsigned char)*s))
				s++;
			for (e = buf + n; e > s && isspace((unsigned char)e[-1]); e--)
				;
			*e = '\0';
			rc = do_include(doc, fname, start, s, flags, err);
			if (rc)
				goto out_free_buf;
			continue;
		}
		rc = lex_pairs(&line, s, err);
		if (!rc && spur_grow((void **)&doc->lines, &doc->cap, doc->n + 1, sizeof(line)))
			rc = spur_error_set(err, SPUR_ENOMEM, "config: out of memory");
		if (rc) {
			line_fini(&line);
			goto out_free_buf;
		}
		doc->lines[doc->n++] = line;
	}
out_free_buf:
	spur_free(buf);
	return rc;
}

int spur_conf_lex_file(struct spur_conf_doc *doc, const char *path, unsigned flags,
		       struct spur_error *err)
{
	char *text;
	size_t len;
	int rc = spur_read_file(path, &text, &len, err);

	if (rc)
		return rc;
	rc = spur_conf_lex_buf(doc, path, text, len, flags, err);
	spur_free(text);
	return rc;
}
