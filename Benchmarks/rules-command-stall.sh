#!/usr/bin/env bash
# The app's own requests while a viewer sends two rule commands of 1,000 never-matching rules each (issue 44,
# item 3): the headless demo linked over `loupe+tcp://` to a Python viewer (rules-command-stall.py) that sends them
# 3 s in; the demo's exchange durations (p50, p99) in the 3 s before and the 6 s after, and how long the demo ran.
#
#   Benchmarks/rules-command-stall.sh .build/debug/loupe
set -u
loupe="$1"
work=$(mktemp -d)
trap 'kill "${viewer:-0}" 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
secret=benchmarksecret0123456789
python3 "$(dirname "$0")/rules-command-stall.py" "$port" "$secret" 3 "$work/sent" &
viewer=$!
sleep 0.5
start=$(date +%s.%N)
timeout 180 "$loupe" demo --headless --duration 10 --pause 20 --store "$work/demo.sqlite" \
  --link "loupe+tcp://$secret@127.0.0.1:$port" >/dev/null 2>"$work/demo.err"
echo "the demo (10 s of traffic) ran $(python3 -c "import sys,time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$start") s"
sent=$(cat "$work/sent" 2>/dev/null || echo 0)
python3 - "$work/demo.sqlite" "$sent" <<'PY'
import sqlite3, sys
db, sent = sqlite3.connect(sys.argv[1]), float(sys.argv[2])
def line(name, low, high):
    rows = sorted(r[0] for r in db.execute(
        "SELECT (ended_at - started_at) * 1000 FROM exchange WHERE ended_at IS NOT NULL AND started_at >= ? AND started_at < ?",
        (low, high)))
    if not rows: return print(f"{name}: no exchanges")
    pick = lambda q: rows[min(len(rows) - 1, int(q * len(rows)))]
    print(f"{name}: {len(rows)} exchanges, p50 {pick(0.5):.0f} ms, p99 {pick(0.99):.0f} ms")
line("3 s before the commands", sent - 3, sent)
line("6 s after the commands", sent, sent + 6)
PY
grep -m2 "rule command" "$work/demo.err" | cut -c1-160
