#!/usr/bin/env bash
# The adapters' CPU per request (issue 31, DECISIONS 259): each mode of Tools/AdapterProfile (in-process transports,
# no network; the recorder's background writer included) run at 2,000 and 20,000 requests, in interleaved rounds;
# (CPU at 20,000 - CPU at 2,000) / 18,000 is the cost of one request, start-up and shutdown cancelled out; the
# median of the rounds is printed. CPU time (user + system of the process), not wall time.
#
# valgrind 3.19 (callgrind, even --tool=none) dies with SIGSEGV inside itself on this binary, as on LoupeProfile
# (shared/README.md), so instruction counts were not available; this is the fallback the project's notes name.
#
#   cd Benchmarks && nice -n 15 swift build -c release --product AdapterProfile && nice -n 15 ./adapter-budget.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")"
bin=".build/release/AdapterProfile"
[ -x "$bin" ] || { echo "adapter-budget: build it first: nice -n 15 swift build -c release --product AdapterProfile" >&2; exit 2; }
python3 - "$bin" "${1:-5}" <<'PY'
import resource, statistics, subprocess, sys
binary, rounds = sys.argv[1], int(sys.argv[2])
modes = ["client", "client-recorded", "openapi-plain", "openapi-middleware", "openapi-transport"]
small, large = 2000, 20000

def cpu(mode, count):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, mode, str(count)], check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

samples = {mode: [] for mode in modes}
for _ in range(rounds):
    for mode in modes:  # interleaved: a change in the machine's load touches every mode alike
        samples[mode].append((cpu(mode, large) - cpu(mode, small)) / (large - small) * 1e6)
per = {mode: statistics.median(values) for mode, values in samples.items()}
for mode in modes:
    print(f"{mode:20} {per[mode]:6.2f} µs CPU per request (rounds: {', '.join(f'{v:.2f}' for v in samples[mode])})")
recorder = per["client-recorded"] - per["client"]
middleware = per["openapi-middleware"] - per["openapi-plain"]
transport = per["openapi-transport"] - per["client-recorded"]
print()
print(f"recorder, Loupe's own client:         {recorder:6.2f} µs")
print(f"LoupeRecordingMiddleware (recording): {middleware:6.2f} µs")
print(f"LoupeTransport (its own part):        {transport:6.2f} µs")
PY
