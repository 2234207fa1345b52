#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Site hooks on the nodes. HealthCheckProgram: the agent runs it at start
# and every HealthCheckInterval; a run that fails drains the node with the
# first line it printed as the reason (sinfo -R); jobs then wait. A
# HealthCheckNodeState the agent cannot honour (CYCLE) stops it with a
# message naming it, not silently. TaskProlog runs before the batch script
# and before each srun task, as the user, and its "export", "unset" and
# "print" lines are honoured; TaskEpilog runs after each of them.
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
