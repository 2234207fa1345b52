#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Spur-Cloud's OpenID Connect sign-in, the authorization code flow, on a
# real PostgreSQL: spur-cloud against a stand-in provider
# (tests/system/fake_oidc.py: a fake, since no OpenID provider that runs
# here ships in Debian 12; it signs RS256 ID tokens with its own RSA key
# and serves discovery, authorize, token and JWKS as providers do). A
# browser's redirects are followed by hand: login -> provider -> callback
# -> the console with a login token. The same email signs in as the same
# user; a state is used once; ID tokens wrong in any way (another key,
# audience, issuer, expired, nonce, an unverified email, alg none, an HMAC
# keyed with the public key) are refused and sign no one in.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pglib.sh"
[ -x "$CLOUD" ] || { echo "cases: 0 passed, 0 failed (spur-cloud not built: libpq-dev, libsodium-dev)"; finish; exit 0; }
[ -x "$PG_BIN/initdb" ] || { echo "cases: 0 passed, 0 failed (needs postgresql)"; finish; exit 0; }
python3 -c 'import cryptography' 2>/dev/null ||
	{ echo "cases: 0 passed, 0 failed (the stand-in provider needs python3-cryptography)"; finish; exit 0; }
trap 'stop_cloud; pg_stop; cleanup' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$T"
check "PostgreSQL starts in the test's folder" pg_start
OP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$HERE/fake_oidc.py" "$OP" spur-cloud s3cret ann@example.org 2>"$T/op.err" &
echo $! >>"$T/agents.pid"
check "the stand-in provider serves its discovery document" \
	wait_until 20 curl -sf "http://127.0.0.1:$OP/.well-known/openid-configuration" -o /dev/null
echo s3cret >secret
check "half the OpenID options: refused, exit 2" \
	sh -c "'$CLOUD' -d '$PG_CONNINFO' -p 1 --oidc-issuer http://127.0.0.1:$OP 2>err.txt; [ \$? = 2 ] && grep -q 'OpenID Connect needs' err.txt"
check "spur-cloud starts with OpenID Connect" start_cloud --oidc-issuer "http://127.0.0.1:$OP" \
	--oidc-client-id spur-cloud --oidc-client-secret-file "$T/secret" \
	--oidc-redirect-uri "http://127.0.0.1:$CPORT/v1/oidc/callback"
# signin [MODE]: the browser's way through, each redirect followed by hand;
# prints each hop's status and the last Location
signin() {
	curl -sf "http://127.0.0.1:$OP/mode?m=${1:-good}" -o /dev/null
	python3 - "$CPORT" <<'PY'
import sys, urllib.request, urllib.error
class Stop(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None
op = urllib.request.build_opener(Stop)
url = "http://127.0.0.1:%s/v1/oidc/login" % sys.argv[1]
for hop in range(3):
    try:
        r = op.open(url, timeout=20)
        print(r.status, r.read().decode())
        break
    except urllib.error.HTTPError as e:
        loc = e.headers.get("Location")
        print(e.code, loc or e.read().decode())
        if not loc:
            break
        url = loc if loc.startswith("http") else "http://127.0.0.1:%s%s" % (sys.argv[1], loc)
        if "/v1/oidc/callback" in url:
            open("callback_url", "w").write(url)
PY
}
signin >good.txt
tok=$(sed -n 's|^302 /console#token=\(spc_[0-9a-f_]*\)$|\1|p' good.txt)
check "login sends the browser to the provider, which sends it back, and on to the console with a login token" \
	sh -c "[ \$(grep -c '^302 ' good.txt) = 3 ] && [ -n '$tok' ]"
me_is() { api GET /v1/me '' "$1" | head -1 | grep -q '"email":"ann@example.org","admin":false'; }
check "... which is ann@example.org's" me_is "$tok"
again() {
	local t
	signin >again.txt
	t=$(sed -n 's|^302 /console#token=\(spc_[0-9a-f_]*\)$|\1|p' again.txt)
	[ -n "$t" ] && [ "$t" != "$tok" ] && me_is "$t" &&
		[ "$(psql_q "SELECT count(*) FROM users WHERE email = 'ann@example.org'")" = 1 ]
}
check "a second sign-in: the same user (a new token)" again
check "the callback again (its state used): 400" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$(cat callback_url)")" = 400
check "a made-up state: 400" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CPORT/v1/oidc/callback?code=x&state=0123456789abcdef0123456789abcdef")" = 400
check "no password signs an OpenID user in (401)" \
	test "$(status POST /v1/login '{"email":"ann@example.org","password":"!oidc"}')" = 401
for m in badsig aud iss expired nonce unverified none hs256; do
	signin "$m" >"bad-$m.txt"
	check "an ID token with $m: refused (401), no token" \
		sh -c "tail -1 bad-$m.txt | grep -q '^401 ' && ! grep -q 'token=' bad-$m.txt"
done
check "the refusals are logged" grep -q "OpenID Connect: the ID token" "$T/cloud.log"
finish
