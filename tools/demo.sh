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

stop() {
	[ "${DEMO_KEEP:-0}" = 1 ] && return
	kill $(cat "$dir"/*.pid) 2>/dev/null || true
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
if [ "${DEMO_KEEP:-0}" = 1 ]; then echo "Dashboard: http://localhost:$rport/ui#token=$tok"; else echo "(DEMO_KEEP=1 make demo leaves the cluster and the dashboard running)"; fi
printf '\nDemo done. Logs and state are in %s.\n' "$dir"
