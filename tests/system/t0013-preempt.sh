#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Preemption by partition priority (PreemptType=preempt/partition_prio): a
# job of the high-tier partition stops a low-tier job at once. REQUEUE mode
# puts the victim back in the queue (it runs again after, once); a partition
# with PreemptMode=CANCEL loses its job (PREEMPTED in sacct). The stops are
# in the log: a kill -9 of the controller replays them.
. "$(dirname "$0")/lib.sh"
cd "$T"
conf_head systest >slurm.conf
cat >>slurm.conf <<CONF
KillWait=2
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
NodeName=mi1 CPUs=8 RealMemory=16000 Gres=gpu:mi300x:8
PartitionName=low Nodes=mi1 Default=YES PriorityTier=1
PartitionName=scratch Nodes=mi1 PriorityTier=1 PreemptMode=CANCEL
PartitionName=high Nodes=mi1 PriorityTier=10
CONF
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
low=$(sbatch --parsable -p low --gres=gpu:mi300x:8 -o low-%j.out \
	--wrap 'echo start; for i in $(seq 1 30); do sleep 0.1; done; echo end')
check "the low job runs" wait_until 10 sh -c "squeue -h -j $low -o %t | grep -qx R"
check "... its output began" wait_until 10 grep -qx start "low-$low.out"
high=$(sbatch --parsable -p high --gres=gpu:mi300x:8 -o high.out \
	--wrap 'echo high; for i in $(seq 1 20); do sleep 0.1; done')
check "the high job starts at once" wait_until 10 sh -c "squeue -h -j $high -o %t | grep -qx R"
check "the low job is requeued (PENDING)" sh -c "squeue -h -j $low -o %T | grep -qx PENDING"
check "the controller logged the preemption" grep -q "job $low: preempted; requeued" ctld.log
check "the high job completes" wait_until 20 sh -c "sacct -n -X -P -o State -j $high | grep -qx COMPLETED"
check "the low job runs again and completes" wait_until 30 sh -c "sacct -n -X -P -o State -j $low | grep -qx COMPLETED"
check "... its second run reached the end" grep -qx end "low-$low.out"

sc=$(sbatch --parsable -p scratch --gres=gpu:mi300x:8 -o /dev/null --wrap 'sleep 30')
check "the scratch job runs" wait_until 10 sh -c "squeue -h -j $sc -o %t | grep -qx R"
h2=$(sbatch --parsable -p high --gres=gpu:mi300x:8 -o /dev/null --wrap 'sleep 30')
check "a high job preempts it" wait_until 10 sh -c "squeue -h -j $h2 -o %t | grep -qx R"
check "... PreemptMode=CANCEL: it ends PREEMPTED" sh -c "sacct -n -X -P -o State -j $sc | grep -qx PREEMPTED"
check "... and is not in the queue" sh -c "[ -z \"\$(squeue -h -j $sc 2>/dev/null)\" ]"
nr=$(sbatch --parsable -p low --no-requeue --gres=gpu:mi300x:8 -o /dev/null --wrap true)
check "a low job waits behind it" sh -c "squeue -h -j $nr -o %T | grep -qx PENDING"

kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller answers after kill -9" wait_until 20 squeue
check "the preempted job is still PREEMPTED" sh -c "sacct -n -X -P -o State -j $sc | grep -qx PREEMPTED"
check "... scontrol agrees" sh -c "scontrol show job $sc | grep -q JobState=PREEMPTED"
check "the high job still runs, alone" sh -c "squeue -h -j $h2 -o %t | grep -qx R"
check "the requeued job ran once more, not again" sh -c "[ \$(grep -c '^start' low-$low.out) -eq 1 ]"
scancel "$h2"
check "the waiting job runs after" wait_until 20 sh -c "sacct -n -X -P -o State -j $nr | grep -qx COMPLETED"
finish
