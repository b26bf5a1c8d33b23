#!/usr/bin/env bash
# The HAR budgets of issue 13, measured on the release `loupe` binary against same-run baselines:
#
#   export: `loupe export --har` of a store vs `sqlite3` printing every row of the same store (exchange, attempt and
#           event tables), both to /dev/null; budget ≤ 3×. Peak RSS of the export; with --million, also of a
#           1,000,000-exchange store (the store is the imported one copied ten times over in SQL); budget < 64 MB.
#   import: `loupe import` of a generated N-entry HAR (about 1.4 KB an entry; N = 100,000 gives about 145 MB):
#           wall time and peak RSS; budget < 150 MB and no slower than 9.7 s (the figure before streaming).
#
#   --large-bodies: every response carries a body of about 10 KB (JSON text, HTML, binary in turn), so the stores'
#           bytes are mostly bodies and the export's time goes to escaping them (N = 20000 makes about 250 MB).
#
# Usage: Benchmarks/har-budget.sh [N] [--million] [--large-bodies] [--runs R] [--no-build]   (N = 100000, R = 3: medians of R interleaved runs)
# Needs python3, sqlite3 and GNU time (/usr/bin/time). Builds `swift build -c release --static-swift-stdlib --product loupe` first.
set -euo pipefail

count=100000 million=0 runs=3 build=1 bodies=
while [ $# -gt 0 ]; do
  case "$1" in
    --million) million=1 ;;
    --large-bodies) bodies=--large-bodies ;;
    --runs) runs=$2; shift ;;
    --no-build) build=0 ;;
    *) count=$1 ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/har-budget.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ "$build" = 1 ]; then
  echo "== building loupe (release)"
  (cd "$root" && swift build -c release --static-swift-stdlib --product loupe 2>&1 | tail -1)
fi
loupe="$root/.build/release/loupe"

# `measure LABEL COMMAND...`: runs COMMAND (stdout to /dev/null), appends "seconds peak-KB" to $work/LABEL.
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" \
    || { echo "failed: $*"; cat "$work/stderr.txt"; exit 1; }
  cat "$work/time.txt" >> "$work/$label"
}
# `measure_refused LABEL COMMAND...`: as `measure`, for a command that must be refused with exit 2.
measure_refused() {
  local label=$1; shift
  local status=0
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || status=$?
  [ "$status" = 2 ] || { echo "expected exit 2, got $status: $*"; cat "$work/stderr.txt"; exit 1; }
  grep -E '^[0-9.]+ [0-9]+$' "$work/time.txt" >> "$work/$label"  # GNU time writes the exit status line first
}
# `median LABEL FIELD`: the median of column FIELD (1 = seconds, 2 = peak KB) of $work/LABEL.
median() { sort -n -k"$2" "$work/$1" | awk -v f="$2" '{ v[NR] = $f } END { print v[int((NR + 1) / 2)] }'; }
# `spread LABEL FIELD`: "min–max" of column FIELD of $work/LABEL.
spread() { sort -n -k"$2" "$work/$1" | awk -v f="$2" 'NR == 1 { lo = $f } { hi = $f } END { printf "%s–%s", lo, hi }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "== generating a HAR of $count entries"
python3 "$root/Benchmarks/Tools/make-har.py" "$count" "$work/in.har" $bodies
har_bytes=$(stat -c %s "$work/in.har")
echo "   $(mb $((har_bytes / 1024))) MB, $((har_bytes / count)) bytes an entry"

# The same file less its closing brace: the check pass reads all of it and refuses it (truncated) before the store
# is opened, so this is the scanning phase alone.
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read().rstrip()[:-1])' \
  "$work/in.har" "$work/cut.har"

echo "== import, and the scan alone ($runs interleaved runs)"
for run in $(seq "$runs"); do
  rm -f "$work"/store.sqlite*
  measure import "$loupe" import "$work/in.har" --store "$work/store.sqlite"
  measure_refused scan "$loupe" import "$work/cut.har" --store "$work/refused.sqlite"
