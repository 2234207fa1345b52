#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A job opens only its own GPUs on cgroup v2 too: v2 has no devices
# controller, so the agent attaches a BPF device program (libbpf) to the
# job's cgroup. Run on this host's real cgroup2 hierarchy (a hybrid host's
# /sys/fs/cgroup/unified, which holds no controllers, serves: a device
# program needs none), with the agent pointed at it (--cgroup-root). The
# GPUs are simulated as in t0027: character devices made here with a major
# number no driver holds, so an open that the fence lets through fails with
# ENXIO and one it stops with EPERM. Needs root, mknod, python3, a cgroup2
# mount and a kernel that loads the program; skipped without.
. "$(dirname "$0")/lib.sh"
needs_root mknod python3
cd "$T"
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -z "$cg2" ]; then
	echo "cases: 0 passed, 0 failed (no cgroup2 hierarchy mounted here)"
	finish
	exit 0
fi
write_conf 1 gpu:mi300x:4
major=$(awk '/^Character/ {c=1; next} /^Block/ {c=0} c {print $1}' /proc/devices |
	sort -n | awk 'BEGIN {m=240} $1==m {m++} END {print m}')
mkdir -p dev
for i in 0 1 2 3; do mknod "dev/gpu$i" c "$major" "$i" && chmod 666 "dev/gpu$i"; done
{ echo "type mi300x"; echo "count 4"; for i in 0 1 2 3; do echo "device $i $T/dev/gpu$i"; done; } >gpus.txt
"$BUILD/src/agent/spurd" -C -N mi1 --gpus "$T/gpus.txt" --cgroup-root "$cg2" >probe.txt 2>&1
if ! grep -q '^# cgroup: v2 .*devices(bpf)' probe.txt; then
	echo "cases: 0 passed, 0 failed (no BPF device program here: $(grep '^# cgroup' probe.txt))"
	finish
	exit 0
fi
cgroups_gone
"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N mi1 --gpus "$T/gpus.txt" --cgroup-root "$cg2" \
	-L "$T/d1.log" 2>>"$T/d1.err" &
echo $! >>"$T/agents.pid"
start_ctld
check "the node registers with its 4 GPUs" wait_until 20 nodes_idle 1
cat >probe.py <<'PY'
import errno, os, sys
for i in range(4):
    try:
        os.close(os.open(sys.argv[1] + "/gpu%d" % i, os.O_RDONLY))
        print("gpu%d open" % i)
    except OSError as e:
        print("gpu%d %s" % (i, errno.errorcode[e.errno]))
PY
sbatch --wait --gpus=1 -o job.out --wrap \
	"echo visible \$CUDA_VISIBLE_DEVICES; cat /proc/self/cgroup; python3 $T/probe.py $T/dev; srun -n1 python3 $T/probe.py $T/dev" >/dev/null
mine=$(awk '/^visible/ {print $2}' job.out)
check "the job runs in its cgroup v2 folder" grep -q "^0::.*/$SPURD_CGROUP_NAME/mi1/job_" job.out
check "the job got one GPU" sh -c "[ -n '$mine' ] && [ \$(echo '$mine' | tr ',' ' ' | wc -w) = 1 ]"
check "its own GPU passes the fence (ENXIO: no driver behind it)" \
	sh -c "[ \$(grep -c '^gpu$mine ENXIO' job.out) = 2 ]"
check "the three others are denied (EPERM), to the script and to srun's task" \
	sh -c "[ \$(grep -c ' EPERM\$' job.out) = 6 ]"
sbatch --wait --gpus=4 -o all.out --wrap "python3 $T/probe.py $T/dev" >/dev/null
check "a job given every GPU opens them all" sh -c "[ \$(grep -c ' ENXIO\$' all.out) = 4 ]"
sbatch --wait -o none.out --wrap "python3 $T/probe.py $T/dev; cat /dev/null && echo null ok" >/dev/null
check "a job given none is denied all four, and other devices still open" \
	sh -c "[ \$(grep -c ' EPERM\$' none.out) = 4 ] && grep -qx 'null ok' none.out"
check "the jobs' cgroups are gone" sh -c "! ls -d '$cg2/$SPURD_CGROUP_NAME'/mi1/job_* 2>/dev/null"
# a step given fewer GPUs than its job opens only its own (a devices
# folder of its own, under the job's), as Slurm's per-step cgroup
cat >step.sh <<SH
#!/bin/sh
echo "visible \$CUDA_VISIBLE_DEVICES"
python3 $T/probe.py $T/dev | sed 's/^/job /'
srun -n1 --gpus=1 sh -c 'echo "stepgpu \$CUDA_VISIBLE_DEVICES"; python3 $T/probe.py $T/dev | sed "s/^/step /"'
SH
sbatch --wait --gpus=2 -o step.out step.sh >/dev/null
sg=$(awk '/^stepgpu/ {print $2}' step.out)
check "the job opens its two GPUs" sh -c "[ \$(grep -c '^job gpu[0-3] ENXIO\$' step.out) = 2 ]"
check "its one-GPU step opens only its own, the other three denied" \
	sh -c "[ -n '$sg' ] && grep -qx 'step gpu$sg ENXIO' step.out && [ \$(grep -c '^step gpu[0-3] EPERM\$' step.out) = 3 ]"
check "no step folder is left behind" sh -c "! find /sys/fs/cgroup -path '*/$SPURD_CGROUP_NAME/*' -name 'step_*' 2>/dev/null | grep -q ."
finish
