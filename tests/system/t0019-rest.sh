#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# spurrestd: slurmrestd's paths and shapes over a running cluster, tokens
# (missing, forged, expired, another user's job), malformed and oversized
# requests, Prometheus metrics, and the dashboard loaded in headless
# Chromium (a screenshot is left in the build folder as dashboard.png).
. "$(dirname "$0")/lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"
HTTP="$HERE/httpreq.py"
JWT="$HERE/jwt.py"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
RP=$((PORT + 7))
"$BUILD/src/rest/spurrestd" -f "$T/slurm.conf" -p "$RP" -i 1 -L "$T/rest.log" 2>>"$T/rest.err" &
echo $! >>"$T/agents.pid" # stopped with the agents
U="http://127.0.0.1:$RP"
req() { # METHOD PATH [BODY] [TOKEN] [USER]: status in $T/status, body in $T/body.json
	local m=$1 p=$2
	shift 2
	"$HTTP" "$m" "$U$p" "$@" >"$T/resp" 2>"$T/http.err" || return 1
	head -n 1 "$T/resp" >"$T/status"
	tail -n +2 "$T/resp" >"$T/body.json"
}
status() { [ "$(cat "$T/status")" = "$1" ]; }
js() { # PYTHON-EXPR over d (the last body): true or not
	python3 -c "import json,sys; d=json.load(open('$T/body.json')); sys.exit(0 if ($1) else 1)"
}
check "spurrestd answers" wait_until 20 req GET /openapi/v3
tok=$(scontrol token lifespan=600 | sed -n 's/^SLURM_JWT=//p')

# --- the API's description
req GET /openapi/v3
check "/openapi/v3 is an OpenAPI 3 document" js 'd["openapi"].startswith("3.") and "/slurm/v0.0.40/jobs" in d["paths"]'
python3 -c "import json; d=json.load(open('$T/body.json'))
for p, ops in sorted(d['paths'].items()):
    for m in ops: print(m.upper(), p.replace('{job_id}', '1').replace('{node_name}', 'mi1').replace('{partition_name}', 'gpu'))" >paths
sbatch -J first --wrap 'echo one' >/dev/null
check "the first job ends" wait_until 20 sh -c "sacct -n -X -o State -j 1 | grep -q COMPLETED"
bad=""
while read -r m p; do
	[ "$m" = DELETE ] && continue
	[ "$m" = POST ] && body='{"job":{"script":"#!/bin/sh\ntrue","current_working_directory":"/tmp"}}' || body=""
	req "$m" "$p" "$body" "$tok" || bad="$bad $m:$p"
	status 200 || bad="$bad $m:$p=$(cat status)"
done <paths
check "every path the document lists answers 200 (${bad:-all})" [ -z "$bad" ]

