#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# OverTimeLimit as Slurm's: a job may run that many minutes past its time
# limit before it is ended TIMEOUT (the limit itself is what it asked for);
# a reconfigure changes it for jobs that start after. Takes two minutes
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
echo "OverTimeLimit=1" >>slurm.conf
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
check "scontrol show config: OverTimeLimit = 1 min" \
	sh -c "scontrol show config | grep -qx 'OverTimeLimit           = 1 min'"
j=$(sbatch --parsable -t 1 -o /dev/null --wrap 'sleep 600')
check "a job of a 1 minute limit runs" wait_until 10 sh -c "squeue -h -j $j -o %t | grep -qx R"
t0=$(date +%s)
check "... its TimeLimit is still 00:01:00" sh -c "scontrol show job $j | grep -q 'TimeLimit=00:01:00'"
# past its limit and KillWait (2 s): without OverTimeLimit it would have ended
while [ $(($(date +%s) - t0)) -lt 68 ]; do sleep 1; done
check "68 s later it still runs (OverTimeLimit=1)" sh -c "squeue -h -j $j -o %t | grep -qx R"
check "... then ends TIMEOUT, about a minute after its limit" \
	wait_until 70 sh -c "sacct -n -X -P -j $j -o State | grep -qx TIMEOUT"
check "... no sooner than 120 s after its start" sh -c "[ \$((\$(date +%s) - $t0)) -ge 115 ]"
sed -i 's/^OverTimeLimit=1/OverTimeLimit=0/' slurm.conf
check "scontrol reconfigure takes OverTimeLimit=0" \
	sh -c "scontrol reconfigure && scontrol show config | grep -qx 'OverTimeLimit           = 0 min'"
finish
