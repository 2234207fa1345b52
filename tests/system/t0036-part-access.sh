#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A partition's access controls hold as Slurm's: AllowGroups (a
# supplementary group counts), AllowAccounts, DenyAccounts, AllowQos and
# MaxMemPerNode, DenyQos and RootOnly refuse a job with Slurm's words
# (ExclusiveUser keeps a node to one user's jobs while one of its jobs runs); root
# is not held by them; scontrol show partition prints them (and the
# partition's job defaults) as real Slurm 22.05 does
# (tests/compat/golden/slurm-part-access.txt).
# The keys Spur accepts but does not act on are listed by the controller
# at start and by spur conf check (an error with --strict); SlurmdSpoolDir's
# %n expands. Needs root,
# runuser, useradd and groupadd (real users and groups of this host).
. "$(dirname "$0")/lib.sh"
GOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-part-access.txt"
needs_root runuser useradd groupadd
getent group spurpa >/dev/null || groupadd spurpa
for u in spur-alice spur-bob; do id "$u" >/dev/null 2>&1 || useradd -M -r -s /bin/sh "$u"; done
usermod -a -G spurpa spur-alice
cd "$T"
chmod 755 "$T"
write_conf 2 gpu:mi300x:8
# Slurm's %n in SlurmdSpoolDir: each node's folder
sed -i "s|^SlurmdSpoolDir=.*|SlurmdSpoolDir=$T/spool-%n|" slurm.conf
cat >>slurm.conf <<CONF
PartitionName=priv Nodes=mi1 AllowGroups=spurpa
PartitionName=acct Nodes=mi1 AllowAccounts=a1,a2 DenyAccounts=a2
PartitionName=qosp Nodes=mi1 AllowQos=high
PartitionName=small Nodes=mi2 MaxMemPerNode=1000 GraceTime=30
PartitionName=xu Nodes=mi2 ExclusiveUser=YES
PartitionName=acl Nodes=mi[1-2] AllowGroups=root,video DenyAccounts=bad DenyQos=low RootOnly=YES OverSubscribe=EXCLUSIVE DefMemPerCPU=100 MaxMemPerNode=4000 DefCpuPerGPU=2 DefMemPerGPU=48 ExclusiveUser=YES
PartitionName=acl2 Nodes=mi1 AllowAccounts=a,b AllowQos=normal,high OverSubscribe=YES:4 DefMemPerNode=500
PartitionName=dq Nodes=mi1 DenyQos=normal
CONF
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }
sub() { as "$@" --parsable -H -o /dev/null --wrap true; }

check "AllowGroups: a member (by a supplementary group) may submit" sub spur-alice sbatch -p priv
out=$(sub spur-bob sbatch -p priv 2>&1)
check "... another user is refused in Slurm's words" \
	sh -c "echo '$out' | grep -qx 'sbatch: error: Batch job submission failed: Access/permission denied'"
check "... root is not held by it" sub root sbatch -p priv
j=$(sub spur-bob sbatch -p gpu)
out=$(as spur-bob scontrol update JobId=$j Partition=priv 2>&1)
check "scontrol update to a partition the user may not use is refused" \
	sh -c "echo '$out' | grep -q 'Access/permission denied' && scontrol show job $j | grep -q Partition=gpu"
check "AllowAccounts: a listed account may" sub spur-bob sbatch -p acct -A a1
out=$(sub spur-bob sbatch -p acct -A a3 2>&1)
check "... another is refused" sh -c "echo '$out' | grep -q 'Invalid account or account/partition combination specified'"
out=$(sub spur-bob sbatch -p acct -A a2 2>&1)
check "DenyAccounts: a denied account is refused" sh -c "echo '$out' | grep -q 'Invalid account or account/partition'"
out=$(sub spur-bob sbatch -p qosp 2>&1)
check "AllowQos: a job of another QOS is refused" sh -c "echo '$out' | grep -q 'Invalid qos specification'"
check "MaxMemPerNode: a job within it may" sub spur-bob sbatch -p small --mem=900M
out=$(sub spur-bob sbatch -p small --mem=2G 2>&1)
check "... one past it is refused" sh -c "echo '$out' | grep -q 'Memory required by task is not available'"
out=$(sub spur-bob sbatch -p acl 2>&1)
check "RootOnly=YES: a user is refused (Access/permission denied)" \
	sh -c "echo '$out' | grep -qx 'sbatch: error: Batch job submission failed: Access/permission denied'"
