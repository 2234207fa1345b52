#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The command surface as Slurm's users and tools call it: scontrol's
# options (-o, -a, -d, --version) and show config/jobid/J_T/hostlists;
# sinfo -p -t -n -a; squeue -n -A -w --me -l -t all, pending array tasks
# in one row (-r: one per task), J_T for scontrol; sbatch's options that
# change what runs (--signal with and without B:, --open-mode, -i, script
# arguments, --export's three forms, --comment, -N MIN-MAX, -Q), its input
# variables (SBATCH_*, srun's SLURM_*) under the command line, Slurm's output variables
# compared by name with a capture from real Slurm 22.05
# (tests/compat/golden/slurm-batch-env-names.txt), -n beyond one node, and
# a real Slurm option Spur does not build refused by name (exit 1) apart
# from a typo (getopt's words, exit 255); sacct --name -A -N -S -E --delimiter.
. "$(dirname "$0")/lib.sh"
GOLD="$(dirname "$0")/../compat/golden"
cd "$T"
write_conf 2 gpu:mi300x:8
cat >>slurm.conf <<CONF
PartitionName=hid Nodes=mi1 Hidden=YES MaxTime=30:00
CONF
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2

# --- scontrol
check "scontrol -o show partition: one line per shown partition" \
	sh -c '[ "$(scontrol -o show partition | grep -c "^PartitionName=")" = 1 ]'
check "... -a (--all) shows the hidden one too" \
	sh -c '[ "$(scontrol --all --oneliner show partition | grep -c "^PartitionName=")" = 2 ]'
# the keys in Slurm's order, from a capture of Slurm's own line
keys() { tr ' ' '\n' | sed -n 's/=.*//p'; }
grep -A1 '^== scontrol -o show partition' "$GOLD/slurm-surface.txt" | tail -1 | keys >gold.keys
scontrol -o show partition gpu | keys >our.keys
check "... with Slurm's keys in Slurm's order" cmp -s gold.keys our.keys
check "scontrol show config: Slurm's layout" \
	sh -c 'scontrol show config | grep -q "^ClusterName *= systest$" &&
	       scontrol show config | grep -q "^SLURM_CONF *= .*/slurm.conf$" &&
	       scontrol show config | head -1 | grep -q "^Configuration data as of "'
check "scontrol --version says which Slurm it stands for" \
	sh -c 'scontrol --version | grep -q "^slurm 22\.05\." && sbatch -V | grep -q "^slurm 22\.05\."'
sed -n '/^== scontrol show node node1/,/^$/p' "$GOLD/slurm-surface.txt" | sed '1d' | keys >gold-node.keys
scontrol show node mi1 | keys >our-node.keys
check "scontrol show node: Slurm's keys in Slurm's order" cmp -s gold-node.keys our-node.keys
diff gold-node.keys our-node.keys | sed 's/^/  | /'
check "scontrol show node: CPULoad and FreeMem as the node's agent reads its host" \
	wait_until 10 sh -c "scontrol show node mi1 | grep -qE 'CPULoad=[0-9]+[.][0-9]{2}\$' &&
		scontrol show node mi1 | grep -qE ' FreeMem=[0-9]+ '"
check "... and sinfo's %O (CPU_LOAD) and %e (FREE_MEM)" \
	sh -c "sinfo -h -N -n mi1 -o '%O %e' | grep -qE '^[0-9]+[.][0-9]{2} [0-9]+\$'"
sjob=$(sbatch --parsable -o /dev/null -c2 --mem=100 --wrap 'sleep 20')
wait_until 10 sh -c "squeue -h -j $sjob -o %t | grep -qx R"
sed 1d "$GOLD/slurm-show-job.txt" | keys >gold-job.keys
scontrol show job "$sjob" | keys >our-job.keys
check "scontrol show job (running): Slurm's keys in Slurm's order" cmp -s gold-job.keys our-job.keys
diff gold-job.keys our-job.keys | sed 's/^/  | /'
scontrol -o show job "$sjob" >one.out
keys <one.out >one.keys
check "... and -o puts them on one line" sh -c "[ \$(wc -l <one.out) = 1 ] && cmp -s gold-job.keys one.keys"
scancel "$sjob"
check "scontrol with no command reads them (ping, then exit)" \
	sh -c "printf 'ping\nexit\n' | scontrol | grep -q 'Slurmctld(primary) at .* is UP'"
