#!/usr/bin/env python3
"""Writes a HAR 1.2 file of N browser-style entries (about 1.4 KB each) for Loupe's import/export budgets.

    make-har.py N OUT.har [--seed S] [--large-bodies]

Entries look like a browser's export of API traffic: request and response headers, query strings, JSON bodies
(some posted), cookies, timings, a few failed requests (status 0 with Chrome's `_error`) and 5xx responses. Text
includes characters a tokenizer must get right (`]`, `}`, quotes, backslashes, non-ASCII). The same N and seed
give the same bytes. The file is written entry by entry, so N can be in the millions.

--large-bodies gives every response a body of about 10 KB, in turn JSON text (a quote to escape every few bytes),
HTML (a line break every 25), and binary (base64 in the HAR): stores whose bytes are mostly bodies.
"""
import base64
import json
import random
import sys


def large_body(index, rng):
    kind = index % 3
    if kind == 0:
        items = [{"id": j, "name": "Zoë \"%d\" \\ x" % j, "tags": ["a", "b"]} for j in range(150)]
        return "application/json", json.dumps({"items": items}, ensure_ascii=False), None
    if kind == 1:
        return "text/html", "<html>" + "<p>hello &amp; world</p>\n" * 400 + "</html>", None
    raw = bytes(rng.getrandbits(8) for _ in range(8000))
    return "image/png", base64.b64encode(raw).decode(), len(raw)


def entry(index, rng):
    host = rng.choice(["api.example.test", "cdn.example.test", "auth.example.test", "shop.example.test"])
    method = rng.choices(["GET", "POST", "PUT", "DELETE"], weights=[70, 18, 8, 4])[0]
    path = "/v%d/%s/%d" % (rng.randint(1, 3), rng.choice(["users", "orders", "items", "carts", "search"]), index)
    query = [{"name": "page", "value": str(rng.randint(1, 50))}, {"name": "q", "value": rng.choice(["a]b", "x}y", "naïve", "plain"])}]
    url = "https://%s%s?page=%s&q=%s" % (host, path, query[0]["value"], query[1]["value"].replace("]", "%5D").replace("}", "%7D"))
    status = rng.choices([200, 201, 204, 304, 404, 500, 503, 0], weights=[70, 5, 3, 5, 6, 3, 5, 3])[0]
    payload = {"id": index, "name": "item %d" % index, "tags": ["a]", "b}", "c\"d", "e\\f"],
               "price": round(rng.random() * 1000, 2), "note": "Zoë ✓ " + "x" * rng.randint(0, 10)}
    body = json.dumps(payload, ensure_ascii=False)
    request_headers = [
        {"name": "Host", "value": host},
        {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"},
        {"name": "Accept", "value": "application/json, text/plain, */*"},
        {"name": "Accept-Language", "value": "en-GB,en;q=0.9"},
        {"name": "Cookie", "value": "session=s%08x; theme=dark" % rng.getrandbits(32)},
        {"name": "X-Request-Id", "value": "req-%d-%08x" % (index, rng.getrandbits(32))},
    ]
    post = None
    if method in ("POST", "PUT"):
        post = {"mimeType": "application/json", "text": json.dumps({"item": index, "qty": rng.randint(1, 9)})}
        request_headers.append({"name": "Content-Type", "value": "application/json"})
    response = {"status": status, "statusText": "" if status == 0 else "OK", "httpVersion": "HTTP/1.1",
                "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                "redirectURL": "", "headersSize": -1, "bodySize": -1}
    if status == 0:
        response["_error"] = "net::ERR_CONNECTION_RESET"
    else:
        response["headers"] = [
            {"name": "Content-Type", "value": "application/json; charset=utf-8"},
            {"name": "Cache-Control", "value": "private, max-age=0"},
            {"name": "Date", "value": "Sun, 10 Mar 2024 10:%02d:%02d GMT" % (index // 60 % 60, index % 60)},
        ]
        if LARGE:
            mime, text, raw_size = large_body(index, rng)
            response["content"] = {"size": raw_size or len(text.encode()), "mimeType": mime, "text": text}
            if raw_size:
                response["content"]["encoding"] = "base64"
            response["bodySize"] = response["content"]["size"]
        else:
            response["content"] = {"size": len(body.encode()), "mimeType": "application/json", "text": body}
            response["bodySize"] = len(body.encode())
    blocked, send, wait, receive = rng.random() * 5, rng.random(), rng.random() * 200, rng.random() * 20
    return {
        "startedDateTime": "2024-03-10T%02d:%02d:%02d.%03dZ" % (index // 3600 % 24, index // 60 % 60, index % 60, index % 1000),
        "time": round(blocked + send + wait + receive, 3),
        "request": {"method": method, "url": url, "httpVersion": "HTTP/1.1", "headers": request_headers,
                    "queryString": query, "cookies": [], "headersSize": -1, "bodySize": len(post["text"]) if post else 0,
                    **({"postData": post} if post else {})},
        "response": response,
        "cache": {},
        "timings": {"blocked": round(blocked, 3), "dns": -1, "connect": -1, "ssl": -1, "send": round(send, 3),
                    "wait": round(wait, 3), "receive": round(receive, 3)},
    }


LARGE = False


def main():
    global LARGE
    args = sys.argv[1:]
    if "--large-bodies" in args:
        LARGE = True
        args.remove("--large-bodies")
    seed = 2024
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2 or not args[0].isdigit():
        sys.exit("usage: make-har.py N OUT.har [--seed S] [--large-bodies]")
    count, out = int(args[0]), args[1]
    rng = random.Random(seed)
    with open(out, "w", encoding="utf-8") as handle:
        handle.write('{"log": {"version": "1.2", "creator": {"name": "make-har.py", "version": "1"},\n  "entries": [\n')
        for index in range(count):
            handle.write(("    " if index == 0 else ",\n    ") + json.dumps(entry(index, rng), ensure_ascii=False))
        handle.write("\n  ]\n}}\n")


if __name__ == "__main__":
    main()
