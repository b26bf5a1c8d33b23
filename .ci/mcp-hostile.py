"""Hostile JSON-RPC at `loupe mcp` for .ci/e2e-mcp.sh, over raw pipes (no SDK in the way).

Usage: mcp-hostile.py LOUPE STORE. Prints one line per check; exits 1 on the first failure.
"""
import json
import subprocess
import sys
import threading
import time

loupe, store = sys.argv[1], sys.argv[2]
proc = subprocess.Popen([loupe, "mcp", store], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
answers = {}
stray = []
lock = threading.Condition()


def reader():
    for line in proc.stdout:
        message = json.loads(line)
        with lock:
            if message.get("id") is None:
                stray.append(message)
            else:
                answers[message["id"]] = message
            lock.notify_all()


threading.Thread(target=reader, daemon=True).start()


def send(obj):
    data = obj if isinstance(obj, bytes) else (json.dumps(obj).encode() + b"\n")
    proc.stdin.write(data)
    proc.stdin.flush()


def wait(predicate, what, seconds=60):
    deadline = time.time() + seconds
    with lock:
        while not predicate():
            left = deadline - time.time()
            if left <= 0 or proc.poll() is not None:
                print("FAIL:", what, "(server exited)" if proc.poll() is not None else "(timeout)")
                sys.exit(1)
            lock.wait(left)


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def rss_kb():
    with open("/proc/%d/status" % proc.pid) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}})
wait(lambda: 1 in answers, "initialize")
send({"jsonrpc": "2.0", "method": "notifications/initialized"})

send({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"})
wait(lambda: 2 in answers, "unknown method answered")
check(answers[2].get("error", {}).get("code") == -32601, "unknown method: -32601 method not found")

send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 42}})
wait(lambda: 3 in answers, "wrong type answered")
check("error" in answers[3], "tools/call with a number for name: a JSON-RPC error")

send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}})
wait(lambda: 4 in answers, "unknown tool answered")
check(answers[4].get("error", {}).get("code") == -32602, "unknown tool: -32602 invalid params")

send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "get_exchange", "arguments": {"id": ["#1"]}}})
wait(lambda: 5 in answers, "array id answered")
check(answers[5].get("result", {}).get("isError") is True, "get_exchange with an array id: a tool error")

send(b"{this is not json\n")
send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
wait(lambda: 6 in answers, "ping after garbage")
check("result" in answers[6], "garbage line answered and the server goes on")

before = rss_kb()
chunk = b"x" * (1 << 20)
proc.stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"text":"')
for _ in range(100):
    proc.stdin.write(chunk)
proc.stdin.write(b'"}}}\n')
proc.stdin.flush()
check([m.get("error", {}).get("code") for m in stray] == [-32700], "the garbage line: -32700 parse error, id null")
wait(lambda: len(stray) > 1, "100 MB request answered")
check(stray[1].get("error", {}).get("code") == -32600, "100 MB request refused with -32600: %s" % stray[1]["error"]["message"])
grown = rss_kb() - before
check(grown < 64 * 1024, "100 MB request grew the server by %d KB (< 64 MB)" % grown)

start = time.time()
burst = 10000
payload = b"".join(json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                               "params": {"name": "list_exchanges", "arguments": {"limit": 1}}}).encode() + b"\n"
                   for i in range(burst))
proc.stdin.write(payload)
proc.stdin.flush()
wait(lambda: all(100 + i in answers for i in range(burst)), "10,000 requests answered", seconds=240)
errors = sum(1 for i in range(burst) if "error" in answers[100 + i])
check(errors == 0, "10,000 requests in a burst all answered in %.1f s, none failed" % (time.time() - start))
peak = rss_kb()
check(peak < 400 * 1024, "peak RSS %d MB (< 400 MB)" % (peak // 1024))

proc.stdin.close()
check(proc.wait(timeout=30) == 0, "end of input: the server exits 0")
err = proc.stderr.read().decode()
check("Fatal error" not in err and "Stack dump" not in err, "no crash text on stderr")
