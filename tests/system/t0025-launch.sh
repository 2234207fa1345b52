#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The launch path on this host's real cgroups (v1 here, hybrid; v2 where
# the host has it) and real users: a job past --mem ends OUT_OF_MEMORY, a
# fork bomb stops at the job's pids limit and the node lives on, its
# srun tasks are inside the same limits (on the job's other nodes too: its
# cgroups there are made for its steps), -c binds a task's CPUs, jobs and
# steps keep the user's supplementary groups, and srun's options inside a
# job are done (--export, --chdir, --cpu-bind=none, --gpus-per-task, -J,
# --gpu-bind, -o/-e patterns, -W, stdin and -i) or
# refused by name (--mpi=cray_shasta, --bcast); Prolog runs as root with
# Slurm's variables, and one that fails drains the node and requeues the
# job held. GPUs are simulated (the agent's
# gpu list): only their numbering is checked. Needs root, runuser, useradd
# and python3, and a cgroup hierarchy with the memory controller; skipped
# without.
. "$(dirname "$0")/lib.sh"
needs_root runuser useradd python3
cd "$T"
write_conf 2 gpu:mi300x:8
printf '%s\n' '#!/bin/sh' "echo \"\$SLURM_JOB_USER \$SLURMD_NODENAME\" >$T/prolog-ran-\$SLURM_JOB_ID" \
	"[ ! -e $T/prolog-fails ]" >"$T/prolog"
chmod 755 "$T/prolog"
echo "Prolog=$T/prolog" >>"$T/slurm.conf"
# memory from the partition's defaults per CPU and per GPU
echo "PartitionName=small Nodes=ALL DefMemPerCPU=32 DefMemPerGPU=48" >>"$T/slurm.conf"
if ! "$BUILD/src/agent/spurd" -C -N probe --gpus none 2>/dev/null | grep -q '^# cgroup: v.*memory'; then
	echo "cases: 0 passed, 0 failed (no memory controller in any cgroup hierarchy here)"
	finish
	exit 0
fi
cgroups_gone
id spurtest >/dev/null 2>&1 || useradd -M -s /bin/sh spurtest
getent group spurgrp >/dev/null || groupadd spurgrp
usermod -aG spurgrp spurtest
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
chmod 777 "$T"
as_user() { runuser -u spurtest -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }
state() { sacct -n -X -P -j "$1" -o State | head -n 1; }

j=$(as_user sbatch --parsable --wait --mem=64M -o "$T/mem.out" \
	--wrap 'python3 -c "b = bytearray(400 << 20)"')
check "a job past --mem=64M ends OUT_OF_MEMORY" sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = OUT_OF_MEMORY ]"
check "squeue -t and scontrol name the state" sh -c "scontrol show job $j | grep -q JobState=OUT_OF_MEMORY"
j=$(as_user sbatch --parsable --wait --mem=64M -o "$T/smem.out" \
	--wrap 'srun -n1 python3 -c "b = bytearray(400 << 20)"; echo srun said $?')
check "an srun task is inside the job's memory limit too" grep -q 'srun said [1-9]' "$T/smem.out"
# a job's second node: its step's tasks in the job's cgroups there too,
# held to what the job has on that node
as_user sbatch --wait -N2 --mem=64M -o "$T/n2.out" --wrap 'srun -N2 -l sh -c "grep memory /proc/self/cgroup"
	srun -N1 -x $SLURMD_NODENAME python3 -c "b = bytearray(400 << 20)"; echo srun said $?' >/dev/null
check "on the second node too, a step's task is in the job's cgroup" \
	sh -c "grep -E '^1: .*memory.*/mi2/job_[0-9]+' '$T/n2.out' && grep -E '^0: .*memory.*/mi1/job_[0-9]+' '$T/n2.out'"
