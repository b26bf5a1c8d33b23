#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for the send budget: GET /N answers N bytes (Content-Length N) from a 1 MiB buffer.

Usage: bytes-server.py PORTFILE  -- listens on 127.0.0.1 at an ephemeral port and writes the port to PORTFILE.
"""
import http.server
import socketserver
import sys

BLOCK = bytes(i % 251 for i in range(1 << 20))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        try:
            size = int(self.path.lstrip("/"))
        except ValueError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        view = memoryview(BLOCK)
        left = size
        while left > 0:
            n = min(left, len(BLOCK))
            self.wfile.write(view[:n])
            left -= n

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
