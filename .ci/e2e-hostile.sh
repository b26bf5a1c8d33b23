#!/usr/bin/env bash
# The hostile-input classes on the real binary: every bad input gets exit 2 and one `loupe: …` line, nothing
# crashes or hangs, viewers never write, refused files stay byte-identical with their mode, and no planted secret
# reaches a store file, its WAL, a HAR, or printed output.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
session="loupe-hostile-$$"
pids=()
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-HOSTILE FAILED: $*"; [ -f "$work/pane.txt" ] && cat "$work/pane.txt"; exit 1; }

# expect_bad DESCRIPTION COMMAND...: exit 2 within 20 s, exactly one stderr line starting `loupe: `, no crash text.
expect_bad() {
  local what="$1"; shift
  timeout 20 "$@" >"$work/out.txt" 2>"$work/err.txt" </dev/null
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung (killed after 20 s)"
  [ "$code" -eq 2 ] || fail "$what: exit $code, want 2; stderr: $(head -c 600 "$work/err.txt")"
  [ "$(wc -l < "$work/err.txt")" -eq 1 ] || fail "$what: stderr is not one line: $(head -c 600 "$work/err.txt")"
  grep -q '^loupe: ' "$work/err.txt" || fail "$what: stderr does not start with 'loupe: ': $(cat "$work/err.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace|Current stack trace' "$work/err.txt" "$work/out.txt"; then
    fail "$what: crash text printed"
  fi
}
# fingerprint FILE: sha256 and mode, to prove a refused file was left alone.
fingerprint() { echo "$(sha256sum < "$1" | cut -d' ' -f1) $(stat -c '%a' "$1") $(ls "$1"-wal "$1"-shm 2>/dev/null | wc -l)"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "server on $1 never came up"; }

store="$work/demo.sqlite"
"$loupe" demo --headless --duration 3 --store "$store" >/dev/null 2>&1 || fail "demo did not record"

echo "-- 1. numbers: every numeric option refuses inf, nan, 1e300, negatives and zero"
for value in inf nan 1e300 -1 0 -inf 1e-300 abc; do
  expect_bad "send --timeout $value" "$loupe" send GET http://127.0.0.1:1/ --timeout "$value" --store "$work/n.sqlite"
  expect_bad "send --deadline $value" "$loupe" send GET http://127.0.0.1:1/ --deadline "$value" --store "$work/n.sqlite"
  expect_bad "send --breaker-wait $value" "$loupe" send GET http://127.0.0.1:1/ --breaker --breaker-wait "$value" --store "$work/n.sqlite"
  expect_bad "demo --duration $value" "$loupe" demo --headless --duration "$value" --store "$work/n.sqlite"
  expect_bad "list --limit $value" "$loupe" list "$store" --limit "$value"
  expect_bad "prune --max-age $value" "$loupe" prune "$store" --dry-run --max-age "$value"
done
for value in inf nan 1e300 -1 abc 99999999999999999999; do
  expect_bad "send --retries $value" "$loupe" send GET http://127.0.0.1:1/ --retries "$value" --store "$work/n.sqlite"
  expect_bad "prune --max-bytes $value" "$loupe" prune "$store" --dry-run --max-bytes "$value"
  expect_bad "prune --max-count $value" "$loupe" prune "$store" --dry-run --max-count "$value"
done
[ ! -e "$work/n.sqlite" ] || fail "a refused command created a store"
ok "numeric options: exit 2, one line, nothing created"

expect_bad "send to port 70000" "$loupe" send GET http://127.0.0.1:70000/ --store "$work/p.sqlite"
expect_bad "send to port 99999999999" "$loupe" send GET http://127.0.0.1:99999999999/ --store "$work/p.sqlite"
ok "ports above 65535 are bad input, not a trap"

echo "-- 1. usage errors are one line"
expect_bad "unknown command" "$loupe" frobnicate
expect_bad "unknown option" "$loupe" list "$store" --frob
expect_bad "missing value" "$loupe" list "$store" --limit
expect_bad "missing argument" "$loupe" show
expect_bad "bad method" "$loupe" send 'FR OB' http://127.0.0.1:1/
"$loupe" --help >/dev/null || fail "--help does not exit 0"
ok "usage errors: one loupe: line, exit 2; --help exits 0"

echo "-- 1. standard output on a full disk is one loupe: line and exit 2, never a trap or a silent exit 0"
for args in "export $store --har -" "list $store" "stats $store"; do
  # shellcheck disable=SC2086
  timeout 20 "$loupe" $args >/dev/full 2>"$work/err.txt" </dev/null
  code=$?
  [ "$code" -eq 2 ] || fail "loupe $args > /dev/full: exit $code, want 2; stderr: $(head -c 600 "$work/err.txt")"
  [ "$(cat "$work/err.txt")" = "loupe: cannot write to standard output: No space left on device" ] \
    || fail "loupe $args > /dev/full: stderr: $(head -c 600 "$work/err.txt")"
done
ok "standard output on /dev/full: exit 2, one line"

echo "-- 1. filters: thousands of terms and deep nesting are a filter error"
many=$(python3 -c 'print(" | ".join(["~c %d" % (200 + i % 300) for i in range(5000)]))')
deep=$(python3 -c 'print("(" * 5000 + "~e" + ")" * 5000)')
expect_bad "5000-term filter" "$loupe" list "$store" --filter "$many"
grep -qi 'filter' "$work/err.txt" || fail "5000-term filter error does not say filter: $(cat "$work/err.txt")"
expect_bad "5000-deep filter" "$loupe" list "$store" --filter "$deep"
grep -qi 'filter' "$work/err.txt" || fail "deep filter error does not say filter: $(cat "$work/err.txt")"
ok "huge filters: a clear filter error, no stack overflow"

