#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs code in a Jupyter notebook server the way its web page does, but
through Spur-Cloud's port proxy: POST BASE/api/kernels (a kernel), then a
WebSocket to BASE/api/kernels/ID/channels carrying an execute_request
(Jupyter's messaging protocol, JSON text frames), and prints what the
kernel's stream messages said.

jupyter_client.py PORT BASE TOKEN CODE EXPECT
  PORT: spur-cloud's port; BASE: the session's proxy path (ends with /);
  TOKEN: the user's Spur-Cloud token (never the notebook server's).
  Prints the kernel's creation status and its output; exit 0 when EXPECT
  was in it, 1 when not, 2 when no kernel was made.
"""
import json, sys, time, urllib.request, uuid

from ws_client import WS


def main():
    port, base, token, code, expect = sys.argv[1:6]
    req = urllib.request.Request(f"http://127.0.0.1:{port}{base}api/kernels", data=b"{}",
                                 method="POST",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            kernel = json.load(r)
            print("kernel", r.status, kernel.get("id"))
    except Exception as e:  # the status and body, for the test's log
        print("no kernel:", e, getattr(e, "read", lambda: b"")().decode(errors="replace"))
        return 2
    session = uuid.uuid4().hex
    ws = WS("127.0.0.1", int(port),
            f"{base}api/kernels/{kernel['id']}/channels?session_id={session}&access_token={token}",
            timeout=30)
    print(ws.status)
    if not ws.accepted:
        print(ws.rest.decode(errors="replace"))
        return 1
    msg_id = uuid.uuid4().hex
    ws.send(1, json.dumps({
        "header": {"msg_id": msg_id, "username": "spur", "session": session,
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False}}).encode())
    out, deadline = "", time.time() + 60
    try:
        while time.time() < deadline and expect not in out:
            op, payload = ws.recv()
            if op == 8:
                print("[closed by the server]")
                break
            if op != 1:
                continue
            m = json.loads(payload)
            if m.get("parent_header", {}).get("msg_id") == msg_id and \
                    m.get("msg_type") in ("stream", "error"):
                out += m["content"].get("text", "") + "".join(m["content"].get("traceback", []))
    except (EOFError, OSError) as e:
        print("[connection:", e, "]")
    print(out)
    try:
        ws.send(8, b"\x03\xe8")
    except OSError:
        pass
    return 0 if expect in out else 1


if __name__ == "__main__":
    sys.exit(main())
