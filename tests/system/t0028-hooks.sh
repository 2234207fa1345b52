#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Site hooks on the nodes. HealthCheckProgram: the agent runs it at start
# and every HealthCheckInterval; a run that fails drains the node with the
# first line it printed as the reason (sinfo -R); jobs then wait. A
# HealthCheckNodeState the agent cannot honour (CYCLE) stops it with a
# message naming it, not silently. TaskProlog runs before the batch script
# and before each srun task, as the user, and its "export", "unset" and
# "print" lines are honoured; TaskEpilog runs after each of them; srun's
# --task-prolog and --task-epilog around each of its tasks.
# PrologSlurmctld runs on the controller before a job launches (a failure
# requeues it held) and EpilogSlurmctld when it ends.
# PlugStackConfig (SPANK) stops the daemons with a message naming it.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
printf '%s\n' '#!/bin/sh' "if [ -e $T/sick ]; then" '	echo "scratch is full"; exit 1' 'fi' >hc.sh
chmod 755 hc.sh
printf '%s\n' '#!/bin/sh' 'echo "export FROM_PROLOG=yes"' 'echo "unset DROP_ME"' \
	'echo "print prolog says hi"' >tp.sh
printf '%s\n' '#!/bin/sh' "echo \"epilog \$SLURM_JOB_ID \$FROM_PROLOG\" >>$T/epilog.log" >te.sh
chmod 755 tp.sh te.sh
printf '%s\n' '#!/bin/sh' "echo \"\$SLURM_JOB_ID \$SLURM_SCRIPT_CONTEXT \$SLURM_JOB_USER\" >>$T/pc.log" \
	"[ ! -e $T/pc-fail ]" >pc.sh
printf '%s\n' '#!/bin/sh' "echo \"\$SLURM_JOB_ID \$SLURM_SCRIPT_CONTEXT \$SLURM_JOB_EXIT_CODE\" >>$T/ec.log" >ec.sh
chmod 755 pc.sh ec.sh
cat >>slurm.conf <<CONF
PrologSlurmctld=$T/pc.sh
EpilogSlurmctld=$T/ec.sh
TaskProlog=$T/tp.sh
TaskEpilog=$T/te.sh
HealthCheckProgram=$T/hc.sh
HealthCheckInterval=1
HealthCheckNodeState=ANY
CONF
start_ctld
start_agents 2
check "the nodes register, healthy" wait_until 20 nodes_idle 2
j=$(DROP_ME=1 sbatch --parsable --wait -n2 -o tp.out --wrap 'echo batch FROM=$FROM_PROLOG DROP=$DROP_ME; srun -n2 --export=NONE sh -c "echo task FROM=\$FROM_PROLOG"')
check "TaskProlog's export and unset reach the batch script" grep -qx 'batch FROM=yes DROP=' tp.out
check "... and each srun task" sh -c "[ \$(grep -cx 'task FROM=yes' tp.out) = 2 ]"
check "its print lines go to the output, once per task" sh -c "[ \$(grep -cx 'prolog says hi' tp.out) = 3 ]"
check "TaskEpilog ran after the script and after each task" sh -c "[ \$(grep -cx \"epilog $j yes\" epilog.log) = 3 ]"
# srun --task-prolog/--task-epilog (the user's own, run as the user): after
# TaskProlog (its exports seen, and overridden), before TaskEpilog; one that
# runs over 5 s is killed, a failed one said in slurmstepd's words (lines
# checked against Slurm 22.05's); a failed prolog ends the task with its
# code. The agent does not wait on a task's epilog: two ranks on one node
# that need each other both start.
printf '%s\n' '#!/bin/sh' 'echo "export FROM_PROLOG=srun-$FROM_PROLOG"' \
	'echo "print srun prolog $SLURM_SCRIPT_CONTEXT"' >up.sh
