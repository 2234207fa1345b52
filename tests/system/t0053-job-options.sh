#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sbatch's options of administrators and of placement, as Slurm's users
# give them: --tmp (nodes with that TmpDisk), --priority and scontrol
# update Priority= (an administrator's), --uid/--gid (root's: the job runs
# as that user), -F/--nodefile, --export-file (NUL-separated entries),
# --gres-flags (disable-binding taken, enforce-binding refused by name),
# -s/--oversubscribe against the partition's OverSubscribe (EXCLUSIVE:
# whole nodes; YES:N: -s jobs share CPUs N ways; FORCE:N: every job's),
# --mincpus and --ntasks-per-gpu;
# --deadline (DEADLINE) and --time-min (the limit cut down to meet it);
# the submitter's soft limits (PropagateResourceLimits, --propagate, srun's);
# licenses (Licenses=, -L, reason Licenses, scontrol show licenses), byte-
# compared with a capture from real Slurm 22.05
# (tests/compat/golden/slurm-licenses.txt); --mail-type/--mail-user
# through MailProg, its arguments and variables compared with real
# Slurm's (tests/compat/golden/slurm-mail.txt, times and ids masked).
# GPUs are simulated (the agent's list). Needs root and useradd.
. "$(dirname "$0")/lib.sh"
MAILGOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-mail.txt"
GOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-licenses.txt"
needs_root runuser useradd
cd "$T"
conf_head systest >"$T/slurm.conf"
cat >>"$T/slurm.conf" <<CONF
KillWait=2
NodeName=mi1 CPUs=8 RealMemory=16000 Gres=gpu:mi300x:8
NodeName=mi2 CPUs=8 RealMemory=16000 TmpDisk=200 Gres=gpu:mi300x:8
NodeName=mi3 CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=16000
PartitionName=gpu Nodes=mi[1-2] Default=YES MaxTime=1-00:00:00
PartitionName=whole Nodes=mi[1-2] OverSubscribe=EXCLUSIVE
PartitionName=share Nodes=mi1 OverSubscribe=YES:2
PartitionName=force Nodes=mi2 OverSubscribe=FORCE:2
PartitionName=ht Nodes=mi3
Licenses=matlab:3,fluent:1
MailProg=$T/mailprog
CONF
# MailProg: what it is given, as the capture from real Slurm recorded it
cat >"$T/mailprog" <<'MAIL'
#!/bin/sh
{ echo "ARGS:"; for a in "$@"; do echo "[$a]"; done; echo "ENV:"; env | grep -E '^SLURM' | sort; echo "STDIN:"; cat; echo "END"; } >>"${0%/*}/mail.out"
MAIL
chmod 755 "$T/mailprog"
id spurtest >/dev/null 2>&1 || useradd -M -s /bin/sh spurtest
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2

# --hint: what it asks is what Spur does on one-thread cores (taken); on
# nodes with ThreadsPerCore>1 it is refused by name; memory_bound is refused
check "--hint=nomultithread on one-thread cores: taken, the job runs" \
	sh -c "sbatch --wait --hint=nomultithread -o /dev/null --wrap true >/dev/null"
check "--hint=compute_bound with srun outside a job" sh -c "srun --hint=compute_bound true"
check "--hint where a node has ThreadsPerCore=2: refused by name, exit 1" \
	sh -c "! sbatch -p ht --hint=nomultithread --wrap true 2>h.err && grep -q 'ThreadsPerCore>1 (mi3) is not supported by Spur' h.err"
check "srun --hint inside a job: taken on one-thread cores" \
	sh -c "sbatch --wait -o hs.out --wrap 'srun --hint=nomultithread echo in-step' >/dev/null && grep -qx in-step hs.out"
check "--hint=memory_bound: not supported" \
	sh -c "! sbatch --hint=memory_bound --wrap true 2>h.err && grep -qx 'sbatch: error: --hint=memory_bound is not supported by Spur' h.err"
check "--hint=bogus: Slurm's words" \
	sh -c "! sbatch --hint=bogus --wrap true 2>h.err && grep -qx 'sbatch: error: unrecognized --hint argument \"bogus\", see --hint=help' h.err"
