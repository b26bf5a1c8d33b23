#!/usr/bin/env bash
# The contract budget of issue 48: `loupe check` of N recorded exchanges (N = 100,000) against a 200-operation
# OpenAPI document (Benchmarks/contract-corpus.py: about 1.5 KB of JSON body an exchange, one in 50 drifting),
# from a store (the HAR imported first, not timed) and from the HAR itself: wall time and peak RSS (GNU time);
# budget ≤ 10 s and ≤ 200 MB. In the same run, openapi-core (PyPI, in .ci/venv) validates the first K exchanges of
# the same corpus (K = 2,000: at its rate the whole corpus takes minutes) for the ≥ 10× ratio.
#
# Usage: Benchmarks/contract-budget.sh LOUPE [N] [K]   (LOUPE: the loupe binary, release for the budget)
set -euo pipefail
loupe="$1" count="${2:-100000}" sample="${3:-2000}"
root=$(cd "$(dirname "$0")/.." && pwd)
python="${LOUPE_CI_PYTHON:-$root/.ci/venv/bin/python}"
work=$(mktemp -d "${TMPDIR:-/tmp}/contract-budget.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$root/Benchmarks/contract-corpus.py" "$work/doc.json" "$work/corpus.har" "$count"
"$loupe" import "$work/corpus.har" --store "$work/store.sqlite" >/dev/null
echo "corpus: $count exchanges, $(du -m "$work/corpus.har" | cut -f1) MB of HAR, store $(du -m "$work/store.sqlite" | cut -f1) MB"

measure() {
  local what="$1"; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >"$work/out.json" 2>"$work/err.txt" || [ $? -eq 1 ]
  read -r seconds kb < <(tail -1 "$work/time.txt")
  local checked drifting
  checked=$(python3 -c "import json; print(json.load(open('$work/out.json'))['checked'])")
  drifting=$(python3 -c "import json; print(json.load(open('$work/out.json'))['drifting'])")
  echo "loupe check $what: $checked exchanges checked ($drifting drifting) in $seconds s, peak RSS $((kb / 1024)) MB," \
       "$(python3 -c "print(round($checked / max($seconds, 0.01)))") exchanges/s"
}
measure "STORE" "$loupe" check "$work/store.sqlite" --openapi "$work/doc.json" --json
measure "HAR" "$loupe" check "$work/corpus.har" --openapi "$work/doc.json" --json
"$python" "$root/Benchmarks/contract-openapi-core.py" "$work/doc.json" "$work/corpus.har" "$sample"
