/* SPDX-License-Identifier: Apache-2.0 */
/* Lexer for Slurm's configuration syntax: lines of Key=Value pairs. */
#ifndef SPUR_COMMON_CONF_LEX_H
#define SPUR_COMMON_CONF_LEX_H

#include "error.h"

#include <stddef.h>

struct spur_conf_pair {
	char *key;
	char *value;
};

/* One logical line (continuations joined) with its origin. */
struct spur_conf_line {
	const char *file; /* borrowed from the doc's file table */
	int lineno;       /* first physical line */
	struct spur_conf_pair *pairs;
	size_t n, cap;
};

/* All lines of a file and the files it includes, in reading order. */
struct spur_conf_doc {
	struct spur_conf_line *lines;
	size_t n, cap;
	char **files;
	size_t nfiles, files_cap;
	int include_depth;
};

enum spur_conf_lex_flags_b {
	SPUR_CONF_NO_INCLUDE = 1 << 0, /* "Include" is an error (fuzzing, untrusted text) */
};

#define SPUR_CONF_MAX_LINE (64 * 1024)
#define SPUR_CONF_MAX_INCLUDE_DEPTH 8

/* Lex text from memory; `name` is used in messages and to resolve relative
 * Include paths. Rules: '#' starts a comment unless written "\#"; a line
 * ending in '\' continues on the next; pairs are separated by white space;
 * a value may be in double quotes; "Include PATH" (any case) reads another
 * file in place. Errors carry "file:line: reason". On error the doc keeps
 * the lines lexed so far; destroy it. */
int spur_conf_lex_buf(struct spur_conf_doc *doc, const char *name, const char *text, size_t len,
		      unsigned flags, struct spur_error *err);

/* Read and lex a file. */
int spur_conf_lex_file(struct spur_conf_doc *doc, const char *path, unsigned flags,
		       struct spur_error *err);

void spur_conf_doc_fini(struct spur_conf_doc *doc);

/* Read a whole file into a NUL-terminated buffer (caller frees). At most
 * 16 MiB. */
int spur_read_file(const char *path, char **out, size_t *len, struct spur_error *err);

#endif