chmod 777 "$T"
as_user() { runuser -u spurtest -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }
# fails_with TEXT CMD...: CMD exits non-zero saying TEXT
fails_with() { local t=$1; shift; ! "$@" >"$T/fw.out" 2>&1 && grep -q "$t" "$T/fw.out"; }
field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

j=$(sbatch --parsable --wait --tmp=100 -o /dev/null --wrap true)
check "--tmp=100: the job goes to the node with TmpDisk=200" sh -c "[ '$(field "$j" NodeList)' = mi2 ]"
check "... and scontrol shows MinTmpDiskNode=100" sh -c "[ '$(field "$j" MinTmpDiskNode)' = 100 ]"
sbatch --tmp=1000 --wrap true 2>tmp.err; echo "rc=$?" >>tmp.err
check "--tmp=1000: no node has it, refused in real Slurm's two lines" \
	sh -c "printf '%s\n' 'sbatch: error: Temporary disk specification can not be satisfied' 'sbatch: error: Batch job submission failed: Requested node configuration is not available' rc=1 | cmp -s - tmp.err"
srun --mincpus=999999 true 2>mc.err; echo "rc=$?" >>mc.err
check "srun --mincpus=999999: Slurm's 'CPU count per node can not be satisfied' first" \
	sh -c "printf '%s\n' 'srun: error: CPU count per node can not be satisfied' 'srun: error: Unable to allocate resources: Requested node configuration is not available' rc=1 | cmp -s - mc.err"
j=$(sbatch --parsable --begin=now+3600 --priority=12345 --wrap true)
check "--priority=12345 (root): Priority=12345" sh -c "[ '$(field "$j" Priority)' = 12345 ]"
scontrol update JobId="$j" Priority=777
jb=$(sbatch --parsable --begin=2099-01-02T12:00:00 -t 10 -o /dev/null --wrap true)
check "a job waiting for its --begin: StartTime that time, EndTime plus its limit (as Slurm's)" \
	sh -c "scontrol show job $jb | grep -q ' StartTime=2099-01-02T12:00:00 EndTime=2099-01-02T12:10:00 ' &&
	       [ \"\$(squeue -h -j $jb -o '%S %e')\" = '2099-01-02T12:00:00 2099-01-02T12:10:00' ]"
scancel "$jb"
check "scontrol update Priority=777 (root)" sh -c "[ '$(field "$j" Priority)' = 777 ]"
scancel "$j"
check "--priority by a user: refused" \
	sh -c "! runuser -u spurtest -- env SLURM_CONF=$SLURM_CONF PATH=$PATH sbatch --priority=5 --wrap true 2>$T/prio.err &&
		grep -q 'Access/permission denied' $T/prio.err"
j=$(as_user sbatch --parsable --hold --wrap true)
check "scontrol update Priority= by a user: refused" \
	sh -c "! runuser -u spurtest -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol update JobId=$j Priority=99999"
scancel "$j"
j=$(sbatch --parsable --wait --uid=spurtest -o "$T/uid.out" --wrap 'id -un')
check "--uid=spurtest (root): the job runs as spurtest" \
	sh -c "grep -qx spurtest '$T/uid.out' && scontrol show job $j | grep -q 'UserId=spurtest('"
check "--uid by a user: refused" \
	sh -c "as_user() { :; }; ! runuser -u spurtest -- env SLURM_CONF=$SLURM_CONF PATH=$PATH sbatch --uid=root --wrap true 2>$T/uid.err &&
		grep -q 'only permitted by root' $T/uid.err"
# --get-user-env: the user's login variables (su - USER) under the job's own
sbatch --wait --uid=spurtest --get-user-env --export=NONE,KEEP=mine -o "$T/gue.out" \
	--wrap 'echo "$LOGNAME|$KEEP|$HOME"' >/dev/null
check "--get-user-env: the user's login environment (LOGNAME), the job's own kept" \
	grep -qx 'spurtest|mine|.*' "$T/gue.out"
check "salloc --get-user-env: refused by name" fails_with 'get-user-env is not supported' salloc --get-user-env true
echo mi2 >"$T/nodes.txt"
j=$(sbatch --parsable --wait -F "$T/nodes.txt" -o /dev/null --wrap true)
check "-F FILE: the job runs on the file's node" sh -c "[ '$(field "$j" NodeList)' = mi2 ]"
printf 'FOO=bar\0MULTI=a b\nc\0' >"$T/env.bin"
sbatch --wait --export-file="$T/env.bin" -o "$T/ef.out" --wrap 'echo "$FOO|$MULTI"' >/dev/null
check "--export-file: NUL-separated entries reach the job" \
	sh -c "[ \"\$(cat '$T/ef.out')\" = \"\$(printf 'bar|a b\nc')\" ]"
check "--gres-flags=enforce-binding: refused by name" \
	fails_with 'enforce-binding is not supported' sbatch --gres-flags=enforce-binding --wrap true
j=$(sbatch --parsable --hold --gres-flags=disable-binding --wrap true)
check "--gres-flags=disable-binding is taken" test -n "$j"
scancel "$j"
j=$(sbatch --parsable --wait -p whole -n1 -o /dev/null --wrap true)
check "OverSubscribe=EXCLUSIVE: a 1-task job holds the whole node" sh -c "[ '$(field "$j" NumCPUs)' = 8 ]"
# OverSubscribe=YES:2: two -s jobs of all 8 CPUs of mi1 run on them
# together; a third waits, as does one without -s; FORCE:2 shares all
s1=$(sbatch --parsable -s -p share -n8 -t5 -o /dev/null --wrap 'sleep 60')
s2=$(sbatch --parsable -s -p share -n8 -t5 -o /dev/null --wrap 'sleep 60')
s3=$(sbatch --parsable -s -p share -n8 -t5 -o /dev/null --wrap 'sleep 60')
s4=$(sbatch --parsable -p share -n1 -t5 -o /dev/null --wrap 'sleep 60')
check "OverSubscribe=YES:2: two -s jobs share mi1's 8 CPUs" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $s1,$s2 -o '%T %N' | sort -u)\" = 'RUNNING mi1' ]"
check "... a third -s job waits, and a job without -s (whole CPUs)" \
	sh -c "sleep 1; [ \"\$(squeue -h -j $s3,$s4 -o %T | sort -u)\" = PENDING ]"
