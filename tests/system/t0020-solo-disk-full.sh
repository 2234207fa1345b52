#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The only controller's disk fills up (state on a 24 MiB tmpfs, big
# scripts streaming in): it refuses new writes with a clear message and
# keeps answering; once there is room it takes writes again; after kill -9
# and a restart every acknowledged job is there (the log was kept, not
# discarded as before: there is no other controller to send it back). Then
# a restart while the disk is full, and writes that fail although the folder
# says it has room (room_lie.so): each failure restarts the controller before
# anything is written after it. Needs root (mount); skipped (exit 77)
# without.
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: mounting a small tmpfs needs root"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
mkdir "$T/state"
if ! mount -t tmpfs -o size=24m tmpfs "$T/state"; then
	echo "skip: no tmpfs mount here"
	exit 77
fi
trap 'stop_all; umount "$T/state" 2>/dev/null; cleanup' EXIT
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "1 node registers" wait_until 20 nodes_idle 1

head -c 1500000 /dev/zero | tr '\0' '#' >pad
{ echo '#!/bin/sh'; cat pad; echo; echo true; } >big.sh
: >acked
submit_until_refused() { # at most N submissions; stops at the first refusal
	local i
	for i in $(seq "$1"); do
		if ! timeout 20 sbatch --parsable --hold -o /dev/null big.sh >>acked 2>refused; then
			return 0
		fi
	done
	return 1
}
check "submissions are refused once the disk fills" submit_until_refused 40
check "... saying the state folder is full" grep -q "state folder is full" refused
check "... in the log too" grep -q "refusing new writes until there is room" ctld.log
n1=$(grep -c . acked)
check "the controller still answers while full ($n1 acknowledged)" \
	sh -c "[ \$(timeout 5 squeue -h -o %i | grep -c .) -eq $n1 ]"
check "scontrol still answers" sh -c "timeout 5 scontrol show job $(head -n 1 acked) >/dev/null"

mount -o remount,size=96m state
check "with room again it says so" wait_until 10 grep -q "room again" ctld.log
check "... and takes submissions again" sh -c "timeout 20 sbatch --parsable --hold -o /dev/null big.sh >>acked"
n2=$(grep -c . acked)

kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller serves after kill -9" wait_until 20 squeue
present() { [ "$(timeout 5 squeue -h -o %i | sort -n | tr '\n' ' ')" = "$(sort -n acked | tr '\n' ' ')" ]; }
check "all $n2 acknowledged jobs are there" present
check "nothing was discarded" sh -c "! grep -q discarded ctld.log"

# full again, then kill -9 while full: nothing lost either
mount -o remount,size=$((n2 * 2 + 14))m state
submit_until_refused 40 || true
n3=$(grep -c . acked)
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
: >ctld.log
start_ctld
check "restarted on a full disk, it waits for room or serves" \
	wait_until 20 sh -c "grep -qE 'waiting for room|leading:' ctld.log"
mount -o remount,size=128m state
check "with room, it serves" wait_until 20 squeue
check "all $n3 acknowledged jobs are there after a kill -9 on a full disk" present

# --- writes that fail although the folder says it has room (a quota): the
# first failed write restarts the controller before anything is written
# after it; what it acknowledged stays
kill "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
: >ctld.log
ROOM_LIE=always LD_PRELOAD="$BUILD/tests/system/room_lie.so" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" start_ctld
check "it serves again" wait_until 20 squeue
dd if=/dev/zero of=state/fill bs=1M 2>/dev/null
submit_until_refused 40 || true
n4=$(grep -c . acked)
check "a failed log write restarts it at once" \
	wait_until 10 grep -q "a log write failed" ctld.log
rm -f state/fill
check "with room, it serves" wait_until 30 squeue
check "all $n4 acknowledged jobs are there after failed writes" present
check "nothing was discarded" sh -c "! grep -q discarded ctld.log"
scancel $(cat acked)
finish
