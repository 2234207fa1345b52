#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Nothing from a job reaches root on its node: a user's LD_PRELOAD never
# runs in a root process (the supervisor is forked, with a fixed
# environment; the job's reaches only the script, after the switch to the
# user); the working folder is entered as the user (one the user cannot
# enter: the job runs in /tmp, as slurmstepd does); output through a link
# the user planted opens as the user; a spool folder a user owns stops the
# agent. Submissions are bounded: an oversized script, one with a NUL byte
# and an array over MaxArraySize are refused with Slurm's messages. Needs
# root, runuser and a C compiler; skipped without.
. "$(dirname "$0")/lib.sh"
needs_root runuser cc
cd "$T"
write_conf 1 gpu:mi300x:8
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
chmod 755 "$T"
mkdir -p home mark && chown nobody:nogroup home && chmod 700 mark
as_nobody() { (cd "$T/home" && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"); }

# LD_PRELOAD: a library that leaves a mark when it runs as root
printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
	'__attribute__((constructor)) static void e(void) {' \
	'	FILE *f = fopen(geteuid() == 0 ? MARK "/root" : "/dev/null", "w");' \
	'	if (f) fclose(f); }' >evil.c
cc -shared -fPIC -DMARK="\"$T/mark\"" -o evil.so evil.c && chmod 755 evil.so
# (a sanitizer build of sbatch wants its runtime first: let it be)
asan_ok="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
as_nobody env "$asan_ok" LD_PRELOAD="$T/evil.so" sbatch --wait -o out1 --wrap 'echo ran' >/dev/null
check "a job with the user's LD_PRELOAD ran" grep -qx ran home/out1
check "... and nothing of it ran as root" [ ! -e mark/root ]
as_nobody env "$asan_ok" LD_PRELOAD="$T/evil.so" LD_LIBRARY_PATH=/nonexistent sbatch --wait -o out2 \
	--wrap 'echo "$LD_PRELOAD"' >/dev/null
check "the job itself still sees its LD_PRELOAD" grep -qx "$T/evil.so" home/out2

# --chdir into a folder the user cannot enter
mkdir -p closed && chmod 700 closed
as_nobody sbatch --wait -D "$T/closed" -o "$T/home/out3" -e "$T/home/err3" --wrap pwd >/dev/null
check "a working folder the user cannot enter: the job runs in /tmp" grep -qx /tmp home/out3
check "... saying why, as slurmstepd does" grep -q "couldn't chdir to \`$T/closed': Permission denied: going to /tmp instead" d1.err
(cd "$T/closed" && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" timeout 20 srun pwd) >out4 2>err4
check "srun: tasks do not enter it either: they run in /tmp" grep -qx /tmp out4
check "... saying why" grep -q "couldn't chdir to \`$T/closed': Permission denied" err4

# output through a link to a root file
echo precious >target && chmod 644 target
ln -s "$T/target" home/link
as_nobody sbatch --wait -o "$T/home/link" --wrap 'echo overwritten' >/dev/null
check "output through a link to a root file is opened as the user: the file is intact" \
	grep -qx precious target

# bounded submissions, as the user
head -c 4200000 /dev/zero | tr '\0' '#' >pad
{ echo '#!/bin/sh'; cat pad; echo; } >home/big.sh
printf '#!/bin/sh\necho a\0b\n' >home/nul.sh
chmod 644 home/big.sh home/nul.sh
as_nobody sbatch big.sh >/dev/null 2>big.err
check "a script over max_script_size is refused" \
	grep -q "Batch job submission failed: Pathname of a file, directory or other parameter too long" big.err
as_nobody sbatch nul.sh >/dev/null 2>nul.err
check "a script with a NUL byte is refused" grep -q "does not allow scripts that contain a NULL character" nul.err
as_nobody sbatch --array=1-1000000 --wrap true >/dev/null 2>arr.err
check "an array over MaxArraySize is refused" grep -q "Invalid job array specification" arr.err
check "... naming the limit" grep -q "MaxArraySize" arr.err
check "an array within it is taken" as_nobody sbatch --array=0-1000 -o /dev/null --hold --wrap true
as_nobody scancel -u nobody

# a job name that tries to forge a line of scontrol show job
id=$(as_nobody sbatch --parsable --hold -J "$(printf 'x\n   UserId=root(0) GroupId=root(0)\033[2J')" --wrap true)
check "a job name cannot forge a line in scontrol show job" \
	sh -c "[ \$(scontrol show job $id | grep -c '^   UserId=') -eq 1 ]"
check "... it is shown escaped" \
	sh -c "scontrol show job $id | grep -qF 'JobName=x\\n   UserId=root(0) GroupId=root(0)\\x1b[2J'"
check "... in squeue too" sh -c "squeue -h -j $id -o %j | grep -qxF 'x\\n   UserId=root(0) GroupId=root(0)\\x1b[2J'"
as_nobody scancel "$id"

# a spool folder a user owns
mkdir -p userspool && chown nobody userspool
"$BUILD/src/agent/spurd" -f "$T/slurm.conf" -N mi1 -s "$T/userspool" 2>spool.err
check "an agent whose spool folder a user owns refuses to start" \
	grep -q "owned by uid 65534 or writable by others" spool.err
finish
