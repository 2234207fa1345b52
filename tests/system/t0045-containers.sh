#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Container jobs through a real OCI runtime (crun or runc, whichever runs a
# container on this host: crun refuses hybrid cgroup hosts, runc does not).
# The image is made here, offline, from Debian's busybox-static
# (tools/busybox-image.sh): one layer with /bin/busybox and its applets,
# /etc/os-release (ID=spurbox), Env FOO=image and PATH=/bin, WorkingDir
# /srv; written as an OCI image layout, as a `docker save` tarball and as a
# squashfs file, and imported by name.
# The GPUs are simulated (no GPU here): four character devices made with a
# major number no driver holds, named in the fake GPU description and so in
# the node's generated CDI spec; opening one inside the container gives
# ENXIO ("No such device or address") where the devices cgroup lets it
# through and EPERM where it does not, so the test sees the container's own
# device list. Needs root, busybox-static, runc or crun, mksquashfs.
. "$(dirname "$0")/lib.sh"
needs_root mksquashfs runuser mknod
needs_oci
image=$(cd "$(dirname "$0")/../../tools" && pwd)/busybox-image.sh
cd "$T"
chmod 755 "$T"

# ---- the image
"$image" "$T"
head -c 3000 spurbox.tar >corrupt.tar
chmod a+r corrupt.tar

# ---- the cluster: one node with 4 simulated GPUs
major=$(awk '/^Character/ {c=1; next} /^Block/ {c=0} c {print $1}' /proc/devices |
	sort -n | awk 'BEGIN {m=240} $1==m {m++} END {print m}')
