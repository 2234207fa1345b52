#!/bin/sh
# `make demo`: start a local cluster of simulated GPU nodes (spurctld + one
# spurd per node, on loopback), run the example job, show the queue and the
# output, then stop the cluster (DEMO_KEEP=1 leaves it running).
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
ex="$src/etc/examples/mi300x"
dir=${DEMO_DIR:-/tmp/spur-demo}
port=${DEMO_PORT:-26817}
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

rm -rf "$dir"
mkdir -p "$dir"
# the example config, unchanged but for where state goes and the port; the
# demo runs its jobs as whoever runs it, root included (Spur refuses root's
# jobs unless DisableRootJobs=NO)
sed -e "s|^StateSaveLocation=.*|StateSaveLocation=$dir/state|" \
    -e "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$dir/spool|" \
    -e "s|^SlurmctldPort=.*|SlurmctldPort=$port|" "$ex/slurm.conf" >"$dir/slurm.conf"
echo "DisableRootJobs=NO" >>"$dir/slurm.conf"
cp "$ex/gres.conf" "$ex/topology.conf" "$dir/"
export SLURM_CONF="$dir/slurm.conf" PATH="$src/$build/src/cli:$PATH"

# containers need root (the agent runs them as root here): the H100 nodes'
# simulated GPUs are then character devices made here (a major no driver
# holds), so a container job gets exactly its GPUs' nodes through CDI
ctr=0
if [ "$(id -u)" -eq 0 ] && [ -x /bin/busybox ] && { command -v runc || command -v crun; } >/dev/null; then
	ctr=1
	major=$(awk '/^Character/ {c=1; next} /^Block/ {c=0} c {print $1}' /proc/devices |
		sort -n | awk 'BEGIN {m=240} $1==m {m++} END {print m}')
	mkdir -p "$dir/dev"
	{ echo "type h100"; echo "count 8"; } >"$dir/h100-gpus.txt"
	for i in 0 1 2 3 4 5 6 7; do
		mknod "$dir/dev/nvidia$i" c "$major" "$i"
		echo "device $i $dir/dev/nvidia$i" >>"$dir/h100-gpus.txt"
	done
	echo "SpurImageStore=$dir/images" >"$dir/spur.conf"
	"$src/tools/busybox-image.sh" "$dir" >/dev/null
