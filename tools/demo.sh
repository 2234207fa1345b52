#!/bin/sh
# `make demo`: show what Spur does today, for real, on this machine.
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
spur="$build/src/cli/spur"
scontrol="$build/src/cli/scontrol"
ex="$src/etc/examples/mi300x"
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

cat <<'TXT'
Spur demo. Built so far: the common library (hostlists, Slurm time/size/GRES/
TRES formats, slurm.conf + gres.conf + topology.conf loader) and the `spur`
multi-call CLI. The controller (spurctld), the node agent (spurd) and
sbatch/srun/squeue arrive with the next issues; this demo runs only what exists.
TXT

step "Read an unchanged Slurm config (slurm.conf + gres.conf + topology.conf)" \
	"spur conf show $ex/slurm.conf"
"$spur" conf show "$ex/slurm.conf"

step "Expand a job's node list, as a batch script does for MASTER_ADDR" \
	"SLURM_JOB_NODELIST='mi300x-[01-02]' scontrol show hostnames | head -n1"
SLURM_JOB_NODELIST='mi300x-[01-02]' "$scontrol" show hostnames | head -n 1

step "Compress names back, byte for byte as Slurm 22.05 prints them" \
	"scontrol show hostlist mi300x-01,mi300x-02,mi300x-03,h100-01"
"$scontrol" show hostlist mi300x-01,mi300x-02,mi300x-03,h100-01

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^NodeName=h100-\[01-02\] Gres=gpu:h100:8,shard:64/NodeName=h100-[01-02] Gres=gpu:h100:eight/' \
	"$ex/slurm.conf" >"$tmp/slurm.conf"
step "A config mistake is reported with file:line and the reason (exit 1)" \
	"spur conf check $tmp/slurm.conf"
if "$spur" conf check -f "$tmp/slurm.conf"; then
	echo "demo: expected the broken config to be rejected" >&2
	exit 1
fi
printf '\nDemo done.\n'
