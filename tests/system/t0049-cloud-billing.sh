#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud's money on a real cluster (a controller and two agents with 4
# simulated h100 GPUs each, on loopback) and a real PostgreSQL (in the
# test's folder): prices set by the service's administrator; metering of
# each session's job to the second, across a restart of spur-cloud and a
# kill -9 of the controller (billed GPU-seconds equal the jobs' own, as
# the controller's accounting says: start to end, times GPUs); usage by
# project, user, GPU type and day; monthly invoices in JSON and CSV; a
# credit budget that stops a running session at zero and refuses new ones
# (402); capacity by GPU type; another organisation sees none of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
trap 'stop_cloud; pg_stop; cleanup' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$T"
write_conf 2 gpu:h100:4
sed -i 's/^KillWait=2/KillWait=1/' slurm.conf
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
check "PostgreSQL starts in the test's folder" pg_start
check "spur-cloud starts, metering each second" start_cloud -f "$T/slurm.conf" --open-signup --meter-interval 1

three_users
api POST /v1/orgs/alpha/projects '{"name":"infer","account":"alpha_inf"}' "$ann" >/dev/null

# bob's shell session with an idle limit of a minute: checked at the end
api POST /v1/orgs/beta/projects '{"name":"p","account":"beta"}' "$bob" >/dev/null
idle=$(api POST /v1/orgs/beta/projects/p/sessions '{"template":"shell","time_limit":5,"idle_limit":1}' "$bob" | jget '["id"]')

# prices: 1,000,000 micro-units a GPU-second (3.6e9 an hour), 10,000 a
# CPU-second, 1,000 a GiB-second of memory
check "bob (not an administrator) cannot set a price (403)" \
	test "$(status POST /v1/prices '{"resource":"gpu","gpu_type":"h100","per_hour":1}' "$bob")" = 403
check "ann sets the h100 GPU-hour price (201)" \
	test "$(status POST /v1/prices '{"resource":"gpu","gpu_type":"h100","per_hour":3600000000,"valid_from":"2026-01-01T00:00:00Z"}' "$ann")" = 201
check "... and the CPU-hour price (201)" \
	test "$(status POST /v1/prices '{"resource":"cpu","per_hour":36000000,"valid_from":"2026-01-01T00:00:00Z"}' "$ann")" = 201
check "a price starting before the current one: 409" \
	test "$(status POST /v1/prices '{"resource":"gpu","gpu_type":"h100","per_hour":5,"valid_from":"2025-01-01T00:00:00Z"}' "$ann")" = 409
check "... and the GiB-hour price of memory (201)" \
	test "$(status POST /v1/prices '{"resource":"mem","per_hour":3600000,"valid_from":"2026-01-01T00:00:00Z"}' "$ann")" = 201
check "a memory price of a GPU type: 400" \
	test "$(status POST /v1/prices '{"resource":"mem","gpu_type":"h100","per_hour":1}' "$ann")" = 400
check "a valid_from that is not a time: 400" \
	test "$(status POST /v1/prices '{"resource":"cpu","per_hour":1,"valid_from":"soon"}' "$ann")" = 400
check "anyone signed in reads the prices" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/prices -H 'Authorization: Bearer $bob' | grep -q '\"per_hour\":\"3600000000\"'"
check "capacity: 8 h100 GPUs, all free" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/capacity -H 'Authorization: Bearer $bob' | grep -q '\"gpu_type\":\"h100\",\"total\":8,\"free\":8,\"nodes\":2'"