fi

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop() {
	[ "${DEMO_KEEP:-0}" = 1 ] && return
	kill $(cat "$dir"/*.pid) 2>/dev/null || true
	[ -f "$dir/pg/postmaster.pid" ] && pg_as "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1
	true
}
trap stop EXIT

step "Start the controller and 6 simulated nodes (4 MI300X, 2 H100)" \
	"spurctld -f $dir/slurm.conf & spurd -N mi300x-01 ... &"
"$build/src/ctld/spurctld" -f "$dir/slurm.conf" -L "$dir/spurctld.log" &
echo $! >"$dir/ctld.pid"
for n in mi300x-01 mi300x-02 mi300x-03 mi300x-04 h100-01 h100-02; do
	gpus=
	case $n in h100-*) [ $ctr = 1 ] && gpus="--gpus $dir/h100-gpus.txt" ;; esac
	# shellcheck disable=SC2086
	"$build/src/agent/spurd" -f "$dir/slurm.conf" -N "$n" -L "$dir/spurd-$n.log" $gpus &
	echo $! >"$dir/$n.pid"
done
i=0
until [ "$(sinfo -h -N 2>/dev/null | grep -c idle)" -ge 6 ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "demo: nodes did not register" >&2; exit 1; }
	sleep 0.1
done

step "The cluster, as sinfo shows it" "sinfo"
sinfo

cd "$dir"
step "Submit the example: 2 nodes x 8 MI300X GPUs" "sbatch $src/etc/examples/train.sh"
id=$(sbatch --parsable "$src/etc/examples/train.sh")
echo "Submitted batch job $id"
sbatch --wrap 'echo small job on $SLURMD_NODENAME' >/dev/null
sbatch --gres=gpu:h100:4 -J h100job --wrap 'sleep 2; echo $CUDA_VISIBLE_DEVICES' >/dev/null

step "The queue" "squeue"
squeue

step "One job in detail" "scontrol show job $id"
scontrol show job "$id"

step "Wait for the example to finish" "sbatch --wait --dependency=afterany:$id --wrap true"
sbatch --wait --dependency="afterany:$id" --wrap true >/dev/null
squeue

step "Its output" "cat $dir/train-$id.out"
cat "train-$id.out"

if [ $ctr = 1 ]; then
	step "A container job with 2 of an H100 node's GPUs (a busybox image; GPUs simulated)" \
		"srun -w h100-01 --gpus=2 --container-image=$dir/spurbox.tar sh -c '...'"
	srun -w h100-01 --gpus=2 --container-image="$dir/spurbox.tar" sh -c \
		"grep ^ID= /etc/os-release; echo CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES; echo GPU device nodes inside:; ls $dir/dev"
else
	step "Container jobs" "(skipped: they need root, runc or crun, and busybox-static)"
fi

rport=$((port + 3))
step "The REST API and metrics (spurrestd), with a token from scontrol token" \
	"curl -H X-SLURM-USER-TOKEN:\$SLURM_JWT localhost:$rport/slurm/v0.0.40/jobs"
"$src/$build/src/rest/spurrestd" -f "$dir/slurm.conf" -p "$rport" -L "$dir/spurrestd.log" &
echo $! >"$dir/rest.pid"
tok=$(scontrol token lifespan=86400 | sed -n 's/^SLURM_JWT=//p')
python3 - "$rport" "$tok" <<'PY'
import json, sys, time, urllib.request
base = "http://127.0.0.1:%s" % sys.argv[1]
for _ in range(100):
    try:
        urllib.request.urlopen(base + "/openapi/v3", timeout=2).read()
        break
    except OSError:
        time.sleep(0.1)
req = urllib.request.Request(base + "/slurm/v0.0.40/jobs", headers={"X-SLURM-USER-TOKEN": sys.argv[2]})
for j in json.load(urllib.request.urlopen(req))["jobs"]:
    print("job %-4d %-10s %-10s %s" % (j["job_id"], j["name"], j["job_state"][0], j["nodes"]))
print()
for line in urllib.request.urlopen(base + "/metrics").read().decode().splitlines():
    if line.startswith(("spur_jobs{", "spur_gpus{")):
        print(line)
PY
if [ -x "$src/$build/src/cloud/spur-cloud" ] && [ -x "$PG_BIN/initdb" ]; then
	cport=$((port + 10)) pgport=$((port + 11))
	step "Spur-Cloud: its own PostgreSQL (initdb in the demo's folder), the service, a GPU session" \
		"spur-cloud -d 'host=$dir/pgsock port=$pgport dbname=postgres' -p $cport"
	mkdir -p "$dir/pg" "$dir/pgsock" "$dir/pglog"
	chmod 755 "$dir"
	[ "$(id -u)" -eq 0 ] && chown postgres "$dir/pg" "$dir/pgsock" "$dir/pglog"
	pg_as "$PG_BIN/initdb" -D "$dir/pg" -U spur --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
	pg_as "$PG_BIN/pg_ctl" -D "$dir/pg" -l "$dir/pglog/pg.log" -w \
		-o "-p $pgport -k $dir/pgsock -c listen_addresses=''" start >/dev/null
	"$src/$build/src/cloud/spur-cloud" -d "host=$dir/pgsock port=$pgport dbname=postgres user=spur" \
		-p "$cport" -f "$dir/slurm.conf" --meter-interval 1 -L "$dir/spur-cloud.log" &
	echo $! >"$dir/cloud.pid"
	python3 - "$cport" <<'PY'
import json, sys, time, urllib.request, urllib.error
base = "http://127.0.0.1:%s" % sys.argv[1]
def call(method, path, body=None, tok=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    req.add_header("Content-Type", "application/json")
    if tok:
        req.add_header("Authorization", "Bearer " + tok)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
for _ in range(100):
    try:
        urllib.request.urlopen(base + "/openapi.json", timeout=2).read()
        break
    except OSError:
        time.sleep(0.1)
call("POST", "/v1/signup", {"email": "admin@example.org", "password": "demo password", "org": "lab"})
tok = json.loads(call("POST", "/v1/login", {"email": "admin@example.org", "password": "demo password"})[1])["token"]
print("signed in as admin@example.org (the first user: the service's administrator)")
call("POST", "/v1/orgs/lab/projects", {"name": "vision", "account": "vision"}, tok)
call("POST", "/v1/prices", {"resource": "gpu", "per_hour": 2500000}, tok)
print("price: 2.50 a GPU-hour (2,500,000 micro-units)")
print("capacity:", json.loads(call("GET", "/v1/capacity", None, tok)[1])["gpus"])
st, b = call("POST", "/v1/orgs/lab/projects/vision/sessions",
             {"name": "train", "gpus": 2, "gpu_type": "mi300x", "command": "sleep 3", "time_limit": 5}, tok)
s = json.loads(b)
print("session %s: %s, Spur job %s" % (s["id"], s["state"], s["job_id"]))
seen = s["state"]
while s["state"] != "ended":
    time.sleep(0.2)
    s = json.loads(call("GET", "/v1/orgs/lab/sessions/%s" % s["id"], None, tok)[1])
    if s["state"] != seen:
        print("session %s: %s" % (s["id"], s["state"] + (" (%s)" % s["outcome"] if s["outcome"] else "")))
        seen = s["state"]
for _ in range(50):
    u = json.loads(call("GET", "/v1/orgs/lab/usage?by=gpu_type", None, tok)[1])["usage"]
    if u:
        break
    time.sleep(0.2)
for r in u:
    print("usage %s: %s GPU-seconds, cost %s micro-units" % (r["key"], r["gpu_seconds"], r["cost"]))
print("invoice (CSV):")
print(call("GET", "/v1/orgs/lab/invoices/%s.csv" % time.strftime("%Y-%m", time.gmtime()), None, tok)[1].strip())
PY
else
	step "Spur-Cloud" "(skipped: spur-cloud is not built or PostgreSQL is not installed)"
fi
if [ "${DEMO_KEEP:-0}" = 1 ]; then echo "Dashboard: http://localhost:$rport/ui#token=$tok"; else echo "(DEMO_KEEP=1 make demo leaves the cluster and the dashboard running)"; fi
printf '\nDemo done. Logs and state are in %s.\n' "$dir"
