#!/usr/bin/env python3
"""Where one shape's extra instructions a request go, by library and module (issue 32, item 2).

Reads the callgrind outputs `cpu-callgrind.sh --keep DIR` leaves (SHAPE-N1.out and SHAPE-N2.out per shape), takes
each function's own instructions a request as (Ir at N2 - Ir at N1) / (N2 - N1), as the script does for the whole
process, and prints them summed by group (a Swift module read from the mangled name, the Swift runtime's parts,
malloc, SQLite, ...) for shape A, shape B and their difference. With --group NAME, the functions of that group.
With --calls, the calls a request of the runtime's reference counting and of allocation instead (each retain or
release of a heap object is an atomic read-modify-write: `refcount-cost.swift` measures a pair at 10–15 ns).

  Benchmarks/cpu-callgrind.sh --keep /tmp/cg loopback-raw loopback-bare
  Benchmarks/callgrind-groups.py /tmp/cg loopback-raw loopback-bare
  Benchmarks/callgrind-groups.py /tmp/cg loopback-raw loopback-bare --group "swift concurrency runtime"
  Benchmarks/callgrind-groups.py /tmp/cg loopback-raw loopback-bare --calls

Needs `callgrind_annotate` (valgrind). Each function's own cost is counted once, so the groups add up to the
difference of the two shapes' totals.
"""
import argparse
import glob
import os
import re
import subprocess
import sys


def self_costs(path):
    """Each function's own instructions in one callgrind output."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path], check=True,
                          capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)$", line)
        if match and "PROGRAM TOTALS" not in line:
            name = match.group(2)
            costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def per_request(directory, shape):
    """Each function's own instructions a request: the difference of the shape's two runs."""
    runs = sorted(glob.glob(os.path.join(directory, f"{shape}-*.out")),
                  key=lambda p: int(re.search(r"-(\d+)\.out$", p).group(1)))
    runs = [p for p in runs if re.fullmatch(rf"{re.escape(shape)}-\d+\.out", os.path.basename(p))]
    if len(runs) != 2:
        sys.exit(f"callgrind-groups.py: want two runs of {shape} in {directory}, found {len(runs)}")
    (low_path, high_path) = runs
    low_n = int(re.search(r"-(\d+)\.out$", low_path).group(1))
    high_n = int(re.search(r"-(\d+)\.out$", high_path).group(1))
    low, high = self_costs(low_path), self_costs(high_path)
    return {name: (high.get(name, 0) - low.get(name, 0)) / (high_n - low_n) for name in set(low) | set(high)}


COUNTED_CALLS = ["swift_retain", "swift_release", "swift_bridgeObjectRetain", "swift_bridgeObjectRelease",
                 "swift_retain_n", "swift_release_n", "swift_allocObject", "malloc", "free", "swift_task_alloc"]


def calls(path):
    """How many times each of COUNTED_CALLS was called in one callgrind output (its `calls=` lines)."""
    names, counts, callee = {}, dict.fromkeys(COUNTED_CALLS, 0), None
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith(("fn=", "cfn=")):
                match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
                if match and match.group(2):
                    names[match.group(1)] = match.group(2)
                if line.startswith("cfn="):
                    callee = names.get(match.group(1)) if match else line[4:].strip()
            elif line.startswith("calls=") and callee is not None:
                base = callee.split("'")[0]
                if base in counts:
                    counts[base] += int(line.split("=")[1].split()[0])
                callee = None
    return counts


def calls_per_request(directory, shape):
    """COUNTED_CALLS a request: the difference of the shape's two runs."""
    runs = sorted((p for p in glob.glob(os.path.join(directory, f"{shape}-*.out"))
                   if re.fullmatch(rf"{re.escape(shape)}-\d+\.out", os.path.basename(p))),
                  key=lambda p: int(re.search(r"-(\d+)\.out$", p).group(1)))
    if len(runs) != 2:
        sys.exit(f"callgrind-groups.py: want two runs of {shape} in {directory}, found {len(runs)}")
    (low, high), n = (calls(p) for p in runs), [int(re.search(r"-(\d+)\.out$", p).group(1)) for p in runs]
    return {name: (high[name] - low[name]) / (n[1] - n[0]) for name in COUNTED_CALLS}


