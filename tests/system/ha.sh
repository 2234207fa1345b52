# SPDX-License-Identifier: Apache-2.0
# Helpers for tests of several controllers (one Raft cluster): source after
# lib.sh. Controller i is SlurmctldHost ctl$i, client port PORT+i-1 (its
# Raft port four above), state in $T/state$i, log $T/ctl$i.log.
HC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/histcheck.py"
CTL_HOST=${CTL_HOST:-127.0.0.1}

ctl_addr() { # I: its client address
	if [ -n "${CTL_NETNS:-}" ]; then echo "10.77.0.$1:$PORT"; else echo "$CTL_HOST:$((PORT + $1 - 1))"; fi
}

ha_conf() { # NCTLDS NODES GRES
	{
		echo "ClusterName=hatest"
		for i in $(seq 1 "$1"); do echo "SlurmctldHost=ctl$i($(ctl_addr "$i"))"; done
		cat <<CONF
SlurmctldPort=$PORT
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
DisableRootJobs=NO
KillWait=2
MessageTimeout=20
NodeName=mi[1-$2] CPUs=8 RealMemory=16000 Gres=$3
PartitionName=gpu Nodes=ALL Default=YES MaxTime=1-00:00:00
CONF
	} >"$T/slurm.conf"
}

start_ctl() { # I [spurctld arguments]
	local i=$1
	shift
	${CTL_NETNS:+ip netns exec "$CTL_NETNS$i"} "$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" \
		-N "ctl$i" -s "$T/state$i" -L "$T/ctl$i.log" ${CTL_ARGS:-} "$@" 2>>"$T/ctl$i.err" &
	echo $! >"$T/ctl$i.pid"
}

kill_ctl() { # I [SIGNAL]
	[ -f "$T/ctl$1.pid" ] || return 0
	kill "-${2:-KILL}" "$(cat "$T/ctl$1.pid")" 2>/dev/null
	wait "$(cat "$T/ctl$1.pid")" 2>/dev/null
	rm -f "$T/ctl$1.pid"
}

# the leader's number, from the leader itself
leader() { spur controller list 2>/dev/null | awk '$6 == "leader" { sub("ctl", "", $1); print $1 }'; }
has_leader() { [ -n "$(leader)" ]; }
leads() { [ "$(leader)" = "$1" ]; } # I leads
another_leads() { # some controller other than I leads
	local l
	l=$(leader)
	[ -n "$l" ] && [ "$l" != "$1" ]
}
# JOB is running and its output FILE says it started once
ran_once() { squeue -h -j "$1" -o %t | grep -qx R && [ "$(grep -c started "$2")" -eq 1 ]; }
# the number of the first follower
a_follower() { spur controller list 2>/dev/null | awk '$6 == "follower" { sub("ctl", "", $1); print $1; exit }'; }
# I is up and follows
follows() { [ "$(spur controller list 2>/dev/null | awk -v n="ctl$1" '$1 == n { print $6 }')" = follower ]; }

# all controllers that run: every one holds the same jobs in the same states
converged() { # I...
	local a=()
	for i in "$@"; do a+=("$(ctl_addr "$i")"); done
	python3 "$HC" converge "${a[@]}"
}

stop_all() {
	for f in "$T"/ctl*.pid; do
		[ -f "$f" ] || continue
		kill -CONT "$(cat "$f")" 2>/dev/null
		kill "$(cat "$f")" 2>/dev/null
	done
	[ -f "$T/agents.pid" ] && kill $(cat "$T/agents.pid") 2>/dev/null
	wait 2>/dev/null
	rm -f "$T"/ctl*.pid "$T/agents.pid"
}
