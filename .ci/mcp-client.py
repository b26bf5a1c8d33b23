"""An MCP client for .ci/e2e-mcp.sh: the official Python SDK (`mcp`, PyPI), written apart from Loupe.

Usage: mcp-client.py LOUPE STORE MODE [ARGS...]
  read               every read tool and resource; prints one JSON object of what they answered
  call TOOL JSON     one tool call with the given arguments (extra server flags in $MCP_SERVER_FLAGS);
                     prints {"isError": …, "text": …}, or {"error": {"code": …, "message": …}} for a JSON-RPC error
  raw-call TOOL JSON the same without the SDK, over plain pipes, the server left in this process's session:
                     the SDK starts servers in a session of their own (no terminal), which
                     --approve-in-terminal needs
  http URL SECRET    the SDK's streamable-HTTP client against a running `loupe mcp --http` (STORE unused):
                     tools/list, list_exchanges, get_exchange, stats and a resource; prints them as one JSON object
Exit 0 when the session ran, 1 when the protocol failed.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError


def text_of(result):
    return "\n".join(part.text for part in result.content if getattr(part, "type", "") == "text")


def raw_call(loupe, store, flags, tool, arguments):
    import subprocess
    proc = subprocess.Popen([loupe, "mcp", store, *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    def ask(message):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
    ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    json.loads(proc.stdout.readline())
    ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
    answer = json.loads(proc.stdout.readline())
    proc.stdin.close()
    proc.wait(timeout=30)
    result = answer["result"]
    print(json.dumps({"isError": bool(result.get("isError")), "text": "".join(c["text"] for c in result["content"])}))


async def over_http(url, secret):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer " + secret}, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                listed = json.loads(text_of(await session.call_tool("list_exchanges", {"limit": 1000})))
                first = listed["exchanges"][-1]["sequence"]
                got = json.loads(text_of(await session.call_tool("get_exchange", {"id": "#%d" % first, "max_body_bytes": 1048576})))
                stats = json.loads(text_of(await session.call_tool("stats", {})))
                bad = await session.call_tool("list_exchanges", {"limit": 0})
                summary = await session.read_resource("loupe://summary")
                print(json.dumps({"server": init.server_info.name, "version": init.protocol_version,
                                  "tools": sorted(t.name for t in tools.tools), "list": listed, "first": first, "get": got,
                                  "stats": stats, "bad": {"isError": bad.is_error, "text": text_of(bad)},
                                  "summary": json.loads(summary.contents[0].text)}))


async def main():
    loupe, store, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "raw-call":
        return raw_call(loupe, store, os.environ.get("MCP_SERVER_FLAGS", "").split(), sys.argv[4], json.loads(sys.argv[5]))
    if mode == "http":
        return await over_http(sys.argv[4], sys.argv[5])
    flags = os.environ.get("MCP_SERVER_FLAGS", "").split()
    server = StdioServerParameters(command=loupe, args=["mcp", store, *flags])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            if mode == "read":
                tools = await session.list_tools()
                out = {"server": init.server_info.name, "tools": sorted(t.name for t in tools.tools),
                       "schemas": {t.name: t.input_schema for t in tools.tools}}
                listed = await session.call_tool("list_exchanges", {"limit": 1000})
                out["list"] = json.loads(text_of(listed))
                newest = out["list"]["exchanges"][0]["sequence"]
                out["get"] = {}
                for exchange in out["list"]["exchanges"][:25]:
                    got = await session.call_tool("get_exchange", {"id": "#%d" % exchange["sequence"], "max_body_bytes": 1048576})
                    out["get"][str(exchange["sequence"])] = json.loads(text_of(got))
                cut = await session.call_tool("get_exchange", {"id": str(newest), "max_body_bytes": 3})
                out["cut"] = json.loads(text_of(cut))
                out["stats"] = json.loads(text_of(await session.call_tool("stats", {})))
                out["errors"] = json.loads(text_of(await session.call_tool("list_exchanges", {"filter": "~e", "limit": 1000})))
                out["search"] = json.loads(text_of(await session.call_tool("search", {"text": "/orders", "limit": 1000})))
                out["explain"] = text_of(await session.call_tool("explain_exchange", {"id": "#1"}))
                out["rules"] = text_of(await session.call_tool("list_rules", {}))
                bad = await session.call_tool("list_exchanges", {"limit": "lots"})
                out["bad"] = {"isError": bad.is_error, "text": text_of(bad)}
                badfilter = await session.call_tool("list_exchanges", {"filter": "~c"})
                out["badfilter"] = {"isError": badfilter.is_error, "text": text_of(badfilter)}
                action = await session.call_tool("replay_exchange", {"id": "#1"})
                out["action"] = {"isError": action.is_error, "text": text_of(action)}
                resources = await session.list_resources()
                out["resources"] = [str(r.uri) for r in resources.resources]
                summary = await session.read_resource("loupe://summary")
                out["summary"] = json.loads(summary.contents[0].text)
                one = await session.read_resource(str(resources.resources[1].uri))
                out["resource"] = json.loads(one.contents[0].text)
                print(json.dumps(out))
            elif mode == "call":
                tool, arguments = sys.argv[4], json.loads(sys.argv[5])
                try:
                    result = await session.call_tool(tool, arguments)
                except MCPError as error:  # a JSON-RPC error answer, e.g. -32602 for a path that is no regular file
                    print(json.dumps({"error": {"code": error.code, "message": error.message}}))
                    return
                print(json.dumps({"isError": bool(result.is_error), "text": text_of(result)}))
            else:
                raise SystemExit("unknown mode " + mode)


asyncio.run(main())
