#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud's jupyter template with Debian's real Jupyter notebook server
# (jupyter-notebook) in a session on a real cluster (a controller and one
# agent with simulated GPUs, on loopback) and a real PostgreSQL: the
# session's notebook is reached through the service's port proxy, a page
# and a kernel running code over its WebSocket, as the notebook's page
# does it; the user never holds the server's secret, which the server
# itself demands (no page without it, straight to the node's port); other
# organisations and viewers are refused; the template takes no command.
# Skipped without jupyter on this host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
command -v jupyter >/dev/null && jupyter notebook --version >/dev/null 2>&1 ||
	{ echo "cases: 0 passed, 0 failed (needs jupyter-notebook)"; finish; exit 0; }
trap 'pg_stop; cleanup' EXIT
one_node_cloud
three_users

check "the jupyter template takes no command (400)" test "$(status POST /v1/orgs/alpha/projects/train/sessions \
	'{"template":"jupyter","command":"true","time_limit":5}' "$ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"name":"nb","template":"jupyter","gpus":1,"time_limit":5}' "$ann")
check "ann starts a jupyter session (201)" test "$(echo "$out" | tail -1)" = 201
s=$(echo "$out" | jget '["id"]')
port=$(echo "$out" | jget '["port"]')
job=$(echo "$out" | jget '["job_id"]')
check "... its port is in the answer" bash -c "[ '$port' -ge 20000 ] && [ '$port' -lt 40000 ]"
check "... and not its secret" bash -c "! echo '$out' | grep -qi secret"
BASE="/v1/orgs/alpha/sessions/$s/proxy/$port/"
P="http://127.0.0.1:$CPORT$BASE"
check "the notebook server answers through the proxy (its API, 200)" \
	wait_until 60 bash -c "curl -sf '${P}api' -H 'Authorization: Bearer $ann' | grep -q '\"version\"'"
code=$(curl -s -o /dev/null -w '%{http_code}' -D "$T/nb.h" "${P}?access_token=$ann")
check "a browser's first visit: the notebook redirects within the proxy's path" \
	bash -c "[ '$code' = 302 ] && grep -qi '^location: $BASE' '$T/nb.h'"
check "... to its file tree, which it serves (200, the notebook's page)" \
	bash -c "curl -sf '${P}tree' -H 'Cookie: spur_cloud_token=$ann' | grep -qi 'jupyter'"
check "straight to the node's port, without the secret, the server refuses its API" \
	bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/v1/orgs/alpha/sessions/$s/proxy/$port/api/kernels)\" = 403 ]"
python3 "$(dirname "$0")/jupyter_client.py" "$CPORT" "$BASE" "$ann" 'print("spur", 6 * 7)' "spur 42" >"$T/kernel.out" 2>&1
check "a kernel runs code: its WebSocket through the proxy (execute_request, stream 'spur 42')" \
	grep -q 'spur 42' "$T/kernel.out"
check "... inside the session's job (the kernel is a process of it)" \
	bash -c "python3 '$(dirname "$0")/jupyter_client.py' '$CPORT' '$BASE' '$ann' 'import os; print(\"job\", os.environ.get(\"SLURM_JOB_ID\"))' 'job $job' >'$T/kernel2.out' 2>&1"
check "bob (another organisation): not through the proxy (404)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "${P}api" -H "Authorization: Bearer $bob")" = 404
check "vic (viewer): not through the proxy (403)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "${P}api" -H "Authorization: Bearer $vic")" = 403
python3 "$(dirname "$0")/ws_client.py" "$CPORT" "${BASE}api/kernels/x/channels" "$bob" 'x' x >"$T/ws.bob" 2>&1
check "bob: no WebSocket through the proxy either (404)" grep -q ' 404 ' "$T/ws.bob"
sec=$(psql_q "SELECT secret FROM sessions WHERE id = $s")
check "the secret is in no log of the service nor in the job's description" \
	bash -c "[ ${#sec} = 64 ] && ! grep -q '$sec' '$T/cloud.log' '$T/cloud.err' && ! scontrol show job $job | grep -q '$sec'"
check "ann stops it (200); its job ends" \
	bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' -X DELETE http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s -H 'Authorization: Bearer $ann') = 200 ]"
check "... and the notebook's port is closed with it" wait_until 20 bash -c "! curl -s -o /dev/null http://127.0.0.1:$port/"
finish
