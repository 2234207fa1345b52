#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Three controllers on embedded Raft, four agents: the leader is killed -9
# and paused (SIGSTOP: a leader cut off for 4 s) during streams of
# submissions from two clients; all controllers are restarted; a follower's
# last log entry is corrupted; a controller joins and leaves at run time.
# After each, the history checker: every acknowledged submission exists
# exactly once, no job runs twice at once, every job ends; and every
# controller holds the same jobs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha.sh"
cd "$T"
# a snapshot every 32 entries: a controller that restarts or joins catches
# up from a snapshot, the log behind it compacted away
CTL_ARGS="-n 32"
ha_conf 3 4 gpu:mi300x:8
for i in 1 2 3; do start_ctl "$i"; done
start_agents 4
check "three controllers elect a leader" wait_until 20 has_leader
check "4 nodes register with it" wait_until 20 nodes_idle 4
check "scontrol ping: three controllers UP" \
	sh -c '[ "$(scontrol ping | grep -c "is UP")" -eq 3 ]'
check "scontrol ping names them as Slurm does" sh -c 'scontrol ping | head -1 | grep -qx "Slurmctld(primary) at ctl1 is UP"'
check "one leader, two followers" \
	sh -c '[ "$(spur controller list | awk "\$6 == \"follower\"" | wc -l)" -eq 2 ]'
check "a follower answers reads itself" \
	python3 -c "
import sys; sys.path.insert(0, '$(dirname "$HC")'); import histcheck
l = $(leader); f = [i for i in (1, 2, 3) if i != l][0]
r = histcheck.ask('127.0.0.1:%d' % ($PORT + f - 1), {'type': 'queue'})
sys.exit(0 if r['type'] == 'ok' else 1)"
check "a follower forwards a client's write to the leader" \
	python3 -c "
import sys; sys.path.insert(0, '$(dirname "$HC")'); import histcheck
l = $(leader); f = [i for i in (1, 2, 3) if i != l][0]
job = {'script': '#!/bin/sh\ntrue\n', 'name': 'via-follower', 'user': 'root', 'uid': 0,
       'gid': 0, 'workdir': '$T', 'output': '/dev/null'}
r = histcheck.ask('127.0.0.1:%d' % ($PORT + f - 1), {'type': 'submit', 'job': job})
print(r.get('job_id', r))
sys.exit(0 if r['type'] == 'ok' and r['job_id'] > 0 else 1)"
check "... where the job is, once" wait_until 20 sh -c '[ "$(sacct -n -X -P -o JobName | grep -cx via-follower)" -eq 1 ]'
check "a follower's refusal from the leader comes back in the leader's words" \
	python3 -c "
import sys; sys.path.insert(0, '$(dirname "$HC")'); import histcheck
l = $(leader); f = [i for i in (1, 2, 3) if i != l][0]
r = histcheck.ask('127.0.0.1:%d' % ($PORT + f - 1), {'type': 'hold', 'job_id': 99999})
sys.exit(0 if r['type'] == 'error' and 'Invalid job id' in r['message'] else 1)"

# a job that runs through everything below, started once
long=$(sbatch --parsable -o "$T/long.out" --wrap 'echo started; sleep 600')
check "a long job runs" wait_until 20 sh -c "squeue -h -j $long -o %t | grep -qx R"
mkdir runs

# --- kill -9 of the leader during a stream of submissions
L=$(leader)
python3 "$HC" run hist1.jsonl 2 30 "$T/runs" &
client=$!
check "submissions flow" wait_until 30 sh -c "[ \$(wc -l <hist1.jsonl) -ge 10 ]"
kill_ctl "$L"
check "a new leader is elected" wait_until 10 another_leads "$L"
wait "$client"
check "every submission is recorded" [ "$(wc -l <hist1.jsonl)" -eq 60 ]
check "the clients found the new leader: the rest acknowledged" \
	[ "$(grep -c '"rc": 0' hist1.jsonl)" -ge 58 ]
check "the history holds after the leader's kill -9" python3 "$HC" check hist1.jsonl runs
check "the long job ran on through the failover, started once" \
	ran_once "$long" "$T/long.out"
check "no node was marked down for the heartbeats the election paused" \
	sh -c "! sinfo -h -N -o %t | grep -qE 'down|drain|fail'"
start_ctl "$L"
check "the old leader comes back as a follower" wait_until 20 follows "$L"
check "the three controllers converge" converged 1 2 3

