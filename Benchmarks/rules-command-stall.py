"""A viewer on `loupe+tcp://` that welcomes one linked app with rules, acknowledges its exchanges, and after
`--after` seconds sends two rule commands of 1,000 never-matching rules each (issue 44, item 3). Prints the time
the commands were sent, then keeps acknowledging until killed."""
import json
import socket
import struct
import sys
import threading
import time

port, secret, after, out = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]


def frame(kind, payload):
    return struct.pack(">IB", len(payload) + 1, kind) + payload


def rules(prefix):
    return "".join(f'[[rule]]\nname = "{prefix} {i}"\nmatch = "~u never-{prefix}-{i}"\nfault = {{ status = 503 }}\n\n'
                   for i in range(1000))


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(1)
connection, _ = server.accept()
buffer = b""


def read_frame():
    global buffer
    while True:
        if len(buffer) >= 4:
            (length,) = struct.unpack(">I", buffer[:4])
            if len(buffer) >= 4 + length:
                kind, payload = buffer[4], buffer[5:4 + length]
                buffer = buffer[4 + length:]
                return kind, payload
        chunk = connection.recv(1 << 20)
        if not chunk:
            sys.exit(0)
        buffer += chunk


kind, hello = read_frame()
assert kind == 0x01 and json.loads(hello)["secret"] == secret
connection.sendall(frame(0x41, json.dumps({"loupe": "bench", "protocol": 1, "rules": True}, sort_keys=True).encode()))
lock = threading.Lock()


def commands():
    time.sleep(after)
    sent = time.time()
    with lock:
        for prefix in ("a", "b"):
            connection.sendall(frame(0x44, json.dumps({"op": "put", "rules": rules(prefix)}, sort_keys=True).encode()))
    with open(out, "w") as file:
        file.write(f"{sent}\n")


threading.Thread(target=commands, daemon=True).start()
while True:
    kind, _ = read_frame()
    if kind == 0x02:
        with lock:
            connection.sendall(frame(0x42, struct.pack(">Q", 1)))
