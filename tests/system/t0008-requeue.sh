#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scontrol requeue and requeuehold: the running script is killed, the job is
# pending again and runs anew; the killed run's result does not end the new
# run; --no-requeue refuses; the requeue survives a controller restart. And
# the output formats squeue -O and sinfo -o, and scontrol update.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld -n 8
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
j=$(sbatch --parsable -o rq.out --wrap 'echo run; sleep 3; echo end')
check "the job runs" wait_until 10 sh -c "squeue -h -j $j -o %t | grep -qx R"
check "scontrol requeue succeeds" scontrol requeue "$j"
check "it runs again" wait_until 10 sh -c "squeue -h -j $j -o %t | grep -qx R"
check "the killed run's end does not end the new run" \
	sh -c "sleep 1; squeue -h -j $j -o %t | grep -qx R"
check "the new run completes" wait_until 20 sh -c "scontrol show job $j | grep -q JobState=COMPLETED"
check "the output is the new run's" [ "$(cat rq.out)" = "$(printf 'run\nend')" ]
check "Restarts=1" sh -c "scontrol show job $j | grep -q 'Requeue=1 Restarts=1 '"
check "a finished job can be requeued held" scontrol requeuehold "$j"
check "it is held with Slurm's reason and priority 0" \
	sh -c "[ \"\$(squeue -h -j $j -o '%r|%Q')\" = 'job requeued in held state|0' ] &&
	       scontrol show job $j | grep -q 'Reason=job_requeued_in_held_state '"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 8
check "after a restart it is still held" \
	wait_until 20 sh -c "squeue -h -j $j -o %r | grep -qx 'job requeued in held state'"
