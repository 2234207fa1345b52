#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Cluster benchmarks, measured as ../shared/slurm-golden/bench.sh measures real
# Slurm: a controller and 16 simulated nodes on loopback; prints "name: value".
#   submit_loop: N x `sbatch --wrap=true` (one process per job), then drain
#   squeue_ms_Q: median wall time of `squeue -r` with Q jobs queued (held array tasks, one row each)
#   ctld_bytes_per_pending_job: the controller's resident memory grown by
#     the 100,000 queued jobs, per job
#   sinfo_ms_N, ctld_bytes_per_node: sinfo with N configured nodes (no
#     agents: they show as not registered), and the controller's memory per
#     node between 16 and 1,024 nodes
# Usage: bench/bench_cluster.sh BUILD_DIR   (N=1000 RUNS=3 by default)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
N=${N:-1000}
RUNS=${RUNS:-3}
T=$(mktemp -d /tmp/spur-bench.XXXXXX)
export SLURM_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b-a}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a/b}'; }
median() { sort -g | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2 }'; }

. "$(dirname "$0")/cluster.sh"
PORT=$(free_port) # below the ephemeral range, not taken
trap 'stop_cluster; rm -rf "$T"' EXIT

echo "host_cpus: $(nproc)"
echo "sim_nodes: 16 x 8 CPUs, gpu:mi300x:8"
cd "$T"
subs=() drains=()
for r in $(seq 1 "$RUNS"); do
	start_cluster 16
	read -r c0 _ <<<"$(cpu_ticks "$T/ctld.pid")"
	read -r a0 j0 <<<"$(cpu_ticks "$T"/d*.pid)"
	read -r s0 <<<"$(awk '{print $16 + $17}' /proc/$$/stat)"
	t0=$(now)
	for i in $(seq 1 "$N"); do sbatch --parsable -o /dev/null --wrap=true >/dev/null; done
	t1=$(now)
	while [ "$(squeue -h -o %i | wc -l)" -gt 0 ]; do sleep 0.05; done
	t2=$(now)
	read -r c1 _ <<<"$(cpu_ticks "$T/ctld.pid")"
	read -r a1 j1 <<<"$(cpu_ticks "$T"/d*.pid)"
	read -r s1 <<<"$(awk '{print $16 + $17}' /proc/$$/stat)"
	echo "submit_loop_run$r: submit=$(el "$t0" "$t1")s drain=$(el "$t0" "$t2")s jobs=$N"
	# where the CPU went, per job: the commands (sbatch
	# and the squeue polls), the controller, the agents, the jobs'
	# supervisors and scripts
	awk -v n="$N" -v hz="$(getconf CLK_TCK)" -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v a=$((a1 - a0)) -v j=$((j1 - j0)) \
		'BEGIN { printf "cpu_ms_per_job_run'"$r"': commands=%.2f ctld=%.2f agents=%.2f jobs=%.2f\n", s*1000/hz/n, c*1000/hz/n, a*1000/hz/n, j*1000/hz/n }'
	subs+=("$(div "$N" "$(el "$t0" "$t1")")")
	drains+=("$(div "$N" "$(el "$t0" "$t2")")")
	stop_cluster
done
echo "submit_jobs_per_s: $(printf '%s\n' "${subs[@]}" | median) (median of $RUNS)"
echo "drain_jobs_per_s: $(printf '%s\n' "${drains[@]}" | median) (median of $RUNS)"

median_ms() { # CMD: the median wall time of 5 runs, in ms
	local a b
	for _ in 1 2 3 4 5; do
		a=$(now)
		"$@" >/dev/null
		b=$(now)
		awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f\n", (b-a)*1000}'
	done | median
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$(cat "$T/ctld.pid")/status"; }
for q in 1000 100000; do
	start_cluster 16
	before=$(rss_kb)
	sbatch --hold --array=0-$((q - 1)) -o /dev/null --wrap=true >/dev/null
	[ "$(squeue -h -r -o %i | wc -l)" -eq "$q" ] || { echo "queue is not $q long" >&2; exit 1; }
	echo "squeue_ms_$q: $(median_ms squeue -r) (median of 5, -r: one row per task)"
	[ "$q" -eq 100000 ] &&
		echo "ctld_bytes_per_pending_job: $(( ($(rss_kb) - before) * 1024 / q ))"
	stop_cluster
done

# sinfo and the controller's memory by node count: a controller alone
declare -A rss
for n in 16 1024; do
	rm -rf "$T/state"
	sed -i "s/^NodeName=node\[1-[0-9]*\]/NodeName=node[1-$n]/" "$T/slurm.conf"
	"$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" -L "$T/ctld.log" &
	echo $! >"$T/ctld.pid"
	until_s 30 "the controller with $n nodes did not answer" sinfo || exit 1
	echo "sinfo_ms_$n: $(median_ms sinfo) (median of 5)"
	rss[$n]=$(rss_kb)
	stop_cluster
done
echo "ctld_bytes_per_node: $(( (rss[1024] - rss[16]) * 1024 / (1024 - 16) ))"
