#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scontrol create/delete partition as real Slurm 22.05's
# (tests/compat/golden/slurm-part-create.txt): a partition created at run
# time takes jobs on its nodes only, with its limits and state; a duplicate
# name, an unknown key and a key Spur does not act on are refused with
# nothing changed; a partition with a pending job is "in use"; a deleted
# partition takes no more jobs and its name can be used again. Every change
# is a Raft log entry: kept across kill -9 of the controller, also when the
# controller starts from a snapshot (-n 8: one every 8 entries). Also
# changed at run time the same way: a node's features (scontrol update
# NodeName= AvailableFeatures=, what -C then matches); scontrol write
# config writes all of it as a slurm.conf that spur conf check --strict
# takes.
. "$(dirname "$0")/lib.sh"
GOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-part-create.txt"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld -n 8
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2

# the golden file's answer to command $1 (node names as ours)
gold() { awk -v c="\$ $1" '$0 == c {on = 1; next} on && /^[$#] / {exit} on' "$GOLD" | sed 's/node/mi/g'; }
# ours: stdout and stderr, then rc
ours() { sh -c "$(echo "$1" | sed 's/node/mi/g')" 2>&1; echo "rc=$?"; }
same() { # COMMAND: our answer is the golden one
	gold "$1" >want
	ours "$1" >got
	cmp -s want got || { echo "--- want"; cat want; echo "--- got"; cat got; return 1; }
}

check "create PartitionName=cp1 Nodes=mi1 MaxTime=30: as Slurm's (rc 0, silent)" \
	same "scontrol create PartitionName=cp1 Nodes=node1 MaxTime=30"
check "... sinfo shows it: 30:00, mi1" \
	sh -c "sinfo -h -p cp1 -o '%P %l %D %N' | grep -qx 'cp1 30:00 1 mi1'"
check "a duplicate name: Slurm's words, exit 1" \
	same "scontrol create PartitionName=cp1 Nodes=node1"
check "an unknown key: Slurm's words, exit 1" \
	same "scontrol create PartitionName=cp3 Nodes=node2 Bogus=1"
check "... nothing was created" sh -c "! scontrol show partition cp3 >/dev/null 2>&1"
out=$(scontrol create PartitionName=cp3 Nodes=mi2 OverSubscribe=FORCE:64 2>&1)
check "a key Spur does not act on (OverSubscribe=FORCE:64, sharing past 16 ways): refused by name" \
	sh -c "echo '$out' | grep -q 'OverSubscribe=FORCE:64: not supported by Spur'"
check "... nothing was created" sh -c "! scontrol show partition cp3 >/dev/null 2>&1"
out=$(scontrol create PartitionName=cp3 Nodes=mi9 2>&1)
check "an unknown node: Slurm's words, nothing created" \
	sh -c "echo '$out' | grep -qx 'Error creating the partition: Invalid node name specified' &&
		! scontrol show partition cp3 >/dev/null 2>&1"
check "create with OverSubscribe, MaxNodes, DefaultTime, Priority, State" \
	same "scontrol create PartitionName=cp4 Nodes=node2 OverSubscribe=EXCLUSIVE MaxNodes=1 DefaultTime=5 Priority=3 State=DOWN"
notnodes() { grep -Ev '^   (Nodes|State|TRES)=|^rc='; }
gold "scontrol show partition cp4" | notnodes >want4
scontrol show partition cp4 | notnodes >got4
check "... scontrol show partition as Slurm's (all but its nodes' sizes)" cmp want4 got4
check "... State=DOWN, TotalNodes=1" sh -c "scontrol show partition cp4 | grep -q '^   State=DOWN TotalCPUs=8 TotalNodes=1 '"
check "create with no nodes" same "scontrol create PartitionName=cp5"
check "... shown as Slurm shows it (Nodes=(null), TRES=(null))" same "scontrol show partition cp5"

j=$(sbatch --parsable -p cp1 -n1 -o /dev/null --wrap 'sleep 300')
check "a job in cp1 runs on mi1" wait_until 10 sh -c "[ \"\$(squeue -h -j $j -o '%t %N')\" = 'R mi1' ]"
j2=$(sbatch --parsable -p cp1 -t 31 -o /dev/null --wrap true)
check "... one over its MaxTime waits (PartitionTimeLimit)" \
	wait_until 10 sh -c "squeue -h -j $j2 -o %r | grep -qx PartitionTimeLimit"
j4=$(sbatch --parsable -p cp4 -o /dev/null --wrap true)
check "a job in the DOWN partition waits (PartitionDown)" \
	wait_until 10 sh -c "squeue -h -j $j4 -o %r | grep -qx PartitionDown"
check "scontrol update PartitionName=cp4 State=UP: it runs" \
	sh -c "scontrol update PartitionName=cp4 State=UP && scontrol show partition cp4 | grep -q '^   State=UP '"
