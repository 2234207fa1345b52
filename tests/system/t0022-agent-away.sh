#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A node's agent goes away while its job runs: sinfo -R says the node is
# not responding; the job, cancelled meanwhile, is killed as soon as the
# agent is back (it used to run on to its end with its CPUs counted free).
# A launch lost with an agent's connection (the agent stopped, then killed)
# is sent again when it comes back: the job runs once, not requeued.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
mark="$T/spur-away-$$"
cp "$(command -v sleep)" "$mark"
id=$(sbatch --parsable -o /dev/null --wrap "$mark 300")
running() { pgrep -f "^$mark" >/dev/null; }
check "the job runs" wait_until 10 running
kill "$(cat agents.pid)"
wait "$(cat agents.pid)" 2>/dev/null
rm -f agents.pid
check "the job outlives its agent" running
check "sinfo -R says the node does not respond" \
	wait_until 10 sh -c "sinfo -R -h -o '%E %N' | grep -qx 'Not responding mi1'"
scancel "$id"
check "the cancel is taken while the agent is away" \
	wait_until 10 sh -c "scontrol show job $id | grep -q JobState=CANCELLED"
start_agents 1
check "the agent is back" wait_until 20 nodes_idle 1
check "... and the cancelled job is killed" wait_until 10 sh -c "! pgrep -f '^$mark' >/dev/null"
check "the controller says why" grep -q "job $id: still on node mi1, which it should no longer run on" ctld.log
check "sinfo -R has nothing to say once it is back" sh -c "! sinfo -R -h -o %E | grep -q Not"
pkill -f "^$mark" 2>/dev/null

# the launch is written to a stopped agent, which then dies
agent=$(cat agents.pid)
kill -STOP "$agent"
lost=$(sbatch --parsable -o lost.out --wrap 'echo ran')
check "the job is started (on the stopped agent's node)" \
	wait_until 10 sh -c "squeue -h -j $lost -o %t | grep -qx R"
kill -9 "$agent"
kill -CONT "$agent" 2>/dev/null
wait "$agent" 2>/dev/null
rm -f agents.pid
start_agents 1
check "when its agent is back, the lost launch is sent again" \
	wait_until 20 grep -q "job $lost: node mi1 never got it; launched again" ctld.log
check "... and the job runs once, to its end" wait_until 20 grep -qx ran lost.out
check "... not requeued" sh -c "scontrol show job $lost | grep -q 'Restarts=0'"
finish
