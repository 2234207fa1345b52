#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in OpenID Connect provider for t0050: a fake, since no OpenID
provider that runs here ships in Debian 12. It speaks what spur-cloud
uses, as real providers do: discovery, an authorization endpoint that
approves at once (as if the user signed in and consented), a token
endpoint that checks the client's basic credentials and the code, and a
JWKS; ID tokens are RS256 JWTs signed with a 2048-bit RSA key made at
start (python3-cryptography).

fake_oidc.py PORT CLIENT_ID CLIENT_SECRET EMAIL
GET /mode?m=M makes the next ID tokens wrong in one way, to be refused:
badsig (another key), aud, iss, expired, nonce, unverified, none (alg
none, no signature), hs256 (an HMAC keyed with the public key's PEM: the
algorithm confusion attack); good puts it right.
"""
import base64, hashlib, hmac, http.server, json, secrets, sys, time, urllib.parse

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

port, client_id, client_secret, email = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
issuer = f"http://127.0.0.1:{port}"
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
state = {"mode": "good", "codes": {}}


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def id_token(nonce):
    mode, now = state["mode"], int(time.time())
    claims = {"iss": issuer, "sub": "u-1", "aud": client_id, "iat": now, "exp": now + 300,
              "nonce": nonce, "email": email, "email_verified": True}
    if mode == "aud":
        claims["aud"] = "someone-else"
    if mode == "iss":
        claims["iss"] = "http://127.0.0.1:1"
    if mode == "expired":
        claims["exp"] = now - 60
    if mode == "nonce":
        claims["nonce"] = "0" * 32
    if mode == "unverified":
        claims["email_verified"] = False
    alg = {"none": "none", "hs256": "HS256"}.get(mode, "RS256")
    head = b64u(json.dumps({"alg": alg, "typ": "JWT", "kid": "k1"}).encode())
    signing = head + "." + b64u(json.dumps(claims).encode())
    if alg == "none":
        return signing + "."
    if alg == "HS256":
        pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)
        return signing + "." + b64u(hmac.new(pem, signing.encode(), hashlib.sha256).digest())
    signer = other if mode == "badsig" else key
    return signing + "." + b64u(signer.sign(signing.encode(), padding.PKCS1v15(), hashes.SHA256()))


class Provider(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/.well-known/openid-configuration":
            self.send(200, {"issuer": issuer, "authorization_endpoint": issuer + "/auth",
                            "token_endpoint": issuer + "/token", "jwks_uri": issuer + "/jwks",
                            "id_token_signing_alg_values_supported": ["RS256"]})
        elif url.path == "/jwks":
            n = key.public_key().public_numbers()
            self.send(200, {"keys": [{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
                                      "n": b64u(n.n.to_bytes((n.n.bit_length() + 7) // 8, "big")),
                                      "e": b64u(n.e.to_bytes(3, "big"))}]})
        elif url.path == "/auth":
            if q.get("client_id") != client_id or q.get("response_type") != "code":
                return self.send(400, {"error": "invalid_request"})
            code = secrets.token_hex(16)
            state["codes"][code] = (q.get("nonce", ""), q.get("redirect_uri"))
            loc = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": q.get("state", "")})
            self.send(302, {}, [("Location", loc)])
        elif url.path == "/mode":
            state["mode"] = q.get("m", "good")
            self.send(200, {"mode": state["mode"]})
        else:
            self.send(404, {"error": "not_found"})

    def do_POST(self):
        form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()))
        auth = self.headers.get("Authorization", "")
        want = "Basic " + base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
        if self.path != "/token" or auth != want:
            return self.send(401, {"error": "invalid_client"})
        got = state["codes"].pop(form.get("code", ""), None)
        if not got or form.get("grant_type") != "authorization_code" or form.get("redirect_uri") != got[1]:
            return self.send(400, {"error": "invalid_grant"})
        self.send(200, {"access_token": secrets.token_hex(16), "token_type": "Bearer",
                        "expires_in": 300, "id_token": id_token(got[0])})


http.server.HTTPServer(("127.0.0.1", port), Provider).serve_forever()
