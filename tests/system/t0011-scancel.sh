#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scancel as users use it: by id, by array task, by filters (-u -t -n -p -w,
# alone and combined with ids), -s to signal without cancelling, -i (asked
# about each job, as Slurm asks), -v (Slurm's "Terminating job N"), and the
# errors Slurm prints for what cannot be done.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
me=$(id -un)
state() { squeue -h -j "$1" -o %T 2>/dev/null | head -n1; }
acct_state() { sacct -n -X -P -o State -j "$1" | head -n1; }

a1=$(sbatch --parsable --hold -J alpha --wrap true)
a2=$(sbatch --parsable --hold -J alpha --wrap true)
b1=$(sbatch --parsable --hold -J beta --wrap true)
b2=$(sbatch --parsable --hold -J beta --wrap true)
arr=$(sbatch --parsable --hold -J arr --array=0-3 --wrap true)
cat >sig.sh <<'SH'
#!/bin/bash
#SBATCH -J sig -o sig.out -w mi1
trap 'echo got USR1' USR1
srun sh -c 'trap "echo step got USR1" USR1; echo step up; for i in $(seq 1 300); do sleep 0.1; done' &
for i in $(seq 1 300); do sleep 0.1; done
SH
run=$(sbatch --parsable sig.sh)
check "the signalled job runs" wait_until 10 sh -c "squeue -h -j $run -o %t | grep -qx R"

check "scancel -n cancels the jobs of that name" scancel -n beta
check "... both of them" sh -c "[ \$(squeue -h -n beta | wc -l) -eq 0 ]"
check "... as CANCELLED in sacct" sh -c "sacct -n -X -P -o State -j $b1,$b2 | sort -u | grep -qx CANCELLED"
check "... and no other job" [ "$(state "$a1")" = PENDING ]

check "scancel JOB_TASK cancels that array task" scancel "${arr}_2"
check "... only that one" sh -c "[ \$(squeue -h -r -j $arr -o %i 2>/dev/null | wc -l) -eq 3 ]"
check "... the others still pending" sh -c "squeue -h -r -o %i | grep -qx ${arr}_1"
check "scancel JOB_[0,3] takes a task list" scancel "${arr}_[0,3]"
check "... leaving task 1" sh -c "squeue -h -o %i | grep '^${arr}_' | tr '\n' ' ' | grep -qx '${arr}_1 '"
check "scancel of the array's job id cancels the rest" scancel "$arr"
check "... no task remains" sh -c "! squeue -h -o %i | grep -q '^${arr}_'"

check "the job's step runs" wait_until 20 grep -qx 'step up' sig.out
check "scancel -s USR1 signals a running job's steps" scancel -s USR1 "$run"
check "... its step got it" wait_until 10 grep -qx 'step got USR1' sig.out
check "... not its batch shell (as Slurm's, without -b or -f)" sh -c "sleep 1; ! grep -qx 'got USR1' sig.out"
check "... and it keeps running" [ "$(state "$run")" = RUNNING ]
check "scancel -b -s USR1 -v: the batch shell alone, in Slurm's words" \
	sh -c "scancel -b -s USR1 -v $run 2>b.err && grep -qx 'scancel: Signal 10 to batch job $run' b.err"
check "... the shell got it" wait_until 10 grep -qx 'got USR1' sig.out
check "... and not the step" sh -c "[ \$(grep -c 'step got USR1' sig.out) -eq 1 ]"
check "scancel --full --signal=SIGUSR1 (the SIG prefix): the shell and the steps" \
	scancel --full --signal=SIGUSR1 "$run"
check "... a second delivery to the shell" wait_until 10 sh -c "[ \$(grep -c '^got USR1' sig.out) -eq 2 ]"
check "... and the step got it too" wait_until 10 sh -c "[ \$(grep -c 'step got USR1' sig.out) -ge 2 ]"
check "scancel -s of a pending job fails" sh -c "! scancel -s USR1 $a1 2>err"
check "... as Slurm says it" grep -qx "scancel: error: Kill job error on job id $a1: Job is pending execution" err

