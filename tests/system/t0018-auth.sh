#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Who may do what: the controller knows its local callers from the kernel
# (the Unix socket's peer credentials) and remote ones by a token signed
# with the cluster key; jobs run as the authenticated user whatever the
# request claims; users see and touch only their own jobs; root's jobs are
# refused by default. Forged, expired, unsigned and missing tokens, another
# user's job id, and an agent's role claimed by a user are all refused.
# Needs root (two test users, jobs run as them); skipped otherwise.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v runuser >/dev/null || ! command -v useradd >/dev/null; then
	echo "cases: 0 passed, 0 failed (needs root, runuser and useradd)"
	finish
	exit 77
fi
JWT="$(cd "$(dirname "$0")" && pwd)/jwt.py"
for u in spur-alice spur-bob; do id "$u" >/dev/null 2>&1 || useradd -M -r -s /bin/sh "$u"; done
cd "$T"
write_conf 1 gpu:mi300x:8
sed -i '/^DisableRootJobs/d' slurm.conf # Spur's default: root's jobs refused
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
KEY="$T/jwt_hs256.key"
check "the controller made the cluster key beside slurm.conf, for root alone" \
	sh -c "[ \"\$(stat -c %a '$KEY')\" = 600 ] && [ \"\$(stat -c %s '$KEY')\" -ge 32 ]"
chmod 755 "$T"
for u in alice bob; do mkdir -p "$T/$u" && chown "spur-$u" "$T/$u"; done
as() { # USER CMD...: run a command as spur-USER in its folder
	local u=$1
	shift
	(cd "$T/$u" && runuser -u "spur-$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" ${SLURM_JWT:+SLURM_JWT=$SLURM_JWT} "$@")
}

# --- identities
check "root's job is refused (DisableRootJobs defaults to YES)" \
	sh -c "! sbatch --wrap true 2>err && grep -q 'User ID missing from request' err && grep -q 'DisableRootJobs' err"
