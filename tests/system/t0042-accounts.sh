#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Accounts, users, QOS and limits (AccountingStorageEnforce=
# associations,limits,qos) as a site uses them: sacctmgr builds the tree,
# jobs of a real second user (baruser, made here) are held with Slurm's
# pending reasons or refused with Slurm's message, and the tree survives a
# kill -9 of the controller and a dump/load round trip. GPUs are the
# agents' simulated ones.
. "$(dirname "$0")/lib.sh"
needs_root runuser useradd
cd "$T"
write_conf 2 gpu:mi300x:8
printf 'AccountingStorageEnforce=associations,limits,qos\nPreemptType=preempt/qos\nPreemptMode=REQUEUE\n' >>slurm.conf
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
id baruser >/dev/null 2>&1 || useradd -m baruser
chmod 755 "$T"
mkdir -m 777 out
bar() { runuser -u baruser -- "$@"; }
sub() { bar sbatch --parsable -o /dev/null "$@"; }
reason() { squeue -h -j "$1" -o %r; }
export -f bar reason

check "sacctmgr add account" sacctmgr -i add account proj1 Description=p Organization=o
check "sacctmgr add account under a parent" sacctmgr -i add account sub1 Parent=proj1
check "sacctmgr add user with two accounts (names in any case: Slurm keeps them lowercase)" \
	sacctmgr -i add user baruser Account=PROJ1,Sub1
check "sacctmgr add qos" sacctmgr -i add qos gold Priority=100
check "without -i sacctmgr asks; y commits" bash -c "echo y | sacctmgr add qos silver | grep -q 'Would you like to commit changes'"
check "... and a no discards" bash -c "echo n | sacctmgr add qos bronze | grep -q 'Changes Discarded' && ! sacctmgr -n -P show qos format=Name | grep -qx bronze"
check "show assoc, in Slurm's tree order" \
	bash -c "[ \"\$(sacctmgr -n -P show assoc format=Account,User | tr '\n' ' ')\" = 'root| root|root proj1| proj1|baruser sub1| sub1|baruser ' ]"
check "show user: the first account is the default" \
	bash -c "sacctmgr -n -P show user format=User,DefaultAccount | grep -qx 'baruser|proj1'"
check "show account -P with a header" bash -c "sacctmgr -P show account | head -1 | grep -qx 'Account|Descr|Org'"
j=$(bar sbatch --parsable -H -A Proj1 --wrap true)
check "sbatch -A Proj1: Account=proj1, as Slurm (lowercase)" \
	sh -c "scontrol show job $j | grep -q ' Account=proj1 '"
scancel "$j"
check "a field sacctmgr does not have is refused" bash -c "! sacctmgr show assoc format=Nope 2>err && grep -q 'Invalid field requested' err"
check "a limit Spur does not carry out is refused by name" \
	bash -c "! sacctmgr -i modify account proj1 set MaxTRESMins=cpu=10 2>err && grep -q 'MaxTRESMins is not supported' err"

# GrpTRES on the account, inherited by what runs under it and its sub-account
check "set GrpTRES=gres/gpu=8" sacctmgr -i modify account proj1 set GrpTRES=gres/gpu=8
check "... shown" bash -c "sacctmgr -n -P show assoc format=Account,User,GrpTRES | grep -qx 'proj1||gres/gpu=8'"
a=$(sub -A proj1 --gpus=8 --wrap 'sleep 30')
b=$(sub -A sub1 --gpus=8 --wrap 'sleep 30')
check "the first 8-GPU job runs" wait_until 10 bash -c "[ \"\$(squeue -h -j $a -o %t)\" = R ]"
check "the second waits with AssocGrpGRES (its sub-account counts)" wait_until 10 bash -c "[ \"\$(reason $b)\" = AssocGrpGRES ]"
# (it has run two seconds, for sreport below)
wait_until 10 bash -c "[ \$(sacct -n -X -P -j $a -o ElapsedRaw) -ge 2 ]"
scancel "$a"
check "... and runs once the first ends" wait_until 15 bash -c "[ \"\$(squeue -h -j $b -o %t)\" = R ]"
scancel "$b"
# proj1's GPU seconds: its one 8-GPU job's run (sacct's ElapsedRaw), to the second
gs=$(( $(sacct -n -X -P -j "$a" -o ElapsedRaw) * 8 ))
check "sreport GPU seconds by account and user: what the 8-GPU job used ($gs)" \
	bash -c "sreport -P -n cluster AccountUtilizationByUser start=today end=now -t Seconds --tres=gres/gpu | grep -qx 'systest|proj1|baruser|baruser|$gs|0'"
check "a job under an account the user lacks is refused" \
	bash -c "! bar sbatch -A nosuch --wrap true 2>err && grep -q 'Invalid account or account/partition combination specified' err"
