#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud's GPU sessions on a real cluster (a controller and one agent
# with 4 simulated GPUs on loopback) and a real PostgreSQL (started in the
# test's folder): a session is a Spur job under its project's account,
# followed from queued (with the pending reason) to running and to its end
# (completed, cancelled by a stop); the schema's migrations applied one
# after another over an empty version table; viewers, read-only keys and other organisations
# cannot start, stop or see sessions; bad requests get 400.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
trap 'pg_stop; cleanup' EXIT
# an empty version table (version 0): each migration applied in turn
empty_version() { psql_q "CREATE TABLE schema_version (version int NOT NULL); INSERT INTO schema_version VALUES (0)" >/dev/null; }
# (the port proxy reaches the session's node at its NodeAddr)
mkdir -p "$T/out"
CLOUD_ARGS="--output-dir $T/out" one_node_cloud empty_version
check "the schema is at version 9" test "$(psql_q 'SELECT version FROM schema_version')" = 9

three_users

out=$(api POST /v1/orgs/alpha/projects/train/sessions \
	'{"name":"a","gpus":4,"gpu_type":"h100","command":"sleep 30","time_limit":5}' "$ann")
check "ann starts a 4-GPU session (201)" test "$(echo "$out" | tail -1)" = 201
s1=$(echo "$out" | jget '["id"]')
job1=$(echo "$out" | jget '["job_id"]')
check "... which is a Spur job under the project's account" \
	bash -c "squeue -h -j $job1 -o '%a %j' | grep -qx 'alpha_ml cloud-$s1'"
check "... and runs" wait_until 15 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s1 -H 'Authorization: Bearer $ann' | grep -q '\"state\":\"running\"'"
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"gpus":2,"command":"sleep 30","time_limit":5}' "$ann")
s2=$(echo "$out" | jget '["id"]')
check "a second one waits: queued, with the pending reason" \
	bash -c "echo '$out' | head -1 | grep -q '\"state\":\"queued\"' && curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s2 -H 'Authorization: Bearer $ann' | grep -q '\"reason\":\"Resources\"'"
job2q=$(echo "$out" | jget '["job_id"]')
check "the queued one's time limit is changed (PATCH, 200): its job's" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' -X PATCH http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s2 -H 'Authorization: Bearer $ann' -d '{\"time_limit\":7}') = 200 ] && squeue -h -j $job2q -o %l | grep -qx 7:00"
check "listing by pages: limit=1, then after=s1" \
	bash -c "curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions?limit=1' -H 'Authorization: Bearer $ann' | grep -o '\"id\":\"[0-9]*\",\"project' | grep -qx '\"id\":\"$s1\",\"project' && curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions?limit=1&after=$s1' -H 'Authorization: Bearer $ann' | grep -o '\"id\":\"[0-9]*\",\"project' | grep -qx '\"id\":\"$s2\",\"project'"
check "... a limit of 0: 400" test "$(status GET '/v1/orgs/alpha/sessions?limit=0' '' "$ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"name":"q\"\\\\ \t\u0001/é","command":"true","time_limit":1}' "$ann")
sq=$(echo "$out" | jget '["id"]')
check "a listing's text is the same as one session's (names with quotes, control bytes, UTF-8)" \
	bash -c "[ \"\$(curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions?after=$((sq - 1))&limit=1' -H 'Authorization: Bearer $ann' | sed 's/^{\"sessions\":\[//; s/\]}\$//')\" = \"\$(curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$sq -H 'Authorization: Bearer $ann')\" ] && curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$sq -H 'Authorization: Bearer $ann' | grep -qF '\"name\":\"q\\\"\\\\\\\\ \\t\\u0001/é\"'"
