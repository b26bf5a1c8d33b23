#!/usr/bin/env bash
# `loupe serve` on the real binary, called by clients nobody on the project wrote (curl, Python's urllib): a store
# recorded from .ci/replay-server.py served back as recorded; a miss answered 404 naming the closest recording
# while that counting server receives nothing; a hand-written HAR's 503-then-200 served in order, reset, and
# --repeat miss; --passthrough recording a miss then serving it; every exchange of a demo store served back equal;
# a HAR served from the file itself (a UTF-16 one from a temporary store removed at exit); recorded event streams served to httpx-sse and WebSocket
# conversations to the websockets client; hostile requests (a 1 GB body announced, 10,000 headers, invalid
# methods) answered and bounded; bad input.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
py="${LOUPE_CI_PYTHON:-python3}"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-SERVE FAILED: $*"; for f in "$work"/serve-*.out; do [ -f "$f" ] && { echo "== $f"; tail -c 2000 "$f"; }; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "server on $1 never came up"; }
count() { python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$1/count')).get(sys.argv[1], 0))" "$2"; }
# serve NAME ARGS...: starts `loupe serve ARGS --port P` in the background (its output in serve-NAME.out), waits
# for its start line, and sets $port.
serve() {
  local name="$1"; shift
  port=$(free_port)
  "$loupe" serve "$@" --port "$port" >"$work/serve-$name.out" 2>&1 & pids+=($!)
  for _ in $(seq 200); do grep -q '^loupe serve: ' "$work/serve-$name.out" 2>/dev/null && break; sleep 0.05; done
  grep -q "^loupe serve: .* on http://127.0.0.1:$port" "$work/serve-$name.out" || fail "serve $name never said it started"
}
# status URL [curl args]: the status curl got.
status() { local url="$1"; shift; curl -s -o "$work/body" -D "$work/head" -w '%{http_code}' "$@" "$url"; }

upstream=$(free_port)
python3 "$here/replay-server.py" "$upstream" up >/dev/null 2>&1 & pids+=($!)
wait_port "$upstream"
up="http://127.0.0.1:$upstream"
store="$work/traces.sqlite"
"$loupe" send GET "$up/items" --store "$store" >/dev/null 2>&1 || fail "recording /items"
"$loupe" send POST "$up/orders" --json '{"item":"book","qty":1}' --store "$store" >/dev/null 2>&1 || fail "recording /orders"
before=$(count "$upstream" "GET /items")

echo "-- a store served back to curl: status, headers and body as recorded, Date today, Content-Length right"
serve store "$store" --store "$work/served.sqlite"
grep -q "2 recordings from $store on http://127.0.0.1:$port; misses are answered 404 and never sent upstream; recording into" "$work/serve-store.out" \
  || fail "start line: $(head -2 "$work/serve-store.out")"
[ "$(status "http://127.0.0.1:$port/items")" = 200 ] || fail "GET /items"
sqlite3 "$store" "SELECT writefile('$work/recorded', response_body) FROM exchange WHERE path = '/items'" >/dev/null
cmp -s "$work/body" "$work/recorded" || fail "the body served is not the body recorded"
grep -qi "^content-length: $(wc -c < "$work/recorded")" "$work/head" || fail "Content-Length: $(grep -i content-length "$work/head")"
grep -qi "^x-server: up" "$work/head" || fail "the recorded X-Server header is missing"
grep -qi "^date: .* $(date -u +%Y) " "$work/head" || fail "Date not today's: $(grep -i '^date' "$work/head")"
code=$(status "http://127.0.0.1:$port/orders" -X POST -H 'Content-Type: application/json' --data '{"qty":1.0, "item":"book"}')
[ "$code" = 201 ] || [ "$code" = 200 ] || fail "POST /orders with the same JSON in another order: $code $(cat "$work/body")"
grep -q '"order": 1' "$work/body" || fail "POST /orders body: $(cat "$work/body")"
ok "GET and POST (JSON compared by value) served as recorded"

echo "-- a miss: 404 naming the closest recording, recorded as served, and the upstream receives nothing"
[ "$(status "http://127.0.0.1:$port/items?page=2")" = 404 ] || fail "GET /items?page=2 should miss"
grep -q 'closest: #1 GET /items — method ✓ path ✓ query ✗ (none vs page=2)' "$work/body" || fail "miss body: $(cat "$work/body")"
[ "$(status "http://127.0.0.1:$port/nothing/here")" = 404 ] || fail "GET /nothing/here should miss"
[ "$(count "$upstream" "GET /items")" = "$before" ] || fail "the upstream saw a request for /items"
[ "$(count "$upstream" "GET /nothing/here")" = 0 ] || fail "the upstream saw the miss"
grep -q '^GET /items?page=2 → 404 miss: closest #1 (query ✗ none vs page=2)$' "$work/serve-store.out" || fail "the miss's line"
grep -q '^GET /items → 200 #1$' "$work/serve-store.out" || fail "the served line"
# --store is written in batches in the background (off the request path): give it its batch window.
for _ in $(seq 50); do [ "$("$loupe" list "$work/served.sqlite" --filter '~served' --limit 100 | wc -l)" = 4 ] && break; sleep 0.1; done
[ "$("$loupe" list "$work/served.sqlite" --filter '~served' --limit 100 | wc -l)" = 4 ] || fail "4 exchanges ~served: $("$loupe" list "$work/served.sqlite" --filter '~served')"
[ "$("$loupe" list "$work/served.sqlite" --filter '~served & ~c 404' --limit 100 | wc -l)" = 2 ] || fail "2 misses ~served & ~c 404"
ok "misses answered 404 with the closest recording, recorded, and never sent upstream"

echo "-- a hand-written HAR: a 503 then a 200 for the same request, in order, to Python's urllib"
"$py" - "$work/flaky.har" <<'PY'
import json, sys
def entry(status, text, t):
    return {"startedDateTime": t, "time": 5,
            "request": {"method": "GET", "url": "https://api.example.com/health?full=1&v=2", "httpVersion": "HTTP/1.1",
                        "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Retry-After", "value": "1"}] if status == 503
                                    else [{"name": "Content-Type", "value": "application/json"}],
                         "cookies": [], "content": {"size": len(text), "mimeType": "application/json", "text": text},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
            "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}}
har = {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [
    entry(503, '{"up":false}', "2026-01-01T00:00:00.000Z"), entry(200, '{"up":true}', "2026-01-01T00:00:01.000Z")]}}
json.dump(har, open(sys.argv[1], "w"))
PY
urllib_statuses() {  # PORT N: N GETs of /health?v=2&full=1, their statuses and bodies
  "$py" - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
out = []
for _ in range(int(sys.argv[2])):
    try:
        r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health?v=2&full=1")
        out.append(f"{r.status}{r.read().decode()}")
    except urllib.error.HTTPError as e:
        out.append(f"{e.code}{e.read().decode()[:12]}")
print(" ".join(out))
PY
}
serve har "$work/flaky.har"
[ "$(urllib_statuses "$port" 3)" = '503{"up":false} 200{"up":true} 200{"up":true}' ] || fail "503 then 200 then 200: $(urllib_statuses "$port" 1)"
"$py" -c "import urllib.request; urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:$port/__loupe/reset', method='POST'))" || fail "reset"
[ "$(urllib_statuses "$port" 1)" = '503{"up":false}' ] || fail "after a reset the sequence starts over"
serve cycle "$work/flaky.har" --repeat cycle
[ "$(urllib_statuses "$port" 3)" = '503{"up":false} 200{"up":true} 503{"up":false}' ] || fail "--repeat cycle"
serve miss "$work/flaky.har" --repeat miss
[ "$(urllib_statuses "$port" 3)" = '503{"up":false} 200{"up":true} 404loupe serve:' ] || fail "--repeat miss"
ok "503 then 200 in recorded order; reset; --repeat last, cycle and miss"

echo "-- a HAR is served from the file itself (nothing written); one in UTF-16 through a temporary store (0700, 0600), gone at exit"
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" serve direct "$work/flaky.har" --filter '~c 200'
grep -q "^loupe serve: 1 recording from" "$work/serve-direct.out" || fail "--filter on a HAR: $(head -1 "$work/serve-direct.out")"
[ "$(urllib_statuses "$port" 1)" = '200{"up":true}' ] || fail "--filter '~c 200' serves the 200 only"
[ -z "$(ls -A "$work/tmp")" ] || fail "a UTF-8 HAR is served from the file, yet this was written: $(ls -A "$work/tmp")"
kill -TERM "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
"$py" -c "import sys; open(sys.argv[2], 'wb').write(open(sys.argv[1], encoding='utf-8').read().encode('utf-16'))" "$work/flaky.har" "$work/wide.har"
TMPDIR="$work/tmp" serve spool "$work/wide.har" --filter '~c 200'
spool=$(find "$work/tmp" -maxdepth 1 -name 'loupe-serve.*' | head -1)
[ -n "$spool" ] || fail "no temporary store under TMPDIR: $(ls -la "$work/tmp")"
[ "$(stat -c %a "$spool")" = 700 ] && [ "$(stat -c %a "$spool/recordings.sqlite")" = 600 ] || fail "modes: $(stat -c '%a %n' "$spool" "$spool"/*)"
grep -q "^loupe serve: 1 recording from" "$work/serve-spool.out" || fail "--filter on a UTF-16 HAR: $(head -1 "$work/serve-spool.out")"
[ "$(urllib_statuses "$port" 1)" = '200{"up":true}' ] || fail "--filter '~c 200' on a UTF-16 HAR serves the 200 only"
kill -TERM "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
[ -z "$(ls -A "$work/tmp")" ] || fail "left behind: $(ls -A "$work/tmp")"
ok "a HAR served from the file; a UTF-16 one from a temporary store, filtered, removed at exit"

echo "-- streams: server-sent events to httpx-sse, WebSocket conversations to the websockets client"
# start_peer SCRIPT: runs it on a free port (it prints the port); sets $port.
start_peer() {
  "$py" "$here/$1" > "$work/$1.port" 2>"$work/$1.err" & pids+=($!)
  for _ in $(seq 100); do [ -s "$work/$1.port" ] && break; sleep 0.1; done
  port=$(head -1 "$work/$1.port")
  [ -n "$port" ] || fail "$1 did not start: $(head -c 400 "$work/$1.err")"
}
start_peer sse-server.py; sse=$port
start_peer ws-server.py; ws=$port
streams="$work/streams.sqlite"
timeout 30 "$loupe" send GET "http://127.0.0.1:$sse/events?count=4" --store "$streams" >/dev/null 2>&1 || fail "recording the event stream"
printf 'hello\nworld\n' | timeout 30 "$loupe" ws "ws://127.0.0.1:$ws/echo" --store "$streams" >/dev/null 2>&1 || fail "recording /echo"
timeout 30 "$loupe" ws "ws://127.0.0.1:$ws/close" --store "$streams" </dev/null >/dev/null 2>&1; [ $? = 1 ] || fail "recording /close"
serve streams "$streams"
grep -q "^loupe serve: 3 recordings from" "$work/serve-streams.out" || fail "3 streams served: $(head -3 "$work/serve-streams.out")"
"$py" - "$port" <<'PY' || fail "streams served back"
import asyncio, sys, httpx, httpx_sse, websockets
port = int(sys.argv[1])
with httpx.Client() as client, httpx_sse.connect_sse(client, "GET", f"http://127.0.0.1:{port}/events?count=4") as source:
    assert source.response.headers["content-type"].startswith("text/event-stream"), source.response.headers
    events = [(e.event, e.id, e.data) for e in source.iter_sse()]
assert [e[1] for e in events] == ["1", "2", "3", "4"], events
assert events[1] == ("token", "2", "token 2\nsecond line 2"), events[1]
async def conversation():
    async with websockets.connect(f"ws://127.0.0.1:{port}/echo") as ws:
        # The recording has the client's two lines, then the server's two echoes: those come only after two
        # messages from this client (what they say is not compared), in recorded order.
        await ws.send("first")
        try:
            early = await asyncio.wait_for(ws.recv(), 0.5)
            raise AssertionError(f"the server answered before the client's second message: {early!r}")
        except asyncio.TimeoutError:
            pass
        await ws.send("second")
        assert [await ws.recv(), await ws.recv()] == ["hello", "world"]
    try:
        async with websockets.connect(f"ws://127.0.0.1:{port}/close") as ws:
            await ws.recv()
        raise AssertionError("the server's recorded close never came")
    except websockets.ConnectionClosed as closed:
        assert closed.rcvd.code == 4001 and closed.rcvd.reason == "bye from server", closed
asyncio.run(asyncio.wait_for(conversation(), 20))
print("streams ok")
PY
grep -q '^GET /events?count=4 → 200 #1 (4 events)$' "$work/serve-streams.out" || fail "the event stream's line: $(cat "$work/serve-streams.out")"
grep -q '^GET /echo → 101 #2 (WebSocket: 2 server messages)$' "$work/serve-streams.out" || fail "the WebSocket's line: $(cat "$work/serve-streams.out")"
ok "an event stream served event by event; WebSocket answers after the client's messages, and the recorded close"

echo "-- --pace 5 on an event stream: the recorded gaps, five times as long"
serve streampace "$streams" --pace 5
"$py" - "$port" "$streams" <<'PY' || fail "paced event stream"
import sqlite3, sys, time, httpx, httpx_sse
port, store = int(sys.argv[1]), sys.argv[2]
db = sqlite3.connect(store)
seq, first = db.execute("SELECT e.sequence, a.first_byte_at FROM exchange e JOIN attempt a ON a.exchange_sequence = e.sequence WHERE e.path LIKE '/events%'").fetchone()
ats = [r[0] for r in db.execute("SELECT at FROM message WHERE exchange_sequence = ? ORDER BY idx", (seq,))]
recorded = ats[-1] - (first or ats[0])
start = time.monotonic()
with httpx.Client() as client, httpx_sse.connect_sse(client, "GET", f"http://127.0.0.1:{port}/events?count=4") as source:
    seen = [time.monotonic() - start for _ in source.iter_sse()]
took = seen[-1]
assert len(seen) == 4, seen
assert took >= recorded * 5 * 0.9, (took, recorded)
print(f"recorded {recorded:.3f} s, served at --pace 5 in {took:.3f} s")
PY
ok "--pace scales an event stream's recorded gaps"

echo "-- LOUPE_RULES: a fault turns a served 200 into a 503; --pace waits the recorded time to first byte"
cat > "$work/rules.toml" <<'TOML'
[[rule]]
name = "items down"
match = "~u /items"
fault = { status = 503 }
TOML
LOUPE_RULES="$work/rules.toml" serve rules "$store"
grep -q "answers pass through the rules of $work/rules.toml" "$work/serve-rules.out" || fail "the start line names the rules file"
[ "$(status "http://127.0.0.1:$port/items")" = 503 ] || fail "the fault rule did not turn /items into a 503"
[ "$(status "http://127.0.0.1:$port/orders" -X POST --data '{"item":"book","qty":1}')" = 201 ] || fail "/orders is not under the rule"
grep -q '^GET /items → 503 #1 (a rule changed it)$' "$work/serve-rules.out" || fail "the rule's line"
"$py" - "$work/slow.har" <<'PY'
import json, sys
har = json.load(open(sys.argv[1].replace("slow.har", "flaky.har")))
entry = har["log"]["entries"][1]
entry["request"]["url"] = "https://api.example.com/slow"
entry["timings"] = {"send": 0, "wait": 800, "receive": 0}
har["log"]["entries"] = [entry]
json.dump(har, open(sys.argv[1], "w"))
PY
serve paced "$work/slow.har" --pace recorded
recorded=$(curl -s -o /dev/null -w '%{time_starttransfer}' "http://127.0.0.1:$port/slow")
serve half "$work/slow.har" --pace 0.5
half=$(curl -s -o /dev/null -w '%{time_starttransfer}' "http://127.0.0.1:$port/slow")
python3 -c "import sys; r, h = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if 0.75 <= r < 2.5 and 0.35 <= h < 0.75 else 1)" "$recorded" "$half" \
  || fail "--pace: first byte after $recorded s (recorded 0.8 s) and $half s at 0.5"
ok "a rule's fault on a served answer; --pace recorded ($recorded s) and 0.5 ($half s) for a recorded 0.8 s wait"

echo "-- --tls: HTTPS with a self-signed certificate whose printed fingerprint is the one served"
port=$(free_port)
XDG_STATE_HOME="$work/state" "$loupe" serve "$store" --tls --port "$port" >"$work/serve-tls.out" 2>&1 & pids+=($!)
for _ in $(seq 200); do grep -q 'fp=sha256:' "$work/serve-tls.out" 2>/dev/null && break; sleep 0.05; done
grep -q "on https://127.0.0.1:$port" "$work/serve-tls.out" || fail "the TLS start line: $(cat "$work/serve-tls.out")"
printed=$(sed -n 's/.*fp=sha256:\([0-9a-f]*\).*/\1/p' "$work/serve-tls.out")
"$py" - "$port" "$printed" <<'PY' || fail "TLS"
import hashlib, ssl, sys, urllib.request
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
response = urllib.request.urlopen(f"https://127.0.0.1:{sys.argv[1]}/items", context=context)
assert response.status == 200, response.status
der = ssl.get_server_certificate(("127.0.0.1", int(sys.argv[1])))
served = hashlib.sha256(ssl.PEM_cert_to_DER_cert(der)).hexdigest()
assert served == sys.argv[2], f"served {served}, printed {sys.argv[2]}"
PY
ok "--tls serves HTTPS with the printed certificate"

echo "-- --passthrough: a miss goes upstream once, is recorded, then served"
serve pass "$store" --passthrough "$up"
grep -q "passthrough is on: misses go to $up and are recorded" "$work/serve-pass.out" || fail "the start line says passthrough is on"
[ "$(status "http://127.0.0.1:$port/volatile")" = 200 ] || fail "passthrough GET /volatile"
first=$(cat "$work/body")
[ "$(status "http://127.0.0.1:$port/volatile")" = 200 ] || fail "served GET /volatile"
[ "$(cat "$work/body")" = "$first" ] || fail "the second /volatile was not the recorded one"
[ "$(count "$upstream" "GET /volatile")" = 1 ] || fail "the upstream saw /volatile $(count "$upstream" "GET /volatile") times, want 1"
grep -q '^GET /volatile → 200 passthrough, recorded as #3$' "$work/serve-pass.out" || fail "passthrough line"
grep -q '^GET /volatile → 200 #3$' "$work/serve-pass.out" || fail "served-after-passthrough line"
ok "passthrough records a miss and serves it from then on"

echo "-- --passthrough and WebSocket: a miss is relayed to a counting websockets server, recorded, then served; without it refused"
wsup=$(free_port)
"$py" - "$wsup" "$work/ws-count" >/dev/null 2>&1 <<'PY' & pids+=($!)
import asyncio, sys, websockets
count = 0
async def handler(ws):
    global count
    count += 1
    open(sys.argv[2], "w").write(str(count))
    async for message in ws:
        await ws.send("echo:" + message)
async def main():
    async with websockets.serve(handler, "127.0.0.1", int(sys.argv[1])):
        await asyncio.Future()
asyncio.run(main())
PY
wait_port "$wsup"
ws_chat() {  # PORT: one conversation on /chat, what came back (or the refusal)
  "$py" - "$1" <<'PY'
import asyncio, sys, websockets
async def main():
    try:
        async with websockets.connect(f"ws://127.0.0.1:{sys.argv[1]}/chat?room=1", open_timeout=5) as ws:
            await ws.send("hi")
            print(await asyncio.wait_for(ws.recv(), 5))
    except Exception as error:
        print("refused:", type(error).__name__)
asyncio.run(main())
PY
}
serve wsrefused "$work/flaky.har"
[ "$(ws_chat "$port")" = "refused: InvalidStatus" ] || fail "a WebSocket miss without --passthrough: $(ws_chat "$port")"
[ ! -e "$work/ws-count" ] || fail "the upstream saw a WebSocket without --passthrough"
serve wspass "$work/flaky.har" --passthrough "http://127.0.0.1:$wsup" --store "$work/ws-served.sqlite"
[ "$(ws_chat "$port")" = "echo:hi" ] || fail "relayed conversation: $(ws_chat "$port")"
[ "$(cat "$work/ws-count")" = 1 ] || fail "the upstream saw $(cat "$work/ws-count") conversations, not 1"
[ "$(ws_chat "$port")" = "echo:hi" ] || fail "served from the recording: $(ws_chat "$port")"
[ "$(cat "$work/ws-count")" = 1 ] || fail "the second conversation reached the upstream"
grep -q '^GET /chat?room=1 → 101 WebSocket passthrough (2 messages), recorded as #3$' "$work/serve-wspass.out" || fail "the relay's line"
grep -q '^GET /chat?room=1 → 101 #3 (WebSocket: 1 server message)$' "$work/serve-wspass.out" || fail "the served line"
ok "a WebSocket miss relayed with --passthrough, recorded and served from then on; refused without, the upstream untouched"

echo "-- every exchange of a demo store served back equal (Python's urllib, in recorded order)"
"$loupe" demo --headless --duration 3 --store "$work/demo.sqlite" >/dev/null 2>&1 || fail "demo"
serve demo "$work/demo.sqlite"
"$py" - "$work/demo.sqlite" "$port" <<'PY' || fail "demo store served back"
import json, sqlite3, sys, urllib.request, urllib.error
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT sequence, method, path, url, request_body, status, response_body, request_headers FROM exchange
                     WHERE status IS NOT NULL AND stream IS NULL ORDER BY sequence""").fetchall()
assert len(rows) > 20, f"only {len(rows)} exchanges"
for seq, method, path, url, body, status, recorded, headers in rows:
    target = url.split("://", 1)[1]
    target = target[target.index("/"):] if "/" in target else "/"
    request = urllib.request.Request(f"http://127.0.0.1:{sys.argv[2]}{target}", data=body, method=method)
    for name, value in (json.loads(headers) if headers else []):
        if name.lower() == "content-type": request.add_header(name, value)
    try:
        response = urllib.request.urlopen(request)
        got, data = response.status, response.read()
    except urllib.error.HTTPError as e:
        got, data = e.code, e.read()
    if got != status or data != (recorded or b""):
        sys.exit(f"#{seq} {method} {target}: served {got} {data[:80]!r}, recorded {status} {(recorded or b'')[:80]!r}")
print(f"{len(rows)} exchanges served back equal")
PY
ok "the demo store served back equal"

echo "-- hostile: a 1 GB body announced, 10,000 headers, invalid methods; the server still answers"
"$py" - "$port" <<'PY' || fail "hostile requests"
import socket, sys, time
port = int(sys.argv[1])
def exchange(raw, wait=5):
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.settimeout(wait)
    s.sendall(raw)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
            if b"\r\n\r\n" in data: break
    except socket.timeout:
        pass
    s.close()
    return data.split(b"\r\n", 1)[0].decode(errors="replace")
start = time.time()
line = exchange(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n")
assert line.startswith("HTTP/1.1 413"), f"1 GB announced: {line!r}"
assert time.time() - start < 3, "the 413 took too long"
many = b"".join(b"X-H%d: v\r\n" % i for i in range(10000))
line = exchange(b"GET /items HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
assert line == "" or line.startswith("HTTP/1.1 4"), f"10,000 headers: {line!r}"
for method in [b"G\x01T", b"GET GET", b"\xff\xfe"]:
    line = exchange(method + b" / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert line == "" or line.startswith("HTTP/1.1 400"), f"method {method!r}: {line!r}"
# A method the HTTP parser does not know is refused as malformed; one it knows but nobody recorded is a miss.
line = exchange(b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n")
assert line.startswith("HTTP/1.1 400"), f"an unknown method: {line!r}"
line = exchange(b"PURGE /items HTTP/1.1\r\nHost: x\r\n\r\n")
assert line.startswith("HTTP/1.1 404"), f"an unrecorded method is a miss: {line!r}"
line = exchange(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
assert line.startswith("HTTP/1.1 404"), f"still answering: {line!r}"
PY
ok "hostile requests answered, the server still up"

echo "-- slowloris: a head sent a byte every 2 s is cut off after the 30 s idle timeout"
"$py" - "$port" <<'PY' || fail "slowloris"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.sendall(b"GET /items HTTP/1.1\r\nHost: x\r\nX-Slow: ")
start = time.time()
while time.time() - start < 45:
    try:
        s.sendall(b"a")
        s.settimeout(2)
        if s.recv(1) == b"": break
    except socket.timeout:
        continue
    except OSError:
        break
took = time.time() - start
assert took < 40, f"still open after {took:.0f} s"
print(f"closed after {took:.0f} s")
PY
ok "a slow head is closed by the idle timeout"

echo "-- loupe tui --serve under tmux: curl's requests appear as rows, Z starts the 503-then-200 over, quitting closes the port"
tport=$(free_port)
cat > "$work/tui.sh" <<SH
XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color \\
  $(printf %q "$loupe") tui $(printf %q "$work/tui.sqlite") --serve $(printf %q "$work/flaky.har") --port $tport 2>/dev/null
echo \$? > $(printf %q "$work/tui.exit")
SH
(
  session="serve-tui" wait_limit="${LOUPE_E2E_WAIT:-30}" started=$SECONDS
  . "$here/tmux-screen.sh"   # tm, pane, row, wait_for, keys (and its own ok/fail, which report the screen)
  trap 'tm kill-server 2>/dev/null' EXIT
  tm new-session -d -s "$session" -x 120 -y 30 "sh $(printf %q "$work/tui.sh")" || fail "tmux could not start"
  wait_for 0 "serving http://127.0.0.1:$tport"
  wait_for 28 "2 recordings from $work/flaky.har on http://127.0.0.1:$tport"
  curled() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tport/health?v=2&full=1"; }
  [ "$(curled) $(curled)" = "503 200" ] || fail "curl got other than 503 then 200"
  wait_for any "200  127.0.0.1/health?v=2&full=1"
  wait_for any "503  127.0.0.1/health?v=2&full=1"
  keys Z
  wait_for 28 "scenarios reset: every recorded sequence starts over"
  [ "$(curled)" = 503 ] || fail "after Z the sequence did not start over with the 503"
  for _ in $(seq 100); do pane; [ "$(grep -c '127.0.0.1/health' "$work/pane.txt")" = 3 ] && break; sleep 0.05; done
  [ "$(grep -c '127.0.0.1/health' "$work/pane.txt")" = 3 ] || fail "three served rows"
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tport/nowhere")" = 404 ] || fail "a miss is a 404"
  wait_for any "404  127.0.0.1/nowhere"
  keys q
  for _ in $(seq 100); do [ -s "$work/tui.exit" ] && break; sleep 0.05; done
  [ "$(cat "$work/tui.exit" 2>/dev/null)" = 0 ] || fail "the TUI did not quit cleanly: $(cat "$work/tui.exit" 2>/dev/null)"
  ! python3 -c "import socket; socket.create_connection(('127.0.0.1',$tport),1)" 2>/dev/null || fail "port $tport still open after quitting"
  [ "$("$loupe" list "$work/tui.sqlite" --filter '~served' --limit 100 | wc -l)" = 4 ] || fail "4 rows ~served in the TUI's store"
) || fail "loupe tui --serve (the screen is above)"
ok "tui --serve: rows live, Z resets the sequences, q closes the port, every request stored ~served"

echo "-- bad input: one line, exit 2"
for args in "--repeat never" "--pace 0" "--pace fast" "--port 70000" "--passthrough ftp://x" "--ignore nope" "--filter ~zz"; do
  # shellcheck disable=SC2086
  timeout 10 "$loupe" serve "$store" $args >"$work/bad.out" 2>&1; code=$?
  [ "$code" = 2 ] || fail "serve $args: exit $code"
  [ "$(wc -l < "$work/bad.out")" -le 2 ] && grep -q '^loupe: \|^Error: ' "$work/bad.out" || fail "serve $args said: $(cat "$work/bad.out")"
done
timeout 10 "$loupe" serve "$store" --port "$upstream" >"$work/bad.out" 2>&1; code=$?
[ "$code" = 2 ] && grep -q "port $upstream is in use" "$work/bad.out" || fail "a taken port: exit $code, $(cat "$work/bad.out")"
ok "bad arguments and a taken port refused in one line"

echo "e2e-serve: $passed checks passed"
