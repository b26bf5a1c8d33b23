#!/usr/bin/env bash
# The adapters' CPU per request (issue 31, JOURNAL J259, J321): each mode of Tools/AdapterProfile counted by
# valgrind's callgrind at two request counts; (Ir at N2 - Ir at N1) / (N2 - N1) is one request's instructions,
# start-up and shutdown cancelled out. Instruction counts do not move with the machine's load, unlike time.
# The loopback modes talk to `AdapterProfile serve`, started here in a process of its own (not counted).
#
#   cd Benchmarks && nice -n 15 swift build -c release --product AdapterProfile
#   nice -n 15 ./adapter-budget.sh [--modes "m1 m2 …"] [--counts N1,N2] [--time ROUNDS] [BEFORE]
#
# --time ROUNDS: CPU time (user + system) instead, at 2,000 and 20,000 requests, median of ROUNDS interleaved
# rounds (what this script measured before callgrind ran on the tool; noisy on a loaded machine).
# BEFORE: another AdapterProfile binary (say, one built before a change), counted the same way in the same run.
# Each cost is also shown without the instructions inside InMemoryTraceStore.write (the benchmark's bounded store,
# whose pruning shifts its array once per exchange written alone: its cost follows the writer's batching, JOURNAL
# J371). ADAPTER_BUDGET_REUSE=1 reports again from the counts already in ADAPTER_BUDGET_DIR, without valgrind.
set -euo pipefail
cd "$(dirname "$0")"
bin=".build/release/AdapterProfile"
[ -x "$bin" ] || { echo "adapter-budget: build it first: nice -n 15 swift build -c release --product AdapterProfile" >&2; exit 2; }
modes="client client-recorded openapi-plain openapi-middleware openapi-transport loopback-client loopback-client-recorded ahc-plain ahc-recorded ahc-future-plain ahc-future-recorded urlsession-plain urlsession-recorded urlsession-delegate-plain urlsession-delegate-recorded"
counts=500,2500 rounds=0 before=
while [ $# -gt 0 ]; do
  case "$1" in
    --modes) modes=$2; shift ;;
    --counts) counts=$2; shift ;;
    --time) rounds=$2; shift ;;
    *) before=$1 ;;
  esac
  shift
done
out=${ADAPTER_BUDGET_DIR:-${TMPDIR:-/tmp}/loupe-adapter-budget}
mkdir -p "$out"
# The loopback server, from this checkout's binary; stopped by its pid when the script ends.
"$bin" serve >"$out/serve.port" 2>"$out/serve.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$out/serve.port" ] && break; sleep 0.1; done
port=$(head -1 "$out/serve.port")
[ -n "$port" ] || { echo "adapter-budget: the loopback server did not start (see $out/serve.log)" >&2; exit 1; }

python3 - "$bin" "$before" "$port" "$counts" "$rounds" "$out" $modes <<'PY'
import os, re, resource, statistics, subprocess, sys
binary, before, port, counts, rounds, out = sys.argv[1:7]
modes = sys.argv[7:]
n1, n2 = (int(c) for c in counts.split(","))
rounds = int(rounds)
binaries = [("before", before), ("now", binary)] if before else [("now", binary)]
if not rounds:
    # valgrind 3.19 cannot read the DWARF 5 debug info Swift writes ("unhandled dwarf2 abbrev form"), so it counts
    # copies without it (the symbol table stays: callgrind_annotate still names the functions).
    stripped = []
    for name, path in binaries:
        copy = f"{out}/AdapterProfile-{name}"
        subprocess.run(["objcopy", "--strip-debug", path, copy], check=True)
        stripped.append((name, copy))
    binaries = stripped
env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")

def argv(path, mode, count):
    return [path, mode, str(count)] + ([port] if mode.startswith(("loopback", "ahc", "urlsession")) else [])