check "... sinfo counts mi1's CPUs all allocated" sh -c "[ \"\$(sinfo -h -n mi1 -p share -o %C)\" = 8/0/0/8 ]"
scancel "$s1" "$s2" "$s3" "$s4"
f1=$(sbatch --parsable -p force -n8 -t5 -o /dev/null --wrap 'sleep 60')
f2=$(sbatch --parsable -p force -n8 -t5 -o /dev/null --wrap 'sleep 60')
check "OverSubscribe=FORCE:2: two jobs without -s share mi2's CPUs" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $f1,$f2 -o '%T %N' | sort -u)\" = 'RUNNING mi2' ]"
scancel "$f1" "$f2"
j=$(sbatch --parsable --wait -s -n1 -o /dev/null --wrap true)
check "-s in an OverSubscribe=NO partition: runs (it changes nothing there, as in Slurm)" \
	sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = COMPLETED ]"
j=$(sbatch --parsable --wait --mincpus=6 -o /dev/null --wrap true)
check "--mincpus=6: the job holds 6 CPUs" \
	sh -c "[ '$(field "$j" NumCPUs)' = 6 ] && [ '$(field "$j" MinCPUsNode)' = 6 ]"
j=$(sbatch --parsable --wait --gpus=2 --ntasks-per-gpu=2 -o "$T/tpg.out" --wrap 'echo $SLURM_NTASKS $SLURM_NTASKS_PER_GPU')
check "--ntasks-per-gpu=2 --gpus=2: 4 tasks" sh -c "grep -qx '4 2' '$T/tpg.out'"
check "srun's SLURM_NTASKS_PER_GPU input variable, as --ntasks-per-gpu" \
	sh -c "[ \"\$(SLURM_NTASKS_PER_GPU=2 srun -N1 --gpus=2 -l printenv CUDA_VISIBLE_DEVICES | sort | tr '\n' ' ')\" = '0: 0 1: 0 2: 1 3: 1 ' ]"
