#!/usr/bin/env bash
# `loupe export --otlp` on the real binary against .ci/otlp-receiver.py, which decodes with the real
# opentelemetry-proto package (issue 32): a headless demo store arrives whole (every exchange and attempt once,
# parents, times and attributes as stored, checked by .ci/otlp-check.py); again with the receiver answering 503 with
# Retry-After for its first requests; again with the receiver killed and restarted mid-export; then with no
# receiver at all (exit 1 and the count). The store stays byte for byte as it was. Live: `loupe demo --otlp` delivers
# what its recorder stored, and with no collector records as usual, counts the loss and logs it once.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
python="${LOUPE_CI_PYTHON:-$here/venv/bin/python}"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-OTLP FAILED: $*"; [ -f "$work/err.txt" ] && head -c 2000 "$work/err.txt"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
# receive PORT OUT [options]: starts the receiver, waits for its port line; its pid in $receiver.
receive() {
  local port="$1" out="$2"; shift 2
  "$python" "$here/otlp-receiver.py" "$port" "$out" "$@" >"$work/receiver.port" 2>>"$work/receiver.err" &
  receiver=$!
  pids+=("$receiver")
  for _ in $(seq 100); do [ -s "$work/receiver.port" ] && return 0; sleep 0.05; done
  fail "the receiver never started: $(cat "$work/receiver.err")"
}
# stop: kills the receiver and reaps it (quietly: no "Killed" line from the shell).
stop() { kill -9 "$receiver" 2>/dev/null; wait "$receiver" 2>/dev/null; }
# run EXPECTED_EXIT DESCRIPTION COMMAND...: stdout to out.txt, stderr to err.txt, within 120 s.
run() {
  local want="$1" what="$2"; shift 2
  timeout 120 "$@" >"$work/out.txt" 2>"$work/err.txt" </dev/null
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung"
  [ "$code" -eq "$want" ] || fail "$what: exit $code, want $want; stdout: $(head -c 600 "$work/out.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace' "$work/err.txt" "$work/out.txt"; then fail "$what: crash text"; fi
}
"$python" -c 'import opentelemetry.proto' 2>/dev/null || fail "no opentelemetry-proto in $python (.ci/run installs it)"

echo "-- a demo store: 5 s of the demo's traffic, recorded headless"
store="$work/demo.sqlite"
demo_env=(env -u LOUPE_STORE HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_STATE_HOME="$work/home/state")
timeout 120 "${demo_env[@]}" "$loupe" demo --headless --duration 5 --store "$store" >"$work/demo.txt" 2>"$work/err.txt" \
  || fail "loupe demo --headless failed"
exchanges=$(sqlite3 "$store" "SELECT COUNT(*) FROM exchange")
attempts=$(sqlite3 "$store" "SELECT COUNT(*) FROM attempt")
spans=$((exchanges + attempts))
retried=$(sqlite3 "$store" "SELECT COUNT(*) FROM exchange WHERE attempt_count > 1")
[ "$retried" -gt 0 ] || fail "the demo store has no retried exchange"
before=$(sha256sum "$store" | cut -d' ' -f1)
echo "   $exchanges exchanges, $attempts attempts ($retried exchanges retried): $spans spans"

echo "-- export to the receiver: every exchange and attempt once, as stored"
port=$(free_port)
receive "$port" "$work/plain.jsonl"
url="http://127.0.0.1:$port/v1/traces"
run 0 "export --otlp" "$loupe" export "$store" --otlp "$url" --header 'X-Loupe-Test: e2e'
grep -qE "^Sent $spans spans to $url in [0-9]+ requests?, 0 retries$" "$work/out.txt" || fail "summary: $(cat "$work/out.txt")"
"$python" "$here/otlp-check.py" "$store" "$work/plain.jsonl" --header e2e >"$work/check.txt" || fail "$(cat "$work/check.txt")"
ok "$(cat "$work/check.txt")"
[ "$(sha256sum "$store" | cut -d' ' -f1)" = "$before" ] || fail "the export changed the store file"
ok "the store is byte for byte as it was"
stop

echo "-- a filter: only what it matches"
receive "$port" "$work/filtered.jsonl"
run 0 "export --otlp --filter" "$loupe" export "$store" --otlp "$url" --filter '~att >1'
got=$("$python" -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["parent_span_id"] == ""))' "$work/filtered.jsonl")
[ "$got" = "$retried" ] || fail "--filter '~att >1' sent $got exchange spans, want $retried"
ok "--filter '~att >1' sent the $retried retried exchanges and nothing else"
stop

echo "-- the receiver answers 503 (Retry-After: 1) to its first 3 requests"
receive "$port" "$work/unavailable.jsonl" --fail-first 3 --retry-after 1
start=$(date +%s.%N)
run 0 "export through 503s" "$loupe" export "$store" --otlp "$url"
took=$(python3 -c "import time; print(round(time.time() - $start, 1))")
grep -qE "^Sent $spans spans to .* 3 retries$" "$work/out.txt" || fail "summary: $(cat "$work/out.txt")"
python3 -c "import sys; sys.exit(0 if $took >= 3 else 1)" || fail "took ${took}s: Retry-After: 1 was not honoured three times"
"$python" "$here/otlp-check.py" "$store" "$work/unavailable.jsonl" >"$work/check.txt" || fail "$(cat "$work/check.txt")"
ok "3 retries after Retry-After (${took}s); $(cat "$work/check.txt")"
stop

