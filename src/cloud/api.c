/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's REST API (api.h). */
#include "cloud/api.h"
#include "cloud/api_int.h"
#include "common/log.h"

#include <curl/curl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_PREFIX "spc_"

extern const char cloud_openapi_json[];
extern const char cloud_console_html[];


void cloud_reply(struct cloud_resp *rs, int status, json_t *body)
{
	rs->status = status;
	rs->body = json_dumps(body, JSON_COMPACT);
	json_decref(body);
}

void cloud_error(struct cloud_resp *rs, int status, const char *msg)
{
	cloud_reply(rs, status, json_pack("{s:s}", "error", msg));
}

/* A database call's failure as the client sees it. */
void cloud_db_error(struct cloud_resp *rs, int rc, const char *what)
{
	if (rc == CLOUD_DB_DOWN)
		cloud_error(rs, 503, "the database is not reachable; try again");
	else if (rc == CLOUD_DB_CONFLICT)
		cloud_error(rs, 409, what);
	else if (rc == CLOUD_DB_INVALID)
		cloud_error(rs, 400, what);
	else
		cloud_error(rs, 500, "database error");
}

static void hex(const unsigned char *b, size_t n, char *out)
{
	sodium_bin2hex(out, 2 * n + 1, b, n);
}

static void sha256_hex(const char *s, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(h, (const unsigned char *)s, strlen(s));
	hex(h, sizeof(h), out);
}

/* A new token for user: "spc_PREFIX_SECRET" into tok (shown once); its
 * prefix and the SHA-256 of its secret kept. */
static int token_new(struct cloud_api *api, const char *user, const char *kind,
		     const char *scope, const char *name, char tok[128], struct cloud_resp *rs)
{
	unsigned char pb[8], sb[32];
	char prefix[17], secret[65], hash[65], why[256];
	const char *p[6];
	int rc;

	randombytes_buf(pb, sizeof(pb));
	randombytes_buf(sb, sizeof(sb));
	hex(pb, sizeof(pb), prefix);
	hex(sb, sizeof(sb), secret);
	sha256_hex(secret, hash);
	p[0] = user, p[1] = prefix, p[2] = hash, p[3] = kind, p[4] = scope, p[5] = name;
	rc = cloud_db_query(api->db,
			    "INSERT INTO tokens (user_id, prefix, hash, kind, scope, name, expires) "
			    "VALUES ($1::bigint, $2, $3, $4, $5, $6, "
			    "CASE WHEN $4 = 'login' THEN now() + interval '12 hours' END)",
			    6, p, NULL, why, sizeof(why));
	if (rc) {
		cloud_db_error(rs, rc, "a key with that prefix exists; try again");
		return -1;
	}
	snprintf(tok, 128, TOKEN_PREFIX "%s_%s", prefix, secret);
	return 0;
}

/* Who sends rq: 0 with w filled, or -1 with rs set (401, 503). */
static int authenticate(struct cloud_api *api, const struct cloud_req *rq, struct who *w,
			struct cloud_resp *rs)
{
	char bearer[128], prefix[17], hash[65], why[256];
	const char *t = rq->auth;
	const char *p[1] = { prefix };
	json_t *rows = NULL, *row;
	int rc;

