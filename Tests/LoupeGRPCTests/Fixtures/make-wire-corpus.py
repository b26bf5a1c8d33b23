#!/usr/bin/env python3
"""Writes wire-corpus.json beside it: protobuf wire-format messages as hex, each with what
`python -m grpc_tools.protoc --decode_raw` prints for it (null when protoc refuses it).

    .ci/venv/bin/python Tests/LoupeGRPCTests/Fixtures/make-wire-corpus.py

The Swift decoder's tests compare against this file always, and against protoc itself when LOUPE_CI_PYTHON is set.
"""
import json
import os
import subprocess
import sys


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(number, wire):
    return varint(number << 3 | wire)


def ld(number, payload):
    return tag(number, 2) + varint(len(payload)) + payload


def vi(number, value):
    return tag(number, 0) + varint(value)


def nest(depth):
    inner = vi(1, 7)
    for _ in range(depth):
        inner = ld(1, inner)
    return inner


corpus = [
    vi(1, 150),
    ld(2, b"testing"),
    ld(3, vi(1, 150)),
    vi(1, -1),  # a negative int32/int64: ten bytes
    vi(2, -123456789),
    ld(4, b"".join(varint(v) for v in [3, 270, 86942])),  # packed varints
    ld(4, b"".join(varint(v) for v in [1, 2, 3])),  # packed that reads as a message
    tag(5, 5) + bytes.fromhex("0000803f") + tag(6, 1) + bytes.fromhex("000000000000f03f"),
    tag(7, 3) + vi(1, 1) + ld(2, b"in a group") + tag(7, 4),  # a group
    ld(8, tag(9, 3) + vi(1, 5) + tag(9, 4)),  # a group in a nested message
    ld(1, b'quote " backslash \\ newline \n tab \t apostrophe \' bell \x07 del \x7f'),
    ld(1, "héllo ✓".encode()),
    ld(1, b""),
    ld(1, b"ab"),
    vi(536870911, 1),  # the largest field number
    ld(1, ld(2, ld(3, b"deep")) + vi(4, 0)),
    nest(9),
    nest(12),
    vi(1, 1) + ld(2, vi(1, 2) + ld(2, b"x")) + vi(3, 3),
    bytes.fromhex("08"),  # truncated: no value
    bytes.fromhex("12 05 61 62"),  # length past the end
    bytes.fromhex("00 01"),  # field number 0
    bytes.fromhex("0f 01"),  # wire type 7
    tag(7, 3) + vi(1, 1),  # a group never closed
    tag(1, 4),  # an end-group tag alone
    bytes.fromhex("08 ff ff ff ff ff ff ff ff ff ff 01"),  # a varint of eleven bytes
]


def decode_raw(data):
    done = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "--decode_raw"], input=data, capture_output=True)
    return done.stdout.decode() if done.returncode == 0 else None


entries = [{"hex": data.hex(), "text": decode_raw(data)} for data in corpus]
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire-corpus.json")
with open(path, "w") as f:
    json.dump(entries, f, indent=1, ensure_ascii=False)
    f.write("\n")