# --- slurmrestd's shapes
sbatch -J train --gres=gpu:2 --wrap 'echo hello from train; sleep 60' >/dev/null
sbatch -J big -N 1 --gres=gpu:8 --wrap 'sleep 60' >/dev/null
check "both run" wait_until 20 sh -c "[ \$(squeue -h -t R | wc -l) = 2 ]"
req GET /slurm/v0.0.40/jobs "" "$tok"
check "GET jobs: v0.0.40's job_info" js '[j for j in d["jobs"] if j["name"] == "train" and j["job_state"] == ["RUNNING"] and j["time_limit"]["set"] and j["user_name"] == "root" and j["partition"] == "gpu"]'
check "with meta, errors and warnings" js 'd["errors"] == [] and d["warnings"] == [] and d["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.40"'
train=$(squeue -h -o '%i %j' | awk '$2 == "train" {print $1}')
req GET "/slurm/v0.0.40/job/$train" "" "$tok"
check "GET job/{id}: that job" js "len(d['jobs']) == 1 and d['jobs'][0]['job_id'] == $train and d['jobs'][0]['gres_detail'] == ['gpu:2(IDX:0,1)']"
req GET /slurm/v0.0.40/job/99999 "" "$tok"
check "an unknown job: 404 in the errors array" sh -c "grep -qx 404 status && grep -q 'Invalid job id specified' body.json"
req GET /slurm/v0.0.40/nodes "" "$tok"
check "GET nodes: states as flags, gres and gres_used" js 'sorted(n["name"] for n in d["nodes"]) == ["mi1", "mi2"] and all(isinstance(n["state"], list) and n["gres"] == "gpu:mi300x:8" for n in d["nodes"]) and sorted(n["gres_used"].split("(")[0] for n in d["nodes"]) == ["gpu:2", "gpu:8"]'
req GET /slurm/v0.0.40/node/mi1 "" "$tok"
check "GET node/{name}" js 'd["nodes"][0]["name"] == "mi1"'
req GET /slurm/v0.0.40/node/nosuch "" "$tok"
check "an unknown node: 404" status 404
req GET /slurm/v0.0.40/partitions "" "$tok"
check "GET partitions" js 'd["partitions"][0]["name"] == "gpu" and d["partitions"][0]["nodes"]["total"] == 2 and d["partitions"][0]["partition"]["state"] == ["UP"]'
req POST /slurm/v0.0.40/job/submit "{\"script\":\"#!/bin/sh\\necho from rest \$A\",\"job\":{\"name\":\"viarest\",\"current_working_directory\":\"$T\",\"environment\":[\"A=42\"],\"time_limit\":{\"set\":true,\"number\":5},\"tres_per_node\":\"gres/gpu:1\",\"bogus\":1}}" "$tok"
check "POST job/submit: a job id" js 'd["job_id"] > 0 and d["step_id"] == "batch"'
check "an unknown field is a warning" js 'd["warnings"][0]["source"] == "bogus"'
rid=$(python3 -c "import json; print(json.load(open('$T/body.json'))['job_id'])")
check "the REST job runs with its environment" wait_until 20 grep -qx 'from rest 42' "slurm-$rid.out"
req GET "/slurm/v0.0.40/job/$rid" "" "$tok"
check "with its limit and GPU" js 'd["jobs"][0]["time_limit"]["number"] == 5 and d["jobs"][0]["tres_per_node"] == "gpu:1"' 
req POST /slurm/v0.0.40/job/submit '{"job":{"name":"x"}}' "$tok"
check "a job without a script: 400" sh -c "grep -qx 400 status && grep -q 'a batch script is required' body.json"
req POST /slurm/v0.0.40/job/submit "{\"script\":\"#!/bin/sh\",\"job\":{\"current_working_directory\":\"$T\",\"partition\":\"nosuch\"}}" "$tok"
check "an unknown partition: 400 with Slurm's words" sh -c "grep -qx 400 status && grep -q 'Invalid partition name specified' body.json"
req POST /slurm/v0.0.40/job/submit "{\"script\":\"#!/bin/sh\",\"job\":{\"current_working_directory\":\"$T\",\"tasks\":-3}}" "$tok"
check "a negative task count: 400" sh -c "grep -qx 400 status && grep -q 'out of range' body.json"
req GET /slurm/v0.0.40/ping "" "$tok"
check "GET ping" js 'd["pings"][0]["pinged"] == "UP"'
req GET /slurm/v0.0.40/diag "" "$tok"
check "GET diag: submissions and cycles" js 'd["statistics"]["jobs_submitted"] >= 4 and d["statistics"]["schedule_cycle_total"] > 0'
req GET /slurmdb/v0.0.40/job/1 "" "$tok"
check "GET slurmdb job/{id}: the history" js 'd["jobs"][0]["state"]["current"] == ["COMPLETED"] and d["jobs"][0]["name"] == "first"'
req GET /spur/v1/job/"$train"/output "" "$tok"
check "a job's output tail" js '"hello from train" in d["tail"]'
pn=$(sbatch --parsable -o 'per-%N-%j.txt' --wrap 'echo on my node')
check "an output named with %N" wait_until 20 sh -c "[ -s per-mi1-$pn.txt ] || [ -s per-mi2-$pn.txt ]"
req GET /spur/v1/job/"$pn"/output "" "$tok"
check "its tail is found on its batch host's name" js '"on my node" in d["tail"] and d["found"]'
held=$(sbatch --parsable --hold -J before --wrap 'echo released')
req POST "/slurm/v0.0.40/job/$held" '{"job":{"name":"after","time_limit":{"set":true,"number":7},"account":"x"}}' "$tok"
check "POST job/{id} updates a pending job" sh -c "grep -qx 200 status && scontrol show job $held | grep -q 'JobName=after' && scontrol show job $held | grep -q 'TimeLimit=00:07:00'"
check "a field it cannot change is a warning" js 'd["warnings"][0]["source"] == "account"'
req POST "/slurm/v0.0.40/job/$held" '{"hold":false}' "$tok"
check "and hold:false releases it" wait_until 20 grep -qx released "slurm-$held.out"
req POST "/slurm/v0.0.40/job/$held" '{"name":5}' "$tok"
check "a bad value: 400" status 400