	if (!t && (rq->ws_key || strstr(rq->path, "/proxy/"))) {
		/* a browser's WebSocket cannot send headers, nor a page's link:
		 * ?access_token=, then (the proxy) its cookie */
		const char *q = cloud_arg(rq, "access_token") ? cloud_arg(rq, "access_token")
							      : rq->cookie_token;

		if (q) {
			snprintf(bearer, sizeof(bearer), "Bearer %s", q);
			t = bearer;
		}
	}
	if (!t || strncmp(t, "Bearer " TOKEN_PREFIX, 11) || strlen(t) != 11 + 16 + 1 + 64 ||
	    t[27] != '_' || strspn(t + 11, "0123456789abcdef") != 16 ||
	    strspn(t + 28, "0123456789abcdef") != 64) {
		cloud_error(rs, 401, "sign in: Authorization: Bearer TOKEN (a login token or an API key)");
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "%.16s", t + 11);
	rc = cloud_db_query(api->db,
			    "SELECT t.user_id, t.hash, t.scope, u.is_admin FROM tokens t JOIN users u ON "
			    "u.id = t.user_id WHERE t.prefix = $1 AND t.revoked IS NULL AND "
			    "(t.expires IS NULL OR t.expires > now())",
			    1, p, &rows, why, sizeof(why));
	if (rc) {
		cloud_db_error(rs, rc, why);
		return -1;
	}
	row = json_array_get(rows, 0);
	sha256_hex(t + 28, hash);
	if (!row || sodium_memcmp(hash, json_string_value(json_object_get(row, "hash")), 64)) {
		json_decref(rows);
		cloud_error(rs, 401, "the token is not valid (unknown, expired or revoked)");
		return -1;
	}
	snprintf(w->id, sizeof(w->id), "%s", json_string_value(json_object_get(row, "user_id")));
	w->write = !strcmp(json_string_value(json_object_get(row, "scope")), "write");
	w->admin = !strcmp(cloud_field(row, "is_admin"), "t");
	json_decref(rows);
	return 0;
}

/* The body as a JSON object, or NULL with rs set (400). */
json_t *cloud_body(const struct cloud_req *rq, struct cloud_resp *rs)
{
	json_error_t je;
	json_t *b = rq->len ? json_loadb(rq->body, rq->len, 0, &je) : NULL;

	if (!json_is_object(b)) {
		json_decref(b);
		cloud_error(rs, 400, "the body must be a JSON object");
		return NULL;
	}
	return b;
}

const char *cloud_arg(const struct cloud_req *rq, const char *key)
{
	return rq->arg ? rq->arg(rq->ctx, key) : NULL;
}

const char *cloud_field(const json_t *b, const char *k)
{
	const char *v = json_string_value(json_object_get(b, k));

	return v ? v : "";
}

static void signup(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs)
{
	json_t *b = cloud_body(rq, rs), *rows = NULL;
	char hash[crypto_pwhash_STRBYTES], why[256];
	const char *email, *pw, *org;
	int rc;

	if (!b)
		return;
	email = cloud_field(b, "email"), pw = cloud_field(b, "password"), org = cloud_field(b, "org");
	if (strlen(pw) < 10 || strlen(pw) > 1024) {
		cloud_error(rs, 400, "password: 10 to 1024 characters");
		goto out;
	}
	if (crypto_pwhash_str(hash, pw, strlen(pw), crypto_pwhash_OPSLIMIT_INTERACTIVE,
			      crypto_pwhash_MEMLIMIT_INTERACTIVE)) {
		cloud_error(rs, 500, "out of memory hashing the password");
		goto out;
	}
	{
		/* one statement: the first user is the admin; after that, only with
		 * open sign-up; a refused one makes nothing (no org either) */
		const char *p[4] = { email, hash, api->open_signup ? "true" : "false", org };

		rc = cloud_db_query(
			api->db,
			"WITH u AS (INSERT INTO users (email, pw_hash, is_admin) SELECT $1, $2, NOT "
			"EXISTS (SELECT 1 FROM users) WHERE $3::boolean OR NOT EXISTS (SELECT 1 FROM "
			"users) RETURNING id), o AS (INSERT INTO orgs (name) SELECT $4 FROM u "
			"RETURNING id) INSERT INTO members (org_id, user_id, role) SELECT o.id, u.id, "
			"'owner' FROM o, u RETURNING user_id",
			4, p, &rows, why, sizeof(why));
	}
	if (rc)
		cloud_db_error(rs, rc, rc == CLOUD_DB_CONFLICT ? "that email or organisation is taken"
							 : "email or org not valid (org: a-z, 0-9, -)");
	else if (!json_array_size(rows))
		cloud_error(rs, 403, "sign-up is closed here: an administrator adds users");
	else
		cloud_reply(rs, 201, json_pack("{s:s,s:s}", "email", email, "org", org));
out:
	json_decref(rows);
	json_decref(b);
}

