#!/usr/bin/env python3
"""Agreement between `loupe check` and openapi-core (a validator nobody on the project wrote).

usage: contract-agreement.py LOUPE DOCUMENT HAR_OUT [--from-har HAR_IN]

Builds a corpus of exchanges for DOCUMENT (tests/Fixtures/shop.yaml's: hand-written conforming exchanges, then
every one mutated leaf by leaf: null, another type, a member removed, a member added; and targeted breaks of the
status, content type, parameters and request body), or takes the exchanges of HAR_IN (the demo's recorded traffic).
Writes them as HAR_OUT, runs `loupe check HAR_OUT --openapi DOCUMENT --json --each`, validates each exchange with
openapi-core, and compares the verdicts (conforms / drifts / matches no operation) exchange by exchange.
Prints `N passed, N failed` (one per exchange) and exits 1 on any disagreement not listed in KNOWN below.
"""
import base64
import copy
import json
import subprocess
import sys
from urllib.parse import urlsplit, parse_qs

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_core.templating.paths.exceptions import PathNotFound, OperationNotFound, ServerNotFound

ORDER_ID = "3f2b8c1e-5a6d-4e7f-8a9b-0c1d2e3f4a5b"
ORDER = {
    "id": ORDER_ID, "status": "paid", "total": 12.5, "note": None, "createdAt": "2026-12-06T17:11:07.25Z",
    "deliverOn": "2026-12-24", "lines": [{"sku": "ABC-1", "qty": 2, "price": 6.25}],
    "customer": {"id": 7, "name": "Ada", "email": None, "tags": ["vip"], "referrer": {"id": 1, "name": "Bo"}},
}
CUSTOMER = {"id": 12, "name": "Cy", "email": "cy@example.com", "tags": ["a", "b"]}
BASE = "https://api.example.com/v2"


def exchange(method, url, status=200, body=None, rtype="application/json", request=None, qtype="application/json", raw=None):
    return {"method": method, "url": url, "status": status,
            "headers": {}, "body": raw if raw is not None else (None if body is None else json.dumps(body)), "type": rtype,
            "request": None if request is None else json.dumps(request), "qtype": qtype}


def mutations(value):
    """(description, mutated) for every leaf and member: null, another type, removed, added."""
    out = []

    def walk(node, setter, path):
        out.append((f"{path}=null", setter(None)))
        if isinstance(node, bool):
            out.append((f"{path}=str", setter("true")))
        elif isinstance(node, (int, float)):
            out.append((f"{path}=str", setter(str(node))))
            if isinstance(node, int):
                out.append((f"{path}=frac", setter(node + 0.5)))
        elif isinstance(node, str):
            out.append((f"{path}=num", setter(42)))
            out.append((f"{path}=word", setter("zz")))
        elif isinstance(node, list):
            out.append((f"{path}=obj", setter({})))
            for i, item in enumerate(node):
                def set_item(v, i=i):
                    copy_ = copy.deepcopy(node)
                    copy_[i] = v
                    return setter(copy_)
                walk(item, set_item, f"{path}[{i}]")
        elif isinstance(node, dict):
            out.append((f"{path}=arr", setter([])))
            extra = copy.deepcopy(node)
            extra["zzExtra"] = 1
            out.append((f"{path}+extra", setter(extra)))
            for key in node:
                less = copy.deepcopy(node)
                del less[key]
                out.append((f"{path}-{key}", setter(less)))

                def set_member(v, key=key):
                    copy_ = copy.deepcopy(node)
                    copy_[key] = v
                    return setter(copy_)
                walk(node[key], set_member, f"{path}.{key}")

    walk(value, lambda v: v, "$")
    return out


