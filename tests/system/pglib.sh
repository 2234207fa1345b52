# SPDX-License-Identifier: Apache-2.0
# A real PostgreSQL server from Debian's packages, in this test's folder:
# initdb, pg_ctl, a free port, a Unix socket in $T/pgsock; stopped by the
# test's cleanup (pg_stop); pg_up starts it again. Source after lib.sh. As
# root the server runs as the postgres user (initdb refuses root). Sets
# PG_CONNINFO. Then spur-cloud against it: start_cloud, stop_cloud, api...
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_start() {
	[ -x "$PG_BIN/initdb" ] || return 1
	PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p "$T/pg" "$T/pgsock" "$T/pglog"
	chmod 755 "$T"
	[ "$(id -u)" -eq 0 ] && chown postgres "$T/pg" "$T/pgsock" "$T/pglog"
	pg_as "$PG_BIN/initdb" -D "$T/pg" -U spur --auth=trust -E UTF8 >"$T/initdb.log" 2>&1 || return 1
	pg_up || return 1
	PG_CONNINFO="host=$T/pgsock port=$PG_PORT dbname=postgres user=spur"
}
pg_up() {
	pg_as "$PG_BIN/pg_ctl" -D "$T/pg" -l "$T/pglog/pg.log" -w -t 60 \
		-o "-p $PG_PORT -k $T/pgsock -c listen_addresses=''" start >/dev/null
}
pg_stop() { [ -f "$T/pg/postmaster.pid" ] && pg_as "$PG_BIN/pg_ctl" -D "$T/pg" -m fast -w stop >/dev/null 2>&1; true; }

# ---- spur-cloud against it (after pg_start): CLOUD, CPORT, and helpers
CLOUD="$BUILD/src/cloud/spur-cloud"
CPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_cloud() { # spur-cloud's extra arguments; waits until it serves
	"$CLOUD" -d "$PG_CONNINFO" -p "$CPORT" -L "$T/cloud.log" "$@" 2>>"$T/cloud.err" &
	echo $! >"$T/cloud.pid"
	echo $! >>"$T/agents.pid" # stop_all (finish) stops it with the daemons
	wait_until 20 curl -sf "http://127.0.0.1:$CPORT/openapi.json" -o /dev/null
}
stop_cloud() { kill "$(cat "$T/cloud.pid")" 2>/dev/null; wait "$(cat "$T/cloud.pid")" 2>/dev/null; }
psql_q() { "$PG_BIN/psql" "$PG_CONNINFO" -Atc "$1"; }
# api METHOD PATH [BODY] [TOKEN]: prints the body, then the status on its own line
api() {
	curl -s -X "$1" "http://127.0.0.1:$CPORT$2" ${3:+-H 'Content-Type: application/json' -d "$3"} \
		${4:+-H "Authorization: Bearer $4"} -w '\n%{http_code}\n'
}
status() { api "$@" | tail -1; }
# jget PYTHON-SUBSCRIPT: a field of the JSON body on stdin (api's first line)
jget() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().split("\n")[0])'"$1"')'; }
# three_users: ann (the administrator; org alpha, its project train, account
# alpha_ml), bob (org beta) and vic (org vic, and a viewer in alpha)
# signed up, their login tokens in $ann, $bob, $vic
three_users() {
	api POST /v1/signup '{"email":"ann@a.org","password":"correct horse","org":"alpha"}' >/dev/null
	api POST /v1/signup '{"email":"bob@b.org","password":"battery staple","org":"beta"}' >/dev/null
	api POST /v1/signup '{"email":"vic@a.org","password":"viewer only!","org":"vic"}' >/dev/null
	ann=$(api POST /v1/login '{"email":"ann@a.org","password":"correct horse"}' | jget '["token"]')
	bob=$(api POST /v1/login '{"email":"bob@b.org","password":"battery staple"}' | jget '["token"]')
	vic=$(api POST /v1/login '{"email":"vic@a.org","password":"viewer only!"}' | jget '["token"]')
	api POST /v1/orgs/alpha/projects '{"name":"train","account":"alpha_ml"}' "$ann" >/dev/null
	api POST /v1/orgs/alpha/members '{"email":"vic@a.org","role":"viewer"}' "$ann" >/dev/null
}

# one_node_cloud [CHECK-BEFORE-CLOUD-COMMAND]: the sessions' tests' set-up: a
# controller and one agent (mi1, 4 simulated h100s, at NodeAddr 127.0.0.1
# for the port proxy; KillWait 1), PostgreSQL, then spur-cloud with open
# sign-up (and $CLOUD_ARGS); the optional command runs between PostgreSQL
# and spur-cloud
one_node_cloud() {
	write_conf 1 gpu:h100:4
	sed -i 's/^NodeName=mi\[1-1\]/NodeName=mi1 NodeAddr=127.0.0.1/' "$T/slurm.conf"
	sed -i 's/^KillWait=2/KillWait=1/' "$T/slurm.conf"
	start_ctld
	start_agents 1
	check "the node registers" wait_until 20 nodes_idle 1
	check "PostgreSQL starts in the test's folder" pg_start
	[ $# -eq 0 ] || "$@"
	check "spur-cloud starts" start_cloud -f "$T/slurm.conf" --open-signup ${CLOUD_ARGS:-}
}