done
[ ! -e "$work/refused.sqlite" ] || { echo "a refused file created a store"; exit 1; }
imported=$(sqlite3 "$work/store.sqlite" 'SELECT COUNT(*) FROM exchange')
[ "$imported" = "$count" ] || { echo "the store holds $imported exchanges, not $count"; exit 1; }

every_row='SELECT * FROM exchange; SELECT * FROM attempt; SELECT * FROM event;'
echo "== export vs sqlite3 ($runs interleaved runs)"
for run in $(seq "$runs"); do
  measure sqlite3 sqlite3 "$work/store.sqlite" "$every_row"
  measure export "$loupe" export "$work/store.sqlite" --har -
done
"$loupe" export "$work/store.sqlite" --har "$work/out.har" >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["log"]["version"] == "1.2" and len(d["log"]["entries"]) == int(sys.argv[2])' \
  "$work/out.har" "$count" || { echo "the export is not a HAR 1.2 of $count entries"; exit 1; }

if [ "$million" = 1 ]; then
  echo "== a store ten times as large, copied in SQL, exported once"
  cp "$work/store.sqlite" "$work/big.sqlite"
  columns() { sqlite3 "$work/big.sqlite" "SELECT group_concat(name, ', ') FROM pragma_table_info('$1')"; }
  exchange_cols=$(columns exchange); attempt_cols=$(columns attempt); event_cols=$(columns event)
  for k in $(seq 1 9); do
    offset=$((k * count))
    sqlite3 "$work/big.sqlite" "BEGIN;
      INSERT INTO exchange ($exchange_cols) SELECT $(echo "$exchange_cols" | sed "s/\\bsequence\\b/sequence + $offset/; s/\\bid\\b/substr(id, 1, 24) || printf('%012d', sequence + $offset)/") FROM exchange WHERE sequence <= $count;
      INSERT INTO attempt ($attempt_cols) SELECT $(echo "$attempt_cols" | sed "s/\\bexchange_sequence\\b/exchange_sequence + $offset/") FROM attempt WHERE exchange_sequence <= $count;
      INSERT INTO event ($event_cols) SELECT $(echo "$event_cols" | sed "s/\\bexchange_sequence\\b/exchange_sequence + $offset/") FROM event WHERE exchange_sequence <= $count;
      COMMIT;"
  done
  big=$(sqlite3 "$work/big.sqlite" 'SELECT COUNT(*) FROM exchange')
  measure bigexport "$loupe" export "$work/big.sqlite" --har -
  measure bigsqlite3 sqlite3 "$work/big.sqlite" "$every_row"
fi

echo
echo "== figures (medians of $runs runs; ratios against the same-run baseline)"
imp_s=$(median import 1); imp_kb=$(median import 2)
exp_s=$(median export 1); exp_kb=$(median export 2); sql_s=$(median sqlite3 1)
printf 'import  %d entries (%s MB): %ss (%s), peak RSS %s MB   (budget: <= 9.7 s, < 150 MB)\n' \
  "$count" "$(mb $((har_bytes / 1024)))" "$imp_s" "$(spread import 1)" "$(mb "$imp_kb")"
printf 'scan    the same file less its closing brace (refused after the check pass): %ss, peak RSS %s MB\n' \
  "$(median scan 1)" "$(mb "$(median scan 2)")"
printf 'export  %d exchanges: %ss (%s) vs sqlite3 %ss (%s) = %sx, peak RSS %s MB   (budget: <= 3x)\n' \
  "$count" "$exp_s" "$(spread export 1)" "$sql_s" "$(spread sqlite3 1)" "$(ratio "$exp_s" "$sql_s")" "$(mb "$exp_kb")"
if [ "$million" = 1 ]; then
  big_s=$(median bigexport 1); big_kb=$(median bigexport 2); bigsql_s=$(median bigsqlite3 1)
  printf 'export  %d exchanges: %ss vs sqlite3 %ss = %sx, peak RSS %s MB   (budget: < 64 MB)\n' \
    "$big" "$big_s" "$bigsql_s" "$(ratio "$big_s" "$bigsql_s")" "$(mb "$big_kb")"
fi