check "scontrol's !! runs the last command again (Slurm's)" \
	sh -c "[ \"\$(printf 'ping\n!!\nquit\n' | scontrol | grep -c 'Slurmctld(primary) at .* is UP')\" = 2 ]"
check "scontrol show config: SelectTypeParameters is what Spur does when slurm.conf names none" \
	sh -c "scontrol show config | grep -qx 'SelectTypeParameters    = CR_CPU_MEMORY'"
check "scontrol show node takes a hostlist" \
	sh -c '[ "$(scontrol show node "mi[1-2]" | grep -c "^NodeName=")" = 2 ]'

# --- sinfo
check "sinfo -p names one partition" sh -c '[ "$(sinfo -h -p gpu -o %P)" = "gpu*" ]'
check "sinfo hides Hidden=YES, -a shows it" \
	sh -c '! sinfo -h -o %P | grep -q hid && sinfo -a -h -o %P | grep -qx hid'
check "sinfo -N -n mi2 -e -o '%N|%t'" sh -c '[ "$(sinfo -h -N -n mi2 -e -o "%N|%t")" = "mi2|idle" ]'
check "sinfo -s: Slurm's summary header" \
	sh -c "[ \"\$(sinfo -s | head -1)\" = \"\$(sed -n '/^== sinfo -s/{n;p}' '$GOLD/slurm-surface.txt')\" ]"
check "sinfo %C and %F summed over the row's nodes" \
	sh -c '[ "$(sinfo -h -p gpu -o "%C %F")" = "0/16/0/16 0/2/0/2" ]'
check "sinfo -r: the nodes that answer" sh -c '[ "$(sinfo -h -N -r -p gpu -o %N | wc -l)" = 2 ]'
check "sinfo -t alloc shows no idle node" sh -c '[ -z "$(sinfo -h -N -t alloc -o %N)" ]'

# --- squeue and scontrol show job
held2_early=$(sbatch --parsable -H -o /dev/null --wrap true)
held=$(sbatch --parsable -H -J namedjob --comment="for the record" -A acct1 --wrap true)
check "squeue -n NAME" sh -c "[ \"\$(squeue -h -n namedjob -o %i)\" = $held ]"
check "squeue -A ACCOUNT" sh -c "[ \"\$(squeue -h -A acct1 -o %i)\" = $held ]"
check "squeue --me" sh -c "squeue --me -h -o %i | grep -qx $held"
check "squeue -l: the time, then Slurm's long header" \
	sh -c "squeue -l | sed -n 2p | grep -q 'JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES NODELIST(REASON)'"
# jsout COND CMD...: CMD's JSON output (d) meets the Python condition
jsout() {
	local cond=$1
	shift
	"$@" | python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($cond) else 1)"
}
check "squeue --json: slurmrestd's jobs document" \
	jsout "any(j['job_id'] == $held and j['name'] == 'namedjob' for j in d['jobs']) and d['errors'] == []" squeue --json
check "sinfo --json: the nodes" jsout "len(d['nodes']) == 2" sinfo --json
check "scontrol show job: Comment= as given" sh -c "scontrol show job $held | grep -q '^   Comment=for the record'"
check "scontrol show jobid -dd: DerivedExitCode" sh -c "scontrol show jobid -dd $held | grep -q DerivedExitCode="
check "scontrol update of a pending job: Partition, Account, NumNodes, Dependency" \
	scontrol update JobId=$held Partition=hid Account=acct9 NumNodes=2 "Dependency=afterany:$held2_early"
check "... shown as updated" \
	sh -c "scontrol show job $held | grep -q 'Partition=hid' && scontrol show job $held | grep -q 'Account=acct9' &&
	       scontrol show job $held | grep -q 'NumNodes=2 ' && squeue -h -j $held -o %a | grep -qx acct9"
check "... a partition that does not exist is refused" sh -c "! scontrol update JobId=$held Partition=nope 2>/dev/null"
check "... a key not built is refused by name" \
	sh -c "scontrol update JobId=$held Licenses=x 2>&1 | grep -q 'Update of Licenses is not supported'"
