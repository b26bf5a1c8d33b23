#!/usr/bin/env python3
"""Checks what .ci/otlp-receiver.py received against the store it was exported from (issue 32).

    otlp-check.py STORE RECEIVED.jsonl [--duplicates-up-to N] [--header VALUE]

Every exchange arrives as one span with no parent and every attempt as one span whose parent is its exchange's;
trace ids are the recorded traceparent's or the exchange id's; start and end times are the store's, to the
nanosecond; the HTTP client attributes are the store's. With --duplicates-up-to N, up to N spans may arrive twice
(a receiver killed after it stored a request but before it answered: OTLP delivery is at least once). Prints a
one-line summary; exits 1 with the first difference.
"""
import argparse
import collections
import json
import sqlite3
import sys
from urllib.parse import urlsplit

parser = argparse.ArgumentParser()
parser.add_argument("store")
parser.add_argument("received")
parser.add_argument("--duplicates-up-to", type=int, default=0)
parser.add_argument("--header")
args = parser.parse_args()


def fail(message):
    print("otlp-check: " + message)
    sys.exit(1)


def nanos(seconds):
    return int(round(seconds * 1e9)) if seconds and seconds > 0 else 0


spans = [json.loads(line) for line in open(args.received) if line.strip()]
errors = [s for s in spans if "error" in s]
if errors:
    fail("the receiver could not decode a request: " + errors[0]["error"])
by_id = collections.defaultdict(list)
for span in spans:
    by_id[(span["trace_id"], span["span_id"])].append(span)
duplicates = sum(len(v) - 1 for v in by_id.values())
if duplicates > args.duplicates_up_to:
    fail(f"{duplicates} spans arrived more than once (allowed: {args.duplicates_up_to})")

db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
exchanges = db.execute(
    "SELECT sequence, id, started_at, ended_at, operation, method, url, status, outcome, request_headers FROM exchange"
    " ORDER BY sequence").fetchall()
attempts = collections.defaultdict(list)
for row in db.execute("SELECT exchange_sequence, number, started_at, ended_at, status, error FROM attempt"):
    attempts[row[0]].append(row[1:])
if not exchanges:
    fail("the store is empty")

by_exchange = collections.defaultdict(list)
for span in spans:
    by_exchange[span["attributes"].get("loupe.exchange_id")].append(span)
expected_spans = 0
for sequence, ident, started, ended, operation, method, url, status, outcome, headers in exchanges:
    mine = {(s["span_id"]): s for s in by_exchange.get(ident, [])}.values()  # duplicates folded, as a backend does
    roots = [s for s in mine if s["parent_span_id"] == ""]
    if len(roots) != 1:
        fail(f"exchange #{sequence} {ident}: {len(roots)} exchange spans")
    root = roots[0]
    traceparent = next((h["value"] for h in json.loads(headers) if h["name"].lower() == "traceparent"), None)
    want_trace = traceparent.split("-")[1] if traceparent else ident.replace("-", "").lower()
    if root["trace_id"] != want_trace:
        fail(f"#{sequence}: trace id {root['trace_id']}, want {want_trace}")
    tries = attempts.get(sequence, [])
    last_end = max([a[2] for a in tries if a[2]] or [started])
    end = ended if ended else last_end
    if (root["start"], root["end"]) != (nanos(started), nanos(end)):
        fail(f"#{sequence}: exchange span {root['start']}..{root['end']}, store {nanos(started)}..{nanos(end)}")
    a = root["attributes"]
    host = urlsplit(url).hostname
    checks = {
        "name": (root["name"], operation), "kind": (root["kind"], 3), "service": (root["service"], "loupe"),
        "scope": (root["scope"], "Loupe"), "http.request.method": (a.get("http.request.method"), method),
        "url.full": (a.get("url.full"), url), "server.address": (a.get("server.address"), host),
        "http.response.status_code": (a.get("http.response.status_code"), status),
        "loupe.outcome": (a.get("loupe.outcome"), outcome), "loupe.attempts": (a.get("loupe.attempts"), len(tries)),
    }
    if urlsplit(url).port:
        checks["server.port"] = (a.get("server.port"), urlsplit(url).port)
    if status and status >= 400:
        checks["error.type"] = (a.get("error.type"), str(status))
    if outcome != "success":
        checks["status"] = (root["status"]["code"], 2)
    if args.header:
        checks["header"] = (root["header"], args.header)
    for name, (got, want) in checks.items():
        if got != want:
            fail(f"#{sequence}: {name} is {got!r}, want {want!r}")
    children = [s for s in mine if s["parent_span_id"] != ""]
    if len(children) != len(tries):
        fail(f"#{sequence}: {len(children)} attempt spans, store has {len(tries)} attempts")
    for number, a_started, a_ended, a_status, a_error in tries:
        found = [s for s in children if s["attributes"].get("loupe.attempt") == number]
        if len(found) != 1:
            fail(f"#{sequence} attempt {number}: {len(found)} spans")
        span = found[0]
        if span["parent_span_id"] != root["span_id"] or span["trace_id"] != root["trace_id"]:
            fail(f"#{sequence} attempt {number}: parent {span['parent_span_id']}, want {root['span_id']}")
        if (span["start"], span["end"]) != (nanos(a_started), nanos(a_ended if a_ended else end)):
            fail(f"#{sequence} attempt {number}: times differ from the store's")
        sa = span["attributes"]
        if span["name"] != method or sa.get("http.request.method") != method or sa.get("url.full") != url:
            fail(f"#{sequence} attempt {number}: name/method/url differ")
        if sa.get("http.response.status_code") != a_status:
            fail(f"#{sequence} attempt {number}: status {sa.get('http.response.status_code')}, want {a_status}")
        if sa.get("http.request.resend_count") != (number - 1 if number > 1 else None):
            fail(f"#{sequence} attempt {number}: resend_count {sa.get('http.request.resend_count')}")
        if (a_status and a_status >= 400 or a_error) and "error.type" not in sa:
            fail(f"#{sequence} attempt {number}: failed without error.type")
    expected_spans += 1 + len(tries)

received = len(by_id)
if received != expected_spans:
    fail(f"received {received} distinct spans, the store makes {expected_spans}")
events = sum(len(s["events"]) for s in spans)
print(f"otlp-check: {len(exchanges)} exchanges and {expected_spans - len(exchanges)} attempts arrived once each"
      f" ({duplicates} repeated), {events} events, times and attributes as stored")
