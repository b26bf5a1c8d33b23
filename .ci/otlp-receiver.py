#!/usr/bin/env python3
"""A small OTLP/HTTP traces receiver for Loupe's tests, decoding with the real `opentelemetry-proto` package.

    otlp-receiver.py PORT OUT.jsonl [--fail-first N] [--retry-after SECONDS] [--delay SECONDS]

Binds 127.0.0.1:PORT (0: a free port) and prints the port on its first line.

POST /v1/traces bodies are parsed as `ExportTraceServiceRequest` (application/x-protobuf); every span becomes one
JSON line in OUT.jsonl (service, scope, trace/span/parent ids in hex, name, kind, start/end nanos, attributes,
events, status). A body that does not parse gets 400 and a line {"error": ...}. The first N requests get 503 with
`Retry-After` instead (nothing recorded). GET /count answers {"requests": R, "spans": S, "refused": F}.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("out")
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--retry-after", default="1")
parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering each POST")
args = parser.parse_args()

lock = threading.Lock()
state = {"requests": 0, "spans": 0, "refused": 0}
out = open(args.out, "a", buffering=1)


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind is None:
        return None
    return getattr(any_value, kind)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        for name, text in headers:
            self.send_header(name, text)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/count":
            return self.answer(404)
        with lock:
            body = json.dumps(state).encode()
        self.answer(200, body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if args.delay:
            time.sleep(args.delay)
        if self.path != "/v1/traces":
            return self.answer(404)
        with lock:
            state["requests"] += 1
            refuse = state["refused"] < args.fail_first
            if refuse:
                state["refused"] += 1
        if refuse:
            return self.answer(503, headers=[("Retry-After", args.retry_after)])
        if self.headers.get("Content-Type") != "application/x-protobuf":
            out.write(json.dumps({"error": "content type " + str(self.headers.get("Content-Type"))}) + "\n")
            return self.answer(415)
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError as error:
            out.write(json.dumps({"error": str(error)}) + "\n")
            return self.answer(400)
        lines = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(json.dumps({
                        "service": resource.get("service.name"),
                        "resource": resource,
                        "scope": scope_spans.scope.name,
                        "scope_version": scope_spans.scope.version,
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": span.kind,
                        "start": span.start_time_unix_nano,
                        "end": span.end_time_unix_nano,
                        "attributes": attributes(span.attributes),
                        "events": [{"name": e.name, "time": e.time_unix_nano, "attributes": attributes(e.attributes)}
                                   for e in span.events],
                        "status": {"code": span.status.code, "message": span.status.message},
                        "header": self.headers.get("X-Loupe-Test"),
                    }, sort_keys=True))
        with lock:
            for line in lines:
                out.write(line + "\n")
            state["spans"] += len(lines)
        self.answer(200, ExportTraceServiceResponse().SerializeToString())


server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
print(server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