check "... on mi2" wait_until 10 sh -c "sacct -n -X -j $j4 -o NodeList,State | grep -q 'mi2 *COMPLETED'"
scancel "$j2"

h=$(sbatch --parsable -p cp1 -H -o /dev/null --wrap true)
scancel "$j"
check "a held job in cp1: delete refused, Slurm's words" same "scontrol delete PartitionName=cp1"
scancel "$h"
check "... cancelled: deleted" sh -c "scontrol delete PartitionName=cp1 && ! sinfo -h -o %P | grep -qx cp1"
check "... a second delete: Slurm's words" sh -c "scontrol delete PartitionName=cp1 2>&1 |
	grep -qx 'delete_partition PartitionName=cp1: Invalid partition name specified'"
check "sbatch -p cp1 now: refused" sh -c "! sbatch -p cp1 -o /dev/null --wrap true 2>/dev/null"
check "delete partition=cp4 (Slurm's other spelling)" same "scontrol delete partition=cp4"
check "create/delete with no arguments: Slurm's words" \
	sh -c "$(declare -f gold ours same); GOLD=$GOLD; same 'scontrol create' && same 'scontrol delete'"
check "an unknown entity: Slurm's words" \
	sh -c "$(declare -f gold ours same); GOLD=$GOLD; same 'scontrol create foo=x' && same 'scontrol delete foo=x'"
check "a user may not create one" \
	sh -c "! runuser -u nobody -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol create PartitionName=u1 2>/dev/null"
# squeue -P/--priority and -S/--sort (test5.10 of Slurm's expect suite)
scontrol create PartitionName=pa Priority=1 Nodes=mi1
scontrol create PartitionName=pb Priority=2 Nodes=mi1
pj=$(sbatch --parsable -N1 -t1 --begin=now+1hour -p pa,pb -o /dev/null --wrap true)
order() { squeue --priority --sort=p,i --noheader -j "$pj" -Opartition:5 --state=PD | tr -d ' \n'; }
check "squeue -P --sort=p,i: the job a row per partition, pa's lower priority first" \
	sh -c "[ \"\$($(declare -f order); pj=$pj; order)\" = papb ]"
check "scontrol update PartitionName Priority= swaps them" \
	sh -c "scontrol update PartitionName=pa Priority=2 && scontrol update PartitionName=pb Priority=1 &&
		scontrol show partition pa | grep -q 'PriorityJobFactor=2 PriorityTier=2'"
check "... squeue -P --sort=p,i now lists pb first" \
	sh -c "[ \"\$($(declare -f order); pj=$pj; order)\" = pbpa ]"
pj2=$(sbatch --parsable -t1 --begin=now+1hour -p pa -o /dev/null --wrap true)
check "squeue -S -i: highest id first" \
	sh -c "[ \"\$(squeue -h -S -i -p pa -o %i | tr '\n' ' ')\" = '$pj2 $pj ' ]"
check "squeue -S Z: Slurm's words, exit 1" \
	sh -c "! squeue -S Z 2>e.txt && grep -qx 'squeue: error: Invalid sort specification: Z' e.txt"
scancel "$pj" "$pj2"
check "sinfo --long: Slurm's columns (JOB_SIZE ROOT OVERSUBS GROUPS)" \
	sh -c "sinfo --long -p cp5 | sed -n 2,3p | tr -s ' ' >l.txt &&
		printf '%s\n' 'PARTITION AVAIL TIMELIMIT JOB_SIZE ROOT OVERSUBS GROUPS NODES STATE NODELIST' \
		'cp5 up infinite 1-infinite no NO all 0 n/a ' | cmp - l.txt"
check "the gpu partition (slurm.conf's) deleted, then created again by name" \
	sh -c "scontrol delete PartitionName=gpu && scontrol create PartitionName=gpu Nodes=mi[1-2] Default=YES MaxTime=60"
check "... a job without -p goes to it" sh -c "j=\$(sbatch --parsable -o /dev/null --wrap true) &&
	scontrol show job \$j | grep -q 'Partition=gpu'"
check "cp1 created again after its delete, on mi2" scontrol create PartitionName=cp1 Nodes=mi2
check "scontrol update node=mi2 AvailableFeatures=fa,fb ActiveFeatures=fa,fb (Slurm's short key too)" \
	sh -c "scontrol update node=mi2 AvailableFeatures=fa,fb ActiveFeatures=fa,fb &&
		scontrol show node mi2 | grep -qx '   AvailableFeatures=fa,fb'"
fj=$(sbatch --parsable -C fb -o /dev/null --wrap true)
check "... a job with -C fb runs on mi2" \
	wait_until 10 sh -c "sacct -n -X -j $fj -o NodeList,State | grep -q 'mi2 *COMPLETED'"