for o in "--gpus=2" "-n4" "--gres=gpu:2" "--gpus-per-node=2"; do
	check "srun -N1 $o --ntasks-per-gpu=2: 4 tasks, two on each GPU (Slurm's implied --gpu-bind=single:2), the variable once" \
		sh -c "[ \"\$(srun -N1 $o --ntasks-per-gpu=2 -l printenv CUDA_VISIBLE_DEVICES | sort | tr '\n' ' ')\" = '0: 0 1: 0 2: 1 3: 1 ' ]"
done

# --- --deadline and --time-min (real Slurm 22.05 does the same; its words)
j=$(sbatch --parsable --deadline=now+300 -t 10 -o /dev/null --wrap true)
check "--deadline it cannot meet: DEADLINE, Reason=DeadLine" \
	wait_until 10 sh -c "scontrol show job $j | grep -q 'JobState=DEADLINE Reason=DeadLine'"
check "... sacct says DEADLINE" sh -c "[ \"\$(sacct -n -X -P -j $j -o State)\" = DEADLINE ]"
j=$(sbatch --parsable --deadline=now+600 --time-min=2 -t 60 -o /dev/null --wrap 'sleep 300')
check "--deadline with --time-min: runs with its limit cut to end by then (whole minutes)" \
	wait_until 10 sh -c "scontrol show job $j | grep -Eq 'JobState=RUNNING' &&
		scontrol show job $j | grep -Eq 'TimeLimit=00:(09|10):00 TimeMin=00:02:00'"
check "... and Deadline= shown" sh -c "scontrol show job $j | grep -q 'Deadline=20'"
scancel "$j"
check "--time-min above -t: refused in Slurm's words" \
	fails_with "Invalid time-min specification (exceeds job's time or other limits)" \
	sbatch --time-min=20 -t 10 --wrap true
check "--time-min beyond --deadline: refused in Slurm's words" \
	fails_with "Invalid time-min specification (exceeds job's time or other limits)" \
	sbatch --deadline=now+3600 --time-min=120 --wrap true
check "--begin after --deadline: Slurm's words, exit 1" \
	fails_with '^sbatch: error: Incompatible begin and deadline time specification$' \
	sbatch --begin=now+7200 --deadline=now+3600 --wrap true
check "--deadline in the past: refused in Slurm's words" \
	fails_with 'Requested time limit is invalid (missing or exceeds some limit)' \
	sbatch --deadline=2020-01-01 --wrap true

# --- the submitter's limits (PropagateResourceLimits=ALL, Slurm's default; --propagate)
(ulimit -S -n 300; sbatch --wait -o "$T/rl1.out" --wrap 'ulimit -Sn' >/dev/null)
check "sbatch's soft NOFILE (300) is the job's" grep -qx 300 "$T/rl1.out"
(ulimit -S -n 300; sbatch --wait --propagate=NONE -o "$T/rl2.out" --wrap 'ulimit -Sn' >/dev/null)
check "--propagate=NONE: the node's own" sh -c "! grep -qx 300 '$T/rl2.out' && [ -s '$T/rl2.out' ]"
(ulimit -S -n 300; ulimit -S -s 4096; sbatch --wait --propagate=STACK -o "$T/rl3.out" \
	--wrap 'echo $(ulimit -Ss) $(ulimit -Sn)' >/dev/null)
check "--propagate=STACK: that one alone" sh -c "grep -q '^4096 ' '$T/rl3.out' && ! grep -q ' 300\$' '$T/rl3.out'"
sbatch --wait -o "$T/rl4.out" --wrap 'ulimit -S -n 200; srun -n1 sh -c "ulimit -Sn"' >/dev/null
check "srun's own limits reach its tasks" grep -qx 200 "$T/rl4.out"
check "--propagate=BOGUS: refused" fails_with 'Invalid --propagate specification: BOGUS' \
	sbatch --propagate=BOGUS --wrap true

