"""A small HTTP server for .ci/e2e-hostile.sh, written apart from Loupe's own demo API.

/echo echoes the request (method, path with query, headers, body) as JSON; /escape answers with terminal control
sequences in its body and a header; /trickle sends one byte every 100 ms (for 60 s at most); /truncated promises
1000 bytes and closes after 100.
"""
import json
import sys
import time
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

    def route(self):
        body = self.body()
        path = self.path.split("?")[0]
        if path == "/echo":
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


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
