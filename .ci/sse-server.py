"""A server-sent events peer for Loupe's tests, on sse-starlette and uvicorn (not written by Loupe's authors).

Usage: sse-server.py [PORT]. Binds 127.0.0.1 (PORT 0 or none: any free port) and prints the port on its first line.

GET /events?count=N&cut=K   events 1..N with ids, retry: 200, two-line data on even ids. With cut, the first
                            connection stops after event K in the middle of event K+1 (its id and half its data
                            sent, no blank line); a reconnection with Last-Event-ID resumes after that id. Once the
                            client has every event, it is answered 204 (stop).
GET /plain                  a JSON body: not an event stream.
GET /seen                   the Last-Event-ID each /events request carried, in order, as JSON.
"""
import asyncio
import json
import socket
import sys

import uvicorn
from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

seen = []


def event(number):
    data = f"token {number}" if number % 2 else f"token {number}\nsecond line {number}"
    return ServerSentEvent(data=data, id=str(number), event="token", retry=200)


async def events(request):
    count = int(request.query_params.get("count", "5"))
    cut = request.query_params.get("cut")
    last = request.headers.get("last-event-id")
    seen.append(last)
    start = int(last) + 1 if last else 1
    if start > count:
        return Response(status_code=204)
    if cut is not None and last is None:
        cut = int(cut)

        async def cut_stream():
            for number in range(1, cut + 1):
                yield event(number).encode()
                await asyncio.sleep(0.01)
            # Mid-event: an id and half the data, then the connection ends with no blank line.
            yield f"id: {cut + 1}\ndata: half of {cut + 1}".encode()

        return StreamingResponse(cut_stream(), media_type="text/event-stream")

    async def stream():
        for number in range(start, count + 1):
            yield event(number)
            await asyncio.sleep(0.01)

    return EventSourceResponse(stream(), ping=3600)


async def plain(request):
    return JSONResponse({"not": "a stream"})


async def seen_ids(request):
    return JSONResponse(seen)


app = Starlette(routes=[Route("/events", events), Route("/plain", plain), Route("/seen", seen_ids)])

if __name__ == "__main__":
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0))
    # Listening before the port is printed: a client that connects before uvicorn has started waits in the backlog
    # instead of being refused (a refused first attempt made the client wait its default retry, 3 s).
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
