#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud on a one-node loopback cluster (8 simulated GPUs) and a real
# PostgreSQL started in a private folder:
#  - session start latency with the cluster idle: N sessions of `true`
#    (1 GPU) one after another, each from the POST to the first answer that
#    says running or ended (the service asked every 10 ms); baseline in the
#    same run: `sbatch` of the same job, to the first squeue that does not
#    show it pending;
#  - API requests per second for session listing with 10,000 sessions in
#    the database (inserted ended, as after their life): pages of 100 and of
#    1,000, one keep-alive client, 5 s each; baseline in the same run: GET
#    /openapi.json (the HTTP floor: no database, no controller).
# Figures are printed; bench/README.md records them with date and
# conditions.
set -eu
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
N=${BENCH_CLOUD_N:-30}
CLOUD="$BUILD/src/cloud/spur-cloud"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$CLOUD" ] || { echo "bench_cloud: spur-cloud not built; skipped"; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "bench_cloud: needs postgresql; skipped"; exit 0; }
T=$(mktemp -d)
chmod 755 "$T"
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
trap 'stop_cluster; pg_as "$PG_BIN/pg_ctl" -D "$T/pg" -m fast -w stop >/dev/null 2>&1; rm -rf "$T"' EXIT
. "$(dirname "$0")/cluster.sh"
PORT=$(free_port)
export SLURM_CONF="$T/slurm.conf" SPUR_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
start_cluster 1

# PostgreSQL in $T, then spur-cloud against it
PGPORT=$(free_port)
mkdir -p "$T/pg" "$T/pgsock" "$T/pglog"
[ "$(id -u)" -eq 0 ] && chown postgres "$T/pg" "$T/pgsock" "$T/pglog"
pg_as "$PG_BIN/initdb" -D "$T/pg" -U spur --auth=trust -E UTF8 >/dev/null
pg_as "$PG_BIN/pg_ctl" -D "$T/pg" -l "$T/pglog/pg.log" -w -o "-p $PGPORT -k $T/pgsock -c listen_addresses=''" start >/dev/null
CI="host=$T/pgsock port=$PGPORT dbname=postgres user=spur"
CPORT=$(free_port)
"$CLOUD" -d "$CI" -p "$CPORT" -f "$T/slurm.conf" --meter-interval 0 -L "$T/cloud.log" &
echo $! >"$T/cloud.pid"
until_s 20 "spur-cloud serving" curl -sf "http://127.0.0.1:$CPORT/openapi.json" -o /dev/null

python3 - "$CPORT" "$N" "$CI" "$PG_BIN/psql" <<'PY'
import http.client, json, subprocess, sys, time
port, n, conninfo, psql = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = http.client.HTTPConnection("127.0.0.1", port)
def call(method, path, body=None, tok=None):
    h = {"Content-Type": "application/json"}
    if tok:
        h["Authorization"] = "Bearer " + tok
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    return r.status, r.read()
call("POST", "/v1/signup", {"email": "a@b.c", "password": "bench password", "org": "bench"})
tok = json.loads(call("POST", "/v1/login", {"email": "a@b.c", "password": "bench password"})[1])["token"]
call("POST", "/v1/orgs/bench/projects", {"name": "p", "account": "bench"}, tok)

def stats(v):
    v = sorted(v)
    return "median %.0f ms, p99 %.0f ms" % (v[len(v) // 2] * 1000, v[min(len(v) - 1, int(len(v) * 0.99))] * 1000)

# session start latency: POST -> running (or already ended)
lat = []
for i in range(n):
    t0 = time.monotonic()
    st, b = call("POST", "/v1/orgs/bench/projects/p/sessions",
                 {"gpus": 1, "command": "true", "time_limit": 1}, tok)
    s = json.loads(b)
    while s.get("state") not in ("running", "ended"):
        time.sleep(0.01)
        s = json.loads(call("GET", "/v1/orgs/bench/sessions/%s" % s["id"], None, tok)[1])
    lat.append(time.monotonic() - t0)
print("session start (POST to running), %d sessions: %s" % (n, stats(lat)))
base = []
for i in range(n):
    t0 = time.monotonic()
    j = subprocess.run(["sbatch", "--parsable", "-G", "1", "-o", "/dev/null", "--wrap", "true"],
                       capture_output=True, text=True).stdout.strip()
    while subprocess.run(["squeue", "-h", "-j", j, "-t", "PD", "-o", "%i"],
                         capture_output=True, text=True).stdout.strip():
        time.sleep(0.01)
    base.append(time.monotonic() - t0)
print("baseline: sbatch to not pending (squeue every 10 ms), %d jobs: %s" % (n, stats(base)))

# 10,000 sessions in the database
subprocess.run([psql, conninfo, "-qAtc",
    "INSERT INTO sessions (org_id, project_id, user_id, name, gpus, template, command, "
    "time_limit, state, outcome, job_id, ended, metered_done) SELECT 1, 1, 1, 's' || g, 1, "
    "'command', 'true', 60, 'ended', 'completed', 1000000 + g, now(), true "
    "FROM generate_series(1, 10000) g; ANALYZE"], check=True)
def rate(path, t=None, secs=5.0):
    done, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < secs:
        st, b = call("GET", path, None, t)
        assert st == 200, (st, b[:200])
        done += 1
    return done / (time.monotonic() - t0)
r0 = rate("/openapi.json")
r100 = rate("/v1/orgs/bench/sessions?limit=100&after=5000", tok)
r1000 = rate("/v1/orgs/bench/sessions?limit=1000&after=5000", tok)
print("listing with 10,000 sessions: %.0f req/s (pages of 100), %.0f req/s (pages of 1,000)" % (r100, r1000))
print("baseline: GET /openapi.json (no database): %.0f req/s; pages of 100 at %.2f of it" % (r0, r100 / r0))
PY
