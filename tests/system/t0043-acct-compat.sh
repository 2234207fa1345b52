#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# sacctmgr, sshare and sreport byte for byte against real Slurm 22.05 with
# slurmdbd (tests/compat/golden/slurm-accounts.txt, captured on
# ../shared/slurm-golden): the same commands on a cluster of the same
# name. Dates are compared as a placeholder; sreport's rows are left out
# (slurmdbd had rolled up no usage yet, so Slurm printed none).
. "$(dirname "$0")/lib.sh"
GOLD="$(cd "$(dirname "$0")/../compat/golden" && pwd)/slurm-accounts.txt"
cd "$T"
write_conf 2 gpu:mi300x:8
sed -i 's/^ClusterName=.*/ClusterName=bench/' slurm.conf
grep -q '^ClusterName=bench' slurm.conf || echo ClusterName=bench >>slurm.conf
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2
gold() { sed -n "/^== $1\$/,/^== /p" "$GOLD" | sed '1d;/^== /d'; }
dates() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}/DATE/g'; }
same() { # NAME: our output (file out) is Slurm's
	if diff <(gold "$1") out >diff.txt; then ok "$1 as Slurm prints it"; else
		not_ok "$1 as Slurm prints it"
		cat diff.txt
	fi
}
{ sacctmgr -i add account proj1 Description=p Organization=o; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_account"
{ sacctmgr -i add user baruser Account=proj1; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_user"
{ sacctmgr -i modify account proj1 set GrpTRES=gres/gpu=8; echo "rc=$?"; } >out 2>&1
same "sacctmgr modify_account"
{ sacctmgr -i add qos gold Priority=100; echo "rc=$?"; } >out 2>&1
same "sacctmgr add_qos"
for c in "sacctmgr show assoc" "sacctmgr -n -P show assoc format=Account,User" \
	"sacctmgr show account" "sacctmgr show user" "sacctmgr show qos" \
	"sacctmgr -P show qos format=Name,Priority,GrpTRES,MaxWall"; do
	$c >out 2>&1
	same "$c"
done
sshare -a | head -2 >out
gold "sshare -a" | head -2 >gold.txt
check "sshare -a: Slurm's header" diff gold.txt out
sshare -a -P | head -1 >out
gold "sshare -a -P" | head -1 >gold.txt
check "sshare -a -P: Slurm's header" diff gold.txt out
sshare -a -l | head -2 >out
gold "sshare -a -l" | head -2 >gold.txt
check "sshare -a -l: Slurm's header" diff gold.txt out
for r in "sreport_util:cluster Utilization" "sreport_aubu:cluster AccountUtilizationByUser" \
	"sreport_top:user TopUsage" "sreport_sizes:job SizesByAccount"; do
	sreport ${r#*:} | head -6 | dates >out
	gold "${r%%:*}" | head -6 | dates >gold.txt
	if diff gold.txt out >diff.txt; then ok "sreport ${r#*:}: Slurm's title and header"; else
		not_ok "sreport ${r#*:}: Slurm's title and header"
		cat diff.txt
	fi
done
finish
