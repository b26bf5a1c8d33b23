"""A small HTTP server for .ci/e2e-replay.sh, written apart from Loupe's own demo API.

Usage: replay-server.py PORT [NAME]. Every response carries X-Server: NAME and a fresh X-Request-Id.

GET  /items     a catalogue whose fourth item's price is the server's current price (10 at start)
GET  /volatile  a body with a fresh requestId and generatedAt on every call, and a stable value
POST /orders    creates an order (the body is echoed back with an id)
POST /price?value=N  sets the price /items reports
GET  /count     how many requests each path has had, as JSON
PUT, DELETE /accounts/N  an account updated or deleted (the body is echoed back)
GET  /slow      answers after 20 ms (a repeat that runs long enough to be stopped)
GET  /seen      the last request of each "METHOD /path": its query, body length and headers, as JSON
"""
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NAME = sys.argv[2] if len(sys.argv) > 2 else "a"
state = {"price": 10, "counts": {}, "orders": 0, "seen": {}}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Server", NAME)
        self.send_header("X-Request-Id", str(uuid.uuid4()))
        self.end_headers()
        self.wfile.write(data)

    def route(self, method):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        with lock:
            key = f"{method} {parts.path}"
            state["counts"][key] = state["counts"].get(key, 0) + 1
            if parts.path not in ("/count", "/seen"):
                state["seen"][key] = {"query": parts.query, "body_length": length,
                                      "headers": {name.lower(): value for name, value in self.headers.items()}}
            price = state["price"]
        if method == "GET" and parts.path == "/items":
            items = [{"id": i, "name": f"item {i}", "price": price if i == 4 else 10} for i in range(1, 6)]
            self.answer(200, {"items": items, "meta": {"page": 1, "server": NAME}})
        elif method == "GET" and parts.path == "/volatile":
            self.answer(200, {"requestId": str(uuid.uuid4()), "generatedAt": time.time_ns(), "value": 42})
        elif method == "POST" and parts.path == "/orders":
            with lock:
                state["orders"] += 1
                number = state["orders"]
            self.answer(201, {"order": number, "received": body})
        elif method == "POST" and parts.path == "/price":
            value = int(parse_qs(parts.query).get("value", ["10"])[0])
            with lock:
                state["price"] = value
            self.answer(200, {"price": value})
        elif method in ("PUT", "DELETE") and parts.path.startswith("/accounts/"):
            self.answer(200, {"account": parts.path.rsplit("/", 1)[1], "method": method, "received": body})
        elif method == "GET" and parts.path == "/slow":
            time.sleep(0.02)
            self.answer(200, {"slow": True})
        elif method == "GET" and parts.path == "/seen":
            with lock:
                seen = dict(state["seen"])
            self.answer(200, seen)
        elif method == "GET" and parts.path == "/count":
            with lock:
                counts = dict(state["counts"])
            self.answer(200, counts)
        else:
            self.answer(404, {"error": "not found"})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def do_DELETE(self):
        self.route("DELETE")


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