scontrol update JobId=$held Partition=gpu Account=acct1 NumNodes=1 Dependency=
check "scontrol -o show job: one line" sh -c "[ \"\$(scontrol -o show job $held | wc -l)\" = 1 ]"
scancel "$held"
check "a held job cancelled keeps no hold reason" \
	sh -c "scontrol show job $held | grep -q 'JobState=CANCELLED Reason=None '"
done_job=$(sbatch --parsable --wait -o /dev/null --wrap true)
check "squeue -t all lists a job that just ended" \
	sh -c "squeue -h -t all -j $done_job -o %T | grep -qx COMPLETED"
check "... and plain squeue does not" sh -c "[ -z \"\$(squeue -h -j $done_job -o %T)\" ]"
slow=$(sbatch --parsable --wait -o /dev/null --wrap 'sleep 1.2')
check "an ended job's RunTime is start to end" sh -c "scontrol show job $slow | grep -q 'RunTime=00:00:0[12] '"
check "sacct: ElapsedRaw, CPUTime, NCPUS, AllocTRES" \
	sh -c "sacct -n -X -P -j $slow -o ElapsedRaw,NCPUS,AllocTRES | grep -qx '[12]|1|billing=1,cpu=1,node=1'"
a=$(sbatch --parsable --wait --array=1-5:2 -o "arr-%a.out" \
	--wrap 'echo "$SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP"')
check "SLURM_ARRAY_TASK_COUNT/MIN/MAX/STEP" grep -qx "3 1 5 2" arr-3.out
check "scontrol show job J_T: the task's own record" \
	sh -c "scontrol show job ${a}_3 | grep -q 'ArrayJobId=$a ArrayTaskId=3 ' &&
	       scontrol show job ${a}_3 | grep -q JobState=COMPLETED"

h=$(sbatch --parsable -H --array=1-5,9 -o /dev/null --wrap true)
check "squeue: pending tasks of an array in one row, as Slurm prints them" \
	sh -c "[ \"\$(squeue -h -j $h -o %i)\" = '${h}_[1-5,9]' ]"
check "squeue -r: one row per task" sh -c "[ \"\$(squeue -h -r -j $h -o %i | wc -l)\" = 6 ]"
scontrol release "${h}_3"
check "scontrol release J_T releases that task alone" \
	sh -c "[ \"\$(squeue -h -j $h -t PD -o %i)\" = '${h}_[1-2,4-5,9]' ]"
scancel "$h"

bad=$(sbatch --parsable --wait -o /dev/null --wrap 'exit 1')
dep=$(sbatch --parsable -o /dev/null --dependency=afterok:$bad --wrap true)
check "afterok on a failed job: PENDING, DependencyNeverSatisfied (as Slurm)" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $dep -o '%T %r')\" = 'PENDING DependencyNeverSatisfied' ]"
check "... and sacct agrees" sh -c "[ \"\$(sacct -n -X -P -j $dep -o State)\" = PENDING ]"
check "... Dependency=afterok:N(failed) in scontrol show job" \
	sh -c "scontrol show job $dep | grep -q 'Dependency=afterok:$bad(failed)'"
held2=$(sbatch --parsable -H -o /dev/null --wrap true)
dep2=$(sbatch --parsable -o /dev/null --dependency=afterany:$held2 --wrap true)
check "a dependency waited on: Dependency=afterany:N(unfulfilled)" \
	sh -c "scontrol show job $dep2 | grep -q 'Dependency=afterany:$held2(unfulfilled)'"
scancel "$held2" "$dep2"
scancel "$dep"
dep=$(sbatch --parsable -o /dev/null --kill-on-invalid-dep=yes --dependency=afterok:$bad --wrap true)
check "--kill-on-invalid-dep=yes: cancelled instead" \
	wait_until 10 sh -c "scontrol show job $dep | grep -q 'JobState=CANCELLED Reason=DependencyNeverSatisfied'"

# --- sbatch: what changes what runs
# B: the batch shell alone gets USR1 55 s before a 1-minute limit
sbatch --wait -t 1 --signal=B:USR1@55 -o sig.out \
	--wrap 'trap "echo shell-got-USR1; exit 0" USR1; for i in $(seq 60); do sleep 1; done' >/dev/null
