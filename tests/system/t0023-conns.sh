#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# One user cannot starve the controller's clients with idle connections:
# a user opens 3,000 on the Unix socket and says nothing; past 1,024 they
# are refused (and logged, counted), the rest are closed once silent for
# MessageTimeout, and squeue, sbatch and sinfo of others answer throughout.
# Needs root and runuser (the connections are another user's); skipped
# without.
. "$(dirname "$0")/lib.sh"
needs_root runuser
cd "$T"
write_conf 1 gpu:mi300x:8
echo "MessageTimeout=3" >>slurm.conf
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
chmod 755 "$T"
# hold N connections open, report how many the controller left open after
# the idle time (it answers each with nothing: its end is a hang-up)
cat >hold.py <<'PY'
import os, resource, socket, sys, time
n, port, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, n + 100))
socks = []
for i in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0spur/ctld/127.0.0.1:" + port)
    socks.append(s)
open(out + ".opened", "w").close()
time.sleep(float(sys.argv[4]))
alive = 0
for s in socks:
    s.setblocking(False)
    try:
        alive += s.recv(1) != b""
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
open(out, "w").write(str(alive))
PY
mkdir -p out && chown nobody out
runuser -u nobody -- python3 hold.py 3000 "$PORT" "$T/out/alive" 6 &
holder=$!
check "3,000 connections are made" wait_until 20 test -e out/alive.opened
start=$(date +%s%N)
check "squeue answers while they are open" timeout 5 squeue
check "sinfo answers" timeout 5 sinfo
check "sbatch answers" timeout 5 sbatch --hold -o /dev/null --wrap true
ms=$((($(date +%s%N) - start) / 1000000))
echo "squeue + sinfo + sbatch with 3,000 idle connections open: $ms ms"
check "the connections past the cap are refused and logged" \
	wait_until 5 grep -q "refused [0-9]* connections of peers already holding 1024 open" ctld.log
wait "$holder"
check "the idle ones are closed after MessageTimeout (left open: $(cat out/alive))" [ "$(cat out/alive)" -eq 0 ]
check "... and said so" grep -q "closed [0-9]* idle connections" ctld.log
finish