check "scancel -t PENDING -n alpha together with an id" scancel -t PENDING -n alpha "$a1" "$run"
check "... cancels the named job that passes" sh -c "[ \"\$(acct_state $a1)\" = CANCELLED ] || sacct -n -X -P -o State -j $a1 | grep -qx CANCELLED"
check "... but not the running one it filters out" [ "$(state "$run")" = RUNNING ]
check "... nor the matching job it did not name" [ "$(state "$a2")" = PENDING ]

check "scancel -w NODE cancels the jobs on it" scancel -w mi1
check "... the running job ends" wait_until 10 sh -c "sacct -n -X -P -o State -j $run | grep -qx CANCELLED"
check "... the pending job stays" [ "$(state "$a2")" = PENDING ]
check "... its output has slurmstepd's line (as Slurm's), not the signals scancel -s sent" \
	sh -c "grep -qE '^slurmstepd: error: \*\*\* JOB $run ON mi1 CANCELLED AT 20[0-9-]+T[0-9:]+ \*\*\*\$' sig.out &&
	       [ \$(grep -c 'JOB .* CANCELLED' sig.out) -eq 1 ]"

check "scancel of an ended job: silent and no failure, as Slurm 22.05's" \
	sh -c "scancel $run 2>err && [ ! -s err ]"
check "... -v says it: Terminating, then Job/step already completing or completed" \
	sh -c "scancel -v $run 2>err && [ \"\$(cat err)\" = \"\$(printf 'scancel: Terminating job %s\nscancel: error: Kill job error on job id %s: Job/step already completing or completed' $run $run)\" ]"
check "scancel -Q keeps quiet about it" sh -c "scancel -Q -v $run 2>err && ! grep -q error err"
check "scancel -s of an ended job fails (silently, as Slurm)" sh -c "! scancel -s USR1 $run 2>err && [ ! -s err ]"
check "scancel of an unknown id: silent, exit 0 (as Slurm 22.05)" sh -c "scancel 999999 2>err && [ ! -s err ]"
check "... -v: Invalid job id specified" \
	sh -c "scancel -v 999999 2>err && grep -qx 'scancel: error: Kill job error on job id 999999: Invalid job id specified' err"
check "scancel of a malformed id fails" sh -c "! scancel 12x 2>err && grep -qx 'scancel: error: Invalid job id 12x' err"
check "scancel -u of an unknown user fails" sh -c "! scancel -u no-such-user-here 2>err"
check "... Invalid user name" grep -qx "scancel: error: Invalid user name: no-such-user-here" err
check "scancel -t of a bad state fails" sh -c "! scancel -t DONE 2>err && grep -q 'Invalid job state specified: DONE' err"
check "scancel -s of a bad signal fails" sh -c "! scancel -s NOPE $a2 2>err && grep -q 'Invalid job signal: NOPE' err"
check "scancel without a job or filter fails" sh -c "! scancel 2>err && grep -qx 'scancel: error: No job identification provided' err"

# a cancelled job's step: srun says so, and slurmstepd's STEP line reaches it (as Slurm's)
st=$(sbatch --parsable -o step.out --wrap 'srun sleep 100')
check "a job with a step runs" wait_until 10 sh -c "squeue -h -s -o %i | grep -qx $st.0"
scancel "$st"
check "... cancelled: srun's lines and slurmstepd's STEP and JOB lines" \
	wait_until 10 sh -c "grep -qx 'srun: forcing job termination' step.out &&
		grep -qE '^slurmstepd: error: \*\*\* STEP $st.0 ON mi[0-9] CANCELLED AT 20[0-9T:-]+ \*\*\*\$' step.out &&
		grep -qE '^slurmstepd: error: \*\*\* JOB $st ON mi[0-9] CANCELLED AT 20[0-9T:-]+ \*\*\*\$' step.out"
check "... and its step is CANCELLED in sacct" \
	wait_until 10 sh -c "sacct -n -P -j $st.0 -o State | grep -qx CANCELLED"