# --- tokens
req GET /slurm/v0.0.40/jobs
check "no token: 401" sh -c "grep -qx 401 status && grep -q 'Protocol authentication error' body.json"
req GET /slurm/v0.0.40/jobs "" "$("$JWT" sign "$T/slurm.conf" root)"
check "a token signed with another key: 401" status 401
req GET /slurm/v0.0.40/jobs "" "$("$JWT" sign "$T/jwt_hs256.key" root -10)"
check "an expired token: 401" sh -c "grep -qx 401 status && grep -q 'token expired' body.json"
req GET /slurm/v0.0.40/jobs "" "$("$JWT" none root)"
check "an unsigned token: 401" status 401
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null; then
	for u in spur-alice spur-bob; do id "$u" >/dev/null 2>&1 || useradd -M -r -s /bin/sh "$u"; done
	chmod 755 "$T"
	mkdir -p "$T/alice" && chown spur-alice "$T/alice"
	atok=$(scontrol token username=spur-alice | sed -n 's/^SLURM_JWT=//p')
	btok=$(scontrol token username=spur-bob | sed -n 's/^SLURM_JWT=//p')
	req POST /slurm/v0.0.40/job/submit "{\"script\":\"#!/bin/sh\\nid -un; sleep 60\",\"job\":{\"name\":\"alices\",\"current_working_directory\":\"$T/alice\"}}" "$atok"
	aid=$(python3 -c "import json; print(json.load(open('$T/body.json')).get('job_id', 0))")
	check "alice submits over REST: the job is hers" sh -c "squeue -h -j $aid -o %u | grep -qx spur-alice"
	req GET /slurm/v0.0.40/jobs "" "$atok"
	check "alice's jobs list holds hers alone" js "[j['job_id'] for j in d['jobs']] == [$aid]"
	req GET "/slurm/v0.0.40/job/$aid" "" "$btok"
	check "bob asking for alice's job: 404" status 404
	req DELETE "/slurm/v0.0.40/job/$aid" "" "$btok"
	check "bob cancelling it: 403" sh -c "grep -qx 403 status && grep -q 'Access/permission denied' body.json"
	req POST "/slurm/v0.0.40/job/$aid" '{"name":"bobs"}' "$btok"
	check "bob renaming it: 403" status 403
	req GET "/spur/v1/job/$aid/output" "" "$btok"
	check "nor read its output" status 404
	req GET /slurm/v0.0.40/jobs "" "$atok" spur-bob
	check "alice's token naming bob (X-SLURM-USER-NAME): 401" status 401
	req GET /slurm/v0.0.40/jobs "" "$tok" spur-alice
	check "root's token naming alice sees alice's jobs" js "[j['job_id'] for j in d['jobs']] == [$aid]"
	# spurrestd needs no rights: run by bob, its metrics still count every job
	runuser -u spur-bob -- "$BUILD/src/rest/spurrestd" -f "$T/slurm.conf" -p $((RP + 1)) 2>>"$T/rest2.err" &
	echo $! >>"$T/agents.pid"
	check "a spurrestd run by bob answers" wait_until 20 "$HTTP" GET "http://127.0.0.1:$((RP + 1))/openapi/v3"
	check "and its metrics count every user's jobs" sh -c "[ \"\$('$HTTP' GET '$U/metrics' | grep ^spur_jobs)\" = \"\$('$HTTP' GET 'http://127.0.0.1:$((RP + 1))/metrics' | grep ^spur_jobs)\" ] && '$HTTP' GET '$U/metrics' | grep -q 'spur_jobs{state=\"RUNNING\"'"
	req DELETE "/slurm/v0.0.40/job/$aid" "" "$atok"
	check "alice cancels hers: 200" status 200
fi

