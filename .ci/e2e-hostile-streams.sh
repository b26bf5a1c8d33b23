#!/usr/bin/env bash
# Hostile stream peers against the real binary (issue 44, items 4, 5, 6, 11, 12, 13, 14): .ci/hostile-stream-peer.py
# writes every frame and line by hand. A `retry: 0` server may not storm the client (counted connections), an
# interrupted stream replay exits 1, `loupe ws` gives up on a handshake that never comes, refuses what RFC 6455 says
# a client must refuse with the code it puts on the wire (the peer logs the client's close), blames no refusal on
# the server, and every case is recorded. Short secrets in events and in a prefixed WebSocket message never reach
# the store file. Needs LOUPE_CI_PYTHON (the venv .ci/run makes).
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
python="${LOUPE_CI_PYTHON:-$here/venv/bin/python}"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-HOSTILE-STREAMS FAILED: $*"; exit 1; }
[ -x "$python" ] || fail "no Python: set LOUPE_CI_PYTHON (python3 -m venv .ci/venv && .ci/venv/bin/pip install -r .ci/requirements.txt)"

export PEER_LOG="$work/peer.log"
: >"$PEER_LOG"
"$python" "$here/hostile-stream-peer.py" >"$work/port" 2>"$work/peer.err" & pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
peer=$(head -1 "$work/port")
[ -n "$peer" ] || fail "the peer did not start: $(head -c 400 "$work/peer.err")"
base="http://127.0.0.1:$peer"
wsbase="ws://127.0.0.1:$peer"
store="$work/traces.sqlite"

# run EXPECTED_EXIT DESCRIPTION COMMAND...: stdout to out.txt, stderr to err.txt, within 30 s; no crash text.
run() {
  local want="$1" what="$2"; shift 2
  timeout 30 "$@" >"$work/out.txt" 2>"$work/err.txt" </dev/null
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung"
  [ "$code" -eq "$want" ] || fail "$what: exit $code, want $want; stderr: $(head -c 600 "$work/err.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace' "$work/err.txt" "$work/out.txt"; then fail "$what: crash text"; fi
}
connections() { grep -c "^$1 connect" "$PEER_LOG"; }
# last_stream: the newest exchange's stream as JSON, into stream.json.
last_stream() { "$loupe" list "$store" --json --limit 1 >"$work/stream.json" || fail "list --json"; }

echo "-- 4, 13: retry: 0 and a close after each event; the replay of it interrupted"
run 0 "send the stream" "$loupe" send GET "$base/sse/retry0" --store "$store"
id=$("$loupe" list "$store" --json --limit 1 | "$python" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
before=$(connections /sse/retry0)
"$loupe" replay "$store" --id "$id" --yes --store "$store" >"$work/replay.out" 2>"$work/replay.err" </dev/null & replay=$!
sleep 5
kill -INT "$replay"
wait "$replay"; code=$?
storm=$(( $(connections /sse/retry0) - before ))
[ "$storm" -le 10 ] || fail "the replay reconnected $storm times in 5 s (a storm: 1,176 before the fix)"
[ "$storm" -ge 3 ] || fail "the replay connected only $storm times in 5 s: it should reconnect, only slower"
ok "5 s of replay against retry: 0 made $storm connections (250 ms floor, doubling after 3 quick ends)"
[ "$code" -eq 1 ] || fail "an interrupted stream replay exited $code, want 1: $(cat "$work/replay.out" "$work/replay.err")"
grep -q "Errors: none" "$work/replay.out" && fail "an interrupted stream replay reports no error: $(cat "$work/replay.out")"
ok "the interrupted stream replay exits 1, its error counted"

echo "-- 5: short secrets in an event and in a prefixed WebSocket message"
run 0 "send secrets" "$loupe" send GET "$base/sse/secrets" --store "$store"
run 0 "ws secrets" "$loupe" ws "$wsbase/ws/secrets" --store "$store" --linger 0.1
"$loupe" export "$store" --har "$work/out.har" >/dev/null 2>&1 || fail "export"
for secret in '"pw1"' '"4821"' '"cs9Z7"'; do
  for file in "$store" "$store-wal" "$work/out.har"; do
    [ -f "$file" ] || continue
    ! grep -qaF -- "$secret" "$file" || fail "$secret is in $(basename "$file")"
  done
done
"$loupe" list "$store" --json --limit 2 >"$work/two.json"
for n in 0 1; do
  "$loupe" show "$store" "$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))[$n]['id'])" "$work/two.json")" >>"$work/shown.txt" 2>&1
