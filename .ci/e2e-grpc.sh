#!/usr/bin/env bash
# The demo's gRPC service under tmux (issue 47, item 4): `loupe demo` shows the Warehouse service's calls within ten
# seconds of starting (grpc-swift's HTTP/2 server on 127.0.0.1, called through LoupeGRPCInterceptor), the Messages tab
# shows a call's messages decoded as protobuf, `f ~gs UNAVAILABLE` keeps only the refused first attempts, and the
# stored rows agree (a refused attempt, then its retry answered; Watch's stream of stock levels).
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
session="loupe-grpc-$$"
wait_limit=10
started=$SECONDS
cleanup() {
  tm kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
. "$here/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys
store="$work/demo.sqlite"

echo "-- loupe demo: gRPC rows within ten seconds"
cat > "$work/demo.sh" <<EOF2
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work") TERM=xterm-256color $(printf %q "$loupe") demo --store $(printf %q "$store")
exec sleep 600
EOF2
tm new-session -d -s "$session" -x 140 -y 40 "sh $(printf %q "$work/demo.sh")" || fail "tmux could not start"
launched=$SECONDS
wait_for 0 "Loupe │ exchanges │"
wait_for any "loupe.demo.Warehouse/Reserve"
wait_for any "loupe.demo.Warehouse/Watch"
wait_for any "UNAV 127.0.0.1/loupe.demo.Warehouse/Reserve"
ok "Reserve, Watch and an UNAVAILABLE attempt are rows $((SECONDS - launched)) s after the demo started"

wait_limit=15
keys f; tm send-keys -t "$session" -l -- "~gs UNAVAILABLE"; keys Enter
wait_for 0 "~gs UNAVAILABLE"
sleep 0.5
pane
grep -q "UNAV 127.0.0.1/loupe.demo.Warehouse/Reserve" "$work/pane.txt" || fail "~gs UNAVAILABLE shows no Reserve"
# Every list row under the filter is a refused Reserve (the code column says UNAV): no HTTP path, no Watch, no OK.
grep " 127.0.0.1/" "$work/pane.txt" | grep -v " POST    UNAV 127.0.0.1/loupe.demo.Warehouse/Reserve " >"$work/other.txt" \
  && fail "~gs UNAVAILABLE kept other rows: $(head -3 "$work/other.txt")"
ok "f ~gs UNAVAILABLE keeps only the refused Reserve attempts"

keys g
sleep 0.3
keys Enter
wait_for any "Request"
keys ':' ; tm send-keys -t "$session" -l -- "tab messages"; keys Enter
wait_for any "Payload of #0"
wait_for any '1: "loupe"'
wait_for any "3: [0-9]*[02468]\b" regex
ok "the Messages tab shows the refused attempt's ReserveRequest decoded: item, quantity, an even order"
keys q
keys Escape
sleep 0.3
keys q
for _ in $(seq 100); do tm list-panes -t "$session" -F '#{pane_current_command}' 2>/dev/null | grep -q sleep && break; sleep 0.1; done
tm kill-session -t "$session" 2>/dev/null || true

echo "-- the store: every refused attempt has its retry, answered; over the live link, every message too"
export XDG_STATE_HOME="$work/state"   # the link's identity is made here, never the user's
"$loupe" listen 127.0.0.1:0 --store "$work/linked.sqlite" >"$work/listen.out" 2>"$work/listen.err" &
listener=$!
for _ in $(seq 100); do
  link=$(grep -m1 '^LOUPE_LINK=' "$work/listen.out" 2>/dev/null | cut -d= -f2-)
  [ -n "$link" ] && break
  sleep 0.1
done
[ -n "$link" ] || { kill "$listener"; fail "loupe listen printed no link: $(head -c 400 "$work/listen.err")"; }
timeout 60 env -u LOUPE_STORE HOME="$work" "$loupe" demo --headless --duration 4 --store "$work/headless.sqlite" \
  --link "$link" >"$work/out.txt" 2>"$work/err.txt" || { kill "$listener"; fail "demo --headless: $(head -c 400 "$work/err.txt")"; }
for _ in $(seq 100); do grep -q '^left: loupe demo' "$work/listen.out" && break; sleep 0.1; done
kill -TERM "$listener"; wait "$listener" 2>/dev/null
# Each gRPC exchange's id, status and messages (direction, size, bytes in hex), in both stores.
messages() {
  sqlite3 "$1" "SELECT e.id, e.operation, e.stream, m.idx, m.direction, m.size, hex(m.payload) FROM exchange e
    JOIN message m ON m.exchange_sequence = e.sequence WHERE e.operation LIKE 'loupe.demo.Warehouse/%' ORDER BY e.id, m.idx"
}
messages "$work/headless.sqlite" >"$work/recorded.txt"
messages "$work/linked.sqlite" >"$work/linked.txt"
[ "$(grep -c . "$work/recorded.txt")" -ge 8 ] || fail "the demo recorded few gRPC messages: $(cat "$work/recorded.txt")"
diff "$work/recorded.txt" "$work/linked.txt" >"$work/diff.txt" || fail "the link's gRPC messages differ: $(head -20 "$work/diff.txt")"
ok "the live link delivered every gRPC exchange with its status and its $(grep -c . "$work/recorded.txt") messages, byte for byte"
grep -q "gRPC on 127.0.0.1:[0-9]*" "$work/err.txt" || fail "the demo did not say where gRPC listens: $(cat "$work/err.txt")"
"$loupe" list "$work/headless.sqlite" --filter "~gs UNAVAILABLE" --json >"$work/refused.json" 2>"$work/err.txt" || fail "list ~gs UNAVAILABLE"
"$loupe" list "$work/headless.sqlite" --filter "~grpc & ~gs OK" --json >"$work/ok.json" 2>"$work/err.txt" || fail "list ~gs OK"
python3 - "$work/refused.json" "$work/ok.json" <<'PY' || fail "the stored gRPC rows"
import json, sys
refused, answered = (json.load(open(p)) for p in sys.argv[1:3])
rows = lambda doc: doc if isinstance(doc, list) else doc.get("exchanges", [])
refused, answered = rows(refused), rows(answered)
ops = lambda rs: sorted({r["operation"] for r in rs})
assert refused and ops(refused) == ["loupe.demo.Warehouse/Reserve"], ops(refused)
assert ops(answered) == ["loupe.demo.Warehouse/Reserve", "loupe.demo.Warehouse/Watch"], ops(answered)
print(f"{len(refused)} refused, {len(answered)} answered")
PY
ok "the headless demo stored refused Reserve attempts and answered Reserve and Watch calls"
"$loupe" stats "$work/headless.sqlite" --filter "~grpc" --json >"$work/stats.json" 2>"$work/err.txt" || fail "stats ~grpc"
python3 - "$work/stats.json" <<'PY' || fail "stats of the gRPC methods: $(cat "$work/stats.json")"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["operations"]}
reserve, watch = rows["loupe.demo.Warehouse/Reserve"], rows["loupe.demo.Warehouse/Watch"]
assert reserve["errors"] >= 1 and reserve["retried"] == reserve["errors"] and reserve["retrySucceeded"] == reserve["retried"], reserve
assert reserve["requestBytes"] > 0 and reserve["responseBytes"] > 0 and watch["responseBytes"] > watch["requestBytes"] > 0, (reserve, watch)
PY
ok "stats: a row per method, each retry counted, the messages' bytes either way"
echo "$script_name: $passed passed ($((SECONDS - started)) s)"
