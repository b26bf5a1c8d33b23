#!/usr/bin/env python3
"""The contract budget's corpus: a 200-operation OpenAPI 3.1 document and a HAR of N exchanges against it.

usage: contract-corpus.py DOC_OUT HAR_OUT N

100 resources, each with `GET /r{i}/items` (a page of 5 items) and `GET /r{i}/items/{id}` (one item): 200
operations, each with its own component schema ($ref'd, with a shared `Owner`), nullable members, an enum,
date-time and uuid formats. Exchanges cycle over the operations; one in 50 has a drifting body (a null price),
so the report has something to say. Bodies are ~400 bytes (one item) and ~2 KB (a page).
"""
import json
import sys
import uuid

doc_out, har_out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
resources = 100

schemas = {"Owner": {"type": "object", "required": ["id", "name"], "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": ["string", "null"]}}}}
paths = {}
for i in range(resources):
    schemas[f"Item{i}"] = {
        "type": "object", "required": ["id", "sku", "name", "price", "status", "createdAt"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "integer"}, "sku": {"type": "string", "format": "uuid"}, "name": {"type": "string"},
            "price": {"type": "number", "minimum": 0}, "discount": {"type": ["number", "null"]},
            "status": {"type": "string", "enum": ["draft", "active", "retired"]},
            "createdAt": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "owner": {"$ref": "#/components/schemas/Owner"},
        }}
    item = {"$ref": f"#/components/schemas/Item{i}"}
    problem = {"description": "A problem.", "content": {"application/json": {"schema": {
        "type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}}}}
    paths[f"/r{i}/items"] = {"get": {"operationId": f"listItems{i}", "parameters": [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}}],
        "responses": {"200": {"description": "A page.", "content": {"application/json": {"schema": {
            "type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": item},
                                                                   "next": {"type": ["string", "null"]}}}}}},
            "default": problem}}}
    paths[f"/r{i}/items/{{id}}"] = {"get": {"operationId": f"getItem{i}", "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "One item.", "content": {"application/json": {"schema": item}}},
                      "default": problem}}}

document = {"openapi": "3.1.0", "info": {"title": "Contract budget", "version": "1"},
            "servers": [{"url": "https://api.example.com/v1"}], "paths": paths, "components": {"schemas": schemas}}
with open(doc_out, "w") as f:
    json.dump(document, f)


def item(n, drift=False):
    return {"id": n, "sku": str(uuid.UUID(int=n)), "name": f"Item number {n}", "price": None if drift else 19.99,
            "discount": None if n % 2 else 0.1, "status": "active", "createdAt": "2026-12-06T17:11:07.123Z",
            "tags": ["blue", "large"], "owner": {"id": n % 7, "name": "Ada", "email": None}}


with open(har_out, "w") as f:
    f.write('{"log": {"version": "1.2", "creator": {"name": "contract-corpus", "version": "1"}, "entries": [\n')
    for n in range(count):
        resource, one = (n // 2) % resources, n % 2 == 1
        drift = n % 50 == 49
        if one:
            url, body = f"https://api.example.com/v1/r{resource}/items/{n}", item(n, drift)
        else:
            url, body = f"https://api.example.com/v1/r{resource}/items?limit=5", {
                "items": [item(n + k, drift and k == 3) for k in range(5)], "next": None}
        text = json.dumps(body)
        entry = {"startedDateTime": "2026-12-06T17:00:00.000Z", "time": 1,
                 "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                             "cookies": [], "headersSize": -1, "bodySize": 0},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                              "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                              "content": {"size": len(text), "mimeType": "application/json", "text": text},
                              "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
                 "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
        f.write(("," if n else "") + json.dumps(entry) + "\n")
    f.write("]}}\n")
