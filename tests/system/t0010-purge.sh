#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# MinJobAge: jobs ended longer ago than it are forgotten by the controller
# (a logged purge), as in Slurm; sacct still has them; the state, its
# snapshots and a replay of the log after kill -9 keep them forgotten, while
# pending and running jobs stay.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
echo "MinJobAge=2" >>slurm.conf
start_ctld -n 8
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2

done_ids=""
for i in $(seq 1 10); do
	done_ids="$done_ids $(sbatch --parsable --wait -o /dev/null --wrap "exit $((i % 2))")"
done
first=$(echo $done_ids | cut -d' ' -f1)
last=$(echo $done_ids | awk '{print $NF}')
held=$(sbatch --parsable --hold --wrap true)
long=$(sbatch --parsable -J long -o long.out --wrap 'sleep 15; echo long done')
check "the long job runs" wait_until 10 sh -c "squeue -h -j $long -o %t | grep -qx R"
gone() { scontrol show job "$1" 2>&1 | grep -q 'Invalid job id specified'; }
check "an ended job is kept until MinJobAge has passed" \
	sh -c "scontrol show job $last | grep -qE 'JobState=(COMPLETED|FAILED)'"
check "ended jobs are purged after MinJobAge" wait_until 15 gone "$last"
for j in $done_ids; do gone "$j" || not_ok "job $j is purged"; done
check "scontrol show job of a purged job fails" sh -c "! scontrol show job $first >/dev/null 2>&1"
check "sacct still has the purged jobs" \
	sh -c "[ \$(sacct -n -X -P -o JobID,State -j $(echo $done_ids | tr ' ' ,) | wc -l) -eq 10 ]"
check "sacct keeps their exit codes" sh -c "sacct -n -X -P -o ExitCode -j $first | grep -qx 1:0"
check "the held job stays" sh -c "squeue -h -j $held -o %r | grep -qx JobHeldUser"
check "the running job stays" sh -c "squeue -h -j $long -o %t | grep -qx R"
check "a dependency on a purged job is refused" \
	sh -c "! sbatch --dependency=afterok:$first --wrap true 2>err && grep -q 'Job dependency problem' err"

kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 8
check "the controller answers after kill -9" wait_until 20 squeue
check "purged jobs stay purged after the log is replayed" gone "$first"
check "... and the last of them" gone "$last"
check "the held job survives" sh -c "squeue -h -j $held -o %r | grep -qx JobHeldUser"
next=$(sbatch --parsable --wait -o /dev/null --wrap true)
check "ids continue after the purged ones" [ "$next" -gt "$long" ]
check "the running job's result arrives" \
	wait_until 30 sh -c "sacct -n -X -P -o State -j $long | grep -qx COMPLETED"
check "it ran once" [ "$(grep -c 'long done' long.out)" -eq 1 ]
check "... and is purged in its turn" wait_until 15 gone "$long"
scancel "$held"
check "a cancelled job is purged too" wait_until 15 gone "$held"
check "a snapshot was taken" sh -c "ls state/raft | grep -q '^snapshot-'"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 8
check "a second restart answers" wait_until 20 squeue
check "nothing came back" [ -z "$(squeue -h)" ]
check "the cancelled job stays purged" gone "$held"
check "the last job stays purged" gone "$next"
next2=$(sbatch --parsable --wait -o /dev/null --wrap true)
check "ids still continue" [ "$next2" -gt "$next" ]
finish