# sess PROJECT BODY: start a session, print its id and job id
sess() {
	local out
	out=$(api POST "/v1/orgs/alpha/projects/$1/sessions" "$2" "$ann")
	echo "$(echo "$out" | jget '["id"]') $(echo "$out" | jget '["job_id"]')"
}
metered() { test "$(psql_q "SELECT metered_done FROM sessions WHERE id = $1")" = t; }
billed() { test "$(psql_q "SELECT count(*) FROM usage WHERE session_id = $1")" -gt 0; }
running() { squeue -h -j "$1" -o %T | grep -qx RUNNING; }
gone() { [ -z "$(squeue -h -j "$1")" ]; }
# billed GPU-seconds (or, with MEM set, MiB-seconds) of session $1 = the
# job's ElapsedRaw times its GPUs (MiB) ($3)
exact() {
	local billed real what=${MEM:+mem_mb} unit=${MEM:+MiB}
	billed=$(psql_q "SELECT coalesce(sum(seconds * ${what:-gpus}), -1) FROM usage WHERE session_id = $1")
	real=$(($(sacct -j "$2" -X -n -P -o ElapsedRaw) * $3))
	echo "session $1 job $2: billed $billed ${unit:-GPU}-seconds, ran $real"
	[ "$billed" = "$real" ] && [ "$real" -gt 0 ]
}
exact_mem() { MEM=1 exact "$@"; }

read -r s1 j1 < <(sess train '{"gpus":2,"gpu_type":"h100","mem":2048,"command":"sleep 3","time_limit":1}')
check "a 2-GPU session runs" wait_until 20 running "$j1"
check "capacity shows 2 h100s taken" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/capacity -H 'Authorization: Bearer $ann' | grep -q '\"total\":8,\"free\":6'"
check "it is billed while it runs" wait_until 20 billed "$s1"
check "... and, once ended, to the second: GPU-seconds as the controller's accounting says" \
	wait_until 30 metered "$s1"
check "... exactly" exact "$s1" "$j1" 2
check "... and its memory (2 GiB) to the second too" exact_mem "$s1" "$j1" 2048

# a restart of spur-cloud while a session runs and ends
read -r s2 j2 < <(sess infer '{"gpus":1,"gpu_type":"h100","command":"sleep 4","time_limit":1}')
wait_until 20 running "$j2"
check "a second session is billed while it runs" wait_until 20 billed "$s2"
stop_cloud
check "spur-cloud stopped, the job ends meanwhile" wait_until 30 gone "$j2"
check "spur-cloud starts again" start_cloud -f "$T/slurm.conf" --meter-interval 1
check "... and bills what it missed, once" wait_until 30 metered "$s2"
check "... exactly (across the restart)" exact "$s2" "$j2" 1

# kill -9 of the controller while a session runs
read -r s3 j3 < <(sess train '{"gpus":3,"gpu_type":"h100","command":"sleep 5","time_limit":1}')
wait_until 20 running "$j3"
wait_until 20 billed "$s3"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller, killed and started again, serves" wait_until 20 squeue -h
check "the session's job has ended" wait_until 30 gone "$j3"
check "... it is billed to its end" wait_until 30 metered "$s3"
check "... exactly (across the controller's kill -9)" exact "$s3" "$j3" 3
check "every usage row is whole: no interval billed twice" \
	test "$(psql_q "SELECT count(*) FROM (SELECT session_id, t0 FROM usage WHERE NOT correction GROUP BY 1, 2 HAVING count(*) > 1) d")" = 0

# reports
ALPHA="org_id = (SELECT id FROM orgs WHERE name = 'alpha')"
total=$(psql_q "SELECT sum(seconds * gpus) FROM usage WHERE $ALPHA")
check "usage by GPU type: all of it on h100" \
	bash -c "curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?by=gpu_type' -H 'Authorization: Bearer $vic' | grep -q '\"key\":\"h100\",\"gpu_seconds\":\"$total\"'"
check "usage by project: train and infer" \
	bash -c "curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?by=project' -H 'Authorization: Bearer $ann' | grep -q '\"key\":\"infer\".*\"key\":\"train\"'"
check "usage by user and by day" \
	bash -c "curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?by=user' -H 'Authorization: Bearer $ann' | grep -q '\"key\":\"ann@a.org\"' && curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?by=day' -H 'Authorization: Bearer $ann' | grep -q '\"key\":\"$(date -u +%F)\"'"
check "usage from tomorrow on: none" \
	bash -c "curl -s 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?from=$(date -u -d tomorrow +%F)' -H 'Authorization: Bearer $ann' | grep -qx '{\"usage\":\\[\\]}'"