c=$(sub --wrap true)
check "no -A: the default account" bash -c "[ \"\$(sacct -n -X -P -j $c -o Account)\" = proj1 ]"
# (it must have ended: the submit limit below counts the jobs not ended)
check "... and it ends" wait_until 30 bash -c "[ -z \"\$(squeue -h -j $c)\" ]"

# MaxJobs and MaxSubmitJobs on the user's association
check "set MaxJobs=1 MaxSubmitJobs=2" sacctmgr -i modify user baruser where account=proj1 set MaxJobs=1 MaxSubmitJobs=2
d=$(sub -A proj1 --wrap 'sleep 30')
e=$(sub -A proj1 --wrap 'sleep 30')
check "a second running job waits with AssocMaxJobsLimit" wait_until 10 bash -c "[ \"\$(reason $e)\" = AssocMaxJobsLimit ]"
check "a third submission is refused with Slurm's message" \
	bash -c "! bar sbatch -A proj1 --wrap true 2>err && grep -q 'Job violates accounting/QOS policy (job submit limit, user.s size and/or time limits)' err"
check "deleting an association with active jobs is refused" \
	bash -c "! sacctmgr -i delete user baruser where account=proj1 2>err && grep -q 'Job(s) active' err"
scancel "$d" "$e"
check "modify assoc where user= account= set MaxJobs=-1 MaxSubmitJobs=-1 clears them" \
	sacctmgr -i modify assoc where user=baruser account=proj1 set MaxJobs=-1 MaxSubmitJobs=-1
check "... shown cleared" bash -c "sacctmgr -n -P show assoc where user=baruser account=proj1 format=MaxJobs,MaxSubmit | grep -qx '|'"

# QOS limits: MaxWall, per-user GPUs, DenyOnLimit
check "QOS MaxWall and MaxTRESPerUser" sacctmgr -i modify qos gold set MaxWall=01:00:00 MaxTRESPerUser=gres/gpu=4
f=$(sub -A proj1 --qos=gold -t 2:00:00 --wrap true)
check "a job over the QOS' MaxWall waits with QOSMaxWallDurationPerJobLimit" wait_until 10 bash -c "[ \"\$(reason $f)\" = QOSMaxWallDurationPerJobLimit ]"
g=$(sub -A proj1 --qos=gold --gpus=4 --wrap 'sleep 30')
h=$(sub -A proj1 --qos=gold --gpus=1 --wrap 'sleep 30')
check "a user's fifth GPU in the QOS waits with QOSMaxGRESPerUser" wait_until 10 bash -c "[ \"\$(reason $h)\" = QOSMaxGRESPerUser ]"
scancel "$f" "$g" "$h"
check "Flags=DenyOnLimit" sacctmgr -i modify qos gold set Flags=DenyOnLimit
check "... refuses a job over MaxWall at submission" \
	bash -c "! bar sbatch -A proj1 --qos=gold -t 2:00:00 --wrap true 2>err && grep -q 'Job violates accounting/QOS policy' err"

# the admin commands, from the same state
check "sshare -a: the user's row under its account" bash -c "sshare -a -P | grep -q '^  proj1|baruser|1|'"
k=$(sub -A proj1 -H --wrap true)
check "sprio: a pending job's priority and factors" bash -c "[ \"\$(sprio -h -j $k | awk '{print \$1, NF}')\" = '$k 9' ]"
scancel "$k"
check "sdiag: submissions and RPC counts by type" bash -c "sdiag | grep -q '^Jobs submitted: [1-9]' && sdiag | grep -qE 'REQUEST_SUBMIT_BATCH_JOB +\( 4003\) count:[1-9]'"
check "sreport cluster Utilization" bash -c "sreport -P -n cluster Utilization start=today end=now | grep -q '^systest|'"
check "sreport user TopUsage and job SizesByAccount" bash -c "sreport user TopUsage start=today end=now | grep -q baruser && sreport job SizesByAccount start=today end=now | grep -q proj1"

# sstat: a running job's use on each of its nodes (60 MB held on both)
m=$(sub -A proj1 -N2 --wrap "srun -N2 python3 -c \"
import os, time
x = bytearray(60 * 1024 * 1024)
open('$T/out/held.' + os.environ['SLURM_NODEID'], 'w').close()
time.sleep(60)
\"")
check "the job holds its memory on both nodes" wait_until 20 bash -c "[ -e out/held.0 ] && [ -e out/held.1 ]"
check "sstat: step 0 on both nodes, 60 MB on each (MaxRSS), and the batch step" \
	bash -c "sstat -n -P -j $m -o JobID,MaxRSS,NTasks,Nodelist >st.txt && grep -q '^$m.batch|' st.txt &&
		awk -F'|' '\$1 == \"$m.0\" && \$2 + 0 >= 61440 && \$3 == 2 && \$4 ~ /mi1/ && \$4 ~ /mi2/ {ok=1} END {exit !ok}' st.txt"
