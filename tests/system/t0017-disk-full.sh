#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A controller's disk fills up: ctl3 keeps its state on a 4 MiB tmpfs
# (log segments of 64 KiB), which is filled while submissions stream in,
# first with ctl3 a follower, then with ctl3 the leader. The cluster goes on
# with the other two; once there is room again ctl3 catches up. The history
# checker and the convergence check after each. Needs root (mount); skipped
# (exit 77) without.
# This found libraft 0.15 leaving holes in a log whose write failed
# (canonical/raft#450): a failed write now restarts the controller before
# anything is written after it, and no entry is discarded.
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: mounting a small tmpfs needs root"
	exit 77
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha.sh"
mkdir "$T/small"
if ! mount -t tmpfs -o size=4m tmpfs "$T/small"; then
	echo "skip: no tmpfs mount here"
	exit 77
fi
trap 'cp "$T"/ctl3.log /tmp/t17-ctl3.log 2>/dev/null; stop_all; umount "$T/small" 2>/dev/null; cleanup' EXIT
export SPUR_RAFT_SEGMENT_KB=64
cd "$T"
ha_conf 3 2 gpu:mi300x:8
mkdir -p small/state3
ln -s small/state3 state3
for i in 1 2 3; do start_ctl "$i"; done
start_agents 2
check "three controllers elect a leader" wait_until 20 has_leader
check "2 nodes register" wait_until 20 nodes_idle 2
mkdir runs

fill() { dd if=/dev/zero of=small/fill bs=64k 2>/dev/null; true; }

# --- a follower's disk fills up
if [ "$(leader)" = 3 ]; then
	spur controller lead ctl1 >/dev/null
	wait_until 10 leads 1
fi
fill
python3 "$HC" run hist1.jsonl 2 40 "$T/runs" f
check "with a follower's disk full, every submission is acknowledged" \
	[ "$(grep -c '"rc": 0' hist1.jsonl)" -eq 80 ]
# (or, restarted just then by the leadership hand-over, that it waits for room)
check "the follower says it stops storing the log" \
	wait_until 10 grep -qE "stops storing the log until there is room|waiting for room" ctl3.log
rm -f small/fill
# (it restarts from its log: waiting for room first, "room again", or, when
# the room came back before it restarted, at once; a loaded host is slower)
check "with room again, it restarts from its log" \
	wait_until 30 grep -qE "room again|starting again from the log" ctl3.log
check "... and catches up: all three converge" converged 1 2 3
check "the history holds" python3 "$HC" check hist1.jsonl runs

# --- the leader's disk fills up
spur controller lead ctl3 >/dev/null
check "ctl3 leads" wait_until 10 leads 3
fill
python3 "$HC" run hist2.jsonl 2 40 "$T/runs" l
check "the full leader hands leadership over" \
	wait_until 10 grep -q "handing leadership to another controller" ctl3.log
check "the clients went on with the new leader" [ "$(grep -c '"rc": 0' hist2.jsonl)" -ge 78 ]
rm -f small/fill
check "ctl3 follows once there is room" wait_until 20 follows 3
cat hist1.jsonl hist2.jsonl >hist.jsonl
check "the history holds after the leader's disk filled" python3 "$HC" check hist.jsonl runs
check "all three converge" converged 1 2 3

# --- the disk fills up after ctl3 looked for room but before it opened its
# log (a restart just as it filled): it waits for room, it does not exit
kill_ctl 3
fill
ROOM_LIE=once LD_PRELOAD="$BUILD/tests/system/room_lie.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	start_ctl 3
check "a controller that cannot open its log on a full disk waits for room" \
	wait_until 10 grep -q "no room to open the log" ctl3.log
check "... and has not exited" kill -0 "$(cat ctl3.pid)"
rm -f small/fill
check "... then follows once there is room" wait_until 20 follows 3
# it wrote nothing while it could not open the log: the log stays
kept_log() { ! sed -n '/no room to open the log/,$p' ctl3.log | grep -q discarded; }
check "... and keeps its log" kept_log
check "all three converge after it" converged 1 2 3
finish
