#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 of the controller during a stream of submissions from two
# clients (which keep trying to connect for MessageTimeout seconds), checked by the history checker (histcheck.py): every
# acknowledged submission exists exactly once, nothing is submitted twice,
# no job runs twice at the same time, and every job ends. The checker is
# first shown to catch a lost job and a double run in made-up histories.
. "$(dirname "$0")/lib.sh"
cd "$T"
HC="$(dirname "$0")/histcheck.py"
[ "${HC#/}" != "$HC" ] || HC="$OLDPWD/$HC"
write_conf 4 gpu:mi300x:8
start_ctld
start_agents 4
check "4 nodes register" wait_until 20 nodes_idle 4
mkdir runs fake
echo '{"op":"submit","client":0,"name":"h-0-0","t0":0,"t1":0,"rc":0,"id":4242,"error":""}' >fake.hist
check "the checker catches a lost acknowledged job" sh -c "! python3 $HC check fake.hist fake 2>err"
check "... and names it" grep -q "acknowledged job 4242 (h-0-0) is lost" err
printf 'start 1.0\nstart 1.5\nend 2.0\n' >fake/7.runs
: >empty.hist
check "the checker catches two runs at once" sh -c "! python3 $HC check empty.hist fake 2>err"
check "... and names them" grep -q "job 7: a run started at 1.5 while one from 1.0 ran" err

python3 "$HC" run hist.jsonl 2 40 "$T/runs" &
client=$!
check "submissions flow" wait_until 30 sh -c "[ \$(wc -l <hist.jsonl) -ge 15 ]"
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "the controller answers after kill -9" wait_until 20 squeue
wait "$client"
check "every submission is recorded" [ "$(wc -l <hist.jsonl)" -eq 80 ]
# a request in flight at the kill has no answer (at most one per client);
# the others waited for the new controller
check "the clients waited through the restart: the rest acknowledged" \
	[ "$(grep -c '"rc": 0' hist.jsonl)" -ge 78 ]
# what the clients were told otherwise (for a failure's digest)
grep -v '"rc": 0' hist.jsonl | cut -c1-200 | sed 's/^/histcheck: not acknowledged: /'
check "the history holds: nothing acknowledged lost, nothing twice, no overlapping runs" \
	python3 "$HC" check hist.jsonl runs
finish