mkdir -p dev
for i in 0 1 2 3; do mknod "dev/gpu$i" c "$major" "$i" && chmod 666 "dev/gpu$i"; done
{ echo "type h100"; echo "count 4"; for i in 0 1 2 3; do echo "device $i $T/dev/gpu$i"; done; } >gpus.txt
write_conf 1 gpu:h100:4
echo "SpurImageStore=$T/store" >spur.conf
"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N mi1 --gpus "$T/gpus.txt" -L "$T/d1.log" 2>>"$T/d1.err" &
echo $! >>"$T/agents.pid"
start_ctld
check "the node registers" wait_until 20 nodes_idle 1
mkdir -p w data && chmod 777 w && echo x-data >data/x
U=nobody
uid=$(id -u $U)
as_user() { (cd "$T/w" && runuser -u $U -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" FOO=host timeout 60 "$@"); }

as_user srun --container-image="$T/spurbox.tar" cat /etc/os-release >o1 2>e1
check "srun --container-image=docker-save.tar: the image's /etc/os-release" grep -qx ID=spurbox o1
as_user srun --container-image="$T/spurbox.tar" id -u >o2 2>e2
check "... run as the submitting user inside (uid $uid)" grep -qx "$uid" o2
as_user srun --container-image="$T/oci" cat /etc/os-release >o3 2>e3
check "an OCI image layout folder" grep -qx ID=spurbox o3
as_user srun --container-image="$T/spurbox.sqsh" cat /etc/os-release >o4 2>e4
check "a squashfs file" grep -qx ID=spurbox o4
SPUR_IMAGE_STORE="$T/store" spur image import --name spurbox "$T/spurbox.tar" >/dev/null
as_user srun --container-image=spurbox cat /etc/os-release >o5 2>e5
check "a name imported with spur image import" grep -qx ID=spurbox o5
check "spur image list shows it" bash -c "SPUR_IMAGE_STORE=$T/store spur image list | grep -q '^spurbox '"
check "one image unpacked once however often it is used (one folder per digest)" \
	test "$(ls "$T/store/images" | grep -vc '^\.')" -eq 3

as_user srun --container-image="$T/spurbox.tar" sh -c 'echo $FOO $PATH' >o6 2>&1
check "the image's Env over the job's (FOO=image, PATH=/bin)" grep -qx "image /bin" o6
as_user srun --container-image="$T/spurbox.tar" --container-env=FOO sh -c 'echo $FOO' >o7 2>&1
check "--container-env=FOO keeps the host's value" grep -qx host o7
as_user srun --container-image="$T/spurbox.tar" pwd >o8 2>&1
check "the image's WorkingDir when the job's folder is not mounted" grep -qx /srv o8
as_user srun --container-image="$T/spurbox.tar" --container-mounts="$T/w" pwd >o9 2>&1
check "the job's folder when it is mounted" grep -qx "$T/w" o9
as_user srun --container-image="$T/spurbox.tar" --container-workdir=/tmp pwd >o10 2>&1
check "--container-workdir" grep -qx /tmp o10
as_user srun --container-image="$T/spurbox.tar" --container-mounts="$T/data:/data:ro" \
	sh -c 'cat /data/x; touch /data/y && echo wrote' >o11 2>&1
check "a read-only mount reads..." grep -qx x-data o11
check "... and cannot be written" bash -c "! grep -q wrote o11 && [ ! -e $T/data/y ]"
as_user srun --container-image="$T/spurbox.tar" sh -c 'exit 7' >/dev/null 2>&1
check "the container's exit code is the task's (7)" test $? -eq 7
as_user srun --container-image="$T/spurbox.tar" ls /srv/../.. >/dev/null 2>&1
check "nothing of the host's root inside (no /work, no /usr)" \
	bash -c "! runuser -u $U -- env SLURM_CONF=$SLURM_CONF PATH=$PATH timeout 60 srun --container-image=$T/spurbox.tar ls /usr >/dev/null 2>&1"

# steps of one batch job share a named container; another name does not
cat >w/steps.sh <<EOF
#!/bin/sh
srun --container-image=$T/spurbox.tar --container-name=c1 sh -c 'echo kept >/tmp/marker'
srun --container-name=c1 cat /tmp/marker
srun --container-image=$T/spurbox.tar --container-name=c2 sh -c 'cat /tmp/marker 2>/dev/null || echo none'
EOF
as_user sbatch --wait -o steps.out steps.sh >/dev/null 2>&1
check "a named container's files are there for the job's next step" grep -qx kept w/steps.out
check "... and not in another one" grep -qx none w/steps.out

# the batch script itself in the container
as_user sbatch --wait -o b.out --container-image="$T/oci" --wrap 'cat /etc/os-release; id -u' >/dev/null 2>&1
check "sbatch --container-image runs the script inside" grep -qx ID=spurbox w/b.out
check "... as the user" grep -qx "$uid" w/b.out

# a missing and a corrupt image: the job fails at once, and says why
as_user srun --container-image="$T/none.tar" true >o12 2>e12
check "srun with a missing image fails" test $? -ne 0
check "... saying why" grep -q "none.tar: No such file" e12
j=$(as_user sbatch --parsable -o c.out --container-image="$T/corrupt.tar" --wrap true)
check "sbatch with a corrupt image: the job FAILED" wait_until 30 sh -c "scontrol show job $j | grep -q JobState=FAILED"
check "... its Reason names the image" bash -c "scontrol show job $j | grep -q 'Reason=.*corrupt.tar'"
check "... and the output file says it" grep -q "corrupt.tar" w/c.out

# cancel and time limit
as_user srun --container-image="$T/spurbox.tar" sh -c 'touch /tmp/x; echo up; sleep 300' </dev/null >o13 2>&1 &
check "a container step runs, its output streamed" wait_until 30 grep -qx up o13
scancel -u $U
check "scancel ends it" wait_until 20 sh -c "! pgrep -fx 'sleep 300' >/dev/null"
check "... and its container root is unmounted" wait_until 20 sh -c "! grep -q '$T/spool' /proc/mounts"
j=$(raw "{\"type\":\"submit\",\"job\":{\"script\":\"#!/bin/sh\\nsleep 60\\n\",\"time_limit\":3,\"workdir\":\"$T/w\",\"output\":\"t.out\",\"name\":\"t\",\"user\":\"root\",\"container\":{\"image\":\"$T/spurbox.tar\"}}}")
check "a container job past its time limit is TIMEOUT" \
	wait_until 30 sh -c "scontrol show job $j | grep -q JobState=TIMEOUT"

# exactly its GPUs inside
as_user srun --gpus=2 --container-image="$T/spurbox.tar" sh -c \
	"echo \$CUDA_VISIBLE_DEVICES; ls $T/dev; for g in $T/dev/gpu*; do cat \$g 2>&1; done" >o14 2>&1
check "a 2-GPU container has two GPU nodes" test "$(grep -c '^gpu[0-3]$' o14)" -eq 2
check "... which it may open (ENXIO: no driver, past the devices cgroup)" \
	test "$(grep -c 'No such device or address' o14)" -eq 2
check "... and its visible devices are 0,1" grep -qx 0,1 o14
check "spur cdi generate writes the node's GPUs' spec" \
	bash -c "spur cdi generate --gpus $T/gpus.txt -o $T/cdi | grep -q nvidia.com-gpu && grep -q '$T/dev/gpu3' $T/cdi/spur-nvidia.com-gpu.json"
check "spur cdi list lists them" bash -c "spur cdi list $T/cdi | grep -qx 'nvidia.com/gpu=3'"
finish
