#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# All-node steps on 1,024 simulated nodes (one agent each, on loopback),
# repeatedly: every step returns every node's output, none hangs (srun
# takes all the agents' connections at once; one that never comes is named
# and the step ended, t0030). Under the sanitizers each agent holds tens of
# MB of shadow memory, so that build runs 256 nodes (1,024 would not fit
# this machine's memory).
. "$(dirname "$0")/lib.sh"
cd "$T"
N=1024
ldd "$BUILD/src/agent/spurd" | grep -q libasan && N=256
conf_head scale >slurm.conf
cat >>slurm.conf <<CONF
NodeName=n[1-$N] CPUs=8 RealMemory=16000
PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE
CONF
start_ctld
for i in $(seq 1 $N); do
	"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N "n$i" --gpus none -L /dev/null 2>>"$T/agents.err" &
	echo $! >>"$T/agents.pid"
done
check "$N agents register" wait_until 120 nodes_idle $N
for r in 1 2 3 4; do
	timeout 120 sbatch --wait -N $N -o "big$r.out" --wrap 'srun sh -c "echo \$SLURMD_NODENAME"' >/dev/null 2>&1
	check "all-node step $r: $N distinct nodes answered" sh -c "[ \"\$(sort -u big$r.out | grep -c '^n[0-9]')\" = $N ]"
done
finish
