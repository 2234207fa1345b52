#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# SSH into Spur-Cloud sessions with Debian's real OpenSSH (ssh, sshd,
# ssh-keygen) on a real cluster (a controller and one agent, on loopback)
# and a real PostgreSQL: a session started with the user's public key runs
# its own sshd inside its job, and `ssh` with spur-cloud-ssh as its
# ProxyCommand (a WebSocket through the service) logs in and runs commands
# there; a key not given is refused by that sshd, another organisation and
# a viewer by the service, a session without keys has no SSH (409); bad
# keys are refused (400); the same over the service on HTTPS (TLS, its
# certificate checked). Skipped without openssh-server on this host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null ||
	{ echo "cases: 0 passed, 0 failed (needs openssh-server and openssh-client)"; finish; exit 0; }
trap 'pg_stop; cleanup' EXIT
one_node_cloud
three_users
ssh-keygen -q -t ed25519 -N '' -C 'ann@laptop' -f "$T/ann_key"
ssh-keygen -q -t ed25519 -N '' -f "$T/other_key"
KEY=$(cat "$T/ann_key.pub")

check "a key that is not one: 400" test "$(status POST /v1/orgs/alpha/projects/train/sessions \
	'{"template":"shell","time_limit":5,"ssh_keys":["ssh-ed25519 not base64!"]}' "$ann")" = 400
check "keys with an image session: 400" test "$(status POST /v1/orgs/alpha/projects/train/sessions \
	"{\"template\":\"image\",\"image\":\"/x\",\"time_limit\":5,\"ssh_keys\":[\"$KEY\"]}" "$ann")" = 400
out=$(api POST /v1/orgs/alpha/projects/train/sessions "{\"name\":\"s\",\"template\":\"shell\",\"gpus\":1,\"time_limit\":5,\"ssh_keys\":[\"$KEY\"]}" "$ann")
check "ann starts a shell session with her public key (201)" test "$(echo "$out" | tail -1)" = 201
s=$(echo "$out" | jget '["id"]')
job=$(echo "$out" | jget '["job_id"]')
sshp=$(echo "$out" | jget '["ssh_port"]')
check "... its SSH server's port is in the answer" bash -c "[ '$sshp' -ge 40000 ] && [ '$sshp' -lt 60000 ]"
check "... and it runs" wait_until 20 bash -c "squeue -h -j $job -o %T | grep -qx RUNNING"
URL="http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s/ssh"
PROXY="$BUILD/src/cloud/spur-cloud-ssh $URL"
SSHO=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=20 -o IdentitiesOnly=yes)
login() { # TOKEN KEY COMMAND
	SPUR_CLOUD_TOKEN=$1 timeout 40 ssh "${SSHO[@]}" -i "$2" -o ProxyCommand="$PROXY" "$(id -un)@session-$s" "$3"
}
check "ssh through the service (spur-cloud-ssh as ProxyCommand) runs a command in the session's job" \
	wait_until 30 bash -c "$(declare -f login); SSHO=(${SSHO[*]}); PROXY='$PROXY'; s=$s; login '$ann' '$T/ann_key' 'echo in \$SLURM_JOB_ID on \$SLURMD_NODENAME' 2>'$T/ssh.err' | grep -qx 'in $job on mi1'"
check "... with stdin and the exit status carried (scp-like use)" \
	bash -c "$(declare -f login); SSHO=(${SSHO[*]}); PROXY='$PROXY'; s=$s; out=\$(seq 1000 | login '$ann' '$T/ann_key' 'wc -l; exit 3' 2>/dev/null); rc=\$?; [ \"\$out\" = 1000 ] && [ \$rc = 3 ]"
check "a key the session was not given: refused by its SSH server" \
	bash -c "$(declare -f login); SSHO=(${SSHO[*]}); PROXY='$PROXY'; s=$s; ! login '$ann' '$T/other_key' true 2>'$T/ssh.other'" 
check "bob (another organisation): refused by the service (404)" \
	bash -c "! SPUR_CLOUD_TOKEN='$bob' '$BUILD/src/cloud/spur-cloud-ssh' '$URL' </dev/null 2>'$T/bob.err' && grep -q ' 404 ' '$T/bob.err'"
