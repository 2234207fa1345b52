#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sacct shows a job's steps as Slurm's does: JOBID.batch for the script,
# JOBID.0, .1 ... for srun steps, each with its name, state and exit code;
# -X shows the jobs alone; a step still running when its job is cancelled
# ends CANCELLED. The rows come through the log, so a follower's sacct
# would show the same.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
j=$(sbatch --parsable --wait -N2 -o /dev/null --wrap 'srun -N2 true; srun -n1 -J second sh -c "exit 3"; exit 0')
sacct -j "$j" -n -P -o JobID,JobName,State,ExitCode >rows
check "the job's own line" grep -qx "$j|wrap|COMPLETED|0:0" rows
check "its batch step" grep -qx "$j.batch|batch|COMPLETED|0:0" rows
check "srun's first step, named by its command" grep -qx "$j.0|true|COMPLETED|0:0" rows
check "the second, named by -J, FAILED with its code" grep -qx "$j.1|second|FAILED|3:0" rows
check "-X: the job alone" sh -c "[ \"\$(sacct -j $j -n -X -P -o JobID)\" = $j ]"
k=$(sbatch --parsable -o /dev/null --wrap 'srun sleep 100')
check "a long step runs" wait_until 10 sh -c "sacct -j $k -n -P -o JobID,State | grep -qx '$k.0|RUNNING'"
scancel "$k"
check "cancelling the job ends its step CANCELLED" \
	wait_until 10 sh -c "sacct -j $k -n -P -o JobID,State | grep -qx '$k.0|CANCELLED'"
finish