echo "-- 1/2. HAR with extreme numbers and a catastrophic-backtracking body"
python3 - "$work/extreme.har" <<'EOF'
import json, sys
body = "a" * 40 + "!"
def entry(time, wait, started):
    return {"startedDateTime": started, "time": time,
            "request": {"method": "GET", "url": "http://example.test/x", "httpVersion": "HTTP/1.1", "headers": [],
                        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                         "content": {"size": len(body), "mimeType": "text/plain", "text": body},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
            "cache": {}, "timings": {"send": 0, "wait": wait, "receive": 0}}
entries = [entry(1e22, 1e22, "2024-01-01T00:00:00.000Z"), entry(1e300, -1e300, "2024-01-01T00:00:01.000Z"),
           entry(5, 5, "2024-01-01T00:00:02.000Z")]
text = json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
text = text.replace("1e+300", "1e999", 1)   # JSON infinity as a number a parser sees as inf
open(sys.argv[1], "w").write(text)
EOF
timeout 20 "$loupe" import "$work/extreme.har" --store "$work/extreme.sqlite" >/dev/null 2>"$work/err.txt"
code=$?; [ "$code" -eq 0 ] || [ "$code" -eq 2 ] || fail "import of extreme numbers exited $code: $(cat "$work/err.txt")"
if [ -f "$work/extreme.sqlite" ]; then
  # Values an older version may have written straight into a store.
  sqlite3 "$work/extreme.sqlite" "UPDATE exchange SET duration = 1e308 * 10 WHERE sequence = (SELECT MIN(sequence) FROM exchange);
                                  UPDATE exchange SET duration = -1e300, ended_at = -1e300 WHERE sequence = (SELECT MAX(sequence) FROM exchange);"
  for cmd in "list" "list --json" "stats" "stats --json" "show #1" "show #1 --json" "curl #1"; do
    # shellcheck disable=SC2086
    timeout 20 "$loupe" ${cmd%% *} "$work/extreme.sqlite" ${cmd#* } >/dev/null 2>"$work/err.txt"
    code=$?; [ "$code" -lt 3 ] || fail "'$cmd' on extreme numbers exited $code: $(head -c 400 "$work/err.txt")"
  done
  start=$(date +%s)
  timeout 60 "$loupe" list "$work/extreme.sqlite" --filter '~b "(a+)+$"' >/dev/null 2>&1
  code=$?; [ "$code" -ne 124 ] || fail "catastrophic regex hung"
  [ $(( $(date +%s) - start )) -lt 10 ] || fail "catastrophic regex took over 10 s"
fi
ok "extreme HAR numbers imported or refused; every renderer survives them; (a+)+\$ is bounded"

echo "-- 2. a FIFO, socket, device or folder as a store is refused at once"
mkfifo "$work/fifo"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$work/sock"
mkdir "$work/folder"
for target in "$work/fifo" "$work/sock" "$work/folder" /dev/null /dev/zero; do
  before=$(stat -c '%a %F' "$target")
  expect_bad "list $target" "$loupe" list "$target"
  expect_bad "send --store $target" "$loupe" send GET http://127.0.0.1:1/ --store "$target"
  expect_bad "import into $target" "$loupe" import "$work/extreme.har" --store "$target"
  [ "$(stat -c '%a %F' "$target")" = "$before" ] || fail "$target changed mode or type"
done
expect_bad "import /dev/zero" "$loupe" import /dev/zero --store "$work/z.sqlite"
expect_bad "import a folder" "$loupe" import "$work/folder" --store "$work/z.sqlite"
expect_bad "import a FIFO" "$loupe" import "$work/fifo" --store "$work/z.sqlite"
ok "special files: refused at once, modes unchanged"

echo "-- 3. refused files stay byte-identical and keep their mode"
sqlite3 "$work/foreign.db" "CREATE TABLE notes(a TEXT); INSERT INTO notes VALUES ('mine');"
chmod 644 "$work/foreign.db"
cp "$store" "$work/newer.sqlite"; sqlite3 "$work/newer.sqlite" "PRAGMA user_version = 99;"
chmod 640 "$work/newer.sqlite"
: > "$work/empty.sqlite"; chmod 664 "$work/empty.sqlite"
cp "$work/foreign.db" "$work/readonly.db"; chmod 444 "$work/readonly.db"
head -c 5000 /dev/urandom > "$work/noise.bin"; chmod 604 "$work/noise.bin"
for file in foreign.db newer.sqlite readonly.db noise.bin; do
  f="$work/$file"; before=$(fingerprint "$f")
  expect_bad "list $file" "$loupe" list "$f"
  expect_bad "show $file" "$loupe" show "$f" '#1'
  expect_bad "send --store $file" "$loupe" send GET http://127.0.0.1:1/ --store "$f"
  expect_bad "import --store $file" "$loupe" import "$work/extreme.har" --store "$f"
  expect_bad "prune $file" "$loupe" prune "$f"
  [ "$(fingerprint "$f")" = "$before" ] || fail "$file changed: $before -> $(fingerprint "$f")"
done
before=$(fingerprint "$work/empty.sqlite")
expect_bad "list an empty file" "$loupe" list "$work/empty.sqlite"
[ "$(fingerprint "$work/empty.sqlite")" = "$before" ] || fail "a viewer changed the zero-byte file"
ok "foreign, newer-schema, read-only, noise and zero-byte files: refused, same sha256 and mode"

echo "-- 3. a read-only store can be viewed, not written; a damaged store says so"
cp "$store" "$work/ro.sqlite"; sqlite3 "$work/ro.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null; chmod 400 "$work/ro.sqlite"
before=$(fingerprint "$work/ro.sqlite")
"$loupe" list "$work/ro.sqlite" >/dev/null 2>&1 || fail "a 0400 store cannot be listed"
expect_bad "send into a 0400 store" "$loupe" send GET http://127.0.0.1:1/ --store "$work/ro.sqlite"
[ "$(sha256sum < "$work/ro.sqlite" | cut -d' ' -f1) $(stat -c '%a' "$work/ro.sqlite")" = "$(echo "$before" | cut -d' ' -f1-2)" ] || fail "the 0400 store changed"
cp "$store" "$work/damaged.sqlite"; sqlite3 "$work/damaged.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
size=$(stat -c %s "$work/damaged.sqlite")
python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])//2//4096*4096); f.write(b"\xde\xad" * 2048)' "$work/damaged.sqlite" "$size"
before=$(fingerprint "$work/damaged.sqlite")
for cmd in list stats "show #1" "curl #1" "export --har $work/d.har"; do
  read -r -a args <<< "$cmd"
  expect_bad "$cmd on a damaged store" "$loupe" "${args[0]}" "$work/damaged.sqlite" "${args[@]:1}"
  grep -qi 'damaged' "$work/err.txt" || fail "$cmd does not say the store is damaged: $(cat "$work/err.txt")"
