#!/usr/bin/env bash
# Issue 28's three budgets for the live link, on release builds, every budget once per round (ratios in one run):
#  (a) what the link costs the app per exchange beyond recording: the process CPU (getrusage, user + system, from the
#      first request until the last exchange is recorded and, linked, acknowledged by the viewer) per exchange of
#      link-profile's `recording` and `recording-linked` shapes (Tools/LinkProfile: LoupeProfile's `recording`, the
#      canned transport into the recorder, with and without a link), paced at RATE_A exchanges/s (at full speed the
#      recorder's writer falls behind the canned transport and drops), the linked one linked over TLS to a real
#      `loupe listen` on 127.0.0.1 that stores into SQLite;
#  (b) what one listener ingests from APPS linked apps at once: APPS `recording-linked` processes of N_B exchanges
#      each, paced at RATE_B/APPS exchanges/s each, against one `loupe listen --store`: exchanges stored per second
#      (rows visible to a reader of the store, from the first exchange's end in an app to the last row), the
#      listener's CPU per exchange, and whether received = sent with nothing dropped (the apps' link counts and
#      the listener's closing line); each app's shutdown waits up to DRAIN_B seconds for the viewer to acknowledge
#      everything it still buffers (the link's own default is 3 s), so that "nothing dropped" is checked on every
#      exchange: acknowledged + dropped = sent, nothing left pending, and the listener received the acknowledged sum;
#  (c) from an exchange's end in the app (its `ended_at`, stamped by the app's client) to the moment its row is
#      visible to a reader of the viewer's store (Tools/link_watch.py polls every 2 ms, as the TUI reads it
#      after the listener's wake-up), one app at RATE_C exchanges/s; measured against `loupe listen` and, when tmux
#      is here, against `loupe tui --listen` drawing the rows in a 120×40 tmux pane (the listener inside the
#      TUI, which redraws after each commit).
#
# Usage: Benchmarks/link-budget.sh LOUPE_BINARY [--rounds R] [--no-build] [--no-tui]
#          [--rate-a R] [--exchanges-a N] [--apps A] [--rate-b R] [--exchanges-b N] [--drain-b S] [--rate-c R]
#          [--exchanges-c N]
#        (defaults: 3 rounds; (a) 10,000/s × 100,000; (b) 10 apps, 25,000/s in all, 30,000 each, drain 120 s;
#        (c) 5,000/s × 50,000)
#        LOUPE_BINARY: the listener: a release `loupe` (`nice -n 15 swift build -c release --product loupe` in the root
#        package, or the same in Benchmarks/, which reuses this package's modules), or Benchmarks' own release
#        link-profile, whose `listen ADDR:PORT --store PATH` is `loupe listen` on the same parts (no TUI step then).
set -euo pipefail

loupe=$(realpath "$1"); shift
rounds=3 build=1 tui=1
rate_a=10000 n_a=100000 apps=10 rate_b=25000 n_b=30000 drain_b=120 rate_c=5000 n_c=50000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --no-build) build=0 ;;
    --no-tui) tui=0 ;;
    --rate-a) rate_a=$2; shift ;;
    --exchanges-a) n_a=$2; shift ;;
    --apps) apps=$2; shift ;;
    --rate-b) rate_b=$2; shift ;;
    --exchanges-b) n_b=$2; shift ;;
    --drain-b) drain_b=$2; shift ;;
    --rate-c) rate_c=$2; shift ;;
    --exchanges-c) n_c=$2; shift ;;
    *) echo "link-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
command -v tmux >/dev/null || tui=0
[ "$(basename "$loupe")" = loupe ] || tui=0

here=$(cd "$(dirname "$0")" && pwd)
if [ "$build" = 1 ]; then
  echo "== building link-profile (release)"
  (cd "$here" && swift build -c release --product link-profile 2>&1 | tail -1)