static void login(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs)
{
	json_t *b = cloud_body(rq, rs), *rows = NULL;
	const char *p[1];
	char why[256], tok[128];
	const json_t *row;
	int rc;

	if (!b)
		return;
	p[0] = cloud_field(b, "email");
	rc = cloud_db_query(api->db, "SELECT id, pw_hash FROM users WHERE email = $1", 1, p,
			    &rows, why, sizeof(why));
	row = json_array_get(rows, 0);
	if (rc) {
		cloud_db_error(rs, rc, why);
	} else if (!row || strlen(cloud_field(b, "password")) > 1024 ||
		   crypto_pwhash_str_verify(cloud_field(row, "pw_hash"), cloud_field(b, "password"),
					    strlen(cloud_field(b, "password")))) {
		cloud_error(rs, 401, "wrong email or password");
	} else if (!token_new(api, cloud_field(row, "id"), "login", "write", "", tok, rs)) {
		cloud_reply(rs, 200, json_pack("{s:s,s:s}", "token", tok, "expires_in", "12h"));
	}
	json_decref(rows);
	json_decref(b);
}

/* A listing: the rows of sql as {key: [...]} (200), or the failure. */
void cloud_list_reply(struct cloud_api *api, struct cloud_resp *rs, const char *key,
		       const char *sql, int n, const char *const *p)
{
	char why[256], *rows = NULL;
	int rc = cloud_db_query_text(api->db, sql, n, p, &rows, why, sizeof(why));
	size_t len = rows ? strlen(key) + strlen(rows) + 8 : 0;

	if (rc) {
		cloud_db_error(rs, rc, why);
	} else if (!(rs->body = malloc(len))) {
		cloud_error(rs, 500, "no memory");
	} else {
		/* {"KEY":[...]}: key is one of ours, nothing to escape */
		snprintf(rs->body, len, "{\"%s\":%s}", key, rows);
		rs->status = 200;
	}
	free(rows);
}

/* GET /v1/oidc/login: to the provider, with a state and a nonce kept for
 * ten minutes (single use). */
static void oidc_login(struct cloud_api *api, struct cloud_resp *rs)
{
	unsigned char sb[16], nb[16];
	char state[33], nonce[33], why[512];
	const char *p[2] = { state, nonce };
	int rc;

	if (!api->oidc) {
		cloud_error(rs, 404, "OpenID Connect is not turned on here (spur-cloud --oidc-issuer)");
		return;
	}
	randombytes_buf(sb, sizeof(sb));
	randombytes_buf(nb, sizeof(nb));
	hex(sb, sizeof(sb), state);
	hex(nb, sizeof(nb), nonce);
	rc = cloud_db_query(api->db,
			    "WITH old AS (DELETE FROM oidc_states WHERE created < now() - interval "
			    "'10 minutes') INSERT INTO oidc_states (state, nonce) VALUES ($1, $2)",
			    2, p, NULL, why, sizeof(why));
	if (rc) {
		cloud_db_error(rs, rc, why);
	} else if (!(rs->location = cloud_oidc_auth_url(api->oidc, state, nonce, why, sizeof(why)))) {
		cloud_error(rs, 502, why);
	} else {
		rs->status = 302;
		rs->body = strdup("{}");
	}
}

/* GET /v1/oidc/callback?code=&state=: the user the provider vouches for
 * (found by email, or made in no organisation), signed in: to the console
 * with a login token in the URL's fragment (not sent to servers). */
static void oidc_callback(struct cloud_api *api, const struct cloud_req *rq,
			  struct cloud_resp *rs)
{
	const char *code = cloud_arg(rq, "code"), *state = cloud_arg(rq, "state");
	const char *p[1] = { state };
	json_t *rows = NULL;
	char why[512], tok[128], *email = NULL;
	int rc;

