#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sstat's GPU figures: a step's GPUs busy and their memory in use, from the
# node's GPU backend, in TRESUsageInAve/Max (gres/gpuutil, gres/gpumem). The
# GPUs are the fake backend's (this machine has none): its description file
# says each GPU's use ("usage I PERCENT MB", as NVML or amdgpu's sysfs would).
# A step's CPU time and RSS are the real processes'.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
{
	printf 'type mi300x\ncount 8\n'
	for i in 0 1 2 3 4 5 6 7; do echo "usage $i 40 1500"; done
} >gpus.txt
"$BUILD/src/agent/spurd" -f slurm.conf -N mi1 --gpus "$T/gpus.txt" -L d1.log 2>>d1.err &
echo $! >>agents.pid
check "the node registers" wait_until 20 nodes_idle 1
j=$(sbatch --parsable --gpus=2 -o /dev/null --wrap "srun --gpus=2 sh -c 'touch $T/running; sleep 60'")
check "the step runs" wait_until 20 test -e running
check "sstat: the step's two GPUs, 40% busy and 1,500 MB each, summed" \
	bash -c "sstat -n -P -j $j.0 -o JobID,TRESUsageInAve | grep -qE '^$j.0\|cpu=[0-9:]+,mem=[0-9]+K,gres/gpumem=3000M,gres/gpuutil=80\$'"
check "... the same in TRESUsageInMax (one node)" \
	bash -c "sstat -n -P -j $j.0 -o TRESUsageInMax | grep -q 'gres/gpumem=3000M,gres/gpuutil=80\$'"
echo "usage 0 100 2000" >>gpus.txt
echo "usage 1 100 2000" >>gpus.txt
check "... sampled again, the GPUs' use now (the step holds two of them)" \
	bash -c "sstat -n -P -j $j.0 -o TRESUsageInAve | grep -qE 'gres/gpumem=(3500|4000)M,gres/gpuutil=(140|200)\$'"
scancel "$j"
finish