check "... and held to the job's memory there (a task on it alone)" grep -q 'srun said [1-9]' "$T/n2.out"
# --mem-per-cpu: the job's memory is its CPUs' share (2 x 32M), enforced
j=$(as_user sbatch --parsable --wait -n2 --mem-per-cpu=32M -o "$T/mpc.out" \
	--wrap 'python3 -c "b = bytearray(400 << 20)"')
check "--mem-per-cpu=32M -n2: past 64M ends OUT_OF_MEMORY" sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = OUT_OF_MEMORY ]"
check "... scontrol show job: MinMemoryCPU=32M, mem=64M" \
	sh -c "scontrol show job $j | grep -q 'MinMemoryCPU=32M' && scontrol show job $j | grep -q 'TRES=cpu=2,mem=64M,'"
# no memory option: the partition's DefMemPerCPU (32M a CPU), enforced
j=$(as_user sbatch --parsable --wait -p small -n2 -o "$T/dmpc.out" \
	--wrap 'python3 -c "b = bytearray(400 << 20)"')
check "DefMemPerCPU=32 of the partition: a 2-CPU job past 64M ends OUT_OF_MEMORY" \
	sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = OUT_OF_MEMORY ] && scontrol show job $j | grep -q 'MinMemoryCPU=32M'"
j=$(as_user sbatch --parsable --wait -p small --gpus-per-node=2 --cpus-per-gpu=2 -o "$T/dmpg.out" \
	--wrap 'echo "$SLURM_CPUS_PER_GPU $SLURM_MEM_PER_GPU"; python3 -c "b = bytearray(400 << 20)"')
check "DefMemPerGPU=48 with 2 GPUs: 96M, the job past it ends OUT_OF_MEMORY" \
	sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = OUT_OF_MEMORY ] && scontrol show job $j | grep -q 'TRES=cpu=4,mem=96M,'"
check "... --cpus-per-gpu=2: 4 CPUs; SLURM_CPUS_PER_GPU and SLURM_MEM_PER_GPU set" \
	sh -c "grep -qx '2 48' '$T/dmpg.out' && scontrol show job $j | grep -q 'CpusPerTres=gres:gpu:2'"
check "--mem and --mem-per-cpu together are refused" \
	sh -c "! sbatch --mem=1G --mem-per-cpu=1G --wrap true 2>$T/mx.err && grep -q 'mutually exclusive' $T/mx.err"
check "--cpus-per-gpu without GPUs is refused" \
	sh -c "sbatch --cpus-per-gpu=2 --wrap true 2>&1 | grep -q 'need GPUs'"
j=$(as_user sbatch --parsable --wait --mem=200M -o "$T/ok.out" \
	--wrap 'python3 -c "b = bytearray(50 << 20)"; echo fine')
check "a job inside its limit completes" sh -c "grep -qx fine '$T/ok.out' && [ \"\$(sacct -n -X -P -j $j -o State)\" = COMPLETED ]"
# its peak, from its cgroup: sacct's MaxRSS on the batch step, above the 50 MB it held
check "sacct MaxRSS: the batch step's peak memory" \
	sh -c "sacct -n -P -j $j.batch -o MaxRSS | awk '{ sub(/K\$/, \"\"); exit !(\$1 > 50000) }'"
# a fork bomb (bounded, to be kind to the host) meets the job's pids.max
# (4,096 for a job of up to 4 CPUs) and the node lives on
as_user sbatch --wait -c 1 --mem=2G -o "$T/bomb.out" --wrap 'python3 -c "
import os, time
pids = []
try:
    while len(pids) < 6000:
        p = os.fork()
        if p == 0:
            time.sleep(60)
            os._exit(0)
        pids.append(p)
except OSError:
    pass
