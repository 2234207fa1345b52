#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Jobs run under their supervisor, not under spurd: kill -9 the agent while
# four jobs run; one ends while it is away, one reaches its time limit while
# it is away, one ends after it is back, one is cancelled after it is back.
# Every result arrives once, and nothing runs twice.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
a=$(sbatch --parsable -o a.out --wrap 'sleep 6; echo a done')
# sbatch counts limits in whole minutes, as Slurm; the protocol takes seconds
b=$(raw "{\"type\":\"submit\",\"job\":{\"script\":\"#!/bin/sh\\necho b starts; sleep 60; echo b not killed\\n\",\"time_limit\":3,\"workdir\":\"$T\",\"output\":\"b.out\",\"name\":\"b\",\"user\":\"root\"}}")
c=$(sbatch --parsable -o c.out --wrap 'sleep 1; echo c; exit 3')
d=$(sbatch --parsable -o d.out --wrap 'echo $$ >d.pid; sleep 100')
check "four jobs run" wait_until 10 sh -c "[ \$(squeue -h -t R | wc -l) -eq 4 ]"
# the agent has started all four (the controller counts a job running once
# it sent the launch): killed mid-launch, a job could not be adopted
check "the agent started all four" wait_until 10 sh -c "[ \$(grep -c 'started, supervisor pid' d1.log) -eq 4 ]"
kill -9 $(cat agents.pid)
wait $(cat agents.pid) 2>/dev/null
rm -f agents.pid
check "the short job ends while the agent is away" \
	wait_until 10 sh -c "[ \$(grep -c . spool/mi1/job$(printf %05u "$c")/state 2>/dev/null) = 2 ]"
check "the time limit passes while the agent is away" \
	wait_until 15 sh -c "[ \$(grep -c . spool/mi1/job$(printf %05u "$b")/state 2>/dev/null) = 2 ]"
start_agents 1
check "the agent is back" wait_until 20 sh -c "[ \$(grep -c 'node mi1 registered' ctld.log) -eq 2 ]"
check "the result made while away arrives (exit 3)" \
	wait_until 20 sh -c "scontrol show job $c | grep -q 'JobState=FAILED.*' && scontrol show job $c | grep -q 'ExitCode=3:0'"
check "the time limit while away is TIMEOUT" \
	wait_until 20 sh -c "scontrol show job $b | grep -q JobState=TIMEOUT"
check "the timed-out job was stopped" sh -c "! grep -q 'not killed' b.out"
check "the adopted job's end arrives" \
	wait_until 20 sh -c "scontrol show job $a | grep -q JobState=COMPLETED"
check "it ran once, to the end" [ "$(cat a.out)" = "a done" ]
check "the other adopted job still runs" sh -c "squeue -h -j $d -o %t | grep -qx R"
scancel "$d"
check "it can be cancelled" wait_until 20 sh -c "scontrol show job $d | grep -q JobState=CANCELLED"
check "its processes are gone" wait_until 10 sh -c "! kill -0 \$(cat d.pid) 2>/dev/null"
check "the spool is clean" wait_until 10 sh -c "[ -z \"\$(ls spool/mi1)\" ]"
finish
