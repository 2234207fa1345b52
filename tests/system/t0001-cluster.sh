#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A controller and 4 simulated MI300X nodes: submit, watch, cancel, arrays,
# dependencies, and a kill -9 of the controller in the middle of a job.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 4 gpu:mi300x:8
start_ctld
start_agents 4
check "4 nodes register and are idle" wait_until 20 nodes_idle 4

# the controller checks what it is sent, whatever the client (raw, lib.sh)
check "a negative node count is refused with the field's name" \
	raw_says '{"type":"submit","job":{"script":"#!/bin/sh","nodes":-5}}' 'invalid nodes: expected a whole number 0-100000'
check "a job without a script is refused" \
	raw_says '{"type":"submit","job":{}}' 'a job with a script is required'
check "an unknown request is refused" raw_says '{"type":"bogus"}' 'unknown request type'
check "a frame that is not JSON is refused" raw_says 'nope' 'bad message'

# the seed example: 2 nodes x 8 MI300X, MASTER_ADDR from the node list
cat >train.sh <<'JOB'
#!/bin/bash
#SBATCH -N 2
#SBATCH --gres=gpu:mi300x:8
#SBATCH -J train
export MASTER_ADDR=$(scontrol show hostnames $SPUR_JOB_NODELIST | head -n1)
echo "nodes=$SPUR_JOB_NUM_NODES list=$SPUR_JOB_NODELIST master=$MASTER_ADDR"
echo "gpus=$SPUR_JOB_GPUS cuda=$CUDA_VISIBLE_DEVICES rocr=$ROCR_VISIBLE_DEVICES id=$SPUR_JOB_ID slurm_id=$SLURM_JOB_ID"
JOB
out=$(sbatch --wait train.sh)
check "sbatch --wait returns 0 for a job that exits 0" [ $? -eq 0 ]
id=${out##* }
check "sbatch prints Slurm's line" [ "$out" = "Submitted batch job $id" ]
check "2-node job sees its nodes and MASTER_ADDR (the first of them)" \
	grep -qE '^nodes=2 list=mi\[([1-4])[-,][1-4]\] master=mi\1$' "slurm-$id.out"
check "GPU variables name all 8 devices" \
	grep -qx "gpus=0,1,2,3,4,5,6,7 cuda=0,1,2,3,4,5,6,7 rocr=0,1,2,3,4,5,6,7 id=$id slurm_id=$id" "slurm-$id.out"

# srun inside the job fans tasks out over its nodes with distinct ranks
cat >fan.sh <<'JOB'
#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH --gres=gpu:mi300x:8
srun -l bash -c 'echo "$SLURM_PROCID/$SLURM_NTASKS $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES"' | sort
srun sh -c 'exit $SLURM_PROCID'
echo "srun exit $?"
srun -N 1 -n 2 sh -c 'echo one-node $SLURMD_NODENAME' | sort -u | wc -l
JOB
fan=$(sbatch --parsable --wait fan.sh)
check "srun: 4 ranks, 2 per node, labelled, with their GPUs" \
	sh -c "[ \$(grep -cE '^[0-3]: [0-3]/4 [01] [01] mi[1-4] 0,1,2,3,4,5,6,7\$' slurm-$fan.out) -eq 4 ]"
check "srun: every rank once" \
	sh -c "[ \$(grep -oE '^[0-3]:' slurm-$fan.out | sort -u | wc -l) -eq 4 ]"
check "srun returns the highest task exit code" grep -qx "srun exit 3" "slurm-$fan.out"
check "srun -N 1 keeps the tasks on one node" grep -qx "1" "slurm-$fan.out"

pid=$(sbatch --parsable --wrap 'exit 3')
check "--parsable prints the id alone" [ -n "$pid" ] && [ "$pid" -eq "$pid" ] 2>/dev/null
sbatch --wait --wrap 'exit 7' >/dev/null
check "sbatch --wait returns the job's exit code" [ $? -eq 7 ]

# output patterns and the working directory
mkdir -p sub
jid=$(sbatch --parsable -D "$T/sub" -o 'out-%j-%x.txt' -J named --wait --wrap 'pwd; echo $SLURM_JOB_NAME')
check "-D and -o %j %x" grep -qx "named" "sub/out-$jid-named.txt"

# a long job shows as RUNNING, then scancel ends it
long=$(sbatch --parsable -J long --wrap 'sleep 300')
check "squeue shows the running job" wait_until 10 sh -c "squeue -h -o '%i %t %j' | grep -qx '$long R long'"
check "scancel succeeds" scancel "$long"
check "the cancelled job leaves the queue" wait_until 10 sh -c "! squeue -h -o %i | grep -qx $long"
check "scontrol shows it CANCELLED" sh -c "scontrol show job $long | grep -q 'JobState=CANCELLED'"
check "scancel of a finished job: nothing to do, exit 0 (as Slurm)" sh -c "scancel $long 2>err && [ ! -s err ]"

# pending reasons: held jobs and dependencies
held=$(sbatch --parsable --hold --wrap true)
check "a held job is pending (JobHeldUser)" \
	sh -c "squeue -h -j $held -o '%t %r' | grep -qx 'PD JobHeldUser'"

check "scontrol release starts it" scontrol release "$held"
check "the released job runs and completes" \
	wait_until 10 sh -c "scontrol show job $held | grep -q JobState=COMPLETED"
check "scontrol hold of a finished job fails" sh -c "! scontrol hold $held 2>/dev/null"
held=$(sbatch --parsable --wrap true --begin now+1hour)
check "a job that begins later is pending (BeginTime)" \
	sh -c "squeue -h -j $held -o '%t %r' | grep -qx 'PD BeginTime'"
check "scontrol hold as root: JobHeldAdmin" \
	sh -c "scontrol hold $held && squeue -h -j $held -o %r | grep -qx JobHeldAdmin"

# an array, and a job that waits for all of its tasks
arr=$(sbatch --parsable --array=0-3 --wrap 'echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID')
sbatch --wait --dependency="afterany:$arr" --wrap true >/dev/null
for t in 0 1 2 3; do
	check "array task $t wrote slurm-${arr}_$t.out" grep -qx "task $t of $arr" "slurm-${arr}_$t.out"
done

# kill -9 the controller while a job runs; restart it; nothing is lost
run=$(sbatch --parsable -J survivor --wrap 'sleep 2; echo survived')
check "the job starts" wait_until 10 sh -c "squeue -h -j $run -o %t | grep -qx R"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "after a restart the controller answers" wait_until 20 squeue
check "the held job is still queued" sh -c "squeue -h -j $held -o %t | grep -qx PD"
check "the running job is still known" sh -c "scontrol show job $run | grep -q JobName=survivor"
check "its result arrives after the restart" \
	wait_until 30 sh -c "scontrol show job $run | grep -q 'JobState=COMPLETED'"
check "it really ran to the end" grep -qx survived "slurm-$run.out"
next=$(sbatch --parsable --wait --wrap true)
check "ids continue after the restart" [ "$next" -gt "$run" ]

check "scontrol show partition" sh -c "scontrol show partition gpu | grep -qx '   Nodes=mi\[1-4\]' && scontrol show partition gpu | grep -q 'MaxTime=1-00:00:00' && scontrol show partition gpu | grep -q 'TotalNodes=4'"
check "scontrol show partition of an unknown one fails" sh -c "! scontrol show partition nope 2>/dev/null"
check "scontrol show node" sh -c "scontrol show node mi2 | grep -qx '   Gres=gpu:mi300x:8'"

# job history (sacct) from the accounting database, across the restart
check "sacct lists the completed job" \
	sh -c "sacct -X -n -P -o JobID,JobName,State,ExitCode -j $id | grep -qx '$id|train|COMPLETED|0:0'"
check "sacct shows the failed job's exit code" \
	sh -c "sacct -n -P -o State,ExitCode -j $pid | grep -qx 'FAILED|3:0'"
check "sacct shows the cancelled job" sh -c "sacct -n -P -o State -j $long | grep -qx CANCELLED"
check "sacct shows array tasks as ID_TASK" \
	sh -c "[ \$(sacct -n -P -o JobID -j $arr | grep -c '^${arr}_[0-3]\$') -eq 4 ]"
check "sacct's default header is Slurm's" \
	sh -c "sacct | head -n 1 | grep -qx '       JobID    JobName  Partition    Account  AllocCPUS      State ExitCode '"
check "sacct rejects an unknown field" sh -c "! sacct -o Bogus 2>/dev/null"

finish