check "vic (viewer) sees them" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions -H 'Authorization: Bearer $vic' | grep -q '\"id\":\"$s2\"'"
check "... but cannot start one (403)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"command":"true","time_limit":1}' "$vic")" = 403
check "... nor stop one (403)" test "$(status DELETE /v1/orgs/alpha/sessions/$s1 '' "$vic")" = 403
check "bob (another organisation) sees none of alpha's (404)" test "$(status GET /v1/orgs/alpha/sessions '' "$bob")" = 404
check "... nor stops them (404)" test "$(status DELETE /v1/orgs/alpha/sessions/$s1 '' "$bob")" = 404
check "... nor reads them through his own org's path (404)" test "$(status GET /v1/orgs/beta/sessions/$s1 '' "$bob")" = 404
check "ann stops the first (200, stopping or ended)" test "$(status DELETE /v1/orgs/alpha/sessions/$s1 '' "$ann")" = 200
check "... its job is cancelled" wait_until 15 bash -c "[ -z \"\$(squeue -h -j $job1)\" ]"
check "... and the session ended cancelled" wait_until 15 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s1 -H 'Authorization: Bearer $ann' | grep -q '\"state\":\"ended\",\"outcome\":\"cancelled\"'"
check "the queued one then runs" wait_until 15 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s2 -H 'Authorization: Bearer $ann' | grep -q '\"state\":\"running\"'"
# the web terminal: a WebSocket to a shell that srun starts inside the job
# (the resize travels through srun to the node's PTY: the shell waits up to
# 3 s for it before it prints the size)
WS="$(dirname "$0")/ws_client.py"
job2=$(psql_q "SELECT job_id FROM sessions WHERE id = $s2")
python3 "$WS" "$CPORT" "/v1/orgs/alpha/sessions/$s2/terminal" "$ann" \
	'for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(stty size)" = "30 100" ] && break; sleep 0.3; done; stty size; echo spur-$((6*7)) in $SLURM_JOB_ID\n' \
	"spur-42 in $job2" >"$T/term.out" 2>&1
check "ann's terminal into her running session: a shell inside its job (101, echo)" \
	grep -q "spur-42 in $job2" "$T/term.out"
check "... a TTY, resized by the terminal's message (30 rows, 100 columns)" grep -q '30 100' "$T/term.out"
check "... as a step of the job, through srun (the controller and the agent)" \
	grep -q "job $job2 step" "$T/ctld.log"
python3 "$WS" "$CPORT" "/v1/orgs/alpha/sessions/$s2/terminal" "$bob" 'true\n' x >"$T/term.bob" 2>&1
check "bob (another organisation): no terminal (404)" grep -q ' 404 ' "$T/term.bob"
python3 "$WS" "$CPORT" "/v1/orgs/alpha/sessions/$s2/terminal" "$vic" 'true\n' x >"$T/term.vic" 2>&1
check "vic (viewer): no terminal (403)" grep -q ' 403 ' "$T/term.vic"
python3 "$WS" "$CPORT" "/v1/orgs/alpha/sessions/$s1/terminal" "$ann" 'true\n' x >"$T/term.end" 2>&1
check "an ended session: no terminal (409)" grep -q ' 409 ' "$T/term.end"
check "the terminal without a WebSocket upgrade: 400" \
	test "$(status GET "/v1/orgs/alpha/sessions/$s2/terminal" '' "$ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"command":"echo hi","time_limit":1}' "$ann")
s3=$(echo "$out" | jget '["id"]')
check "a CPU-only session that ends by itself: completed" wait_until 15 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s3 -H 'Authorization: Bearer $ann' | grep -q '\"outcome\":\"completed\"'"
O3="http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s3/output"
check "its output is kept: GET .../output (text)" \
	bash -c "[ \"\$(curl -s '$O3' -H 'Authorization: Bearer $ann')\" = hi ]"
check "... from a byte offset" bash -c "[ \"\$(curl -s '$O3?offset=1' -H 'Authorization: Bearer $ann')\" = i ]"
check "... not for another organisation (404) nor a viewer (403)" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$O3' -H 'Authorization: Bearer $bob') = 404 ] && [ \$(curl -s -o /dev/null -w '%{http_code}' '$O3' -H 'Authorization: Bearer $vic') = 403 ]"
check "... a bad offset: 400" test "$(curl -s -o /dev/null -w '%{http_code}' "$O3?offset=x" -H "Authorization: Bearer $ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"template":"notebook","time_limit":1}' "$ann")
check "an unknown template is refused, naming those there are (400)" grep -q 'template: command, shell, image or jupyter' <<<"$out"
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"template":"shell","time_limit":1,"ssh_keys":["ssh-ed25519 AAAA x"]}' "$ann")
check "an SSH key too short to be one is refused (400)" grep -q "ssh_keys: a key's base64 part is not one" <<<"$out"
check "a shell session takes no command (400)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"template":"shell","command":"x","time_limit":1}' "$ann")" = 400
check "an image session needs an image (400)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"template":"image","time_limit":1}' "$ann")" = 400
check "... not one from a registry (400)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"template":"image","image":"docker.io/x/y","time_limit":1}' "$ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"template":"shell","time_limit":2}' "$ann")
s4=$(echo "$out" | jget '["id"]')
job4=$(echo "$out" | jget '["job_id"]')
check "a shell session (no command) runs and waits" \
	wait_until 15 bash -c "squeue -h -j $job4 -o %T | grep -qx RUNNING"
