#!/usr/bin/env bash
# The TUI's timeline (2), circuits (3) and metrics (4) screens on the real binary under tmux, over a store
# recorded by `loupe demo --headless`: each screen shows its content, and Enter on the circuits board goes from
# the inventory breaker's key to its history (closed → open, then back to closed through half-open).
#
# Every check waits for the screen to show what it expects (polling every 0.1 s, up to $LOUPE_E2E_WAIT seconds,
# 20 by default) instead of sleeping, so a loaded 2-core machine makes it slower, not flaky.
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
wait_limit="${LOUPE_E2E_WAIT:-20}"
work=$(mktemp -d)
session="screens"
started=$SECONDS
cleanup() {
  tm kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys


echo "-- a demo store: 10 s of the demo's traffic, recorded headless"
store="$work/demo.sqlite"
mkdir -p "$work/home"
demo_env=(env -u LOUPE_STORE HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_STATE_HOME="$work/home/state")
timeout 120 "${demo_env[@]}" "$loupe" demo --headless --duration 10 --store "$store" > "$work/demo.txt" 2> "$work/err.txt" \
  || fail "loupe demo --headless failed: $(head -c 400 "$work/err.txt")"
grep -q "^recorded " "$work/demo.txt" || fail "the demo did not say what it recorded: $(cat "$work/demo.txt")"
echo "   $(cat "$work/demo.txt")"

echo "-- a retry refused after a real 503 keeps the 503 (issue 43.8): list says both, show has its headers and body"
"$loupe" list "$store" --filter '~cb short-circuited' --limit 1000 > "$work/refused.txt" 2>&1 || fail "loupe list failed"
grep -q ' SHRT .*(503, then short-circuited)$' "$work/refused.txt" \
  || fail "no refusal after a 503 is listed as both: $(head -5 "$work/refused.txt")"
! grep -q ' 503 ' "$work/refused.txt" || fail "a refused exchange lists as a plain 503: $(grep ' 503 ' "$work/refused.txt" | head -2)"
refused_id=$("$loupe" list "$store" --filter '~cb short-circuited' --limit 1000 --json \
  | python3 -c 'import json,sys; print(next(r["id"] for r in json.load(sys.stdin) if r.get("status") == 503))')
"$loupe" show "$store" "$refused_id" --json | python3 -c '
import json, sys
x = json.load(sys.stdin)
assert x["outcome"] == "shortCircuited" and x["status"] == 503, (x["outcome"], x["status"])
assert x["responseHeaders"], "the 503 lost its headers"
' || fail "show --json of a refusal after a 503 lacks the 503's headers"
"$loupe" show "$store" "$refused_id" | grep -q '503 Service Unavailable, then short-circuited' || fail "show does not say both facts"
ok "$(grep -c 'then short-circuited' "$work/refused.txt") refusals after a 503: listed SHRT with the 503, shown with its headers"

cat > "$work/run.sh" <<EOF
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work/home") XDG_CONFIG_HOME=$(printf %q "$work/home/config") \\
  XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color \\
  $(printf %q "$loupe") tui $(printf %q "$store")
echo "\$?" > $(printf %q "$work/exit.tmp")
mv $(printf %q "$work/exit.tmp") $(printf %q "$work/exit.txt")
exec sleep 600
EOF
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/run.sh")" || fail "tmux could not start"
wait_for 0 "Loupe │ exchanges │"
ok "tui opens the demo store"

echo "-- 2: the timeline"
keys 2
wait_for 0 "exchanges › timeline │"
wait_for 1 "┊+0"
wait_for 1 "span "
# A bar (whole or eighth blocks) right of the label column, on some exchange's row.
wait_for any '^ *[0-9A-Z—]+ +[A-Z]+ /[^│]*│.*[█▏▎▍▌▋▊▉▕▐]' regex
wait_for any "┈ backoff"
ok "2 shows the timeline: an axis with its span, exchanges drawn as bars"
keys +
wait_for 38 "span "
keys -
wait_for 0 "exchanges › timeline │"
ok "+ and - zoom (the status line says the span) without leaving the timeline"

echo "-- 3: the circuits board"
keys 3
wait_for 0 "exchanges › circuits │"
wait_for 1 "STATE"
wait_for any "inventory"
wait_for any '(CLOSED|OPEN|HALF-OPEN)' regex
ok "3 shows the circuits board with the inventory breaker"
# Walk down the keys until the panel under the table is the inventory breaker's: after each j, wait for the
# panel to name another key.
panel() { grep -E '^─ ' "$work/pane.txt" | head -1; }
pane
for _ in $(seq 1 30); do
  panel | grep -q inventory && break
  before=$(panel)
  keys j
  deadline=$((SECONDS + wait_limit))
  while pane; [ "$(panel)" = "$before" ]; do
    [ $SECONDS -lt $deadline ] || fail "j did not move past '$before' (no inventory key on the board)"
    sleep 0.1
  done
done
wait_for any '^─ [^─]*inventory' regex
keys Enter
wait_for 0 "› circuit "
wait_for 0 "inventory"
wait_for 1 "FROM → TO"
wait_for any "closed → open"
wait_for any "open → half-open"
wait_for any "half-open → closed"
ok "Enter on the inventory key shows its history: opened, probed half-open, closed again"
keys Escape
wait_for 0 "exchanges › circuits │"

echo "-- 4: the metrics"
keys 4
wait_for 0 "exchanges › metrics │"
wait_for 1 "P95"
wait_for any '^all +[0-9.]+/s' regex
wait_for any "inventory"
ok "4 shows the metrics: all traffic, per operation and host, with percentiles"

keys 1
wait_for 0 "Loupe │ exchanges │"
keys q
deadline=$((SECONDS + wait_limit))
until [ -s "$work/exit.txt" ]; do
  [ $SECONDS -lt $deadline ] || { pane; fail "q did not quit the TUI within $wait_limit s"; }
  sleep 0.1
done
[ "$(cat "$work/exit.txt")" = 0 ] || fail "loupe tui exited $(cat "$work/exit.txt"), want 0"
ok "q quits with status 0"
echo "e2e-screens: $passed passed ($((SECONDS - started)) s)"
