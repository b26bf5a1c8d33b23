#!/usr/bin/env bash
# Streams on the real binary against peers Loupe's authors did not write (issue 30): `loupe send` on an sse-starlette
# event stream (.ci/sse-server.py), `loupe ws` against the `websockets` package's server (.ci/ws-server.py), both
# recorded message by message; show, show --json, list --json; the HAR export's `_webSocketMessages` read back by
# Python; the TUI's Messages tab under tmux. Needs LOUPE_CI_PYTHON (the venv .ci/run makes).
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
python="${LOUPE_CI_PYTHON:-$here/venv/bin/python}"
work=$(mktemp -d)
session="loupe-streams-$$"
wait_limit=15
started=$SECONDS
pids=()
cleanup() {
  tm kill-server 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
. "$here/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys
[ -x "$python" ] || fail "no Python with the peers: set LOUPE_CI_PYTHON (python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt)"

# start_peer SCRIPT: runs it on a free port; sets $port.
start_peer() {
  "$python" "$here/$1" > "$work/$1.port" 2>"$work/$1.err" & pids+=($!)
  for _ in $(seq 100); do [ -s "$work/$1.port" ] && break; sleep 0.1; done
  port=$(head -1 "$work/$1.port")
  [ -n "$port" ] || fail "$1 did not start: $(head -c 400 "$work/$1.err")"
}
# run EXPECTED_EXIT DESCRIPTION COMMAND...: stdout to out.txt, stderr to err.txt, within 30 s.
run() {
  local want="$1" what="$2"; shift 2
  timeout 30 "$@" >"$work/out.txt" 2>"$work/err.txt"
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung"
  [ "$code" -eq "$want" ] || fail "$what: exit $code, want $want; stderr: $(head -c 600 "$work/err.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace' "$work/err.txt" "$work/out.txt"; then fail "$what: crash text"; fi
}
store="$work/traces.sqlite"

start_peer sse-server.py; sse=$port
start_peer ws-server.py; ws=$port

echo "-- loupe send on a text/event-stream"
run 0 "send events" "$loupe" send GET "http://127.0.0.1:$sse/events?count=4" --store "$store" </dev/null
grep -q "data: token 1" "$work/out.txt" && grep -q "data: second line 4" "$work/out.txt" || fail "send printed: $(head -c 400 "$work/out.txt")"
ok "send prints the events as they arrive"
run 0 "show --json" "$loupe" show "$store" 1 --json
"$python" - "$work/out.txt" <<'PY' || fail "show --json: $(head -c 600 "$work/out.txt")"
import json, sys
doc = json.load(open(sys.argv[1]))
stream = doc["stream"]
assert stream["kind"] == "sse" and stream["received"] == 4, stream
assert [m["eventID"] for m in stream["messages"]] == ["1", "2", "3", "4"], stream["messages"]
assert stream["messages"][1]["text"] == "token 2\nsecond line 2", stream["messages"][1]
assert all(m["type"] == "token" and m["direction"] == "received" for m in stream["messages"])
PY
ok "show --json has the four events, multi-line data joined"

echo "-- loupe ws against the websockets package's server"
printf 'hello\nsecond line\n' > "$work/in.txt"
run 0 "ws echo" "$loupe" ws "ws://127.0.0.1:$ws/echo" --store "$store" -H "Authorization: Bearer E2E-WS-5150" <"$work/in.txt"
[ "$(cat "$work/out.txt")" = "$(printf 'hello\nsecond line')" ] || fail "ws printed: $(cat "$work/out.txt")"
ok "ws sends stdin lines and prints the echoes"
# The websockets server answers a close at once and drops the echoes it has not sent: loupe waits for quiet first.
seq 1 300 > "$work/many.txt"
run 0 "ws many lines" "$loupe" ws "ws://127.0.0.1:$ws/echo" --store "$work/many.sqlite" <"$work/many.txt"
cmp -s "$work/out.txt" "$work/many.txt" || fail "ws printed $(wc -l < "$work/out.txt") of 300 echoes"
ok "300 piped lines: every echo printed before the close"
run 1 "ws unanswered close" "$loupe" ws "ws://127.0.0.1:$ws/unanswered" --store "$work/many.sqlite" --close-timeout 0.3 </dev/null
[ "$(cat "$work/out.txt")" = "not listening" ] && [ "$(wc -l < "$work/err.txt")" -eq 1 ] \
  && grep -q "^loupe: the client closed the WebSocket: 1006 no close from the server within 300 ms" "$work/err.txt" \
  || fail "unanswered close: $(cat "$work/out.txt" "$work/err.txt")"
ok "a close the server never answers ends after --close-timeout, one loupe: line"
run 0 "ws fragmented" "$loupe" ws "ws://127.0.0.1:$ws/fragmented" --store "$store" </dev/null
grep -q "^<binary 5 bytes: AAECAwQ=>" "$work/out.txt" && [ "$(head -1 "$work/out.txt" | wc -c)" -eq 3001 ] || fail "fragmented: $(head -c 200 "$work/out.txt")"
ok "fragmented messages arrive whole"
run 1 "ws server close" "$loupe" ws "ws://127.0.0.1:$ws/close" --store "$store" </dev/null
grep -q "loupe: the server closed the WebSocket: 4001 bye from server" "$work/err.txt" || fail "close: $(cat "$work/err.txt")"
ok "a server's close code is one loupe: line and exit 1"
run 1 "ws refused" "$loupe" ws "ws://127.0.0.1:1/none" --store "$store" </dev/null
[ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q "^loupe: ws ws://127.0.0.1:1/none failed" "$work/err.txt" || fail "refused: $(cat "$work/err.txt")"
ok "a refused connection is one loupe: line"
run 2 "ws bad url" "$loupe" ws "ftp://x" </dev/null
ok "a URL that is not ws(s) or http(s) exits 2"

run 0 "list --json" "$loupe" list "$store" --json
"$python" - "$work/out.txt" <<'PY' || fail "list --json: $(head -c 600 "$work/out.txt")"
import json, sys
rows = json.load(open(sys.argv[1]))
kinds = [r.get("stream", {}).get("kind") for r in rows]
assert kinds[0] == "sse" and kinds[1] == "websocket", kinds
assert rows[1]["stream"]["sent"] == 3 and rows[1]["stream"]["received"] == 2, rows[1]["stream"]  # 2 lines + close
PY
ok "list --json has each stream's kind and counts"
run 0 "show ws" "$loupe" show "$store" 2
grep -q "Messages (5)" "$work/out.txt" && grep -q "second line" "$work/out.txt" || fail "show: $(head -c 800 "$work/out.txt")"
! grep -q "E2E-WS-5150" "$work/out.txt" || fail "the token is printed"
ok "show lists the messages, the handshake token redacted"

echo "-- HAR: _webSocketMessages as Chrome writes them"
run 0 "export" "$loupe" export "$store" --har "$work/out.har"
"$python" - "$work/out.har" <<'PY' || fail "the HAR's _webSocketMessages"
import json, sys
entries = json.load(open(sys.argv[1]))["log"]["entries"]
ws = [e for e in entries if e.get("_resourceType") == "websocket"]
assert ws, "no websocket entry"
messages = ws[0]["_webSocketMessages"]
# Piped lines go out before their echoes come back, so each direction is checked in its own order.
sends = [(m["opcode"], m["data"]) for m in messages if m["type"] == "send"]
receives = [(m["opcode"], m["data"]) for m in messages if m["type"] == "receive"]
assert sends == [(1, "hello"), (1, "second line"), (8, "A+g=")] and receives == [(1, "hello"), (1, "second line")], messages
assert [m["time"] for m in messages] == sorted(m["time"] for m in messages), messages
assert all(isinstance(m["time"], float) and m["time"] > 1.6e9 for m in messages)
sse = [e for e in entries if e.get("_resourceType") == "eventsource"]
assert len(sse[0]["_loupe"]["stream"]["messages"]) == 4
assert "E2E-WS-5150" not in open(sys.argv[1]).read()
PY
ok "the export's _webSocketMessages read back by Python; SSE in _loupe.stream"
run 0 "import" "$loupe" import "$work/out.har" --store "$work/again.sqlite"
run 0 "show imported" "$loupe" show "$work/again.sqlite" 2 --json
grep -q '"kind" : "websocket"' "$work/out.txt" || grep -q '"kind":"websocket"' "$work/out.txt" || fail "import lost the stream: $(head -c 400 "$work/out.txt")"
ok "the HAR imports back with its streams"

# The demo's own streams: `loupe demo --streams` drives /completions (SSE) and /ticker (WebSocket) on its API.
demo="$work/demo.sqlite"
run 0 "demo --streams" "$loupe" demo --headless --streams --duration 5 --store "$demo"
tickers=$(sqlite3 "$demo" "SELECT count(*) FROM exchange WHERE operation = 'ticker'")
[ "$tickers" -ge 1 ] || fail "the demo recorded no /ticker WebSocket: $(cat "$work/out.txt")"
"$loupe" list "$demo" --filter '~op ticker' --json >"$work/ticker.json" || fail "list ~op ticker"
"$python" - "$work/ticker.json" <<'PY' || fail "the ticker's stream: $(head -c 600 "$work/ticker.json")"
import json, sys
rows = json.load(open(sys.argv[1]))
first = rows[-1]["stream"]
assert first["kind"] == "websocket", first
assert first["received"] >= 25 and first["sent"] >= 2, first
PY
ok "demo --streams records its WebSocket feed ($tickers /ticker sessions, ↑↓ counted)"

# Replaying a recorded WebSocket against a fresh demo API (no stream traffic of its own, so its /ticker connections
# are only the replays': the 1st and 2nd answer as recorded, the 3rd is closed by the server after 10 ticks).
api_port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$loupe" demo --headless --duration 120 --port "$api_port" --workers 1 --pause 5000 --store "$work/api.sqlite" \
  >"$work/api.out" 2>&1 & pids+=($!)
for _ in $(seq 100); do "$python" -c "import socket; socket.create_connection(('127.0.0.1', $api_port), 0.2)" 2>/dev/null && break; sleep 0.1; done
ticker=$(sqlite3 "$demo" "SELECT id FROM exchange WHERE operation = 'ticker' ORDER BY sequence LIMIT 1")
run 2 "replay of a WebSocket without --yes" "$loupe" replay "$demo" --id "$ticker" --base-url "http://127.0.0.1:$api_port"
grep -q "a WebSocket replay sends 1 recorded client message again" "$work/err.txt" \
  || fail "the question does not say the client's messages are sent again: $(cat "$work/err.txt")"
run 0 "replay --fast --diff of a WebSocket" "$loupe" replay "$demo" --id "$ticker" --fast --diff --yes \
  --base-url "http://127.0.0.1:$api_port"
grep -q "answers as recorded" "$work/out.txt" || fail "the replay's diff: $(cat "$work/out.txt")"
run 1 "replay --times 2 --diff of a WebSocket" "$loupe" replay "$demo" --id "$ticker" --fast --diff --yes --times 2 \
  --base-url "http://127.0.0.1:$api_port"
grep -q "closed by the client 1000 → closed by the server 1011" "$work/out.txt" \
  || fail "the diff does not show the server's close: $(cat "$work/out.txt")"
replayed=$(sqlite3 "$demo" "SELECT count(*) FROM exchange WHERE operation = 'ticker' AND replay_of IS NOT NULL")
[ "$replayed" = 3 ] || fail "$replayed WebSocket replays recorded, want 3"
ok "a WebSocket replay asks first, sends the client's messages again (--fast) and --diff sees the server's own close"
completion=$(sqlite3 "$demo" "SELECT id FROM exchange WHERE operation = 'completion' AND replay_of IS NULL ORDER BY sequence LIMIT 1")
run 0 "replay --diff of an event stream" "$loupe" replay "$demo" --id "$completion" --diff --base-url "http://127.0.0.1:$api_port"
grep -q "answers as recorded" "$work/out.txt" || fail "the event stream's replay diff: $(cat "$work/out.txt")"
events=$(sqlite3 "$demo" "SELECT count(*) FROM message JOIN exchange ON message.exchange_sequence = exchange.sequence WHERE exchange.replay_of = '$completion'")
[ "$events" = 21 ] || fail "the event stream's replay recorded $events events, want 21"
ok "an event stream's replay is recorded event by event (21) and --diff compares the events"

echo "-- the TUI's Messages tab"
cat > "$work/run.sh" <<EOF2
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work") TERM=xterm-256color $(printf %q "$loupe") tui $(printf %q "$store")
exec sleep 600
EOF2
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/run.sh")" || fail "tmux could not start"
wait_for 0 "Loupe │ exchanges │"
keys g
sleep 0.3
keys Enter
wait_for any "Request"
keys ':' ; tm send-keys -t "$session" -l -- "tab messages"; keys Enter
wait_for any "Server-sent events"
wait_for any "token 4"
ok "the Messages tab lists the stream's events"
wait_for any "Payload of #0"
keys j
wait_for any "Payload of #1"
wait_for any "^  second line 2" regex
ok "j selects the next event and shows its payload, its two data lines as two lines"
keys / ; tm send-keys -t "$session" -l -- "token 4"; keys Enter
wait_for any "Payload of #3"
ok "/ selects the event holding the text"
keys q
tm kill-session -t "$session" 2>/dev/null || true

echo "-- the demo's /completions streams on the timeline, the metrics and the Messages tab"
timeout 120 "$loupe" demo --headless --streams --duration 7 --store "$work/demo.sqlite" >/dev/null 2>"$work/demo.err" \
  || fail "loupe demo --headless --streams: $(head -c 400 "$work/demo.err")"
cat > "$work/demo.sh" <<EOF2
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work") TERM=xterm-256color $(printf %q "$loupe") tui $(printf %q "$work/demo.sqlite")
exec sleep 600
EOF2
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/demo.sh")" || fail "tmux could not start"
wait_for 0 "Loupe │ exchanges │"
keys f; tm send-keys -t "$session" -l -- "completions"; keys Enter
wait_for any "/completions"
keys 2
wait_for 0 "timeline"
wait_for any "/completions *│.*↓" regex
ok "the timeline draws a completion as a bar with ↓ ticks"
keys 4
wait_for any "STREAMS .*COUNT .*FIRST P50 .*FIRST P95 .*MSG/S .*GAP P50 .*GAP P95" regex
pane
grep -A1 "STREAMS" "$work/pane.txt" | tail -1 | grep -qE "^op .* [0-9]+ +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+/s +[0-9.]+ ms +[0-9.]+ ms" \
  || fail "the metrics' streams row: $(grep -A3 STREAMS "$work/pane.txt")"
ok "the metrics show time to first message, messages per second and gaps for the completions"
keys 1
wait_for 0 "exchanges"
keys g Enter
wait_for any "Request"
keys BTab
wait_for any "Server-sent events"
wait_for any "Payload of #0"
ok "a completion's Messages tab opens on its first event"
keys q
tm kill-session -t "$session" 2>/dev/null || true

echo "-- loupe demo --streams: open streams are live rows under the exchanges list"
cat > "$work/live.sh" <<EOF2
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work") TERM=xterm-256color $(printf %q "$loupe") demo --streams --store $(printf %q "$work/live.sqlite")
exec sleep 600
EOF2
tm new-session -d -s "$session" -x 160 -y 40 "sh $(printf %q "$work/live.sh")" || fail "tmux could not start"
wait_for 0 "Loupe │ exchanges │"
wait_for any "⇅ open [0-9.]+ m?s  ↑ [0-9]+ ↓ [0-9,]+  (events  completion|WebSocket  ticker)" regex
row=$(grep -m1 -oE "⇅ open [^│]*" "$work/pane.txt" | cut -c1-100)
ok "an open stream is a live row: $row"
keys q

echo "e2e-streams: $passed passed, 0 failed ($((SECONDS - started)) s)"