done
[ "$(fingerprint "$work/damaged.sqlite")" = "$before" ] || fail "a damaged store was changed"
ok "0400 store: viewed, not written, unchanged; damaged store: every command says damaged"

echo "-- 3. bounds belong to the store, and a prune says so"
bstore="$work/bounded.sqlite"; cp "$store" "$bstore"
"$loupe" prune "$bstore" --set-max-count 5 >/dev/null 2>&1 || fail "prune --set-max-count failed"
[ "$(sqlite3 "$bstore" "SELECT COUNT(*) FROM exchange")" -le 5 ] || fail "--set-max-count 5 kept more than 5"
"$loupe" import "$work/extreme.har" --store "$bstore" >/dev/null 2>"$work/err.txt"
[ "$(sqlite3 "$bstore" "SELECT COUNT(*) FROM exchange")" -le 5 ] || fail "a writer did not apply the store's own bounds"
grep -q 'removed' "$work/err.txt" || fail "a writer's prune was not reported on stderr: $(cat "$work/err.txt")"
sqlite3 "$bstore" "SELECT COUNT(*) FROM event WHERE kind = 'store-prune'" | grep -qv '^0$' || fail "no store-prune event recorded"
ok "a store keeps its own bounds; writers apply them, say so on stderr and record a store-prune event"

echo "-- 3. viewers never write, even on a store over its bounds"
old="$work/old.sqlite"
cp "$store" "$old"
sqlite3 "$old" "PRAGMA wal_checkpoint(TRUNCATE); UPDATE exchange SET stored_at = stored_at - 90 * 86400; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
count_before=$(sqlite3 "$old" "SELECT COUNT(*) FROM exchange")
sum_before=$(sha256sum < "$old")
"$loupe" list "$old" >/dev/null || fail "list failed on the old store"
"$loupe" show "$old" '#2' >/dev/null || fail "show failed"
"$loupe" stats "$old" >/dev/null || fail "stats failed"
"$loupe" curl "$old" '#2' >/dev/null || fail "curl failed"
"$loupe" export "$old" --har "$work/old.har" >/dev/null || fail "export failed"
"$loupe" prune "$old" --dry-run >/dev/null || fail "prune --dry-run failed"
tmux new-session -d -s "$session" -x 120 -y 40 "TERM=xterm-256color '$loupe' tui '$old'; sleep 30"
for _ in $(seq 50); do tmux capture-pane -p -t "$session" > "$work/pane.txt"; grep -q "/users\|/orders\|/profile" "$work/pane.txt" && break; sleep 0.1; done
tmux send-keys -t "$session" q; sleep 0.5; tmux kill-session -t "$session" 2>/dev/null || true
[ "$(sqlite3 "$old" "SELECT COUNT(*) FROM exchange")" = "$count_before" ] || fail "a viewer removed exchanges"
[ "$(sha256sum < "$old")" = "$sum_before" ] || fail "a viewer changed the store file"
ok "list, show, stats, curl, export, prune --dry-run and tui left a 90-day-old store as it was ($count_before exchanges)"

echo "-- 4/5. secrets and control characters from a server nobody here wrote"
port=$(free_port)
python3 "$here/hostile-server.py" "$port" >/dev/null 2>&1 &
pids+=($!)
wait_port "$port"
sstore="$work/secrets.sqlite"
"$loupe" send POST "http://127.0.0.1:$port/echo?api_key=QKEY-51ab7c&page=2" \
  -H 'X-Api-Key: HKEY-93fe1d' --json '{"user":"u","password":"JPASS-77c0aa","nested":{"client_secret":"JSEC-4d1e99"}}' \
  --bearer BTOK-6c2f08e1 --store "$sstore" >"$work/send.txt" 2>/dev/null
"$loupe" send POST "http://127.0.0.1:$port/echo" -H 'Content-Type: application/x-www-form-urlencoded' \
  --data 'name=n&access_token=FTOK-0b9a3c' --basic 'alice:BPASS-e4d2f1' --store "$sstore" >/dev/null 2>&1
"$loupe" send GET "http://127.0.0.1:$port/echo" -H 'X-Custom-Secret: CUST-8a8a8a' --store "$sstore" >/dev/null 2>&1
"$loupe" export "$sstore" --har "$work/secrets.har" >/dev/null
{ "$loupe" list "$sstore"; "$loupe" list "$sstore" --json; for i in 1 2 3; do "$loupe" show "$sstore" "#$i"; "$loupe" show "$sstore" "#$i" --json; "$loupe" curl "$sstore" "#$i"; done; } > "$work/printed.txt" 2>&1
for secret in QKEY-51ab7c HKEY-93fe1d JPASS-77c0aa JSEC-4d1e99 BTOK-6c2f08e1 FTOK-0b9a3c BPASS-e4d2f1; do
  b64=$(printf '%s' "$secret" | base64 | tr -d '=' | cut -c1-12)
  for f in "$sstore" "$sstore-wal" "$work/secrets.har" "$work/printed.txt"; do
    [ -f "$f" ] || continue
    if grep -a -q -- "$secret" "$f"; then fail "secret $secret found in $(basename "$f")"; fi
  done