	if (!api->oidc) {
		cloud_error(rs, 404, "OpenID Connect is not turned on here (spur-cloud --oidc-issuer)");
		return;
	}
	if (!code || !state || strlen(code) > 1000 || strlen(state) != 32) {
		cloud_error(rs, 400, cloud_arg(rq, "error") ? "the provider refused the sign-in"
							   : "code and state are needed");
		return;
	}
	rc = cloud_db_query(api->db,
			    "DELETE FROM oidc_states WHERE state = $1 AND created > now() - interval "
			    "'10 minutes' RETURNING nonce",
			    1, p, &rows, why, sizeof(why));
	if (rc || !json_array_size(rows)) {
		if (rc)
			cloud_db_error(rs, rc, why);
		else
			cloud_error(rs, 400, "an unknown, used or expired sign-in (start again)");
		goto out;
	}
	if (!(email = cloud_oidc_email(api->oidc, code,
				       cloud_field(json_array_get(rows, 0), "nonce"), why,
				       sizeof(why)))) {
		spur_warn("OpenID Connect: %s", why);
		cloud_error(rs, 401, why);
		goto out;
	}
	json_decref(rows);
	rows = NULL;
	p[0] = email;
	/* a user made here has no password that can match ('!'): only this
	 * way in */
	rc = cloud_db_query(api->db,
			    "INSERT INTO users (email, pw_hash) VALUES ($1, '!oidc') ON CONFLICT "
			    "(email) DO UPDATE SET email = excluded.email RETURNING id",
			    1, p, &rows, why, sizeof(why));
	if (rc) {
		cloud_db_error(rs, rc, "the provider's email is not one this service takes");
		goto out;
	}
	if (token_new(api, cloud_field(json_array_get(rows, 0), "id"), "login", "write", "oidc",
		      tok, rs))
		goto out;
	if ((rs->location = malloc(200)))
		snprintf(rs->location, 200, "/console#token=%s", tok);
	rs->status = 302;
	rs->body = strdup("{}");
	spur_info("OpenID Connect: %s signed in", email);
out:
	free(email);
	json_decref(rows);
}

static void me(struct cloud_api *api, const struct who *w, struct cloud_resp *rs)
{
	const char *p[1] = { w->id };
	json_t *rows = NULL, *orgs = NULL;
	char why[256];
	int rc = cloud_db_query(api->db, "SELECT email, is_admin FROM users WHERE id = $1::bigint",
				1, p, &rows, why, sizeof(why));

	if (!rc)
		rc = cloud_db_query(api->db,
				    "SELECT o.name, m.role FROM members m JOIN orgs o ON o.id = "
				    "m.org_id WHERE m.user_id = $1::bigint ORDER BY o.name",
				    1, p, &orgs, why, sizeof(why));
	if (rc)
		cloud_db_error(rs, rc, why);
	else
		cloud_reply(rs, 200, json_pack("{s:s,s:b,s:O}", "email",
					 cloud_field(json_array_get(rows, 0), "email"), "admin",
					 !strcmp(cloud_field(json_array_get(rows, 0), "is_admin"), "t"),
					 "orgs", orgs));
	json_decref(rows);
	json_decref(orgs);
}

/* w's role in org into role (and its id): 0, or -1 with rs set (404 for
 * an organisation w is not in: others' are not even named). */
int cloud_org_role(struct cloud_api *api, const struct who *w, const char *org, char *oid,
		    char *role, struct cloud_resp *rs)
{
	const char *p[2] = { org, w->id };
	json_t *rows = NULL;
	char why[256];
	int rc = cloud_db_query(api->db,
				"SELECT o.id, m.role FROM orgs o JOIN members m ON m.org_id = o.id "
				"WHERE o.name = $1 AND m.user_id = $2::bigint",
				2, p, &rows, why, sizeof(why));

	if (rc) {
		cloud_db_error(rs, rc, why);
		return -1;
	}
	if (!json_array_size(rows)) {
		json_decref(rows);
		cloud_error(rs, 404, "no such organisation");
		return -1;
	}
	snprintf(oid, 24, "%s", cloud_field(json_array_get(rows, 0), "id"));
	snprintf(role, 16, "%s", cloud_field(json_array_get(rows, 0), "role"));
	json_decref(rows);
	return 0;
}

bool cloud_manages(const char *role)
{
	return !strcmp(role, "owner") || !strcmp(role, "admin");
}

