#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Container jobs on a node whose agent is not root (a user's own cluster):
# the runtime runs rootless, as the agent's user, in a user namespace that
# maps the container's root to that user (runc maps root and no other id:
# as --container-remap-root, and --no-container-remap-root is refused by
# name); the image's root is used read-only (no overlay
# without privilege; /tmp is the container's own tmpfs); the runtime's
# state is in the agent's spool. Runs runc or crun (whichever runs a
# rootless container here), as nobody. GPUs simulated: two character
# devices made here, given to the container by the runtime as binds (a
# user namespace may not make device nodes). Needs root (to become nobody
# and make the devices), runuser, busybox-static, runc or crun.
. "$(dirname "$0")/lib.sh"
needs_root runuser mknod
needs_oci
image=$(cd "$(dirname "$0")/../../tools" && pwd)/busybox-image.sh
cd "$T"
chmod 755 "$T"
"$image" "$T"
major=$(awk '/^Character/ {c=1; next} /^Block/ {c=0} c {print $1}' /proc/devices |
	sort -n | awk 'BEGIN {m=240} $1==m {m++} END {print m}')
mkdir -p dev
for i in 0 1; do mknod "dev/gpu$i" c "$major" "$i" && chmod 666 "dev/gpu$i"; done
{ echo "type h100"; echo "count 2"; for i in 0 1; do echo "device $i $T/dev/gpu$i"; done; } >gpus.txt
write_conf 1 gpu:h100:2
echo "SpurImageStore=$T/store" >spur.conf
mkdir -p spool/mi1 store w && touch d1.log && chown nobody spool spool/mi1 store w d1.log && chmod 644 slurm.conf spur.conf gpus.txt
start_ctld
check "the controller is up" wait_until 20 sh -c "scontrol ping | grep -q UP"
chown nobody jwt_hs256.key # the cluster's key is its user's (the agent's)
runuser -u nobody -- "$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N mi1 --gpus "$T/gpus.txt" \
	-L "$T/d1.log" 2>>"$T/d1.err" &
echo $! >>"$T/agents.pid"
check "the node registers (its agent is nobody)" wait_until 20 nodes_idle 1
as_user() { (cd "$T/w" && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" timeout 60 "$@"); }

as_user srun --container-image="$T/spurbox.tar" sh -c 'grep ^ID= /etc/os-release; id -u' >o1 2>e1
check "srun --container-image on a rootless node: the image's files" grep -qx ID=spurbox o1
check "... root inside" grep -qx 0 o1
check "the runtime's state is in the agent's spool" bash -c "ls -d $T/spool/mi1/ctr/state >/dev/null"
as_user srun --container-image="$T/spurbox.tar" sh -c 'touch /tmp/x && echo tmp-ok; touch /srv/y 2>/dev/null || echo root-ro' >o2 2>&1
check "/tmp is writable" grep -qx tmp-ok o2
check "... the image's root is not" grep -qx root-ro o2
as_user srun --container-image="$T/spurbox.tar" --container-mounts="$T/w:/out" touch /out/made >/dev/null 2>&1
check "... which is the agent's user outside (a file it makes)" test "$(stat -c %U "$T/w/made")" = nobody
as_user srun --container-image="$T/spurbox.tar" --no-container-remap-root true >o3 2>&1
check "--no-container-remap-root is refused by name" grep -q "no-container-remap-root: not supported" o3
as_user srun --gpus=1 --container-image="$T/spurbox.tar" sh -c \
	"echo \$CUDA_VISIBLE_DEVICES; ls $T/dev; cat $T/dev/gpu0 2>&1" >o4 2>&1
check "a 1-GPU container has one GPU node" test "$(grep -c '^gpu[01]$' o4)" -eq 1
check "... which it may open (ENXIO: no driver)" grep -q 'No such device or address' o4
as_user srun --container-image="$T/spurbox.tar" sh -c 'echo up; sleep 300' </dev/null >o5 2>&1 &
check "a container step runs" wait_until 30 grep -qx up o5
scancel -u nobody
check "scancel ends it" wait_until 20 sh -c "! pgrep -fx 'sleep 300' >/dev/null"
as_user srun --container-image="$T/spurbox.tar" sh -c 'exit 3' >/dev/null 2>&1
check "the container's exit code is the task's (3)" test $? -eq 3
finish