check "a bad grouping or day: 400" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?by=moon' -H 'Authorization: Bearer $ann') = 400 ] && [ \$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$CPORT/v1/orgs/alpha/usage?from=yesterday' -H 'Authorization: Bearer $ann') = 400 ]"
month=$(date -u +%Y-%m)
cost=$(psql_q "SELECT sum(cost) FROM usage WHERE $ALPHA")
check "this month's invoice (JSON): the same GPU-seconds and cost" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/invoices/$month -H 'Authorization: Bearer $ann' | grep -q '\"total\":{\"gpu_seconds\":$total,\"cpu_seconds\":[0-9]*,\"mem_mb_seconds\":[0-9]*,\"cost\":$cost}'"
check "... priced: a GPU-second 1,000,000, a CPU-second 10,000, a GiB-second 1,000" \
	test "$cost" = "$(psql_q "SELECT sum(seconds * gpus * 1000000 + seconds * cpus * 10000 + seconds * mem_mb * 1000 / 1024) FROM usage WHERE $ALPHA")"
curl -s "http://127.0.0.1:$CPORT/v1/orgs/alpha/invoices/$month.csv" -H "Authorization: Bearer $ann" -D csv.h -o inv.csv
check "... and as CSV: header, a line per project and type, the total" \
	bash -c "grep -qi '^content-type: text/csv' csv.h && head -1 inv.csv | grep -q '^project,gpu_type,gpu_seconds,cpu_seconds,mem_mb_seconds,cost' && grep -q '^train,h100,' inv.csv && tail -1 inv.csv | grep -q '^total,,$total,[0-9]*,[0-9]*,$cost'"
check "a viewer gets no invoice (403)" test "$(status GET "/v1/orgs/alpha/invoices/$month" '' "$vic")" = 403
check "a month that is not one: 404" test "$(status GET /v1/orgs/alpha/invoices/2026-1 '' "$ann")" = 404
check "bob sees none of alpha's usage, invoices or budget (404)" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$CPORT/v1/orgs/alpha/usage -H 'Authorization: Bearer $bob') = 404 ] && [ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$CPORT/v1/orgs/alpha/invoices/$month -H 'Authorization: Bearer $bob') = 404 ] && [ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$CPORT/v1/orgs/alpha/budget -H 'Authorization: Bearer $bob') = 404 ]"
check "... and his own organisation's shows only its own project" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/beta/usage -H 'Authorization: Bearer $bob' | grep -q '^{\"usage\":\\[{\"key\":\"p\",[^]]*}\\]}\$'"

# a credit budget: what is spent plus 4 GPU-seconds' worth
check "bob cannot grant credit (403)" \
	test "$(status POST /v1/orgs/alpha/credits '{"amount":1}' "$bob")" = 403
check "a zero credit: 400" test "$(status POST /v1/orgs/alpha/credits '{"amount":0}' "$ann")" = 400
check "ann grants alpha what it spent and 4 GPU-seconds more (201)" \
	test "$(status POST /v1/orgs/alpha/credits "{\"amount\":$((cost + 4000000)),\"note\":\"trial\"}" "$ann")" = 201
check "the budget shows the balance" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/budget -H 'Authorization: Bearer $vic' | grep -q '\"budgeted\":\"t\",\"credit\":\"$((cost + 4000000))\",\"spent\":\"$cost\",\"balance\":\"4000000\"'"
read -r s4 j4 < <(sess train '{"gpus":1,"gpu_type":"h100","command":"sleep 120","time_limit":5}')
check "a session runs on the credit left" wait_until 20 running "$j4"
check "... and is stopped when it is spent, saying why" \
	wait_until 60 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s4 -H 'Authorization: Bearer $ann' | grep -q '\"state\":\"ended\",\"outcome\":\"cancelled\",\"reason\":\"budget: the organisation.s credit is spent\"'"