/* GET|POST /v1/orgs/ORG/projects, GET|POST /v1/orgs/ORG/members */
static void org_items(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		      const char *org, const char *what, struct cloud_resp *rs)
{
	bool members = !strcmp(what, "members"), get = !strcmp(rq->method, "GET");
	char oid[24], role[16], why[256];
	json_t *b = NULL, *rows = NULL;
	const char *p[3];
	int rc;

	if (cloud_org_role(api, w, org, oid, role, rs))
		return;
	p[0] = oid;
	if (get) {
		cloud_list_reply(api, rs, what,
			   members ? "SELECT u.email, m.role FROM members m JOIN users u ON u.id = "
				     "m.user_id WHERE m.org_id = $1::bigint ORDER BY 1"
				   : "SELECT name, account FROM projects WHERE org_id = $1::bigint "
				     "ORDER BY name",
			   1, p);
		return;
	}
	if (!cloud_manages(role) || !w->write) {
		cloud_error(rs, 403, w->write ? "only the organisation's owners and admins may"
					: "this key is read-only");
		return;
	}
	if (!(b = cloud_body(rq, rs)))
		return;
	if (members && !strcmp(cloud_field(b, "role"), "owner") && strcmp(role, "owner")) {
		cloud_error(rs, 403, "only an owner makes owners");
		goto out;
	}
	p[1] = cloud_field(b, members ? "email" : "name");
	p[2] = cloud_field(b, members ? "role" : "account");
	rc = cloud_db_query(api->db,
			    members ? "INSERT INTO members (org_id, user_id, role) SELECT $1::bigint, "
				      "id, $3 FROM users WHERE email = $2 RETURNING role"
				    : "INSERT INTO projects (org_id, name, account) VALUES ($1::bigint, "
				      "$2, $3) RETURNING name",
			    3, p, &rows, why, sizeof(why));
	if (rc)
		cloud_db_error(rs, rc, members ? "already a member, or role not owner|admin|member|viewer"
					 : "a project of that name exists, or name/account not valid");
	else if (!json_array_size(rows))
		cloud_error(rs, 404, "no user with that email");
	else
		cloud_reply(rs, 201, json_incref(b));
out:
	json_decref(rows);
	json_decref(b);
}

/* GET|POST /v1/api-keys, DELETE /v1/api-keys/ID */
static void api_keys(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		     const char *id, struct cloud_resp *rs)
{
	json_t *b = NULL, *rows = NULL;
	const char *p[2] = { w->id, id };
	char why[256], tok[128];
	int rc;

	if (!strcmp(rq->method, "GET") && !id) {
		cloud_list_reply(api, rs, "api_keys",
			   "SELECT id, name, prefix, scope, created, revoked FROM tokens WHERE "
			   "user_id = $1::bigint AND kind = 'api' ORDER BY id",
			   1, p);
	} else if (!w->write) {
		cloud_error(rs, 403, "this key is read-only");
	} else if (!strcmp(rq->method, "POST") && !id) {
		const char *scope;

		if (!(b = cloud_body(rq, rs)))
			return;
		scope = *cloud_field(b, "scope") ? cloud_field(b, "scope") : "read";
		if (strcmp(scope, "read") && strcmp(scope, "write"))
			cloud_error(rs, 400, "scope: read or write");
		else if (strlen(cloud_field(b, "name")) > 64)
			cloud_error(rs, 400, "name: at most 64 characters");
		else if (!token_new(api, w->id, "api", scope, cloud_field(b, "name"), tok, rs))
			cloud_reply(rs, 201, json_pack("{s:s,s:s,s:s,s:s}", "key", tok, "scope", scope,
						 "name", cloud_field(b, "name"), "note",
						 "shown once: it is stored only as a hash"));
	} else if (!strcmp(rq->method, "DELETE") && id && strspn(id, "0123456789") == strlen(id) &&
		   strlen(id) < 19) {
		rc = cloud_db_query(api->db,
				    "UPDATE tokens SET revoked = now() WHERE user_id = $1::bigint AND "
				    "id = $2::bigint AND kind = 'api' AND revoked IS NULL RETURNING id",
				    2, p, &rows, why, sizeof(why));
		if (rc)
			cloud_db_error(rs, rc, why);
		else if (!json_array_size(rows))
			cloud_error(rs, 404, "no such key");
		else
			cloud_reply(rs, 200, json_pack("{s:s}", "revoked", id));
	} else {
		cloud_error(rs, 405, "GET or POST /v1/api-keys, DELETE /v1/api-keys/ID");
	}
	json_decref(rows);
	json_decref(b);
}