done
basic64=$(printf 'alice:BPASS-e4d2f1' | base64)
if grep -a -q -- "$basic64" "$sstore"* "$work/secrets.har" "$work/printed.txt"; then fail "basic credentials (base64) stored"; fi
ok "planted secrets (header, query, JSON, nested JSON, form, bearer, basic) are in no store file, WAL, HAR or output"

grep -a -q 'CUST-8a8a8a' "$sstore"* || fail "the unlisted header was not stored (test premise)"
"$loupe" redact "$sstore" --redact-header X-Custom-Secret >/dev/null 2>&1 || fail "loupe redact failed"
if grep -a -q 'CUST-8a8a8a' "$sstore"*; then fail "loupe redact left the old value in the store files"; fi
ok "loupe redact re-redacts in place and leaves no old copy"

"$loupe" send GET "http://127.0.0.1:$port/escape" --store "$sstore" >/dev/null 2>&1
{ "$loupe" list "$sstore"; "$loupe" show "$sstore" '#4'; "$loupe" curl "$sstore" '#4'; "$loupe" stats "$sstore"; } > "$work/printed.txt" 2>&1
if grep -q $'\x1b' "$work/printed.txt"; then fail "an ESC from recorded data reached the terminal"; fi
ok "control characters from recorded data are shown, not sent to the terminal"

echo "-- 2/3. trickling and truncated responses"
start=$(date +%s)
timeout 30 "$loupe" send GET "http://127.0.0.1:$port/trickle" --timeout 1 --store "$sstore" >/dev/null 2>&1
code=$?
[ "$code" -eq 1 ] || fail "trickle with --timeout 1 exited $code, want 1"
[ $(( $(date +%s) - start )) -le 5 ] || fail "--timeout 1 did not bound the body"
ok "--timeout bounds the whole attempt, body included"
timeout 30 "$loupe" send GET "http://127.0.0.1:$port/truncated" --store "$sstore" >/dev/null 2>&1
[ $? -eq 1 ] || fail "a truncated body did not exit 1"
"$loupe" list "$sstore" --json --limit 1 > "$work/last.json"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[-1]; assert e["status"] == 200, e' "$work/last.json" || fail "truncated exchange lost its status"
ok "a connection closed mid-body keeps its status"

echo "-- 5. the TUI asks before replaying a POST, and a paste fires nothing"
rstore="$work/replay.sqlite"
"$loupe" import "$work/secrets.har" --store "$rstore" >/dev/null 2>&1 || fail "cannot import the replay fixture"
replays() { "$loupe" list "$rstore" --json --limit 1000 | python3 -c 'import json,sys; print(sum(1 for e in json.load(sys.stdin) if e.get("replayOf")))'; }
tmux new-session -d -s "$session" -x 120 -y 40 "TERM=xterm-256color '$loupe' tui '$rstore'; sleep 30"
for _ in $(seq 50); do tmux capture-pane -p -t "$session" > "$work/pane.txt"; grep -q "/echo" "$work/pane.txt" && break; sleep 0.1; done
tmux send-keys -t "$session" g; sleep 0.3
tmux send-keys -t "$session" r
for _ in $(seq 50); do tmux capture-pane -p -t "$session" > "$work/pane.txt"; grep -qi "replay?" "$work/pane.txt" && break; sleep 0.1; done
grep -qi "replay?" "$work/pane.txt" || fail "r on a POST did not ask first"
tmux send-keys -t "$session" -l "$(printf 'r%.0s' $(seq 300))y"; sleep 3
[ "$(replays)" -le 1 ] || fail "a paste fired $(replays) replays"
tmux send-keys -t "$session" n; sleep 0.5
before_replays=$(replays)
tmux send-keys -t "$session" r
for _ in $(seq 50); do tmux capture-pane -p -t "$session" > "$work/pane.txt"; grep -qi "replay?" "$work/pane.txt" && break; sleep 0.1; done
tmux send-keys -t "$session" y
for _ in $(seq 100); do [ "$(replays)" -gt "$before_replays" ] && break; sleep 0.1; done
tmux capture-pane -p -t "$session" > "$work/pane.txt"
[ "$(replays)" -eq $((before_replays + 1)) ] || fail "r then y did not record exactly one replay ($before_replays before, $(replays) after)"
tmux send-keys -t "$session" q; sleep 0.3; tmux kill-session -t "$session" 2>/dev/null || true
ok "POST replay asks first; a 300-key paste fires at most one; r, y fires exactly one"

echo "-- 5. the TUI: SIGHUP and SIGQUIT restore the terminal"
for sig in HUP QUIT; do
  tmux new-session -d -s "$session" -x 100 -y 30 "sh -c 'echo \$\$ > $work/tui.pid; TERM=xterm-256color exec $loupe tui $store'; stty -a > '$work/stty.txt'; sleep 30"
  # Generous waits: on a loaded 2-core CI machine the TUI may take seconds to draw its first rows.
  for _ in $(seq 200); do tmux capture-pane -p -t "$session" > "$work/pane.txt"; [ -s "$work/tui.pid" ] && grep -q "/users\|/orders\|/profile" "$work/pane.txt" && break; sleep 0.1; done
  [ -s "$work/tui.pid" ] || fail "the TUI never started for SIG$sig"
  sleep 0.5   # the first frame is drawn; its signal handlers were installed before it
  kill -"$sig" "$(cat "$work/tui.pid")"
  for _ in $(seq 200); do [ -s "$work/stty.txt" ] && break; sleep 0.1; done
  tmux kill-session -t "$session" 2>/dev/null || true
  grep -q -- ' icanon' "$work/stty.txt" && grep -q -- ' echo ' "$work/stty.txt" || fail "SIG$sig left the terminal raw: $(cat "$work/stty.txt")"
  rm -f "$work/stty.txt" "$work/tui.pid"