# --- the leader paused for 4 s (as cut off), then resumed
L=$(leader)
python3 "$HC" run hist2.jsonl 2 20 "$T/runs" p &
client=$!
check "submissions flow again" wait_until 30 sh -c "[ \$(wc -l <hist2.jsonl) -ge 6 ]"
kill -STOP "$(cat "ctl$L.pid")"
check "while the leader is paused, another one leads" wait_until 10 another_leads "$L"
sleep 2 # the paused leader stays cut off a while (nothing to wait on)
kill -CONT "$(cat "ctl$L.pid")"
wait "$client"
check "the resumed old leader steps down and restarts from the log" \
	wait_until 20 grep -qE "no longer the leader|not committed" "ctl$L.log"
check "... and follows" wait_until 20 follows "$L"
check "the clients waited through the pause" [ "$(grep -c '"rc": 0' hist2.jsonl)" -ge 38 ]
cat hist1.jsonl hist2.jsonl >hist.jsonl
check "the history holds after the pause" python3 "$HC" check hist.jsonl runs
check "the three controllers converge after the pause" converged 1 2 3

# --- every controller restarted at once
for i in 1 2 3; do kill_ctl "$i" TERM; done
for i in 1 2 3; do start_ctl "$i"; done
check "after a restart of all three, a leader" wait_until 20 has_leader
check "... with every acknowledged job" python3 "$HC" check hist.jsonl runs
check "... and the long job still running, started once" \
	ran_once "$long" "$T/long.out"

# --- a follower's last log entry corrupted while it is down
F=$(a_follower)
kill_ctl "$F"
for i in $(seq 5); do sbatch --parsable -J corrupt-$i -o /dev/null --wrap true >/dev/null; done
# the newest segment holding entries (a fresh open segment is all zeros)
corrupt_last() {
	python3 - $(ls -t "state$F"/raft/open-* "state$F"/raft/0* 2>/dev/null) <<'PY'
import sys
for p in sys.argv[1:]:
    b = bytearray(open(p, "rb").read())
    used = [i for i in range(len(b)) if b[i]]
    if len(used) > 16:
        b[used[-1] - 12] ^= 0xff  # inside the last entry's data: its checksum fails
        open(p, "wb").write(b)
        sys.exit(0)
sys.exit(1)
PY
}
check "a follower's last log entry is corrupted while it is down" corrupt_last
start_ctl "$F"
check "the follower with a corrupt last entry starts and follows" wait_until 20 follows "$F"
check "it catches up: all three converge" converged 1 2 3

# --- a fourth controller joins, then leaves
echo "SlurmctldHost=ctl4($(ctl_addr 4))" >>slurm.conf
check "adding a controller not started yet is refused" sh -c '! spur controller add ctl5 2>err && grep -q "ctl5 is not a SlurmctldHost" err'
start_ctl 4 -j
check "spur controller add ctl4" sh -c 'spur controller add ctl4 | grep -qx "Controller ctl4 added (id 4); 4 controllers now"'
check "ctl4 is a voter and follows" sh -c 'spur controller list | grep -E "^ctl4 .* voter +follower$"'
check "ctl4 caught up with the log" converged 1 2 3 4
check "... from the leader's snapshot" grep -q "restored .* operations from a snapshot" ctl4.log
sbatch --parsable -J after-join -o /dev/null --wrap true >/dev/null
check "four controllers converge on a new job" converged 1 2 3 4
check "spur controller remove ctl4" sh -c 'spur controller remove ctl4 | grep -qx "Controller ctl4 removed (id 4); 3 controllers now"'
check "three voters again" sh -c '[ "$(spur controller list | grep -c voter)" -eq 3 ]'
kill_ctl 4 TERM
n=$(a_follower)
check "spur controller lead hands leadership over" spur controller lead "ctl$n"
check "... to the one named" wait_until 10 leads "$n"
check "a bad action is refused" sh -c '! spur controller frob 2>err && grep -q "unknown action" err'
check "the long job, started once, is still running at the end" \
	ran_once "$long" "$T/long.out"
scancel "$long"
printf 'SlurmctldHost=a(127.0.0.1:%d)\nSlurmctldHost=b(127.0.0.1:%d)\nNodeName=n1\nPartitionName=p Nodes=n1\n' \
	$((PORT + 50)) $((PORT + 54)) >clash.conf
check "controllers whose ports clash are refused, with the reason" \
	sh -c "! '$BUILD/src/ctld/spurctld' -f clash.conf -N a -s '$T/clash' 2>err && grep -q 'SlurmctldHost a and b share a port on 127.0.0.1' err"
check "a controller that is no SlurmctldHost is refused" \
	sh -c "! '$BUILD/src/ctld/spurctld' -f slurm.conf -N nosuch -s '$T/clash' 2>err && grep -q 'nosuch is none of the 4 SlurmctldHost entries' err"
finish