oj=$(sbatch --parsable -C 'nofeat|fa' -o /dev/null --wrap true 2>or.err)
check "-C with a feature no node has: Slurm's 'Invalid feature specification'" \
	sh -c "[ -z '$oj' ] && grep -qx 'sbatch: error: Batch job submission failed: Invalid feature specification' or.err"
oj=$(sbatch --parsable -C 'fc|fa' -o /dev/null --wrap true 2>/dev/null)
check "... while an unknown one of 'a|b' is refused too (as Slurm)" [ -z "$oj" ]
oj=$(sbatch --parsable -C 'fb|fa' -o /dev/null --wrap true)
check "-C 'fb|fa' (OR) runs on a node with either" \
	wait_until 10 sh -c "sacct -n -X -j $oj -o NodeList,State | grep -q 'mi2 *COMPLETED'"
scontrol update node=mi1 AvailableFeatures=fa
mj=$(sbatch --parsable -N2 -C '[fb|fa]' -o /dev/null --wrap true)
cj=$(sbatch --parsable -N2 -C 'fb*1' -o /dev/null --wrap true)
pj=$(sbatch --parsable -N1 -C 'fa&(fb|fx1)' -o /dev/null --wrap true 2>&1)
check "-C '[fb|fa]' (one of them on every node): both nodes have fa" \
	wait_until 10 sh -c "sacct -n -X -j $mj -o NodeList%20,State | grep -q 'mi\[1-2\] *COMPLETED'"
check "-C 'fb*1' -N2: one node with fb, the other any" \
	wait_until 10 sh -c "sacct -n -X -j $cj -o NodeList%20,State | grep -q 'mi\[1-2\] *COMPLETED'"
check "-C 'fa&(fb|fx1)': parentheses around alternatives (an unknown one refused as Slurm)" \
	sh -c "echo '$pj' | grep -q 'Invalid feature specification'"
pj=$(sbatch --parsable -N1 -C 'fa&(fb|fa)' -o /dev/null --wrap true)
check "-C 'fa&(fb|fa)' runs" wait_until 10 sh -c "sacct -n -X -j $pj -o State | grep -q COMPLETED"
check "-C forms Spur does not build (& inside brackets: Slurm's matching AND): refused by name, exit 1" \
	sh -c "sbatch -C '[fa&fb]' --wrap true 2>br.err; [ \$? -eq 1 ] && grep -q 'is not supported by Spur' br.err"
check "... ActiveFeatures other than AvailableFeatures: refused by name" \
	sh -c "! scontrol update NodeName=mi2 ActiveFeatures=x 2>af.err && grep -q 'not supported by Spur' af.err"
check "scontrol write config FILE: 'Slurm config saved to FILE'" \
	sh -c "scontrol write config $T/written.conf | grep -qx 'Slurm config saved to $T/written.conf'"
check "... with the partitions and features as they are now" \
	sh -c "grep -q '^PartitionName=cp1 .*Nodes=mi2 ' written.conf && grep -q '^PartitionName=pa .*PriorityTier=2 ' written.conf &&
		! grep -q '^PartitionName=cp4' written.conf && grep -q '^NodeName=mi2 .*Features=fa,fb' written.conf"
check "... a slurm.conf spur conf check --strict takes" \
	sh -c "$BUILD/src/cli/spur conf check --strict written.conf >/dev/null"
check "... by default slurm.conf.<time> beside slurm.conf" \
	sh -c "scontrol write config | grep -q '^Slurm config saved to $T/slurm.conf.20[0-9-]*T[0-9:]*$'"
for i in 1 2 3 4 5 6 7 8 9; do sbatch -p cp1 -H -o /dev/null --wrap true >/dev/null; done # past a snapshot
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld -n 8
printf '%s\n' 'cp1 mi2' 'cp5 ' 'gpu* mi[1-2]' 'pa mi1' 'pb mi1' >parts.want
parts() { sinfo -h -o '%P %N' 2>/dev/null | sort >parts.now; cmp -s parts.want parts.now; }
check "after kill -9 (from a snapshot and the log): cp1 on mi2, cp5 as left, no cp4" \
	sh -c "$(declare -f parts); wait_until() { :; }; for i in \$(seq 100); do parts && exit 0; sleep 0.2; done; cat parts.now; exit 1"
check "... gpu's MaxTime 1:00:00" sh -c "sinfo -h -p gpu -o %l | grep -qx 1:00:00"
check "... the ended job of deleted cp4 is still shown (squeue -t all, MinJobAge)" \
	sh -c "squeue -h -t all -j $j4 -o '%T %P' | grep -qx 'COMPLETED cp4'"
check "... mi2's features fa,fb" sh -c "scontrol show node mi2 | grep -qx '   AvailableFeatures=fa,fb'"
check "... the snapshot held it (the log starts after the changes)" grep -q "restored .* operations from a snapshot" ctld.log
finish
