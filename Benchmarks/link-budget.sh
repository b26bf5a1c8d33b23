#!/usr/bin/env bash
# Issue 28's budgets for the live link, on release builds (run with nice on a shared machine):
#  (a) what the link costs the app per exchange beyond recording: instructions per exchange of LoupeProfile's
#      `recording` and `recording-linked` shapes (the canned transport, the LoupeProfile shape of the other budgets)
#      counted by callgrind, the app linked to a `loupe listen` in another process that reads and stores; the
#      difference turned into µs with the CPU time per instruction of the same binary run without valgrind;
#  (b) what one listener ingests from 10 linked apps at once: 10 `recording-linked` processes of N exchanges each
#      against one `loupe listen`, exchanges stored per second of wall time and per CPU second of the listener, and
#      whether any app dropped anything.
#
# Usage: Benchmarks/link-budget.sh LOUPE_BINARY [--exchanges N] [--apps A] [--no-build] [--no-callgrind]
#        (N = 20000 per run, A = 10; LOUPE_BINARY: a release `loupe`, e.g. .build/release/loupe)
set -euo pipefail

loupe=$1; shift
exchanges=20000 apps=10 build=1 callgrind=1
while [ $# -gt 0 ]; do
  case "$1" in
    --exchanges) exchanges=$2; shift ;;
    --apps) apps=$2; shift ;;
    --no-build) build=0 ;;
    --no-callgrind) callgrind=0 ;;
    *) echo "link-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

here=$(cd "$(dirname "$0")" && pwd)
if [ "$build" = 1 ]; then
  echo "== building LoupeProfile (release)"
  (cd "$here" && swift build -c release --product LoupeProfile 2>&1 | tail -1)
fi
profile="$here/.build/release/LoupeProfile"
work=$(mktemp -d "${TMPDIR:-/tmp}/link-budget.XXXXXX")
listener=
trap '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"

# listen NAME: starts `loupe listen` on a free port into a fresh store; sets $link and $listener.
listen() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  "$loupe" listen "127.0.0.1:$port" --store "$work/$1.sqlite" >"$work/$1.out" 2>&1 &
  listener=$!
  for _ in $(seq 100); do
    link=$(grep -m1 '^LOUPE_LINK=' "$work/$1.out" 2>/dev/null | cut -d= -f2-) && [ -n "$link" ] && return 0
    sleep 0.1
  done
  echo "no link line from loupe listen" >&2; exit 1
}
stop_listener() { kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=; }

echo "== (a) the app's cost per exchange: recording vs recording-linked, $exchanges exchanges"
listen a
for shape in recording recording-linked; do
  LOUPE_LINK=$link "$profile" "$shape" "$exchanges" | tee "$work/$shape.time"
  if [ "$callgrind" = 1 ]; then
    LOUPE_LINK=$link valgrind --tool=callgrind --callgrind-out-file="$work/$shape.cg" "$profile" "$shape" "$exchanges" \
      >"$work/$shape.cg.out" 2>&1 || { echo "valgrind failed on $shape:"; tail -5 "$work/$shape.cg.out"; exit 1; }
    grep -m1 '^summary:' "$work/$shape.cg" | awk -v n="$exchanges" -v s="$shape" '{ printf "   %s: %.0f instructions per exchange\n", s, $2 / n }' \
      | tee "$work/$shape.ir"
    grep '^link:' "$work/$shape.cg.out" || true
  fi
done
stop_listener
if [ "$callgrind" = 1 ]; then
  base=$(awk '{ print $2 }' "$work/recording.ir"); linked=$(awk '{ print $2 }' "$work/recording-linked.ir")
  us=$(sed -nE 's/.* ([0-9.]+) µs each.*/\1/p' "$work/recording.time")
  awk -v b="$base" -v l="$linked" -v us="$us" 'BEGIN {
    printf "   link: %.0f instructions per exchange beyond recording (%.0f vs %.0f); at recording'\''s %.2f µs for %.0f instructions, %.2f µs (budget 5 µs)\n",
      l - b, l, b, us, b, (l - b) * us / b }'
fi

echo "== (b) one listener, $apps linked apps of $exchanges exchanges each"
listen b
start=$(date +%s.%N)
for n in $(seq "$apps"); do
  LOUPE_LINK=$link "$profile" recording-linked "$exchanges" >"$work/app$n.out" 2>&1 &
done
wait $(jobs -p | grep -v "^$listener$") 2>/dev/null || true
total=$((apps * exchanges))
for _ in $(seq 600); do
  stored=$(sqlite3 "$work/b.sqlite" 'SELECT count(*) FROM exchange' 2>/dev/null || echo 0)
  [ "$stored" -ge "$total" ] && break
  sleep 0.1
done
end=$(date +%s.%N)
cpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$listener/stat")
stop_listener
dropped=$(cat "$work"/app*.out | sed -nE 's/^link: .* ([0-9]+) dropped.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
awk -v n="$stored" -v a="$start" -v b="$end" -v c="$cpu" -v d="$dropped" -v t="$total" 'BEGIN {
  printf "   stored %d of %d in %.1f s: %.0f exchanges/s of wall time, %.0f per CPU second of the listener; apps dropped %d (budget: >= 20,000/s, none dropped)\n",
    n, t, b - a, n / (b - a), n / c, d }'
