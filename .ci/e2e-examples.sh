#!/usr/bin/env bash
# Examples/ built as a user builds it (its own package, Loupe by path) and its three executables run against the
# demo API: a generated OpenAPI client (middleware and LoupeTransport), AsyncHTTPClient through RecordingHTTPClient,
# URLSession through a recorded configuration and through a delegate proxy. Then the real `loupe` reads what they
# recorded, and replays one.
set -euo pipefail
cd "$(dirname "$0")/.."
loupe="$1"
work="$(mktemp -d)"
demo_pid=""
cleanup() { [ -n "$demo_pid" ] && kill "$demo_pid" 2>/dev/null; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "e2e-examples: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }

started=$(date +%s)
# The build's output only when it fails: the generated client's own warnings would fill CI's log.
(cd Examples && swift build > "$work/build.log" 2>&1) || { grep -E "error:" "$work/build.log" | head -50; tail -20 "$work/build.log"; fail "Examples/ does not build"; }
bin="$(cd Examples && swift build --show-bin-path)"
echo "  Examples/ built in $(( $(date +%s) - started )) s (its own .build: NIO, AsyncHTTPClient and GRDB compiled again)"

# The demo API on a free loopback port, for as long as the examples run.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$loupe" demo --headless --duration 300 --port "$port" --store "$work/demo.sqlite" 2> "$work/demo.err" &
demo_pid=$!
for _ in $(seq 1 100); do grep -q "API on" "$work/demo.err" 2>/dev/null && break; sleep 0.1; done
grep -q "API on" "$work/demo.err" || { cat "$work/demo.err"; fail "the demo API did not start"; }
server="http://127.0.0.1:$port"
store="$work/examples.sqlite"

for example in OpenAPIExample AsyncHTTPClientExample URLSessionExample; do
  "$bin/$example" "$server" "$store" > "$work/$example.out" 2>&1 || { cat "$work/$example.out"; fail "$example failed"; }
  grep -q "recorded" "$work/$example.out" || { cat "$work/$example.out"; fail "$example recorded nothing"; }
  ok "$example: $(tail -n 1 "$work/$example.out")"
done

"$loupe" list "$store" --limit 50 --json > "$work/list.json"
python3 - "$work/list.json" <<'PY' || fail "the store does not hold what the examples sent"
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows if isinstance(rows, list) else rows.get("exchanges", rows)
ops = sorted(r.get("operation") for r in rows)
want = sorted(["listUsers", "getFlaky", "GET /users/1", "GET /health", "GET /users", "GET /users/2"])
if ops != want:
    print("recorded operations:", ops, "expected:", want)
    sys.exit(1)
PY
ok "the store holds each example's calls under their operation names"

"$loupe" list "$store" --filter '~op listUsers' --limit 5 --json > "$work/filtered.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r=r if isinstance(r,list) else r["exchanges"]; sys.exit(0 if [x["operation"] for x in r] == ["listUsers"] else 1)' "$work/filtered.json" \
  || { cat "$work/filtered.json"; fail "~op does not find the adapter's exchange"; }
ok "filters find adapter-recorded exchanges"

id="$("$loupe" list "$store" --filter '~op listUsers' --limit 1 --json | python3 -c 'import json,sys; r=json.load(sys.stdin); r=r if isinstance(r,list) else r["exchanges"]; print(r[0]["id"])')"
"$loupe" show "$store" "$id" > "$work/show.txt"
grep -q "openapi-middleware" "$work/show.txt" || { cat "$work/show.txt"; fail "loupe show does not say which adapter recorded it"; }
ok "loupe show names the adapter"

"$loupe" replay "$store" --id "$id" --base-url "$server" --store "$work/replays.sqlite" > "$work/replay.out" 2>&1 \
  || { cat "$work/replay.out"; fail "replaying an adapter-recorded exchange failed"; }
grep -q "Loupe's client" "$work/replay.out" || { cat "$work/replay.out"; fail "the replay does not say it went through Loupe's client"; }
ok "an adapter-recorded exchange replays through Loupe's client, and says so"

echo "e2e-examples: passed in $(( $(date +%s) - started )) s"
