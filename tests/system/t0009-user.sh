#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Jobs run as the user who submitted them when the agent is root: a job
# submitted by nobody runs with nobody's uid and gid, writes its output as
# nobody, and cannot write where nobody may not. Skipped when not root.
. "$(dirname "$0")/lib.sh"
needs_root runuser
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
# a folder nobody owns, reachable through $T
chmod 755 "$T"
mkdir -p "$T/home" && chown nobody:nogroup "$T/home"
as_nobody() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }
id=$(cd "$T/home" && as_nobody sbatch --parsable --wait -o out.txt --wrap 'id -u; id -g; touch /root/x 2>/dev/null && echo wrote-root || echo no-root')
check "the job ran as nobody" sh -c "[ \"\$(sed -n 1p home/out.txt)\" = 65534 ]"
check "with nobody's group" sh -c "[ \"\$(sed -n 2p home/out.txt)\" = \"\$(id -g nobody)\" ]"
check "it could not write as root" sh -c "[ \"\$(sed -n 3p home/out.txt)\" = no-root ]"
check "its output belongs to nobody" sh -c "[ \"\$(stat -c %U home/out.txt)\" = nobody ]"
check "output where the user may not write: the job fails" \
	sh -c "cd '$T/home' && ! runuser -u nobody -- env SLURM_CONF='$SLURM_CONF' PATH='$PATH' sbatch --wait -o /root/spur-forbidden.out --wrap true >/dev/null"
check "and no file appears there" [ ! -e /root/spur-forbidden.out ]
check "the agent says why" grep -q 'Could not open stdout file /root/spur-forbidden.out: Permission denied' d1.err
check "squeue/sacct show the user" sh -c "sacct -n -X -P -o User,State -j $id | grep -qx 'nobody|COMPLETED'"
finish
