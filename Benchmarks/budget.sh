#!/usr/bin/env bash
# Every budget of issue 13 in one run, each against its same-run baseline, on release builds:
#
#   send      loupe send of 1 GiB vs curl of the same URL; peak RSS vs the same command fetching 1 KB  (send-budget.sh)
#   har       import of a 100,000-entry HAR; export vs sqlite3 printing every row               (har-budget.sh)
#   ingest    the recorder's SQLite ingest vs raw batched GRDB inserts on the same schema   (Tools/IngestBudget)
#   loopback  raw AHC vs the bare client and the resilient stack recording into SQLite            (loopback-budget.sh)
#             throughput, and (issue 32) CPU per request over raw AHC's: bare ≤ 1.03×, resilient ≤ 1.15×,
#             resilient + SQLite ≤ 1.30×, nothing dropped; judge changes by cpu-callgrind.sh's instructions
#
# Each part prints its own table and the lines its budgets are judged by; this script runs them in turn (builds
# first, so no part measures beside a compiler) and repeats the judged lines at the end.
#
# Usage: Benchmarks/budget.sh [--runs R] [--only send|har|ingest|loopback]   (R = 3)
set -euo pipefail

runs=3 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "budget.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/loupe-budget.XXXXXX")
trap 'rm -f "$log"' EXIT

echo "== building (release): loupe, LoupeProfile, ingest-budget"
(cd "$root" && swift build -c release --static-swift-stdlib --product loupe 2>&1 | tail -1)
(cd "$here" && swift build -c release --product LoupeProfile --disable-build-manifest-caching 2>&1 | tail -1)
(cd "$here" && swift build -c release --product ingest-budget --disable-build-manifest-caching 2>&1 | tail -1)

part() {
  local name=$1; shift
  [ -z "$only" ] || [ "$only" = "$name" ] || return 0
  echo
  echo "######## $name"
  "$@" 2>&1 | tee -a "$log"
}

part send "$here/send-budget.sh" --no-build --runs "$runs"
part har "$here/har-budget.sh" --no-build --runs "$runs"
part ingest "$here/.build/release/ingest-budget" --rounds $((runs < 5 ? 5 : runs))
part loopback "$here/loopback-budget.sh" --no-build --runs $((runs < 5 ? 5 : runs))

echo
echo "######## the judged figures"
grep -E "budget|MISSED| ok |^ingest exchanges/s|^raw batched GRDB insert exchanges/s|^ratio vs raw" "$log" \
  | grep -vE "^(==|   )" || true