done
ok "SIGHUP and SIGQUIT restore the terminal"

echo "-- issue 26: what every compliant server sends (compression with a length, bodiless answers, redirects)"
cstore="$work/compliant.sqlite"
attempts_of_last() { sqlite3 "$cstore" "SELECT attempt_count FROM exchange ORDER BY sequence DESC LIMIT 1"; }
outcome_of_last() { sqlite3 "$cstore" "SELECT outcome || ' ' || IFNULL(status, '-') FROM exchange ORDER BY sequence DESC LIMIT 1"; }
for coding in gzip deflate; do
  timeout 20 "$loupe" send GET "http://127.0.0.1:$port/$coding" --store "$cstore" --retries 2 >"$work/out.txt" 2>"$work/err.txt"
  code=$?; [ "$code" -eq 0 ] || fail "$coding with Content-Length: exit $code: $(head -c 400 "$work/err.txt")"
  grep -q '"name": "item 7"' "$work/out.txt" || fail "$coding body not decoded: $(head -c 400 "$work/out.txt")"
  [ "$(attempts_of_last)" = 1 ] || fail "$coding with --retries 2 sent $(attempts_of_last) attempts"
  [ "$(outcome_of_last)" = "success 200" ] || fail "$coding recorded as $(outcome_of_last)"
  rm -f "$work/gz.json"
  timeout 20 "$loupe" send GET "http://127.0.0.1:$port/$coding" --store "$cstore" -o "$work/gz.json" >/dev/null 2>"$work/err.txt" \
    || fail "$coding -o: $(cat "$work/err.txt")"
  python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["items"]) == 8' "$work/gz.json" || fail "$coding -o wrote no JSON"
done
ok "gzip and deflate with Content-Length: exit 0, decoded, one attempt with --retries 2, -o written, recorded success"
timeout 20 "$loupe" send HEAD "http://127.0.0.1:$port/echo" --store "$cstore" >"$work/out.txt" 2>"$work/err.txt" \
  || fail "HEAD with Content-Length: $(cat "$work/err.txt")"
head -1 "$work/out.txt" | grep -q '^HTTP/1.1 200' || fail "HEAD printed $(head -c 200 "$work/out.txt")"
for status in 204 304; do
  timeout 20 "$loupe" send GET "http://127.0.0.1:$port/status/$status" --store "$cstore" >"$work/out.txt" 2>"$work/err.txt"
  code=$?; [ "$code" -eq 0 ] || fail "$status with Content-Length: exit $code: $(cat "$work/err.txt")"
  [ "$(outcome_of_last)" = "success $status" ] || fail "$status recorded as $(outcome_of_last)"
done
ok "HEAD, 204 and 304 carrying Content-Length: 6 and no body: exit 0, recorded success"

timeout 20 "$loupe" send GET "http://127.0.0.1:$port/json2k" --store "$cstore" >"$work/out.txt" 2>"$work/err.txt" \
  || fail "a 2 KB repetitive JSON body (27x) was refused: $(cat "$work/err.txt")"
for mb in 10 1024; do
  timeout 60 "$loupe" send GET "http://127.0.0.1:$port/bomb/$mb" --store "$cstore" -o "$work/bomb.bin" >/dev/null 2>"$work/err.txt"
  code=$?
  [ "$code" -eq 1 ] || fail "a ${mb} MB gzip bomb: exit $code, want 1: $(head -c 400 "$work/err.txt")"
  grep -q 'decompression limit (100× the compressed size past the first 1 MiB); raise it with --max-decompression-ratio' "$work/err.txt" \
    || fail "the ${mb} MB bomb's line does not name the limit and the flag: $(cat "$work/err.txt")"
  [ ! -e "$work/bomb.bin" ] || fail "the ${mb} MB bomb left a file"
done
timeout 60 "$loupe" send GET "http://127.0.0.1:$port/bomb/10" --store "$cstore" --max-decompression-ratio 0 -o "$work/bomb.bin" >/dev/null 2>&1 \
  || fail "--max-decompression-ratio 0 did not lift the limit"
[ "$(stat -c %s "$work/bomb.bin")" = $((10 << 20)) ] || fail "the lifted 10 MB bomb is $(stat -c %s "$work/bomb.bin") bytes"
expect_bad "--max-decompression-ratio -1" "$loupe" send GET "http://127.0.0.1:$port/json2k" --max-decompression-ratio -1 --store "$cstore"
ok "2 KB JSON at 27x passes; 10 MB and 1 GB bombs are refused with the flag named; --max-decompression-ratio 0 lifts it"

for target in cycle/a hops/25; do
  timeout 30 "$loupe" send GET "http://127.0.0.1:$port/$target" --store "$cstore" >"$work/out.txt" 2>"$work/err.txt"
  code=$?
  [ "$code" -ne 124 ] || fail "send $target hung"
  [ "$code" -eq 1 ] || fail "send $target: exit $code, want 1: $(cat "$work/err.txt")"
  # The attempt lines come first (as for every send); the last line is the failure, saying why.
  tail -1 "$work/err.txt" | grep -qE '^loupe: GET .* failed: .*(went round in a cycle|too many redirects \(the client follows at most 20\))' \
    || fail "send $target does not end with why: $(cat "$work/err.txt")"
  [ "$(outcome_of_last)" = "transportError -" ] || fail "send $target recorded as $(outcome_of_last)"
