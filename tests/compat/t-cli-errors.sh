#!/bin/sh
# CLI behaviour on bad input: a clear message on stderr and a non-zero exit.
# Usage: t-cli-errors.sh BUILD-DIR SOURCE-DIR
set -u
b=$1/src/cli
data=$2/tests/data/conf
passed=0 failed=0

# expect EXIT-CODE STDERR-FRAGMENT -- COMMAND...
expect() {
	code=$1 frag=$2
	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$code" ] && { [ -z "$frag" ] || printf "%s" "$err" | grep -qF -- "$frag"; }; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $*: rc=$rc (want $code), stderr: $err (want: $frag)"
	fi
}

expect 1 "scontrol: error: hostlist 'n[1-': unterminated '['" -- "$b/scontrol" show hostlist 'n[1-'
expect 1 "goes backwards" -- "$b/scontrol" show hostnames 'gpu[5-1]'
expect 1 "empty brackets" -- "$b/scontrol" show hostnames 'gpu[]'
expect 1 "show hostlist needs a list" -- "$b/scontrol" show hostlist
# no controller listens on this port
export SPUR_CTLD=127.0.0.1:1
export SPUR_MESSAGE_TIMEOUT=0 # no controller is coming: fail at once
expect 1 "Unable to contact slurm controller (connect failure)" -- "$b/scontrol" show job 1
expect 1 "Unable to contact slurm controller" -- "$b/squeue"
expect 1 "Unable to contact slurm controller" -- "$b/sinfo"
expect 1 "Batch job submission failed" -- "$b/sbatch" --wrap true
expect 1 "not supported yet" -- "$b/scontrol" reboot mi1
expect 1 "requeue needs a job id" -- "$b/scontrol" requeue
expect 1 "Unable to contact slurm controller" -- "$b/salloc" true
expect 1 "Unable to contact slurm controller" -- "$b/srun" true
expect 1 "Unable to contact slurm controller" -- "$b/scontrol" hold 1
expect 1 "hold needs a job id" -- "$b/scontrol" hold
expect 1 "This does not look like a batch script" -- "$b/sbatch" "$data/golden/slurm.conf"
expect 255 "sbatch: error: Invalid --time specification" -- "$b/sbatch" -t soon --wrap true
expect 255 'sbatch: error: "x" is not a valid node count' -- "$b/sbatch" -N x --wrap true
expect 1 "Invalid --mem specification: lots" -- "$b/sbatch" --mem lots --wrap true
expect 255 "unrecognized option" -- "$b/sbatch" --frobnicate --wrap true
expect 1 "No job identification provided" -- "$b/scancel"
expect 1 "Invalid job format specification" -- "$b/squeue" -o "%Y"
expect 1 "show what?" -- "$b/scontrol" show
expect 1 "no hostlist given" -- env -u SLURM_JOB_NODELIST -u SPUR_JOB_NODELIST "$b/scontrol" show hostnames
expect 0 "" -- env SLURM_JOB_NODELIST='n[1-2]' "$b/scontrol" show hostnames
expect 1 "spur: error: unknown command 'frob'" -- "$b/spur" frob
expect 1 "Usage: spur" -- "$b/spur"
expect 0 "" -- "$b/spur" --help
expect 0 "" -- "$b/spur" conf check "$data/golden/slurm.conf"
expect 0 "unknown key 'SomeTypoKey'" -- "$b/spur" conf check "$data/site/slurm.conf"
expect 1 "unknown key 'SomeTypoKey'" -- "$b/spur" conf check --strict "$data/site/slurm.conf"
expect 1 "/nonexistent/slurm.conf: No such file" -- "$b/spur" conf check -f /nonexistent/slurm.conf
expect 1 "expected 'check' or 'show'" -- "$b/spur" conf frob
expect 1 "no configuration file" -- env -u SPUR_CONF -u SLURM_CONF "$b/spur" conf check

# spurd -C: the node as discovered (KFD fixture of an MI300X node)
d=$1/src/agent/spurd
out=$("$d" -C -N n1 --cpus 192 --mem 1536000 --gpus "kfd:$data/../kfd/mi300x/nodes" 2>&1)
if printf '%s\n' "$out" | grep -qx 'NodeName=n1 CPUs=192 RealMemory=1536000 Gres=gpu:mi300x:8' &&
	printf '%s\n' "$out" | grep -q '^#  GPU0  self   xgmi   xgmi'; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: spurd -C with the KFD fixture:"
	printf '%s\n' "$out"
fi
expect 1 "GPUs: kfd: no /nonexistent (no AMD GPU driver)" -- "$d" -C --gpus kfd:/nonexistent
expect 1 "GPUs: fake GPUs: 99" -- "$d" -C --gpus x:99

# the controller refuses a port it cannot have, with the reason, and exits 1
c=$1/src/ctld/spurctld
tmpc=$(mktemp -d)
printf 'SlurmctldPort=1\nStateSaveLocation=%s/state\n' "$tmpc" >"$tmpc/slurm.conf"
if [ "$(id -u)" -ne 0 ]; then
	expect 1 "listen on 0.0.0.0:1" -- "$c" -f "$tmpc/slurm.conf"
fi
printf 'SlurmctldPort=1\nStateSaveLocation=/proc/none/state\n' >"$tmpc/slurm.conf"
expect 1 "state folder /proc/none/state" -- "$c" -f "$tmpc/slurm.conf"
expect 1 "SlurmctldPort=http: expected a port number" -- sh -c "printf 'SlurmctldPort=http\n' >$tmpc/bad.conf; $c -f $tmpc/bad.conf"
rm -rf "$tmpc"

# conf show prints what was understood
out=$("$b/spur" conf show "$data/site/slurm.conf" 2>/dev/null)
if printf '%s\n' "$out" | grep -qF 'NodeName=h[3-4] CPUs=96' &&
	printf '%s\n' "$out" | grep -qF 'PartitionName=gpu Nodes=mi[01-04],h[1-4] Default=YES MaxTime=1-00:00:00' &&
	printf '%s\n' "$out" | grep -qF 'Totals: 8 nodes, 1152 CPUs, 12000G memory, 64 GPUs'; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: conf show output:"
	printf '%s\n' "$out"
fi
echo "cases: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
