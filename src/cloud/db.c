/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's database (db.h). */
#include "cloud/db.h"
#include "common/log.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cloud_db {
	PGconn *conn;
};

/* Each version's statements, applied in order in one transaction with the
 * new version number. Money is integer micro-units; names are checked. */
static const char *const migrations[CLOUD_SCHEMA_VERSION] = {
	/* 1: who, where, with what key */
	"CREATE TABLE orgs ("
	"  id bigserial PRIMARY KEY,"
	"  name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),"
	"  created timestamptz NOT NULL DEFAULT now());"
	"CREATE TABLE users ("
	"  id bigserial PRIMARY KEY,"
	"  email text NOT NULL UNIQUE CHECK (length(email) <= 254 AND email ~ '^[^@ ]+@[^@ ]+$'),"
	"  pw_hash text NOT NULL,"
	"  is_admin boolean NOT NULL DEFAULT false,"
	"  created timestamptz NOT NULL DEFAULT now());"
	"CREATE TABLE members ("
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  user_id bigint NOT NULL REFERENCES users ON DELETE CASCADE,"
	"  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),"
	"  PRIMARY KEY (org_id, user_id));"
	"CREATE TABLE projects ("
	"  id bigserial PRIMARY KEY,"
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  name text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),"
	"  account text NOT NULL CHECK (account ~ '^[A-Za-z0-9_.-]{1,64}$'),"
	"  created timestamptz NOT NULL DEFAULT now(),"
	"  UNIQUE (org_id, name));"
	"CREATE TABLE tokens ("
	"  id bigserial PRIMARY KEY,"
	"  user_id bigint NOT NULL REFERENCES users ON DELETE CASCADE,"
	"  prefix text NOT NULL UNIQUE CHECK (prefix ~ '^[0-9a-f]{16}$'),"
	"  hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),"
	"  kind text NOT NULL CHECK (kind IN ('login', 'api')),"
	"  name text NOT NULL DEFAULT '' CHECK (length(name) <= 64),"
	"  scope text NOT NULL CHECK (scope IN ('read', 'write')),"
	"  created timestamptz NOT NULL DEFAULT now(),"
	"  expires timestamptz,"
	"  revoked timestamptz);",
	/* 2: GPU sessions, each a Spur job */
	"CREATE TABLE sessions ("
	"  id bigserial PRIMARY KEY,"
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  project_id bigint NOT NULL REFERENCES projects ON DELETE CASCADE,"
	"  user_id bigint NOT NULL REFERENCES users ON DELETE CASCADE,"
	"  name text NOT NULL DEFAULT '' CHECK (length(name) <= 64),"
	"  gpus int NOT NULL CHECK (gpus BETWEEN 0 AND 64),"
	"  gpu_type text NOT NULL DEFAULT '' CHECK (gpu_type ~ '^[a-z0-9_]{0,32}$'),"
	"  template text NOT NULL CHECK (template IN ('command')),"
	"  command text NOT NULL CHECK (length(command) BETWEEN 1 AND 4096),"
	"  time_limit int NOT NULL CHECK (time_limit BETWEEN 1 AND 10080),"
	"  job_id bigint,"
	"  state text NOT NULL CHECK (state IN ('requested', 'queued', 'running', 'stopping', 'ended')),"
	"  outcome text CHECK (outcome IN ('completed', 'failed', 'cancelled', 'timeout', 'unknown')),"
	"  reason text NOT NULL DEFAULT '',"
	"  created timestamptz NOT NULL DEFAULT now(),"
	"  ended timestamptz);"
	"CREATE INDEX sessions_live ON sessions (org_id) WHERE state <> 'ended';",
	/* 3: GPU quotas per organisation (gpu_type '': all types together) */
	"CREATE TABLE quotas ("
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  gpu_type text NOT NULL DEFAULT '' CHECK (gpu_type ~ '^[a-z0-9_]{0,32}$'),"
	"  max_gpus int NOT NULL CHECK (max_gpus >= 0),"
	"  max_gpus_per_user int CHECK (max_gpus_per_user >= 0),"
	"  PRIMARY KEY (org_id, gpu_type));",
	/* 4: prices, metering (a cursor per session, a unique key per session
	 * and interval), credit budgets */
	"ALTER TABLE sessions ADD COLUMN metered_until bigint,"
	"  ADD COLUMN metered_done boolean NOT NULL DEFAULT false;"
	"CREATE INDEX sessions_unmetered ON sessions (id) WHERE job_id IS NOT NULL AND NOT "
	"  metered_done;"
	"ALTER TABLE orgs ADD COLUMN budgeted boolean NOT NULL DEFAULT false;"
	"CREATE TABLE prices ("
	"  id bigserial PRIMARY KEY,"
	"  resource text NOT NULL CHECK (resource IN ('gpu', 'cpu')),"
	"  gpu_type text NOT NULL DEFAULT '' CHECK (gpu_type ~ '^[a-z0-9_]{0,32}$'),"
	"  per_hour bigint NOT NULL CHECK (per_hour BETWEEN 0 AND 1000000000000),"
	"  valid_from timestamptz NOT NULL,"
	"  valid_until timestamptz CHECK (valid_until > valid_from),"
	"  CHECK (resource = 'gpu' OR gpu_type = ''));"
	"CREATE TABLE usage ("
	"  id bigserial PRIMARY KEY,"
	"  session_id bigint NOT NULL REFERENCES sessions ON DELETE CASCADE,"
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  project_id bigint NOT NULL REFERENCES projects ON DELETE CASCADE,"
	"  user_id bigint NOT NULL REFERENCES users ON DELETE CASCADE,"
	"  job_id bigint NOT NULL,"
	"  gpu_type text NOT NULL,"
	"  gpus int NOT NULL CHECK (gpus >= 0),"
	"  cpus int NOT NULL CHECK (cpus >= 0),"
	"  t0 bigint NOT NULL,"
	"  t1 bigint NOT NULL,"
	"  seconds bigint NOT NULL,"
	"  cost bigint NOT NULL,"
	"  correction boolean NOT NULL,"
	"  CHECK (CASE WHEN correction THEN seconds = t0 - t1 AND t1 > t0 ELSE seconds = t1 - t0 "
	"    AND t1 > t0 END),"
	"  UNIQUE (session_id, t0, correction));"
	"CREATE INDEX usage_org ON usage (org_id, t0);"
	"CREATE TABLE credits ("
	"  id bigserial PRIMARY KEY,"
	"  org_id bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,"
	"  amount bigint NOT NULL CHECK (amount <> 0),"
	"  note text NOT NULL DEFAULT '' CHECK (length(note) <= 200),"
	"  created timestamptz NOT NULL DEFAULT now());",
	/* 5: the shell and image templates; a session's idle limit */
	"ALTER TABLE sessions DROP CONSTRAINT sessions_template_check,"
	"  ADD CONSTRAINT sessions_template_check CHECK (template IN ('command', 'shell', 'image')),"
	"  DROP CONSTRAINT sessions_command_check,"
	"  ADD CONSTRAINT sessions_command_check CHECK (length(command) <= 4096),"
	"  ADD COLUMN image text CHECK (length(image) BETWEEN 1 AND 1024),"
	"  ADD COLUMN idle_limit int CHECK (idle_limit BETWEEN 1 AND 10080),"
	"  ADD COLUMN last_active timestamptz NOT NULL DEFAULT now();",
	/* 6: batch jobs through the API (a session of template batch: its
	 * script in command) */
	"ALTER TABLE sessions DROP CONSTRAINT sessions_template_check,"
	"  ADD CONSTRAINT sessions_template_check CHECK (template IN ('command', 'shell', 'image', "
	"  'batch')),"
	"  DROP CONSTRAINT sessions_command_check,"
	"  ADD CONSTRAINT sessions_command_check CHECK (length(command) <= 4096 OR (template = "
	"  'batch' AND length(command) <= 65000));",
	/* 7: listing an organisation's sessions by pages */
	"CREATE INDEX sessions_org_id ON sessions (org_id, id);",
	/* 8: OpenID Connect sign-ins under way (state, nonce: single use) */
	"CREATE TABLE oidc_states ("
	"  state text PRIMARY KEY CHECK (state ~ '^[0-9a-f]{32}$'),"
	"  nonce text NOT NULL CHECK (nonce ~ '^[0-9a-f]{32}$'),"
	"  created timestamptz NOT NULL DEFAULT now());",
	/* 9: the jupyter template: its port on the node and the secret the
	 * proxy gives the notebook server (never shown) */
	"ALTER TABLE sessions DROP CONSTRAINT sessions_template_check,"
	"  ADD CONSTRAINT sessions_template_check CHECK (template IN ('command', 'shell', 'image', "
	"  'batch', 'jupyter')),"
	"  ADD COLUMN port int CHECK (port BETWEEN 1024 AND 65535),"
	"  ADD COLUMN secret text CHECK (secret ~ '^[0-9a-f]{64}$'),"
	"  ADD COLUMN ssh_port int CHECK (ssh_port BETWEEN 1024 AND 65535);"
	/* and memory metered: a price per GiB-hour, the MiB a job held */
	"ALTER TABLE prices DROP CONSTRAINT prices_resource_check,"
	"  ADD CONSTRAINT prices_resource_check CHECK (resource IN ('gpu', 'cpu', 'mem'));"
	"ALTER TABLE usage ADD COLUMN mem_mb bigint NOT NULL DEFAULT 0 CHECK (mem_mb >= 0);",
};

