#!/usr/bin/env python3
"""Watches a store that `loupe listen` (or `loupe tui --listen`) writes, as the TUI reads it: for each new row,
the moment it became visible to a reader of the file against the moment the exchange ended in the app (its
`ended_at`, stamped by the app's client; both processes on one machine, one wall clock).

Usage: link_watch.py STORE EXPECTED [--poll SECONDS] [--timeout SECONDS] [--out FILE]

Polls `SELECT sequence, ended_at FROM exchange WHERE sequence > last` every --poll seconds (default 0.002), so a
row is seen at most one poll (plus the query) after its transaction committed. Stops at EXPECTED rows, or after
--timeout seconds with no new row. Prints one JSON object: rows seen, when the first and last were seen, the rate
between them, and the latency percentiles in milliseconds.
"""
import argparse
import json
import os
import sqlite3
import sys
import time


def percentile(values, fraction):
    if not values:
        return None
    index = min(len(values) - 1, max(0, int(round(fraction * (len(values) - 1)))))
    return values[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("expected", type=int)
    parser.add_argument("--poll", type=float, default=0.002)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--out")
    args = parser.parse_args()

    deadline = time.time() + 60
    connection = None
    while connection is None:
        try:
            if os.path.exists(args.store):
                connection = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True, timeout=1)
                connection.execute("SELECT 1 FROM exchange LIMIT 1").fetchall()
        except sqlite3.Error:
            connection = None
        if connection is None:
            if time.time() > deadline:
                print(json.dumps({"error": "no store"}))
                return 1
            time.sleep(0.05)

    last = 0
    latencies = []
    first_seen = last_seen = None
    first_ended = last_ended = None
    quiet_since = time.time()
    polls = 0
    while len(latencies) < args.expected:
        try:
            rows = connection.execute(
                "SELECT sequence, ended_at FROM exchange WHERE sequence > ? ORDER BY sequence", (last,)).fetchall()
        except sqlite3.OperationalError:
            rows = []
        now = time.time()
        polls += 1
        if rows:
            quiet_since = now
            if first_seen is None:
                first_seen = now
            last_seen = now
            for sequence, ended in rows:
                last = sequence
                if ended is not None:
                    latencies.append(now - ended)
                    first_ended = ended if first_ended is None else min(first_ended, ended)
                    last_ended = ended if last_ended is None else max(last_ended, ended)
        elif now - quiet_since > args.timeout:
            break
        time.sleep(args.poll)

    latencies.sort()
    span = (last_seen - first_seen) if first_seen is not None and last_seen is not None else 0
    result = {
        "rows": len(latencies),
        "expected": args.expected,
        "polls": polls,
        "first_seen": first_seen,
        "last_seen": last_seen,
        "first_ended": first_ended,
        "last_ended": last_ended,
        # From the first exchange's end in an app to the last row visible: the whole run as the viewer saw it.
        "rate_from_first_end": (len(latencies) / (last_seen - first_ended)) if last_seen and first_ended else None,
        "rate_between_rows": (len(latencies) / span) if span > 0 else None,
        "p50_ms": percentile(latencies, 0.50) * 1e3 if latencies else None,
        "p95_ms": percentile(latencies, 0.95) * 1e3 if latencies else None,
        "p99_ms": percentile(latencies, 0.99) * 1e3 if latencies else None,
        "max_ms": latencies[-1] * 1e3 if latencies else None,
        "min_ms": latencies[0] * 1e3 if latencies else None,
    }
    text = json.dumps(result)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