# --- scontrol update of a pending job's Gres, and of a partition's Nodes
j=$(sbatch --parsable --hold --gres=gpu:2 -o "$T/gres.out" --wrap 'echo $CUDA_VISIBLE_DEVICES')
check "scontrol update Gres=gpu:4 of a pending job" scontrol update JobId="$j" Gres=gpu:4
check "... scontrol show job says TresPerNode=gres/gpu:4" sh -c "scontrol show job $j | grep -q 'TresPerNode=gres/gpu:4'"
check "... Gres=gpu:99 (no node has them): refused, nothing changed" \
	sh -c "! scontrol update JobId=$j Gres=gpu:99 2>/dev/null && scontrol show job $j | grep -q 'TresPerNode=gres/gpu:4'"
scontrol release "$j"
check "... it runs with 4 GPUs" wait_until 10 sh -c "grep -qx '0,1,2,3' '$T/gres.out'"
check "scontrol update PartitionName=whole Nodes=mi2" scontrol update PartitionName=whole Nodes=mi2
check "... scontrol show partition whole: Nodes=mi2" sh -c "scontrol show partition whole | grep -q ' Nodes=mi2\$\|^   Nodes=mi2\$'"
j=$(sbatch --parsable --wait -p whole -o /dev/null --wrap true)
check "... its jobs run on mi2" sh -c "[ '$(field "$j" NodeList)' = mi2 ]"
check "... Nodes=nosuch: refused" sh -c "! scontrol update PartitionName=whole Nodes=nosuch 2>/dev/null"
scontrol update PartitionName=whole Nodes=ALL

# --- node counts: more than the partition has waits (PartitionNodeLimit, as
# Slurm with EnforcePartLimits=NO); Slurm's k suffix; an absurd count refused
j=$(sbatch --parsable -N 3 -o /dev/null --wrap true)
check "-N 3 on a 2-node partition: pending, PartitionNodeLimit" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $j -o '%t %r')\" = 'PD PartitionNodeLimit' ]"
scancel "$j"
check "-N1000000k: Slurm's words" fails_with 'More processors requested than permitted' \
	sbatch -N1000000k --wrap true
check "scontrol show config: EnforcePartLimits = NO (what Spur does)" \
	sh -c "scontrol show config | grep -q '^EnforcePartLimits *= NO\$'"

# --- --test-only (real Slurm's words: sbatch and srun say when and where, submit nothing)
before=$(squeue -h -t all -o %i | wc -l)
sbatch --test-only -n2 --wrap true 2>to.err
check "sbatch --test-only: 'Job N to start at T using 2 processors on nodes mi1 in partition gpu'" \
	grep -Eq '^sbatch: Job [0-9]+ to start at 20[0-9-]+T[0-9:]+ using 2 processors on nodes mi[12] in partition gpu$' to.err
check "... and nothing was submitted" sh -c "[ \$(squeue -h -t all -o %i | wc -l) = $before ]"
srun --test-only -N2 -n2 true 2>to.err
check "srun --test-only -N2: nodes mi[1-2]" \
	grep -Eq '^srun: Job [0-9]+ to start at .* using 2 processors on nodes mi\[1-2\] in partition gpu$' to.err
sbatch --test-only -p nosuch --wrap true 2>to.err; echo "rc=$?" >>to.err
check "--test-only in an unknown partition: Slurm's two lines, exit 1" \
	sh -c "printf '%s\n' 'sbatch: error: invalid partition specified: nosuch' 'allocation failure: Invalid partition name specified' rc=1 | cmp -s - to.err"
sbatch --test-only --gres=gpu:9 --wrap true 2>to.err; echo "rc=$?" >>to.err
check "--test-only for what no node has: Slurm's words" \
	sh -c "printf '%s\n' 'allocation failure: Requested node configuration is not available' rc=1 | cmp -s - to.err"

# --- mail
# each mail as one line: its arguments (times and ids masked), then the
# names of its SLURM_* variables
mails() {
	awk '/^ARGS:/ { m = "args"; a = ""; e = ""; next } /^ENV:/ { m = "env"; next }
	     /^STDIN:/ { m = "in"; next }
	     /^END$/ { print a " ENV" e; m = ""; next }
	     m == "args" { a = a " " $0 } m == "env" { sub(/=.*/, ""); e = e " " $0 }' "$1" |
		sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/T/g; s/Job_id=[0-9]+/Job_id=N/g'
}
sbatch --wait --mail-type=ALL --mail-user=alice@example.org -J mj -o /dev/null --wrap 'sleep 1; exit 3' >/dev/null
check "--mail-type=ALL, a failing job: two mails (Began, Failed)" \
	wait_until 10 sh -c "[ \$(grep -c '^END' '$T/mail.out') = 2 ]"
