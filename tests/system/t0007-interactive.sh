#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Interactive allocations: srun outside a job (allocate, run the step, give
# the allocation up with its exit code), salloc (the command runs here with
# the job's environment, srun inside it), waiting for resources, and an
# allocation whose srun dies is ended, its tasks killed; --immediate.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
out=$(srun -N 2 -l --gres=gpu:mi300x:2 sh -c 'echo $SLURM_NODEID $SLURM_JOB_NODELIST $CUDA_VISIBLE_DEVICES' | sort)
check "srun outside a job runs on both nodes with their GPUs" \
	[ "$out" = "$(printf '0: 0 mi[1-2] 0,1\n1: 1 mi[1-2] 0,1')" ]
srun -n 3 sh -c 'exit 3'
check "srun returns the tasks' exit code" [ $? -eq 3 ]
id=$(sacct -X -n -P -o JobID,State,ExitCode | tail -n 1)
check "the allocation ended with it (FAILED 3:0)" sh -c "echo '$id' | grep -qE '^[0-9]+\|FAILED\|3:0$'"
check "srun refuses an unknown option" sh -c "! srun --bogus true 2>/dev/null"
check "srun needs a command" sh -c "srun -N 1 2>&1 | grep -qx 'srun: error: No command given to execute.'"

# bounded: a hang fails here with the daemons' logs, not at the suite's limit
timeout 60 salloc -N 1 -J inter sh -c 'echo "$SLURM_JOB_NAME $SLURM_JOB_NUM_NODES"; srun hostname' >sa.out 2>sa.err
check "salloc runs the command with the allocation's environment" \
	sh -c "head -n 1 sa.out | grep -qx 'inter 1' && [ \$(wc -l <sa.out) -eq 2 ]"
check "salloc says Slurm's lines" \
	sh -c "grep -qE '^salloc: Granted job allocation [0-9]+$' sa.err && grep -qE '^salloc: Relinquishing job allocation [0-9]+$' sa.err"
timeout 60 salloc -N 1 sh -c 'exit 7' 2>/dev/null
check "salloc returns the command's exit code" [ $? -eq 7 ]

# both nodes taken: the next allocation waits, and says so
big=$(sbatch --parsable -N 2 --exclusive --wrap 'sleep 4')
check "the cluster is full" wait_until 10 sh -c "squeue -h -j $big -o %t | grep -qx R"
timeout 60 srun -N 1 true 2>wait.err
check "a waiting srun says it is queued, then allocated" \
	sh -c "grep -qE '^srun: job [0-9]+ queued and waiting for resources$' wait.err && grep -qE '^srun: job [0-9]+ has been allocated resources$' wait.err"

# the owner dies: the allocation ends, its tasks are killed
srun -N 1 sh -c 'echo $$ >task.pid; sleep 100' &
owner=$!
check "the interactive job runs" wait_until 10 test -s task.pid
jid=$(squeue -h -o %i | head -n 1)
kill -9 $owner
wait $owner 2>/dev/null
check "its allocation ends when srun dies" \
	wait_until 10 sh -c "scontrol show job $jid | grep -q JobState=CANCELLED"
check "its tasks are killed" wait_until 10 sh -c "! kill -0 \$(cat task.pid) 2>/dev/null"
# an interactive job's time limit (seconds over the protocol; srun counts
# minutes): the controller ends it, TIMEOUT, and tells the holder
revoked=$(python3 - "$PORT" "$T" <<'PY'
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0spur/ctld/127.0.0.1:" + sys.argv[1])
def send(m):
    b = json.dumps(m).encode(); s.sendall(struct.pack(">I", len(b)) + b)
def recv():
    h = b""
    while len(h) < 4: h += s.recv(4 - len(h))
    n = struct.unpack(">I", h)[0]; r = b""
    while len(r) < n: r += s.recv(n - len(r))
    return json.loads(r)
send({"type": "submit", "job": {"script": "", "interactive": True, "time_limit": 2,
      "workdir": sys.argv[2], "name": "limited", "user": "root"}})
print(recv().get("job_id"), recv().get("type"), recv().get("type"))
PY
)
check "an interactive job is granted, then revoked at its limit" \
	sh -c "echo '$revoked' | grep -qE '^[0-9]+ allocated revoked$'"
check "it ends as TIMEOUT" sh -c "scontrol show job ${revoked%% *} | grep -q JobState=TIMEOUT"
check "squeue is empty" wait_until 10 sh -c "[ -z \"\$(squeue -h)\" ]"

# --immediate (golden: real Slurm 22.05's words, exit codes and states)
srun --immediate --hold -t1 pwd 2>imm.err
check "srun --immediate --hold fails at once (exit 1)" [ $? -eq 1 ]
check "... in Slurm's words" \
	sh -c "[ \"\$(cat imm.err)\" = 'srun: error: Unable to allocate resources: Job dependency problem' ]"
held=$(sacct -X -n -P -o JobID | tail -n 1)
check "... and the job is FAILED, BadConstraints" \
	sh -c "scontrol show job $held | grep -q 'JobState=FAILED Reason=BadConstraints'"
salloc --immediate --hold -t1 true 2>imm.err
check "salloc --immediate --hold: Slurm's two lines" \
	sh -c "head -n 1 imm.err | grep -qx 'salloc: error: Job submit/allocate failed: Job dependency problem' && tail -n 1 imm.err | grep -qE '^salloc: Job allocation [0-9]+ has been revoked[.]$' && [ \$(wc -l <imm.err) -eq 2 ]"
full=$(sbatch --parsable -N 2 --exclusive --wrap 'sleep 60')
check "the cluster is full again" wait_until 10 sh -c "squeue -h -j $full -o %t | grep -qx R"
SLURM_EXIT_IMMEDIATE=7 timeout 30 salloc -I -N 1 true 2>imm.err
check "salloc -I on a full cluster exits SLURM_EXIT_IMMEDIATE" [ $? -eq 7 ]
check "... saying the allocation is impossible now" \
	grep -qx 'salloc: error: Unable to allocate resources: Immediate execution impossible, insufficient priority' imm.err
timeout 30 srun --immediate=2 -N 1 true 2>imm.err
check "srun --immediate=2 gives up after waiting (exit 1)" [ $? -eq 1 ]
check "... queued, then Slurm's busy line" \
	sh -c "grep -qE '^srun: job [0-9]+ queued and waiting for resources$' imm.err && tail -n 1 imm.err | grep -qx 'srun: error: Unable to allocate resources: Requested nodes are busy'"
gave_up=$(sacct -X -n -P -o JobID | tail -n 1)
check "... and its job is cancelled" wait_until 10 sh -c "scontrol show job $gave_up | grep -q JobState=CANCELLED"
scancel "$full"
check "srun -I runs at once when the nodes are free" \
	wait_until 20 sh -c "srun -I -N 1 true 2>/dev/null"
check "sbatch has no --immediate (as Slurm)" \
	sh -c "sbatch --immediate --wrap true 2>&1 | grep -qx \"sbatch: unrecognized option '--immediate'\""
finish