check "--signal=B:USR1@55 reaches the batch shell before its limit" grep -qx shell-got-USR1 sig.out
# without B: the steps get it, the batch shell does not
sbatch --wait -t 1 --signal=USR1@55 -o sig2.out --wrap 'trap "echo shell-got-USR1" USR1
srun sh -c "trap \"echo step-got-USR1; exit 0\" USR1; for i in \$(seq 60); do sleep 1; done"' >/dev/null
check "--signal=USR1@55 reaches the steps, not the shell" \
	sh -c 'grep -qx step-got-USR1 sig2.out && ! grep -q shell-got sig2.out'
sbatch --wait -o app.out --wrap 'echo first' >/dev/null
sbatch --wait -o app.out --open-mode=append --wrap 'echo second' >/dev/null
check "--open-mode=append keeps what was there" sh -c '[ "$(cat app.out)" = "$(printf "first\nsecond")" ]'
check "srun --output=TASKID: only that task's output, on srun's" \
	sh -c '[ "$(srun --output=2 -n4 -O sh -c "echo \$SLURM_PROCID")" = 2 ] && [ "$(srun --output=all -n2 -O sh -c "echo \$SLURM_PROCID" | sort | tr -d "\n")" = 01 ]'
srun -o app.out --open-mode=A echo third
check "srun -o with --open-mode=A appends to its own file" \
	sh -c '[ "$(cat app.out)" = "$(printf "first\nsecond\nthird")" ]'
srun -o app.out --open-mode=t echo fourth
check "... and =t truncates it" sh -c '[ "$(cat app.out)" = fourth ]'
sbatch --wait -o app2.out --wrap 'echo keep >in.txt; srun --open-mode=a -o in.txt echo more; cat in.txt' >/dev/null
check "srun --open-mode inside a job" sh -c '[ "$(cat app2.out)" = "$(printf "keep\nmore")" ]'
check "a bad --open-mode: Slurm's message, exit 255 (sbatch and srun)" \
	sh -c "sbatch --open-mode=x --wrap true 2>&1 | grep -qx 'sbatch: error: Invalid --open-mode specification'; [ \$? -eq 0 ] && srun --open-mode=x true 2>/dev/null; [ \$? -eq 255 ]"
echo from-stdin >in.txt
sbatch --wait -i in.txt -o in.out --wrap 'cat' >/dev/null
check "-i: the batch script's stdin" grep -qx from-stdin in.out
printf '#!/bin/sh\necho "args: $1 $2"\n' >args.sh
sbatch --wait -o args.out args.sh one two >/dev/null
check "script arguments reach the script" grep -qx "args: one two" args.out
export FOO=1 BAR=0
sbatch --wait --export=ALL,BAR=2 -o e1.out --wrap 'echo "FOO=$FOO BAR=$BAR"' >/dev/null
check "--export=ALL,BAR=2: everything, BAR set" grep -qx "FOO=1 BAR=2" e1.out
sbatch --wait --export=BAR=2 -o e2.out --wrap 'echo "FOO=$FOO BAR=$BAR J=$SLURM_JOB_ID"' >/dev/null
check "--export=BAR=2: BAR and Slurm's own only" grep -qx "FOO= BAR=2 J=[0-9]*" e2.out
sbatch --wait --export=NONE -o e3.out --wrap 'echo "FOO=$FOO J=$SLURM_JOB_ID"' >/dev/null
check "--export=NONE: none of the submitter's" grep -qx "FOO= J=[0-9]*" e3.out
j=$(SBATCH_PARTITION=hid sbatch --parsable -H --wrap true)
check "SBATCH_PARTITION is read" sh -c "scontrol show job $j | grep -q Partition=hid"
j2=$(SBATCH_PARTITION=hid sbatch --parsable -H -p gpu --wrap true)
check "... and the command line overrides it" sh -c "scontrol show job $j2 | grep -q Partition=gpu"
scancel "$j" "$j2"
check "SBATCH_ACCOUNT, SBATCH_TIMELIMIT, SBATCH_DEBUG: sbatch -v says what it took" \
	sh -c 'SBATCH_ACCOUNT=acz SBATCH_TIMELIMIT=3 SBATCH_DEBUG=2 sbatch -H -o /dev/null --wrap true 2>&1 |
	       grep -c "^sbatch: \(account *: acz\|time *: 00:03:00\|verbose *: 2\)$" | grep -qx 3'