printf '%s\n' '#!/bin/sh' "echo \"srun-epilog \$SLURM_JOB_ID \$SLURM_SCRIPT_CONTEXT\" >>$T/epilog.log" >ue.sh
printf '%s\n' '#!/bin/sh' 'sleep 100' >slow.sh
printf '%s\n' '#!/bin/sh' 'exit 4' >bad.sh
chmod 755 up.sh ue.sh slow.sh bad.sh
cat >user.sh <<SH
#!/bin/sh
srun -n2 --task-prolog=$T/up.sh --task-epilog=ue.sh sh -c 'echo task FROM=\$FROM_PROLOG'
srun -n1 --task-epilog=$T/slow.sh true; echo slow rc=\$?
srun -n1 --task-prolog=$T/bad.sh echo never; echo bad rc=\$?
srun -N1 -n2 -t1 sh -c 'if [ \$SLURM_PROCID = 0 ]; then while [ ! -e $T/r1 ]; do sleep 0.1; done; echo r0 saw r1; else touch $T/r1; fi'
SH
j2=$(sbatch --parsable --wait -n2 -o up.out user.sh)
check "srun --task-prolog runs after TaskProlog, its exports and prints reach each task" sh -c "
	[ \$(grep -cx 'task FROM=srun-yes' up.out) = 2 ] && [ \$(grep -cx 'srun prolog prolog_task' up.out) = 2 ]"
check "srun --task-epilog runs after each task, before TaskEpilog" sh -c "
	[ \$(grep -cx 'srun-epilog $j2 epilog_task' epilog.log) = 2 ] &&
	grep \" $j2 \" epilog.log | head -1 | grep -q '^srun-epilog' && [ \$(grep -cx 'epilog $j2 srun-yes' epilog.log) = 2 ]"
check "an epilog over 5 s is killed, as slurmstepd says; the task's code stays" sh -c "
	grep -qx 'slurmstepd: error: TaskEpilog failed status=9' up.out && grep -qx 'slow rc=0' up.out"
check "a failed --task-prolog ends the task with its code, said" sh -c "
	grep -qx 'slurmstepd: error: --task-prolog failed status=4' up.out && grep -qx 'bad rc=4' up.out && ! grep -q never up.out"
check "with TaskEpilog set, a node's ranks start together (the agent waits on no task)" grep -qx 'r0 saw r1' up.out
check "PrologSlurmctld ran for the job, with Slurm's variables" grep -qx "$j prolog_slurmctld root" pc.log
check "EpilogSlurmctld ran at its end, with its exit code" wait_until 10 grep -qx "$j epilog_slurmctld 0" ec.log
touch pc-fail
k=$(sbatch --parsable -o /dev/null --wrap true)
check "a failing PrologSlurmctld requeues a batch job held, unlaunched" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $k -o '%t %r')\" = 'PD JobHeldAdmin' ]"
scancel "$k"
rm -f pc-fail
touch sick
check "a failing check drains the nodes with its first line as the reason" \
	wait_until 10 sh -c "[ \$(sinfo -R -h -o '%E %N' | grep -c 'HealthCheck: scratch is full') -ge 1 ] &&
		[ \$(sinfo -h -N -o '%N %t' | awk '\$2 ~ /^drain/ {print \$1}' | sort -u | wc -l) = 2 ]"
check "the drained nodes take no new job" sh -c "j=\$(sbatch --parsable --wrap true) && sleep 1 && [ \"\$(squeue -h -j \$j -o %t)\" = PD ]"
rm -f sick
scontrol update nodename=mi[1-2] state=resume >/dev/null 2>&1
check "resumed by an administrator once healthy, they run jobs again" \
	wait_until 15 sh -c "[ -z \"\$(squeue -h -t PD)\" ]"
sed 's/^HealthCheckNodeState=ANY/HealthCheckNodeState=CYCLE/' slurm.conf >cycle.conf
out=$("$BUILD/src/agent/spurd" -f "$T/cycle.conf" -N mi1 2>&1)
rc=$?
check "HealthCheckNodeState=CYCLE is refused by name, exit 1" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'HealthCheckNodeState=CYCLE is not supported'"
grep -v '^HealthCheckNodeState' slurm.conf >spank.conf
echo "PlugStackConfig=/etc/slurm/plugstack.conf" >>spank.conf
out=$("$BUILD/src/agent/spurd" -f "$T/spank.conf" -N mi1 2>&1)
rc=$?
check "PlugStackConfig (SPANK) stops the agent, named" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'PlugStackConfig=/etc/slurm/plugstack.conf: SPANK plugins are not supported'"
out=$("$BUILD/src/ctld/spurctld" -f "$T/spank.conf" -L "$T/spank.log" 2>&1)
rc=$?
check "... and the controller" sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'SPANK plugins are not supported'"
finish