def group(name):
    """The group a function belongs to: its library, or its Swift module for code in the binary."""
    library = re.search(r"\[([^\]]*)\]$", name)
    library = library.group(1) if library else ""
    if "libc.so" in library:
        if "malloc" in name or "free" in name:
            return "libc malloc/free"
        return "libc pthread" if "pthread" in name else "libc mem*" if "mem" in name else "libc other"
    if "ld-linux" in library:
        return "dynamic loader (tls_get_addr)"
    if "libswift_Concurrency" in library:
        return "swift concurrency runtime"
    if "libswiftCore" in library:
        if re.search(r"retain|release|RefCount", name):
            return "swift retain/release"
        if re.search(r"conformsTo|Metadata|Conformance|HashMap|Cache", name):
            return "swift metadata/conformances"
        if "Access" in name:
            return "swift exclusivity checks"
        return "swift stdlib (strings, hashing, collections)"
    if "libsqlite3" in library:
        return "sqlite"
    if "Foundation" in library:
        return "foundation"
    if "libdispatch" in library:
        return "dispatch"
    if re.search(r"\$s[sS]", name):
        return "swift stdlib, specialized into the binary"
    module = re.search(r"\$s(\d+)([A-Za-z_]\w*)", name)
    if module and int(module.group(1)) <= len(module.group(2)):
        return "module " + module.group(2)[: int(module.group(1))]
    return "other " + os.path.basename(library)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--group", help="list this group's functions instead")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--calls", action="store_true", help="count reference-counting and allocation calls instead")
    arguments = parser.parse_args()
    if arguments.calls:
        a, b = calls_per_request(arguments.directory, arguments.a), calls_per_request(arguments.directory, arguments.b)
        print(f"| calls a request | {arguments.a} | {arguments.b} | difference |")
        print("|---|---|---|---|")
        for name in COUNTED_CALLS:
            print(f"| `{name}` | {a[name]:,.1f} | {b[name]:,.1f} | {b[name] - a[name]:+,.1f} |")
        atomic = COUNTED_CALLS[:6]
        left, right = sum(a[n] for n in atomic), sum(b[n] for n in atomic)
        print(f"| **atomic reference counts** | {left:,.1f} | {right:,.1f} | {right - left:+,.1f} |")
        return
    a, b = per_request(arguments.directory, arguments.a), per_request(arguments.directory, arguments.b)
    if arguments.group:
        rows = [(b.get(n, 0) - a.get(n, 0), a.get(n, 0), b.get(n, 0), n)
                for n in set(a) | set(b) if group(n) == arguments.group]
        for difference, left, right, name in sorted(rows, key=lambda r: -abs(r[0]))[: arguments.top]:
            print(f"{difference:9.0f} {left:9.0f} {right:9.0f}  {name[:150]}")
        return
    groups = {}
    for name in set(a) | set(b):
        left, right = groups.get(group(name), (0.0, 0.0))
        groups[group(name)] = (left + a.get(name, 0), right + b.get(name, 0))
    print(f"| group (instructions a request) | {arguments.a} | {arguments.b} | difference |")
    print("|---|---|---|---|")
    for name, (left, right) in sorted(groups.items(), key=lambda kv: -abs(kv[1][1] - kv[1][0])):
        if abs(right - left) >= 300:
            print(f"| {name} | {left:,.0f} | {right:,.0f} | {right - left:+,.0f} |")
    total_a, total_b = sum(a.values()), sum(b.values())
    print(f"| **all** | {total_a:,.0f} | {total_b:,.0f} | {total_b - total_a:+,.0f} |")


if __name__ == "__main__":
    main()