def shop_corpus():
    bases = [
        exchange("GET", f"{BASE}/orders/{ORDER_ID}", body=ORDER),
        exchange("GET", f"{BASE}/orders?status=open&limit=5", body={"items": [ORDER], "next": None}),
        exchange("GET", f"{BASE}/orders/{ORDER_ID}/payment", body={"kind": "card", "last4": "4242"}),
        exchange("GET", f"{BASE}/orders/{ORDER_ID}/payment", body={"kind": "transfer", "iban": "DE00"}),
        exchange("GET", f"{BASE}/customers/me", body=CUSTOMER),
        exchange("GET", f"{BASE}/customers/12", body=CUSTOMER),
        exchange("GET", f"{BASE}/orders/{ORDER_ID}", status=404, body={"title": "no such order"}, rtype="application/problem+json"),
        exchange("GET", f"{BASE}/orders", status=503, body={"title": "down", "status": 503}, rtype="application/problem+json"),
    ]
    corpus = list(bases)
    for base in bases:
        for _, mutated in mutations(json.loads(base["body"])):
            m = dict(base)
            m["body"] = json.dumps(mutated)
            corpus.append(m)
    post = exchange("POST", f"{BASE}/orders", status=201, body=ORDER, request={"lines": [{"sku": "ABC-1", "qty": 1}]})
    corpus.append(post)
    for _, mutated in mutations(json.loads(post["request"])):
        m = dict(post)
        m["request"] = json.dumps(mutated)
        corpus.append(m)
    corpus += [
        exchange("GET", f"{BASE}/orders/{ORDER_ID}", status=500, raw="oops", rtype="text/plain"),
        exchange("GET", f"{BASE}/orders/{ORDER_ID}", raw="<p>hi</p>", rtype="text/html"),
        exchange("GET", f"{BASE}/orders/{ORDER_ID}", raw='{"id":', rtype="application/json"),
        exchange("GET", f"{BASE}/orders?limit=abc", body={"items": []}),
        exchange("GET", f"{BASE}/orders?limit=500", body={"items": []}),
        exchange("GET", f"{BASE}/orders?limit=0", body={"items": []}),
        exchange("GET", f"{BASE}/orders?status=lost", body={"items": []}),
        exchange("GET", f"{BASE}/orders/not-a-uuid", status=404, body={"title": "no"}, rtype="application/problem+json"),
        exchange("GET", f"{BASE}/customers/0", body=CUSTOMER),
        exchange("GET", f"{BASE}/customers/x1", body=CUSTOMER),
        exchange("POST", f"{BASE}/orders", status=201, body=ORDER),
        exchange("POST", f"{BASE}/orders", status=422, body={"title": "bad"}, rtype="application/problem+json",
                 request={"lines": [{"sku": "ABC-1", "qty": 1}]}),
        exchange("POST", f"{BASE}/orders", status=201, body=ORDER, request={"lines": [{"sku": "ABC-1", "qty": 1}]}, qtype="text/plain"),
        exchange("GET", f"{BASE}/nowhere", body={}),
        exchange("DELETE", f"{BASE}/orders", status=204),
    ]
    return corpus


def from_har(path):
    with open(path) as f:
        har = json.load(f)
    corpus = []
    for entry in har["log"]["entries"]:
        req, resp = entry["request"], entry["response"]
        post = req.get("postData") or {}
        content = resp.get("content") or {}
        text = content.get("text")
        if text is not None and content.get("encoding") == "base64":
            text = base64.b64decode(text).decode("latin-1")
        # The recorder redacted the token (neither side checks security schemes): a stand-in where one was sent.
        sent = any(h["name"].lower() == "authorization" for h in req.get("headers", []))
        headers = {"Authorization": "Bearer redacted"} if sent else {}
        corpus.append({"method": req["method"], "url": req["url"], "status": resp["status"] or None,
                       "body": text, "type": content.get("mimeType") or "",
                       "request": post.get("text"), "qtype": post.get("mimeType") or "application/json",
                       "headers": headers})
    return corpus


