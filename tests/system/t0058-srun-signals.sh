#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# srun's signals while its step runs, as Slurm 22.05's srun (lines checked
# against real Slurm's, captured with ../shared/slurm-golden): SIGUSR1/2
# reach the tasks; one SIGINT reports the tasks, two within a second (or one
# with --quit-on-interrupt) send Ctrl-C and end the step; -X sends Ctrl-C
# alone; SIGTERM ends the step; a cancelled job's srun says the step aborted.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "1 node registers" wait_until 20 nodes_idle 1

cat >usr.sh <<'SH'
#!/bin/bash
trap 'echo GOT-USR1' USR1
trap 'echo GOT-USR2' USR2
echo WAITING
for i in $(seq 50); do sleep 0.2; [ -e stop ] && break; done
echo FINI
SH
cat >int.sh <<'SH'
#!/bin/bash
trap "" INT
echo WAITING
sleep 1011
SH
chmod +x usr.sh int.sh

# start srun in the background with output in $1.out; its pid in $1.pid
bg_srun() { local n=$1; shift; (srun "$@" >"$n.out" 2>&1 & echo $! >"$n.pid"; wait $!; echo "rc=$?" >>"$n.out") & }
up() { wait_until 20 grep -q WAITING "$1.out"; }

bg_srun usr -N1 --unbuffered ./usr.sh
check "srun starts the task" up usr
kill -USR1 "$(cat usr.pid)"
check "SIGUSR1 to srun reaches the task" wait_until 10 grep -q GOT-USR1 usr.out
kill -USR2 "$(cat usr.pid)"
check "... and SIGUSR2" wait_until 10 grep -q GOT-USR2 usr.out
touch stop
check "the step then ends normally" wait_until 20 grep -qx rc=0 usr.out
rm -f stop

bg_srun one -N1 ./int.sh
check "a task that ignores SIGINT runs" up one
kill -INT "$(cat one.pid)"
check "one SIGINT: Slurm's two lines, the step goes on" \
	wait_until 10 sh -c "grep -qx 'srun: interrupt (one more within 1 sec to abort)' one.out &&
		grep -qE '^srun: StepId=[0-9]+[.]0 task 0: running$' one.out"
scancel "$(squeue -h -o %i | head -n 1)"
check "a cancelled allocation: srun says the step aborted (Slurm's words)" \
	wait_until 20 sh -c "grep -qE '^srun: Job step aborted: Waiting up to [0-9]+ seconds for job step to finish[.]$' one.out && grep -q '^rc=' one.out"

bg_srun two -N1 ./int.sh
check "again" up two
kill -INT "$(cat two.pid)"; kill -INT "$(cat two.pid)"
check "two SIGINTs within a second: Ctrl-C sent, the step forced to end" \
	wait_until 20 sh -c "grep -qE '^srun: sending Ctrl-C to StepId=[0-9]+[.]0$' two.out &&
		grep -qx 'srun: forcing job termination' two.out && grep -q '^rc=' two.out"

bg_srun quit -N1 --quit-on-interrupt ./int.sh
check "--quit-on-interrupt" up quit
kill -INT "$(cat quit.pid)"
check "... one SIGINT ends the step" \
	wait_until 20 sh -c "grep -qx 'srun: forcing job termination' quit.out && grep -q '^rc=' quit.out"

bg_srun term -N1 ./int.sh
check "SIGTERM to srun" up term
kill -TERM "$(cat term.pid)"
check "... forces the step's end" \
	wait_until 20 sh -c "grep -qx 'srun: forcing job termination' term.out && grep -q '^rc=' term.out"
check "nothing is left running" wait_until 20 sh -c "[ -z \"\$(squeue -h)\" ] && ! pgrep -f '[s]leep 1011' >/dev/null"
check "srun -q is --qos (not --quit-on-interrupt)" sh -c "srun -q normal true"
finish
