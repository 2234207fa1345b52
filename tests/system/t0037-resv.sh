#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Advance reservations in the controller, as Slurm's scontrol creates
# them: an administrator reserves nodes (by name or count) for users; sinfo
# shows them "resv"; only those users' jobs that name it run there, other
# jobs keep off; it survives the controller's kill -9 (the Raft log); it is
# deleted, and what waited for its nodes runs. Nodes a running job holds
# past its start are busy unless Flags=IGNORE_JOBS; MAINT is kept and
# shown; an ended reservation goes, a DAILY one moves a day on; FLEX lets
# its jobs start before it and use nodes outside it; TRES=gres/gpu=N holds
# GPUs of its nodes (others keep the rest, its jobs no more than it holds);
# other flags and TRES are refused by name.
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
check "Flags Spur does not build are refused by name" \
	sh -c 'scontrol create reservation Users=root Nodes=mi1 Duration=10 Flags=MAGNETIC 2>&1 | grep -q "Flags=MAGNETIC of a reservation is not supported"'
check "... and TRES other than gres/gpu and node" \
	sh -c 'scontrol create reservation Users=root Nodes=mi1 Duration=10 TRES=cpu=4 2>&1 | grep -q "TRES=cpu=4 of a reservation is not supported"'
check "NodeCnt picks free nodes, later" \
	sh -c 'scontrol create reservation Users=root NodeCnt=1 StartTime=now+1hour Duration=30 | grep -q "Reservation created: root_"'
# scontrol update ReservationName=: in place, its jobs keep it
scontrol create reservation ReservationName=upd Users=root Nodes=mi2 StartTime=now+2hours Duration=60 >/dev/null
check "scontrol update ReservationName=: Users+=, Flags+=, Duration ('Reservation updated.')" \
	sh -c 'scontrol update ReservationName=upd Users+=spur-bob Flags+=MAINT Duration=30 | grep -qx "Reservation updated." &&
	       scontrol show res upd | grep -q "Users=root,spur-bob " && scontrol show res upd | grep -q "Flags=MAINT$" &&
	       scontrol show res upd | grep -q "Duration=00:30:00"'
check "... Nodes=, Users-=, Flags-=" \
	sh -c 'scontrol update ReservationName=upd Nodes=mi1 Users-=root Flags-=MAINT >/dev/null &&
	       scontrol show res upd | grep -q "Nodes=mi1 " && scontrol show res upd | grep -q "Users=spur-bob " &&
	       scontrol show res upd | grep -q "Flags=$"'
uj=$(bob sbatch --parsable --reservation=upd -t 5 -o /dev/null --wrap true)
check "... a job that names it waits for its start" sh -c "sleep 1; [ \"\$(squeue -h -j $uj -o %r)\" = Reservation ]"
scontrol update ReservationName=upd StartTime=now >/dev/null
check "... moved to now, the job runs in it" \
	wait_until 15 sh -c "[ \"\$(sacct -n -X -P -j $uj -o State,NodeList)\" = 'COMPLETED|mi1' ]"
check "... an unknown one: Slurm's words, exit 1" \
	sh -c 'scontrol update ReservationName=nosuch Users=root 2>u.err; [ $? = 1 ] &&
	       grep -qx "Error updating the reservation: Requested reservation is invalid" u.err &&
	       grep -qx "slurm_update error: Requested reservation is invalid" u.err'
check "... a key Spur does not build, refused by name" \
	sh -c 'scontrol update ReservationName=upd Watts=5 2>&1 | grep -q "Watts in a reservation update is not supported"'
# kill -9 and back: from the log
kill -9 "$(cat ctld.pid)"
wait "$(cat ctld.pid)" 2>/dev/null
start_ctld
check "after the controller's kill -9 the reservation is there" \
	wait_until 20 sh -c 'scontrol show reservation maint | grep -q "Nodes=mi2"'
check "... all three, the updated one as updated" sh -c '[ "$(scontrol show reservation | grep -c ^ReservationName=)" = 3 ] &&
	scontrol show res upd | grep -q "Nodes=mi1 "'
scontrol delete reservation upd
check "deleting it" scontrol delete reservation maint
check "... the job that waited for its node runs" \
	wait_until 20 sh -c "[ \"\$(sacct -n -X -P -j $w -o State)\" = COMPLETED ]"
