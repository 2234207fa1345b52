#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sacctmgr, sshare and sreport byte for byte against real Slurm 22.05 with
# slurmdbd (tests/compat/golden/slurm-accounts.txt, captured on
# ../shared/slurm-golden): the same commands on a cluster of the same
# name. Dates are compared as a placeholder; sreport's rows are left out
# (slurmdbd had rolled up no usage yet, so Slurm printed none). Second
# part, with limits enforced and every priority weight 0 as in the
# capture: a real second user's jobs held (Slurm's pending reasons),
# refused (the limit's name on its own line, then the message), sprio.
. "$(dirname "$0")/lib.sh"
GOLD="$(cd "$(dirname "$0")/../compat/golden" && pwd)/slurm-accounts.txt"
cd "$T"
write_conf 2 gpu:mi300x:8
sed -i -e 's/^ClusterName=.*/ClusterName=bench/' -e 's/^PartitionName=gpu/PartitionName=batch/' slurm.conf
grep -q '^ClusterName=bench' slurm.conf || echo ClusterName=bench >>slurm.conf
# as the capture's second part: limits enforced, every priority weight 0
cat >>slurm.conf <<'CONF'
AccountingStorageEnforce=associations,limits,qos
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
CONF
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
gold() { sed -n "/^== $1\$/,/^== /p" "$GOLD" | sed '1d;/^== /d'; }
dates() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}/DATE/g'; }
same() { # NAME: our output (file out) is Slurm's
	if diff <(gold "$1") out >diff.txt; then ok "$1 as Slurm prints it"; else
		not_ok "$1 as Slurm prints it"
		cat diff.txt
	fi
}
check "sacctmgr add cluster of the cluster itself: Slurm's words" \
	bash -c "[ \"\$(sacctmgr -i add cluster bench)\" = ' This cluster bench already exists.  Not adding.' ]"
