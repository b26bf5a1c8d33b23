"""Writes golden-request.hex: the ExportTraceServiceRequest OTLPEncodingTests' exchange must encode to, built
field by field with the real opentelemetry-proto classes (not with Loupe's writer), then serialized by protobuf.

    .ci/venv/bin/python Tests/LoupeOTLPTests/Fixtures/golden-request.py
"""
import os
import uuid

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

exchange_id = uuid.UUID("00112233-4455-6677-8899-AABBCCDDEEFF")
trace_id = exchange_id.bytes
low = int.from_bytes(trace_id[8:], "big")


def nanos(seconds):
    return int(round(seconds * 1e9))


def key_value(key, value):
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    if isinstance(value, float):
        return KeyValue(key=key, value=AnyValue(double_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def add_span(scope_spans, span_id, parent, name, start, end, attributes):
    span = scope_spans.spans.add(
        trace_id=trace_id, span_id=span_id.to_bytes(8, "big"), name=name, kind=Span.SPAN_KIND_CLIENT,
        start_time_unix_nano=nanos(start), end_time_unix_nano=nanos(end))
    if parent is not None:
        span.parent_span_id = parent.to_bytes(8, "big")
    for key in sorted(attributes):  # Loupe writes attributes in key order
        span.attributes.append(key_value(key, attributes[key]))
    return span


request = ExportTraceServiceRequest()
resource_spans = request.resource_spans.add()
resource_spans.resource.attributes.append(key_value("service.name", "loupe"))
scope_spans = resource_spans.scope_spans.add()
scope_spans.scope.name = "Loupe"
scope_spans.scope.version = "0.1.0"
common = {
    "http.request.method": "GET", "url.full": "http://127.0.0.1:8080/users/1", "url.scheme": "http",
    "server.address": "127.0.0.1", "server.port": 8080, "loupe.exchange_id": str(exchange_id).upper(),
}
add_span(scope_spans, low, None, "getUser", 1700000000.0, 1700000000.25, {
    **common, "http.response.status_code": 200, "loupe.operation": "getUser", "loupe.outcome": "success",
    "loupe.attempts": 2})
first = add_span(scope_spans, low + 1, low, "GET", 1700000000.0, 1700000000.125, {
    **common, "http.response.status_code": 503, "error.type": "503", "loupe.attempt": 1})
first.events.add(time_unix_nano=nanos(1700000000.0625), name="loupe.request_sent")
first.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message="HTTP 503"))
add_span(scope_spans, low + 2, low, "GET", 1700000000.1875, 1700000000.25, {
    **common, "http.response.status_code": 200, "loupe.attempt": 2, "http.request.resend_count": 1,
    "loupe.retry.reason": "HTTP 503", "loupe.retry.delay_ms": 62.5})

with open(os.path.join(os.path.dirname(__file__), "golden-request.hex"), "w") as out:
    out.write(request.SerializeToString().hex() + "\n")
