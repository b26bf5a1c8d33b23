#!/usr/bin/env bash
# Issue 28's budgets (a) and (b) in instructions, counted by callgrind: noise-free figures that do not move with the
# machine's load, unlike the CPU times of link-budget.sh.
#  (a) the app: `link-profile recording N` and `recording-linked N` (LoupeProfile's `recording` shape, the canned
#      transport into the recorder, without and with a link to a real `link-profile listen` on 127.0.0.1 over TLS,
#      which runs outside valgrind), each at N_SMALL and N_LARGE exchanges paced at RATE_A/s; the instructions of one
#      exchange are (Ir(N_LARGE) - Ir(N_SMALL)) / (N_LARGE - N_SMALL), which leaves out what a process does once
#      (start-up, the TLS handshake, the final drain). The link's cost is linked - unlinked.
#  (b) the listener: `link-profile listen` under callgrind, fed by APPS `recording-linked` apps outside valgrind,
#      unpaced, so the listener (slowed about 50 times by valgrind) is the bottleneck and its transactions are as
#      large as at full load; each app's drain waits until everything is acknowledged. Per exchange as in (a), over
#      APPS × N_SMALL and APPS × N_LARGE exchanges. STORE_SQL (optional): SQL run on the listener's new store before
#      it starts (e.g. `DROP INDEX exchange_duration`), to price one index.
#
# Usage: Benchmarks/link-callgrind.sh LINK_PROFILE [a|b|ab] [--rate-a R] [--small N] [--large N] [--apps A]
#        (defaults: ab; (a) 300/s, 1,000 and 4,000 exchanges; (b) 10 apps, 200 and 1,000 exchanges each)
#        LINK_PROFILE: a release link-profile (`cd Benchmarks && nice -n 15 swift build -c release --product
#        link-profile`). valgrind 3.19 cannot read the DWARF 5 debug info of Swift 6 builds, so a copy with its debug
#        info stripped is what runs (symbols are kept: callgrind_annotate still names functions).
#        LOUPE_CALLGRIND_KEEP=DIR keeps the callgrind profiles there.
set -euo pipefail

profile=$(realpath "$1"); shift
parts=ab rate_a=300 small=1000 large=4000 apps=10 small_b=200 large_b=1000
if [ $# -gt 0 ] && [[ "$1" != --* ]]; then parts=$1; shift; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --rate-a) rate_a=$2; shift ;;
    --small) small=$2; small_b=$2; shift ;;
    --large) large=$2; large_b=$2; shift ;;
    --apps) apps=$2; shift ;;
    *) echo "link-callgrind.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/link-callgrind.XXXXXX")
listener=
cleanup() { [ -n "$listener" ] && kill "$listener" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export XDG_STATE_HOME="$work/state"
keep=${LOUPE_CALLGRIND_KEEP:-}
[ -n "$keep" ] && mkdir -p "$keep"

binary="$work/link-profile"
cp "$profile" "$binary"
strip --strip-debug "$binary"

# free_port, wait_link
source "$(dirname "$0")/link-common.sh"
# callgrind OUT COMMAND...: runs COMMAND under callgrind (deterministic hashing, so runs repeat), its profile in OUT.
callgrind() {
  local out=$1; shift
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >"$out.stdout" 2>"$out.log"
}
total_ir() { grep -o 'Collected : [0-9]*' "$1.log" | grep -o '[0-9]*$'; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.0f", (b - a) / n }'; }

if [[ "$parts" == *a* ]]; then
  "$binary" listen "127.0.0.1:$(free_port)" --store "$work/a.sqlite" >"$work/a.listener" 2>&1 &
  listener=$!
  wait_link "$work/a.listener"
  declare -A ir
  for shape in recording recording-linked; do
    for n in "$small" "$large"; do
      out="$work/a-$shape-$n.callgrind"
      LOUPE_RATE=$rate_a LOUPE_LINK_DRAIN_S=60 LOUPE_LINK=$link callgrind "$out" "$binary" "$shape" "$n"
      ir[$shape-$n]=$(total_ir "$out")
      echo "   (a) $shape $n: ${ir[$shape-$n]} Ir; $(grep -h 'recorder dropped\|^link:' "$out.stdout" | tr '\n' ' ')"
      [ -n "$keep" ] && cp "$out" "$keep/"
    done
  done
  kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=
  plain=$(per "${ir[recording-$small]}" "${ir[recording-$large]}" $((large - small)))
  linked=$(per "${ir[recording-linked-$small]}" "${ir[recording-linked-$large]}" $((large - small)))
  echo "(a) at $rate_a/s: recording $plain Ir per exchange, recording-linked $linked Ir; the link $((linked - plain)) Ir per exchange"
fi

if [[ "$parts" == *b* ]]; then
  declare -A irb
  for n in "$small_b" "$large_b"; do
    store="$work/b-$n.sqlite"
    if [ -n "${STORE_SQL:-}" ]; then
      # A new store made by the listener's own code, then changed: created by a short listener run first.
      "$binary" listen "127.0.0.1:$(free_port)" --store "$store" >"$work/b-$n.make" 2>&1 &
      listener=$!; wait_link "$work/b-$n.make"; kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=
      sqlite3 "$store" "$STORE_SQL"
    fi
    out="$work/b-$n.callgrind"
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
      "$binary" listen "127.0.0.1:$(free_port)" --store "$store" >"$out.stdout" 2>"$out.log" &
    listener=$!
    wait_link "$out.stdout"
    pids=()
    for app in $(seq "$apps"); do
      LOUPE_LINK_DRAIN_S=600 LOUPE_LINK=$link "$binary" recording-linked "$n" >"$work/b-$n-app$app.out" 2>&1 &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    kill -TERM "$listener"; wait "$listener" 2>/dev/null || true; listener=
    irb[$n]=$(total_ir "$out")
    acked=$(sed -nE 's/^link: ([0-9]+) of.*/\1/p' "$work"/b-"$n"-app*.out | awk '{ s += $1 } END { print s }')
    echo "   (b) $apps apps × $n: ${irb[$n]} Ir; $(grep '^received' "$out.stdout"); acknowledged $acked"
    [ -n "$keep" ] && cp "$out" "$keep/"
  done
  echo "(b) listener: $(per "${irb[$small_b]}" "${irb[$large_b]}" $((apps * (large_b - small_b)))) Ir per exchange" \
    "(${STORE_SQL:-the store as the listener makes it})"
fi