check "... and it is gone" sh -c '! scontrol show reservation maint 2>/dev/null'
# TRES=gres/gpu=N: GPUs of its nodes, not the nodes
check "TRES=gres/gpu=6 on mi1: created, its TRES shown" \
	sh -c 'scontrol create reservation ReservationName=gpus Users=spur-bob Nodes=mi1 StartTime=now Duration=30 TRES=gres/gpu=6 | grep -qx "Reservation created: gpus" &&
	       scontrol show res gpus | grep -qx "   TRES=gres/gpu=6"'
a=$(sbatch --parsable -t 5 -w mi1 --gres=gpu:4 -o /dev/null --wrap 'sleep 60')
b=$(sbatch --parsable -t 5 -w mi1 --gres=gpu:2 -o /dev/null --wrap 'sleep 60')
c=$(bob sbatch --parsable -t 5 --reservation=gpus --gres=gpu:6 -o /dev/null --wrap 'sleep 60')
check "others get the GPUs it leaves on its node (2 of 8), and its CPUs" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $b -o %T)\" = RUNNING ] && [ \"\$(squeue -h -j $a -o %T)\" = PENDING ]"
check "its user's job gets its 6 GPUs there" \
	wait_until 10 sh -c "[ \"\$(squeue -h -j $c -o '%T %N')\" = 'RUNNING mi1' ]"
d=$(bob sbatch --parsable -t 5 --reservation=gpus --gres=gpu:1 -o /dev/null --wrap true)
check "... and no more than it holds" sh -c "sleep 1; [ \"\$(squeue -h -j $d -o %T)\" = PENDING ]"
scancel "$a" "$b" "$c" "$d"
scontrol delete reservation gpus
# FLEX: its jobs start before it and use nodes outside it
scontrol create reservation ReservationName=flex Users=root Nodes=mi2 StartTime=now+1hour Duration=30 Flags=FLEX >/dev/null
j=$(sbatch --parsable --wait --reservation=flex -N2 -t1 -o /dev/null --wrap true)
check "Flags=FLEX: a job of it runs an hour before it, on a node outside it too" \
	sh -c "[ \"\$(sacct -n -X -P -j $j -o State,NodeList)\" = 'COMPLETED|mi[1-2]' ]"
scontrol delete reservation flex
# busy nodes, IGNORE_JOBS, MAINT
jb=$(sbatch --parsable -w mi1 -t 2 -o /dev/null --wrap 'sleep 60')
wait_until 10 sh -c "squeue -h -j $jb -o %T | grep -qx RUNNING"
check "a node a running job holds is busy for a reservation (Slurm's words)" \
	sh -c 'scontrol create reservation ReservationName=busy Users=root Nodes=mi1 StartTime=now Duration=10 2>&1 | grep -q "Requested nodes are busy"'
check "... Flags=MAINT,IGNORE_JOBS makes it anyway" \
	sh -c 'scontrol create reservation ReservationName=mnt Users=root Nodes=mi1 StartTime=now Duration=10 Flags=maint,ignore_jobs | grep -qx "Reservation created: mnt"'
check "... its flags shown as Slurm spells them" \
	sh -c 'scontrol show res mnt | grep -q "Flags=MAINT,IGNORE_JOBS$"'
scancel "$jb"
scontrol delete reservation mnt
# an ended reservation goes; a DAILY one moves on a day
scontrol create reservation ReservationName=brief Users=root Nodes=mi2 StartTime=now EndTime=now+2 Flags=MAINT >/dev/null
scontrol create reservation ReservationName=daily Users=root Nodes=mi2 StartTime=now EndTime=now+2 Flags=DAILY >/dev/null
first=$(scontrol show res daily | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')
check "a reservation that ended is gone" wait_until 15 sh -c '! scontrol show reservation brief >/dev/null 2>&1'
check "... a DAILY one is there again, a day later" \
	wait_until 15 sh -c "scontrol show res daily | grep -q 'StartTime=$(date -d "$first 1 day" +%Y-%m-%dT%H:%M:%S) '"
check "sreport: the MAINT reservations' time is planned down time (8 CPUs x 2 s at least)" \
	sh -c "[ \"\$(sreport -t seconds -n -P cluster utilization start=now-1hour end=now+1hour | cut -d'|' -f4)\" -ge 16 ]"
finish