check "vic (viewer): refused by the service (403)" \
	bash -c "! SPUR_CLOUD_TOKEN='$vic' '$BUILD/src/cloud/spur-cloud-ssh' '$URL' </dev/null 2>'$T/vic.err' && grep -q ' 403 ' '$T/vic.err'"
# the service on HTTPS (a second one, same database): ssh over TLS, the
# service's certificate checked against SPUR_CLOUD_CA and the host's name
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost -keyout "$T/tls.key" -out "$T/tls.crt" 2>/dev/null
HPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$CLOUD" -d "$PG_CONNINFO" -p "$HPORT" -L "$T/cloud-tls.log" --cert "$T/tls.crt" --key "$T/tls.key" \
	-f "$T/slurm.conf" 2>>"$T/cloud.err" &
echo $! >>"$T/agents.pid"
wait_until 20 curl -sf --cacert "$T/tls.crt" "https://localhost:$HPORT/openapi.json" -o /dev/null
HPROXY="$BUILD/src/cloud/spur-cloud-ssh https://localhost:$HPORT/v1/orgs/alpha/sessions/$s/ssh"
tls_login() { SPUR_CLOUD_CA="$T/tls.crt" SPUR_CLOUD_TOKEN=$ann timeout 40 ssh "${SSHO[@]}" -i "$T/ann_key" -o ProxyCommand="$HPROXY" "$(id -un)@session-$s" 'echo over tls in $SLURM_JOB_ID'; }
check "ssh through the service on HTTPS (TLS, its certificate checked): a command in the job" bash -c "$(declare -f tls_login); SSHO=(${SSHO[*]}); T='$T'; HPROXY='$HPROXY'; ann='$ann'; s=$s; tls_login 2>'$T/tls.err' | grep -qx 'over tls in $job'"
check "... and a certificate it cannot check is refused (no SPUR_CLOUD_CA)" \
	bash -c "! SPUR_CLOUD_TOKEN='$ann' '$BUILD/src/cloud/spur-cloud-ssh' 'https://localhost:$HPORT/v1/orgs/alpha/sessions/$s/ssh' </dev/null 2>'$T/tls.bad' && grep -q 'TLS with the service failed' '$T/tls.bad'"
check "no token: spur-cloud-ssh says so, exit 1" \
	bash -c "env -u SPUR_CLOUD_TOKEN '$BUILD/src/cloud/spur-cloud-ssh' '$URL' </dev/null 2>&1 | grep -q 'SPUR_CLOUD_TOKEN'"
out=$(api POST /v1/orgs/alpha/projects/train/sessions '{"template":"shell","time_limit":5}' "$ann")
s2=$(echo "$out" | jget '["id"]')
j2=$(echo "$out" | jget '["job_id"]')
wait_until 20 bash -c "squeue -h -j $j2 -o %T | grep -qx RUNNING"
check "a session started without keys: no SSH (409)" \
	bash -c "! SPUR_CLOUD_TOKEN='$ann' '$BUILD/src/cloud/spur-cloud-ssh' 'http://127.0.0.1:$CPORT/v1/orgs/alpha/sessions/$s2/ssh' </dev/null 2>'$T/nokey.err' && grep -q ' 409 ' '$T/nokey.err'"
check "the keys are in no log of the service nor in the job's description" \
	bash -c "! grep -qF '$(cut -d' ' -f2 "$T/ann_key.pub")' '$T/cloud.log' '$T/cloud.err' && ! scontrol show job $job | grep -qF '$(cut -d' ' -f2 "$T/ann_key.pub")'"
api DELETE "/v1/orgs/alpha/sessions/$s" '' "$ann" >/dev/null
api DELETE "/v1/orgs/alpha/sessions/$s2" '' "$ann" >/dev/null
check "stopped, the session's SSH server goes with its job" \
	wait_until 20 bash -c "! (echo > /dev/tcp/127.0.0.1/$sshp) 2>/dev/null"
finish
