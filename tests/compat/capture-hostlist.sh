#!/bin/sh
# Capture real Slurm's `scontrol show hostnames|hostlist|hostlistsorted` for
# each line of hostlist-cases.txt into golden/scontrol-hostlist.txt.
# Needs Debian's slurm-client; these verbs need a slurm.conf but no daemon.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v scontrol >/dev/null || { echo "install slurm-client first" >&2; exit 1; }
tmp=$(mktemp -d)
printf 'ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p Nodes=n1\n' >"$tmp/slurm.conf"
export SLURM_CONF="$tmp/slurm.conf"
{
	echo "# scontrol from $(scontrol --version); regenerate with capture-hostlist.sh"
	while IFS= read -r e; do
		echo "== $e"
		echo "-- hostnames"
		scontrol show hostnames "$e"
		echo "-- hostlist"
		scontrol show hostlist "$e"
		echo "-- hostlistsorted"
		scontrol show hostlistsorted "$e"
	done <"$here/hostlist-cases.txt"
} >"$here/golden/scontrol-hostlist.txt"
rm -rf "$tmp"