static int fail(PGresult *r, PGconn *c, char *why, size_t wlen)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	int rc = CLOUD_DB_ERROR;

	snprintf(why, wlen, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
	why[strcspn(why, "\n")] = '\0';
	if (PQstatus(c) != CONNECTION_OK)
		rc = CLOUD_DB_DOWN;
	else if (state && !strcmp(state, "23505"))
		rc = CLOUD_DB_CONFLICT;
	else if (state && (!strncmp(state, "23", 2) || !strncmp(state, "22", 2)))
		rc = CLOUD_DB_INVALID; /* a check, a key, or a value PostgreSQL cannot read */
	PQclear(r);
	return rc;
}

static json_t *rows_of(PGresult *r)
{
	json_t *rows = json_array();
	int nf = PQnfields(r);

	for (int i = 0; i < PQntuples(r); i++) {
		json_t *o = json_object();

		for (int f = 0; f < nf; f++)
			json_object_set_new(o, PQfname(r, f),
					    PQgetisnull(r, i, f) ? json_null()
								 : json_string(PQgetvalue(r, i, f)));
		json_array_append_new(rows, o);
	}
	return rows;
}

/* Text being built: NULL buf after a failed allocation. */
struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->buf && t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *nb = realloc(t->buf, cap);

		if (!nb) {
			free(t->buf);
			t->buf = NULL;
			return;
		}
		t->buf = nb, t->cap = cap;
	}
	if (t->buf) {
		memcpy(t->buf + t->len, s, n);
		t->len += n;
		t->buf[t->len] = '\0';
	}
}

