"""A small HTTP/1.1 load generator for `loupe serve` and `mitmdump --server-replay`, the same for both.

Usage: python3 Benchmarks/serve-load.py PORT [--connections N] [--seconds S] [--entries E] [--warmup S]

N keep-alive connections (default 8) each send GET /items/{i}?v=1 (i cycling over the E entries that
Benchmarks/serve-har.py wrote, 100,000 by default) one after another for S seconds (default 10), after a warm-up
(default 1 s) whose requests are not counted; prints requests/s, the p50 and p99 latency, and the statuses seen.
Only 127.0.0.1 is ever addressed, and the run stops by itself.
"""
import argparse
import asyncio
import time
from collections import Counter

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("--connections", type=int, default=8)
parser.add_argument("--seconds", type=float, default=10)
parser.add_argument("--warmup", type=float, default=1)
parser.add_argument("--entries", type=int, default=100_000)
args = parser.parse_args()
assert 1 <= args.connections <= 256 and 0 < args.seconds <= 120 and 0 <= args.warmup <= 30

latencies = []
statuses = Counter()


async def reader_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    length = 0
    chunked = False
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip())
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if chunked:
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    elif length:
        await reader.readexactly(length)
    return status


async def connection(number, start, warm_until, stop_at):
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    i = number * 7919
    try:
        while True:
            now = time.monotonic()
            if now >= stop_at:
                break
            i = (i + 1) % args.entries
            writer.write(f"GET /items/{i}?v=1 HTTP/1.1\r\nHost: api.example.com\r\nAccept: application/json\r\n\r\n".encode())
            sent = time.monotonic()
            status = await reader_response(reader)
            done = time.monotonic()
            if sent >= warm_until:
                latencies.append(done - sent)
                statuses[status] += 1
    finally:
        writer.close()


async def main():
    start = time.monotonic()
    warm_until = start + args.warmup
    stop_at = warm_until + args.seconds
    await asyncio.gather(*(connection(n, start, warm_until, stop_at) for n in range(args.connections)))
    latencies.sort()
    count = len(latencies)
    p = lambda q: latencies[min(count - 1, int(q * count))] * 1000
    print(f"{count / args.seconds:.0f} requests/s over {args.connections} connections; p50 {p(0.50):.2f} ms, "
          f"p99 {p(0.99):.2f} ms; statuses {dict(statuses)}")


asyncio.run(main())
