#!/usr/bin/env bash
# Instructions per request of each LoupeProfile shape, counted by callgrind (issue 32 item 2, JOURNAL J310–J313): a
# figure the machine's load cannot move, to judge a change by; `loopback-budget.sh`'s CPU-time ratio checks it.
#
# Each shape runs under callgrind at N1 and N2 requests; (Ir(N2) − Ir(N1)) / (N2 − N1) is one request's cost, with
# start-up, warm-up and shutdown cancelled out. The whole process is counted: client, server (loopback shapes),
# and the recorder's background writer.
#
#   in-process (Tools/CPUProfile, `cpu-profile`: CannedTransport, one request at a time): bare, resilient, recording
#     (in memory), resilient-recording (in memory), resilient-sqlite (a SQLite file)
#   loopback (LoupeProfile: a Hummingbird server on 127.0.0.1, 8 in flight, as loopback-budget.sh): loopback-raw
#     (AsyncHTTPClient alone, the baseline), loopback-bare, loopback-resilient, loopback-resilient-sqlite
#
# Neither tool has an async main: valgrind 3.19 dies (SIGSEGV inside itself) when an async main's main thread parks
# in `dispatch_main` (`pthread_exit`, then `sigsuspend` in a key destructor); the tools block their main thread on a
# semaphore instead. Binaries are counted without their debug info, which valgrind 3.19 rejects on some of them.
#
# Usage: Benchmarks/cpu-callgrind.sh [--binary FILE] [--loopback-binary FILE] [--label L] [--n1 N] [--n2 N]
#                                    [--loopback-n1 N] [--loopback-n2 N] [--keep DIR] [SHAPE...]
#   defaults: the release builds in Benchmarks/.build, the in-process shapes (loopback ones when named, or all of
#   them with `all`), 2,000 and 6,000 requests in-process, 1,000 and 3,000 on loopback.
#   --keep DIR keeps each run's callgrind output (SHAPE-N.out) there, for `callgrind-groups.py DIR A B` (where a
#   shape's extra instructions over another's go, by library and module) or `callgrind_annotate`.
# Build first: cd Benchmarks && nice -n 15 swift build -c release --product cpu-profile   (and LoupeProfile for
# the loopback shapes: that one builds NIO, BoringSSL and Hummingbird, the better part of an hour under load)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
binary="$here/.build/release/cpu-profile" loopback_binary="$here/.build/release/LoupeProfile" label=now
n1=2000 n2=6000 ln1=1000 ln2=3000 keep=
shapes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift ;;
    --loopback-binary) loopback_binary=$2; shift ;;
    --label) label=$2; shift ;;
    --n1) n1=$2; shift ;;
    --n2) n2=$2; shift ;;
    --loopback-n1) ln1=$2; shift ;;
    --loopback-n2) ln2=$2; shift ;;
    --keep) keep=$2; shift ;;
    -*) echo "cpu-callgrind.sh: unknown argument $1" >&2; exit 2 ;;
    *) shapes+=("$1") ;;
  esac
  shift
done
in_process=(bare resilient recording resilient-recording resilient-sqlite)
loopback=(loopback-raw loopback-bare loopback-resilient loopback-resilient-sqlite)
[ ${#shapes[@]} -gt 0 ] || shapes=("${in_process[@]}")
[ "${shapes[*]}" = all ] && shapes=("${in_process[@]}" "${loopback[@]}")
work=$(mktemp -d "${TMPDIR:-/tmp}/cpu-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
for shape in "${shapes[@]}"; do
  case "$shape" in
    loopback-*) [ -e "$work/LoupeProfile" ] || objcopy --strip-debug "$loopback_binary" "$work/LoupeProfile" ;;
    *) [ -e "$work/cpu-profile" ] || objcopy --strip-debug "$binary" "$work/cpu-profile" ;;
  esac
done

# `instructions SHAPE N TOOL`: the instructions of one run under callgrind.
instructions() {
  # Swift seeds its hashing at random per process; made deterministic, dictionary work repeats.
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$work/$1-$2.out" \
    "$work/$3" "$1" "$2" >"$work/$1-$2.stdout" 2>"$work/$1-$2.log" \
    || { echo "cpu-callgrind.sh: $1 $2 failed:" >&2; tail -20 "$work/$1-$2.log" >&2; exit 1; }
  ! grep -q "dropped [1-9]\|failed [1-9]" "$work/$1-$2.stdout" \
    || { echo "cpu-callgrind.sh: $1 $2 dropped exchanges: $(cat "$work/$1-$2.stdout")" >&2; exit 1; }
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work/$1-$2.out" "$keep/$1-$2.out"; fi
  grep -o 'Collected : [0-9]*' "$work/$1-$2.log" | grep -o '[0-9]*$'
}

printf '%-12s %-28s %16s %16s %14s\n' label shape "Ir (N1)" "Ir (N2)" "Ir a request"
for shape in "${shapes[@]}"; do
  case "$shape" in loopback-*) a=$ln1 b=$ln2 tool=LoupeProfile ;; *) a=$n1 b=$n2 tool=cpu-profile ;; esac
  low=$(instructions "$shape" "$a" "$tool")
  high=$(instructions "$shape" "$b" "$tool")
  printf '%-12s %-28s %16s %16s %14s\n' "$label" "$shape" "$low" "$high" $(( (high - low) / (b - a) ))
done