# real Slurm 22.05's block for this command (slurm-golden), byte for byte
cat >opts.gold <<'GOLD'
sbatch: defined options
sbatch: -------------------- --------------------
sbatch: account             : dummy
sbatch: hold                : set
sbatch: nodes               : 1
sbatch: output              : /dev/null
sbatch: time                : 00:03:00
sbatch: verbose             : 4
sbatch: wrap                : true
sbatch: -------------------- --------------------
sbatch: end of defined options
GOLD
SBATCH_ACCOUNT=dummy SBATCH_DEBUG=4 SBATCH_TIMELIMIT=3 sbatch -N1 -H --output=none --wrap true 2>&1 |
	grep -v -e '^Submitted' -e 'debug:' >opts.out
check "sbatch -v's 'defined options': Slurm's names, order and separators" cmp -s opts.gold opts.out
SLURM_NNODES=1-2 SLURM_NPROCS=3 SLURM_OVERCOMMIT=1 SLURM_STDOUTMODE=so.out SLURM_JOB_NAME=envjob \
	SLURM_DEBUG=1 srun sh -c 'echo "$SLURM_NTASKS $SLURM_JOB_NAME"' 2>so.err
check "srun outside a job reads SLURM_NNODES/NPROCS/OVERCOMMIT/STDOUTMODE/JOB_NAME/DEBUG" \
	sh -c '[ "$(sort -u so.out)" = "3 envjob" ] && [ $(wc -l <so.out) = 3 ] && grep -q "^srun: jobid [0-9]*: nodes" so.err'
check "... and not SBATCH_* (sbatch's)" \
	sh -c '[ "$(SBATCH_JOB_NAME=sbname srun sh -c "echo \$SLURM_JOB_NAME")" = sh ]'
check "the tasks get the submitter's umask (SLURM_UMASK), srun and sbatch" \
	sh -c 'umask 027; [ "$(srun -N1 sh -c umask)" = 0027 ] &&
	       sbatch --wait -o um.out --wrap "umask; srun sh -c umask; touch um.file" >/dev/null &&
	       [ "$(sort -u um.out)" = 0027 ] && [ "$(stat -c %a um.file um.out | sort -u)" = 640 ]'
check "the submitter's own SLURM_* variables reach the tasks (SLURM_ACCOUNT as given), the job's own win" \
	sh -c '[ "$(SLURM_ACCOUNT=QA_ACCT SLURM_TASK_PID=1 SLURM_MYVAR=x srun -N1 sh -c "echo \$SLURM_ACCOUNT \$SLURM_MYVAR; [ \$SLURM_TASK_PID != 1 ] && echo own")" = "QA_ACCT x
own" ]'
check "sbatch -vv: Slurm's 'debug:  propagating RLIMIT_...' lines" \
	sh -c 'sbatch -vv -H -o /dev/null --wrap true 2>&1 | grep -qE "^sbatch: debug:  propagating RLIMIT_NOFILE=[0-9]+$"'
check "scontrol -v show partition: Slurm's 'last_update_time=..., records=N' first" \
	sh -c 'scontrol -v show partition | head -1 | grep -qE "^last_update_time=20[0-9-]+T[0-9:]+, records=[0-9]+$"'
