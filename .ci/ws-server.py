"""A WebSocket peer for Loupe's tests, on the `websockets` package (not written by Loupe's authors).

Usage: ws-server.py [PORT]. Binds 127.0.0.1 (PORT 0 or none: any free port), prints the port on its first line.
permessage-deflate is offered as the package does by default.

/echo        every message back as it came (text as text, binary as binary); "close CODE REASON" closes with them
/fragmented  sends "abc" * 1000 in fragments of 100 characters, then one binary message in 3 fragments, then echoes
/ping        pings the client with b"are you there" and sends "pong: <hex of its payload>" once answered, then echoes
/close       closes at once with 4001 "bye from server"
/drop        sends "going", then 0.2 s later drops the TCP connection without a close frame
/headers     sends the request's Authorization header back as one text message
/unanswered  sends "not listening" then stops reading, so a client's close is never answered
"""
import asyncio
import sys

from websockets.asyncio.server import serve


async def echo_loop(ws):
    async for message in ws:
        if isinstance(message, str) and message.startswith("close "):
            _, code, reason = message.split(" ", 2)
            await ws.close(int(code), reason)
            return
        await ws.send(message)


async def handler(ws):
    path = ws.request.path
    if path == "/fragmented":
        text = "abc" * 1000
        await ws.send(text[i:i + 100] for i in range(0, len(text), 100))
        await ws.send([b"\x00\x01", b"\x02\x03", b"\x04"])
        await echo_loop(ws)
    elif path == "/ping":
        waiter = await ws.ping(b"are you there")
        await waiter
        await ws.send("pong: " + b"are you there".hex())
        await echo_loop(ws)
    elif path == "/close":
        await ws.close(4001, "bye from server")
    elif path == "/drop":
        await ws.send("going")
        # A moment first: a connection that ends while the client is still installing its WebSocket handlers
        # (upgrade response, message and EOF in one read) is never seen to end by hummingbird-websocket 2.8.1's
        # client, which then waits forever (DECISIONS 9). A drop after the connection opened is what this tests.
        await asyncio.sleep(0.2)
        ws.transport.abort()
    elif path == "/unanswered":
        await ws.send("not listening")
        ws.transport.pause_reading()
        await asyncio.sleep(3600)
    elif path == "/headers":
        await ws.send(ws.request.headers.get("Authorization", "none"))
        await echo_loop(ws)
    else:
        await echo_loop(ws)


async def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    async with serve(handler, "127.0.0.1", port, ping_interval=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().create_future()


asyncio.run(main())
