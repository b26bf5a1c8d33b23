#!/usr/bin/env bash
# The screens' budget of issue 11 (item 4), measured from outside on the release `loupe` binary: `loupe tui` on a
# copy of a synthetic store of COUNT exchanges while `feed-store` records RATE exchanges/s into it (the real
# recorder behind `Client.resilient` on an in-process transport). Key → frame on each of the screens 1–4, the CPU
# each screen costs under that load, and peak RSS (details in Tools/screens_budget.py).
#
# Usage: Benchmarks/screens-budget.sh [--count N] [--rate R] [--presses P] [--loupe PATH] [--store PATH]
#   N = 1000000, R = 5000, P = 40. --loupe skips building loupe; --store skips making the cached synthetic store.
# Needs tmux and python3, and disk for one copy of the store.
set -euo pipefail

count=1000000 rate=5000 presses=40 loupe="" store=""
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift ;;
    --rate) rate=$2; shift ;;
    --presses) presses=$2; shift ;;
    --loupe) loupe=$2; shift ;;
    --store) store=$2; shift ;;
    *) echo "screens-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in tmux python3; do
  command -v "$tool" >/dev/null || { echo "screens-budget.sh: needs $tool" >&2; exit 2; }
done

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$loupe" ]; then
  echo "== building loupe (release)"
  (cd "$root" && swift build -c release --static-swift-stdlib --product loupe 2>&1 | tail -1)
  loupe="$root/.build/release/loupe"
fi
echo "== building feed-store and make-synthetic-store (release)"
(cd "$root/Benchmarks" && swift build -c release --product feed-store 2>&1 | tail -1)
if [ -z "$store" ]; then
  (cd "$root/Benchmarks" && swift build -c release --product make-synthetic-store 2>&1 | tail -1)
  store=$("$root/Benchmarks/.build/release/make-synthetic-store" "$count")
fi
echo "== loupe: $loupe"
echo "== store: $store ($(du -m "$store" | cut -f1) MB), fed $rate exchanges/s"
exec python3 "$root/Benchmarks/Tools/screens_budget.py" --loupe "$loupe" --feed "$root/Benchmarks/.build/release/feed-store" \
  --store "$store" --rate "$rate" --presses "$presses"
