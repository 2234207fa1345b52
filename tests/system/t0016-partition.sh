#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A network partition: three controllers, each in its own network namespace
# (10.77.0.1-3) on a bridge in a hub namespace where the agents and the
# clients run. During a stream of submissions the leader's link is cut:
# the other two elect a leader and go on, agents and clients find it; the
# link comes back and the old leader follows. The history checker then
# checks every acknowledged submission, and all controllers converge.
# Needs root and `ip netns`; skipped (exit 77) without them.
if [ -z "${SPUR_IN_HUB:-}" ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null ||
		! ip netns add "spurprobe$$" 2>/dev/null; then
		echo "skip: network namespaces need root and iproute2"
		exit 77
	fi
	ip netns del "spurprobe$$"
	hub="spurhub$$"
	ip netns add "$hub" || exit 1
	ip netns exec "$hub" ip link set lo up
	ip netns exec "$hub" ip link add br0 type bridge
	ip netns exec "$hub" ip addr add 10.77.0.254/24 dev br0
	ip netns exec "$hub" ip link set br0 up
	for i in 1 2 3; do
		ns="spurc$$-$i"
		ip netns add "$ns"
		ip netns exec "$ns" ip link set lo up
		ip netns exec "$hub" ip link add "vc$i" type veth peer name eth0 netns "$ns"
		ip netns exec "$hub" ip link set "vc$i" master br0 up
		ip netns exec "$ns" ip addr add "10.77.0.$i/24" dev eth0
		ip netns exec "$ns" ip link set eth0 up
	done
	SPUR_IN_HUB=$hub CTL_NETNS="spurc$$-" ip netns exec "$hub" bash "$0"
	rc=$?
	for i in 1 2 3; do ip netns del "spurc$$-$i" 2>/dev/null; done
	ip netns del "$hub" 2>/dev/null
	exit $rc
fi
export CTL_NETNS
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha.sh"
cd "$T"
ha_conf 3 4 gpu:mi300x:8
for i in 1 2 3; do start_ctl "$i"; done
start_agents 4
check "three controllers in their own namespaces elect a leader" wait_until 20 has_leader
check "4 nodes register with it" wait_until 20 nodes_idle 4
check "scontrol ping: three UP over the bridge" \
	sh -c '[ "$(scontrol ping | grep -c "is UP")" -eq 3 ]'
long=$(sbatch --parsable -o "$T/long.out" --wrap 'echo started; sleep 600')
check "a long job runs" wait_until 20 sh -c "squeue -h -j $long -o %t | grep -qx R"
mkdir runs

L=$(leader)
python3 "$HC" run hist.jsonl 2 25 "$T/runs" &
client=$!
check "submissions flow" wait_until 30 sh -c "[ \$(wc -l <hist.jsonl) -ge 8 ]"
ip link set "vc$L" down # the leader is cut off from everyone
check "the majority elects another leader" wait_until 15 another_leads "$L"
check "scontrol ping: the cut-off controller is DOWN" \
	sh -c "scontrol ping | grep -qx 'Slurmctld(.*) at ctl$L is DOWN'"
wait "$client"
check "the clients went on with the new leader" [ "$(grep -c '"rc": 0' hist.jsonl)" -ge 48 ]
check "the agents found it too: no node down" \
	wait_until 15 sh -c "[ \$(sinfo -h -N -o %t | grep -cE 'idle|mix|alloc') -eq 4 ]"
check "the history holds during the partition" python3 "$HC" check hist.jsonl runs
ip link set "vc$L" up
check "healed, the old leader follows" wait_until 20 follows "$L"
check "the controllers converge after the partition" converged 1 2 3
check "the history holds after the partition heals" python3 "$HC" check hist.jsonl runs
check "the long job ran through it all, started once" \
	ran_once "$long" "$T/long.out"
scancel "$long"
finish
