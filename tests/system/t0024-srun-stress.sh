#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Many multi-node srun launches at once, with clients killed mid-launch
# and jobs cancelled under them: every agent and the controller stay up,
# every node comes back idle, nothing is left running, and (under ASan, as
# .ci/run also runs the suite) the daemons exit clean. An agent once
# crashed inside libuv under this load.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 4 gpu:mi300x:8
start_ctld
start_agents 4
check "4 nodes register" wait_until 20 nodes_idle 4
ROUNDS=${ROUNDS:-6}
for r in $(seq "$ROUNDS"); do
	pids=()
	for i in $(seq 8); do
		timeout 30 srun -N3 -n3 sh -c "sleep 0.$((RANDOM % 5))" >/dev/null 2>&1 &
		pids+=($!)
	done
	sleep 0.$((RANDOM % 4 + 1))
	# two clients die mid-launch, two jobs are cancelled under their steps
	kill -9 "${pids[0]}" "${pids[3]}" 2>/dev/null
	ids=$(squeue -h -o %i 2>/dev/null | head -n 2)
	[ -n "$ids" ] && scancel $ids 2>/dev/null
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
done
alive() { for p in $(cat agents.pid) $(cat ctld.pid); do kill -0 "$p" || return 1; done; }
check "every agent and the controller are still up after $ROUNDS rounds" alive
check "every node comes back idle" wait_until 30 nodes_idle 4
check "no job is left" wait_until 30 sh -c '[ -z "$(squeue -h -o %i)" ]'
check "no step task is left running" sh -c "! pgrep -f 'sh -c sleep 0\.' >/dev/null"
check "a plain srun still works" sh -c "[ \"\$(timeout 20 srun -N3 -n3 hostname | wc -l)\" -eq 3 ]"
finish
