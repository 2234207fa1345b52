#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Interactive sessions, driven through tmux as a user at a terminal: srun
# --pty bash gives a real terminal on the node (tty, the window's size and
# its changes, keys typed ahead, Ctrl-C reaching the remote shell, the exit code back), and
# salloc with LaunchParameters=use_interactive_step opens the shell on the
# allocation's first node. Needs tmux; skipped without.
. "$(dirname "$0")/lib.sh"
if ! command -v tmux >/dev/null; then
	echo "cases: 0 passed, 0 failed (needs tmux)"
	finish
	exit 0
fi
cd "$T"
write_conf 2 gpu:mi300x:8
echo "LaunchParameters=use_interactive_step" >>slurm.conf
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
export TMUX_TMPDIR="$T"
S="spur$$"
pane() { tmux capture-pane -t "$S" -p; }
shows() { pane | grep -q -- "$1"; }
# a failed case shows what the terminal showed
pcheck() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else
		not_ok "$what"
		tmux capture-pane -t "$S" -p -S - | sed 's/^/  | /'
	fi
}
tmux new-session -d -s "$S" -x 100 -y 30 "env SLURM_CONF=$SLURM_CONF SPUR_CONF=$SPUR_CONF PATH=$PATH PS1='outer\$ ' bash --norc --noprofile"
pcheck "a local shell in tmux" wait_until 10 shows 'outer\$'
tmux send-keys -t "$S" "srun --pty env PS1='remote\$ ' bash --norc --noprofile; echo srun-rc=\$?" Enter
# typed at once, before the remote shell is up: the keys wait for it
tmux send-keys -t "$S" 'echo typed-ahead' Enter
pcheck "srun --pty opens a shell on the node" wait_until 20 shows '^remote\$'
pcheck "keys typed before it was up reach it" wait_until 10 shows '^typed-ahead'
tmux send-keys -t "$S" 'echo on-$SLURMD_NODENAME; tty; stty size' Enter
pcheck "it runs on the node, in a terminal" wait_until 10 sh -c "tmux capture-pane -t $S -p | grep -q '^on-mi[12]' && tmux capture-pane -t $S -p | grep -q '^/dev/pts/'"
pcheck "of the window's size" wait_until 10 shows '^30 100'
tmux resize-window -t "$S" -x 90 -y 25
tmux send-keys -t "$S" 'stty size' Enter
pcheck "a resized window resizes it" wait_until 10 shows '^25 90'
tmux send-keys -t "$S" 'sleep 100' Enter
# Ctrl-C once the command runs (before, the shell itself would take it)
wait_until 10 pgrep -f '^sleep 100$'
tmux send-keys -t "$S" C-c
tmux send-keys -t "$S" 'echo after-interrupt' Enter
pcheck "Ctrl-C stops the remote command, the shell lives on" wait_until 10 shows '^after-interrupt'
tmux send-keys -t "$S" 'exit 7' Enter
pcheck "its exit code comes back" wait_until 10 shows 'srun-rc=7'
tmux send-keys -t "$S" "SHELL=/bin/bash salloc -N1" Enter
pcheck "salloc with use_interactive_step: a shell on the node" \
	wait_until 20 shows 'salloc: Granted job allocation'
tmux send-keys -t "$S" 'echo salloc-on-$SLURMD_NODENAME; tty' Enter
pcheck "... in a terminal there" wait_until 10 sh -c "tmux capture-pane -t $S -p | grep -q '^salloc-on-mi[12]'"
tmux send-keys -t "$S" 'exit' Enter
pcheck "leaving it ends the allocation" wait_until 10 shows 'Relinquishing job allocation'
tmux kill-session -t "$S" 2>/dev/null
finish