check "with its restart count" sh -c "scontrol show job $j | grep -q 'Restarts=2 '"
scontrol release "$j"
check "released, it runs to the end" wait_until 20 sh -c "scontrol show job $j | grep -q JobState=COMPLETED"
check "requeuehold State=SpecialExit: SPECIAL_EXIT (SE), as Slurm" \
	sh -c "scontrol requeuehold State=SpecialExit $j &&
	       scontrol show job $j | grep -q 'JobState=SPECIAL_EXIT Reason=job_requeued_in_held_state ' &&
	       [ \"\$(squeue -h -j $j -o '%t %R')\" = 'SE (job requeued in held state)' ]"
check "... a bad State= is refused" sh -c "! scontrol requeuehold State=Bogus $j 2>/dev/null"
check "... released, it runs again" \
	sh -c "scontrol release $j && sleep 0.2; true" && wait_until 20 sh -c "scontrol show job $j | grep -q 'JobState=COMPLETED.*' && scontrol show job $j | grep -q 'Restarts=3 '"
nr=$(sbatch --parsable --no-requeue --wrap 'sleep 30')
check "the --no-requeue job runs" wait_until 10 sh -c "squeue -h -j $nr -o %t | grep -qx R"
check "requeue of a --no-requeue job is refused" \
	sh -c "scontrol requeue $nr 2>&1 | grep -qx 'scontrol: error: Requested operation is presently disabled for job $nr'"
check "requeue of a pending job is refused" sh -c "! scontrol requeue \$(sbatch --parsable --hold --wrap true) 2>/dev/null"
check "requeue of an unknown job is refused" sh -c "! scontrol requeue 999999 2>/dev/null"
check "squeue -O lays fields out as Slurm does (20 wide unless said)" \
	sh -c "[ \"\$(squeue -O JobID:8,Name,State:.10 -j $nr)\" = \"\$(printf 'JOBID   NAME                     STATE\n%-8s%-20s%10s' $nr wrap RUNNING)\" ]"
check "squeue -O refuses an unknown field" sh -c "! squeue -O Bogus 2>/dev/null"
check "sinfo's default is its -o \"%9P %.5a %.10l %.6D %.6t %N\", as in Slurm" \
	sh -c "[ \"\$(sinfo)\" = \"\$(sinfo -o '%9P %.5a %.10l %.6D %.6t %N')\" ]"
check "sinfo -o shows CPUs as allocated/idle/other/total" \
	sh -c "sinfo -h -o '%n %T %C' | grep -qx 'mi1 mixed 1/7/0/8'"
check "sinfo -o refuses an unknown field" sh -c "sinfo -o '%Q' 2>&1 | grep -qx 'sinfo: error: Invalid node format specification: %Q'"
# scontrol update of a pending job
u=$(sbatch --parsable --hold -J before -t 10 --wrap true)
check "scontrol update TimeLimit, Nice, JobName" scontrol update JobId="$u" TimeLimit=1:30:00 Nice=5 JobName=after
check "the new values show" sh -c "squeue -h -j $u -o '%j %l' | grep -qx 'after 1:30:00' && scontrol show job $u | grep -q 'JobName=after'"
check "scontrol prints the limit as Slurm does (HH:MM:SS), squeue without the zero" \
	sh -c "scontrol show job $u | grep -q ' TimeLimit=01:30:00 ' && sacct -n -X -P -o Timelimit -j $u | grep -qx 01:30:00"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 8
check "they survive a restart" wait_until 20 sh -c "squeue -h -j $u -o '%j %l' | grep -qx 'after 1:30:00'"
check "update of a running job's name is refused" \
	sh -c "scontrol update JobId=$nr JobName=x 2>&1 | grep -qx 'scontrol: error: Job is no longer pending execution for job $nr'"
# a running job's time limit, as Slurm's: the agent's supervisor moves its
# alarm (scontrol counts whole minutes, as Slurm; the protocol takes seconds)
sub() { raw "{\"type\":\"submit\",\"job\":{\"script\":\"#!/bin/sh\\nsleep 60\\n\",\"time_limit\":$1,\"workdir\":\"$T\",\"output\":\"/dev/null\",\"name\":\"lim\",\"user\":\"root\"}}"; }
lt=$(sub 3 | awk "{print \$1}")
lr=$(sub 600 | awk "{print \$1}")
wait_until 15 sh -c "[ \"\$(squeue -h -j $lt,$lr -o %T | sort -u)\" = RUNNING ]"
raw "{\"type\":\"update\",\"job_id\":$lt,\"set\":{\"time_limit\":600}}" >/dev/null
raw "{\"type\":\"update\",\"job_id\":$lr,\"set\":{\"time_limit\":2}}" >/dev/null
check "a running job's time limit made shorter: it ends at the new one, TIMEOUT" \
	wait_until 20 sh -c "sacct -n -X -P -o State -j $lr | grep -qx TIMEOUT"
to=$(raw "{\"type\":\"submit\",\"job\":{\"script\":\"#!/bin/sh\\necho start\\nsleep 60\\n\",\"time_limit\":2,\"workdir\":\"$T\",\"output\":\"$T/tl.out\",\"name\":\"tl\",\"user\":\"root\"}}" | awk "{print \$1}")
check "a job at its limit: slurmstepd's line in its output, as Slurm's" \
	wait_until 20 grep -qE "^slurmstepd: error: \*\*\* JOB $to ON mi[0-9]+ CANCELLED AT 20[0-9-]+T[0-9:]+ DUE TO TIME LIMIT \*\*\*\$" tl.out
elapsed() { squeue -h -j "$lt" -o %M | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; exit !(s >= 6) }'; }
check "... made longer: it runs past its old limit (3 s)" \
	sh -c "$(declare -f wait_until elapsed); lt=$lt; wait_until 20 elapsed && squeue -h -j $lt -o '%T %l' | grep -qx 'RUNNING 10:00'"
check "scontrol update TimeLimit of a running job" \
	sh -c "scontrol update JobId=$lt TimeLimit=20 && squeue -h -j $lt -o %l | grep -qx 20:00"
check "update of an unsupported field is refused" sh -c "! scontrol update JobId=$u Partition=x 2>/dev/null"
check "update without JobId is refused" sh -c "! scontrol update Nice=1 2>/dev/null"
scancel "$nr" "$u" "$lt"
finish