check "sstat -j JOB.STEP: that step alone; a step that does not run: said" \
	bash -c "[ \"\$(sstat -n -P -j $m.0 -o JobID)\" = $m.0 ] && ! sstat -j $m.9 2>err && grep -q 'no steps running' err"
check "sstat: a field it does not have is refused" bash -c "! sstat -j $m -o Nope 2>err && grep -q 'Invalid field requested' err"
scancel "$m"
check "sstat of a job that does not run: refused" bash -c "! sstat -j $c 2>err && grep -q 'not running' err"

# the cluster's own association (root): GrpJobs=1 for all jobs together
check "modify cluster set GrpJobs=1" sacctmgr -i modify cluster systest set GrpJobs=1
check "... shown by show cluster and on root's row" bash -c "sacctmgr -n -P show cluster format=Cluster,GrpJobs | grep -qx 'systest|1' &&
	sacctmgr -n -P show assoc format=Account,User,GrpJobs | grep -qx 'root||1'"
r1=$(sub -A proj1 --wrap 'sleep 60')
r2=$(sub -A sub1 --wrap 'sleep 60')
check "a second job anywhere waits with AssocGrpJobsLimit" wait_until 10 bash -c "[ \"\$(reason $r2)\" = AssocGrpJobsLimit ]"
check "a cluster cannot be removed" bash -c "! sacctmgr -i delete cluster systest 2>err && grep -q 'cannot be removed' err"
sacctmgr -i modify cluster systest set GrpJobs=-1 >/dev/null
check "... cleared, it runs" wait_until 10 bash -c "[ \"\$(squeue -h -j $r2 -o %t)\" = R ]"
scancel "$r1" "$r2"

# the tree is cluster state: it survives kill -9 and a restart (as does an
# administrator's drain)
scontrol update nodename=mi2 state=drain reason="new NIC" >/dev/null
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller answers after kill -9" wait_until 20 squeue
check "the associations survived" \
	bash -c "[ \"\$(sacctmgr -n -P show assoc format=Account,User,GrpTRES | tr '\n' ' ')\" = 'root|| root|root| proj1||gres/gpu=8 proj1|baruser| sub1|| sub1|baruser| ' ]"
check "... and the drain, with its reason and user" \
	bash -c "sinfo -R -h | grep -qE '^new NIC +root +[0-9]{4}-.* mi2\$'"
check "... and the QOS' limits hold" \
	bash -c "! bar sbatch -A proj1 --qos=gold -t 2:00:00 --wrap true 2>/dev/null"

# an association's QOS list and default QOS
check "set QOS=normal,gold DefaultQOS=normal" sacctmgr -i modify user baruser where account=proj1 set QOS=normal,gold DefaultQOS=normal
q=$(sub -A proj1 -H --wrap true)
check "a job with no --qos gets the default" bash -c "[ \"\$(squeue -h -j $q -o %q)\" = normal ]"
scancel "$q"
check "a QOS outside the association's list is refused" \
	bash -c "! bar sbatch -A proj1 --qos=silver --wrap true 2>err && grep -q 'Invalid qos specification' err"

# QOS preemption (PreemptType=preempt/qos): a job of a QOS that may
# preempt another's stops it (requeued) when it cannot start otherwise
check "QOS low, and high that preempts it" bash -c "sacctmgr -i add qos low && sacctmgr -i add qos high Priority=10 Preempt=low && sacctmgr -i modify user baruser where account=proj1 set QOS+=low,high"
# (mi2 is drained since the restart: mi1's 8 GPUs are the cluster's)
sacctmgr -i modify account proj1 set GrpTRES=gres/gpu=-1 >/dev/null
lo=$(sub -A proj1 --qos=low --gpus=8 --requeue --wrap 'sleep 60')
check "the low job holds every GPU" wait_until 10 bash -c "[ \"\$(squeue -h -j $lo -o %t)\" = R ]"
hi=$(sub -A proj1 --qos=high --gpus=8 --wrap 'sleep 60')
check "the high job preempts it and runs" wait_until 15 bash -c "[ \"\$(squeue -h -j $hi -o %t)\" = R ] && [ \"\$(squeue -h -j $lo -o %t)\" = PD ]"
scancel "$lo" "$hi"
check "every job of baruser gone" wait_until 30 bash -c "[ -z \"\$(squeue -h -u baruser)\" ]"

# dump, remove, load: the same tree
check "sacctmgr dump" sacctmgr dump systest File=tree.cfg
sacctmgr -n -P show assoc >before
check "remove the user and the accounts" bash -c "sacctmgr -i delete user baruser && sacctmgr -i delete account sub1 && sacctmgr -i delete account proj1"
check "... gone" bash -c "[ \"\$(sacctmgr -n -P show assoc format=Account | tr '\n' ' ')\" = 'root root ' ]"
check "sacctmgr load" sacctmgr -i load File=tree.cfg
check "... the same associations again" bash -c "sacctmgr -n -P show assoc | diff before -"
finish