# --- bad requests never harm the server
req POST /slurm/v0.0.40/job/submit '{"job":' "$tok"
check "a body that is not JSON: 400" sh -c "grep -qx 400 status && grep -q 'Unable to parse' body.json"
head -c 2000000 /dev/zero | tr '\0' 'a' >big.json
req POST /slurm/v0.0.40/job/submit @big.json "$tok"
check "a 2 MB body: 413" status 413
req GET "/slurm/v0.0.40/$(head -c 3000 /dev/zero | tr '\0' x)" "" "$tok"
check "a 3 KB path: 4xx" sh -c "s=\$(cat status); [ \$s -ge 400 ] && [ \$s -lt 500 ]"
HTTP_HEADERS="X-Big: $(head -c 100000 /dev/zero | tr '\0' y)" req GET /slurm/v0.0.40/jobs "" "$tok"
check "a 100 KB header: 4xx" sh -c "s=\$(cat status); [ \$s -ge 400 ] && [ \$s -lt 500 ]"
req GET /nowhere "" "$tok"
check "an unknown path: 404" status 404
req PUT /slurm/v0.0.40/jobs "" "$tok"
check "an unknown method: 404" status 404
python3 - "$RP" <<'PY' >garbage.out
import socket, sys
for junk in [b"\x00\xff\xfe garbage\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
             b"GET /%%%%%00 HTTP/1.1\r\n\r\n", b"POST /slurm/v0.0.40/job/submit HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    s.sendall(junk)
    try:
        print(s.recv(100).split(b"\r\n")[0].decode(errors="replace"))
    except socket.timeout:
        print("timeout")
    s.close()
PY
check "garbage on the socket gets 4xx answers" sh -c "[ \$(grep -c 'HTTP/1.1 4' garbage.out) -ge 3 ]"
req GET /slurm/v0.0.40/ping "" "$tok"
check "and the server still answers" status 200

# --- metrics
req GET /metrics
check "/metrics: jobs by state and partition" grep -qx 'spur_jobs{state="RUNNING",partition="gpu"} 2' body.json
check "nodes by state" grep -q '^spur_nodes{state="ALLOCATED"} 1$' body.json
check "GPUs allocated and idle by type" sh -c "grep -qx 'spur_gpus{type=\"mi300x\",state=\"allocated\"} 10' body.json && grep -qx 'spur_gpus{type=\"mi300x\",state=\"idle\"} 6' body.json"
check "scheduler cycle time, submissions, Raft term and commit index" sh -c "grep -q '^spur_scheduler_cycle_seconds ' body.json && grep -q '^spur_jobs_submitted_total [1-9]' body.json && grep -q '^spur_raft_term [1-9]' body.json && grep -q '^spur_raft_commit_index [1-9]' body.json"
check "every sample line is Prometheus text" sh -c "! grep -v '^#' body.json | grep -vE '^[a-z_]+(\{[a-z_]+=\"[^\"]*\"(,[a-z_]+=\"[^\"]*\")*\})? [0-9.e+-]+$'"

# --- the dashboard, in a real browser
if command -v chromium >/dev/null; then
	ch() { timeout 90 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/chrome" "$@" 2>>"$T/chrome.err"; }
	check "the busy GPUs are sampled" wait_until 20 sh -c "'$HTTP' GET '$U/spur/v1/utilization' '' '$tok' | grep -q '\"gpus_alloc\": 10'"
	ch --virtual-time-budget=5000 --dump-dom "$U/ui#token=$tok&job=$train" >dom.html
	check "the dashboard loads its data" grep -q 'data-loaded="1"' dom.html
	check "the queue shows the jobs" sh -c "grep -q '<td>train</td>' dom.html && grep -q '<td>big</td>' dom.html"
	check "the GPU map: 10 busy GPUs of 16" sh -c "[ \$(grep -o 'class=\"gpu busy\"' dom.html | wc -l) = 10 ] && [ \$(grep -o 'class=\"gpu free\"' dom.html | wc -l) = 6 ]"
	check "the utilisation plot is drawn" grep -q 'id="gpu-line"' dom.html
	check "the job detail shows its output" grep -q 'hello from train' dom.html
	ch --window-size=1400,1000 --virtual-time-budget=5000 --screenshot="$BUILD/dashboard.png" "$U/ui#token=$tok&job=$train" >/dev/null
	check "a screenshot is saved: $BUILD/dashboard.png" sh -c "[ \$(stat -c %s '$BUILD/dashboard.png') -gt 20000 ]"
else
	echo "skip: the dashboard cases (no chromium; make deps installs it)"
fi
check "spurrestd is still up" kill -0 "$(tail -n 1 "$T/agents.pid")"
finish
