#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A WebSocket client (RFC 6455, by hand: Debian's python3 has no library
for it) for the system tests: Spur-Cloud's terminal, and Chromium's
DevTools protocol (cdp.py imports it).

ws_client.py PORT PATH TOKEN INPUT EXPECT
  opens ws://127.0.0.1:PORT/PATH?access_token=TOKEN, checks the 101 and its
  Sec-WebSocket-Accept, sends a resize and then INPUT (masked binary
  frames), reads binary frames until EXPECT is seen (20 s), sends a close.
  Prints the handshake's status line, then what the terminal sent.
  Exit 0 when EXPECT was seen, 1 when not, 2 when the upgrade was refused
  (its status and body printed).
"""
import base64, hashlib, os, socket, struct, sys, time

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WS:
    def __init__(self, host, port, path, timeout=20):
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.s = socket.create_connection((host, port), timeout=timeout)
        self.s.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {self.key}\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        buf = b""
        while b"\r\n\r\n" not in buf:
            got = self.s.recv(4096)
            if not got:
                break
            buf += got
        head, _, self.rest = buf.partition(b"\r\n\r\n")
        lines = head.decode(errors="replace").split("\r\n")
        self.status = lines[0]
        self.fields = {k.strip().lower(): v.strip()
                       for k, _, v in (l.partition(":") for l in lines[1:])}
        want = base64.b64encode(hashlib.sha1((self.key + GUID).encode()).digest()).decode()
        self.accepted = " 101 " in self.status and self.fields.get("sec-websocket-accept") == want

    def send(self, op, payload):
        mask, n = os.urandom(4), len(payload)
        head = bytes([0x80 | op])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _need(self, n):
        while len(self.rest) < n:
            got = self.s.recv(65536)
            if not got:
                raise EOFError
            self.rest += got

    def recv(self):
        """One frame: (opcode, payload)."""
        self._need(2)
        op, n, h = self.rest[0] & 15, self.rest[1] & 127, 2
        if n == 126:
            self._need(4)
            n, h = struct.unpack(">H", self.rest[2:4])[0], 4
        elif n == 127:
            self._need(10)
            n, h = struct.unpack(">Q", self.rest[2:10])[0], 10
        self._need(h + n)
        payload, self.rest = self.rest[h:h + n], self.rest[h + n:]
        return op, payload


def main():
    port, path, token, data, expect = sys.argv[1:6]
    ws = WS("127.0.0.1", int(port), f"{path}?access_token={token}")
    print(ws.status)
    if " 101 " not in ws.status:
        print(ws.rest.decode(errors="replace"))
        return 2
    if not ws.accepted:
        print("bad Sec-WebSocket-Accept:", ws.fields.get("sec-websocket-accept"))
        return 1
    ws.send(1, b'{"rows":30,"cols":100}')
    ws.send(2, data.encode().decode("unicode_escape").encode())
    out, deadline = b"", time.time() + 20
    try:
        while time.time() < deadline and expect.encode() not in out:
            op, payload = ws.recv()
            if op == 8:
                print("[closed by the server]")
                break
            out += payload
    except (EOFError, OSError):
        pass
    sys.stdout.write(out.decode(errors="replace"))
    print()
    try:
        ws.send(8, b"\x03\xe8")
    except OSError:
        pass
    return 0 if expect.encode() in out else 1


if __name__ == "__main__":
    sys.exit(main())
