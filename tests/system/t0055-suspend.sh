#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scontrol suspend / resume on real daemons: the job's processes stop
# (SIGSTOP: its output stands still) and go on (SIGCONT); squeue says S
# and SUSPENDED; the job keeps its node (another job waits); its time limit
# does not run while it is stopped (its end moves on resume); Slurm's
# errors and exit codes for a pending job, a running one resumed, an
# unknown id and a user; scancel of a suspended job ends it; the state
# survives kill -9 of the controller. scontrol listpids (Slurm's
# columns, the batch script as task 0, its children "-"; a step with none
# here said as Slurm says it), scontrol pidinfo, scontrol show daemons and scontrol
# notify (to salloc, printed as "salloc: MESSAGE"; Slurm's error for an
# unknown job).
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
chmod 755 "$T" # slurm.conf readable by a user
# (a child that lives as long as the script: listpids always has one to show)
j=$(sbatch --parsable --exclusive -t 1 -o "$T/tick.out" --wrap 'sleep 600 & while :; do date +%s%N; sleep 0.1; done')
check "the job runs" wait_until 10 sh -c "[ -s '$T/tick.out' ]"
scontrol listpids "$j" >pids.out
check "scontrol listpids: Slurm's header" \
	sh -c "head -1 pids.out | grep -qx 'PID      JOBID    STEPID   LOCALID GLOBALID'"
check "... the batch script as task 0 of the batch step, its children '-'" \
	sh -c "awk -v j=$j '\$2 == j && \$3 == \"batch\" && \$4 == 0 && \$5 == 0' pids.out | grep -q . &&
		grep -q \"^[0-9]* *$j *batch *- *- *\$\" pids.out"
pid=$(awk -v j=$j '$2 == j && $3 == "batch" && $4 == 0 {print $1}' pids.out | head -1)
scontrol pidinfo "$pid" >pidinfo.out
check "scontrol pidinfo PID: Slurm's two lines (the job, its time left)" \
	sh -c "grep -q '^Slurm JobId=$j ends at 20' pidinfo.out && grep -Eq '^Job remaining time is [0-9]+ seconds\$' pidinfo.out"
check "scontrol listpids J.10 (no such step here): Slurm's words, exit 1" \
	sh -c "! scontrol listpids $j.10 mi1 2>lp.err && grep -qx 'StepId=$j.10 does not exist on node mi1' lp.err"
check "scontrol show daemons: the roles slurm.conf puts on this host (the controller; the simulated nodes are named otherwise)" \
	sh -c "scontrol show daemons | grep -qx slurmctld"
check "scontrol notify of a batch job: exit 0" scontrol notify "$j" hello
check "scontrol notify of an unknown job: Slurm's error, exit 1" \
	sh -c "! scontrol notify 99999 hi 2>n.err && grep -qx 'job notify failure: Invalid job id specified' n.err"
check "scontrol suspend: exit 0" scontrol suspend "$j"
check "squeue: S / SUSPENDED" wait_until 5 sh -c "[ \"\$(squeue -h -j $j -o '%t %T')\" = 'S SUSPENDED' ]"
# a stopped job's output: nothing to wait for but time (a second with no
# new line, within 10 s of the suspend reaching its node)
still() { local a b; a=$(wc -l <"$T/tick.out"); sleep 1; b=$(wc -l <"$T/tick.out"); [ "$a" = "$b" ]; }
check "its processes are stopped (no output for a second)" wait_until 10 still
n2=$(wc -l <"$T/tick.out")
check "scontrol show job: JobState=SUSPENDED, SuspendTime and SecsPreSuspend" \
	sh -c "scontrol show job $j | grep -q 'JobState=SUSPENDED Reason=None' && scontrol show job $j | grep -q 'SuspendTime=20.* SecsPreSuspend='"
w=$(sbatch --parsable --exclusive -o /dev/null --wrap true)
sleep 1
check "another job waits: the suspended one keeps its node" \
	sh -c "[ \"\$(squeue -h -j $w -o %t)\" = PD ]"
check "scontrol suspend again: Slurm's error, exit 1" \
	sh -c "! scontrol suspend $j 2>s.err && grep -qx 'Job already suspended for job $j' s.err"
check "scontrol suspend of a pending job: Slurm's error" \
	sh -c "! scontrol suspend $w 2>s.err && grep -qx 'Job is pending execution for job $w' s.err"
check "by a user: Access/permission denied" \
	sh -c "! runuser -u nobody -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol suspend $j 2>s.err && grep -q 'Access/permission denied for job $j' s.err"
kill -9 "$(cat ctld.pid)"; wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "after kill -9 of the controller: still SUSPENDED" \
	wait_until 20 sh -c "[ \"\$(squeue -h -j $j -o %T 2>/dev/null)\" = SUSPENDED ]"
sleep 60 # past the job's 1-minute limit, counted from its start
check "its limit does not run while it is stopped (still SUSPENDED after a minute)" \
	sh -c "[ \"\$(squeue -h -j $j -o %T)\" = SUSPENDED ]"
check "scontrol resume: exit 0" scontrol resume "$j"
check "... RUNNING, output again" wait_until 10 sh -c "[ \"\$(squeue -h -j $j -o %T)\" = RUNNING ] && [ \$(wc -l <'$T/tick.out') -gt $n2 ]"
check "scontrol resume of a running job: Slurm's error" \
	sh -c "! scontrol resume $j 2>s.err && grep -qx 'Job is not suspended for job $j' s.err"
check "scontrol suspend of an unknown job: exit 1" sh -c "! scontrol suspend 99999 2>/dev/null"
scontrol suspend "$j"
scancel "$j"
# notify: an allocation's salloc prints it
salloc -N1 --exclusive sh -c 'echo $SLURM_JOB_ID >salloc.id; sleep 8' 2>salloc.err &
sp=$!
check "salloc holds an allocation" wait_until 30 test -s salloc.id
scontrol notify "$(cat salloc.id)" hello from the admin
wait "$sp"
check "scontrol notify: salloc prints 'salloc: MESSAGE'" grep -qx 'salloc: hello from the admin' salloc.err
check "scancel ends a suspended job" wait_until 20 sh -c "sacct -n -X -P -j $j -o State | grep -q CANCELLED"
check "then the waiting job runs" wait_until 20 sh -c "sacct -n -X -P -j $w -o State | grep -qx COMPLETED"
finish
