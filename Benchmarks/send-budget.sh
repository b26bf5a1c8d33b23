#!/usr/bin/env bash
# The `loupe send` budget of issue 13 (item 1), measured on the release `loupe` binary against a loopback server
# (Benchmarks/Tools/bytes-server.py: GET /N answers N bytes with a Content-Length):
#
#   memory: peak RSS of `loupe send GET …/1073741824 > /dev/null` (1 GiB) minus that of the same command fetching
#           1 KB; budget: within 16 MB.
#   time:   wall time of the 1 GiB send vs the baseline fetching the same URL to /dev/null: curl if installed, else
#           python3 urllib (labelled); budget ≤ 1.5×.
#
# Each figure is the median of R interleaved runs (R = 3), wall times with their range, then each run's wall time in
# order. Every run records into a fresh store. --compare FILE also sends the big body with another `loupe` binary (an
# older build) in each round, right after this one, so that both meet the same load (issue 45).
# Usage: Benchmarks/send-budget.sh [--runs R] [--bytes N] [--no-build] [--compare FILE]
# Needs python3 and GNU time (/usr/bin/time). Builds `swift build -c release --static-swift-stdlib --product loupe` unless --no-build.
set -euo pipefail

runs=3 bytes=1073741824 build=1 compare=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --bytes) bytes=$2; shift ;;
    --no-build) build=0 ;;
    --compare) compare=$2; shift ;;
    *) echo "usage: $0 [--runs R] [--bytes N] [--no-build] [--compare FILE]" >&2; exit 2 ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/send-budget.XXXXXX")
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

if [ "$build" = 1 ]; then
  echo "== building loupe (release)"
  (cd "$root" && swift build -c release --static-swift-stdlib --product loupe 2>&1 | tail -1)
fi
loupe="$root/.build/release/loupe"

python3 "$root/Benchmarks/Tools/bytes-server.py" "$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
big="http://127.0.0.1:$port/$bytes"
small="http://127.0.0.1:$port/1024"

if command -v curl >/dev/null; then
  baseline_name=curl
  baseline=(curl -s -o /dev/null "$big")
else
  baseline_name="python3 urllib"
  baseline=(python3 -c 'import sys, urllib.request, shutil; shutil.copyfileobj(urllib.request.urlopen(sys.argv[1]), open("/dev/null", "wb"), 1 << 20)' "$big")
fi

# `measure LABEL COMMAND...`: runs COMMAND (stdout to /dev/null), appends "seconds peak-KB" to $work/LABEL.
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" \
    || { echo "failed: $*"; cat "$work/stderr.txt"; exit 1; }
  cat "$work/time.txt" >> "$work/$label"
}
median() { sort -n -k"$2" "$work/$1" | awk -v f="$2" '{ v[NR] = $f } END { print v[int((NR + 1) / 2)] }'; }
range() { sort -n -k"$2" "$work/$1" | awk -v f="$2" '{ v[NR] = $f } END { print v[1] "–" v[NR] }'; }
runs_of() { awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }' "$work/$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# The figure moves with the machine's load more than the budget's margin: each run says the load it met.
load() { [ -r /proc/loadavg ] && cut -d' ' -f1-3 /proc/loadavg || uptime | sed 's/.*load averages*: //'; }
echo "== $runs interleaved runs: loupe send of $bytes bytes and of 1 KB, $baseline_name of $bytes bytes (load average $(load))"
for run in $(seq "$runs"); do
  rm -f "$work"/store*.sqlite*
  measure small "$loupe" send GET "$small" --store "$work/store-small.sqlite"
  measure big "$loupe" send GET "$big" --store "$work/store-big.sqlite"
  [ -z "$compare" ] || measure other "$compare" send GET "$big" --store "$work/store-other.sqlite"
  measure base "${baseline[@]}"
done

size=$(sqlite3 "$work/store-big.sqlite" 'SELECT response_body_size FROM exchange LIMIT 1' 2>/dev/null || echo "?")
big_t=$(median big 1) small_t=$(median small 1) base_t=$(median base 1)
big_k=$(median big 2) small_k=$(median small 2) base_k=$(median base 2)
echo
echo "| what | median wall s (range) | median peak RSS MB |"
echo "|---|---|---|"
echo "| loupe send, $bytes bytes > /dev/null | $big_t ($(range big 1)) | $(mb "$big_k") |"
echo "| loupe send, 1 KB > /dev/null | $small_t ($(range small 1)) | $(mb "$small_k") |"
echo "| $baseline_name, $bytes bytes (baseline) | $base_t ($(range base 1)) | $(mb "$base_k") |"
[ -z "$compare" ] || echo "| $compare send, $bytes bytes > /dev/null | $(median other 1) ($(range other 1)) | $(mb "$(median other 2)") |"
echo
echo "each run's wall s, in order: loupe send $(runs_of big); $baseline_name $(runs_of base)"
[ -z "$compare" ] || echo "  $compare: $(runs_of other); its ratio to $baseline_name: $(ratio "$(median other 1)" "$base_t")×"
echo "peak RSS, big minus small: $(mb $((big_k - small_k))) MB (budget: within 16 MB)"
echo "wall time, loupe send / $baseline_name: $(ratio "$big_t" "$base_t")× (budget: ≤ 1.5×)"
echo "recorded response size (store): $size"
echo "load average at the end: $(load)"
