"""`loupe mcp` on a big store: how long list_exchanges and get_exchange take to answer (issue 50's budget).

Usage: python3 Benchmarks/mcp-budget.py LOUPE STORE [ROUNDS]. Drives the server over plain pipes (as an agent's
client does), one call at a time, and prints the median and worst wall time of each call shape over ROUNDS calls
(default 20), from the request's last byte written to the answer's line read.
"""
import json
import statistics
import subprocess
import sys
import time

loupe, store = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
proc = subprocess.Popen([loupe, "mcp", store], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
counter = 0


def call(method, params):
    global counter
    counter += 1
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": counter, "method": method, "params": params}).encode() + b"\n")
    proc.stdin.flush()
    start = time.perf_counter()
    answer = json.loads(proc.stdout.readline())
    return time.perf_counter() - start, answer


call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "budget", "version": "1"}})
proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
_, first = call("tools/call", {"name": "list_exchanges", "arguments": {"limit": 1}})
newest = json.loads(first["result"]["content"][0]["text"])["exchanges"][0]
shapes = {
    "list_exchanges limit 50": {"name": "list_exchanges", "arguments": {"limit": 50}},
    "list_exchanges ~c 5xx limit 50": {"name": "list_exchanges", "arguments": {"filter": "~c 5xx", "limit": 50}},
    # Rarer than the newest rows hold 50 of: the walk over them finds too few, and the planner's query answers.
    "list_exchanges ~c 429 & ~m PATCH": {"name": "list_exchanges", "arguments": {"filter": "~c 429 & ~m PATCH", "limit": 50}},
    "get_exchange #newest": {"name": "get_exchange", "arguments": {"id": "#%d" % newest["sequence"]}},
    "get_exchange #500000": {"name": "get_exchange", "arguments": {"id": "#500000"}},
    "get_exchange id prefix": {"name": "get_exchange", "arguments": {"id": newest["id"][:13]}},
}
for label, params in shapes.items():
    times = []
    for _ in range(rounds):
        seconds, answer = call("tools/call", params)
        if "error" in answer or answer["result"].get("isError"):
            sys.exit("%s failed: %s" % (label, json.dumps(answer)[:300]))
        times.append(seconds * 1000)
    print("%-32s median %7.2f ms  worst %7.2f ms" % (label, statistics.median(times), max(times)))
proc.stdin.close()
proc.wait(timeout=30)
