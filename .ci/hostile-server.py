"""A small HTTP server for .ci/e2e-hostile.sh, written apart from Loupe's own demo API.

/echo echoes the request (method, path with query, headers, body) as JSON; /escape answers with terminal control
sequences in its body and a header; /trickle sends one byte every 100 ms (for 60 s at most); /truncated promises
1000 bytes and closes after 100.

Compliant servers Loupe must work with (issue 26): /gzip and /deflate answer a compressed body WITH Content-Length,
as any server with compression on does; /json2k a 2 KB repetitive JSON body gzipped; /bomb/MB a gzip bomb of MB
megabytes of zeros; /status/204 and /status/304 (and HEAD of any path) carry a Content-Length but no body, as RFC
9110 says; /cycle/a and /cycle/b redirect to each other; /hops/N redirects N times before a 200. And odd ones:
/gzip-gzip (two codings named, so no client decodes it), /br (a coding AHC does not decode), /gzip-cut (chunked
gzip that stops mid-stream), /early-hints (a 103 before the 200).
"""
import gzip
import json
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode("utf-8", "replace") if length else ""

    def answer(self, status, payload, content_type="application/json", extra=()):
        data = payload.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def bare(self, status, headers):
        """A head only: what a HEAD, a 204 or a 304 gets, whatever its Content-Length says."""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def compressed(self, data, coding):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self):
        self.bare(200, [("Content-Type", "text/plain"), ("Content-Length", "6")])

    def route(self):
        body = self.body()
        path = self.path.split("?")[0]
        if path in ("/gzip", "/deflate"):
            plain = json.dumps({"items": [{"id": i, "name": "item %d" % i} for i in range(8)]}).encode()
            self.compressed(gzip.compress(plain) if path == "/gzip" else zlib.compress(plain), path[1:])
        elif path == "/json2k":
            plain = json.dumps([{"id": 1, "ok": True, "tags": ["a", "b"]}] * 50).encode()
            self.compressed(gzip.compress(plain, 9), "gzip")
        elif path.startswith("/bomb/"):
            self.compressed(bomb(int(path.split("/")[2])), "gzip")
        elif path == "/gzip-gzip":
            self.compressed(gzip.compress(gzip.compress(b'{"twice": true}')), "gzip, gzip")
        elif path == "/br":
            self.compressed(b"\x0b\x02\x80not really brotli", "br")
        elif path == "/gzip-cut":
            data = gzip.compress(b"z" * 100000 + bytes(range(256)) * 400)
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            half = data[: len(data) // 2]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(half), half))
            self.wfile.flush()
            self.close_connection = True
        elif path == "/early-hints":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
            self.answer(200, '{"hinted": true}')
        elif path.startswith("/status/"):
            self.bare(int(path.split("/")[2]), [("Content-Type", "text/plain"), ("Content-Length", "6")])
        elif path.startswith("/cycle/"):
            self.bare(302, [("Location", "/cycle/b" if path == "/cycle/a" else "/cycle/a"), ("Content-Length", "0")])
        elif path.startswith("/hops/"):
            left = int(path.split("/")[2])
            if left > 0:
                self.bare(302, [("Location", "/hops/%d" % (left - 1)), ("Content-Length", "0")])
            else:
                self.answer(200, '{"arrived": true}')
        elif path == "/echo":
            echoed = {"method": self.command, "url": self.path, "headers": dict(self.headers.items()), "body": body}
            self.answer(200, json.dumps(echoed), extra=[("X-Echo-Auth", self.headers.get("Authorization", ""))])
        elif path == "/escape":
            self.answer(200, "before\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x9b\x08after\n", "text/plain",
                        extra=[("X-Note", "a\x1b[1mb")])
        elif path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            deadline = time.time() + 60
            try:
                while time.time() < deadline:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True
        elif path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"y" * 100)
            self.wfile.flush()
            self.close_connection = True
        else:
            self.answer(404, '{"error":"not found"}')

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = route


BOMBS = {}


def bomb(megabytes):
    """MEGABYTES MB of zeros gzipped (about 1,000:1), made once per size."""
    if megabytes not in BOMBS:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        zeros = bytes(1 << 20)
        BOMBS[megabytes] = b"".join([packer.compress(zeros) for _ in range(megabytes)] + [packer.flush()])
    return BOMBS[megabytes]


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
