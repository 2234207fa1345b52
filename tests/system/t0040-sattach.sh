#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sattach JOBID.STEPID: the output of a running step's tasks, from when it
# attaches to the step's end, from every node of the step (-l labels the
# lines, --output-filter keeps one task's); it ends when the step does;
# a sattach interrupted leaves the step running; a step not running, an
# unknown job and --input-filter are errors. The tasks tick until the test
# lets them finish, so what sattach saw is known without timing.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
cat >task.sh <<SH
while [ ! -e $T/go ]; do echo "tick \$SLURM_PROCID"; sleep 0.2; done
echo "after \$SLURM_PROCID"
SH
j=$(sbatch --parsable -N2 -n4 -o job.out --wrap "srun -n4 sh $T/task.sh")
ranks() { [ "$(grep -oE "$1" "$2" | sort -u | wc -l)" = 4 ]; }
check "the step runs its 4 tasks" wait_until 20 ranks '^tick [0-3]' job.out
sattach -l "$j.0" >att.out 2>att.err &
ap=$!
sattach --output-filter=2 "$j.0" >f2.out 2>&1 &
fp=$!
sattach "$j.0" >int.out 2>&1 &
ip=$!
check "sattach -l shows every task's lines, each with its own rank" \
	wait_until 20 ranks '^([0-3]): tick \1$' att.out
check "--output-filter=2 shows task 2's lines and no other's" \
	sh -c "$(declare -f wait_until); wait_until 20 grep -q 'tick 2' f2.out && ! grep -q 'tick [013]' f2.out"
check "a second sattach at once sees them too" wait_until 20 ranks '^tick [0-3]$' int.out
kill -TERM "$ip"
wait "$ip" 2>/dev/null
touch go
wait "$ap"
check "sattach ends when the step ends, exit 0" [ $? = 0 ]
check "it showed each task's last line" ranks '^[0-3]: after [0-3]$' att.out
wait "$fp"
check "the step ran on after a sattach was interrupted" wait_until 20 ranks '^after [0-3]$' job.out
check "the job completes" wait_until 20 sh -c "scontrol show job $j | grep -q JobState=COMPLETED"

j2=$(sbatch --parsable -o /dev/null --wrap "srun true; sleep 60")
check "a second job's step 0 is done" \
	wait_until 20 sh -c "sacct -n -P -j $j2 -o JobID,State | grep -qx '$j2.0|COMPLETED'"
sattach -v "$j2.0" >ended.out 2>&1
check "sattach to a step that ended: exit 1, said" \
	sh -c "[ $? = 1 ] && grep -q 'is not running on any node' ended.out"
check "-v names the node asked" grep -q 'asked 1 node(s) for job step [0-9]*\.0: mi[12]$' ended.out
sattach "$j2.5" >nostep.out 2>&1
check "to a step that never was: exit 1, said" sh -c "[ $? = 1 ] && grep -q 'Job step not found' nostep.out"
scancel "$j2"
sattach 99999.0 >nojob.out 2>&1
check "to a job that does not exist: exit 1, Slurm's message" \
	sh -c "[ $? = 1 ] && grep -q 'Invalid job id specified' nojob.out"
sattach --input-filter=0 "$j.0" >in.out 2>&1
check "--input-filter is refused by name, exit 1" \
	sh -c "[ $? = 1 ] && grep -q -- '--input-filter is not supported' in.out"
finish
