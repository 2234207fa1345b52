#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Container jobs against bare ones, on one simulated node (CPUs=8) on this
# machine, with the busybox image of tools/busybox-image.sh (a docker save
# tarball, unpacked once into the node's store before the timing):
#  - start latency: 200 steps of `true` one after another inside one job,
#    bare and with --container-image; median and p99 of each step's wall
#    time as srun sees it;
#  - the runtime's own floor in the same run: 200 `runc run` (or crun) of
#    a prepared bundle of the same image, with no scheduler;
#  - drain: 200 batch jobs of `true` submitted at once, bare and in the
#    container: jobs per second from the first submission to the last end.
# Needs root (the agent runs containers as root). Figures are printed;
# bench/README.md records them with their date and conditions.
set -eu
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
N=${BENCH_CONTAINER_N:-200}
[ "$(id -u)" -eq 0 ] || { echo "bench_container: needs root; skipped"; exit 0; }
RT=$(command -v runc || command -v crun || true)
[ -n "$RT" ] || { echo "bench_container: needs runc or crun; skipped"; exit 0; }
T=$(mktemp -d)
chmod 755 "$T"
trap 'stop_cluster; rm -rf "$T"' EXIT
. "$(dirname "$0")/cluster.sh"
PORT=$(free_port)
export SLURM_CONF="$T/slurm.conf" SPUR_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
"$(dirname "$0")/../tools/busybox-image.sh" "$T"
IMG="$T/spurbox.tar"
export SPUR_IMAGE_STORE="$T/store"

# median and p99 of the numbers on stdin (milliseconds)
stats() { sort -n | awk '{v[NR]=$1} END {m=v[int((NR+1)/2)]; p=v[int(NR*0.99+0.999)]; printf "median %s ms, p99 %s ms", m, p}'; }

echo "SpurImageStore=$T/store" >"$T/spur.conf" # beside slurm.conf: the agent's store
start_cluster 1
srun --container-image="$IMG" true # unpacked once, before the timing

steps() { # OPTIONS...: N steps of true in one job, each one's ms
	sbatch --wait -o "$T/steps.out" --wrap "
		for i in \$(seq $N); do
			a=\$(date +%s%N); srun $* true; b=\$(date +%s%N)
			echo step_ms \$(( (b - a) / 1000000 ))
		done" >/dev/null
	awk '/^step_ms/ {print $2}' "$T/steps.out"
}
bare=$(steps | stats)
ctr=$(steps --container-image="$IMG" | stats)

# the runtime alone: the same rootfs, a minimal bundle
B="$T/bundle"
mkdir -p "$B"
ROOTFS=$(ls -d "$T"/store/images/*/rootfs | head -1)
(cd "$B" && "$RT" spec && sed -i "s/\"terminal\": true/\"terminal\": false/; s/\"sh\"/\"true\"/; s|\"path\": \"rootfs\"|\"path\": \"$ROOTFS\"|" config.json)
floor=$(for i in $(seq "$N"); do
	a=$(date +%s%N)
	"$RT" --root "$T/rt" run --bundle "$B" "b$i" </dev/null >/dev/null 2>"$T/rt.err" || { cat "$T/rt.err" >&2; exit 1; }
	b=$(date +%s%N)
	echo $(( (b - a) / 1000000 ))
done | stats)
[[ $floor =~ ^median\ [0-9]+\ ms ]] || { echo "bench_container: $(basename "$RT") run failed" >&2; exit 1; }

drain() { # OPTIONS...: N jobs at once, jobs per second until the last ends
	local a b
	a=$(date +%s%N)
	for i in $(seq "$N"); do sbatch "$@" -o /dev/null --wrap true >/dev/null; done
	until_s 600 "the queue did not drain" sh -c '[ -z "$(squeue -h)" ]'
	b=$(date +%s%N)
	awk -v n="$N" -v a="$a" -v b="$b" 'BEGIN {printf "%.1f jobs/s", n / ((b - a) / 1e9)}'
}
dbare=$(drain)
dctr=$(drain --container-image="$IMG")

echo "container_step_start: bare $bare; container $ctr; $(basename "$RT") run alone $floor ($N each)"
echo "container_drain: bare $dbare; container $dctr ($N jobs, 1 node, 8 CPUs)"
