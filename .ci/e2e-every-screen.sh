#!/usr/bin/env bash
# What a new user met on the TUI's screens (issue 25), on the real binary under tmux at 80×24:
#  - `/` on the circuits board, a key's history and the metrics finds what they show, with a hit count (3/7);
#  - the header's count stays live on the timeline and the metrics while another process records;
#  - metrics over an older store opens on a window that has data, and says so;
#  - at 80 columns every screen's footer keeps `? help`;
#  - a keys.toml that rebinds a key changes the key the hints and the help name (issue 45.3).
#
# Every check waits for the screen to show what it expects (polling every 0.1 s, up to $LOUPE_E2E_WAIT seconds,
# 20 by default) instead of sleeping, so a loaded 2-core machine makes it slower, not flaky.
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
wait_limit="${LOUPE_E2E_WAIT:-20}"
work=$(mktemp -d)
session="every"
started=$SECONDS
recorder=""
cleanup() {
  [ -n "$recorder" ] && kill "$recorder" 2>/dev/null
  tm kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys

# The header's count (row 0, `2,671 · time↑`) and the status line's total (`1 / 2,671`), digits only.
header_count() { row 0 | sed -nE 's/.* ([0-9,]+)( shown)? · [a-z]+[↑↓].*/\1/p' | tr -d ,; }
position_total() { row 22 | sed -nE 's|.* [0-9,…]+ / ([0-9,]+) *$|\1|p' | tr -d ,; }

mkdir -p "$work/home"
demo_env=(env -u LOUPE_STORE HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_STATE_HOME="$work/home/state")
record() {  # record SECONDS STORE: the demo's traffic, headless
  timeout 120 "${demo_env[@]}" "$loupe" demo --headless --duration "$1" --store "$2" > "$work/demo.txt" 2> "$work/err.txt" \
    || fail "loupe demo --headless failed: $(head -c 400 "$work/err.txt")"
}
# open STORE: the TUI at 80×24 in a fresh tmux session.
open() {
  tm kill-session -t "$session" 2>/dev/null
  cat > "$work/run.sh" <<EOF
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work/home") XDG_CONFIG_HOME=$(printf %q "$work/home/config") \\
  XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color \\
  $(printf %q "$loupe") tui $(printf %q "$1")
exec sleep 600
EOF
  tm new-session -d -s "$session" -x 80 -y 24 "sh $(printf %q "$work/run.sh")" || fail "tmux could not start"
  wait_for 0 "Loupe │ exchanges │"
}

echo "-- a demo store: 10 s of the demo's traffic, recorded headless"
store="$work/demo.sqlite"
record 10 "$store"
echo "   $(cat "$work/demo.txt")"
open "$store"

echo "-- 16: '? help' on every screen's footer at 80 columns"
wait_for 23 "? help"
keys Enter; wait_for 0 "exchanges › detail"; wait_for 23 "? help"; keys Escape
keys 2; wait_for 0 "exchanges › timeline"; wait_for 23 "? help"
keys 3; wait_for 0 "exchanges › circuits"; wait_for 23 "? help"
keys Enter; wait_for 0 "› circuit "; wait_for 23 "? help"; keys Escape
keys 4; wait_for 0 "exchanges › metrics"; wait_for 23 "? help"
ok "the footer keeps '? help' on exchanges, detail, timeline, circuits, a key's history and metrics"

echo "-- 3: / on the boards finds what they show, with a hit count"
keys 3; wait_for 0 "exchanges › circuits"; wait_for any "inventory"
keys / inventory Enter
wait_for 22 "/inventory: 1/[0-9]+" regex
ok "circuits: /inventory finds the key ($(row 22 | sed -E 's/ +[0-9]+ \/ .*//'))"
keys / closed Enter
wait_for 22 "/closed: [0-9]+/[0-9]+" regex
first=$(row 22 | sed -nE 's|.*/closed: ([0-9]+)/([0-9]+).*|\1 \2|p')
keys n
deadline=$((SECONDS + wait_limit))
while :; do  # until the status line moves off the first hit
  pane
  second=$(row 22 | sed -nE 's|.*/closed: ([0-9]+)/([0-9]+).*|\1 \2|p')
  [ -n "$second" ] && [ "$second" != "$first" ] && break
  [ $SECONDS -lt $deadline ] || fail "n did not move from hit '$first'"
  sleep 0.1
done
set -- $first; a=$1 total=$2; set -- $second
[ "$2" = "$total" ] && { [ "$1" = $((a % total + 1)) ]; } || fail "n did not go to the next hit: $first then $second"
ok "circuits: n goes from hit $a to hit $1 of $total"
keys / inventory Enter Enter
wait_for 0 "› circuit "
keys / open Enter
wait_for 22 "/open: [0-9]+/[0-9]+" regex
ok "a key's history: /open finds transitions ($(row 22 | sed -E 's/ +[0-9]+ \/ .*//'))"
keys Escape 4; wait_for 0 "exchanges › metrics"; wait_for any "inventory"
keys / inventory Enter
wait_for 22 "/inventory: 1/[0-9]+" regex
keys / host Enter
wait_for 22 "/host: 1/[0-9]+" regex
ok "metrics: / finds operations and hosts ($(row 22 | sed -E 's/ +window .*//'))"

echo "-- 4: the header counts arrivals on every screen while another process records"
keys 2; wait_for 0 "exchanges › timeline"
before=$(header_count)
[ -n "$before" ] || fail "no count in the header: $(row 0)"
record 6 "$store" &
recorder=$!
deadline=$((SECONDS + wait_limit + 30))
while :; do
  pane
  now=$(header_count); total=$(position_total)
  [ -n "$now" ] && [ "$now" -gt "$before" ] && [ "$now" = "$total" ] && break
  [ $SECONDS -lt $deadline ] || fail "the timeline's header stayed at $now while its position reads $total (was $before)"
  sleep 0.1
done
ok "timeline: the header went from $before to $now with the position's total ($total)"
keys 4; wait_for 0 "exchanges › metrics"
on_metrics=$(header_count)
deadline=$((SECONDS + wait_limit + 30))
while kill -0 "$recorder" 2>/dev/null; do
  pane
  [ "$(header_count)" -gt "$on_metrics" ] && break
  [ $SECONDS -lt $deadline ] || fail "the header stayed at $on_metrics on the metrics"
  sleep 0.1
done
wait "$recorder"; recorder=""
pane
after=$(header_count)
[ "$after" -gt "$on_metrics" ] || fail "the header stayed at $on_metrics on the metrics while the store grew"
ok "metrics: the header went on counting ($on_metrics → $after)"
keys 1 q

echo "-- 12: metrics over an older store open where the data is"
old="$work/old.sqlite"
cp "$store" "$old"
sqlite3 "$old" "UPDATE exchange SET started_at = started_at - 7200, ended_at = ended_at - 7200;" \
  || fail "could not age the store's copy"
open "$old"
keys 4; wait_for 0 "exchanges › metrics"
wait_for 22 "nothing in the last 5m: window all (w cycles)"
wait_for any '^all +[0-9.]+/s' regex
ok "an older store's metrics open on all exchanges, and say so"
keys q
tm kill-session -t "$session" 2>/dev/null

echo "-- 45.3: hints and the help name the keys a keys.toml rebinds"
mkdir -p "$work/home/config/loupe"
printf '[metrics]\ncycle-window = "W"\n[exchanges]\nsort-next = "z"\n' > "$work/home/config/loupe/keys.toml"
open "$old"
keys 4; wait_for 0 "exchanges › metrics"
wait_for 22 "nothing in the last 5m: window all (W cycles)"
keys 1; wait_for 0 "Loupe │ exchanges │"
keys "?"; wait_for 0 "exchanges › help"
wait_for any "Jump to the first row (in the order shown: z, v"
ok "with cycle-window on W and sort-next on z: '(W cycles)' on the metrics, 'z, v change it' in the help"
keys q q
tm kill-session -t "$session" 2>/dev/null
rm "$work/home/config/loupe/keys.toml"

echo "e2e-every-screen: $passed passed ($((SECONDS - started)) s)"
