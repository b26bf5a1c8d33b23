#!/usr/bin/env bash
# The adapters' CPU per request (issue 31, DECISIONS 259): each mode of Tools/AdapterProfile (in-process transports,
# no network; the recorder's background writer included) run at 2,000 and 20,000 requests, in interleaved rounds;
# (CPU at 20,000 - CPU at 2,000) / 18,000 is the cost of one request, start-up and shutdown cancelled out; the
# median of the rounds is printed. CPU time (user + system of the process), not wall time.
#
# valgrind 3.19 (callgrind, even --tool=none) dies with SIGSEGV inside itself on this binary, as on LoupeProfile
# (shared/README.md), so instruction counts were not available; this is the fallback the project's notes name.
#
#   cd Benchmarks && nice -n 15 swift build -c release --product AdapterProfile && nice -n 15 ./adapter-budget.sh [ROUNDS] [BEFORE]
#
# BEFORE: another AdapterProfile binary (say, one built before a change), run interleaved with this one in the same
# rounds, so the two are compared under the same load.
set -euo pipefail
cd "$(dirname "$0")"
bin=".build/release/AdapterProfile"
[ -x "$bin" ] || { echo "adapter-budget: build it first: nice -n 15 swift build -c release --product AdapterProfile" >&2; exit 2; }
python3 - "$bin" "${1:-5}" "${2:-}" <<'PY'
import resource, statistics, subprocess, sys
binary, rounds, before = sys.argv[1], int(sys.argv[2]), sys.argv[3]
binaries = [("before", before), ("now", binary)] if before else [("now", binary)]
modes = ["client", "client-recorded", "openapi-plain", "openapi-middleware", "openapi-transport"]
small, large = 2000, 20000

def cpu(binary, mode, count):
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, mode, str(count)], check=True, stdout=subprocess.DEVNULL)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (end.ru_utime - start.ru_utime) + (end.ru_stime - start.ru_stime)

samples = {(name, mode): [] for name, _ in binaries for mode in modes}
for _ in range(rounds):
    for mode in modes:  # interleaved: a change in the machine's load touches every mode (and binary) alike
        for name, path in binaries:
            samples[(name, mode)].append((cpu(path, mode, large) - cpu(path, mode, small)) / (large - small) * 1e6)
for name, _ in binaries:
    per = {mode: statistics.median(samples[(name, mode)]) for mode in modes}
    print(f"[{name}]")
    for mode in modes:
        print(f"{mode:20} {per[mode]:6.2f} µs CPU per request (rounds: {', '.join(f'{v:.2f}' for v in samples[(name, mode)])})")
    # Per round as well as of the medians: each round's difference is taken under one load.
    def diffs(a, b):
        return ", ".join(f"{x - y:.2f}" for x, y in zip(samples[(name, a)], samples[(name, b)]))
    recorder = per["client-recorded"] - per["client"]
    middleware = per["openapi-middleware"] - per["openapi-plain"]
    transport = per["openapi-transport"] - per["client-recorded"]
    print()
    print(f"recorder, Loupe's own client:         {recorder:6.2f} µs (rounds: {diffs('client-recorded', 'client')})")
    print(f"LoupeRecordingMiddleware (recording): {middleware:6.2f} µs (rounds: {diffs('openapi-middleware', 'openapi-plain')})")
    print(f"LoupeTransport (its own part):        {transport:6.2f} µs (rounds: {diffs('openapi-transport', 'client-recorded')})")
    print()
PY
