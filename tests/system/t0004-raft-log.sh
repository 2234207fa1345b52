#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The state lives in libraft's log, compacted by snapshots: with a snapshot
# every 16 entries, jobs in every state survive kill -9 of the controller
# (restored from a snapshot plus the entries after it), and a second kill
# right after the restart loses nothing either.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld -n 16
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2

done_ids=""
for i in $(seq 1 12); do
	done_ids="$done_ids $(sbatch --parsable --wait -o /dev/null --wrap "exit $((i % 3))")"
done
held=$(sbatch --parsable --hold --wrap true)
gone=$(sbatch --parsable --hold --wrap true)
scancel "$gone"
long=$(sbatch --parsable -N 2 --gres=gpu:mi300x:8 -J long -o long.out --wrap 'sleep 3; echo long done')
check "the 2-node job runs" wait_until 10 sh -c "squeue -h -j $long -o %t | grep -qx R"
arr=$(sbatch --parsable --array=0-3 --wrap true)
check "snapshots were taken" sh -c "ls state/raft | grep -q '^snapshot-'"
check "the log was compacted (entry 2 is gone)" \
	sh -c "! ls state/raft | grep -q '^0000000000000001-'"

states() { # the state of every job, one per line
	for j in $done_ids $held $gone; do
		scontrol show job "$j" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p'
	done
}
before=$(states)
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 16
check "the controller answers after kill -9" wait_until 20 squeue
after=$(states)
check "every job has the state it had" [ "$after" = "$before" ]
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after")
check "exit codes survive" sh -c "scontrol show job $(echo $done_ids | cut -d' ' -f2) | grep -q 'ExitCode=2:0'"
want_codes=$(for i in $(seq 1 12); do echo "$((i % 3)):0"; done)
check "sacct has every finished job and its exit code after kill -9" \
	sh -c "[ \"\$(sacct -n -X -P -o ExitCode -j $(echo $done_ids | tr ' ' ','))\" = '$want_codes' ]"
check "the held job is still held" sh -c "squeue -h -j $held -o %r | grep -qx JobHeldUser"
check "array tasks survive" sh -c "[ \$(sacct -n -X -P -o JobID -j $arr | grep -c '^${arr}_') -eq 4 ]"
check "the 2-node job still runs" sh -c "squeue -h -j $long -o %t | grep -qxE 'R|CG|CD' || scontrol show job $long | grep -q COMPLETED"

# kill again at once: the entries after the restart are in the log too
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 16
check "a second restart answers" wait_until 20 squeue
check "the 2-node job's result arrives" \
	wait_until 30 sh -c "scontrol show job $long | grep -q JobState=COMPLETED"
check "it ran once, to the end" [ "$(grep -c 'long done' long.out)" -eq 1 ]
next=$(sbatch --parsable --wait --wrap true)
check "ids continue" [ "$next" -gt "$arr" ]
# accounting rows are committed every 20 ms: a kill right after a job
# ends loses none (the log has the job's end, and writes the row again)
last=$(sbatch --parsable --wait -o /dev/null --wrap 'exit 3')
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 16
check "a job ended just before kill -9 is in sacct, FAILED 3:0" \
	wait_until 20 sh -c "[ \"\$(sacct -n -X -P -o State,ExitCode -j $last)\" = 'FAILED|3:0' ]"
scontrol release "$held"
check "the held job runs when released" \
	wait_until 20 sh -c "scontrol show job $held | grep -q JobState=COMPLETED"
check "nothing is pending or running" wait_until 20 sh -c "[ -z \"\$(squeue -h)\" ]"
finish
