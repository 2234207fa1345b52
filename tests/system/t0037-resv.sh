#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Advance reservations in the controller, as Slurm's scontrol creates
# them: an administrator reserves nodes (by name or count) for users; sinfo
# shows them "resv"; only those users' jobs that name it run there, other
# jobs keep off; it survives the controller's kill -9 (the Raft log); it is
# deleted, and what waited for its nodes runs. Flags are refused by name.
# Needs root and useradd (a second, real user).
. "$(dirname "$0")/lib.sh"
needs_root runuser useradd
id spur-bob >/dev/null 2>&1 || useradd -M -r -s /bin/sh spur-bob
cd "$T"
chmod 755 "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "the nodes register" wait_until 20 nodes_idle 2
bob() { runuser -u spur-bob -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }

check "an administrator creates a reservation" \
	sh -c 'scontrol create reservation ReservationName=maint Users=root Nodes=mi2 StartTime=now Duration=60 | grep -qx "Reservation created: maint"'
check "scontrol show reservation" \
	sh -c 'scontrol show reservation maint | grep -q "^ReservationName=maint .*Duration=01:00:00" &&
	       scontrol show reservation | grep -q "Nodes=mi2 .*" && scontrol show res | grep -q "Users=root .*State=ACTIVE"'
check "sinfo shows its node resv" sh -c '[ "$(sinfo -h -N -n mi2 -o %t)" = resv ]'
check "a user cannot create one" sh -c '! bob scontrol create reservation Users=spur-bob Nodes=mi1 Duration=10 2>/dev/null'
out=$(bob sbatch --reservation=maint -o /dev/null --wrap true 2>&1)
check "a user not in it may not use it" sh -c "echo '$out' | grep -q 'Access denied to requested reservation'"
j=$(sbatch --parsable --reservation=maint -o in.out --wrap hostname)
check "a job of its user that names it runs on its node" \
	wait_until 10 sh -c "[ \"\$(sacct -n -X -P -j $j -o State,NodeList)\" = 'COMPLETED|mi2' ]"
w=$(sbatch --parsable -w mi2 -o /dev/null --wrap true)
check "a job that does not name it keeps off its node" \
	sh -c "sleep 1; [ \"\$(squeue -h -j $w -o %T)\" = PENDING ]"
check "... while others run elsewhere" sbatch --wait -o /dev/null --wrap true
check "Flags are refused by name" \
	sh -c 'scontrol create reservation Users=root Nodes=mi1 Duration=10 Flags=MAINT 2>&1 | grep -q "Flags= of a reservation are not supported"'
check "NodeCnt picks free nodes, later" \
	sh -c 'scontrol create reservation Users=root NodeCnt=1 StartTime=now+1hour Duration=30 | grep -q "Reservation created: root_"'
# kill -9 and back: from the log
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "after the controller's kill -9 the reservation is there" \
	wait_until 20 sh -c 'scontrol show reservation maint | grep -q "Nodes=mi2"'
check "... both of them" sh -c '[ "$(scontrol show reservation | grep -c ^ReservationName=)" = 2 ]'
check "deleting it" scontrol delete reservation maint
check "... the job that waited for its node runs" \
	wait_until 20 sh -c "[ \"\$(sacct -n -X -P -j $w -o State)\" = COMPLETED ]"
check "... and it is gone" sh -c '! scontrol show reservation maint 2>/dev/null'
finish
