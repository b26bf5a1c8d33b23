"""Writes a HAR of N GET entries (default 100,000) with small JSON bodies, for Benchmarks/serve-ready.sh.

Usage: python3 Benchmarks/serve-har.py OUT.har [N]
"""
import json
import sys

count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
entries = []
for i in range(count):
    body = json.dumps({"id": i, "name": f"item {i}", "tags": ["a", "b"], "price": i % 97})
    entries.append({
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 3,
        "request": {"method": "GET", "url": f"https://api.example.com/items/{i}?v=1", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"},
                                 {"name": "Content-Length", "value": str(len(body))}], "cookies": [],
                     "content": {"size": len(body), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
        "cache": {}, "timings": {"send": 0, "wait": 3, "receive": 0}})
json.dump({"log": {"version": "1.2", "creator": {"name": "serve-har.py", "version": "1"}, "entries": entries}},
          open(sys.argv[1], "w"))
