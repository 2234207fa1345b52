#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# High-availability benchmarks, each against a baseline measured in the same
# run: a 1-controller cluster and a 3-controller Raft cluster (loopback, four
# simulated nodes, libraft's log written with fsync as always).
#   submit_1ctld / submit_3ctld: jobs/s of N `sbatch` processes, run by P
#     concurrent loops (concurrent appends are batched into one write)
#   failover_ms: leader killed -9 -> first submission accepted by the new
#     leader (the sbatch call's own wall time included), median of RUNS
# Usage: bench/bench_ha.sh BUILD_DIR   (N=300 P=4 RUNS=5 by default)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
N=${N:-300}
P=${P:-4}
RUNS=${RUNS:-5}
T=$(mktemp -d /tmp/spur-bench-ha.XXXXXX)
. "$(dirname "$0")/cluster.sh" # free_port, until_s
PORT=$(free_port 3)                # three controllers: PORT..PORT+2, Raft +4
export SLURM_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
trap 'kill -9 $(cat "$T"/*.pid 2>/dev/null) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$T"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2 }'; }

start() { # NCTLDS
	rm -rf "$T"/state* "$T/spool"
	{
		echo "ClusterName=benchha"
		for i in $(seq 1 "$1"); do echo "SlurmctldHost=ctl$i(127.0.0.1:$((PORT + i - 1)))"; done
		cat <<CONF
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
DisableRootJobs=NO
SlurmctldDebug=error
SlurmdDebug=error
MessageTimeout=20
NodeName=node[1-4] CPUs=64 RealMemory=64000 Gres=gpu:mi300x:8
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE
CONF
	} >"$T/slurm.conf"
	for i in $(seq 1 "$1"); do start_ctl "$i"; done
	# every controller up and a member, one of them leading
	until_s 30 "not all $1 controllers started (see $T/ctl*.log)" all_members "$1" || exit 1
	for i in 1 2 3 4; do
		"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N "node$i" -L "$T/d$i.log" &
		echo $! >"$T/d$i.pid"
	done
	until_s 30 "the 4 nodes did not register" \
		sh -c '[ "$(sinfo -h -N 2>/dev/null | grep -c idle)" -eq 4 ]' || exit 1
}

all_members() { # N: N controllers alive, listed, one leading
	for i in $(seq 1 "$1"); do kill -0 "$(cat "$T/ctl$i.pid" 2>/dev/null)" || return 1; done
	[ "$1" -eq 1 ] && { scontrol ping | grep -q UP; return; }
	[ "$(spur controller list 2>/dev/null | grep -cE 'leader|follower')" -eq "$1" ] &&
		[ -n "$(leader)" ]
}

start_ctl() { # I
	local name=() port=()
	# one controller: as a plain cluster (no -N needed)
	[ "$(grep -c SlurmctldHost "$T/slurm.conf")" -gt 1 ] && name=(-N "ctl$1") || port=(-p "$PORT")
	# from a subshell: not a job of this shell, whose kill -9 bash would report
	("$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" "${name[@]}" "${port[@]}" -s "$T/state$1" \
		-L "$T/ctl$1.log" 2>>"$T/ctl$1.err" &
	 echo $! >"$T/ctl$1.pid")
}

stop() {
	kill $(cat "$T"/*.pid) 2>/dev/null || true
	{ wait || true; } 2>/dev/null
	for f in "$T"/ctl*.pid; do
		while [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; do sleep 0.05; done
	done
	rm -f "$T"/*.pid
}

leader() { spur controller list 2>/dev/null | awk '$6 == "leader" { sub("ctl", "", $1); print $1 }'; }

submit_rate() {
	local t0 t1
	t0=$(now)
	for p in $(seq 1 "$P"); do
		(for i in $(seq 1 $((N / P))); do sbatch --parsable -o /dev/null --wrap=true >/dev/null; done) &
		echo $! >"$T/loop$p.lpid"
	done
	for f in "$T"/loop*.lpid; do wait "$(cat "$f")"; done
	rm -f "$T"/loop*.lpid
	t1=$(now)
	awk -v n="$(((N / P) * P))" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", n/(b-a)}'
}

cd "$T"
echo "host_cpus: $(nproc)"
echo "sim_nodes: 4 x 64 CPUs, gpu:mi300x:8; $N submissions by $P concurrent sbatch loops"
start 1
s1=$(submit_rate)
stop
start 3
s3=$(submit_rate)
echo "submit_1ctld_jobs_per_s: $s1"
echo "submit_3ctld_jobs_per_s: $s3"
awk -v a="$s3" -v b="$s1" 'BEGIN{printf "submit_3ctld_vs_1ctld: %.2f\n", a/b}'

fo=()
for r in $(seq 1 "$RUNS"); do
	L=$(leader)
	pid=$(cat "ctl$L.pid")
	kill -9 "$pid"
	t0=$(now)
	until_s 60 "no leader took a submission after the leader's kill -9" \
		sbatch --parsable -o /dev/null --wrap=true || exit 1
	t1=$(now)
	fo+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", (b-a)*1000}')")
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	start_ctl "$L"
	until_s 60 "ctl$L did not come back as a follower" \
		sh -c "spur controller list | grep -qE '^ctl$L .*follower\$'" || exit 1
done
echo "failover_ms_runs: ${fo[*]}"
echo "failover_ms_median: $(printf '%s\n' "${fo[@]}" | median)"
stop
