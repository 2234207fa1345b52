# SPDX-License-Identifier: Apache-2.0
# The one-controller loopback cluster the benchmarks measure: source it with
# BUILD, T (a private folder) and PORT set.

start_cluster() { # NODES: a fresh state, a controller and NODES agents, all idle
	rm -rf "$T/state"
	cat >"$T/slurm.conf" <<CONF
ClusterName=bench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
DisableRootJobs=NO
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
