# SPDX-License-Identifier: Apache-2.0
# The one-controller loopback cluster the benchmarks measure: source it with
# BUILD, T (a private folder) and PORT set.

# A free port below the ephemeral range whose neighbours up to +COUNT-1 and
# Raft's +4 are free too (each benchmark's controllers take a few).
free_port() { # [COUNT]
	python3 - "${1:-1}" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
for _ in range(1000):
    p = random.randint(10000, 30000)
    try:
        for q in list(range(p, p + count)) + [p + i + 4 for i in range(count)]:
            s = socket.socket()
            s.bind(("0.0.0.0", q))
            s.close()
    except OSError:
        continue
    print(p)
    sys.exit(0)
sys.exit("no free port found")
PY
}

# until_s SECONDS WHAT CMD...: run CMD until it succeeds; fail, saying WHAT
# did not happen, after SECONDS
until_s() {
	local secs=$1 what=$2 deadline=$(($(date +%s) + $1))
	shift 2
	until "$@" >/dev/null 2>&1; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "bench: $what after $secs s" >&2
			return 1
		fi
		sleep 0.05
	done
}

start_cluster() { # NODES: a fresh state, a controller and NODES agents, all idle
	rm -rf "$T/state"
	cat >"$T/slurm.conf" <<CONF
ClusterName=bench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
DisableRootJobs=NO
MaxArraySize=1000001
MaxJobCount=1000000
SlurmctldDebug=error
SlurmdDebug=error
NodeName=node[1-$1] CPUs=8 RealMemory=16000 Gres=gpu:mi300x:8
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE
CONF
	"$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" -L "$T/ctld.log" &
	echo $! >"$T/ctld.pid"
	for i in $(seq 1 "$1"); do
		"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N "node$i" -L "$T/d$i.log" &
		echo $! >"$T/d$i.pid"
	done
	until [ "$(sinfo -h -N 2>/dev/null | grep -c idle)" -eq "$1" ]; do
		kill -0 "$(cat "$T/ctld.pid")" 2>/dev/null || { echo "spurctld failed:" >&2; cat "$T/ctld.log" >&2; exit 1; }
		sleep 0.1
	done
}

stop_cluster() { # every daemon with a pid file in $T
	kill $(cat "$T"/*.pid 2>/dev/null) 2>/dev/null || true
	wait 2>/dev/null || true
	rm -f "$T"/*.pid
}

# cpu_ticks FILE...: the CPU ticks (user + system) of the daemons whose pid
# files are given, then of their reaped children (for agents: the jobs'
# supervisors and scripts), as "SELF CHILDREN"
cpu_ticks() {
	local f self=0 kids=0
	for f in "$@"; do
		read -r a b <<<"$(awk '{print $14 + $15, $16 + $17}' "/proc/$(cat "$f")/stat")"
		self=$((self + a)) kids=$((kids + b))
	done
	echo "$self $kids"
}
