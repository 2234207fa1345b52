#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tokens for the authentication tests, made without Spur's code:
  jwt.py sign KEYFILE USER [EXP_FROM_NOW [ROLE [NODE]]]  HS256 with that key
  jwt.py none USER                                       alg "none", no signature
  jwt.py swap TOKEN USER                                 another user, same signature
"""
import base64, hashlib, hmac, json, sys, time


def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def token(head, claims, key):
    msg = b64(json.dumps(head).encode()) + "." + b64(json.dumps(claims).encode())
    sig = hmac.new(key, msg.encode(), hashlib.sha256).digest() if key else b""
    return msg + "." + b64(sig)


def main(a):
    now = int(time.time())
    if a[0] == "sign":
        key = open(a[1], "rb").read()
        claims = {"sun": a[2], "iat": now, "exp": now + int(a[3] if len(a) > 3 else 600)}
        if len(a) > 4:
            claims["spur_role"] = a[4]
        if len(a) > 5:
            claims["spur_node"] = a[5]
        print(token({"alg": "HS256", "typ": "JWT"}, claims, key))
    elif a[0] == "none":
        print(token({"alg": "none", "typ": "JWT"}, {"sun": a[1], "iat": now, "exp": now + 600}, None))
    elif a[0] == "swap":
        h, p, s = a[1].split(".")
        claims = json.loads(unb64(p))
        claims["sun"] = a[2]
        print(h + "." + b64(json.dumps(claims).encode()) + "." + s)


if __name__ == "__main__":
    main(sys.argv[1:])
