#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# spurrestd against the CLI in the same run: a controller, 4 simulated nodes
# and spurrestd on loopback; prints "name: value".
#   sbatch_jobs_per_s   N x `sbatch --hold --wrap=true` (a process each): the baseline
#   rest_submit_per_s   N x POST /slurm/v0.0.40/job/submit (one keep-alive connection)
#   rest_jobs_ms_Q      median GET /slurm/v0.0.40/jobs with Q jobs queued
#   squeue_ms_Q         median `squeue` with the same queue (baseline)
#   metrics_ms_Q        median GET /metrics with the same queue
# Usage: bench/bench_rest.sh BUILD_DIR   (N=300 by default)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
N=${N:-300}
T=$(mktemp -d /tmp/spur-bench.XXXXXX)
export SLURM_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
. "$(dirname "$0")/cluster.sh"
PORT=$(free_port) # below the ephemeral range, not taken
RP=$(free_port)   # spurrestd's
trap 'stop_cluster; rm -rf "$T"' EXIT
start_cluster 4
"$BUILD/src/rest/spurrestd" -f "$T/slurm.conf" -p "$RP" -L "$T/rest.log" &
echo $! >"$T/rest.pid"
cd "$T"
tok=$(scontrol token lifespan=3600 | sed -n 's/^SLURM_JWT=//p')
t0=$(date +%s.%N)
for _ in $(seq 1 "$N"); do sbatch --hold --parsable -o /dev/null --wrap=true >/dev/null; done
t1=$(date +%s.%N)
echo "host_cpus: $(nproc)"
echo "sbatch_jobs_per_s: $(awk -v n="$N" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", n/(b-a)}') (N=$N, baseline)"
python3 - "$RP" "$tok" "$N" "$T" <<'PY'
import http.client, json, statistics, subprocess, sys, time
port, tok, n, tdir = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
H = {"X-SLURM-USER-TOKEN": tok, "Content-Type": "application/json"}
c = http.client.HTTPConnection("127.0.0.1", port)
def call(m, p, body=None):
    c.request(m, p, body=body, headers=H)
    r = c.getresponse()
    data = r.read()
    if r.status != 200:
        raise SystemExit("%s %s: %d %s" % (m, p, r.status, data[:200]))
    return data
body = json.dumps({"script": "#!/bin/sh\ntrue", "job": {"current_working_directory": tdir,
                   "standard_output": "/dev/null", "hold": True}})
t0 = time.time()
for _ in range(n):
    call("POST", "/slurm/v0.0.40/job/submit", body)
rest = n / (time.time() - t0)
print("rest_submit_per_s: %.1f (N=%d)" % (rest, n))
q = 2 * n
def med(f, k=7):
    ts = []
    for _ in range(k):
        a = time.time(); f(); ts.append((time.time() - a) * 1000)
    return statistics.median(ts)
rj = med(lambda: call("GET", "/slurm/v0.0.40/jobs"))
sq = med(lambda: subprocess.run(["squeue"], stdout=subprocess.DEVNULL, check=True))
mt = med(lambda: call("GET", "/metrics"))
print("rest_jobs_ms_%d: %.1f" % (q, rj))
print("squeue_ms_%d: %.1f (baseline)" % (q, sq))
print("metrics_ms_%d: %.1f" % (q, mt))
PY