def instructions(name, path, mode, count):
    """The instructions of one run under callgrind, every thread of the process."""
    log = f"{out}/{name}-{mode}-{count}.log"
    if os.environ.get("ADAPTER_BUDGET_REUSE") and os.path.exists(log) and "Collected" in open(log).read():
        # Report again from the counts of an earlier run in the same folder (same binaries), without valgrind.
        return int(re.search(r"Collected : (\d+)", open(log).read()).group(1))
    with open(log, "w") as err:
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/{name}-{mode}-{count}.callgrind"]
                       + argv(path, mode, count), check=True, stdout=subprocess.DEVNULL, stderr=err, env=env)
    return int(re.search(r"Collected : (\d+)", open(log).read()).group(1))

def store_write(name, mode, count):
    """The instructions inside the in-memory store's `write` (mostly its pruning: the bounded array shifts by one
    entry per exchange written alone, so its cost follows how the writer happened to batch, not the recorder's work;
    JOURNAL J371). An app records into SQLiteTraceStore, whose cost is the link helper's budget."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no",
                           f"{out}/{name}-{mode}-{count}.callgrind"], capture_output=True, text=True).stdout
    for line in text.splitlines():
        if "InMemoryB5StoreC5writeyySayAA0B8ExchangeVGKF " in line:  # mangled InMemoryTraceStore.write(_:)
            return int(line.split()[0].replace(",", ""))
    return 0

def cpu(path, mode, count):
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv(path, mode, count), check=True, stdout=subprocess.DEVNULL)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (end.ru_utime - start.ru_utime) + (end.ru_stime - start.ru_stime)

per, stored = {}, {}
if rounds:
    unit, small, large = "µs CPU", 2000, 20000
    samples = {(name, mode): [] for name, _ in binaries for mode in modes}
    for _ in range(rounds):
        for mode in modes:  # interleaved: a change in the machine's load touches every mode (and binary) alike
            for name, path in binaries:
                samples[(name, mode)].append((cpu(path, mode, large) - cpu(path, mode, small)) / (large - small) * 1e6)
    for key, values in samples.items():
        per[key] = statistics.median(values)
        print(f"{key[0]:6} {key[1]:26} {per[key]:10.2f} {unit} (rounds: {', '.join(f'{v:.2f}' for v in values)})", flush=True)
else:
    unit = "Ir"
    for mode in modes:
        for name, path in binaries:
            a, b = instructions(name, path, mode, n1), instructions(name, path, mode, n2)
            per[(name, mode)] = (b - a) / (n2 - n1)
            stored[(name, mode)] = (store_write(name, mode, n2) - store_write(name, mode, n1)) / (n2 - n1)
            print(f"{name:6} {mode:26} {per[(name, mode)]:10.0f} {unit} a request  (Ir {a} at {n1}, {b} at {n2}; "
                  f"{stored[(name, mode)]:.0f} of it in the in-memory store's write)", flush=True)

pairs = [
    ("recorder, Loupe's client (canned)", "client-recorded", "client"),
    ("LoupeRecordingMiddleware", "openapi-middleware", "openapi-plain"),
    ("LoupeTransport's own part", "openapi-transport", "client-recorded"),
    ("recorder, Loupe's client (loopback)", "loopback-client-recorded", "loopback-client"),
    ("RecordingHTTPClient, async API", "ahc-recorded", "ahc-plain"),
    ("RecordingHTTPClient, future API", "ahc-future-recorded", "ahc-future-plain"),
    ("LoupeURLProtocol (URLSession)", "urlsession-recorded", "urlsession-plain"),
    ("RecordingSessionDelegate (URLSession)", "urlsession-delegate-recorded", "urlsession-delegate-plain"),
]
for name, _ in binaries:
    print(f"\n[{name}]")
    for label, a, b in pairs:
        if (name, a) in per and (name, b) in per:
            line = f"{label:38} {per[(name, a)] - per[(name, b)]:10.2f} {unit} a request ({a} - {b})"
            if (name, a) in stored:
                line += f"; without the in-memory store's write {per[(name, a)] - stored[(name, a)] - per[(name, b)] + stored.get((name, b), 0):10.0f}"
            print(line)
PY
