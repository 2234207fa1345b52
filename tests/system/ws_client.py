#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A WebSocket client (RFC 6455, by hand: Debian's python3 has no library
for it) for the system tests of Spur-Cloud's terminal.

ws_client.py PORT PATH TOKEN INPUT EXPECT
  opens ws://127.0.0.1:PORT/PATH?access_token=TOKEN, checks the 101 and its
  Sec-WebSocket-Accept, sends a resize and then INPUT (masked binary
  frames), reads binary frames until EXPECT is seen (20 s), sends a close.
  Prints the handshake's status line, then what the terminal sent.
  Exit 0 when EXPECT was seen, 1 when not, 2 when the upgrade was refused
  (its status and body printed).
"""
import base64, hashlib, os, socket, struct, sys, time

def frame(op, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | op])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

def main():
    port, path, token, data, expect = sys.argv[1:6]
    key = base64.b64encode(os.urandom(16)).decode()
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=20)
    s.sendall((f"GET {path}?access_token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        got = s.recv(4096)
        if not got:
            break
        buf += got
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    print(lines[0])
    if " 101 " not in lines[0]:
        print(rest.decode(errors="replace"))
        return 2
    want = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                         .encode()).digest()).decode()
    fields = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    if fields.get("sec-websocket-accept") != want:
        print("bad Sec-WebSocket-Accept:", fields.get("sec-websocket-accept"))
        return 1
    s.sendall(frame(1, b'{"rows":30,"cols":100}'))
    s.sendall(frame(2, data.encode().decode("unicode_escape").encode()))
    out, deadline = b"", time.time() + 20
    while time.time() < deadline and expect.encode() not in out:
        while len(rest) < 2 or len(rest) < hdr_len(rest):
            got = s.recv(65536)
            if not got:
                break
            rest += got
        if len(rest) < 2 or len(rest) < hdr_len(rest):
            break
        op, n, h = rest[0] & 15, rest[1] & 127, 2
        if n == 126:
            n, h = struct.unpack(">H", rest[2:4])[0], 4
        elif n == 127:
            n, h = struct.unpack(">Q", rest[2:10])[0], 10
        while len(rest) < h + n:
            got = s.recv(65536)
            if not got:
                break
            rest += got
        payload, rest = rest[h:h + n], rest[h + n:]
        if op == 8:
            print("[closed by the server]")
            break
        out += payload
    sys.stdout.write(out.decode(errors="replace"))
    print()
    try:
        s.sendall(frame(8, b"\x03\xe8"))
    except OSError:
        pass
    return 0 if expect.encode() in out else 1

def hdr_len(b):
    n = b[1] & 127
    return 2 if n < 126 else 4 if n == 126 else 10

sys.exit(main())