check "ann extends her running shell session to 10 minutes (PATCH, 200): its job's limit" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' -X PATCH http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s4 -H 'Authorization: Bearer $ann' -d '{\"time_limit\":10}') = 200 ] && squeue -h -j $job4 -o %l | grep -qx 10:00"
check "... its idle limit is (PATCH, 200)" \
	bash -c "curl -s -X PATCH http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s4 -H 'Authorization: Bearer $ann' -d '{\"idle_limit\":30}' | grep -q '\"id\":\"$s4\"'"
check "vic (viewer) cannot (403)" test "$(status PATCH "/v1/orgs/alpha/sessions/$s4" '{"time_limit":20}' "$vic")" = 403
check "a time limit that is not minutes: 400" test "$(status PATCH "/v1/orgs/alpha/sessions/$s4" '{"time_limit":"1h"}' "$ann")" = 400
api DELETE "/v1/orgs/alpha/sessions/$s4" '' "$ann" >/dev/null
if [ "$(id -u)" -eq 0 ] && [ -x /bin/busybox ] && { command -v runc || command -v crun; } >/dev/null; then
	"$(dirname "$0")/../../tools/busybox-image.sh" "$T/img" >/dev/null 2>&1
	out=$(api POST /v1/orgs/alpha/projects/train/sessions "{\"template\":\"image\",\"image\":\"$T/img/spurbox.tar\",\"command\":\"grep -qx ID=spurbox /etc/os-release\",\"time_limit\":1}" "$ann")
	s5=$(echo "$out" | jget '["id"]')
	check "an image session runs its command inside the image (completed)" \
		wait_until 30 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s5 -H 'Authorization: Bearer $ann' | grep -q '\"outcome\":\"completed\"'"
fi
# the port proxy: a web server in the session, reached through the service
mkdir -p "$T/www" && echo "hello from the session" >"$T/www/index.html"
PP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=$(api POST /v1/orgs/alpha/projects/train/sessions "{\"command\":\"cd $T/www && exec python3 -m http.server $PP --bind 127.0.0.1\",\"time_limit\":2}" "$ann")
s6=$(echo "$out" | jget '["id"]')
P6="http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s6/proxy/$PP"
check "the session's port through the proxy: its page (200)" \
	wait_until 20 bash -c "curl -sf '$P6/index.html' -H 'Authorization: Bearer $ann' | grep -qx 'hello from the session'"
curl -s -D "$T/proxy.h" -o "$T/proxy.body" "$P6/?access_token=$ann&x=1"
check "... with ?access_token= (a browser): the folder's index, and a cookie for the session's proxy path" \
	bash -c "grep -qx 'hello from the session' '$T/proxy.body' && grep -qi '^set-cookie: spur_cloud_token=$ann; Path=/v1/orgs/alpha/sessions/$s6/proxy/; HttpOnly' '$T/proxy.h'"
check "... and then with the cookie alone" \
	bash -c "curl -sf '$P6/index.html' -H 'Cookie: spur_cloud_token=$ann' | grep -qx 'hello from the session'"
check "... the server's own status relayed (404 for a page it lacks)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$P6/nothere" -H "Authorization: Bearer $ann")" = 404
check "bob (another organisation): not through the proxy (404)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$P6/index.html" -H "Authorization: Bearer $bob")" = 404
check "vic (viewer): not through the proxy (403)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$P6/index.html" -H "Authorization: Bearer $vic")" = 403
check "no token, no cookie: 401" test "$(curl -s -o /dev/null -w '%{http_code}' "$P6/index.html")" = 401
check "port 0: 404" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s6/proxy/0/" -H "Authorization: Bearer $ann")" = 404
api DELETE "/v1/orgs/alpha/sessions/$s6" '' "$ann" >/dev/null
check "a port nothing listens on, once the session ended: 409" \
	wait_until 15 bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$P6/' -H 'Authorization: Bearer $ann') = 409 ]"
