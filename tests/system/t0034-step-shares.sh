#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Steps share their job's allocation as Slurm 22.05's do: a step holds the
# GPUs it asks for (none asked: all of the job's on its nodes) and, without
# --exact, all of the job's CPUs there; a step that needs what running
# steps hold waits, saying "Requested nodes are busy", and starts when they
# end; --overlap shares; --exact takes only its tasks' CPUs. GPUs are the
# agents' simulated ones: only their numbering is checked.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
sbatch --wait -N1 -c 4 --gpus=2 -o gpus.out --wrap '
	srun -n1 --exact --gpus=1 sh -c "echo A \$CUDA_VISIBLE_DEVICES; sleep 1" &
	srun -n1 --exact --gpus=1 sh -c "echo B \$CUDA_VISIBLE_DEVICES; sleep 1" &
	wait' >/dev/null
check "two --exact steps of one GPU each get different GPUs" \
	sh -c "[ \$(awk '/^[AB] [0-9]\$/ {print \$2}' gpus.out | sort -u | wc -l) = 2 ]"
check "... at once (neither waited)" sh -c "! grep -q 'Requested nodes are busy' gpus.out"
sbatch --wait -N1 -c 2 -o busy.out --wrap '
	srun -n1 sh -c "sleep 2; echo first-done" &
	sleep 0.5
	srun -n1 sh -c "echo second-ran"
	wait' >/dev/null
check "a step needing what a running one holds waits, saying why" \
	grep -q 'srun: Job [0-9]* step creation temporarily disabled, retrying (Requested nodes are busy)' busy.out
check "and starts once it ended" sh -c "grep -n . busy.out | grep -A5 first-done | grep -q second-ran"
check "... saying so in Slurm 22.05's words" grep -qE '^srun: Step created for job [0-9]+$' busy.out
sbatch --wait -N1 -c 2 -o imm.out --wrap '
	srun -n1 sh -c "sleep 3" &
	sleep 0.5
	srun -n1 -I true; echo "rc=$?"
	wait' >/dev/null
check "srun -I: a busy step fails at once, in Slurm's words (golden 22.05)" \
	sh -c "grep -qE '^srun: error: Unable to create step for job [0-9]+: Requested nodes are busy$' imm.out && grep -qx rc=1 imm.out && ! grep -q retrying imm.out"
sbatch --wait -N1 -c 2 -o ov.out --wrap '
	srun -n1 --overlap sh -c "sleep 2; echo first-done" &
	sleep 0.5
	srun -n1 --overlap sh -c "echo second-ran"
	wait' >/dev/null
check "--overlap: they run at once" sh -c "! grep -q busy ov.out && grep -n . ov.out | head -n 1 | grep -q second-ran"
sbatch --wait -N1 -c 2 -o ex.out --wrap '
	srun -n1 -c1 --exact sh -c "sleep 2; echo first-done" &
	sleep 0.5
	srun -n1 -c1 --exact sh -c "echo second-ran"
	wait' >/dev/null
check "--exact: each takes one of the job's two CPUs, at once" \
	sh -c "! grep -q busy ex.out && grep -n . ex.out | head -n 1 | grep -q second-ran"
# srun --mem: the step's share of the job's memory, held by its own cgroup
# (this host's memory controller, v1 or v2)
j=$(sbatch --parsable -N1 --mem=200 -o mem.out --wrap '
	srun --mem=50 sh -c "d=\$(grep -E \":memory:|^0::\" /proc/self/cgroup | head -1 | cut -d: -f3)
		cat /sys/fs/cgroup/memory\$d/memory.limit_in_bytes /sys/fs/cgroup\$d/memory.max 2>/dev/null"
	srun --mem=300 true; echo big $?
	srun --mem=150 sleep 3 & sleep 1
	srun --mem=100 -I true; echo busy $?
	srun --overlap --mem=100 true; echo overlap $?
	wait')
check "a step's --mem step is its own cgroup's limit" \
	wait_until 20 sh -c "grep -qx 52428800 mem.out"
check "--mem beyond the job's: Slurm's 'Memory required by task is not available'" \
	sh -c "grep -q 'Memory required by task is not available' mem.out && grep -qx 'big 1' mem.out"
check "... while steps hold the job's memory, another --mem step waits (-I: busy)" \
	wait_until 20 grep -qx 'busy 1' mem.out
check "... an --overlap one runs" wait_until 20 grep -qx 'overlap 0' mem.out
j2=$(sbatch --parsable -N1 --mem=200 -o /dev/null --wrap 'srun --mem=150 sleep 5')
wait_until 20 sh -c "scontrol show step $j2.0 | grep -q State=RUNNING"
check "scontrol show step: TRES with the step's memory, as Slurm's" \
	sh -c "scontrol show step $j2.0 | grep -qx '   TRES=cpu=1,mem=150M,node=1'"
scancel "$j2"
finish