/* The signed-in routes: /v1/me, /v1/orgs/ORG/{projects,members,sessions}, /v1/api-keys[/ID]. */
static void signed_in(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs)
{
	char org[80] = "", proj[80] = "", what[16] = "", id[24] = "";
	struct who w;
	int n = 0;

	if (authenticate(api, rq, &w, rs))
		return;
	if (!strcmp(rq->path, "/v1/me") && !strcmp(rq->method, "GET"))
		me(api, &w, rs);
	else if (sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/projects/%79[a-z0-9-]/sessions%n", org,
			proj, &n) == 2 && !rq->path[n])
		cloud_sessions(api, rq, &w, org, proj, "", rs);
	else if ((n = 0, sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/projects/%79[a-z0-9-]/jobs%n", org,
				proj, &n)) == 2 && n && !rq->path[n])
		cloud_jobs(api, rq, &w, org, proj, rs);
	else if ((n = 0, sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/sessions%n", org, &n)) == 1 && n)
		cloud_sessions(api, rq, &w, org, NULL, rq->path + n, rs);
	else if ((n = 0, sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/quotas%n", org, &n)) == 1 && n &&
		 !rq->path[n])
		cloud_quotas(api, rq, &w, org, rs);
	else if ((n = 0, sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/%n", org, &n)) == 1 && n &&
		 (!strcmp(rq->path + n, "usage") || !strcmp(rq->path + n, "budget") ||
		  !strcmp(rq->path + n, "credits") || !strncmp(rq->path + n, "invoices/", 9)))
		cloud_org_billing(api, rq, &w, org, rq->path + n, rs);
	else if (!strcmp(rq->path, "/v1/prices"))
		cloud_prices(api, rq, &w, rs);
	else if (!strcmp(rq->path, "/v1/capacity") && !strcmp(rq->method, "GET"))
		cloud_capacity(api, rq, rs);
	else if (sscanf(rq->path, "/v1/orgs/%79[a-z0-9-]/%15[a-z]%n", org, what, &n) == 2 &&
		 !rq->path[n] && (!strcmp(what, "projects") || !strcmp(what, "members")) &&
		 (!strcmp(rq->method, "GET") || !strcmp(rq->method, "POST")))
		org_items(api, rq, &w, org, what, rs);
	else if (!strcmp(rq->path, "/v1/api-keys"))
		api_keys(api, rq, &w, NULL, rs);
	else if (sscanf(rq->path, "/v1/api-keys/%23[0-9]%n", id, &n) == 1 && !rq->path[n])
		api_keys(api, rq, &w, id, rs);
	else
		cloud_error(rs, 404, "no such path (GET /openapi.json lists them)");
}

int cloud_api_init(void)
{
	return sodium_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) ? -1 : 0;
}

void cloud_api_handle(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs)
{
	rs->body = NULL;
	rs->type = NULL;
	rs->len = 0;
	rs->set_cookie = NULL;
	rs->location = NULL;
	rs->terminal_job = 0;
	if (rq->len > CLOUD_MAX_BODY)
		cloud_error(rs, 413, "the body is over 64 KiB");
	else if (!strcmp(rq->path, "/openapi.json") && !strcmp(rq->method, "GET"))
		rs->status = 200, rs->body = strdup(cloud_openapi_json);
	else if (!strcmp(rq->path, "/console") && !strcmp(rq->method, "GET"))
		rs->status = 200, rs->body = strdup(cloud_console_html),
		rs->type = strdup("text/html; charset=utf-8");
	else if (!strcmp(rq->path, "/v1/signup") && !strcmp(rq->method, "POST"))
		signup(api, rq, rs);
	else if (!strcmp(rq->path, "/v1/login") && !strcmp(rq->method, "POST"))
		login(api, rq, rs);
	else if (!strcmp(rq->path, "/v1/oidc/login") && !strcmp(rq->method, "GET"))
		oidc_login(api, rs);
	else if (!strcmp(rq->path, "/v1/oidc/callback") && !strcmp(rq->method, "GET"))
		oidc_callback(api, rq, rs);
	else if (!strncmp(rq->path, "/v1/", 4))
		signed_in(api, rq, rs);
	else
		cloud_error(rs, 404, "no such path (GET /openapi.json lists them)");
}
