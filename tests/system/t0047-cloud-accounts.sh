#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud's accounts on a real PostgreSQL server (Debian's, started in
# this test's folder): the schema made at the first start and kept at the
# next, a database newer than the binary refused; sign-up (the first user
# the administrator, later ones refused unless sign-up is open), login
# (Argon2id: the stored hash is not the password), roles in organisations,
# projects, API keys shown once, stored hashed, scoped and revocable; one
# organisation's members cannot see another's; bad and oversized requests
# get 4xx; the database stopped mid-run gives 503, then the service
# recovers with nothing lost. Needs PostgreSQL (postgresql) and, as root,
# its postgres user.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
trap 'pg_stop; cleanup' EXIT
check "PostgreSQL starts in the test's folder" pg_start || { cat "$T"/pglog/pg.log; finish; exit 1; }

check "spur-cloud starts and serves its OpenAPI document" start_cloud
check "... which lists its paths" bash -c "curl -s http://127.0.0.1:$CPORT/openapi.json | grep -q '/v1/api-keys'"
check "the schema is made (version 9)" test "$(psql_q 'SELECT version FROM schema_version')" = 9

check "the first sign-up makes the administrator" \
	test "$(status POST /v1/signup '{"email":"ann@a.org","password":"correct horse","org":"alpha"}')" = 201
check "a second one is refused while sign-up is closed (403)" \
	test "$(status POST /v1/signup '{"email":"bob@b.org","password":"battery staple","org":"beta"}')" = 403
check "... and makes nothing (no user, no org)" \
	test "$(psql_q "SELECT count(*) FROM orgs WHERE name = 'beta'")/$(psql_q "SELECT count(*) FROM users")" = 0/1
stop_cloud
check "a restart keeps the schema and the data" start_cloud --open-signup
check "... (one row of schema_version, ann still there)" \
	test "$(psql_q "SELECT count(*) FROM schema_version")/$(psql_q "SELECT count(*) FROM users")" = 1/1
check "with --open-signup, bob signs up (org beta)" \
	test "$(status POST /v1/signup '{"email":"bob@b.org","password":"battery staple","org":"beta"}')" = 201
check "an org name taken: 409" \
	test "$(status POST /v1/signup '{"email":"eve@e.org","password":"0123456789","org":"beta"}')" = 409
check "a short password: 400" \
	test "$(status POST /v1/signup '{"email":"eve@e.org","password":"short","org":"eve"}')" = 400
check "the password is stored as an Argon2id hash" \
	bash -c "[ \"\$(\"$PG_BIN/psql\" \"$PG_CONNINFO\" -Atc \"SELECT pw_hash FROM users WHERE email='ann@a.org'\" | cut -c1-10)\" = '\$argon2id\$' ]"
check "a wrong password: 401" \
	test "$(status POST /v1/login '{"email":"ann@a.org","password":"wrong horse"}')" = 401
ann=$(api POST /v1/login '{"email":"ann@a.org","password":"correct horse"}' | jget '["token"]')
bob=$(api POST /v1/login '{"email":"bob@b.org","password":"battery staple"}' | jget '["token"]')
check "login gives a token" test "${#ann}" -eq 85
check "/v1/me: ann, the administrator, owner of alpha" \
	bash -c "api() { curl -s http://127.0.0.1:$CPORT/v1/me -H 'Authorization: Bearer $ann'; }; api | grep -q '\"admin\":true' && api | grep -q '\"name\":\"alpha\",\"role\":\"owner\"'"
check "no token: 401" test "$(status GET /v1/me)" = 401
check "a forged token: 401" test "$(status GET /v1/me '' "spc_${ann:4:16}_$(printf '0%.0s' {1..64})")" = 401

check "ann makes project train in alpha (account alpha_ml)" \
	test "$(status POST /v1/orgs/alpha/projects '{"name":"train","account":"alpha_ml"}' "$ann")" = 201
check "bob cannot see alpha's projects (404, as if none)" test "$(status GET /v1/orgs/alpha/projects '' "$bob")" = 404
check "... nor add to them" test "$(status POST /v1/orgs/alpha/projects '{"name":"x","account":"y"}' "$bob")" = 404
check "ann adds bob to alpha as a viewer" \
	test "$(status POST /v1/orgs/alpha/members '{"email":"bob@b.org","role":"viewer"}' "$ann")" = 201
check "bob now lists alpha's projects" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/projects -H 'Authorization: Bearer $bob' | grep -q '\"train\"'"
check "... but as a viewer cannot add one (403)" \
	test "$(status POST /v1/orgs/alpha/projects '{"name":"x","account":"y"}' "$bob")" = 403
check "an unknown role: 400" \
	test "$(status POST /v1/orgs/alpha/members '{"email":"bob@b.org","role":"god"}' "$ann")" = 400

out=$(api POST /v1/api-keys '{"name":"ci","scope":"read"}' "$ann")
key=$(echo "$out" | jget '["key"]')
check "an API key is shown once (201)" test "$(echo "$out" | tail -1)" = 201
check "... stored only as a hash" test "$(psql_q "SELECT count(*) FROM tokens WHERE hash LIKE '%${key:21:20}%'")" = 0
check "... and listed without its secret" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/api-keys -H 'Authorization: Bearer $ann' | grep -q '\"ci\"' && ! curl -s http://127.0.0.1:$CPORT/v1/api-keys -H 'Authorization: Bearer $ann' | grep -q '${key:21}'"
check "a read key reads" test "$(status GET /v1/orgs/alpha/projects '' "$key")" = 200
check "... and may not write (403)" test "$(status POST /v1/orgs/alpha/projects '{"name":"z","account":"z"}' "$key")" = 403
kid=$(psql_q "SELECT id FROM tokens WHERE kind='api' AND name='ci'")
check "bob cannot revoke ann's key (404)" test "$(status DELETE "/v1/api-keys/$kid" '' "$bob")" = 404
check "ann revokes it" test "$(status DELETE "/v1/api-keys/$kid" '' "$ann")" = 200
check "... and it no longer works (401)" test "$(status GET /v1/me '' "$key")" = 401

check "a body that is not JSON: 400" test "$(status POST /v1/login 'not json')" = 400
big=$(head -c 70000 /dev/zero | tr '\0' 'a')
check "a body over 64 KiB: 413" test "$(curl -s -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$CPORT/v1/login -d "$big")" = 413
check "OpenID Connect not turned on: its login is 404, saying so" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/oidc/login | grep -q 'OpenID Connect is not turned on'"
check "an unknown path: 404" test "$(status GET /v1/nothing '' "$ann")" = 404

pg_stop
check "PostgreSQL stopped: 503" test "$(status GET /v1/me '' "$ann")" = 503
pg_up
check "PostgreSQL back: the service recovers, nothing lost" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/projects -H 'Authorization: Bearer $ann' | grep -q '\"train\"'"
stop_cloud
psql_q "UPDATE schema_version SET version = 99" >/dev/null
check "a database newer than the binary is refused, by name" \
	bash -c "timeout 20 '$CLOUD' -d '$PG_CONNINFO' -p $CPORT 2>&1 | grep -q 'version 99, newer than this spur-cloud'"
finish
