#!/usr/bin/env bash
# Issue 30's recording budget: one server-sent event stream read with `client.events` from an in-process transport
# (Tools/StreamProfile), without a recorder and with one (in memory, and into SQLite), in interleaved rounds; then
# the recorded modes at ten times the length, to show memory bounded by the message cap (10,000 kept).
#
#   cd Benchmarks && swift build -c release --product StreamProfile && ./stream-budget.sh [ROUNDS] [COUNT]
set -euo pipefail
cd "$(dirname "$0")"
bin=".build/release/StreamProfile"
[ -x "$bin" ] || { echo "stream-budget: build it first: swift build -c release --product StreamProfile" >&2; exit 2; }
rounds="${1:-3}"
count="${2:-200000}"
for round in $(seq "$rounds"); do
  for mode in bare recorded sqlite; do echo "round $round  $("$bin" "$mode" "$count")"; done
done
for mode in recorded sqlite; do echo "10× longer  $("$bin" "$mode" $((count * 10)))"; done