fi
profile=${LOUPE_PROFILE:-"$here/.build/release/link-profile"}  # LOUPE_PROFILE: another build of it
watch="$here/Tools/link_watch.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/link-budget.XXXXXX")
listener= session=
cleanup() {
  [ -n "$listener" ] && kill "$listener" 2>/dev/null || true
  [ -n "$session" ] && tmux kill-session -t "$session" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_STATE_HOME="$work/state"
tick=$(getconf CLK_TCK)

# free_port, wait_link
source "$(dirname "$0")/link-common.sh"

# listen NAME: `loupe listen` on a free port into a fresh store $work/NAME.sqlite; sets $link and $listener.
listen() {
  "$loupe" listen "127.0.0.1:$(free_port)" --store "$work/$1.sqlite" >"$work/$1.out" 2>&1 &
  listener=$!
  wait_link "$work/$1.out"
}
stop_listener() { kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=; }
# cpu_seconds PID: user + system CPU of a live process.
cpu_seconds() { awk -v t="$tick" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
field() { sed -nE "s/.*$1.*/\\1/p" "$2" | sed -n 1p; }

results="$work/results"
: >"$results"
for round in $(seq "$rounds"); do
  echo "== round $round of $rounds"

  # (a) The order alternates between rounds, so a trend in the machine's load does not favour one shape.
  listen "a$round"
  if [ $((round % 2)) = 1 ]; then shapes="recording recording-linked"; else shapes="recording-linked recording"; fi
  for shape in $shapes; do
    out="$work/a$round-$shape.out"
    LOUPE_RATE=$rate_a LOUPE_LINK=$link "$profile" "$shape" "$n_a" >"$out" 2>&1 || { cat "$out"; exit 1; }
    cpu=$(field ' ([0-9.]+) µs CPU each' "$out"); dropped=$(field 'recorder dropped ([0-9]+)' "$out")
    linkline=$(grep '^link:' "$out" || echo "link: none")
    echo "   (a) $shape: $cpu µs CPU per exchange, recorder dropped $dropped; $linkline"
    echo "a $round $shape $cpu $dropped" >>"$results"
  done
  stop_listener
  echo "   (a) listener: $(tail -1 "$work/a$round.out")"

  # (b) Ten apps, one listener.
  listen "b$round"
  total=$((apps * n_b))
  python3 "$watch" "$work/b$round.sqlite" "$total" --poll 0.005 --out "$work/b$round.watch" >/dev/null &
  watcher=$!
  cpu0=$(cpu_seconds "$listener")
  pids=()
  for n in $(seq "$apps"); do
    LOUPE_RATE=$((rate_b / apps)) LOUPE_LINK_DRAIN_S=$drain_b LOUPE_LINK=$link "$profile" recording-linked "$n_b" \
      >"$work/b$round-app$n.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  wait "$watcher" || true
  cpu1=$(cpu_seconds "$listener")
  stop_listener
  sent=0 acked=0 linkdrops=0 recdrops=0 pending=0 drainmax=0
  for n in $(seq "$apps"); do
    f="$work/b$round-app$n.out"
    read -r a s d p t < <(sed -nE 's/^link: ([0-9]+) of ([0-9]+) acknowledged, ([0-9]+) dropped, ([0-9]+) pending after a drain of ([0-9.]+) s.*/\1 \2 \3 \4 \5/p' "$f") \
      || { cat "$f"; exit 1; }
    acked=$((acked + a)); sent=$((sent + s)); linkdrops=$((linkdrops + d)); pending=$((pending + p))
    drainmax=$(awk -v a="$drainmax" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
    recdrops=$((recdrops + $(field 'recorder dropped ([0-9]+)' "$f")))
  done
  received=$(sed -nE 's/^received ([0-9]+) exchange.*/\1/p' "$work/b$round.out")
  python3 - "$work/b$round.watch" "$cpu0" "$cpu1" "$sent" "$acked" "$linkdrops" "$recdrops" "$received" "$total" "$round" \
    "$results" "$pending" "$drainmax" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
cpu0, cpu1 = float(sys.argv[2]), float(sys.argv[3])
sent, acked, linkdrops, recdrops, received, total, rnd = (int(x) for x in sys.argv[4:11])
pending, drainmax = int(sys.argv[12]), float(sys.argv[13])
cpu_us = (cpu1 - cpu0) * 1e6 / max(1, w["rows"])
print(f"   (b) {w['rows']} of {total} rows seen; {w['rate_from_first_end']:.0f} exchanges/s stored (first end in an app "
      f"to the last row), listener {cpu_us:.1f} µs CPU per exchange ({1e6 / cpu_us:.0f}/s per core); apps sent {sent}, "
      f"acknowledged {acked}, link dropped {linkdrops}, recorder dropped {recdrops}, {pending} still pending after "
      f"the apps' drains (longest {drainmax:.1f} s); listener received {received}; "
      f"latency p50 {w['p50_ms']:.0f} ms, p95 {w['p95_ms']:.0f} ms")
with open(sys.argv[11], "a") as out:
    out.write(f"b {rnd} {w['rate_from_first_end']:.0f} {cpu_us:.2f} {sent} {received} {linkdrops + recdrops} {w['rows']} "
              f"{acked} {pending}\n")
EOF

  # (c) One app at RATE_C, against `loupe listen`, then against `loupe tui --listen` in tmux.
  listen "c$round"
  python3 "$watch" "$work/c$round.sqlite" "$n_c" --out "$work/c$round.watch" >/dev/null &
  watcher=$!
  LOUPE_RATE=$rate_c LOUPE_LINK=$link "$profile" recording-linked "$n_c" >"$work/c$round-app.out" 2>&1
  wait "$watcher" || true
  stop_listener
  python3 - "$work/c$round.watch" "$round" "listen" "$results" "$work/c$round-app.out" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
link = [l.strip() for l in open(sys.argv[5]) if l.startswith("link:")]
print(f"   (c) {sys.argv[3]}: {w['rows']} rows; end → visible p50 {w['p50_ms']:.1f} ms, p95 {w['p95_ms']:.1f} ms, "
      f"p99 {w['p99_ms']:.1f} ms, max {w['max_ms']:.1f} ms; {link[0] if link else ''}")
with open(sys.argv[4], "a") as out:
    out.write(f"c {sys.argv[2]} {sys.argv[3]} {w['p50_ms']:.2f} {w['p95_ms']:.2f} {w['rows']}\n")
EOF
  if [ "$tui" = 1 ]; then
    session="link-budget-$$"
    port=$(free_port)
    tmux new-session -d -s "$session" -x 120 -y 40 \
      "XDG_STATE_HOME='$XDG_STATE_HOME' TERM=xterm-256color '$loupe' tui --listen 127.0.0.1:$port --store '$work/t$round.sqlite' 2>'$work/t$round.err'"
    wait_link "$work/t$round.err"
    tuipid=$(pgrep -n -f "tui --listen 127.0.0.1:$port" || true)
    python3 "$watch" "$work/t$round.sqlite" "$n_c" --out "$work/t$round.watch" >/dev/null &
    watcher=$!
    t0=$([ -n "$tuipid" ] && cpu_seconds "$tuipid" || echo 0)
    LOUPE_RATE=$rate_c LOUPE_LINK=$link "$profile" recording-linked "$n_c" >"$work/t$round-app.out" 2>&1
    wait "$watcher" || true
    t1=$([ -n "$tuipid" ] && cpu_seconds "$tuipid" || echo 0)
    tmux capture-pane -p -t "$session" >"$work/t$round.screen"
    tmux send-keys -t "$session" q
    sleep 1
    tmux kill-session -t "$session" 2>/dev/null || true
    session=
    python3 - "$work/t$round.watch" "$round" "tui" "$results" "$work/t$round-app.out" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))
link = [l.strip() for l in open(sys.argv[5]) if l.startswith("link:")]
print(f"   (c) {sys.argv[3]}: {w['rows']} rows; end → visible p50 {w['p50_ms']:.1f} ms, p95 {w['p95_ms']:.1f} ms, "
      f"p99 {w['p99_ms']:.1f} ms, max {w['max_ms']:.1f} ms; {link[0] if link else ''}")
with open(sys.argv[4], "a") as out:
    out.write(f"c {sys.argv[2]} {sys.argv[3]} {w['p50_ms']:.2f} {w['p95_ms']:.2f} {w['rows']}\n")
EOF
    awk -v a="$t0" -v b="$t1" -v n="$n_c" 'BEGIN { printf "   (c) tui: the TUI used %.1f s of CPU (%.1f µs per exchange: listener, store and redraws)\n", b - a, (b - a) * 1e6 / n }'
    grep -m1 -E 'src:|linked' "$work/t$round.screen" | cut -c1-120 | sed 's/^/   (c) tui title: /' || true
  fi
done

echo "== summary over $rounds round(s)"
python3 - "$results" "$rate_a" "$rate_b" "$apps" "$rate_c" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
a = {}
for r in rows:
    if r[0] == "a":
        a.setdefault(int(r[1]), {})[r[2]] = float(r[3])
deltas = [v["recording-linked"] - v["recording"] for v in a.values() if len(v) == 2]
print(f"(a) at {sys.argv[2]}/s: recording " + ", ".join(f"{v['recording']:.2f}" for v in a.values())
      + " µs; recording-linked " + ", ".join(f"{v['recording-linked']:.2f}" for v in a.values())
      + " µs; the link " + ", ".join(f"{d:+.2f}" for d in deltas)
      + f" µs per exchange (median {statistics.median(deltas):+.2f}; budget ≤ 5 µs)")
b = [r for r in rows if r[0] == "b"]
print(f"(b) {sys.argv[4]} apps offering {sys.argv[3]}/s: " + ", ".join(f"{float(r[2]):.0f}/s" for r in b)
      + "; listener CPU " + ", ".join(f"{float(r[3]):.1f}" for r in b) + " µs per exchange ("
      + ", ".join(f"{float(r[3]) * 20000 / 1e6:.2f}" for r in b) + " of one core at 20,000/s); "
      + "acknowledged = received = stored = sent: "
      + ", ".join("yes" if r[4] == r[5] == r[7] == r[8] and r[9] == "0" else f"NO (sent {r[4]}, acknowledged {r[8]}, "
                  f"received {r[5]}, stored {r[7]}, pending {r[9]})" for r in b)
      + "; dropped " + ", ".join(r[6] for r in b) + " (budget ≥ 20,000/s, none dropped)")
for kind in ("listen", "tui"):
    c = [r for r in rows if r[0] == "c" and r[2] == kind]
    if c:
        print(f"(c) {kind} at {sys.argv[5]}/s: p50 " + ", ".join(f"{float(r[3]):.1f}" for r in c) + " ms, p95 "
              + ", ".join(f"{float(r[4]):.1f}" for r in c) + " ms (budget: median ≤ 100 ms)")
EOF