done
timeout 30 "$loupe" send GET "http://127.0.0.1:$port/hops/20" --store "$cstore" >/dev/null 2>&1 || fail "20 redirects did not arrive"
ok "a redirect cycle and 25 redirects: one line, exit 1, recorded; 20 redirects arrive"

echo "-- issue 26: odd encodings and framings"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/gzip-gzip" --store "$cstore" -o "$work/twice.bin" >/dev/null 2>"$work/err.txt" \
  || fail "'gzip, gzip': $(cat "$work/err.txt")"
[ "$(python3 -c 'import gzip,sys; print(gzip.decompress(gzip.decompress(open(sys.argv[1],"rb").read())).decode())' "$work/twice.bin")" = '{"twice": true}' ] \
  || fail "'gzip, gzip' was not kept as sent"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/br" --store "$cstore" >/dev/null 2>"$work/err.txt" || fail "br: $(cat "$work/err.txt")"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/gzip-cut" --store "$cstore" >/dev/null 2>"$work/err.txt"
code=$?; [ "$code" -eq 1 ] || fail "chunked gzip cut mid-stream: exit $code, want 1: $(cat "$work/err.txt")"
[ "$(outcome_of_last)" = "transportError 200" ] || fail "cut gzip recorded as $(outcome_of_last)"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/early-hints" --store "$cstore" >"$work/out.txt" 2>"$work/err.txt" \
  || fail "103 Early Hints before the 200: $(cat "$work/err.txt")"
head -1 "$work/out.txt" | grep -q '^HTTP/1.1 200' || fail "103 then 200 printed $(head -1 "$work/out.txt")"
grep -q '"hinted": true' "$work/out.txt" || fail "103 then 200 lost the body"
ok "'gzip, gzip' and br kept as sent; cut chunked gzip is a transport error; a 103 before the 200 is skipped"

echo "-- issue 26: -o and --har never replace what is at the path without asking"
printf 'precious' > "$work/precious.txt"; chmod 640 "$work/precious.txt"
before=$(fingerprint "$work/precious.txt")
expect_bad "send -o onto an existing file" "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$work/precious.txt" --store "$cstore"
expect_bad "export --har onto an existing file" "$loupe" export "$cstore" --har "$work/precious.txt"
[ "$(fingerprint "$work/precious.txt")" = "$before" ] || fail "a refused output file changed"
before=$(fingerprint "$cstore")
expect_bad "send -o onto the store it records into" "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$cstore" --store "$cstore" --force
expect_bad "send -o onto another store" "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$cstore" --store "$work/other.sqlite" --force
expect_bad "export --har onto a store" "$loupe" export "$store" --har "$cstore" --force
expect_bad "export --har onto its own store" "$loupe" export "$cstore" --har "$cstore" --force
ln -s "$cstore" "$work/store-link"
expect_bad "send -o onto a link to a store" "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$work/store-link" --force --store "$work/other.sqlite"
expect_bad "send -o onto a directory" "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$work/folder" --store "$cstore"
[ "$(fingerprint "$cstore")" = "$before" ] || fail "a store was changed by -o / --har"
[ -L "$work/store-link" ] || fail "the link to the store was replaced"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$work/precious.txt" --force --store "$cstore" >/dev/null 2>&1 || fail "-o --force"
grep -q '"method": "GET"' "$work/precious.txt" || fail "-o --force did not write the body"
[ "$(stat -c %a "$work/precious.txt")" = 640 ] || fail "-o --force lost the file's mode"
timeout 20 "$loupe" export "$cstore" --har "$work/precious.txt" --force >/dev/null 2>&1 || fail "export --force"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))["log"]' "$work/precious.txt" || fail "export --force wrote no HAR"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" -o /dev/null --store "$cstore" >/dev/null 2>&1 || fail "-o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" -o /dev/stdout --store "$cstore" >"$work/stdout.txt" 2>/dev/null || fail "-o /dev/stdout"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["method"] == "GET"' "$work/stdout.txt" \
  || fail "-o /dev/stdout did not write the body alone to standard output: $(head -c 300 "$work/stdout.txt")"
timeout 20 "$loupe" export "$cstore" --har /dev/stdout >"$work/stdout.har" 2>/dev/null || fail "--har /dev/stdout"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))["log"]' "$work/stdout.har" || fail "--har /dev/stdout is not a HAR alone"
rm -f "$work/fifo"; mkfifo "$work/fifo"
( cat "$work/fifo" > "$work/from-fifo.txt" ) & reader=$!
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" -o "$work/fifo" --store "$cstore" >/dev/null 2>&1 || fail "-o FIFO"
wait "$reader"
[ -p "$work/fifo" ] || fail "the FIFO was replaced by a file"
grep -q '"method": "GET"' "$work/from-fifo.txt" || fail "the FIFO's reader got nothing"
timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" -o /dev/full --store "$cstore" >/dev/null 2>"$work/err.txt"
code=$?; [ "$code" -eq 2 ] || fail "-o /dev/full: exit $code, want 2: $(cat "$work/err.txt")"
grep -q 'cannot write /dev/full: No space left on device' "$work/err.txt" || fail "-o /dev/full: $(cat "$work/err.txt")"
ok "-o/--har: existing file refused unchanged, stores and links to them refused even with --force, --force keeps the mode, devices/FIFOs/stdout written through"

