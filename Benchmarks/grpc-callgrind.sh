#!/usr/bin/env bash
# Instructions per unary gRPC call over loopback (issue 47's budget: recorded ≤ 1.25× bare), counted by callgrind on
# release `grpc-profile`: grpc-swift's client and server on its HTTP/2 transport in one process (both counted),
# raw-bytes messages, one call at a time; `bare` without an interceptor, `recorded-sqlite` with
# `LoupeGRPCInterceptor` recording into a SQLite file (its background writer counted too).
#
# Each shape runs at N1 and N2 calls; (Ir(N2) − Ir(N1)) / (N2 − N1) is one call's cost, start-up and shutdown
# cancelled out. As cpu-callgrind.sh: a copy without debug info is counted, hashing made deterministic.
#
# Usage: Benchmarks/grpc-callgrind.sh [--binary FILE] [--n1 N] [--n2 N]     (defaults: .build/release/grpc-profile,
#   300 and 1,300 calls); shapes="bare recorded-sqlite recorded-sqlite-unindexed" adds the store without the search
#   index's triggers.
# Build first: cd Benchmarks && nice -n 15 swift build -c release --product grpc-profile
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
binary="$here/.build/release/grpc-profile" n1=300 n2=1300
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift ;;
    --n1) n1=$2; shift ;;
    --n2) n2=$2; shift ;;
    *) echo "grpc-callgrind.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
work=$(mktemp -d "${TMPDIR:-/tmp}/grpc-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$binary" "$work/grpc-profile"

instructions() {
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$work/$1-$2.out" \
    "$work/grpc-profile" "$1" "$2" >"$work/$1-$2.stdout" 2>"$work/$1-$2.log" \
    || { echo "grpc-callgrind.sh: $1 $2 failed:" >&2; tail -20 "$work/$1-$2.log" >&2; exit 1; }
  grep -o 'Collected : [0-9]*' "$work/$1-$2.log" | grep -o '[0-9]*$'
}

# recorded-sqlite-unindexed copies a store whose search triggers are dropped: made here, outside valgrind.
"$work/grpc-profile" unindexed-store "$work/unindexed.sqlite" || { echo "grpc-callgrind.sh: no unindexed store" >&2; exit 1; }
export GRPC_PROFILE_UNINDEXED_STORE="$work/unindexed.sqlite"
printf '%-18s %16s %16s %14s\n' shape "Ir (N1)" "Ir (N2)" "Ir a call"
declare -A per
for shape in ${shapes:-bare recorded-sqlite}; do
  low=$(instructions "$shape" "$n1")
  high=$(instructions "$shape" "$n2")
  per[$shape]=$(( (high - low) / (n2 - n1) ))
  printf '%-18s %16s %16s %14s\n' "$shape" "$low" "$high" "${per[$shape]}"
done
for shape in "${!per[@]}"; do
  [ "$shape" = bare ] && continue
  awk -v b="${per[bare]}" -v r="${per[$shape]}" -v s="$shape" \
    'BEGIN { printf "%s / bare = %.3f (budget 1.25); recording adds %d Ir a call\n", s, r / b, r - b }'
done
