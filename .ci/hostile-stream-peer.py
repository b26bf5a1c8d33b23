"""A hostile peer of Loupe's streams for .ci/e2e-hostile-streams.sh (issue 44), on raw sockets: every frame and line
is written here by hand, because the misbehaviour is the point and no WebSocket or SSE library will send it.

Usage: hostile-stream-peer.py [PORT]. Binds 127.0.0.1 (PORT 0 or none: any free port), prints the port on its first
line. Every WebSocket close frame a client sends is appended to the file named by $PEER_LOG as
"PATH close CODE" (what went on the wire), every connection as "PATH connect".

Server-sent events (HTTP/1.1, one response per connection):
/sse/retry0      `retry: 0`, one event, then closes: a reconnect storm for a client that obeys
/sse/secrets     one event {"password": "pw1", "otp": "4821", "client_secret": "cs9Z7"}, then closes
WebSocket:
/ws/silent       reads the handshake and never answers
/ws/hangup       reads the handshake and closes the socket without answering
/ws/bomb         agrees to permessage-deflate and sends one message that inflates to 32 MiB, then closes with 1000
/ws/big          sends one 17 MiB text message in 1 MiB fragments, then waits for the client's close
/ws/close/CODE   closes at once with CODE (1005, 1006, 999, 1015, 5000: never valid on the wire)
/ws/badutf8      sends a text frame that is not UTF-8
/ws/masked       sends a masked text frame (a server must not mask)
/ws/secrets      sends `42["login",{"password":"pw1","otp":"4821"}]` (socket.io style: JSON after a prefix),
                 then closes with 1000
"""
import asyncio
import base64
import hashlib
import os
import struct
import sys
import zlib

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
LOG = os.environ.get("PEER_LOG")


def log(line):
    if LOG:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def frame(opcode, payload, fin=True, rsv1=False, mask=None):
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    length = len(payload)
    masked = 0x80 if mask else 0
    if length < 126:
        head = struct.pack("!BB", first, masked | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", first, masked | 126, length)
    else:
        head = struct.pack("!BBQ", first, masked | 127, length)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return head + mask + payload
    return head + payload


async def read_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    mask = await reader.readexactly(4) if second & 0x80 else None
    payload = await reader.readexactly(length)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, payload


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return path, headers


async def sse(writer, body):
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                 b"Connection: close\r\n\r\n" + body)
    await writer.drain()
    writer.close()


async def until_client_close(path, reader, writer, answer=True):
    """Reads the client's frames until its close; logs the close's code; answers it."""
    try:
        while True:
            opcode, payload = await asyncio.wait_for(read_frame(reader), 20)
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else "none"
                log(f"{path} close {code}")
                if answer:
                    writer.write(frame(0x8, payload[:2]))
                    await writer.drain()
                return
    except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError):
        log(f"{path} dropped")


async def handle(reader, writer):
    try:
        path, headers = await read_head(reader)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    log(f"{path} connect")
    if path == "/sse/retry0":
        return await sse(writer, b"retry: 0\ndata: x\n\n")
    if path == "/sse/secrets":
        return await sse(writer, b'data: {"password": "pw1", "otp": "4821", "client_secret": "cs9Z7"}\n\n')
    if path == "/ws/silent":
        await asyncio.sleep(3600)
        return
    if path == "/ws/hangup":
        writer.close()
        return
    key = headers.get("sec-websocket-key", "")
    accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
    deflate = path == "/ws/bomb" and "permessage-deflate" in headers.get("sec-websocket-extensions", "")
    writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept}\r\n"
                  + ("Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else "") + "\r\n").encode())
    await writer.drain()
    await asyncio.sleep(0.3)  # the client's handlers in place first (.ci/ws-server.py's /drop says why)
    if path == "/ws/bomb":
        if not deflate:
            writer.write(frame(0x1, b"no permessage-deflate offered"))
        else:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = compressor.compress(b"a" * (32 << 20)) + compressor.flush(zlib.Z_SYNC_FLUSH)
            writer.write(frame(0x1, data[:-4], rsv1=True))
        writer.write(frame(0x8, struct.pack("!H", 1000)))
        await writer.drain()
        await until_client_close(path, reader, writer, answer=False)
    elif path == "/ws/big":
        chunk = b"b" * (1 << 20)
        for index in range(17):
            writer.write(frame(0x1 if index == 0 else 0x0, chunk, fin=index == 16))
            await writer.drain()
        await until_client_close(path, reader, writer)
    elif path.startswith("/ws/close/"):
        writer.write(frame(0x8, struct.pack("!H", int(path.rsplit("/", 1)[1]))))
        await writer.drain()
        await until_client_close(path, reader, writer, answer=False)
    elif path == "/ws/badutf8":
        writer.write(frame(0x1, b"bad \xff\xfe text"))
        await writer.drain()
        await until_client_close(path, reader, writer)
    elif path == "/ws/masked":
        writer.write(frame(0x1, b"masked hello", mask=b"\x01\x02\x03\x04"))
        await writer.drain()
        await until_client_close(path, reader, writer)
    elif path == "/ws/secrets":
        writer.write(frame(0x1, b'42["login",{"password":"pw1","otp":"4821"}]'))
        writer.write(frame(0x8, struct.pack("!H", 1000)))
        await writer.drain()
        await until_client_close(path, reader, writer, answer=False)
    writer.close()


async def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
