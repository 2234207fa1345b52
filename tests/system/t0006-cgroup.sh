#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# cgroup v2 limits, on a folder shaped like a cgroup2 mount (this machine's
# own controllers may be in cgroup v1; make check must not need root's
# cgroups): the job's cgroup gets cpuset.cpus, memory.max and pids.max, its
# supervisor joins it, and it goes when the job ends. Without the
# controllers the agent says so and runs jobs without limits.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p cg nocg
echo "cpuset cpu io memory pids" >cg/cgroup.controllers
echo "hugetlb" >nocg/cgroup.controllers
conf_head cg >"$T/slurm.conf"
cat >>"$T/slurm.conf" <<CONF
NodeName=mi1 CPUs=2 RealMemory=4000
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE
CONF
check "without the controllers, spurd -C says jobs run without limits" \
	sh -c "'$BUILD/src/agent/spurd' -C -N n --gpus none --cgroup-root '$T/nocg' |
		grep -qx '# cgroup: none, jobs run without limits: cpuset, memory, pids not available in the cgroup v2 hierarchy $T/nocg, which has: hugetlb'"
check "with them, spurd -C names the limits" \
	sh -c "'$BUILD/src/agent/spurd' -C -N mi1 --cpus 2 --gpus none --cgroup-root '$T/cg' | grep -q '^# cgroup: v2 $T/cg/$SPURD_CGROUP_NAME/mi1: cpuset memory.max pids.max'"
"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N mi1 --cpus 2 --gpus none --cgroup-root "$T/cg" \
	-L "$T/d1.log" 2>>"$T/d1.err" &
echo $! >>"$T/agents.pid"
start_ctld
check "the node registers" wait_until 20 nodes_idle 1
j1=$(sbatch --parsable -c 1 --mem=100M --wrap 'sleep 60')
j2=$(sbatch --parsable -c 1 --mem=200M --wrap 'sleep 60')
g1=cg/$SPURD_CGROUP_NAME/mi1/job_$j1 g2=cg/$SPURD_CGROUP_NAME/mi1/job_$j2
check "both run" wait_until 10 sh -c "[ \$(squeue -h -t R | wc -l) -eq 2 ]"
check "memory.max is the job's --mem" wait_until 5 grep -qx 104857600 "$g1/memory.max"
check "the second job's too" grep -qx 209715200 "$g2/memory.max"
check "pids.max is set" grep -qx 4096 "$g1/pids.max"
if [ "$(nproc)" -ge 2 ]; then
	check "each job has its own CPU" sh -c "grep -qx 0 $g1/cpuset.cpus && grep -qx 1 $g2/cpuset.cpus"
else
	check "no cpuset on a host smaller than the node" sh -c "[ ! -e $g1/cpuset.cpus ]"
fi
check "the supervisor joined the job's cgroup" \
	sh -c "[ \"\$(cat $g1/cgroup.procs)\" = \"\$(cut -d\" \" -f1 spool/mi1/job$(printf %05u "$j1")/state)\" ]"
scancel "$j1" "$j2"
check "the jobs' cgroups go when they end" wait_until 15 sh -c "[ ! -e $g1 ] && [ ! -e $g2 ]"
j3=$(sbatch --parsable -c 2 --wrap 'sleep 60')
check "their CPUs are free again" \
	wait_until 10 sh -c "grep -qx 0-1 cg/$SPURD_CGROUP_NAME/mi1/job_$j3/cpuset.cpus || [ \$(nproc) -lt 2 ]"
scancel "$j3"
finish