/* s as a JSON string, escaped as jansson writes it (quote, backslash and
 * control characters; UTF-8 as it is: the database's encoding is UTF-8). */
static void put_string(struct text *t, const char *s)
{
	static const char hexd[] = "0123456789ABCDEF", ctl[] = "\b\f\n\r\t", name[] = "bfnrt";
	const char *run = s, *k;

	put(t, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[7] = "\\u00";

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(t, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			put(t, esc, 2);
		} else if ((k = strchr(ctl, c))) {
			esc[1] = name[k - ctl];
			put(t, esc, 2);
		} else {
			esc[4] = hexd[c >> 4], esc[5] = hexd[c & 15];
			put(t, esc, 6);
		}
	}
	put(t, run, (size_t)(s - run));
	put(t, "\"", 1);
}

/* The rows of r as a JSON array of objects, column name -> string (NULL
 * -> null), in column order: what rows_of and json_dumps(JSON_COMPACT)
 * make, without an object per value (a listing of a thousand rows spent
 * its time in the allocator). NULL when out of memory. */
static char *text_of(PGresult *r)
{
	struct text t = { .buf = malloc(4096), .cap = 4096 };
	int nf = PQnfields(r);

	put(&t, "[", 1);
	for (int i = 0; i < PQntuples(r); i++) {
		put(&t, i ? ",{" : "{", i ? 2 : 1);
		for (int f = 0; f < nf; f++) {
			if (f)
				put(&t, ",", 1);
			put_string(&t, PQfname(r, f));
			put(&t, ":", 1);
			if (PQgetisnull(r, i, f))
				put(&t, "null", 4);
			else
				put_string(&t, PQgetvalue(r, i, f));
		}
		put(&t, "}", 1);
	}
	put(&t, "]", 1);
	return t.buf;
}

