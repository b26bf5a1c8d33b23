#!/usr/bin/env bash
# Two cpu-profile builds compared by CPU time (issue 32): each in-process shape run by BEFORE then AFTER in every
# round, (CPU at 10,000 requests − CPU at 2,000) / 8,000 per request (user + system), medians and each round's
# after/before ratio. The check beside cpu-callgrind.sh's instruction counts, which judge.
#
#   Benchmarks/cpu-time-ab.sh /tmp/cpu-profile-before .build/release/cpu-profile [ROUNDS]   (ROUNDS = 9)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: cpu-time-ab.sh BEFORE AFTER [ROUNDS]" >&2; exit 2; }
python3 - "$1" "$2" "${3:-9}" <<'PY'
import resource, statistics, subprocess, sys
bins = [("before", sys.argv[1]), ("after", sys.argv[2])]
rounds = int(sys.argv[3])
shapes = ["bare", "resilient", "recording", "resilient-sqlite"]
small, large = 2000, 10000

def cpu(binary, shape, count):
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, shape, str(count)], check=True, capture_output=True, text=True).stdout
    if "dropped" in out and "dropped 0" not in out:
        sys.exit(f"cpu-time-ab: {shape} dropped exchanges: {out}")
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (end.ru_utime - start.ru_utime) + (end.ru_stime - start.ru_stime)

samples = {(name, shape): [] for name, _ in bins for shape in shapes}
for _ in range(rounds):
    for shape in shapes:
        for name, binary in bins:
            samples[(name, shape)].append((cpu(binary, shape, large) - cpu(binary, shape, small)) / (large - small) * 1e6)
for shape in shapes:
    before, after = samples[("before", shape)], samples[("after", shape)]
    ratios = ", ".join(f"{a / b:.2f}" for b, a in zip(before, after))
    print(f"{shape:18} before {statistics.median(before):6.2f} µs  after {statistics.median(after):6.2f} µs  "
          f"after/before by round: {ratios}")
PY
