#!/usr/bin/env bash
# Issue 28's budget (b), the listener alone, before and after in one run: two listener binaries (each a release
# `link-profile` or `loupe`, used as `BINARY listen ADDR:PORT --store PATH`) take turns, round after round, against
# the same ten `recording-linked` apps of APPS_BINARY (a release link-profile), each app paced at RATE exchanges/s,
# N exchanges each, its drain up to 120 s (every exchange acknowledged). Prints, per round and listener, its CPU per
# exchange (user + system from /proc/PID/stat, from before the first app starts to after the last one ends), the
# wall time, what it received, and the apps' acknowledged/pending counts.
#
# Usage: Benchmarks/link-ingest-ab.sh OLD_LISTENER NEW_LISTENER APPS_BINARY [ROUNDS] [RATE] [N]
#        (defaults: 3 rounds, 2,500/s per app, 20,000 each)
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") apps_binary=$(realpath "$3")
rounds=${4:-3} rate=${5:-2500} n=${6:-20000}
work=$(mktemp -d "${TMPDIR:-/tmp}/link-ab.XXXXXX")
listener=
cleanup() { [ -n "$listener" ] && kill "$listener" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export XDG_STATE_HOME="$work/state"
tick=$(getconf CLK_TCK)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

run() {  # run LABEL BINARY
  local dir="$work/$1" link= port
  mkdir -p "$dir"
  port=$(free_port)
  "$2" listen "127.0.0.1:$port" --store "$dir/store.sqlite" >"$dir/listener.out" 2>&1 &
  listener=$!
  for _ in $(seq 300); do
    link=$(sed -n 's/^LOUPE_LINK=//p' "$dir/listener.out" 2>/dev/null | sed -n 1p || true)
    [ -n "$link" ] && break
    sleep 0.1
  done
  [ -n "$link" ] || { cat "$dir/listener.out"; exit 1; }
  local cpu0 t0 pids=()
  local user0 sys0
  read -r user0 sys0 < <(awk '{ print $14, $15 }' "/proc/$listener/stat"); cpu0=$((user0 + sys0)); t0=$(date +%s.%N)
  for app in $(seq 10); do
    LOUPE_RATE=$rate LOUPE_LINK_DRAIN_S=120 LOUPE_LINK=$link "$apps_binary" recording-linked "$n" >"$dir/app$app.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  local cpu1 t1 acked pending
  local user1 sys1
  read -r user1 sys1 < <(awk '{ print $14, $15 }' "/proc/$listener/stat"); cpu1=$((user1 + sys1)); t1=$(date +%s.%N)
  kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=
  acked=$(sed -nE 's/^link: ([0-9]+) of.*/\1/p' "$dir"/app*.out | awk '{ s += $1 } END { print s }')
  pending=$(sed -nE 's/^link: .*, ([0-9]+) pending.*/\1/p' "$dir"/app*.out | awk '{ s += $1 } END { print s }')
  awk -v l="$1" -v a="$cpu0" -v b="$cpu1" -v t="$tick" -v n="$((10 * n))" -v w0="$t0" -v w1="$t1" \
    -v r="$(sed -nE 's/^received ([0-9]+).*/\1/p' "$dir/listener.out")" -v k="$acked" -v p="$pending" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" -v us=$((user1 - user0)) -v sy=$((sys1 - sys0)) \
    'BEGIN { printf "%s: %.1f µs CPU per exchange (user %.1f, system %.1f), %.1f s wall; received %s of %d, acknowledged %s, pending %s; load %s\n",
             l, (b - a) / t * 1e6 / n, us / t * 1e6 / n, sy / t * 1e6 / n, w1 - w0, r, n, k, p, load }'
}

for round in $(seq "$rounds"); do
  run "round $round old" "$old"
  run "round $round new" "$new"
done
