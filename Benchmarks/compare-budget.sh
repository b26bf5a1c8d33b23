#!/usr/bin/env bash
# The budget of issue 49 for `loupe compare`: two 1,000,000-exchange stores in ≤ 15 s and ≤ 300 MB, measured from
# outside on the release binary with /usr/bin/time (wall time and peak RSS), three runs, the median printed.
#
#   Benchmarks/compare-budget.sh [--count N] [--loupe PATH] [--store PATH]
#
# A is the cached synthetic store (`make-synthetic-store N`); B is a copy of it with known differences made by
# SQL: op05 1.5x slower, a fifth of op07 answering 500, op13 gone. --loupe skips the build
# (`swift build -c release --product loupe` at the root); --store skips making A.
set -euo pipefail
count=1000000 loupe="" store=""
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift ;;
    --loupe) loupe=$2; shift ;;
    --store) store=$2; shift ;;
    *) echo "compare-budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x /usr/bin/time ] || { echo "compare-budget.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$loupe" ]; then
  (cd "$root" && swift build -c release --product loupe 2>&1 | tail -1)
  loupe="$root/.build/release/loupe"
fi
if [ -z "$store" ]; then
  (cd "$root/Benchmarks" && swift build -c release --product make-synthetic-store 2>&1 | tail -1)
  store=$("$root/Benchmarks/.build/release/make-synthetic-store" "$count")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$store" "$work/b.sqlite"
python3 - "$work/b.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE exchange SET duration = duration * 1.5, ended_at = started_at + duration * 1.5 WHERE operation = 'op05'")
db.execute("UPDATE exchange SET status = 500, outcome = 'httpError' WHERE operation = 'op07' AND sequence % 5 = 0")
db.execute("DELETE FROM exchange WHERE operation = 'op13'")
db.commit()
PY
echo "== A: $store ($(du -m "$store" | cut -f1) MB), B: the copy with op05 slowed, op07 failing, op13 gone"
for run in 1 2 3; do
  set +e
  /usr/bin/time -f "%e %M" -o "$work/time.$run" "$loupe" compare "$store" "$work/b.sqlite" > "$work/out.$run"
  rc=$?
  set -e
  [ "$rc" = 1 ] || { echo "compare-budget.sh: exit $rc, want 1 (a regression)"; cat "$work/out.$run"; exit 1; }
  tail -n 1 "$work/time.$run" > "$work/t.$run"; read -r seconds kb < "$work/t.$run"
  echo "run $run: ${seconds} s, peak RSS $((kb / 1024)) MB"
done
grep -E '^(regressed|gone)' "$work/out.1"
sort -n "$work"/t.* | sed -n 2p | awk '{ printf "median: %s s, peak RSS %d MB (budget: 15 s, 300 MB)\n", $1, $2 / 1024 }'