done
! grep -qE 'pw1|4821|cs9Z7' "$work/shown.txt" || fail "show prints a secret: $(grep -E 'pw1|4821|cs9Z7' "$work/shown.txt")"
grep -q "REDACTED" "$work/shown.txt" || fail "show has no redaction mark: $(head -c 600 "$work/shown.txt")"
ok "pw1, 4821 and cs9Z7 are in neither the store file, its WAL, the HAR nor show's output"

echo "-- 6: a handshake that never comes"
for path in silent hangup; do
  started=$SECONDS
  run 1 "ws $path" "$loupe" ws "$wsbase/ws/$path" --store "$store" --timeout 1
  [ $((SECONDS - started)) -le 5 ] || fail "ws $path took $((SECONDS - started)) s with --timeout 1"
  [ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q "^loupe: .*handshake within 1.00 s" "$work/err.txt" \
    || fail "ws $path said: $(cat "$work/err.txt")"
  last_stream
  "$python" -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; assert r["url"].endswith(sys.argv[2]) and r["outcome"] != "success", r' \
    "$work/stream.json" "/ws/$path" || fail "the failed handshake is not recorded: $(head -c 400 "$work/stream.json")"
done
ok "a handshake never answered (or hung up on) ends after --timeout with one line, exit 1, recorded"

# expect_refusal PATH CODE TEXT: loupe ws exits 1 saying the client closed with CODE (TEXT), the peer saw CODE on
# the wire, and the exchange is recorded as closed by the client with CODE.
expect_refusal() {
  local path="$1" code="$2" text="$3"
  run 1 "ws $path" "$loupe" ws "$wsbase$path" --store "$store" --linger 2 --close-timeout 3
  [ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q "^loupe: the client closed the WebSocket: $code $text" "$work/err.txt" \
    || fail "ws $path said: $(cat "$work/err.txt")"
  grep -q "^$path close $code$" "$PEER_LOG" || fail "ws $path: the peer saw no close $code: $(grep "^$path" "$PEER_LOG")"
  last_stream
  "$python" - "$work/stream.json" "$code" <<'PY' || fail "ws $path recorded: $(head -c 600 "$work/stream.json")"
import json, sys
row = json.load(open(sys.argv[1]))[0]
stream = row["stream"]
assert stream.get("closedBy") == "client" and stream.get("closeCode") == int(sys.argv[2]), stream
PY
}

echo "-- 11, 12: messages over 16 MiB, compressed or not"
expect_refusal /ws/bomb 1009 "a message over 16 MiB"
ok "a deflate bomb (32 MiB inflated) closes with 1009, says so, exits 1, recorded as the client's close"
expect_refusal /ws/big 1009 "a message over 16 MiB"
ok "a 17 MiB message in fragments is the client's refusal (1009), not the server's 1006"

echo "-- 14: protocol violations"
for code in 1005 1006 999 1015 5000; do
  expect_refusal "/ws/close/$code" 1002 "the server sent close code $code"
done
ok "close codes never valid on the wire (1005, 1006, 999, 1015, 5000): the client's 1002, exit 1"
expect_refusal /ws/badutf8 1007 "a text message that is not UTF-8"
! grep -q "bad" "$work/out.txt" || fail "the invalid text was printed"
ok "a text frame that is not UTF-8: 1007, not printed"
expect_refusal /ws/masked 1002 "a masked frame from the server"
! grep -q "masked hello" "$work/out.txt" || fail "the masked frame was delivered"
ok "a masked server frame: 1002, not delivered"

echo "e2e-hostile-streams: $passed checks passed"