check "... root may" sub root sbatch -p acl -q normal
out=$(sub spur-bob sbatch -p dq 2>&1)
check "DenyQos=normal: a job of QOS normal is refused" sh -c "echo '$out' | grep -q 'Invalid qos specification'"
# the lines that name the partition's access and defaults, as real Slurm prints them
lines() { grep -E '^   (AllowGroups|DefaultTime|PriorityJobFactor|JobDefaults|Def?Mem)' ; }
awk '/^PartitionName=acl$/,/^   TRES/' "$GOLD" | lines >acl.gold
scontrol show partition acl | lines >acl.ours
check "scontrol show partition: access, OverSubscribe, RootOnly and defaults as real Slurm's" cmp -s acl.gold acl.ours
awk '/^PartitionName=acl2$/,/^   TRES/' "$GOLD" | lines >acl2.gold
scontrol show partition acl2 | lines >acl2.ours
check "... AllowAccounts/AllowQos, OverSubscribe=YES:4, DefMemPerNode too" cmp -s acl2.gold acl2.ours
# ExclusiveUser=YES: a node running such a job holds its user's jobs alone
xa=$(as spur-alice sbatch --parsable -p xu -n1 -o /dev/null --wrap 'sleep 300')
check "ExclusiveUser: alice's job runs on mi2" wait_until 10 sh -c "[ \"\$(squeue -h -j $xa -o '%t %N')\" = 'R mi2' ]"
xb=$(as spur-bob sbatch --parsable -p gpu -w mi2 -n1 -o /dev/null --wrap 'sleep 300')
xa2=$(as spur-alice sbatch --parsable -p gpu -w mi2 -n1 -o /dev/null --wrap 'sleep 300')
check "... her other job runs beside it" wait_until 10 sh -c "[ \"\$(squeue -h -j $xa2 -o %t)\" = R ]"
check "... bob's waits (the node is alice's while her ExclusiveUser job runs)" \
	sh -c "sleep 1; [ \"\$(squeue -h -j $xb -o %t)\" = PD ]"
scancel "$xa"
check "... once it ends, bob's runs" wait_until 10 sh -c "[ \"\$(squeue -h -j $xb -o %t)\" = R ]"
scancel "$xb" "$xa2"
check "SlurmdSpoolDir's %n is the node's name" sh -c "[ -d '$T/spool-mi1' ] && [ -d '$T/spool-mi2' ]"
check "the controller names the key it does not act on" \
	grep -q "GraceTime=30: accepted but not acted on by Spur" ctld.log
check "spur conf check lists it (a warning)" \
	sh -c "spur conf check -f slurm.conf 2>&1 | grep -q 'GraceTime=30: accepted but not acted on'"
check "... an error with --strict" sh -c "! spur conf check --strict -f slurm.conf >/dev/null 2>&1"
# scontrol update PartitionName=: an administrator's change, kept by the log
check "a user cannot update a partition" \
	sh -c "! as spur-alice scontrol update PartitionName=acct State=DOWN 2>upd.err"
scontrol update PartitionName=small State=DOWN MaxTime=30:00
check "State=DOWN: scontrol and sinfo say so" \
	sh -c "scontrol show partition small | grep -q '^   State=DOWN ' && scontrol show partition small | grep -q 'MaxTime=00:30:00 ' && sinfo -h -p small -o %a | grep -qx down"
jd=$(sbatch --parsable -p small -o /dev/null --wrap true)
check "... a job submitted to it waits: PartitionDown" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $jd -o '%T %r')\" = 'PENDING PartitionDown' ]"
scontrol update PartitionName=small State=DRAIN
check "State=DRAIN: a new job is refused with Slurm's words, exit 1" \
	sh -c "! sbatch -p small -o /dev/null --wrap true 2>drain.err && grep -q 'Required partition not available (inactive or drain)' drain.err"
kill -9 "$(cat ctld.pid)"; wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "... and after a kill -9 of the controller, still DRAIN (the log keeps it)" \
	wait_until 20 sh -c "scontrol show partition small | grep -q '^   State=DRAIN '"
scontrol update PartitionName=small State=UP MaxTime=UNLIMITED
check "State=UP: the waiting job runs" wait_until 20 sh -c "[ -z \"\$(squeue -h -j $jd -t PD)\" ]"
check "Nodes= changes its nodes" \
	sh -c "scontrol update PartitionName=small Nodes=mi1 && scontrol show partition small | grep -qx '   Nodes=mi1'"
finish