echo "-- the receiver killed (-9) mid-export and restarted 1.5 s later on the same port"
receive "$port" "$work/restarted.jsonl" --delay 0.02
timeout 120 "$loupe" export "$store" --otlp "$url" --otlp-batch 1 >"$work/out.txt" 2>"$work/err.txt" </dev/null &
exporter=$!
pids+=("$exporter")
for _ in $(seq 200); do [ "$(wc -l < "$work/restarted.jsonl")" -gt 20 ] && break; sleep 0.02; done
stop
cut_at=$(wc -l < "$work/restarted.jsonl")
[ "$cut_at" -lt "$spans" ] || fail "the export ended before the receiver was killed"
sleep 1.5
receive "$port" "$work/restarted.jsonl"
wait "$exporter"; code=$?
[ "$code" -eq 0 ] || fail "export across a restart: exit $code; $(cat "$work/out.txt")"
grep -qE "^Sent $spans spans to .*, [1-9][0-9]* retr(y|ies)$" "$work/out.txt" || fail "summary: $(cat "$work/out.txt")"
# One request (one exchange's spans, --otlp-batch 1) may have been stored just before the kill and sent again.
"$python" "$here/otlp-check.py" "$store" "$work/restarted.jsonl" --duplicates-up-to 10 >"$work/check.txt" \
  || fail "$(cat "$work/check.txt")"
ok "killed after $cut_at spans, $(grep -oE '[0-9]+ retr(y|ies)' "$work/out.txt") across the outage; $(cat "$work/check.txt")"
stop

echo "-- no receiver at all: exit 1 and how many spans were not delivered"
dead=$(free_port)
run 1 "export to nothing" "$loupe" export "$store" --otlp "http://127.0.0.1:$dead/v1/traces"
grep -qE "^loupe: $spans of $spans spans were not delivered \(last failure: .*[Cc]onnect.*\)$" "$work/err.txt" || fail "the count: $(cat "$work/err.txt")"
[ "$(wc -l < "$work/err.txt")" -eq 1 ] || fail "more than one line on stderr"
grep -q "^Sent 0 spans" "$work/out.txt" || fail "summary: $(cat "$work/out.txt")"
ok "$(cat "$work/err.txt")"

echo "-- live: loupe demo --otlp, every exchange the recorder stored also reached the collector once"
receive "$port" "$work/live.jsonl"
run 0 "demo --otlp" "${demo_env[@]}" "$loupe" demo --headless --duration 3 --store "$work/live.sqlite" --otlp "$url"
live_spans=$(( $(sqlite3 "$work/live.sqlite" "SELECT COUNT(*) FROM exchange") + $(sqlite3 "$work/live.sqlite" "SELECT COUNT(*) FROM attempt") ))
grep -qE "^loupe: otlp to $url: $live_spans of $live_spans spans delivered$" "$work/err.txt" || fail "the demo's report: $(cat "$work/err.txt")"
"$python" "$here/otlp-check.py" "$work/live.sqlite" "$work/live.jsonl" >"$work/check.txt" || fail "$(cat "$work/check.txt")"
ok "live: $(cat "$work/check.txt")"
stop

echo "-- live, the collector gone: the demo's requests are unaffected, the loss is counted and logged once"
run 0 "demo --otlp to nothing" "${demo_env[@]}" "$loupe" demo --headless --duration 3 --store "$work/lost.sqlite" \
  --otlp "http://127.0.0.1:$(free_port)/v1/traces"
grep -q "^recorded [1-9][0-9]* of " "$work/out.txt" || fail "the demo did not record: $(cat "$work/out.txt")"
lost=$(( $(sqlite3 "$work/lost.sqlite" "SELECT COUNT(*) FROM exchange") + $(sqlite3 "$work/lost.sqlite" "SELECT COUNT(*) FROM attempt") ))
grep -qE "^loupe: otlp to .*: 0 of $lost spans delivered, $lost not delivered$" "$work/err.txt" || fail "the report: $(cat "$work/err.txt")"
[ "$(grep -c 'not reaching the collector' "$work/err.txt")" -eq 1 ] || fail "the loss was not logged exactly once: $(cat "$work/err.txt")"
ok "$(sqlite3 "$work/lost.sqlite" "SELECT COUNT(*) FROM exchange") exchanges recorded as usual; $lost spans counted as lost, one warning"

echo "-- bad input: one line, exit 2, nothing sent"
for bad in "ftp://127.0.0.1/v1/traces" "not a url" "http:///v1/traces" "http://user:pw@127.0.0.1:$port/v1/traces"; do
  run 2 "--otlp '$bad'" "$loupe" export "$store" --otlp "$bad"
  [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q '^loupe: ' "$work/err.txt" || fail "--otlp '$bad': $(cat "$work/err.txt")"
done
run 2 "bad header" "$loupe" export "$store" --otlp "$url" --header 'no colon'
run 2 "header split" "$loupe" export "$store" --otlp "$url" --header $'X-A: 1\r\nX-B: 2'
run 2 "bad filter" "$loupe" export "$store" --otlp "$url" --filter '~c'
run 2 "both" "$loupe" export "$store" --otlp "$url" --har "$work/x.har"
run 2 "batch 0" "$loupe" export "$store" --otlp "$url" --otlp-batch 0
run 2 "--header without --otlp" "$loupe" export "$store" --har "$work/x.har" --header 'A: b'
run 2 "demo --otlp ftp://" "${demo_env[@]}" "$loupe" demo --headless --duration 1 --store "$work/never.sqlite" --otlp ftp://x/v1/traces
[ ! -e "$work/never.sqlite" ] || fail "a demo with a bad --otlp created its store"
[ ! -e "$work/x.har" ] || fail "a refused export wrote a file"
ok "bad URLs, headers, filters and combinations: one 'loupe:' line, exit 2"
[ "$(sha256sum "$store" | cut -d' ' -f1)" = "$before" ] || fail "the store file changed"

echo "e2e-otlp: $passed checks passed"
