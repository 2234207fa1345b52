/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's PostgreSQL database (libpq): one connection, the versioned
 * schema brought up to date at start (a database newer than this binary is
 * refused), and queries with parameters only (never text pasted into SQL).
 * A lost connection is retried once per call; a call that still fails
 * says CLOUD_DB_DOWN (the API answers 503) and changes nothing. */
#ifndef SPUR_CLOUD_DB_H
#define SPUR_CLOUD_DB_H

#include <jansson.h>
#include <stddef.h>

#define CLOUD_SCHEMA_VERSION 9

enum cloud_db_rc {
	CLOUD_DB_OK = 0,
	CLOUD_DB_DOWN = -1,	/* no connection to the server */
	CLOUD_DB_CONFLICT = -2, /* a unique key already there (23505) */
	CLOUD_DB_INVALID = -3,	/* a check or foreign key refused it, or a bad value (23xxx, 22xxx) */
	CLOUD_DB_ERROR = -4,	/* anything else: why says */
};

struct cloud_db;

/* Connect (conninfo as libpq takes it) and migrate: NULL with why. */
struct cloud_db *cloud_db_open(const char *conninfo, char *why, size_t wlen);
void cloud_db_close(struct cloud_db *db);

/* Run sql with n text parameters (NULL: SQL NULL); rows as an array of
 * objects, column name -> string (NULL -> json null), into *rows when
 * rows is not NULL. One statement, in its own transaction. */
int cloud_db_query(struct cloud_db *db, const char *sql, int n, const char *const *params,
		   json_t **rows, char *why, size_t wlen);

/* As cloud_db_query, the rows as JSON text (malloc'd; the same text
 * json_dumps(JSON_COMPACT) makes of cloud_db_query's rows) into *text. */
int cloud_db_query_text(struct cloud_db *db, const char *sql, int n, const char *const *params,
			char **text, char *why, size_t wlen);

/* Several statements in one transaction: each sql[i] with its params[i]
 * (n[i] of them); all or nothing. The rows of the last one into *rows. */
int cloud_db_tx(struct cloud_db *db, size_t count, const char *const *sql, const int *n,
		const char *const *const *params, json_t **rows, char *why, size_t wlen);

#endif
