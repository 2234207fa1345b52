#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""httpreq.py METHOD URL [BODY|@FILE] [TOKEN [USER]]: one HTTP request; prints the
status on the first line, then the body. Extra headers: $HTTP_HEADERS
("Name: value" lines)."""
import os, sys, urllib.error, urllib.request

method, url = sys.argv[1], sys.argv[2]
body = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
if body and body.startswith("@"):
    body = open(body[1:], "rb").read()
elif body:
    body = body.encode()
req = urllib.request.Request(url, data=body, method=method)
if len(sys.argv) > 4 and sys.argv[4]:
    req.add_header("X-SLURM-USER-TOKEN", sys.argv[4])
if len(sys.argv) > 5 and sys.argv[5]:
    req.add_header("X-SLURM-USER-NAME", sys.argv[5])
for line in os.environ.get("HTTP_HEADERS", "").splitlines():
    if ":" in line:
        k, v = line.split(":", 1)
        req.add_header(k.strip(), v.strip())
if body:
    req.add_header("Content-Type", "application/json")
try:
    with urllib.request.urlopen(req, timeout=30) as r:
        status, data = r.status, r.read()
except urllib.error.HTTPError as e:
    status, data = e.code, e.read()
except (urllib.error.URLError, OSError) as e:
    print("000")
    print(e, file=sys.stderr)
    sys.exit(1)
print(status)
sys.stdout.write(data.decode(errors="replace"))
