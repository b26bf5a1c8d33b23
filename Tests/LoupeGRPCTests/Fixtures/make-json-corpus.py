#!/usr/bin/env python3
"""Writes shapes.pb (loupe_shapes.proto's FileDescriptorSet, `protoc --descriptor_set_out --include_imports`) and
json-corpus.json beside it: messages of loupe_shapes.proto as hex, each with its type, the JSON protobuf's own
`json_format.MessageToJson` writes for it (the canonical JSON mapping), and what `protoc --decode=TYPE` prints.

    .ci/venv/bin/python Tests/LoupeGRPCTests/Fixtures/make-json-corpus.py

The Swift decoder by name (LoupeProtobuf's ProtobufJSON) is compared with this file in ProtobufJSONTests.
"""
import importlib
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", HERE, "-I", include_path(),
                    "--include_imports", "--descriptor_set_out=" + os.path.join(HERE, "shapes.pb"),
                    "--python_out=" + out, "loupe_shapes.proto"], check=True)
    sys.path.insert(0, out)
    shapes = importlib.import_module("loupe_shapes_pb2")
    from google.protobuf import json_format, struct_pb2, timestamp_pb2, duration_pb2

    messages = []
    s = shapes.Scalars
    messages.append(s())
    messages.append(s(f_double=1.5, f_float=0.1, f_int64=-9007199254740993, f_uint64=18446744073709551615,
                      f_int32=-1, f_fixed64=1 << 63, f_fixed32=4294967295, f_bool=True, f_string="héllo \"q\"\n\u0001",
                      f_bytes=b"\x00\xff\x10abc", f_uint32=4294967295, f_color=shapes.BLUE, f_sfixed32=-2147483648,
                      f_sfixed64=-9223372036854775808, f_sint32=-2147483648, f_sint64=-9223372036854775808,
                      f_optional=0))
    messages.append(s(f_double=float("nan"), f_float=float("inf")))
    messages.append(s(f_double=-float("inf"), f_float=-0.5, f_color=7, f_string="日本", f_bytes=b"ab"))
    messages.append(s(f_double=1e300, f_float=3.4028234663852886e38, f_int32=2147483647, f_int64=9223372036854775807))
    messages.append(s(f_double=1e-7, f_float=1e-7, f_uint64=1))

    o = shapes.Order
    line = o.Line
    messages.append(o(order_id="A-1", lines=[line(sku="x", quantity=2, colors=[shapes.RED, shapes.BLUE]), line()],
                      packed_numbers=[1, -1, 0, 300], big_numbers=[0, -5, 1 << 40], prices=[0.25, -1.0, 0.0],
                      tags=["a", "", "c"], totals={"eur": -3, "usd": 10}, lines_by_number={-7: line(sku="n"), 0: line()},
                      flags={True: "yes", False: ""}, card="4111", status=shapes.GREEN,
                      history=[shapes.COLOR_UNSPECIFIED, 99, shapes.RED]))
    messages.append(o(account=0))
    messages.append(o(voucher=line(sku="v")))
    nested = o(order_id="root")
    inner = nested
    for depth in range(20):
        inner.parent.order_id = "level %d" % depth
        inner = inner.parent
    messages.append(nested)

    k = shapes.Known
    details = struct_pb2.Struct()
    details.update({"name": "x", "n": 1.5, "ok": True, "none": None, "list": [1, "two", {"three": 3}], "obj": {}})
    loose = struct_pb2.Value()
    loose.list_value.extend([None, False, 2.5])
    packed = k().packed
    packed.Pack(shapes.Order(order_id="inside", totals={"a": 1}))
    messages.append(k(at=timestamp_pb2.Timestamp(seconds=1700000000, nanos=123000000),
                      took=duration_pb2.Duration(seconds=-3, nanos=-500), big={"value": -4}, name={"value": ""},
                      flag={"value": True}, details=details, loose=loose, mask={"paths": ["order_id", "lines.sku"]},
                      packed=packed, nothing={}, blob={"value": b"\x01\x02"}, ratio={"value": 0.0}))
    messages.append(k(at=timestamp_pb2.Timestamp(seconds=-62135596800), took=duration_pb2.Duration(seconds=1, nanos=1000)))
    messages.append(k(at=timestamp_pb2.Timestamp(seconds=253402300799, nanos=999999999),
                      took=duration_pb2.Duration(seconds=0, nanos=20000000)))
    wrapped = k()
    wrapped.packed.Pack(duration_pb2.Duration(seconds=5))
    messages.append(wrapped)

    entries = []
    for message in messages:
        data = message.SerializeToString()
        name = message.DESCRIPTOR.full_name
        text = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", HERE, "-I", include_path(),
                               "--decode=" + name, "loupe_shapes.proto"], input=data, capture_output=True, cwd=HERE,
                              check=True).stdout.decode()
        entries.append({"type": name, "hex": data.hex(), "json": json.loads(json_format.MessageToJson(message)),
                        "text": text})
    with open(os.path.join(HERE, "json-corpus.json"), "w") as f:
        json.dump(entries, f, indent=1, ensure_ascii=False, allow_nan=False)
        f.write("\n")


def include_path():
    import grpc_tools
    return os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")


if __name__ == "__main__":
    main()
