#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Discovery reaches placement: the config says gpu:a100:8 (guessed as one
# NVSwitch), the agent discovers two NVLink islands of 4 (a fake topology
# file); a 2-GPU job, then a 4-GPU job must each stay inside an island.
. "$(dirname "$0")/lib.sh"
cd "$T"
conf_head topo >"$T/slurm.conf"
cat >>"$T/slurm.conf" <<CONF
NodeName=gpu1 CPUs=8 RealMemory=16000 Gres=gpu:a100:8
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE
CONF
printf 'type a100\ncount 8\npreset nvlink-islands\n' >"$T/islands.txt"
start_ctld
"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N gpu1 --gpus "$T/islands.txt" -L "$T/d1.log" 2>>"$T/d1.err" &
echo $! >>"$T/agents.pid"
check "the node registers" wait_until 20 nodes_idle 1
# while a 2-GPU job holds part of one island, a 4-GPU job must take the
# other island whole (lowest-free placement would give it 2,3,4,5)
a=$(sbatch --parsable --gres=gpu:a100:2 -o a.out --wrap 'echo $CUDA_VISIBLE_DEVICES; sleep 30')
check "the 2-GPU job runs" wait_until 10 sh -c "squeue -h -j $a -o %t | grep -qx R"
check "it holds 2 GPUs of one island" wait_until 5 grep -qxE '(0,1|2,3|4,5|6,7|0,2|0,3|1,2|1,3|4,6|4,7|5,6|5,7)' a.out
b=$(sbatch --parsable --wait --gres=gpu:a100:4 -o b.out --wrap 'echo $CUDA_VISIBLE_DEVICES')
check "the 4-GPU job gets the other island whole" grep -qxE '(0,1,2,3|4,5,6,7)' b.out
scancel "$a"
finish