print(\"started\", len(pids), flush=True)
for p in pids:
    os.kill(p, 9)
"' >/dev/null
check "a fork bomb stops at the job's pids limit" \
	sh -c "n=\$(awk '/^started/ {print \$2}' '$T/bomb.out'); [ -n \"\$n\" ] && [ \$n -lt 4096 ] && [ \$n -gt 1000 ]"
check "the node lives on (idle again, its agent up)" wait_until 20 nodes_idle 2

# the job's process is a vfork child of its supervisor: its own pid in
# SLURM_TASK_PID, its user's ids, the job's cgroups
as_user sbatch --wait -w mi1 -o "$T/vf.out" --wrap 'echo "$$ $SLURM_TASK_PID $(id -un)"; cat /proc/self/cgroup' >/dev/null
check "a batch script's SLURM_TASK_PID is its own pid" sh -c "head -n 1 '$T/vf.out' | awk '{exit !(\$1 == \$2 && \$3 == \"spurtest\")}'"
check "it is in the job's memory cgroup" grep -q "memory.*/$SPURD_CGROUP_NAME/mi1/job_" "$T/vf.out"
if grep -q ':cpuset:' /proc/self/cgroup && [ "$(nproc)" -lt 8 ]; then
	# v1: no folder where it would confine nothing (CPUs=8 on a smaller
	# host: no cpusets; no GPU device to deny)
	check "v1: no cpuset folder for a job with no CPUs to pin" sh -c "! grep -q 'cpuset:.*/job_' '$T/vf.out'"
	check "v1: no devices folder for a job with no device to deny" sh -c "! grep -q 'devices:.*/job_' '$T/vf.out'"
fi
# a finished job's spool folder goes back to the pool, emptied, for the next
spool=$T/spool/mi1
check "the spool's pool of job folders is root's alone" sh -c "[ \"\$(stat -c '%U %a' '$spool/.free')\" = 'root 700' ]"
check "a folder in it holds no script and an empty state file" sh -c "d=\$(ls -d '$spool'/.free/* | head -n 1); [ -n \"\$d\" ] && [ ! -e \"\$d/slurm_script\" ] && [ ! -s \"\$d/state\" ]"
as_user sbatch --wait -w mi1 -o "$T/vf2.out" --wrap 'cat "$0"; echo "$SLURM_JOB_ID"' >/dev/null
check "the next job in a recycled folder has its own script and result" sh -c "grep -q '^cat ' '$T/vf2.out' && [ \"\$(sacct -n -X -P -j \$(tail -n 1 '$T/vf2.out') -o State)\" = COMPLETED ]"

as_user sbatch --wait -o "$T/grp.out" --wrap 'id -Gn; srun -n1 id -Gn' >/dev/null
check "the batch script keeps the user's supplementary groups" sh -c "head -n 1 '$T/grp.out' | grep -qw spurgrp"
check "so do srun's tasks" sh -c "sed -n 2p '$T/grp.out' | grep -qw spurgrp"

as_user sbatch --wait -c 2 -o "$T/cpu.out" \
	--wrap 'srun -n1 -c 1 grep Cpus_allowed_list /proc/self/status; srun -n1 --cpu-bind=none grep Cpus_allowed_list /proc/self/status' >/dev/null
check "srun -c 1 binds the task to one CPU" sh -c "sed -n 1p '$T/cpu.out' | grep -qE ':[[:space:]]+[0-9]+\$'"
check "--cpu-bind=none leaves it the job's CPUs" sh -c "[ \"\$(sed -n 2p '$T/cpu.out' | awk '{print \$2}')\" != \"\$(sed -n 1p '$T/cpu.out' | awk '{print \$2}')\" ] || [ \$(nproc) -lt 2 ]"

as_user sbatch --wait -N1 -n2 --gpus=2 -o "$T/gpt.out" \
	--wrap 'srun -n2 --gpus-per-task=1 sh -c "echo \$ROCR_VISIBLE_DEVICES"' >/dev/null
check "--gpus-per-task=1 gives each of 2 ranks its own GPU" sh -c "[ \"\$(sort -u '$T/gpt.out' | grep -cx '[0-9]')\" = 2 ]"
# --gpu-bind: single:2 puts both ranks on one GPU, none shows each the step's two
as_user sbatch --wait -N1 -n2 --gpus=2 -o "$T/gb.out" --wrap 'srun -n2 --gpu-bind=single:2 sh -c "echo single \$ROCR_VISIBLE_DEVICES"
	srun -n2 --gpu-bind=none sh -c "echo none \$ROCR_VISIBLE_DEVICES"
	srun -n2 --gpu-bind=map_gpu:$(echo $ROCR_VISIBLE_DEVICES | cut -d, -f2) sh -c "echo map \$ROCR_VISIBLE_DEVICES"
	srun -n1 -m arbitrary true; echo arbitrary $?' >/dev/null
check "--gpu-bind=single:2: both ranks on the same one GPU" \
	sh -c "[ \"\$(grep '^single' '$T/gb.out' | sort -u | wc -l)\" = 1 ] && grep -qx 'single [0-9]' '$T/gb.out'"
check "--gpu-bind=none: each rank sees the step's two" sh -c "[ \"\$(grep -c '^none [0-9],[0-9]\$' '$T/gb.out')\" = 2 ]"
check "--gpu-bind=map_gpu: the GPU named" sh -c "[ \"\$(grep '^map' '$T/gb.out' | sort -u | wc -l)\" = 1 ]"
check "-m arbitrary refused by name" sh -c "grep -q 'distribution other than block, cyclic and plane=N is not supported' '$T/gb.out' && grep -qx 'arbitrary 1' '$T/gb.out'"
# -m block and cyclic over 2 nodes: ranks 0,1 on the first (block), 0,2 (cyclic)
as_user sbatch --wait -N2 -n4 -o "$T/dist.out" --wrap 'srun -n4 -m block sh -c "echo block \$SLURM_PROCID \$SLURMD_NODENAME \$SLURM_DISTRIBUTION"
	srun -n4 -m cyclic sh -c "echo cyclic \$SLURM_PROCID \$SLURMD_NODENAME \$SLURM_DISTRIBUTION"
	srun -n4 -m plane=3 sh -c "echo plane \$SLURM_PROCID \$SLURMD_NODENAME \$SLURM_DISTRIBUTION \$SLURM_DIST_PLANESIZE"
	srun -n2 -m cyclic --mpi=pmix true; echo pmix $?' >/dev/null
first() { awk -v d="$1" '$1 == d && $3 == "mi1" {print $2}' "$T/dist.out" | sort -n | tr '\n' ' '; }
check "-m block: ranks 0 1 on the first node" sh -c "[ \"$(first block)\" = '0 1 ' ] && grep -q '^block 0 mi1 block\$' '$T/dist.out'"
check "-m cyclic: ranks 0 2 on the first node, SLURM_DISTRIBUTION=cyclic" \
	sh -c "[ \"$(first cyclic)\" = '0 2 ' ] && grep -q '^cyclic 1 mi2 cyclic\$' '$T/dist.out'"
check "-m plane=3: ranks 0 1 2 on the first node, SLURM_DISTRIBUTION=plane, SLURM_DIST_PLANESIZE=3" \
	sh -c "[ \"$(first plane)\" = '0 1 2 ' ] && grep -q '^plane 3 mi2 plane 3\$' '$T/dist.out'"
# -r N: the step from the allocation's node N; more tasks than CPUs only with -O
as_user sbatch --wait -N2 -o "$T/rel.out" --wrap 'srun -r1 printenv SLURMD_NODENAME; srun -r2 true; echo r2 $?
	srun -r1 -w mi1 true; echo rw $?; srun -N2 -r1 true; echo rn $?; srun -n3 true; echo n3 $?; srun -n3 -O true; echo O $?
	srun --comment=x true; echo t $?; srun -t 1 sh -c "echo step-limit-ok"; srun --bogus true; echo bogus $?' >/dev/null 2>&1
check "srun -r1: the step on the allocation's second node" grep -qx mi2 "$T/rel.out"
check "srun -r beyond the allocation: Slurm's 'Requested node configuration is not available'" \
	sh -c "grep -q 'Unable to create step for job [0-9]*: Requested node configuration is not available' '$T/rel.out' && grep -qx 'r2 1' '$T/rel.out'"
check "srun -r with -w: Slurm's words, exit 1" \
	sh -c "grep -q 'relative not allowed with -w,--nodelist or -x,--exclude' '$T/rel.out' && grep -qx 'rw 1' '$T/rel.out'"
check "srun -r outside a job: Slurm's 'fatal: --relative option invalid for job allocation request', exit 1" \
	sh -c "srun -r1 true 2>ro.err; [ \$? = 1 ] && grep -qx 'srun: fatal: --relative option invalid for job allocation request' ro.err"
check "srun -N2 -r1 in a 2-node job: Slurm's srun's own refusal" \
	sh -c "grep -qx 'srun: error: --relative and --nodes option incompatible with count of allocated nodes (1+2>2)' '$T/rel.out' && grep -qx 'rn 1' '$T/rel.out'"
check "more tasks than the job's CPUs: 'More processors requested than permitted' unless -O" \
	sh -c "grep -q 'More processors requested than permitted' '$T/rel.out' && grep -qx 'n3 1' '$T/rel.out' && grep -qx 'O 0' '$T/rel.out'"
check "inside a job, a Slurm srun option not built for steps is refused by name (not 'unrecognized')" \
	sh -c "grep -q 'srun: error: --comment is not supported inside a job' '$T/rel.out' && grep -qx 't 1' '$T/rel.out' &&
	       grep -q \"unrecognized option '--bogus'\" '$T/rel.out' && grep -qx 'bogus 1' '$T/rel.out'"
check "srun -t inside a job: the step's own limit (it runs)" grep -qx step-limit-ok "$T/rel.out"
# -i PATTERN: each task reads its own file (%t its rank, %N its node)
echo zero >"$T/in.0.mi1"; echo one >"$T/in.1.mi2"
as_user sbatch --wait -N2 -n2 -o "$T/inpat.out" --wrap "srun -n2 -l -i $T/in.%t.%N cat" >/dev/null
check "srun -i PATTERN: each task its own file (%t, %N)" \
	sh -c "grep -qx '0: zero' '$T/inpat.out' && grep -qx '1: one' '$T/inpat.out'"
check "-m cyclic with --mpi=pmix: refused by name" \
	sh -c "grep -q 'cyclic or plane with --mpi=pmix or pmi2 is not supported' '$T/dist.out' && grep -qx 'pmix 1' '$T/dist.out'"
# -o/-e with patterns, -W
as_user sbatch --wait -N2 -o "$T/io.out" --wrap "srun -N2 -n2 -o $T/o-%t-%N.txt sh -c 'echo task \$SLURM_PROCID'
	srun -n1 -o $T/so.txt -e $T/se.txt sh -c 'echo to-out; echo to-err >&2'
	srun -n2 -W 1 sh -c 'if [ \$SLURM_PROCID = 1 ]; then sleep 30; fi'; echo w \$?" >/dev/null
check "srun -o PATTERN: a file per task (%t, %N)" \
	sh -c "grep -qx 'task 0' '$T/o-0-mi1.txt' && grep -qx 'task 1' '$T/o-1-mi2.txt'"
check "srun -o and -e: each to its file" sh -c "grep -qx to-out '$T/so.txt' && grep -qx to-err '$T/se.txt' && ! grep -q to-err '$T/so.txt'"
# srun's stdin: to every task by default (Slurm's --input=all), -i N, none, a file
printf 'from a file\n' >"$T/in.txt"
chmod 644 "$T/in.txt"
as_user sbatch --wait -n2 -o "$T/in.out" --wrap "echo hi | srun -n2 cat; echo hi | srun -n2 -l -i 1 cat
	echo hi | srun -n1 -i none cat; echo none \$?; srun -n1 -i $T/in.txt cat" >/dev/null
srun -v -N2 -n3 true 2>v.err
check "srun -v: Slurm's 'launching StepId=J.0 on host NODE, N tasks: RANKS' for each node" \
	sh -c "grep -qE '^srun: launching StepId=[0-9]+\.0 on host mi1, 2 tasks: \[0-1\]\$' v.err &&
		grep -qE '^srun: launching StepId=[0-9]+\.0 on host mi2, 1 tasks: 2\$' v.err"
check "srun -m block outside a job: the tasks see SLURM_DISTRIBUTION=block" \
	sh -c "srun -n1 -m block env | grep -qx SLURM_DISTRIBUTION=block"
check "sbatch -m: refused by name, exit 1" \
	sh -c "! sbatch -m block --wrap true 2>m.err && grep -qx 'sbatch: error: --distribution is not supported by Spur' m.err"
check "srun's tasks see where srun is: SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST/PORT (as Slurm's)" \
	sh -c "srun -n1 env >ce.out && grep -qx SLURM_LAUNCH_NODE_IPADDR=127.0.0.1 ce.out &&
		grep -qx SLURM_SRUN_COMM_HOST=127.0.0.1 ce.out && grep -qE '^SLURM_SRUN_COMM_PORT=[0-9]+\$' ce.out"
sbatch --wait -N2 -n4 -o "$T/e45.out" --wrap 'echo $(srun -E -n1 -N1 printenv SLURM_NNODES SLURM_NTASKS) $(srun -n1 -N1 printenv SLURM_NNODES SLURM_NTASKS)' >/dev/null
check "srun -E/--preserve-env: the job's SLURM_NNODES and SLURM_NTASKS, not the step's" \
	sh -c "[ \"\$(cat '$T/e45.out')\" = '2 4 1 1' ]"
check "srun -o PATTERN outside a job: a file per task" \
	sh -c "srun -n2 -o '$T/oo-%t.txt' sh -c 'echo hi\$SLURM_PROCID' && grep -qx hi0 '$T/oo-0.txt' && grep -qx hi1 '$T/oo-1.txt'"
sbatch --wait -N2 -n3 -o "$T/sl.out" --wrap 'srun -n3 printenv SLURM_STEP_NODELIST SLURM_STEP_TASKS_PER_NODE SLURM_TASKS_PER_NODE | sort -u | tr "\n" " "; srun -N1 -w mi2 printenv SLURM_STEP_NODELIST' >/dev/null
check "a step's SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE: the step's own" \
	sh -c "[ \"\$(cat '$T/sl.out')\" = '2,1 mi[1-2] mi2' ]"
check "srun -o PATTERN's %u: the user's name from the system, also without \$USER" \
	sh -c "env -u USER srun -o '$T/u.%u.txt' echo && [ -e '$T/u.$(id -un).txt' ]"
check "srun -o/-e PATTERN: each task's files made at its start, also when it prints nothing (as Slurm's)" \
	sh -c "srun -n2 -o '$T/emp.%t.out' -e '$T/emp.%t.err' true && [ -e '$T/emp.0.out' ] && [ -e '$T/emp.1.err' ]"
head -c 200000 /dev/urandom >"$T/bin.in"
check "srun -i FILE -o FILE cat: binary bytes (NUL, not UTF-8) come through whole" \
	sh -c "srun -n1 -i '$T/bin.in' -o '$T/bin.out' cat && cmp -s '$T/bin.in' '$T/bin.out' &&
	       srun -n1 sh -c 'printf \"a\\000b\"' | od -An -c | tr -d ' ' | grep -qxF 'a\\0b'"
check "srun -l -o PATTERN: the lines in the files labelled too, as Slurm's" \
	sh -c "srun -l -n2 -o '$T/ol-%t.txt' sh -c 'echo hi' && grep -qx '0: hi' '$T/ol-0.txt' && grep -qx '1: hi' '$T/ol-1.txt'"
check "SLURM_HOSTFILE (-m arbitrary): refused by name, exit 1" \
	sh -c "SLURM_HOSTFILE=$T/hf srun true 2>hf.err; [ \$? = 1 ] && grep -q 'SLURM_HOSTFILE.*not supported' hf.err"
check "srun -W 1 outside a job: the task still running is killed" \
	sh -c "! srun -n2 -W 1 sh -c 'if [ \$SLURM_PROCID = 1 ]; then sleep 30; fi' 2>ow.err && grep -qx 'srun: First task exited 1s ago' ow.err"
check "srun -w of an unknown node: Slurm's 'Unable to allocate resources: Invalid node name specified'" \
	sh -c "! srun -w nosuch true 2>nw.err && grep -qx 'srun: error: Unable to allocate resources: Invalid node name specified' nw.err"
check "sbatch --gres=gpu: (malformed): Slurm's words; NAME:0 asks for none" \
	sh -c "! sbatch --gres=gpu: --wrap true 2>gr.err && grep -qx 'sbatch: error: Invalid generic resource (gres) specification' gr.err && sbatch -o /dev/null --gres=craynetwork:0 --wrap true >/dev/null"
check "srun --output=none: the output discarded (no file 'none'), as Slurm's" \
	sh -c "cd '$T' && srun --output=none echo gone >on.out && [ ! -s on.out ] && [ ! -e none ]"
sbatch --wait -n1 -o "$T/oc.out" --wrap 'srun -n2 --overcommit hostname | wc -l' >/dev/null
check "srun -O/--overcommit inside a job: more tasks than its CPUs" sh -c "[ \"\$(cat '$T/oc.out')\" = 2 ]"
sbatch --wait -O -n2 -o "$T/oc2.out" --wrap 'printenv SLURM_OVERCOMMIT; srun printenv SLURM_OVERCOMMIT' >/dev/null
check "sbatch -O: SLURM_OVERCOMMIT=1 for the script and its steps (as Slurm's)" \
	sh -c "[ \"\$(cat '$T/oc2.out' | tr '\n' ' ')\" = '1 1 1 ' ]"
check "srun passes its stdin to every task" sh -c "[ \"\$(grep -cx hi '$T/in.out')\" = 2 ]"
check "srun -i 1: to task 1 alone" sh -c "grep -qx '1: hi' '$T/in.out' && ! grep -q '^0: hi' '$T/in.out'"
check "srun -i none: none (the task sees its end at once)" grep -qx 'none 0' "$T/in.out"
check "srun -i FILE: the file" grep -qx 'from a file' "$T/in.out"
check "srun -W 1: the task still running a second after the first ended is killed (Slurm's lines)" \
	sh -c "grep -qx 'srun: First task exited 1s ago' '$T/io.out' &&
	       grep -qE '^srun: StepId=[0-9]+[.][0-9]+ task 1: running$' '$T/io.out' &&
	       grep -qE '^srun: StepId=[0-9]+[.][0-9]+ task 0: exited$' '$T/io.out' && grep -qx 'w 137' '$T/io.out'"
as_user sbatch --wait -o "$T/exp.out" \
	--wrap 'FOO=1 srun -n1 --export=NONE,BAR=2 sh -c "echo FOO=\$FOO BAR=\$BAR"; FOO=1 srun -n1 sh -c "echo FOO=\$FOO"' >/dev/null
# (by content, not line: the second step may wait for the first's CPU and
# srun says so in the same file, as Slurm's does)
check "srun --export=NONE,BAR=2 passes BAR only" grep -qx 'FOO= BAR=2' "$T/exp.out"
check "srun exports everything by default" grep -qx 'FOO=1' "$T/exp.out"
mkdir -p "$T/wd" && chmod 777 "$T/wd"
as_user sbatch --wait -o "$T/cd.out" --wrap "srun -n1 --chdir=$T/wd pwd; srun -n1 -J named printenv SLURM_JOB_NAME" >/dev/null
check "srun --chdir is the task's folder" sh -c "sed -n 1p '$T/cd.out' | grep -qx '$T/wd'"
check "srun -J names the step" sh -c "sed -n 2p '$T/cd.out' | grep -qx named"
as_user sbatch --wait -o "$T/no.out" --wrap 'srun -n1 --mpi=cray_shasta true; echo rc=$?; srun --bcast=/tmp/x -n1 true; echo rc=$?' >/dev/null
check "srun --mpi=cray_shasta is refused by name, exit 1" sh -c "grep -q 'mpi other than none, pmi2 and pmix is not supported' '$T/no.out' && grep -qx rc=1 '$T/no.out'"
check "srun --bcast is refused by name" grep -q -- '--bcast is not supported' "$T/no.out"
# (it ends by itself, and the cgroup check below waits for its end)
jj=$(as_user sbatch --parsable -o /dev/null --wrap 'sleep 6')
wait_until 15 sh -c "squeue -h -j $jj -o %T | grep -qx RUNNING"
in_job() { [ "$(as_user srun --jobid="$jj" --overlap -n1 printenv SLURM_JOB_ID)" = "$jj" ]; }
check "srun --jobid=J --overlap from outside: a step in the running job J" in_job
bad_id() { ! as_user srun --jobid=abc true 2>"$T/jobid.err" && grep -q 'a job id' "$T/jobid.err"; }
check "srun --jobid=abc: refused, saying why" bad_id
check "Prolog ran as root before the job, with Slurm's variables" sh -c "grep -qx 'spurtest mi[12]' '$T/prolog-ran-$j'"
touch "$T/prolog-fails"
j=$(as_user sbatch --parsable -o /dev/null --wrap true)
check "a failed Prolog drains the node with its reason" wait_until 10 sh -c "sinfo -R -h | grep -q 'Prolog error'"
check "and requeues the job held" wait_until 10 sh -c "[ \"\$(squeue -h -j $j -o '%t %r')\" = 'PD JobHeldAdmin' ]"
wait_until 30 sh -c "[ -z \"\$(squeue -h -j $jj)\" ]"
# a job folder no live job owns (as a step arriving after its job's end
# leaves one), with a process in it: the agent's sweep after the next job
# kills the process and removes the folder
left=$(ls -d /sys/fs/cgroup/pids/"$SPURD_CGROUP_NAME"/mi1 2>/dev/null)
if [ -n "$left" ]; then
	mkdir "$left/job_999999" && { sleep 300 & disown; echo $! >"$left/job_999999/cgroup.procs"; }
	stray=$!
	rm -f "$T/prolog-fails"; scontrol update NodeName=mi[1-2] State=RESUME
	as_user sbatch --wait -w mi1 -o /dev/null --wrap true >/dev/null
	check "a stray job cgroup folder is swept after the next job, its process killed" \
		wait_until 10 sh -c "[ ! -e '$left/job_999999' ] && ! grep -q '^State:.*[RSD] ' /proc/$stray/status 2>/dev/null"
fi
check "the jobs' cgroups are gone" wait_until 10 sh -c "! ls -d /sys/fs/cgroup/*/$SPURD_CGROUP_NAME/mi*/job_* 2>/dev/null"
# what is left, when some is: for the note (an intermittent leftover, see the issue)
ls -d /sys/fs/cgroup/*/"$SPURD_CGROUP_NAME"/mi*/job_* /sys/fs/cgroup/*/"$SPURD_CGROUP_NAME"/mi*/job_*/* 2>/dev/null | sed 's/^/  left: /'
finish