check "... its job cancelled" gone "$j4"
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"gpus":1,"command":"true","time_limit":1}' "$ann")
check "a new session is refused: 402" test "$(echo "$out" | tail -1)" = 402
check "... saying why" grep -q '"error":"budget: the organisation.s credit is spent' <<<"$out"
check "... while bob's organisation (no budget) starts one (201)" \
	test "$(status POST /v1/orgs/beta/projects/p/sessions '{"command":"true","time_limit":1}' "$bob")" = 201
check "ann turns alpha's budget off (200)" test "$(status PUT /v1/orgs/alpha/budget '{"budgeted":false}' "$ann")" = 200
check "... and alpha starts sessions again (201)" \
	test "$(status POST /v1/orgs/alpha/projects/train/sessions '{"command":"true","time_limit":1}' "$ann")" = 201
check "bob's shell session, no terminal for its idle limit (1 minute), is stopped, saying why" \
	wait_until 100 bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/beta/sessions/$idle -H 'Authorization: Bearer $bob' | grep -q '\"state\":\"ended\",\"outcome\":\"cancelled\",\"reason\":\"idle: no terminal for 1 min\"'"
check "the credit ledger lists the grant" \
	bash -c "curl -s http://127.0.0.1:$CPORT/v1/orgs/alpha/credits -H 'Authorization: Bearer $ann' | grep -q '\"note\":\"trial\"'"

# the web console, in a real browser (headless Chromium): the same API
if command -v chromium >/dev/null; then
	ch() { timeout 90 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/chrome" "$@" 2>>"$T/chrome.err"; }
	U="http://127.0.0.1:$CPORT/console"
	ch --virtual-time-budget=8000 --dump-dom "$U#token=$ann&org=alpha" >console.html
	check "the console loads its data (ann, the administrator)" grep -q 'data-loaded="1"' console.html
	check "... the sessions, with the budget's reason" grep -q "budget: the organisation" console.html
	check "... capacity by type" grep -q '<td>h100</td>' console.html
	check "... usage by project and the plot by day" \
		bash -c "grep -q '<td>train</td>' console.html && grep -q 'class=\"bar\"' console.html"
	check "... this month's invoice with its total" grep -q '<b>total</b></td><td></td><td>' console.html
	check "... the administration: prices" grep -q '<td>3600000000</td>' console.html
	ch --virtual-time-budget=8000 --dump-dom "$U#token=$vic&org=alpha" >console-vic.html
	check "a viewer's console: no administration, no invoice" \
		bash -c "grep -q 'id=\"admin\" hidden' console-vic.html && grep -q 'invoices: the organisation' console-vic.html"
	rm -f "$BUILD/cloud-console.png"
	ch --window-size=1400,1000 --virtual-time-budget=8000 --screenshot="$BUILD/cloud-console.png" "$U#token=$ann&org=alpha" >/dev/null
	check "a screenshot is saved: $BUILD/cloud-console.png" sh -c "[ \$(stat -c %s '$BUILD/cloud-console.png') -gt 20000 ]"
	read -r st jt < <(sess infer '{"template":"shell","time_limit":2}')
	wait_until 20 running "$jt"
	# the terminal's answers come in real time: Chromium driven through its
	# DevTools protocol (tests/system/cdp.py), not --dump-dom's virtual time
	CDP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	timeout 90 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-cdp" \
		--remote-debugging-port="$CDP" about:blank >/dev/null 2>>"$T/chrome.err" &
	chpid=$!
	python3 "$HERE/cdp.py" "$CDP" "$U#token=$ann&org=alpha&term=$st&cmd=echo%20console-%24((6*7))" \
		"document.getElementById('term').textContent" console-42 >console-term.txt 2>&1
	kill "$chpid" 2>/dev/null
	wait "$chpid" 2>/dev/null
	check "the console's terminal: a shell in the session, a line typed, its answer" \
		grep -q '^console-42' console-term.txt
	api DELETE "/v1/orgs/alpha/sessions/$st" '' "$ann" >/dev/null
else
	echo "skip: the console cases (no chromium; make deps installs it)"
fi
finish