/* A connection that was lost: reset once. */
static int ensure(struct cloud_db *db, char *why, size_t wlen)
{
	if (PQstatus(db->conn) == CONNECTION_OK)
		return 0;
	PQreset(db->conn);
	if (PQstatus(db->conn) == CONNECTION_OK)
		return 0;
	snprintf(why, wlen, "database: %s", PQerrorMessage(db->conn));
	why[strcspn(why, "\n")] = '\0';
	return CLOUD_DB_DOWN;
}

static int run_tx(struct cloud_db *db, size_t count, const char *const *sql, const int *n,
		  const char *const *const *params, json_t **rows, char **text, char *why,
		  size_t wlen)
{
	/* one statement is its own transaction: no BEGIN and COMMIT round trips */
	bool block = count > 1;
	PGresult *r = block ? PQexec(db->conn, "BEGIN") : NULL;
	int rc;

	if (block && PQresultStatus(r) != PGRES_COMMAND_OK)
		return fail(r, db->conn, why, wlen);
	PQclear(r);
	for (size_t i = 0; i < count; i++) {
		/* no parameters (a migration): several statements may be one text */
		r = n[i] || params[i] ? PQexecParams(db->conn, sql[i], n[i], NULL, params[i], NULL,
						     NULL, 0)
				      : PQexec(db->conn, sql[i]);
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
			rc = fail(r, db->conn, why, wlen);
			if (block)
				PQclear(PQexec(db->conn, "ROLLBACK"));
			return rc;
		}
		if (i + 1 == count && rows)
			*rows = rows_of(r);
		if (i + 1 == count && text && !(*text = text_of(r))) {
			PQclear(r);
			if (block)
				PQclear(PQexec(db->conn, "ROLLBACK"));
			snprintf(why, wlen, "no memory");
			return CLOUD_DB_ERROR;
		}
		PQclear(r);
	}
	if (!block)
		return 0;
	r = PQexec(db->conn, "COMMIT");
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		if (rows) {
			json_decref(*rows);
			*rows = NULL;
		}
		if (text) {
			free(*text);
			*text = NULL;
		}
		return fail(r, db->conn, why, wlen);
	}
	PQclear(r);
	return 0;
}

static int tx(struct cloud_db *db, size_t count, const char *const *sql, const int *n,
	      const char *const *const *params, json_t **rows, char **text, char *why,
	      size_t wlen)
{
	int rc;

	if (rows)
		*rows = NULL;
	if (text)
		*text = NULL;
	if ((rc = ensure(db, why, wlen)))
		return rc;
	rc = run_tx(db, count, sql, n, params, rows, text, why, wlen);
	if (rc == CLOUD_DB_DOWN && !ensure(db, why, wlen)) /* lost mid-call: once more */
		rc = run_tx(db, count, sql, n, params, rows, text, why, wlen);
	return rc;
}

