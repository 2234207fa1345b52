#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sacct shows a job's steps as Slurm's does: JOBID.batch for the script,
# JOBID.0, .1 ... for srun steps, each with its name, state and exit code;
# -X shows the jobs alone; a step still running when its job is cancelled
# ends CANCELLED. The rows come through the log, so a follower's sacct
# would show the same. squeue -s/--steps lists the running steps in real
# Slurm 22.05's layout (tests/compat/golden/slurm-squeue-steps.txt).
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
j=$(sbatch --parsable --wait -N2 -o /dev/null --wrap 'srun -N2 true; srun -n1 -J second sh -c "exit 3"; exit 0')
sacct -j "$j" -n -P -o JobID,JobName,State,ExitCode >rows
check "the job's own line" grep -qx "$j|wrap|COMPLETED|0:0" rows
check "its batch step" grep -qx "$j.batch|batch|COMPLETED|0:0" rows
check "srun's first step, named by its command" grep -qx "$j.0|true|COMPLETED|0:0" rows
check "the second, named by -J, FAILED with its code" grep -qx "$j.1|second|FAILED|3:0" rows
check "-X: the job alone" sh -c "[ \"\$(sacct -j $j -n -X -P -o JobID)\" = $j ]"
k=$(sbatch --parsable -N1 -n2 -o /dev/null --wrap 'srun sleep 100')
check "a long step runs" wait_until 10 sh -c "sacct -j $k -n -P -o JobID,State | grep -qx '$k.0|RUNNING'"
GOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-squeue-steps.txt"
gold() { awk -v c="\$ $1" '$0 == c {on = 1; next} on && /^[$#]/ {exit} on' "$GOLD"; }
# a row's job id, partition, time, node and start time as placeholders
norm() { awk -F'|' -v OFS='|' 'NR > 1 { sub(/^[0-9]+/, "J", $1); $3 = "P"; $5 = "T"; $6 = "N"; $8 = "S" } { print }'; }
squeue -s >s.got
check "squeue -s: the running steps as Slurm lists them" sh -c "grep -q '^ *$k.0    sleep       gpu     root' s.got && grep -q '^ *$k.batch    batch       gpu     root' s.got && head -1 s.got | grep -qx '         STEPID     NAME PARTITION     USER      TIME NODELIST'"
squeue -s -o '%i|%j|%P|%u|%M|%N|%l|%S|%A|%b' | norm >s2.got
gold "squeue -s -o %i|%j|%P|%u|%M|%N|%l|%S|%A|%b" | norm >s2.want
check "... -o with every step field, as Slurm's" cmp s2.want s2.got
check "squeue --steps=J.0: that step only" sh -c "[ \"\$(squeue --steps=$k.0 -h | wc -l)\" = 1 ]"
check "... a field steps have not: Slurm's words, exit 1" \
	sh -c "! squeue -s -o %C 2>e.txt && grep -qx 'squeue: error: Invalid job step format specification: C' e.txt"
scancel "$k"
check "cancelling the job ends its step CANCELLED" \
	wait_until 10 sh -c "sacct -j $k -n -P -o JobID,State | grep -qx '$k.0|CANCELLED'"
finish
