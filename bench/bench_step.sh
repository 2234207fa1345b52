#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# All-node srun steps at 64, 256 and 1,024 simulated nodes (one agent per
# node on this machine, loopback): the median wall time of 5 steps of
# `true` inside one job, against the process-start floor measured in the
# same run (as many `sh -c true` started one after another here: what the
# step's tasks cost at least on this one host). Figures are printed;
# bench/README.md records them with their date and conditions.
set -eu
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
T=$(mktemp -d)
trap 'stop_cluster; rm -rf "$T"' EXIT
. "$(dirname "$0")/cluster.sh"
PORT=$(free_port)
export SLURM_CONF="$T/slurm.conf" SPUR_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
now() { date +%s.%N; }
for n in 64 256 1024; do
	start_cluster "$n"
	a=$(now)
	for _ in $(seq "$n"); do sh -c true; done
	b=$(now)
	floor=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.0f", (b-a)*1000}')
	# five all-node steps in one job; each timed inside the job
	sbatch --wait -N "$n" -o "$T/steps.out" --wrap '
		for i in 1 2 3 4 5; do
			a=$(date +%s%N); srun true; b=$(date +%s%N)
			echo "step_ms $(( (b - a) / 1000000 ))"
		done' >/dev/null
	med=$(awk '/^step_ms/ {print $2}' "$T/steps.out" | sort -n | sed -n 3p)
	echo "all_node_step_ms_$n: ${med:-?} (median of 5); floor_ms_$n: $floor ($n x sh -c true); ratio $(awk -v m="${med:-0}" -v f="$floor" 'BEGIN{printf "%.2f", f ? m / f : 0}')"
	stop_cluster
done
