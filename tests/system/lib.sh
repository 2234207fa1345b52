# SPDX-License-Identifier: Apache-2.0
# Shell helpers for system tests: a controller and N simulated nodes on
# loopback in a private folder, with a private port. Source this file.
set -u
BUILD=${BUILD:?BUILD must point at the build folder}
T=$(mktemp -d /tmp/spur-sys.XXXXXX)
# below the ephemeral range (32768-): no client socket can hold our ports;
# one whose neighbours up to +9 (Raft's +4, a second controller's) are
# free now, so two tests running at once do not take each other's
PORT=$(python3 - "$$" <<'PY'
import random, socket, sys
random.seed(int(sys.argv[1]))
for _ in range(500):
    p = random.randrange(20000, 32000 - 10)
    try:
        for q in range(p, p + 10):
            s = socket.socket()
            s.bind(("0.0.0.0", q))
            s.close()
    except OSError:
        continue
    print(p)
    break
PY
)
export SLURM_CONF="$T/slurm.conf" SPUR_CONF="$T/slurm.conf"
export PATH="$BUILD/src/cli:$PATH"
# the agents' cgroups (real ones where this host has them): this test's own
export SPURD_CGROUP_NAME="spur-$PORT"
passed=0 failed=0

# the lines every test's slurm.conf starts with: this test's port and folders
conf_head() { # CLUSTER
	cat <<CONF
ClusterName=$1
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
DisableRootJobs=NO
CONF
}

write_conf() { # NODES GRES
	conf_head systest >"$T/slurm.conf"
	cat >>"$T/slurm.conf" <<CONF
KillWait=2
NodeName=mi[1-$1] CPUs=8 RealMemory=16000 Gres=$2
PartitionName=gpu Nodes=ALL Default=YES MaxTime=1-00:00:00
CONF
}

start_ctld() { # extra spurctld arguments
	"$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" -L "$T/ctld.log" "$@" 2>>"$T/ctld.err" &
	echo $! >"$T/ctld.pid"
}

start_agents() { # N
	for i in $(seq 1 "$1"); do
		"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N "mi$i" -L "$T/d$i.log" 2>>"$T/d$i.err" &
		echo $! >>"$T/agents.pid"
	done
}

# wait_until SECONDS CMD...: poll a condition (daemon readiness has no event
# to wait on from outside); fail after SECONDS
wait_until() {
	local deadline=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# N distinct nodes idle (sinfo -N prints a node once per partition)
nodes_idle() { [ "$(sinfo -h -N | awk '$4 == "idle" {print $1}' | sort -u | wc -l)" -eq "$1" ]; }

# raw REQUEST: send one frame as any client could; print the answer's
# message (an error), else its job_id, else ok
raw() { # FRAME: sent as this user over the controller's Unix socket (TCP with RAW_TCP=1)
	python3 - "$PORT" "$1" <<'PY'
import json, os, socket, struct, sys
if os.environ.get("RAW_TCP") == "1":
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0spur/ctld/127.0.0.1:" + sys.argv[1])
b = sys.argv[2].encode()
s.sendall(struct.pack(">I", len(b)) + b)
h = b""
while len(h) < 4:
    h += s.recv(4 - len(h))
n = struct.unpack(">I", h)[0]
r = b""
while len(r) < n:
    r += s.recv(n - len(r))
r = json.loads(r)
print(r.get("message", r.get("job_id", "ok")), r.get("detail", ""))
PY
}
# raw_says REQUEST TEXT: the controller's answer contains TEXT
raw_says() { raw "$1" | grep -qF -- "$2"; }

stop_all() {
	[ -f "$T/ctld.pid" ] && kill "$(cat "$T/ctld.pid")" 2>/dev/null
	[ -f "$T/agents.pid" ] && kill $(cat "$T/agents.pid") 2>/dev/null
	wait 2>/dev/null
	rm -f "$T/ctld.pid" "$T/agents.pid"
}

# this test's cgroups (jobs outlive their agent by design): their
# processes killed, the folders removed
cgroups_gone() {
	local d i
	for d in /sys/fs/cgroup/*/"$SPURD_CGROUP_NAME" /sys/fs/cgroup/"$SPURD_CGROUP_NAME"; do
		[ -d "$d" ] || continue
		for i in 1 2 3 4 5 6 7 8 9 10; do
			find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$d" ] || break
			sleep 0.1 # a killed process leaves its cgroup once reaped
		done
	done
}

cleanup() {
	stop_all
	cgroups_gone
	if [ "$failed" -ne 0 ]; then
		for f in "$T"/*.log; do echo "--- $f"; tail -n 20 "$f"; done
	fi
	rm -rf "$T"
}
trap cleanup EXIT

ok() { passed=$((passed + 1)); echo "ok: $*"; }
not_ok() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # DESCRIPTION CMD...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# needs_root [CMD...]: end the test here, with no cases, unless it runs as
# root and every CMD is installed
needs_root() {
	local c
	if [ "$(id -u)" -ne 0 ]; then
		echo "cases: 0 passed, 0 failed (needs root)"
		finish
		exit 0
	fi
	for c in "$@"; do
		if ! command -v "$c" >/dev/null; then
			echo "cases: 0 passed, 0 failed (needs $c)"
			finish
			exit 0
		fi
	done
}
# needs_oci: end the test with no cases unless busybox-static (the test
# image's one program) and runc or crun are installed
needs_oci() {
	local why=
	[ -x /bin/busybox ] || why="needs busybox-static"
	command -v runc >/dev/null || command -v crun >/dev/null || why="needs runc or crun"
	[ -z "$why" ] && return 0
	echo "cases: 0 passed, 0 failed ($why)"
	finish
	exit 0
}
finish() {
	# the daemons must stop cleanly: no sanitizer report, no leak
	stop_all
	if cat "$T"/*.err 2>/dev/null | grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error'; then
		not_ok "daemons exit clean under the sanitizers"
		cat "$T"/*.err
	else
		ok "daemons exit clean"
	fi
	echo "cases: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
