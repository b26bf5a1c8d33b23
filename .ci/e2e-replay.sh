#!/usr/bin/env bash
# `loupe replay` on the real binary against .ci/replay-server.py (a server written apart from Loupe): repeats
# recorded as linked copies, diffs that fail on a changed field and pass with --ignore, noise learned from repeated
# runs, --base-url reaching a second server, HAR sources, the confirmation for POST, the JSON report, bad input.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
session="loupe-replay-$$"
pids=()
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-REPLAY FAILED: $*"; [ -f "$work/out.txt" ] && head -c 3000 "$work/out.txt"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "server on $1 never came up"; }
# count PORT 'METHOD PATH': how many such requests the server has seen (python, not curl: CI installs no curl).
count() { python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$1/count')).get(sys.argv[1], 0))" "$2"; }
set_price() { python3 -c "import urllib.request; urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:$1/price?value=$2', method='POST'))"; }
# run EXPECTED_EXIT DESCRIPTION COMMAND...: stdout to out.txt, stderr to err.txt, within 30 s.
run() {
  local want="$1" what="$2"; shift 2
  timeout 30 "$@" >"$work/out.txt" 2>"$work/err.txt" </dev/null
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung"
  [ "$code" -eq "$want" ] || fail "$what: exit $code, want $want; stderr: $(head -c 600 "$work/err.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace' "$work/err.txt" "$work/out.txt"; then fail "$what: crash text"; fi
}

port_a=$(free_port); port_b=$(free_port)
python3 "$here/replay-server.py" "$port_a" a >/dev/null 2>&1 & pids+=($!)
python3 "$here/replay-server.py" "$port_b" b >/dev/null 2>&1 & pids+=($!)
wait_port "$port_a"; wait_port "$port_b"
a="http://127.0.0.1:$port_a"; b="http://127.0.0.1:$port_b"
store="$work/traces.sqlite"
"$loupe" send GET "$a/items" --store "$store" >/dev/null 2>&1 || fail "recording /items"
"$loupe" send GET "$a/volatile" --store "$store" >/dev/null 2>&1 || fail "recording /volatile"
"$loupe" send POST "$a/orders" --json '{"item":"book"}' --store "$store" >/dev/null 2>&1 || fail "recording /orders"
items_id=$(sqlite3 "$store" "SELECT id FROM exchange WHERE url LIKE '%/items'")

echo "-- --times 20 --concurrency 4 records 20 linked copies"
run 0 "replay --times 20" "$loupe" replay "$store" --id '#1' --times 20 --concurrency 4
grep -q '^Replayed 20 requests (1 exchange × 20) in .*concurrency 4$' "$work/out.txt" || fail "summary line"
grep -q '^Statuses: 200 ×20$' "$work/out.txt" || fail "status counts"
grep -q '^Latency: p50 .* ms, p95 .*, p99 ' "$work/out.txt" || fail "latency percentiles"
[ "$(sqlite3 "$store" "SELECT COUNT(*) FROM exchange WHERE replay_of = '$items_id'")" = 20 ] || fail "20 rows linked by replay_of"
[ "$("$loupe" list "$store" --filter '~replay' --limit 100 | wc -l)" = 20 ] || fail "list --filter '~replay' shows 20"
[ "$(count "$port_a" "GET /items")" = 21 ] || fail "the server saw $(count "$port_a" "GET /items") requests for /items, want 21"
[ "$(sqlite3 "$store" "SELECT COUNT(*) FROM exchange WHERE replay_of IS NULL")" = 3 ] || fail "an original was overwritten"
ok "20 replays recorded, each linked to the original; the original kept"

echo "-- --diff: exit 0 when the answer is as recorded, 1 on a changed field, 0 with --ignore"
run 0 "diff, unchanged" "$loupe" replay "$store" --id '#1' --diff
grep -q 'the replay answers as recorded' "$work/out.txt" || fail "unchanged diff wording"
set_price "$port_a" 12
run 1 "diff, changed price" "$loupe" replay "$store" --id '#1' --diff
grep -qF '    $.items[3].price: 10 → 12' "$work/out.txt" || fail "the changed field is not reported by path"
run 0 "diff --ignore" "$loupe" replay "$store" --id '#1' --diff --ignore '$.items[3].price'
run 0 "diff --ignore wildcard" "$loupe" replay "$store" --id '#1' --diff --ignore '$.items[*].price'
grep -q 'left out by --ignore' "$work/out.txt" || fail "ignored differences are not counted in the summary"
ok "--diff exits 1 on a changed field (reported as \$.items[3].price: 10 → 12) and 0 with --ignore"

echo "-- --noise-runs: a field that changes on every call is noise"
run 1 "volatile without noise runs" "$loupe" replay "$store" --id '#2' --diff
grep -qF '$.requestId: ' "$work/out.txt" || fail "the volatile field is not reported without noise runs"
run 0 "volatile with noise runs" "$loupe" replay "$store" --id '#2' --diff --noise-runs 2
grep -qF 'noise (changed between identical requests, not counted): $.requestId, $.generatedAt' "$work/out.txt" || fail "noise not reported"
run 1 "noise does not hide a real change" "$loupe" replay "$store" --filter '(~u items | ~u volatile) & !~replay' --diff --noise-runs 2
grep -qF '$.items[3].price: 10 → 12' "$work/out.txt" || fail "a real change was hidden by noise runs"
ok "--noise-runs ignores fields that change on every call, not real changes"

echo "-- --base-url reaches a second server"
before_a=$(count "$port_a" "GET /items")
run 1 "base-url" "$loupe" replay "$store" --id '#1' --base-url "$b" --diff
[ "$(count "$port_b" "GET /items")" = 1 ] || fail "server b was not reached"
[ "$(count "$port_a" "GET /items")" = "$before_a" ] || fail "server a was reached"
grep -qF 'header:X-Server: a → b' "$work/out.txt" || fail "the diff does not show the other server"
[ "$(sqlite3 "$store" "SELECT url FROM exchange ORDER BY sequence DESC LIMIT 1")" = "$b/items" ] || fail "the replay's URL is not on b"
ok "--base-url rewrote scheme, host and port, kept the path, and reached the second server"

echo "-- a refused connection, -H, --json"
run 1 "dead server" "$loupe" replay "$store" --id '#1' --base-url "http://127.0.0.1:1" --times 3
grep -q '^Errors: 3 (connect failed ×3)$' "$work/out.txt" || fail "errors are not counted"
run 1 "json" "$loupe" replay "$store" --id '#1' --times 2 --diff --json -H 'X-Replay: e2e'
python3 - "$work/out.txt" <<'PY' || fail "--json report shape"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["requests"] == 2 and report["differing"] == 2 and report["statuses"] == {"200": 2}, report
for key in ("elapsedSeconds", "requestsPerSecond", "latencyMs", "failed", "errors", "replays"):
    assert key in report, key
replay = report["replays"][0]
assert replay["same"] is False and replay["status"] == 200 and replay["replaySequence"] > 0
assert replay["differences"][0] == {"path": "$.items[3].price", "change": "changed", "from": "10", "to": "12",
                                    "text": "$.items[3].price: 10 → 12"}, replay["differences"]
PY
ok "failures counted with exit 1; the JSON report has the documented shape"

echo "-- POST: refused without a terminal unless --yes; asked on a terminal"
orders_before=$(count "$port_a" "POST /orders")
run 2 "POST without --yes" "$loupe" replay "$store" --id '#3'
grep -q "^loupe: POST .*may change the server.*pass --yes" "$work/err.txt" || fail "refusal wording: $(cat "$work/err.txt")"
[ "$(count "$port_a" "POST /orders")" = "$orders_before" ] || fail "a refused POST was sent"
run 0 "POST --yes" "$loupe" replay "$store" --id '#3' --yes --times 2
[ "$(count "$port_a" "POST /orders")" = $((orders_before + 2)) ] || fail "POST --yes was not sent twice"
tmux new-session -d -s "$session" -x 220 -y 20 "'$loupe' replay '$store' --id '#3' --times 50 --rate 50; echo EXIT=\$?; sleep 30"
for _ in $(seq 100); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q 'Send it again 50 times? \[y/N\]' "$work/out.txt" && break; sleep 0.1; done
grep -q 'Send it again 50 times? \[y/N\]' "$work/out.txt" || fail "no confirmation prompt on a terminal"
tmux send-keys -t "$session" y Enter
for _ in $(seq 100); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q 'EXIT=' "$work/out.txt" && break; grep -q '█' "$work/out.txt" && cp "$work/out.txt" "$work/bar.txt"; sleep 0.1; done
grep -q 'EXIT=0' "$work/out.txt" || fail "confirmed replay did not finish with 0"
[ -f "$work/bar.txt" ] || fail "no progress bar on a terminal"
[ "$(count "$port_a" "POST /orders")" = $((orders_before + 52)) ] || fail "the confirmed POST was not sent 50 times"
tmux kill-session -t "$session" 2>/dev/null || true
ok "POST replays need --yes without a terminal; on one they ask, and a progress bar runs"

echo "-- in the TUI, e opens \$EDITOR on the request; what the editor saves is sent and recorded as a replay"
# An editor that changes the request line's target and adds a header, as a person would.
printf '%s\n' '#!/bin/sh' "sed -i -e '1s#/items HTTP/1.1#/items?edited=1 HTTP/1.1#' -e '1a X-Edited: by-the-e2e' \"\$1\"" \
  > "$work/editor.sh"
chmod +x "$work/editor.sh"
items_seen=$(count "$port_a" "GET /items")
edited() { sqlite3 "$store" "SELECT $1 FROM exchange WHERE replay_of = '$items_id' AND url LIKE '%/items?edited=1' ORDER BY sequence DESC LIMIT 1"; }
tmux new-session -d -s "$session" -x 120 -y 40 \
  "env -u VISUAL EDITOR='$work/editor.sh' HOME='$work' XDG_STATE_HOME='$work/state' XDG_CONFIG_HOME='$work/config' '$loupe' tui '$store' --filter '~u /items & !~replay'; echo EXIT=\$?; sleep 30"
for _ in $(seq 200); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q ' 1 / 1' "$work/out.txt" && break; sleep 0.1; done
grep -q ' 1 / 1' "$work/out.txt" || fail "the TUI never showed the one /items exchange"
tmux send-keys -t "$session" e
# An edit always asks, even for a GET, and lists what changed (issue 43.1).
for _ in $(seq 200); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q 'Replay? y/N · sends the edited GET .*/items?edited=1 once' "$work/out.txt" && break; sleep 0.1; done
grep -q 'changed: URL /items → /items?edited=1, header X-Edited added' "$work/out.txt" || fail "e: no question listing the changes"
[ "$(count "$port_a" "GET /items")" = "$items_seen" ] || fail "the edit went out before y"
tmux send-keys -t "$session" y
for _ in $(seq 200); do [ -n "$(edited id)" ] && break; sleep 0.1; done
for _ in $(seq 200); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q 'replayed GET /items?edited=1 → 200' "$work/out.txt" && break; sleep 0.1; done
grep -q 'replayed GET /items?edited=1 → 200' "$work/out.txt" || fail "e: the status never said the edited request was replayed"
[ "$(count "$port_a" "GET /items")" = $((items_seen + 1)) ] || fail "the server did not see the edited request once"
tmux send-keys -t "$session" q
for _ in $(seq 100); do tmux capture-pane -p -t "$session" > "$work/out.txt"; grep -q 'EXIT=' "$work/out.txt" && break; sleep 0.1; done
grep -q 'EXIT=0' "$work/out.txt" || fail "the TUI did not quit with 0 after the edit"
edited_id=$(edited id)
[ -n "$edited_id" ] || { sqlite3 "$store" "SELECT sequence, method, url FROM exchange ORDER BY sequence DESC LIMIT 3" >> "$work/out.txt"; fail "the edited replay was sent but not recorded"; }
"$loupe" show "$store" "$edited_id" > "$work/show.txt" 2>&1 || fail "loupe show of the edited replay"
grep -q 'X-Edited: by-the-e2e' "$work/show.txt" || { cp "$work/show.txt" "$work/out.txt"; fail "the edited header was not recorded"; }
tmux kill-session -t "$session" 2>/dev/null || true
ok "e with EDITOR set to a script: the question lists the changes; y sends the edited request (new query, added header) once, recorded as a replay of the original"

echo "-- a HAR file as the source, recorded into another store with its original"
"$loupe" export "$store" --har "$work/items.har" --filter '~u items & !~replay' >/dev/null || fail "export"
run 1 "HAR replay" "$loupe" replay "$work/items.har" --id '#1' --store "$work/from-har.sqlite" --times 3 --diff
[ "$(sqlite3 "$work/from-har.sqlite" "SELECT COUNT(*) FROM exchange WHERE replay_of = '$items_id'")" = 3 ] || fail "HAR replays are not linked"
[ "$(sqlite3 "$work/from-har.sqlite" "SELECT COUNT(*) FROM exchange WHERE id = '$items_id'")" = 1 ] || fail "the HAR original was not brought along"
ok "a HAR source replays into --store, with its original there so the link resolves"

echo "-- a redacted query value is never sent as the marker: left out with a warning, or from LOUPE_REPLAY_QUERY_<NAME> (issue 43.6)"
keyed="$work/keyed.sqlite"
"$loupe" send GET "$a/items?page=2&api_key=s3cret" --store "$keyed" >/dev/null 2>&1 || fail "recording /items?api_key"
sqlite3 "$keyed" "SELECT url FROM exchange" | grep -q 'api_key=%5BREDACTED%5D' || fail "the recorded api_key was not redacted"
last_query() { python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$port_a/seen'))['GET /items']['query'])"; }
run 0 "replay of a redacted query" env -u LOUPE_REPLAY_QUERY_API_KEY "$loupe" replay "$keyed" --id '#1'
[ "$(last_query)" = "page=2" ] || fail "sent query '$(last_query)', want 'page=2'"
grep -q "^loupe: warning: the query's api_key was redacted in the recorded request and is left out; supply it with LOUPE_REPLAY_QUERY_API_KEY$" "$work/err.txt" \
  || fail "no warning for the redacted query value: $(cat "$work/err.txt")"
run 0 "replay with LOUPE_REPLAY_QUERY_API_KEY" env LOUPE_REPLAY_QUERY_API_KEY='fresh key&1' "$loupe" replay "$keyed" --id '#1'
[ "$(last_query)" = "page=2&api_key=fresh%20key%261" ] || fail "sent query '$(last_query)', want the fresh key"
grep -q 'warning' "$work/err.txt" && fail "a warning though the value was supplied: $(cat "$work/err.txt")"
sqlite3 "$keyed" "SELECT url FROM exchange" | grep -q 'fresh' && fail "the supplied key reached the store"
ok "loupe replay leaves a redacted api_key out with a warning, or sends LOUPE_REPLAY_QUERY_API_KEY's value (redacted again in the store)"

echo "-- bad input: exit 2 and one line"
for args in "--id #1 --times 0" "--id #1 --concurrency 0" "--id #1 --rate inf" "--id #1 --base-url ftp://x" \
            "--id #1 --diff --ignore \$.items[" "--id #1 --noise-runs 2" "--id #9999" "--filter ~nope" "--id #1 --raw --retries 2"; do
  read -r -a argv <<< "$args"
  run 2 "replay $args" "$loupe" replay "$store" "${argv[@]}"
  [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q '^loupe: ' "$work/err.txt" || fail "replay $args: not one loupe: line: $(cat "$work/err.txt")"
done
ok "bad numbers, URLs, patterns, ids and filters: exit 2 with one line"

echo "E2E-REPLAY passed"
echo "e2e-replay: $passed passed, 0 failed"
