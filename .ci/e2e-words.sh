#!/usr/bin/env bash
# The CLI's words on the real binary (issue 43.17): `--version`; `help WORD` for no command is exit 2; a refused
# connection reads `connection refused`; a taken port reads `port N is in use` (listen, tui --listen); `send | head`
# is one stderr line; `--otlp http://HOST:PORT` posts to /v1/traces as OpenTelemetry's exporters do.
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" LOUPE_STORE="$work/default.sqlite"
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-WORDS FAILED: $*"; for f in "$work"/*.err "$work"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -c 800 "$f"; }; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "nothing listens on $1"; }
# one_line FILE WHAT: FILE holds exactly one line, starting `loupe: `.
one_line() {
  [ "$(wc -l < "$1")" -eq 1 ] && head -1 "$1" | grep -q '^loupe: ' || fail "$2: want one 'loupe: …' line on stderr, got: $(cat "$1")"
}

"$loupe" --version > "$work/version.out" 2> "$work/version.err"; code=$?
[ $code -eq 0 ] && grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' "$work/version.out" && [ ! -s "$work/version.err" ] \
  || fail "--version: exit $code, out '$(cat "$work/version.out")'"
ok "loupe --version prints $(cat "$work/version.out") and exits 0"

"$loupe" help bogus > "$work/help.out" 2> "$work/help.err"; code=$?
[ $code -eq 2 ] && [ ! -s "$work/help.out" ] || fail "help bogus: exit $code"
one_line "$work/help.err" "help bogus"
grep -q "no command 'bogus'" "$work/help.err" || fail "help bogus says: $(cat "$work/help.err")"
"$loupe" help list > /dev/null 2>&1 || fail "help list no longer exits 0"
ok "loupe help bogus: $(cat "$work/help.err") (exit 2); help list still exits 0"

closed=$(free_port)
"$loupe" send GET "http://127.0.0.1:$closed/" --store "$work/send.sqlite" > /dev/null 2> "$work/refused.err"; code=$?
[ $code -eq 1 ] || fail "send to a closed port: exit $code"
grep -q "connection refused" "$work/refused.err" && ! grep -q "errno\|error set" "$work/refused.err" \
  || fail "a refused connection reads: $(cat "$work/refused.err")"
ok "a refused connection: $(tail -1 "$work/refused.err")"

busy=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$busy)); s.listen(); time.sleep(120)" & pids+=($!)
wait_port "$busy"
"$loupe" listen "$busy" --store "$work/listen.sqlite" > /dev/null 2> "$work/listen.err"; code=$?
[ $code -eq 2 ] || fail "listen on a taken port: exit $code"
one_line "$work/listen.err" "listen on a taken port"
grep -qx "loupe: port $busy is in use" "$work/listen.err" || fail "listen on a taken port says: $(cat "$work/listen.err")"
TERM=xterm-256color "$loupe" tui --listen "$busy" --store "$work/tui.sqlite" < /dev/null > /dev/null 2> "$work/tui.err"; code=$?
[ $code -eq 2 ] || fail "tui --listen on a taken port: exit $code"
grep -qx "loupe: port $busy is in use" "$work/tui.err" || fail "tui --listen on a taken port says: $(cat "$work/tui.err")"
ok "listen and tui --listen on a taken port: loupe: port $busy is in use (exit 2)"

server=$(free_port)
mkdir -p "$work/www"
python3 -c "import sys; sys.stdout.write('line of a long body\n' * 400000)" > "$work/www/big.txt"
(cd "$work/www" && exec python3 -m http.server "$server" --bind 127.0.0.1) > /dev/null 2>&1 & pids+=($!)
wait_port "$server"
"$loupe" send GET "http://127.0.0.1:$server/big.txt" --store "$work/send.sqlite" 2> "$work/head.err" | head -c 100 > /dev/null
one_line "$work/head.err" "send | head"
grep -q "cannot write to standard output" "$work/head.err" || fail "send | head says: $(cat "$work/head.err")"
ok "send | head: one line, $(cat "$work/head.err")"

"$loupe" demo --headless --duration 2 --store "$work/demo.sqlite" > /dev/null 2>&1 || fail "demo"
[ -n "${LOUPE_CI_PYTHON:-}" ] || fail "LOUPE_CI_PYTHON is unset (.ci/run sets it)"
"$LOUPE_CI_PYTHON" "$here/otlp-receiver.py" 0 "$work/otlp.jsonl" > "$work/otlp.port" 2> "$work/otlp.err" & pids+=($!)
for _ in $(seq 100); do [ -s "$work/otlp.port" ] && break; sleep 0.05; done
otlp=$(head -1 "$work/otlp.port")
"$loupe" export "$work/demo.sqlite" --otlp "http://127.0.0.1:$otlp" > "$work/otlp.out" 2>&1 || fail "export --otlp to a base endpoint"
[ -s "$work/otlp.jsonl" ] || fail "the receiver (which answers only /v1/traces) decoded no span"
grep -q "/v1/traces" "$work/otlp.out" || fail "export's line does not name /v1/traces: $(cat "$work/otlp.out")"
ok "export --otlp http://127.0.0.1:$otlp posts to /v1/traces: $(head -1 "$work/otlp.out")"

echo "e2e-words: $passed passed, 0 failed"
