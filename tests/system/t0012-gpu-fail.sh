#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A GPU that fails mid-job (the fake backend's description file gains a
# "failed" line, as KFD loses a topology node or NVML reports GPU_IS_LOST):
# the agent's health check tells the controller, the node drains with the
# reason, the job is killed there and requeued onto a healthy node, where it
# runs to the end; a --no-requeue job ends NODE_FAIL. The drain survives a
# controller kill -9 and an agent restart.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
for i in 1 2; do
	printf 'type mi300x\ncount 8\n' >"gpus$i.txt"
	"$BUILD/src/agent/spurd" -f slurm.conf -N "mi$i" --gpus "$T/gpus$i.txt" -L "d$i.log" \
		2>>"d$i.err" &
	echo $! >>agents.pid
done
check "2 nodes register" wait_until 20 nodes_idle 2
node_of() { squeue -h -j "$1" -o %N; }
cat >job.sh <<'SH'
#!/bin/bash
#SBATCH -J gpujob --gres=gpu:mi300x:8 -o job-%j-%N.out
echo "start on $SLURM_JOB_NODELIST gpus $ROCR_VISIBLE_DEVICES"
for i in $(seq 1 ${STEPS:-40}); do sleep 0.1; done
echo end
SH
id=$(sbatch --parsable job.sh)
check "the job runs on mi1" wait_until 10 sh -c "[ \"\$(squeue -h -j $id -o %N)\" = mi1 ]"
check "... its output started" wait_until 10 grep -q '^start on mi1' "job-$id-mi1.out"
echo "failed 3 Xid 79: GPU has fallen off the bus" >>gpus1.txt
check "the node drains" wait_until 10 sh -c "sinfo -h -N -o '%N %t' | grep -q '^mi1 drain'"
check "scontrol show node gives the reason" \
	sh -c "scontrol show node mi1 | grep -q '^   Reason=GPU 3: Xid 79: GPU has fallen off the bus \[root@'"
check "the job is requeued onto mi2" wait_until 15 sh -c "[ \"\$(squeue -h -j $id -o %N)\" = mi2 ]"
check "... and runs there" wait_until 10 grep -q '^start on mi2' "job-$id-mi2.out"
check "the job completes" wait_until 30 sh -c "sacct -n -X -P -o State -j $id | grep -qx COMPLETED"
check "... it ran to the end on mi2" grep -qx end "job-$id-mi2.out"
check "... and was killed on mi1" sh -c "! grep -q end job-$id-mi1.out"
check "the controller logged it" grep -q "job $id: GPU 3 of mi1 failed; requeued" ctld.log
check "nothing new goes to the drained node" sh -c "
	j=\$(sbatch --parsable --wait -o /dev/null --gres=gpu:mi300x:8 --wrap true) &&
	sacct -n -X -P -o NodeList -j \$j | grep -qx mi2"

nr=$(sbatch --parsable --no-requeue job.sh)
check "a --no-requeue job runs on mi2" wait_until 10 sh -c "[ \"\$(squeue -h -j $nr -o %N)\" = mi2 ]"
echo "failed 0 lost" >>gpus2.txt
check "... ends NODE_FAIL when its GPU fails" \
	wait_until 15 sh -c "sacct -n -X -P -o State -j $nr | grep -qx NODE_FAIL"
check "... both nodes are drained" wait_until 10 sh -c "[ \$(sinfo -h -N -o %t | grep -c drain) -eq 2 ]"
pend=$(sbatch --parsable -o /dev/null --gres=gpu:mi300x:1 --wrap true)

kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller answers after kill -9" wait_until 20 squeue
check "the agents register again" wait_until 20 sh -c "[ \$(grep -c 'node mi1 registered' ctld.log) -ge 2 ]"
check "the nodes stay drained (the agents report their failed GPUs)" \
	wait_until 10 sh -c "[ \$(sinfo -h -N -o %t | grep -c drain) -eq 2 ]"
check "... with the reason" sh -c "scontrol show node mi2 | grep -q '^   Reason=GPU 0: lost \[root@'"
check "the pending job waits" [ "$(squeue -h -j "$pend" -o %T)" = PENDING ]
check "the requeued job ran once to the end" sh -c "sacct -n -X -P -o State -j $id | grep -qx COMPLETED"
check "draining needs a reason" sh -c "! scontrol update NodeName=mi1 State=DRAIN 2>err"
check "... as Slurm says" grep -q "You must specify a reason when DOWNING or DRAINING a node" err
check "an unknown node is refused" sh -c "! scontrol update NodeName=nope State=RESUME 2>err && grep -q 'Invalid node name specified' err"
check "a bad state is refused" sh -c "! scontrol update NodeName=mi1 State=SLEEPY 2>err && grep -q 'Invalid node state specified' err"
check "scontrol update State=RESUME returns mi2 to service" scontrol update NodeName=mi2 State=RESUME
check "... the pending job runs there" \
	wait_until 15 sh -c "sacct -n -X -P -o State,NodeList -j $pend | grep -qx 'COMPLETED|mi2'"
check "... and the reason is gone" sh -c "! scontrol show node mi2 | grep -q Reason="
check "an administrator's drain" scontrol update NodeName=mi2 State=DRAIN Reason=maintenance
check "... shows its reason" sh -c "scontrol show node mi2 | grep -q '^   Reason=maintenance \[root@'"
check "... and keeps new work off" sh -c "j=\$(sbatch --parsable -o /dev/null --gres=gpu:mi300x:1 --wrap true) && sleep 1 && squeue -h -j \$j -o %T | grep -qx PENDING"
check "sinfo -R lists the drained nodes and why" sh -c "sinfo -R | grep -qE '^maintenance +root +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} mi2\$'"
check "... with the GPU failure of mi1" sh -c "sinfo -R -h | grep -q '^GPU 3: Xid 79: GPU h root'"
check "sinfo -o %E gives the reason" sh -c "sinfo -h -N -o '%N %E' | grep -qx 'mi2 maintenance'"
finish