check "... another cluster: refused by name" bash -c "! sacctmgr -i add cluster other 2>err && grep -q 'not supported' err"
{ sacctmgr -i add account proj1 Description=p Organization=o; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_account"
{ sacctmgr -i add user baruser Account=proj1; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_user"
{ sacctmgr -i modify account proj1 set GrpTRES=gres/gpu=8; echo "rc=$?"; } >out 2>&1
same "sacctmgr modify_account"
{ sacctmgr -i add qos gold Priority=100; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_qos"
for c in "sacctmgr show assoc" "sacctmgr -n -P show assoc format=Account,User" \
	"sacctmgr show account" "sacctmgr show user" "sacctmgr show qos" \
	"sacctmgr -P show qos format=Name,Priority,GrpTRES,MaxWall"; do
	$c >out 2>&1
	same "$c"
done
sshare -a | head -2 >out
gold "sshare -a" | head -2 >gold.txt
check "sshare -a: Slurm's header" diff gold.txt out
sshare -a -P | head -1 >out
gold "sshare -a -P" | head -1 >gold.txt
check "sshare -a -P: Slurm's header" diff gold.txt out
sshare -a -l | head -2 >out
gold "sshare -a -l" | head -2 >gold.txt
check "sshare -a -l: Slurm's header" diff gold.txt out
for r in "sreport_util:cluster Utilization" "sreport_aubu:cluster AccountUtilizationByUser" \
	"sreport_top:user TopUsage" "sreport_sizes:job SizesByAccount"; do
	sreport ${r#*:} | head -6 | dates >out
	gold "${r%%:*}" | head -6 | dates >gold.txt
	if diff gold.txt out >diff.txt; then ok "sreport ${r#*:}: Slurm's title and header"; else
		not_ok "sreport ${r#*:}: Slurm's title and header"
		cat diff.txt
	fi
done

# the second part: jobs held by limits, refusals, sprio
needs_root runuser useradd
id baruser >/dev/null 2>&1 || useradd -m baruser
chmod 755 "$T"
bar() { runuser -u baruser -- "$@"; }
sub() { bar sbatch --parsable -o /dev/null "$@"; }
: >reasons
a=$(sub -A proj1 --gpus=8 --wrap 'sleep 60')
b=$(sub -A proj1 --gpus=8 --wrap 'sleep 60')
wait_until 10 bash -c "[ -n \"\$(squeue -h -j $b -o %r | grep -v None)\" ]"
squeue -h -j "$b" -o %r >>reasons
scancel "$a" "$b"
{ sacctmgr -i modify user baruser where account=proj1 set MaxJobs=1 MaxSubmitJobs=2; echo "rc=$?"; } >out 2>&1
same "sacctmgr modify_user"
wait_until 10 bash -c "[ -z \"\$(squeue -h -u baruser)\" ]"
d=$(sub -A proj1 --wrap 'sleep 60')
e=$(sub -A proj1 --wrap 'sleep 60')
wait_until 10 bash -c "[ -n \"\$(squeue -h -j $e -o %r | grep -v None)\" ]"
squeue -h -j "$e" -o %r >>reasons
{ bar sbatch -A proj1 --wrap true; echo "rc=$?"; } >out 2>&1
same "sbatch over MaxSubmitJobs"
sprio >out 2>&1
same "sprio"
sprio -w >out 2>&1
same "sprio -w"
sprio -l | head -1 >out
gold "sprio -l" | head -1 >gold.txt
check "sprio -l: Slurm's header" diff gold.txt out
scancel "$d" "$e"
wait_until 10 bash -c "[ -z \"\$(squeue -h -u baruser)\" ]"
sacctmgr -i modify user baruser where account=proj1 set MaxJobs=-1 MaxSubmitJobs=-1 QOS+=gold >/dev/null
{ sacctmgr -i modify qos gold set MaxWall=01:00:00 MaxTRESPerUser=gres/gpu=4; echo "rc=$?"; } >out 2>&1
same "sacctmgr modify_qos"
f=$(sub -A proj1 --qos=gold -t 2:00:00 --wrap true)
g=$(sub -A proj1 --qos=gold --gpus=4 --wrap 'sleep 60')
h=$(sub -A proj1 --qos=gold --gpus=1 --wrap 'sleep 60')
wait_until 10 bash -c "[ -n \"\$(squeue -h -j $h -o %r | grep -v None)\" ]"
squeue -h -j "$f" -o %r >>reasons
squeue -h -j "$h" -o %r >>reasons
scancel "$f" "$g" "$h"
gold reasons >gold.txt
check "the pending reasons, as Slurm's" diff gold.txt reasons
sacctmgr -i modify qos gold set Flags=DenyOnLimit >/dev/null
{ bar sbatch -A proj1 --qos=gold -t 2:00:00 --wrap true; echo "rc=$?"; } >out 2>&1
same "sbatch with DenyOnLimit"
sacctmgr show assoc format=Account,User,QOS,MaxJobs >out 2>&1
same "sacctmgr show assoc format=Account,User,QOS,MaxJobs"

# sdiag: the lines its readers (exporters) parse, labelled as Slurm's
sdiag >out
gold sdiag >gold.txt
labels() { grep -oE '^(Jobs [a-z]+: |Server thread count: |\s+(Last cycle|Max cycle|Total cycles|Mean cycle|Mean depth cycle|Last queue length|Total backfilled jobs \(since last slurm start\)): )' "$1" | sort -u; }
check "sdiag: Slurm's labels" bash -c "[ -z \"\$(comm -23 <(labels gold.txt) <(labels out))\" ]"
rpc='^\s[A-Z_]+ +\( *[0-9]+\) count:[0-9]+ +ave_time:[0-9]+ +total_time:[0-9]+$'
check "sdiag: RPC lines as Slurm's, REQUEST_SUBMIT_BATCH_JOB among them" \
	bash -c "grep -qE '$rpc' gold.txt && grep -E '$rpc' out | grep -q 'REQUEST_SUBMIT_BATCH_JOB *( 4003)'"

# a tree dumped by Slurm's sacctmgr (a sub-account, a user in two
# accounts with limits, a QOS added to the parent's) loads as Slurm shows it
GOLDDIR=$(dirname "$GOLD")
sacctmgr -Q -i delete user baruser && sacctmgr -Q -i delete account proj1
check "sacctmgr load of Slurm's dump" sacctmgr -Q -i load File="$GOLDDIR/slurm-dump-bench.cfg"
sacctmgr -n -P show assoc format=Account,User,Share,GrpTRES,MaxJobs,MaxWall,QOS,ParentName >out
check "... the associations as Slurm lists them" diff "$GOLDDIR/slurm-dump-bench-assoc.txt" out
finish
