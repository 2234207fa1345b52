#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A site that allows huge arrays (MaxArraySize=2000000): one user's
# 1,000,000-task array is one record until its tasks come in (as Slurm keeps
# a pending array as one meta record). The controller stays small and keeps
# answering; squeue shows the rest as one row, -r and -j name single tasks;
# a task cancelled alone, the whole array cancelled, and kill -9 of the
# controller in between lose nothing and requeue no running task.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
echo "MaxArraySize=2000000" >>slurm.conf
echo "MaxJobCount=3000000" >>slurm.conf
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
rss_mb() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$(cat "$T/ctld.pid")/status"; }
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
restart_ctld() {
	local p
	p=$(cat "$T/ctld.pid")
	kill -9 "$p"
	while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
	start_ctld
	wait_until 60 squeue -h
}

t0=$(date +%s%N)
a=$(sbatch --parsable --array=0-999999 -o /dev/null --wrap 'sleep 0.2')
echo "# 1,000,000-task array submitted in $((($(date +%s%N) - t0) / 1000000)) ms"
check "a 1,000,000-task array is taken" [ -n "$a" ]
echo "# controller: $(rss_mb) MB resident with it queued"
check "... and costs the controller far less than a record a task (< 150 MB)" [ "$(rss_mb)" -lt 150 ]
echo "# squeue with it queued: $(ms squeue) ms"
check "squeue shows its tasks with no record as one row" \
	sh -c "squeue -h -o %i | grep -qE '^${a}_\\[[0-9]+-999999\\]\$'"
check "... with reason Priority" sh -c "squeue -h -o '%i %r' | grep -E '^${a}_\\[[0-9]+-999999\\] ' | grep -q Priority"
check "squeue -j names one of them" sh -c "squeue -h -j ${a}_777777 -o '%i %t' | grep -qx '${a}_777777 PD'"
check "squeue -r -j too" sh -c "squeue -h -r -j ${a}_777777 -o %i | grep -qx ${a}_777777"
check "scontrol show job shows them as one job" \
	sh -c "scontrol show job | grep -q 'ArrayJobId=$a ArrayTaskId=[0-9]*-999999 '"
check "sacct lists them as one row, pending" \
	sh -c "sacct -n -X -P -j $a -o JobID,State | grep -qE '^${a}_\\[[0-9]+-999999\\]\\|PENDING\$'"
b=$(sbatch --parsable --hold -o /dev/null --wrap true)
check "another job is taken beside it" [ -n "$b" ]
echo "# another job's squeue: $(ms squeue -j "$b") ms"
check "scancel of one task with no record cancels it" scancel "${a}_777777"
check "... it shows CANCELLED" sh -c "squeue -h -t all -j ${a}_777777 -o %T | grep -qx CANCELLED"
check "... the next is still pending" sh -c "squeue -h -j ${a}_777778 -o %T | grep -qx PENDING"
check "tasks run meanwhile" wait_until 30 sh -c "squeue -h -t all -j ${a}_40 -o %T | grep -qx COMPLETED"
pending=$(squeue -h -r -t PD -o %i | grep -c "^${a}_")
echo "# $pending tasks pending before kill -9"
check "the controller comes back after kill -9" restart_ctld
check "... every pending task is still there" \
	sh -c "[ \$(squeue -h -r -t PD -o %i | grep -c '^${a}_') -ge $((pending - 100)) ]"
check "... the cancelled one still CANCELLED" sh -c "squeue -h -t all -j ${a}_777777 -o %T | grep -qx CANCELLED"
check "... the other job still held" sh -c "squeue -h -j $b -o %r | grep -qx JobHeldUser"
echo "# controller after restart: $(rss_mb) MB; squeue: $(ms squeue) ms"
check "scontrol hold of the array holds every task" scontrol hold "$a"
check "... those with no record too" \
	sh -c "squeue -h -o '%i %r' | grep -E '^${a}_\\[[0-9].*999999\\] ' | grep -q JobHeldAdmin"
check "... and those with one" sh -c "squeue -h -r -t PD -j $a -o %r | sort -u | grep -qx JobHeldAdmin"
check "scontrol release of the array releases them" scontrol release "$a"
check "... none held" sh -c "! squeue -h -r -t PD -j $a -o %r | grep -q Held"
check "scancel of the array cancels every task" scancel "$a"
check "... none left pending or running" wait_until 20 sh -c "[ -z \"\$(squeue -h -j $a -o %i)\" ]"
check "... the rest shows CANCELLED as one row" \
	sh -c "squeue -h -t CA -o '%i' | grep -qE '^${a}_\\[.*-999999\\]\$'"
check "... and stays cancelled after kill -9" restart_ctld
check "... (nothing of it pending)" sh -c "[ -z \"\$(squeue -h -j $a -o %i)\" ]"
check "no running task was requeued" sh -c "! grep -qi requeue '$T/ctld.log'"
scancel "$b"

# hold, release and update: of the array's id, every task; of J_T, that one
c=$(sbatch --parsable --array=0-3 --begin=now+1hour -o /dev/null --wrap true)
check "hold of a small array's id holds all its tasks" scontrol hold "$c"
check "... all four" sh -c "[ \$(squeue -h -r -j $c -o %r | grep -c JobHeldAdmin) -eq 4 ]"
check "release of one task releases that one" scontrol release "${c}_2"
check "... only it" sh -c "[ \$(squeue -h -r -j $c -o '%i %r' | grep -c '^${c}_2 BeginTime') -eq 1 -a \$(squeue -h -r -j $c -o %r | grep -c Held) -eq 3 ]"
check "update of one task changes that one" scontrol update JobId="${c}_1" TimeLimit=5
check "... only it" sh -c "squeue -h -r -j $c -o '%i %l' | tr '\n' ' ' | grep -q '^${c}_0 UNLIMITED ${c}_1 5:00 ${c}_2 UNLIMITED'"
check "update of the array's id changes every task" scontrol update JobId="$c" TimeLimit=7
check "... each shows it" sh -c "[ \$(squeue -h -r -j $c -o %l | grep -c '^7:00\$') -eq 4 ]"
check "all of it survives kill -9" restart_ctld
check "... holds and limits as they were" \
	sh -c "squeue -h -r -j $c -o '%i %r %l' | tr '\n' ' ' | grep -q '^${c}_0 JobHeldAdmin 7:00 ${c}_1 JobHeldAdmin 7:00 ${c}_2 BeginTime 7:00 ${c}_3 JobHeldAdmin 7:00'"
scancel "$c"
finish
