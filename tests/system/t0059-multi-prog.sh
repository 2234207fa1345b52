#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# srun --multi-prog (MPMD), as Slurm 22.05's: each task runs its line of
# the file ("RANKS PROGRAM ARGS", %t the rank, %o its offset in its line's
# ranks, '...' quotes, \ escapes and continues a line), srun's arguments
# after the file's name go to every task; inside a job and outside one
# (where the file sets the task count); srun's checks in Slurm's words (a
# task with no line, a rank past -n, a duplicate, "*" not last, a file too
# large). srun --task-prolog/--task-epilog are in t0028 (hooks).
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2

cat >mp.conf <<'CONF'
# multi-program configuration file
1-2   /bin/echo task:%t:offset:%o
0,3   /bin/echo aaaa task:%t:\
offset:%o \
bbbb 'q  q' x\ y
CONF
sbatch --wait -n4 -o in.out --wrap "srun -l --multi-prog $T/mp.conf; echo rc=\$?" >/dev/null
check "inside a job: each rank its line, %t and %o, continued lines, quotes" sh -c "
	grep -qx '0: aaaa task:0:offset:0 bbbb q  q x y' in.out &&
	grep -qx '1: task:1:offset:0' in.out && grep -qx '2: task:2:offset:1' in.out &&
	grep -qx '3: aaaa task:3:offset:1 bbbb q  q x y' in.out && grep -qx rc=0 in.out"
printf '0 /bin/echo first\n* /bin/echo rest%%t\n' >star.conf
srun -N2 -n3 -l --multi-prog star.conf A B >st.out 2>&1
check "outside a job, '*' for the rest, srun's arguments appended" sh -c "
	grep -qx '0: first A B' st.out && grep -qx '1: rest1 A B' st.out && grep -qx '2: rest2 A B' st.out"
srun -l --multi-prog mp.conf >cnt.out 2>&1
check "no -n outside a job: the file's ranks are the task count" sh -c "[ \$(wc -l <cnt.out) = 4 ]"
srun -n1 -l --multi-prog mp.conf >/dev/null 2>miss.out
check "a task count the file does not cover: Slurm's words, exit 1" sh -c "
	srun -n5 --multi-prog mp.conf >/dev/null 2>e5.out; [ \$? = 1 ] &&
	grep -qx 'srun: error: Configuration file mp.conf invalid, no record for task id 4' e5.out"
check "a rank past -n" sh -c "
	grep -qx 'srun: error: Invalid task id, 2 >= ntasks' miss.out &&
	grep -qx 'srun: error: Line 2 of configuration file mp.conf invalid' miss.out"
printf '0-1 /bin/true\n1 /bin/false\n' >dup.conf
printf '* /bin/true\n0 /bin/false\n' >last.conf
srun -n2 --multi-prog dup.conf >/dev/null 2>dup.out
srun -n2 --multi-prog last.conf >/dev/null 2>last.out
check "a duplicate rank, '*' not last" sh -c "
	grep -qx 'srun: error: Duplicate record for task 1' dup.out &&
	grep -qx 'srun: error: Task range specification with asterisk must be last' last.out"
head -c 60001 /dev/zero | tr '\0' '#' >big.conf
check "a file over 60,000 bytes" sh -c "
	srun -n1 --multi-prog big.conf 2>&1 | grep -qx 'srun: error: Multi_prog config file big.conf is too large'"
check "a missing file" sh -c "
	srun -n1 --multi-prog nosuch.conf 2>&1 | grep -qx 'srun: error: Could not open multi_prog config file nosuch.conf'"
check "sbatch has no --multi-prog (srun's alone)" sh -c "
	sbatch --multi-prog --wrap true 2>&1 | grep -q \"unrecognized option '--multi-prog'\""
finish