check "... and none of these cancelled the pending job" [ "$(state "$a2")" = PENDING ]
check "a filter that matches nothing is no error" scancel -n no-such-name
ji=$(sbatch --parsable -H -J askme -o /dev/null --wrap true)
echo n | scancel -i "$ji" >ask.out
check "scancel -i asks as Slurm asks; n keeps the job" \
	sh -c "grep -q '^Cancel job_id=$ji name=askme partition=gpu \[y/n\]? ' ask.out && [ '$(state "$ji")' = PENDING ]"
echo y | scancel -i -v --name=askme >ask.out 2>ask.err
check "... y cancels it; -v says Slurm's 'Terminating job N'" grep -qx "scancel: Terminating job $ji" ask.err
check "... and it is CANCELLED" wait_until 10 sh -c "[ \"\$(sacct -n -X -P -o State -j $ji)\" = CANCELLED ]"
check "scancel -i of that ended job: Slurm's 'Kill job error ... Invalid job id specified', exit 1" \
	sh -c "! scancel -i $ji 2>gone.err </dev/null &&
	       grep -qx 'scancel: error: Kill job error on job id $ji: Invalid job id specified' gone.err"
jq=$(sbatch --parsable -H -o /dev/null --wrap true)
check "scancel --qos=INVALID -v: nothing cancelled, Slurm's words (the QOS in lower case)" \
	sh -c "scancel --name=INVALID --qos=INVALID --verbose 2>q.err &&
		grep -qx 'scancel: error: No active jobs match ALL job filters, including: job_name=INVALID qos=invalid ' q.err &&
		[ '$(state "$jq")' = PENDING ]"
check "scancel --qos=normal cancels a job that named no QOS" \
	sh -c "scancel --qos=normal && [ \"\$(sacct -n -X -P -o State -j $jq)\" = CANCELLED ]"
check "scancel -u ME cancels every job of mine" scancel -u "$me"
check "... the queue is empty" sh -c "[ -z \"\$(squeue -h)\" ]"
check "... sacct shows the last one CANCELLED" sh -c "sacct -n -X -P -o State -j $a2 | grep -qx CANCELLED"
# scancel J.S: one step, as Slurm 22.05's (checked against its output)
js=$(sbatch --parsable -o stepc.out --wrap 'srun sleep 100; echo rc0=$?; srun sh -c "trap \"echo got USR2\" USR2; echo two up; sleep 3; sleep 3"; echo rc1=$?')
check "a job with a running step" wait_until 20 sh -c "scontrol show step $js.0 | grep -q State=RUNNING"
check "scancel -v J.0: Slurm's 'Terminating step J.0'" \
	sh -c "scancel -v $js.0 2>st.err && grep -qx 'scancel: Terminating step $js.0' st.err"
check "... slurmstepd's STEP line, srun's 'Job step aborted', the task Killed; the job goes on" \
	wait_until 20 sh -c "grep -qE '^slurmstepd: error: \*\*\* STEP $js.0 ON mi[0-9] CANCELLED AT [0-9T:-]+ \*\*\*\$' stepc.out &&
		grep -qE '^srun: Job step aborted: Waiting up to [0-9]+ seconds for job step to finish.\$' stepc.out &&
		grep -qE '^srun: error: mi[0-9]: task 0: Killed\$' stepc.out && grep -qx rc0=137 stepc.out"
check "... the step CANCELLED in sacct" wait_until 10 sh -c "sacct -n -P -j $js.0 -o State | grep -qx CANCELLED"
check "scancel -s USR2 J.1: that step's tasks alone" \
	sh -c "until grep -qx 'two up' stepc.out; do sleep 0.2; done; scancel -s USR2 $js.1"
check "scancel of a step that is not there: Slurm's words (naming the job), exit 225 (as Slurm's)" \
	sh -c "scancel $js.9 2>s9.err; [ \$? = 225 ] && grep -qx 'scancel: error: Kill job error on job step id $js: Invalid job id specified' s9.err"
check "... of a job that is not there: naming J.S, exit 1" \
	sh -c "scancel 999999.3 2>s99.err; [ \$? = 1 ] && grep -qx 'scancel: error: Kill job error on job step id 999999.3: Invalid job id specified' s99.err"
check "... the step signalled got it and went on" wait_until 20 sh -c "grep -qx 'got USR2' stepc.out && grep -qx rc1=0 stepc.out"
finish