echo "-- issue 26: smaller ones (headers, ~, imports, timeouts, replay output, demo port)"
expect_bad "send -H with CR LF" "$loupe" send GET "http://127.0.0.1:$port/echo" -H $'X-A: a\r\nInjected: 1' --store "$cstore"
expect_bad "replay -H with CR LF" "$loupe" replay "$cstore" --id '#1' -H $'X-A: a\r\nInjected: 1' --yes
home="$work/home"; mkdir -p "$home"
HOME="$home" timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" --store '~/tilde.sqlite' >/dev/null 2>&1 || fail "--store ~/…"
[ -f "$home/tilde.sqlite" ] || fail "~ did not expand with \$HOME"
HOME="$home" LOUPE_STORE='~/env.sqlite' timeout 20 "$loupe" send GET "http://127.0.0.1:$port/echo" >/dev/null 2>&1 || fail "LOUPE_STORE=~/…"
[ -f "$home/env.sqlite" ] || fail "LOUPE_STORE='~/env.sqlite' was not expanded"
"$loupe" export "$cstore" --har "$work/good-entries.har" >/dev/null 2>&1 || fail "export for the bad-entry HAR"
python3 - "$work/good-entries.har" "$work/bad-entry.har" <<'HAR'
import sys
text = open(sys.argv[1]).read()
at = text.rindex('"id" : "') + len('"id" : "')
open(sys.argv[2], "w").write(text[:at] + "zzzz" + text[at + 4:])   # the last entry's _loupe id is no UUID
HAR
expect_bad "import with a bad entry" "$loupe" import "$work/bad-entry.har" --store "$work/never.sqlite"
if ls "$work"/never.sqlite* >/dev/null 2>&1; then fail "a refused import left a store behind"; fi
timeout 30 "$loupe" send GET "http://127.0.0.1:$port/trickle" --deadline 1 --store "$cstore" >/dev/null 2>"$work/err.txt"
grep -qE 'longer than its [0-9.]+ (s|ms) timeout' "$work/err.txt" || fail "timeout line: $(cat "$work/err.txt")"
if grep -qE '[0-9]\.[0-9]{4,} s' "$work/err.txt"; then fail "a timeout printed with nanosecond digits: $(cat "$work/err.txt")"; fi
rid=$(sqlite3 "$cstore" "SELECT '#' || sequence FROM exchange WHERE path = '/trickle' ORDER BY sequence DESC LIMIT 1")
timeout 30 "$loupe" replay "$cstore" --id "$rid" --timeout 0.5 --yes --store "$work/replay-full.sqlite" >/dev/full 2>"$work/err.txt"
code=$?; [ "$code" -eq 2 ] || fail "a failing replay into /dev/full: exit $code, want 2: $(cat "$work/err.txt")"
grep -q 'cannot write to standard output: No space left on device' "$work/err.txt" || fail "replay > /dev/full: $(cat "$work/err.txt")"
busy=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(120)' "$busy" &
pids+=($!); wait_port "$busy"
expect_bad "demo --headless --port in use" "$loupe" demo --headless --duration 5 --port "$busy" --store "$work/demo-busy.sqlite"
[ "$(cat "$work/err.txt")" = "loupe: port $busy is in use" ] || fail "demo --port in use: $(cat "$work/err.txt")"
[ ! -e "$work/demo-busy.sqlite" ] || fail "demo on a busy port created a store"
tmux new-session -d -s "$session" -x 100 -y 30 "TERM=xterm-256color '$loupe' demo --port $busy --store '$work/demo-busy.sqlite' 2>'$work/demo-err.txt'; echo \"exit=\$?\" > '$work/demo-exit.txt'; sleep 30"
for _ in $(seq 100); do [ -s "$work/demo-exit.txt" ] && break; sleep 0.1; done
tmux kill-session -t "$session" 2>/dev/null || true
[ "$(cat "$work/demo-exit.txt" 2>/dev/null)" = "exit=2" ] || fail "demo (UI) on a busy port: $(cat "$work/demo-exit.txt" 2>/dev/null) $(cat "$work/demo-err.txt")"
[ "$(cat "$work/demo-err.txt")" = "loupe: port $busy is in use" ] || fail "demo (UI) on a busy port said: $(cat "$work/demo-err.txt")"
ok "-H CR/LF refused by send and replay; ~ and LOUPE_STORE use \$HOME; a refused import leaves no store; timeouts read short; replay > /dev/full says so; demo on a busy port: one line, exit 2 (headless and UI)"

