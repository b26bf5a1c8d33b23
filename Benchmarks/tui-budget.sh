#!/usr/bin/env bash
# The TUI's budgets of issue 10 (item 7), measured from outside on the release `loupe` binary: `loupe tui`
# on a synthetic store of COUNT exchanges in a 120x40 tmux pane (a tmux server of its own, on its own socket).
#
#   first frame < 150 ms (launch → the position `n / total` shown); key → frame p99 < 16 ms for j, k, PgDn, PgUp,
#   g/G, o, v, Enter and Escape (each from the middle of the store); an indexed filter change (`~c 503`) < 100 ms;
#   peak RSS (VmHWM) < 64 MB; idle CPU < 1 % (10 s after launch, and again after the keys).
#
# Frames are seen two ways (details in Tools/tui_budget.py): polling `tmux capture-pane` about every millisecond
# (each capture is a process, so its own time is printed as a floor), and the bytes loupe writes, copied by
# `tmux pipe-pane` into a FIFO and timestamped as they arrive (no polling).
#
# Usage: Benchmarks/tui-budget.sh [--count N] [--presses P] [--launches L] [--idle SECONDS] [--loupe PATH] [--store PATH]
#   N = 1000000, P = 50 presses per key, L = 5 launches per method, 10 s idle. --loupe skips the build
#   (`swift build -c release --static-swift-stdlib --product loupe` at the root); --store skips making the cached synthetic store
#   (`make-synthetic-store N`, about 25 s for a million the first time, kept in $TMPDIR/loupe-bench-stores).
# Needs tmux and python3. Runs under `nice -n 5` when you ask it to: `nice -n 5 Benchmarks/tui-budget.sh`.
set -euo pipefail

count=1000000 presses=50 launches=5 idle=10 loupe="" store=""
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift ;;
    --presses) presses=$2; shift ;;
    --launches) launches=$2; shift ;;
    --idle) idle=$2; shift ;;
    --loupe) loupe=$2; shift ;;
    --store) store=$2; shift ;;
    *) echo "tui-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in tmux python3; do
  command -v "$tool" >/dev/null || { echo "tui-budget.sh: needs $tool" >&2; exit 2; }
done

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$loupe" ]; then
  echo "== building loupe (release)"
  (cd "$root" && swift build -c release --static-swift-stdlib --product loupe 2>&1 | tail -1)
  loupe="$root/.build/release/loupe"
fi
if [ -z "$store" ]; then
  echo "== the synthetic store of $count exchanges"
  (cd "$root/Benchmarks" && swift build -c release --product make-synthetic-store 2>&1 | tail -1)
  store=$("$root/Benchmarks/.build/release/make-synthetic-store" "$count")
fi
echo "== loupe: $loupe"
echo "== store: $store ($(du -m "$store" | cut -f1) MB)"
exec python3 "$root/Benchmarks/Tools/tui_budget.py" --loupe "$loupe" --store "$store" --count "$count" \
  --presses "$presses" --launches "$launches" --idle "$idle"
