#!/usr/bin/env python3
"""A gRPC server for Loupe's tests on Python's grpcio, serving Tests/LoupeGRPCTests/Fixtures/loupe_test.proto.

    grpc-server.py [PORT]

Binds 127.0.0.1:PORT (0 or none: a free port) and prints the port on its first line. The stubs are generated at
start with grpcio-tools into a temporary folder. Every call answers initial metadata `x-served-by: grpcio` and a
trailer `x-echo-authorization` carrying the request's `authorization` metadata back (so a test can look for that
secret in a recording). `Flaky` fails with UNAVAILABLE the first time it sees a text, then answers OK.
"""
import os
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc
from grpc_tools import protoc

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, "..", "Tests", "LoupeGRPCTests", "Fixtures")
out = tempfile.mkdtemp(prefix="loupe-grpc-")
if protoc.main(["protoc", f"-I{fixtures}", f"--python_out={out}", f"--grpc_python_out={out}", "loupe_test.proto"]) != 0:
    sys.exit("grpc-server.py: protoc failed")
sys.path.insert(0, out)
import loupe_test_pb2 as pb  # noqa: E402
import loupe_test_pb2_grpc as rpc  # noqa: E402

seen = set()
lock = threading.Lock()


def metadata(context):
    request = dict(context.invocation_metadata())
    context.send_initial_metadata((("x-served-by", "grpcio"),))
    context.set_trailing_metadata((("x-echo-authorization", request.get("authorization", "")),))


class Echo(rpc.EchoServicer):
    def Unary(self, request, context):
        metadata(context)
        return pb.Pong(text=request.text, count=request.number)

    def Collect(self, requests, context):
        metadata(context)
        texts = [r.text for r in requests]
        return pb.Pong(text=",".join(texts), count=len(texts))

    def Expand(self, request, context):
        metadata(context)
        for i in range(request.number):
            yield pb.Pong(text=f"{request.text}-{i}", count=i)

    def Chat(self, requests, context):
        metadata(context)
        for r in requests:
            yield pb.Pong(text=r.text.upper(), count=r.number)

    def Flaky(self, request, context):
        with lock:
            first = request.text not in seen
            seen.add(request.text)
        if first:
            context.abort(grpc.StatusCode.UNAVAILABLE, "warming up")
        metadata(context)
        return pb.Pong(text=request.text, count=2)

    def Slow(self, request, context):
        metadata(context)
        time.sleep(min(request.number, 10_000) / 1000)
        return pb.Pong(text=request.text)


server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
rpc.add_EchoServicer_to_server(Echo(), server)
port = server.add_insecure_port(f"127.0.0.1:{int(sys.argv[1]) if len(sys.argv) > 1 else 0}")
server.start()
print(port, flush=True)
server.wait_for_termination()