hj=$(sbatch --parsable -H -p gpu -o /dev/null --wrap true)
check "squeue takes Slurm's long names (--partitions, --users, --accounts, --nodes) and a uid" \
	sh -c "[ \"\$(squeue -h --partitions=gpu --users=0 -o %i -j $hj)\" = $hj ] &&
	       [ \"\$(squeue -h -u root,0 -o %u -j $hj)\" = root ] && squeue -h --accounts=x --nodes=mi1 >/dev/null"
check "squeue -u of an unknown user: Slurm's words, no job, exit 0" \
	sh -c "squeue -h -u no-such-user-x 2>u.err >u.out && [ ! -s u.out ] && grep -qx 'squeue: error: Invalid user: no-such-user-x' u.err"
scancel "$hj"
check "squeue -w of an unknown node: Slurm's words, exit 1" \
	sh -c '! squeue -w dummy_name 2>w.err && grep -qx "squeue: error: Invalid node name dummy_name" w.err'
check "-Q: nothing said on success" sh -c '[ -z "$(sbatch -Q -o /dev/null --wrap true)" ]'
check "-N 1-2 is taken" sh -c 'sbatch --parsable --wait -N 1-2 -o /dev/null --wrap true >/dev/null'

# --- output variables: every name real Slurm sets for sbatch -c 2 --mem=100M
sbatch --wait -c 2 --mem=100M -o env.out \
	--wrap 'env | grep -E "^SLURM" | cut -d= -f1 | sort' >/dev/null
check "the output variables Slurm sets, by name (capture of Slurm 22.05)" \
	sh -c "[ -z \"\$(comm -23 '$GOLD/slurm-batch-env-names.txt' env.out)\" ]"
comm -23 "$GOLD/slurm-batch-env-names.txt" env.out | sed 's/^/  missing: /'
sbatch --wait -c 2 --mem=100M -o env2.out --wrap 'echo "CPT=$SLURM_CPUS_PER_TASK MEM=$SLURM_MEM_PER_NODE NT=${SLURM_NTASKS-unset}"' >/dev/null
check "SLURM_CPUS_PER_TASK, SLURM_MEM_PER_NODE; no SLURM_NTASKS without -n" grep -qx "CPT=2 MEM=100 NT=unset" env2.out
sbatch --wait -n 9 -o n9.out --wrap 'echo "$SLURM_JOB_NUM_NODES $SLURM_NTASKS"' >/dev/null
check "-n 9 on 8-CPU nodes spreads over two" grep -qx "2 9" n9.out
p9=$(sbatch --parsable -H -n9 -o /dev/null --wrap true)
check "... and says so while pending (squeue %D, scontrol NumNodes), as Slurm" \
	sh -c "[ \"\$(squeue -h -j $p9 -o %D)\" = 2 ] && scontrol show job $p9 | grep -q ' NumNodes=2 '"
scancel "$p9"

# --- sacct's selections
sbatch --wait -J acctname -A acct2 -o /dev/null --wrap true >/dev/null
check "sacct --name" sh -c '[ "$(sacct -n -X -P --name=acctname -o JobName)" = acctname ]'
check "sacct -A" sh -c '[ "$(sacct -n -X -P -A acct2 -o Account)" = acct2 ]'
check "sacct -N HOSTLIST: jobs that ran there" sh -c '[ -n "$(sacct -n -X -P -N "mi[1-2]" -o JobID)" ]'
check "sacct -E before any job: none" sh -c '[ -z "$(sacct -n -X -P -S 2000-01-01 -E 2000-01-02 -o JobID)" ]'
check "sacct --delimiter with -P" sh -c 'sacct -n -X -P --delimiter=";" -o JobID,JobName --name=acctname | grep -qx "[0-9]*;acctname"'

check "sacct --json: slurmdbd's jobs document" \
	jsout "any(j['name'] == 'acctname' for j in d['jobs'])" sacct --json

# --- sinfo -O/--Format: Slurm's long field names, 20 wide unless sized
sinfo -O partition,time,nodes,statecompact -p gpu >sO.out
check "sinfo -O: real Slurm's header and widths" \
	sh -c "[ \"\$(head -1 sO.out)\" = \"\$(sed -n 3p '$GOLD/slurm-sinfo-format.txt')\" ]"
check "... each row's fields at the same columns (gpu*, its limit, 2 nodes, idle)" \
	sh -c "sed -n 2p sO.out | grep -qx 'gpu\\* *1-00:00:00 *2 *idle *'"
sinfo -O partition:5,available:.8,cpus -p gpu | head -1 >sO2.out
check "sinfo -O with sizes (:5, :.8 right-justified): real Slurm's header" \
	sh -c "[ \"\$(cat sO2.out)\" = \"\$(sed -n 6p '$GOLD/slurm-sinfo-format.txt')\" ]"
check "sinfo -O of an unknown field: refused" sh -c "! sinfo -O bogus 2>/dev/null"
check "sinfo -v and squeue -v: the options taken, in Slurm's layout (verbose = 1)" \
	sh -c "sinfo -v 2>&1 >/dev/null | grep -q '^verbose *= 1\$' && squeue -v 2>&1 >/dev/null | grep -q '^iterate *= 0\$'"

# --- SQUEUE_FORMAT, SINFO_FORMAT, SACCT_FORMAT under the command line
jf=$(sbatch --parsable -H -J envfmt -o /dev/null --wrap true)
check "SQUEUE_FORMAT (with %U, the uid)" \
	sh -c "SQUEUE_FORMAT='jid=%i uid=%U' squeue -h -j $jf | grep -qx 'jid=$jf uid=$(id -u)'"
check "... -o over it" sh -c "SQUEUE_FORMAT='jid=%i' squeue -h -j $jf -o 'x%i' | grep -qx 'x$jf'"
check "SINFO_FORMAT" sh -c "SINFO_FORMAT='%P|%a' sinfo -h -p gpu | grep -qx 'gpu\\*|up'"
check "SACCT_FORMAT" sh -c "SACCT_FORMAT=JobID,JobName sacct -n -P -X -j $jf | grep -qx '$jf|envfmt'"
scancel "$jf"

# --- refused by name, or a typo
sbatch --thread-spec=1 --wrap true 2>refused.err
rc=$?
check "a Slurm option Spur does not build: 'not supported', exit 1" \
	sh -c "[ $rc = 1 ] && grep -q -- '--thread-spec is not supported' refused.err"
printf '#!/bin/sh\n#PBS -l nodes=1\n#SBATCH -J pbs\necho hi\n' >pbs.sh
check "#PBS lines are read, as Slurm's sbatch reads them (t0060)" \
	sh -c "sbatch -v --test-only pbs.sh 2>&1 | grep -q 'nodes               : 1'"
check "... --ignore-pbs and SBATCH_IGNORE_PBS ignore them, as Slurm's" \
	sh -c "sbatch --ignore-pbs -o /dev/null pbs.sh >/dev/null && SBATCH_IGNORE_PBS=1 sbatch -o /dev/null pbs.sh >/dev/null"
sbatch --bogus-xyz --wrap true 2>typo.err
rc=$?
check "a typo: getopt's words and Try ... --help, exit 255 (as Slurm)" \
	bash -c "[ $rc = 255 ] && diff <(sed -n '/^== sbatch --bogus-xyz/,/^rc=/p' '$GOLD/slurm-surface.txt' | sed '1d;\$d') typo.err >/dev/null"
srun -N2 -n2 -K sh -c '[ $SLURM_PROCID = 1 ] && exit 3; sleep 30; echo survived' >k.out 2>&1
rc=$?
check "srun outside a job takes its step options (-K ends the step at a bad exit)" \
	sh -c "[ $rc = 3 ] && ! grep -q survived k.out"
[ "$rc" = 3 ] || { echo "  rc=$rc"; sed 's/^/  | /' k.out; }
check "srun -O: 10 tasks on one 8-CPU node (one task's CPUs allocated)" \
	sh -c '[ "$(srun -N1 -n10 -O -l true 2>&1 | wc -l)" = 0 ] && [ "$(srun -N1 -n10 -O -l echo x | wc -l)" = 10 ]'
check "srun --chdir outside a job: the tasks' folder" sh -c "[ \"\$(srun -D /tmp pwd)\" = /tmp ]"
check "srun --export=VAR=val outside a job" sh -c '[ "$(srun -N1 --export=TEST_X=123 sh -c "echo \$TEST_X")" = 123 ]'
check "srun tasks have SLURM_TASK_PID (their own pid)" \
	sh -c '[ "$(srun -n2 sh -c "[ \$SLURM_TASK_PID = \$\$ ] && echo same" | grep -c same)" = 2 ]'
check "srun -v says the step's nodes and CPUs in Slurm 22.05's line" \
	sh -c 'srun -v -N2 -n2 true 2>&1 | grep -qE "^srun: jobid [0-9]+: nodes\(2\):.mi\[1-2\]., cpu counts: [0-9]+\(x2\)\$"'
check "srun names a failed task as Slurm: 'srun: error: NODE: task N: Exited with exit code X'" \
	sh -c 'srun -N1 -n1 sh -c "exit 21" 2>&1 | grep -q "^srun: error: mi[12]: task 0: Exited with exit code 21$"'
check "srun --mpi=list outside a job" sh -c 'srun --mpi=list | grep -q "MPI plugin types are"'
check "srun -o (srun's own: the tasks' output file, not sbatch's) outside a job" \
	sh -c "srun -o x.out echo to-x && grep -qx to-x x.out"
salloc --array=1-2 true 2>/dev/null
check "an sbatch option salloc lacks is unknown to salloc (exit 255)" [ $? = 255 ]
check "heterogeneous jobs (':') refused by name" \
	sh -c "sbatch -N1 : -N1 --wrap true 2>&1 | grep -q 'heterogeneous jobs' && ! sbatch -N1 : -N1 --wrap true 2>/dev/null"
check "srun --help prints srun's usage" sh -c 'srun --help | head -1 | grep -q "^Usage: srun"'
check "salloc --help prints salloc's" sh -c 'salloc --help | head -1 | grep -q "^Usage: salloc"'
# scontrol show step: the running steps, the batch one too, with where srun
# runs (tools check SrunHost:Pid against ps)
js=$(sbatch --parsable -N2 -n3 -c2 -o /dev/null --wrap 'srun -n3 -c2 -J work sh -c "echo \$PPID >'"$T"'/srunpid.\$SLURM_PROCID; sleep 10"')
wait_until 20 test -s "$T/srunpid.0"
scontrol show step "$js.0" >step.out
scontrol -o show step "$js" >steps.out
check "scontrol show step J.0: Slurm's lines (id, state, nodes, CPUs, tasks, name, TRES)" \
	sh -c "grep -q '^StepId=$js.0 UserId=[0-9]* StartTime=[0-9T:-]* TimeLimit=UNLIMITED\$' step.out &&
	       grep -q '^   State=RUNNING Partition=[a-z]* NodeList=mi\[1-2\]\$' step.out &&
	       grep -q '^   Nodes=2 CPUs=6 Tasks=3 Name=work Network=(null)\$' step.out &&
	       grep -q '^   TRES=cpu=6,node=2\$' step.out && grep -q '^   CPUFreqReq=Default Dist=Block\$' step.out"
srun_named() { # step.out's SrunHost:Pid is this host and a running srun
	local hp
	hp=$(sed -n 's/^   SrunHost:Pid=//p' step.out)
	[ "${hp%%:*}" = "$(hostname)" ] && [ "$(ps -o comm= -p "${hp##*:}")" = srun ]
}
check "... SrunHost:Pid names srun's host and process (an srun that is running)" srun_named
check "scontrol -o show step J: the batch step and step 0, a line each" \
	sh -c "[ \"\$(grep -c '^StepId=' steps.out)\" = 2 ] && grep -q '^StepId=$js.batch .* Name=batch ' steps.out"
check "a step that is not there: Slurm's words" sh -c "scontrol show step $js.9 | grep -qx 'Job step $js.9 not found'"
scancel "$js"
jw=$(sbatch --parsable -o /dev/null --begin=now+2 --wrap 'sleep 5')
check "scontrol wait_job: returns (0) once the pending job runs" \
	sh -c "timeout 20 scontrol wait_job $jw && squeue -h -j $jw -o %T | grep -qx RUNNING"
scancel "$jw"
yaml_same() { # --yaml: the --json document as YAML (PyYAML reads the same jobs and nodes)
	python3 - <<'PY'
import json, subprocess, yaml
for cmd, key in (("squeue", "jobs"), ("sinfo", "nodes"), ("sacct", "jobs")):
    j = json.loads(subprocess.check_output([cmd, "--json"]))
    y = yaml.safe_load(subprocess.check_output([cmd, "--yaml"]))
    ids = lambda d: sorted(json.dumps(x.get("job_id", x.get("name")), sort_keys=True) for x in d[key])
    assert ids(j) == ids(y) and set(j) == set(y), cmd
PY
}
check "squeue, sinfo, sacct --yaml: the --json documents as YAML" yaml_same
ended_said() { ! scontrol wait_job "$jw" 2>wait.err && grep -q "job $jw is CANCELLED: it will not run" wait.err; }
check "... and 1, saying so, for a job that ended" wait_until 10 ended_said
finish