# -- Secrets in odd places and invisible characters (issue 26, items 9-12): the store file (its -wal too), the
#    HAR files and every printed line, checked byte for byte. A block of its own so it merges apart from the rest.
secrets_in_odd_places() {
  echo "-- 6. secrets in odd places: store bytes, HAR files and printed lines; invisible characters escaped"
  local dir="$work/secrets" port sstore out="$work/secrets/printed.txt"
  mkdir -p "$dir"; : > "$out"
  port=$(free_port)
  cat > "$dir/server.py" <<'EOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path.startswith("/redirect"):
            return self.reply(302, b"", [("Location", "/final?access_token=E2E-HOP-7f3a9c51")])
        # Echoes the request line, as many servers' error pages do.
        return self.reply(200, ("you asked for " + self.path).encode(), [("Content-Type", "text/plain")])
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        return self.reply(200, b"ok", [("Content-Type", "text/plain")])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
  python3 "$dir/server.py" "$port" & pids+=($!)
  wait_port "$port"
  sstore="$dir/s.sqlite"
  local base="http://127.0.0.1:$port"
  # send's standard output is the response as the server sent it (curl -i's contract); everything else it prints,
  # and every other command's output, is checked.
  run() { "$@" >>"$out" 2>&1; }
  send() { "$loupe" send "$@" --store "$sstore" >/dev/null 2>>"$out"; }
  printf -- '--XB\r\nContent-Disposition: form-data; name="password"\r\n\r\nE2E-MULTI-1a2b3c\r\n--XB--\r\n' > "$dir/multi.txt"
  send POST "$base/upload" -H 'Content-Type: multipart/form-data; boundary=XB' --data "@$dir/multi.txt"
  send POST "$base/login" --data 'user=ada&password=E2E-FORM-4d5e6f'
  send POST "$base/proxy" --json '{"headers":{"Authorization":"Bearer E2E-JSONAUTH-77aa88"}}'
  send GET "$base/cb?code=E2E-OAUTH-99bb00&state=xyz"
  send POST "$base/token" \
    --data 'grant_type=authorization_code&code=E2E-OAUTH2-11cc22&redirect_uri=https%3A%2F%2Fapp%2Fcb&code_verifier=E2E-VERIFY-33dd44'
  send GET "$base/redirect"
  send GET "$base/page#access_token=E2E-FRAG-55ee66"
  send GET "$base/x" -H 'Cookie: sid=E2E-COOKIE-66ff77; theme=dark' \
    -H "Authorization: Basic $(printf 'ada:E2E-BASIC-88aa99' | base64)"
  # A failure: the line names the URL without its password or token.
  "$loupe" send GET "http://ada:E2E-PASS-0b1c2d@127.0.0.1:1/x?access_token=E2E-FAILTOK-3e4f5a" --store "$sstore" \
    >>"$out" 2>"$dir/fail.txt"
  cat "$dir/fail.txt" >> "$out"
  grep -q 'loupe: GET http://ada:%5BREDACTED%5D@127.0.0.1:1/x?access_token=%5BREDACTED%5D' "$dir/fail.txt" \
    || fail "the failure line does not show the redacted URL: $(cat "$dir/fail.txt")"
  # An imported HAR whose Location carries a token and whose strings quote others.
  cat > "$dir/in.har" <<'EOF'
{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[
 {"startedDateTime":"2024-01-01T00:00:00.000Z","time":1,"comment":"debug Bearer E2E-COMMENT-6b7c8d",
  "_initiator":{"type":"script","url":"https://app.test/boot.js?api_key=E2E-INIT-9e0f1a"},
  "request":{"method":"GET","url":"https://api.test/start","httpVersion":"HTTP/1.1","headers":[{"name":"Authorization","value":"Bearer E2E-IMPECHO-7c8d9e"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
  "response":{"status":302,"statusText":"Found","httpVersion":"HTTP/1.1",
   "headers":[{"name":"Location","value":"https://app.test/cb?access_token=E2E-LOCATION-2b3c4d"},{"name":"X-Label","value":"a\u009b2J\u007fb\u202ec\u2066"}],
   "cookies":[],"content":{"size":30,"mimeType":"text/plain","text":"you sent E2E-IMPECHO-7c8d9e"},"redirectURL":"https://app.test/cb?code=E2E-REDIRURL-5d6e7f&x=1","headersSize":-1,"bodySize":0},
  "cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}
EOF
  cp "$dir/in.har" "$dir/redact.har"
  run "$loupe" import "$dir/in.har" --store "$sstore"
  run "$loupe" redact "$dir/redact.har"
  local secrets="E2E-MULTI-1a2b3c E2E-FORM-4d5e6f E2E-JSONAUTH-77aa88 E2E-OAUTH-99bb00 E2E-OAUTH2-11cc22 E2E-VERIFY-33dd44
    E2E-HOP-7f3a9c51 E2E-FRAG-55ee66 E2E-COOKIE-66ff77 E2E-BASIC-88aa99 E2E-PASS-0b1c2d E2E-FAILTOK-3e4f5a
    E2E-COMMENT-6b7c8d E2E-INIT-9e0f1a E2E-LOCATION-2b3c4d E2E-REDIRURL-5d6e7f E2E-IMPECHO-7c8d9e"
  # Everything printed about the store: text and JSON, one exchange and all, the HAR export.
  "$loupe" list "$sstore" --limit 100 >>"$out" 2>&1
  "$loupe" list "$sstore" --limit 100 --json > "$dir/list.json" 2>>"$out"
  "$loupe" export "$sstore" --har - > "$dir/export.har" 2>>"$out"
  for id in $(python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.load(open(sys.argv[1]))))' "$dir/list.json"); do
    "$loupe" show "$sstore" "$id" >>"$out" 2>&1
    "$loupe" show "$sstore" "$id" --json >> "$dir/show.json" 2>>"$out"
    "$loupe" curl "$sstore" "$id" >>"$out" 2>&1
  done
  # Every command above recorded its exchange (eight answered, one refused connection, one imported).
  [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$dir/list.json")" -eq 10 ] \
    || fail "the secrets store does not hold the 10 exchanges sent and imported: $(cat "$out")"
  for secret in $secrets; do
    local b64; b64=$(printf '%s' "$secret" | base64)
    for file in "$sstore" "$sstore-wal" "$dir/export.har" "$dir/list.json" "$dir/show.json" "$dir/redact.har" "$out"; do
      [ -e "$file" ] || continue
      if grep -qaF -e "$secret" -e "$b64" "$file"; then fail "$secret is in $(basename "$file")"; fi
    done
  done
  ok "17 planted secrets: none in the store, its -wal, a HAR, JSON or any printed line"
  # Raw C1 (U+009B as C2 9B), DEL and bidi overrides (U+202E as E2 80 AE) never reach output.
  for file in "$dir/export.har" "$dir/list.json" "$dir/show.json" "$out"; do
    if LC_ALL=C grep -qaP '\xc2[\x80-\x9f]|\x7f|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$file"; then
      fail "raw C1, DEL or bidi control in $(basename "$file")"
    fi
  done
  grep -q '\\u009b2J\\u007fb\\u202ec\\u2066' "$dir/export.har" || fail "the HAR export does not escape C1, DEL and bidi controls"
  ok "C1, DEL and bidi controls: escaped in JSON and HAR, made visible in text and curl"
}
secrets_in_odd_places

echo "E2E-HOSTILE passed"
echo "e2e-hostile: $passed passed, 0 failed"
