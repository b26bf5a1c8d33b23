#!/usr/bin/env bash
# The four JSON users (issue 27 item 2, DECISIONS 82; JOURNAL J214–J219) in instructions, counted by callgrind: HAR import and
# export, a body's field redaction, the diff's parser, the detail view's layout (and every line's text, as search
# reads it). Instruction counts do not move with the load on the machine, unlike time.
#
# Each REV (a commit, or `.` for the working tree) is laid out in one build folder and built in release with the
# workload of THIS checkout (Benchmarks/Tools/JSONWorkloads and Benchmarks/Package.swift), so before and after
# run the same workload; the build folder is kept between runs, so a second REV only recompiles what changed.
#
# Usage: Benchmarks/json-callgrind.sh [--rounds N] [--build-only] REV...    e.g.  Benchmarks/json-callgrind.sh 477c3f9 .
#        Benchmarks/json-callgrind.sh --rounds N --binary FILE LABEL   (count a binary built before, kept aside)
# Each build is also copied to $work/bin/json-workloads-REV. Needs valgrind. Prints one line per REV and workload:
# instructions (Ir) of the whole process (start-up and the bodies' generation included), and of one round alone
# (see `count`).
set -euo pipefail

rounds=5 build_only=0 binary=
revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --build-only) build_only=1 ;;
    --binary) binary=$2; shift ;;
    *) revs+=("$1") ;;
  esac
  shift
done
[ ${#revs[@]} -gt 0 ] || revs=(.)

root=$(cd "$(dirname "$0")/.." && pwd)
work=${JSON_BENCH_DIR:-${TMPDIR:-/tmp}/loupe-json-bench}
mkdir -p "$work/tree" "$work/out" "$work/bin"
workloads="import export redact diff detail search"
spi_files="Sources/LoupeReplay/Benchmarks.swift Sources/LoupeTUI/Benchmarks.swift"

# `instructions BINARY WORKLOAD ROUNDS OUT`: the instructions of one run under callgrind (its profile in OUT).
instructions() {
  # Swift seeds its hashing at random per process, so dictionary and set work (the diff's objects, the
  # redactor's names) would vary from run to run: made deterministic, the counts repeat exactly.
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$4" "$1" "$2" "$3" >/dev/null 2>"$4.log"
  grep -o 'Collected : [0-9]*' "$4.log" | grep -o '[0-9]*$'
}

# `count LABEL BINARY`: every workload of BINARY under callgrind: the whole process (start-up and the bodies'
# generation included), and one round alone, (Ir(N rounds) - Ir(1 round)) / (N - 1), which leaves out what a
# process does once: loading the binary, the Swift runtime's first lookups of each conformance (a scan of every
# conformance record in the binary, so it grows with code that has nothing to do with the workload), the bodies.
count() {
  for workload in $workloads; do
    out="$work/out/$1-$workload.callgrind"
    ir=$(instructions "$2" "$workload" "$rounds" "$out")
    if [ "$rounds" -gt 1 ]; then
      one=$(instructions "$2" "$workload" 1 "$work/out/$1-$workload-1.callgrind")
      printf '%-10s %-8s %16s Ir (%s rounds) %14s Ir a round\n' "$1" "$workload" "$ir" "$rounds" \
        $(( (ir - one) / (rounds - 1) ))
    else
      printf '%-10s %-8s %16s Ir (%s rounds)\n' "$1" "$workload" "$ir" "$rounds"
    fi
  done
}

if [ -n "$binary" ]; then
  count "${revs[0]}" "$binary"
  exit 0
fi

for rev in "${revs[@]}"; do
  # The tree at REV, with this checkout's Benchmarks/ beside it; only files that differ are copied into the build
  # tree (unchanged files keep their times, so the build stays incremental).
  stage=$(mktemp -d "${TMPDIR:-/tmp}/json-stage.XXXXXX")
  if [ "$rev" = . ]; then
    (cd "$root" && git ls-files -co --exclude-standard -z Package.swift Sources Demo Tests | xargs -0 cp --parents -t "$stage/")
  else
    git -C "$root" archive "$rev" Package.swift Sources Demo Tests | tar -x -C "$stage"
  fi
  (cd "$root" && git ls-files -co --exclude-standard -z Benchmarks | xargs -0 cp --parents -t "$stage/")
  # The `@_spi(Benchmarks)` entry points the workload calls (JOURNAL J217), laid into a REV older than them: they
  # only call `package` API that REV already has (the diff's parser, the detail view's tabs).
  for spi in $spi_files; do [ -e "$stage/$spi" ] || cp "$root/$spi" "$stage/$spi"; done
  (cd "$stage" && find . -type f) | while read -r file; do
    cmp -s "$stage/$file" "$work/tree/$file" || { mkdir -p "$(dirname "$work/tree/$file")"; cp "$stage/$file" "$work/tree/$file"; }
  done
  (cd "$work/tree" && find Sources Demo Tests -type f) | while read -r file; do [ -e "$stage/$file" ] || rm "$work/tree/$file"; done
  rm -rf "$stage"
  echo "== $rev: building json-workloads (release)" >&2
  (cd "$work/tree/Benchmarks" && nice -n 15 swift build -c release --product json-workloads 2>&1 | tail -1 >&2)
  label=$(echo "$rev" | tr -c 'A-Za-z0-9\n' '_')
  # Without its debug info: valgrind 3.19 gives up on this binary's ("possibly corrupted debuginfo"); the
  # instructions run are the same, function names stay (callgrind_annotate works, without source lines).
  objcopy --strip-debug "$work/tree/Benchmarks/.build/release/json-workloads" "$work/bin/json-workloads-$label"
  [ "$build_only" = 1 ] || count "$label" "$work/bin/json-workloads-$label"
done
