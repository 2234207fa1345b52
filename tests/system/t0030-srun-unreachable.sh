#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A step never hangs on a node that cannot reach srun: an agent frozen
# (SIGSTOP) before the step reaches it never connects, and srun, after six
# MessageTimeouts, names the node, ends the step on the others and exits
# non-zero; every node that did connect gave its output.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 3 gpu:mi300x:8
echo "MessageTimeout=1" >>slurm.conf
start_ctld
start_agents 3
check "the nodes register" wait_until 20 nodes_idle 3
sbatch -N3 -o out --wrap 'until [ -e go ]; do sleep 0.1; done; srun sh -c "echo \$SLURMD_NODENAME"; echo rc=$?' >/dev/null
check "the job runs" wait_until 10 sh -c "[ \"\$(squeue -h -o %t)\" = R ]"
frozen=$(sed -n 2p agents.pid)
kill -STOP "$frozen"
touch go
check "srun ends within its deadline" wait_until 30 grep -q '^rc=' out
kill -CONT "$frozen"
check "it names the node that never reached it" grep -q 'nodes never reached srun (mi2): the step is ended' out
check "and fails" grep -qx 'rc=1' out
check "the other nodes' output came through" sh -c "grep -qx mi1 out && grep -qx mi3 out"
finish
