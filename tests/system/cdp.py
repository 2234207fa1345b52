#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drive a headless Chromium through its DevTools protocol, in real time
(--dump-dom's virtual time does not wait for a WebSocket's answers).

cdp.py CHROMIUM_PORT URL EXPR EXPECT [SECONDS]
  opens URL in Chromium's first page (Chromium started with
  --remote-debugging-port=CHROMIUM_PORT), then evaluates the JavaScript
  EXPR every 100 ms until its value (a string) holds EXPECT, for SECONDS
  (20). Prints the last value; exit 0 when EXPECT was seen, else 1. Then
  it closes the browser (Browser.close), children and all.
"""
import json, sys, time, urllib.request

sys.path.insert(0, __import__("os").path.dirname(__file__))
from ws_client import WS  # noqa: E402


def main():
    port, url, expr, expect = sys.argv[1:5]
    secs = float(sys.argv[5]) if len(sys.argv) > 5 else 20
    deadline = time.time() + 20
    while True:
        try:
            pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2))
            page = next(p for p in pages if p.get("type") == "page")
            break
        except (OSError, StopIteration, ValueError):
            if time.time() > deadline:
                print("no Chromium page to drive")
                return 1
            time.sleep(0.2)
    ws = WS("127.0.0.1", int(port), page["webSocketDebuggerUrl"].split(str(port), 1)[1])
    seq = 0

    def call(method, **params):
        nonlocal seq
        seq += 1
        ws.send(1, json.dumps({"id": seq, "method": method, "params": params}).encode())
        while True:
            op, payload = ws.recv()
            m = json.loads(payload)
            if m.get("id") == seq:
                return m.get("result", {})

    call("Page.navigate", url=url)
    value, deadline = "", time.time() + secs
    while time.time() < deadline:
        r = call("Runtime.evaluate", expression=expr, returnByValue=True)
        value = str(r.get("result", {}).get("value", ""))
        if expect in value:
            break
        time.sleep(0.1)
    print(value)
    try:
        v = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2))
        b = WS("127.0.0.1", int(port), v["webSocketDebuggerUrl"].split(str(port), 1)[1])
        b.send(1, json.dumps({"id": 1, "method": "Browser.close"}).encode())
        b.recv()
    except (OSError, EOFError, ValueError, KeyError):
        pass
    return 0 if expect in value else 1


if __name__ == "__main__":
    sys.exit(main())