sbatch --wait --mail-type=BEGIN,END -o /dev/null --wrap true >/dev/null
check "--mail-type=BEGIN,END: two more (Began, Ended)" \
	wait_until 10 sh -c "[ \$(grep -c '^END' '$T/mail.out') = 4 ]"
sbatch --wait --mail-type=NONE -o /dev/null --wrap true >/dev/null
mails "$MAILGOLD" >mail.gold
mails "$T/mail.out" >mail.ours
check "MailProg's arguments and variables: as real Slurm's" cmp -s mail.gold mail.ours
check "--mail-type=NONE: none" sh -c "[ \$(grep -c '^END' '$T/mail.out') = 4 ]"
# the time-limit mails, at 50% and 100% of a 4-second limit (the protocol
# takes seconds; sbatch's -t whole minutes), with Slurm's subjects
tl=$(raw "{\"type\":\"submit\",\"job\":{\"script\":\"#!/bin/sh\\nsleep 30\\n\",\"time_limit\":4,\"workdir\":\"$T\",\"output\":\"/dev/null\",\"name\":\"tlm\",\"user\":\"root\",\"mail_type\":\"TIME_LIMIT_50,TIME_LIMIT\"}}" | awk '{print $1}')
check "--mail-type=TIME_LIMIT_50,TIME_LIMIT: 'Reached 50% of time limit, Run time ...' then 'Reached time limit'" \
	wait_until 20 sh -c "grep -qE '^\[Slurm Job_id=$tl Name=tlm Reached 50% of time limit, Run time 00:00:0[0-9]\]\$' '$T/mail.out' &&
		grep -qE '^\[Slurm Job_id=$tl Name=tlm Reached time limit, Run time 00:00:0[0-9]\]\$' '$T/mail.out'"
check "... each once, with SLURM_JOB_MAIL_TYPE and SLURM_JOB_RUN_TIME" \
	sh -c "[ \$(grep -c 'Job_id=$tl Name=tlm Reached' '$T/mail.out') = 2 ] && grep -qx 'SLURM_JOB_MAIL_TYPE=Reached 50% of time limit' '$T/mail.out' && grep -q '^SLURM_JOB_RUN_TIME=' '$T/mail.out'"
check "sbatch --mail-type=TIME_LIMIT_80 is taken; scontrol shows Slurm's MailType" \
	sh -c "j=\$(sbatch --parsable -H --mail-type=END,TIME_LIMIT_80 -o /dev/null --wrap true) &&
	       scontrol show job \$j | grep -qx '   MailUser=root MailType=END,TIME_LIMIT_80' && scancel \$j"
check "--mail-type=STAGE_OUT: refused by name" \
	fails_with 'STAGE_OUT is not supported' sbatch --mail-type=STAGE_OUT --wrap true
j=$(sbatch --parsable --hold --mail-type=ALL -o /dev/null --wrap true)
check "scontrol show job: MailUser/MailType as Slurm's" \
	sh -c "scontrol show job $j | grep -qx '   MailUser=root MailType=INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT'"
scancel "$j"

# --- licenses
gold() { awk -v h="== $1" '$0 ~ /^== / { on = index($0, h) == 1; next } on' "$GOLD"; }
scontrol show licenses >lic.idle
gold "scontrol show licenses (idle)" >lic.gold
check "scontrol show licenses (idle): as real Slurm's" cmp -s lic.gold lic.idle
gold "scontrol -o show licenses (idle)" >lic.gold
scontrol -o show licenses >lic.out
check "scontrol -o show licenses: as real Slurm's" cmp -s lic.gold lic.out
a=$(sbatch --parsable -L matlab:2,fluent -o /dev/null --wrap 'sleep 300')
b=$(sbatch --parsable -L matlab:2 -o /dev/null --wrap 'sleep 300')
check "a job holding its licenses runs" wait_until 10 sh -c "squeue -h -j $a -o %t | grep -qx R"
check "one whose licenses are taken waits with reason Licenses (as real Slurm's squeue)" \
	wait_until 10 sh -c "[ \"\$(squeue -h -o '%t %r %W' -j $b)\" = 'PD Licenses matlab:2' ]"
