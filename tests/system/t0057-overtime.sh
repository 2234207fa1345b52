#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# OverTimeLimit as Slurm's: a job may run that many minutes past its time
# limit before it is ended TIMEOUT (the limit itself is what it asked for);
# a reconfigure changes it for the jobs running too (Slurm's controller
# checks it at their limits): the job here starts under OverTimeLimit=0 and
# is given a minute more by a reconfigure while it runs. A step's own
# limit (srun -t inside a job) is enforced on its nodes the same way, with
# slurmstepd's and srun's lines as Slurm 22.05 prints them. Takes two minutes
# (limits are whole minutes): skipped where SPUR_TIMING_TESTS=0 (make asan
# and make clang run the same code paths in other tests; make check runs
# this one).
if [ "${SPUR_TIMING_TESTS:-1}" = 0 ]; then
	echo "skip: SPUR_TIMING_TESTS=0 (this test only waits out a time limit)"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
echo "OverTimeLimit=0" >>slurm.conf
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
j=$(sbatch --parsable -t 1 -o /dev/null --wrap 'sleep 600')
js=$(sbatch --parsable -o steplim.out --wrap 'srun -t1 sleep 300; echo rc=$?')
ju=$(sbatch --parsable -o stepupd.out --wrap 'srun -t5 sleep 300; echo rc=$?')
check "srun -t1 in a job: scontrol show step's TimeLimit=00:01:00" \
	wait_until 20 sh -c "scontrol show step $js.0 | grep -q '^StepId=$js.0 .* TimeLimit=00:01:00\$'"
check "scontrol update StepId=J TimeLimit=1: a running step's 5 minutes made 1" \
	sh -c "until scontrol show step $ju.0 | grep -q 'TimeLimit=00:05:00'; do sleep 0.2; done;
	       scontrol update StepId=$ju TimeLimit=1 && scontrol show step $ju.0 | grep -q 'TimeLimit=00:01:00\$'"
check "... of a step that is not there: Slurm's words" \
	sh -c "! scontrol update StepId=$ju.7 TimeLimit=1 2>su.err && grep -qx 'slurm_update error: Invalid job id specified' su.err"
check "a job of a 1 minute limit runs" wait_until 10 sh -c "squeue -h -j $j -o %t | grep -qx R"
t0=$(date +%s)
sed -i 's/^OverTimeLimit=0/OverTimeLimit=1/' slurm.conf
check "scontrol reconfigure while it runs: OverTimeLimit = 1 min" \
	sh -c "scontrol reconfigure && scontrol show config | grep -qx 'OverTimeLimit           = 1 min'"
check "... its TimeLimit is still 00:01:00" sh -c "scontrol show job $j | grep -q 'TimeLimit=00:01:00'"
# past its limit and KillWait (2 s): without OverTimeLimit it would have ended
while [ $(($(date +%s) - t0)) -lt 68 ]; do sleep 1; done
check "68 s later it still runs (OverTimeLimit=1, given while it ran)" sh -c "squeue -h -j $j -o %t | grep -qx R"
check "... then ends TIMEOUT, about a minute after its limit" \
	wait_until 70 sh -c "sacct -n -X -P -j $j -o State | grep -qx TIMEOUT"
check "... no sooner than 120 s after its start" sh -c "[ \$((\$(date +%s) - $t0)) -ge 115 ]"
check "the step ended at its limit: slurmstepd's line, then srun's (Terminated, Force Terminated), as Slurm's" \
	bash -c "grep -qE '^slurmstepd: error: \*\*\* STEP $js.0 ON mi1 CANCELLED AT [0-9T:-]+ DUE TO TIME LIMIT \*\*\*\$' steplim.out &&
	       sed 1d steplim.out | cmp -s - <(printf '%s\n' 'srun: error: mi1: task 0: Terminated' 'srun: Force Terminated StepId=$js.0' rc=143)"
check "... the job went on and completed" sh -c "sacct -n -X -P -j $js -o State | grep -qx COMPLETED"
check "... the step TIMEOUT in sacct, as Slurm's" sh -c "sacct -n -P -j $js.0 -o State | grep -qx TIMEOUT"
check "the updated step ended at its new limit" \
	sh -c "grep -q 'STEP $ju.0 ON mi1 CANCELLED AT .* DUE TO TIME LIMIT' stepupd.out && grep -qx rc=143 stepupd.out"
sed -i 's/^OverTimeLimit=1/OverTimeLimit=0/' slurm.conf
check "scontrol reconfigure takes OverTimeLimit=0" \
	sh -c "scontrol reconfigure && scontrol show config | grep -qx 'OverTimeLimit           = 0 min'"
finish
