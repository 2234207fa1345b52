#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scontrol reconfigure and SIGHUP on real daemons: slurm.conf read again,
# its live keys (a partition's MaxTime, the cluster's DefMemPerCPU) acted
# on at once; a change to a key read only at a daemon's start (a node's
# CPUs) refused by name with exit 1, nothing changed; a user refused; the
# values kept across kill -9 of the controller (the Raft log has them); and
# a file edited while the controller was down applied when it comes back,
# as a restarted slurmctld reads its file.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
maxtime() { scontrol show partition gpu | tr ' ' '\n' | sed -n 's/^MaxTime=//p'; }

check "scontrol reconfigure with nothing changed: exit 0" scontrol reconfigure
sed -i 's/^PartitionName=gpu .*/PartitionName=gpu Nodes=ALL Default=YES MaxTime=30:00/' slurm.conf
echo "DefMemPerCPU=100" >>slurm.conf
check "a partition's MaxTime and DefMemPerCPU changed: reconfigure takes them" scontrol reconfigure
check "... scontrol show partition says MaxTime=00:30:00" sh -c "[ '$(maxtime)' = 00:30:00 ]"
j=$(sbatch --parsable --hold -n1 --wrap true)
check "... a new job gets DefMemPerCPU=100" sh -c "scontrol show job $j | grep -q MinMemoryCPU=100M"
j2=$(sbatch --parsable -t 60 --wrap true)
check "... and one over the new MaxTime waits (PartitionTimeLimit)" \
	wait_until 10 sh -c "squeue -h -j $j2 -o %r | grep -qx PartitionTimeLimit"
scancel "$j" "$j2"
cp slurm.conf slurm.conf.good
sed -i 's/^NodeName=mi\[1-1\] CPUs=8/NodeName=mi[1-1] CPUs=16/' slurm.conf
check "a node's CPUs changed: refused by name, exit 1" \
	sh -c "! scontrol reconfigure 2>rc.err && grep -q 'slurm.conf:[0-9]*: nodename=mi\[1-1\] cpus=16 .*not supported by reconfigure' rc.err"
check "... nothing changed (MaxTime still 00:30:00)" sh -c "[ '$(maxtime)' = 00:30:00 ]"
cp slurm.conf.good slurm.conf
check "reconfigure by a user: refused" sh -c "! runuser -u nobody -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol reconfigure 2>/dev/null"
sed -i 's/MaxTime=30:00/MaxTime=45:00/' slurm.conf
kill -HUP "$(cat ctld.pid)"
check "SIGHUP reads the file again (MaxTime=00:45:00)" wait_until 10 sh -c "[ \"\$(scontrol show partition gpu | tr ' ' '\n' | sed -n 's/^MaxTime=//p')\" = 00:45:00 ]"
kill -9 "$(cat ctld.pid)"; wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "after kill -9 of the controller: still 00:45:00" \
	wait_until 20 sh -c "[ \"\$(scontrol show partition gpu 2>/dev/null | tr ' ' '\n' | sed -n 's/^MaxTime=//p')\" = 00:45:00 ]"
stop_ctld() { kill "$(cat ctld.pid)"; wait "$(cat ctld.pid)" 2>/dev/null; }
stop_ctld
sed -i 's/MaxTime=45:00/MaxTime=20:00/' slurm.conf
start_ctld
check "the file edited while the controller was down: its value when it comes back" \
	wait_until 20 sh -c "[ \"\$(scontrol show partition gpu 2>/dev/null | tr ' ' '\n' | sed -n 's/^MaxTime=//p')\" = 00:20:00 ]"
finish