gold "scontrol show licenses (a: -L matlab:2,fluent running; b: -L matlab:2 pending)" >lic.gold
scontrol show licenses >lic.out
check "scontrol show licenses counts what running jobs hold (as real Slurm's)" cmp -s lic.gold lic.out
gold "scontrol show job a | grep Licenses" >lic.gold
scontrol show job "$a" | grep Licenses= >lic.out
check "scontrol show job: the Licenses= line as real Slurm's" cmp -s lic.gold lic.out
c=$(sbatch --parsable -L fluent:0 -o /dev/null --wrap 'sleep 300')
check "a job behind it with free licenses runs (nothing blocked by the wait)" \
	wait_until 10 sh -c "squeue -h -j $c -o %t | grep -qx R"
scancel "$a" "$c"
check "when they are given back, it runs" wait_until 10 sh -c "squeue -h -j $b -o %t | grep -qx R"
scancel "$b"
sbatch -L ansys --wrap true >lic.out 2>&1; echo "rc=$?" >>lic.out
gold "sbatch -L ansys --wrap true (stderr, rc)" >lic.gold
check "-L of an unknown license: real Slurm's message and exit code" cmp -s lic.gold lic.out
FOO7=5 sbatch --wait -o "$T/exp7.out" --export=FOO7=123 --wrap "env; $BUILD/src/cli/srun printenv FOO7" >/dev/null # no PATH: srun by its path
check "sbatch --export=FOO7=123: the job has SLURM_EXPORT_ENV=FOO7=123 (as Slurm's) and its srun FOO7=123" \
	sh -c "grep -qx 'SLURM_EXPORT_ENV=FOO7=123' '$T/exp7.out' && grep -qx 'FOO7=123' '$T/exp7.out' && grep -qx 123 '$T/exp7.out'"
# --contiguous (nodes next to each other: the scheduler's, tests/sim), -s
# and --use-min-nodes as scontrol shows them and as test17.11/17.63 check
j=$(sbatch --parsable --hold --contiguous -N2 --wrap true)
k=$(sbatch --parsable --hold -s --wrap true)
check "scontrol show job: Contiguous=1, OverSubscribe=YES for -s" sh -c "
	scontrol show job $j | grep -q ' Contiguous=1 ' && scontrol show job $k | grep -q 'OverSubscribe=YES Contiguous=0 '"
scontrol release "$j" >/dev/null 2>&1
scancel "$k"
check "a --contiguous job of 2 nodes runs on them" wait_until 15 sh -c "[ \"\$(sacct -n -X -P -j $j -o State,NNodes)\" = 'COMPLETED|2' ]"
sbatch --wait -N1-2 --use-min-nodes -n8 -o umn.out --wrap 'echo nodes=$SLURM_NNODES' >/dev/null
check "-N1-2 --use-min-nodes -n8: one node (test17.63)" grep -qx nodes=1 umn.out
# --exclusive with -c and no -n: as many tasks as the node's CPUs hold
# (8 CPUs, -c2: 4), as Slurm's srun runs them; sbatch's SLURM_TASKS_PER_NODE
check "srun -N1 -c2 --exclusive: 4 tasks on the 8-CPU node (test1.84)" \
	sh -c "[ \$(srun -N1 -c2 --exclusive -l -t1 printenv SLURM_PROCID | wc -l) = 4 ]"
sbatch --wait -N1 -c2 --exclusive -o exf.out --wrap 'env | grep -E "^SLURM_(NTASKS|TASKS_PER_NODE)="' >/dev/null
check "... sbatch's: SLURM_TASKS_PER_NODE=4, no SLURM_NTASKS (as Slurm's)" \
	sh -c "grep -qx SLURM_TASKS_PER_NODE=4 exf.out && ! grep -q ^SLURM_NTASKS= exf.out"
finish