a1=$(as alice sbatch --parsable --hold --wrap 'id -un')
check "alice submits through the local socket" [ -n "$a1" ]
check "her job is hers" sh -c "squeue -h -j $a1 -o %u | grep -qx spur-alice"
claim=$(as alice python3 -c "
import json,socket,struct
s=socket.socket(socket.AF_UNIX); s.connect('\0spur/ctld/127.0.0.1:$PORT')
b=json.dumps({'type':'submit','job':{'script':'#!/bin/sh\nid -un','user':'root','uid':0,'gid':0,'workdir':'$T/alice','hold':True}}).encode()
s.sendall(struct.pack('>I',len(b))+b); n=struct.unpack('>I',s.recv(4))[0]; print(json.loads(s.recv(n))['job_id'])")
check "a job claiming to be root's is alice's" sh -c "squeue -h -j $claim -o '%u %i' | grep -qx 'spur-alice $claim'"
scontrol release "$a1" "$claim"
check "alice's jobs run as alice" wait_until 20 sh -c "grep -qx spur-alice alice/slurm-$a1.out && grep -qx spur-alice alice/slurm-$claim.out"

# --- users see and touch only their own jobs
a2=$(as alice sbatch --parsable --hold --wrap 'sleep 300')
check "bob does not see alice's jobs" sh -c "[ -z \"\$(cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH squeue -h)\" ]"
check "alice sees hers" sh -c "[ \"\$(cd /; runuser -u spur-alice -- env SLURM_CONF=$SLURM_CONF PATH=$PATH squeue -h -o %i)\" = $a2 ]"
check "root sees everyone's" sh -c "squeue -h -o %i | grep -qx $a2"
check "bob cannot look at her job" sh -c "! (cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol show job $a2) 2>err && grep -q 'Invalid job id specified' err"
check "bob cannot cancel her job" sh -c "! (cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scancel $a2) 2>err && grep -q \"Kill job error on job id $a2: Access/permission denied\" err"
check "nor release it" sh -c "! (cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol release $a2) 2>/dev/null"
check "nor change it" sh -c "! (cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol update JobId=$a2 Name=x) 2>/dev/null"
check "scancel -u spur-alice by bob cancels nothing" sh -c "(cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scancel -u spur-alice); squeue -h -j $a2 -o %T | grep -qx PENDING"
check "bob's sacct holds none of hers" sh -c "[ -z \"\$(cd /; runuser -u spur-bob -- env SLURM_CONF=$SLURM_CONF PATH=$PATH sacct -n -X -j $a1 -o JobID)\" ]"
check "alice may not raise her own time limit" sh -c "! (cd /; runuser -u spur-alice -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol update JobId=$a2 TimeLimit=2-00:00:00) 2>/dev/null"
check "nor drain a node" sh -c "! (cd /; runuser -u spur-alice -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol update NodeName=mi1 State=DRAIN Reason=x) 2>err && grep -q 'Access/permission denied' err"
check "alice cancels her own" sh -c "cd /; runuser -u spur-alice -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scancel $a2"

# --- tokens over TCP
export RAW_TCP=1
check "a request without credentials is refused" \
	raw_says '{"type":"queue"}' 'Protocol authentication error'
check "ping needs none" raw_says '{"type":"ping"}' 'ok'
tok=$(as alice scontrol token lifespan=600 | sed -n 's/^SLURM_JWT=//p')
check "scontrol token prints SLURM_JWT=..." sh -c "[ \$(echo '$tok' | tr -cd . | wc -c) = 2 ]"
t1=$(raw "{\"type\":\"submit\",\"auth\":\"$tok\",\"job\":{\"script\":\"#!/bin/sh\\nid -un\",\"workdir\":\"$T/alice\",\"hold\":true}}" | awk '{print $1}')
check "alice's token submits as alice over TCP" sh -c "squeue -h -j $t1 -o %u | grep -qx spur-alice"
check "a token signed with another key is refused" raw_says \
	"{\"type\":\"queue\",\"auth\":\"$(head -c 48 /dev/urandom >other.key && chmod 600 other.key && "$JWT" sign other.key root)\"}" 'bad signature'
check "an expired token is refused" raw_says \
	"{\"type\":\"queue\",\"auth\":\"$("$JWT" sign "$KEY" spur-alice -5)\"}" 'token expired'
check "an unsigned token (alg none) is refused" raw_says \
	"{\"type\":\"queue\",\"auth\":\"$("$JWT" none root)\"}" 'invalid token'
check "alice's token turned into root's is refused" raw_says \
	"{\"type\":\"queue\",\"auth\":\"$("$JWT" swap "$tok" root)\"}" 'bad signature'
check "garbage is refused" raw_says '{"type":"queue","auth":"a.b.c"}' 'invalid token'
check "alice's token may not act as bob" raw_says \
	"{\"type\":\"queue\",\"auth\":\"$tok\",\"as_user\":\"spur-bob\"}" 'spur-alice may not act as spur-bob'
check "alice may not get bob's token" sh -c "! (cd /; runuser -u spur-alice -- env SLURM_CONF=$SLURM_CONF PATH=$PATH scontrol token username=spur-bob) 2>err && grep -q 'Access/permission denied' err"
rtok=$(scontrol token username=root lifespan=60 | sed -n 's/^SLURM_JWT=//p')
check "root's token acts as alice (X-SLURM-USER-NAME)" raw_says \
	"{\"type\":\"cancel\",\"auth\":\"$rtok\",\"as_user\":\"spur-alice\",\"job_id\":$t1}" 'ok'
check "a bad lifespan is refused" sh -c "! scontrol token lifespan=0 2>/dev/null && ! scontrol token lifespan=x 2>/dev/null"
sbatch_alice_held=$(as alice sbatch --parsable --hold --wrap true)
check "SLURM_JWT works for the CLI too: root's squeue with alice's token shows hers alone" \
	sh -c "[ \"\$(SLURM_JWT=$tok squeue -h -o %i)\" = $sbatch_alice_held ]"

# --- agents
check "a user cannot register as a node" raw_says \
	"{\"type\":\"register\",\"node\":\"mi1\",\"auth\":\"$tok\",\"cpus\":8}" 'not an agent'
check "nor report a job's end" raw_says \
	"{\"type\":\"finished\",\"job_id\":$a1,\"exit_code\":0,\"auth\":\"$tok\"}" 'not an agent'
check "an agent token is for its own node only" raw_says \
	"{\"type\":\"register\",\"node\":\"mi1\",\"auth\":\"$("$JWT" sign "$KEY" root 60 agent mi9)\"}" 'not an agent'
# --- controllers: the Raft port (PORT+4) takes only connections with the key
raft_hello() { # TOKEN: libraft's handshake, then Spur's; prints the byte back or "closed"
	python3 - "$((PORT + 4))" "$1" <<'PY'
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
addr = b"127.0.0.1:1"
pad = (len(addr) + 1 + 7) // 8 * 8
s.sendall(struct.pack("<QQQ", 1, 99, pad) + addr.ljust(pad, b"\0"))
tok = sys.argv[2].encode()
s.sendall(struct.pack(">I", len(tok)) + tok)
try:
    b = s.recv(1)
    print(b.decode() if b else "closed")
except OSError:
    print("closed")
PY
}
check "a Raft connection with a controller's token is let through" \
	sh -c "[ \"$(raft_hello "$("$JWT" sign "$KEY" root 60 controller)")\" = K ]"
check "one with a user's token is closed" \
	sh -c "[ \"$(raft_hello "$tok")\" = closed ]"
check "one signed with another key is closed" \
	sh -c "[ \"$(raft_hello "$("$JWT" sign other.key root 60 controller)")\" = closed ]"
check "one with garbage is closed" sh -c "[ \"$(raft_hello garbage)\" = closed ]"
check "the controller says why" grep -q 'Raft connection from 127.0.0.1:1 (id 99) refused' ctld.log
unset RAW_TCP
check "the node stayed up through all that" nodes_idle 1
check "a key readable by others is refused" sh -c "chmod 644 '$KEY' && ! '$BUILD/src/ctld/spurctld' -f slurm.conf -p $((PORT + 1)) -s '$T/st2' 2>err; chmod 600 '$KEY'; grep -q 'readable by others' err"
finish