def to_har(corpus):
    entries = []
    for e in corpus:
        request = {"method": e["method"], "url": e["url"], "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                   "cookies": [], "headersSize": -1, "bodySize": -1}
        if e["request"] is not None:
            request["headers"].append({"name": "Content-Type", "value": e["qtype"]})
            request["postData"] = {"mimeType": e["qtype"], "text": e["request"]}
        request["headers"] += [{"name": k, "value": v} for k, v in e.get("headers", {}).items()]
        headers = [{"name": "Content-Type", "value": e["type"]}] if e["body"] is not None else []
        entries.append({
            "startedDateTime": "2026-12-06T17:00:00.000Z", "time": 1, "request": request,
            "response": {"status": e["status"] or 0, "statusText": "", "httpVersion": "HTTP/1.1", "headers": headers,
                         "cookies": [], "content": {"size": len(e["body"] or ""), "mimeType": e["type"] if e["body"] is not None else "",
                                                    "text": e["body"] or ""},
                         "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
    return {"log": {"version": "1.2", "creator": {"name": "contract-agreement", "version": "1"}, "entries": entries}}


def reference(document):
    """openapi-core on DOCUMENT. It reads only `application/json` bodies as JSON out of the box (a `+json` type such as
    `application/problem+json` reaches the schema as bytes, and every object schema refuses it): told to read
    those as JSON, as Loupe does.
    Likewise it hands an `application/octet-stream` body to a `type: string` schema as bytes, which the schema
    refuses: read as text here, since neither side checks a binary body beyond its media type."""
    extra = {"application/problem+json": json.loads, "application/octet-stream": lambda data: data.decode("latin-1")}
    return OpenAPI.from_file_path(document, config=Config(extra_media_type_deserializers=extra))


def reference_verdict(api, server, e):
    parts = urlsplit(e["url"])
    args = {k: v if len(v) > 1 else v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    request = MockRequest(server, e["method"].lower(), parts.path, args=args, headers=e.get("headers") or None,
                          data=(e["request"] or "").encode(), content_type=e["qtype"] if e["request"] is not None else None)
    failed = []
    try:
        api.validate_request(request)
    except (PathNotFound, OperationNotFound, ServerNotFound) as error:
        return "unmatched", type(error).__name__
    except Exception as error:  # noqa: BLE001 - any validation error is drift
        failed.append(f"request: {type(error).__name__}: {error}")
    if e["status"]:
        response = MockResponse((e["body"] or "").encode(), status_code=e["status"], content_type=e["type"] if e["body"] is not None else None)
        try:
            api.validate_response(request, response)
        except Exception as error:  # noqa: BLE001
            failed.append(f"response: {type(error).__name__}: {error}")
    return ("drifts" if failed else "conforms"), "; ".join(failed)[:300]


def main():
    loupe, document, har_out = sys.argv[1:4]
    corpus = from_har(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--from-har" else shop_corpus()
    with open(har_out, "w") as f:
        json.dump(to_har(corpus), f)
    run = subprocess.run([loupe, "check", har_out, "--openapi", document, "--json", "--each"], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print(f"loupe check exited {run.returncode}: {run.stderr.strip()}")
        print(f"0 passed, 1 failed")
        return 1
    listed = {x["exchange"]: x for x in json.loads(run.stdout).get("exchanges", [])}
    api = reference(document)
    server = "https://api.example.com/v2" if "shop" in document else "http://127.0.0.1:8080"
    passed = failed = 0
    for index, e in enumerate(corpus, start=1):
        ref = f"#{index}"
        entry = listed.get(ref)
        ours = "conforms" if entry is None else ("unmatched" if entry.get("operation") is None else "drifts")
        theirs, why = reference_verdict(api, server, e)
        if ours == theirs:
            passed += 1
            continue
        failed += 1
        findings = "; ".join(f["message"] for f in (entry or {}).get("findings", [])) or (entry or {}).get("unmatched") or "-"
        print(f"DISAGREE {ref} {e['method']} {e['url']} {e['status']}: loupe {ours} ({findings}); openapi-core {theirs} ({why})")
        print(f"    body: {(e['body'] or '')[:200]}  request: {(e['request'] or '')[:120]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