# batch jobs through the API: sbatch's fields as JSON
out=$(api POST /v1/orgs/alpha/projects/train/jobs '{"script":"#!/bin/sh\nsleep 1\n","name":"b","ntasks":2,"time_limit":1}' "$ann")
sb=$(echo "$out" | jget '["id"]')
jb=$(echo "$out" | jget '["job_id"]')
check "a batch job through the API (201): a Spur job with its fields (2 tasks: 2 CPUs)" \
	bash -c "[ '$(echo "$out" | tail -1)' = 201 ] && squeue -h -t all -j $jb -o '%j %C' | grep -qx 'cloud-$sb 2'"
check "... followed as a session (template batch) to completed" \
	wait_until 20 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$sb -H 'Authorization: Bearer $ann' | grep -q '\"template\":\"batch\".*\"outcome\":\"completed\"'"
out=$(api POST /v1/orgs/alpha/projects/train/jobs '{"script":"#!/bin/sh\nexit 3\n","time_limit":1}' "$ann")
sf=$(echo "$out" | jget '["id"]')
check "a batch job that exits 3: failed" \
	wait_until 20 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$sf -H 'Authorization: Bearer $ann' | grep -q '\"outcome\":\"failed\"'"
out=$(api POST /v1/orgs/alpha/projects/train/jobs '{"script":"#!/bin/sh\ntrue\n","partition":"x","time_limit":1}' "$ann")
check "a field the API does not take is refused by name (400)" grep -q '"error":"partition: not supported' <<<"$out"
check "a script without #!: 400" \
	test "$(status POST /v1/orgs/alpha/projects/train/jobs '{"script":"true","time_limit":1}' "$ann")" = 400
check "vic (viewer) cannot submit (403)" \
	test "$(status POST /v1/orgs/alpha/projects/train/jobs '{"script":"#!/bin/sh\n","time_limit":1}' "$vic")" = 403
check "more GPUs than 64: 400" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"gpus":65,"command":"x","time_limit":1}' "$ann")" = 400
check "no time limit: 400" test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"command":"x"}' "$ann")" = 400
check "an unknown project: 404" \
	test "$(status POST /v1/orgs/alpha/projects/none/sessions '{"command":"x","time_limit":1}' "$ann")" = 404
check "a GPU type the cluster lacks: refused by the cluster, said (400)" \
	bash -c "curl -s -X POST http://127.0.0.1:$CPORT/v1/orgs/alpha/projects/train/sessions -H 'Authorization: Bearer $ann' -d '{\"gpus\":1,\"gpu_type\":\"mi300x\",\"command\":\"x\",\"time_limit\":1}' -w '%{http_code}' | grep -q '400\$'"

# quotas: GPUs in use at once (live sessions: queued or running), per type
# and per user; session $s2 (2 GPUs, no type) is running
check "only the service's administrator sets quotas (bob: 403)" \
	test "$(status PUT /v1/orgs/alpha/quotas '{"gpu_type":"h100","max_gpus":3}' "$bob")" = 403
check "ann (the administrator) caps alpha at 3 h100 GPUs" \
	test "$(status PUT /v1/orgs/alpha/quotas '{"gpu_type":"h100","max_gpus":3}' "$ann")" = 200
check "members see the quota" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/quotas -H 'Authorization: Bearer $vic' | grep -q '\"max_gpus\":\"3\"'"
before=$(psql_q "SELECT count(*) FROM sessions")/$(squeue -h -t all | wc -l)
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"gpus":2,"gpu_type":"h100","command":"sleep 30","time_limit":5}' "$ann")
check "2 more h100 GPUs (2 in use): refused by the quota (403)" test "$(echo "$out" | tail -1)" = 403
check "... saying so" grep -q '"error":"quota: 2 more h100 GPUs' <<<"$out"
check "... and nothing was made or submitted" \
	test "$(psql_q "SELECT count(*) FROM sessions")/$(squeue -h -t all | wc -l)" = "$before"
check "1 more fits (201)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"gpus":1,"gpu_type":"h100","command":"sleep 30","time_limit":5}' "$ann")" = 201
check "a per-user cap of 3 over all types" \
	test "$(status PUT /v1/orgs/alpha/quotas '{"max_gpus":100,"max_gpus_per_user":3}' "$ann")" = 200
check "... stops ann's next GPU (403)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"gpus":1,"command":"sleep 30","time_limit":5}' "$ann")" = 403
check "... but not a CPU-only session (201)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"gpus":0,"command":"true","time_limit":1}' "$ann")" = 201
check "a negative quota: 400" \
	test "$(status PUT /v1/orgs/alpha/quotas '{"max_gpus":-1}' "$ann")" = 400
finish
