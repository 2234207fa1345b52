#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Steps' shares survive a failover: the leader keeps what running steps
# hold in memory only, so a new leader learns it from the agents'
# registrations (each agent lists its running steps and their share). A
# step holding one of its job's two GPUs (and one of its CPUs, --exact)
# runs across a kill -9 of the leader; after it, a second one-GPU step gets the other GPU, a two-GPU step
# waits "Requested nodes are busy" until the first ends, and the step
# numbers go on (no second step 0). An administrator's drain and the
# sacctmgr tree made before the kill are the new leader's too (Raft log
# ops). GPUs are the agent's simulated ones:
# only their numbering is checked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha.sh"
cd "$T"
ha_conf 3 1 gpu:mi300x:8
for i in 1 2 3; do start_ctl "$i"; done
start_agents 1
check "three controllers elect a leader" wait_until 20 has_leader
check "the node registers" wait_until 20 nodes_idle 1
j=$(sbatch --parsable -N1 -c 2 --gpus=2 -o job.out --wrap "
	srun -n1 -c1 --exact --gpus=1 sh -c 'echo A \$CUDA_VISIBLE_DEVICES; while [ ! -e $T/go ]; do sleep 0.1; done' &
	while [ ! -e $T/failed-over ]; do sleep 0.1; done
	srun -n1 -c1 --exact --gpus=1 sh -c 'echo B \$CUDA_VISIBLE_DEVICES'
	srun -n1 -c1 --exact --gpus=2 sh -c 'echo C \$CUDA_VISIBLE_DEVICES' &
	while ! grep -q 'Requested nodes are busy' $T/job.out; do sleep 0.1; done
	touch $T/go
	wait")
check "step 0 runs, holding one GPU" wait_until 20 grep -q '^A [0-9]$' job.out
scontrol update nodename=mi1 state=drain reason="swap a fan" >/dev/null
sacctmgr -Q -i add account proj9 GrpTRES=gres/gpu=4 && sacctmgr -Q -i add user root Account=proj9
L=$(leader)
kill_ctl "$L"
check "a new leader is elected" wait_until 20 another_leads "$L"
N=$(leader)
check "the agent registers with it" wait_until 30 grep -q 'node mi1 registered' "ctl$N.log"
touch failed-over
check "the accounts survive the failover, limits and all" \
	bash -c "sacctmgr -n -P show assoc format=Account,User,GrpTRES | grep -qx 'proj9||gres/gpu=4' &&
		sacctmgr -n -P show assoc format=Account,User | grep -qx 'proj9|root'"
check "an administrator's drain survives the failover: reason, user, time; draining" \
	bash -c "sinfo -R -h | grep -qE '^swap a fan +root +[0-9]{4}-.* mi1\$' && sinfo -h -N -o %t | grep -qx 'drng'"
check "the job completes" wait_until 60 sh -c "sacct -n -X -P -j $j -o State | grep -qx COMPLETED"
a=$(awk '$1 == "A" {print $2}' job.out)
b=$(awk '$1 == "B" {print $2}' job.out)
check "after the failover, a one-GPU step gets the GPU step 0 does not hold ($a, $b)" \
	sh -c "[ -n '$b' ] && [ '$a' != '$b' ]"
check "a two-GPU step waited for step 0, saying why" \
	grep -q 'srun: Job [0-9]* step creation temporarily disabled, retrying (Requested nodes are busy)' job.out
check "and ran once it ended, with both GPUs" grep -qE '^C [0-9],[0-9]$' job.out
check "the step numbers go on across the failover: 0, 1, 2" \
	sh -c "[ \"\$(sacct -n -P -j $j -o JobID | grep -E '^$j\.[0-9]+$' | sort | tr '\n' ' ')\" = '$j.0 $j.1 $j.2 ' ]"
start_ctl "$L"
finish