int cloud_db_tx(struct cloud_db *db, size_t count, const char *const *sql, const int *n,
		const char *const *const *params, json_t **rows, char *why, size_t wlen)
{
	return tx(db, count, sql, n, params, rows, NULL, why, wlen);
}

int cloud_db_query_text(struct cloud_db *db, const char *sql, int n, const char *const *params,
			char **text, char *why, size_t wlen)
{
	const char *const *p[1] = { params };

	return tx(db, 1, &sql, &n, p, NULL, text, why, wlen);
}

int cloud_db_query(struct cloud_db *db, const char *sql, int n, const char *const *params,
		   json_t **rows, char *why, size_t wlen)
{
	const char *const *p[1] = { params };

	return cloud_db_tx(db, 1, &sql, &n, p, rows, why, wlen);
}

/* Bring the schema to CLOUD_SCHEMA_VERSION; refuse a newer one. Taken
 * under an advisory lock, so two services starting at once migrate once. */
static int migrate(struct cloud_db *db, char *why, size_t wlen)
{
	json_t *rows = NULL;
	int have, rc;
	char v[16];

	PQclear(PQexec(db->conn, "SELECT pg_advisory_lock(7370)"));
	rc = cloud_db_query(db, "CREATE TABLE IF NOT EXISTS schema_version (version int NOT NULL)",
			    0, NULL, NULL, why, wlen);
	if (!rc)
		rc = cloud_db_query(db, "SELECT coalesce(max(version), 0) AS v FROM schema_version",
				    0, NULL, &rows, why, wlen);
	if (rc)
		goto out;
	have = atoi(json_string_value(json_object_get(json_array_get(rows, 0), "v")));
	if (have > CLOUD_SCHEMA_VERSION) {
		snprintf(why, wlen,
			 "the database's schema is version %d, newer than this spur-cloud's %d: "
			 "run a newer spur-cloud",
			 have, CLOUD_SCHEMA_VERSION);
		rc = CLOUD_DB_ERROR;
		goto out;
	}
	for (int ver = have + 1; ver <= CLOUD_SCHEMA_VERSION && !rc; ver++) {
		const char *sql[3] = { migrations[ver - 1], "DELETE FROM schema_version",
				       "INSERT INTO schema_version VALUES ($1::int)" };
		const char *pv[1] = { v };
		const char *const *params[3] = { NULL, NULL, pv };
		int n[3] = { 0, 0, 1 };

		snprintf(v, sizeof(v), "%d", ver);
		rc = cloud_db_tx(db, 3, sql, n, params, NULL, why, wlen);
	}
out:
	PQclear(PQexec(db->conn, "SELECT pg_advisory_unlock(7370)"));
	json_decref(rows);
	return rc;
}

static void notice(void *arg, const char *msg)
{
	(void)arg;
	spur_debug("database: %.*s", (int)strcspn(msg, "\n"), msg);
}

struct cloud_db *cloud_db_open(const char *conninfo, char *why, size_t wlen)
{
	struct cloud_db *db = calloc(1, sizeof(*db));

	if (!db) {
		snprintf(why, wlen, "no memory");
		return NULL;
	}
	db->conn = PQconnectdb(conninfo);
	PQsetNoticeProcessor(db->conn, notice, NULL); /* the server's NOTICEs: debug lines */
	if (PQstatus(db->conn) != CONNECTION_OK) {
		snprintf(why, wlen, "database: %s", PQerrorMessage(db->conn));
		why[strcspn(why, "\n")] = '\0';
		cloud_db_close(db);
		return NULL;
	}
	if (migrate(db, why, wlen)) {
		cloud_db_close(db);
		return NULL;
	}
	return db;
}

void cloud_db_close(struct cloud_db *db)
{
	if (!db)
		return;
	PQfinish(db->conn);
	free(db);
}
