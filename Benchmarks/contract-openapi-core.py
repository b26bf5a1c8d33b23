#!/usr/bin/env python3
"""openapi-core's rate on the contract budget's corpus: usage: contract-openapi-core.py DOC HAR K.

Validates the first K exchanges of HAR (request and response, as `loupe check` does) against DOC with
openapi-core's `OpenAPI.validate_request`/`validate_response`, after one warm-up exchange, and prints
`openapi-core: K exchanges in S s = R exchanges/s, D drifting`.
"""
import json
import sys
import time
from urllib.parse import urlsplit, parse_qs

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

doc, har, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
api = OpenAPI.from_file_path(doc)
entries = []
with open(har) as f:
    f.readline()
    for line in f:
        line = line.lstrip(",").strip()
        if not line.startswith("{"):
            continue
        entries.append(json.loads(line))
        if len(entries) > k:
            break


def check(entry):
    parts = urlsplit(entry["request"]["url"])
    args = {key: v[0] for key, v in parse_qs(parts.query).items()}
    request = MockRequest("https://api.example.com/v1", "get", parts.path, args=args)
    response = MockResponse(entry["response"]["content"]["text"].encode(), status_code=entry["response"]["status"])
    try:
        api.validate_request(request)
        api.validate_response(request, response)
        return 0
    except Exception:  # noqa: BLE001 - a validation error is drift
        return 1


check(entries[0])
start = time.perf_counter()
drifting = sum(check(e) for e in entries[1:k + 1])
seconds = time.perf_counter() - start
print(f"openapi-core: {k} exchanges in {seconds:.2f} s = {k / seconds:.0f} exchanges/s, {drifting} drifting")
