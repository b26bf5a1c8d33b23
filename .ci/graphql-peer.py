#!/usr/bin/env python3
"""A real GraphQL server (graphql-core, PyPI) on 127.0.0.1 and a client of it: usage: graphql-peer.py OUT.har

Serves POST /graphql (one request object, or a batch array) and GET /graphql?query=…, with Apollo-style
persisted queries (a sha256Hash the server knows), then sends it a fixed set of requests over HTTP — named and
anonymous queries, a mutation, a batch, a persisted query, a GET, a query whose resolver fails (`errors` in a 200)
— and writes what went over the wire as a HAR 1.2 file for `loupe import`. Prints each operation sent.
"""
import hashlib
import json
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit, quote

from graphql import build_schema, graphql_sync

SCHEMA = build_schema("""
  type User { id: ID!, name: String! }
  type Query { user(id: ID!): User, users: [User!]!, boom: String }
  type Mutation { addUser(name: String!): User! }
""")
USERS = [{"id": "1", "name": "Ada"}, {"id": "2", "name": "Bo"}]


class Root:
    def user(self, info, id):
        return next((u for u in USERS if u["id"] == id), None)

    def users(self, info):
        return USERS

    def boom(self, info):
        raise ValueError("the boom resolver failed")

    def addUser(self, info, name):
        user = {"id": str(len(USERS) + 1), "name": name}
        USERS.append(user)
        return user


PERSISTED = {}


def execute(request):
    query = request.get("query")
    persisted = (request.get("extensions") or {}).get("persistedQuery")
    if query is None and persisted:
        query = PERSISTED.get(persisted.get("sha256Hash"))
        if query is None:
            return {"errors": [{"message": "PersistedQueryNotFound"}]}
    result = graphql_sync(SCHEMA, query, root_value=Root(), variable_values=request.get("variables"),
                          operation_name=request.get("operationName"))
    out = {"data": result.data}
    if result.errors:
        out["errors"] = [{"message": e.message} for e in result.errors]
    return out


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.answer([execute(r) for r in request] if isinstance(request, list) else execute(request))

    def do_GET(self):
        params = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        self.answer(execute(params))


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/graphql"
    persisted = "query GetUsers { users { id name } }"
    digest = hashlib.sha256(persisted.encode()).hexdigest()
    PERSISTED[digest] = persisted
    posts = [
        {"query": "query GetUser($id: ID!) { user(id: $id) { name } }", "variables": {"id": "1"}},
        {"query": "query GetUser($id: ID!) { user(id: $id) { name } }", "variables": {"id": "2"}},
        {"query": "mutation AddUser { addUser(name: \"Cy\") { id } }"},
        {"query": "{ users { id } }"},
        [{"query": "query A { users { id } }"}, {"query": "mutation B { addUser(name: \"Di\") { id } }"}],
        {"operationName": "GetUsers", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": digest}}},
        {"query": "query Boom { boom }"},
    ]
    entries = []

    def record(method, target, body):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(target, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            status = response.status
        entry = {"startedDateTime": "2026-12-06T17:00:00.000Z", "time": 1,
                 "request": {"method": method, "url": target, "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
                             "headers": [{"name": "Content-Type", "value": "application/json"}] if data else [],
                             "headersSize": -1, "bodySize": len(data or b"")},
                 "response": {"status": status, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                              "headers": [{"name": "Content-Type", "value": "application/json"}],
                              "content": {"size": len(text), "mimeType": "application/json", "text": text},
                              "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
                 "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
        if data:
            entry["request"]["postData"] = {"mimeType": "application/json", "text": data.decode()}
        entries.append(entry)
        print(f"{method} {json.dumps(body)[:70] if body else target[-60:]} -> {text[:80]}")

    for body in posts:
        record("POST", url, body)
    record("GET", url + "?query=" + quote("query Me { user(id: \"1\") { id } }") + "&operationName=Me", None)
    with open(sys.argv[1], "w") as f:
        json.dump({"log": {"version": "1.2", "creator": {"name": "graphql-peer", "version": "1"}, "entries": entries}}, f)
    server.shutdown()


if __name__ == "__main__":
    main()
