#!/usr/bin/env bash
# `loupe mcp` on the real binary, driven by the official Python MCP SDK (.ci/mcp-client.py) and by raw hostile
# JSON-RPC (.ci/mcp-hostile.py): every read tool answers what `loupe list/show/stats/compare/check --json` print; actions are
# refused without --allow-actions, and with it wait for a person at the terminal (tmux) — a refused replay sends
# nothing to a counting server, an approved one sends exactly one request; bad input gets one line and exit 2.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
py="${LOUPE_CI_PYTHON:-python3}"
work=$(mktemp -d)
session="loupe-mcp-$$"
pids=()
# Each tmux session gets a server (socket) of its own: a new session right after `kill-server` on the same socket can
# meet the old server still going away ("server exited unexpectedly") on a loaded machine.
sock="$work/tmux-0.sock"
tm() { tmux -S "$sock" -f /dev/null "$@"; }
cleanup() {
  for s in "$work"/tmux-*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-MCP FAILED: $*"; [ -f "$work/out.txt" ] && head -c 3000 "$work/out.txt"; [ -f "$work/err.txt" ] && head -c 2000 "$work/err.txt"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "server on $1 never came up"; }
count() { python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$1/count')).get(sys.argv[1], 0))" "$2"; }

store="$work/demo.sqlite"
"$loupe" demo --headless --duration 4 --store "$store" >/dev/null 2>&1 || fail "recording the demo store"
cp "$store" "$work/before.sqlite"

echo "-- bad input: one line, exit 2"
timeout 10 "$loupe" mcp "$store" --approve-in-terminal >"$work/out.txt" 2>"$work/err.txt" </dev/null; code=$?
[ "$code" -eq 2 ] && [ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q '^loupe: ' "$work/err.txt" \
  || fail "--approve-in-terminal without --allow-actions: exit $code"
ok "--approve-in-terminal without --allow-actions: $(cat "$work/err.txt")"
timeout 10 "$loupe" mcp "$work/missing/none.sqlite" >"$work/out.txt" 2>"$work/err.txt" </dev/null; code=$?
[ "$code" -eq 2 ] && [ "$(wc -l <"$work/err.txt")" -eq 1 ] || fail "a missing store: exit $code"
ok "a missing store: $(cat "$work/err.txt")"

echo "-- the official Python SDK reads every tool"
timeout 120 "$py" "$here/mcp-client.py" "$loupe" "$store" read >"$work/read.json" 2>"$work/err.txt" || fail "mcp-client read"
"$loupe" list "$store" --json --limit 1000 >"$work/list.json" || fail "loupe list --json"
"$loupe" stats "$store" --json >"$work/stats.json" || fail "loupe stats --json"
for sequence in $("$py" -c 'import json,sys; print(" ".join(str(e["sequence"]) for e in json.load(open(sys.argv[1]))["list"]["exchanges"][:25]))' "$work/read.json"); do
  "$loupe" show "$store" "#$sequence" --json >"$work/show-$sequence.json" || fail "loupe show #$sequence"
done
"$py" - "$work" <<'PY' || fail "MCP answers differ from the CLI's JSON"
import json, sys, glob, os
work = sys.argv[1]
read = json.load(open(os.path.join(work, "read.json")))
def check(condition, what):
    if not condition:
        print("mismatch:", what); sys.exit(1)
check(read["tools"] == sorted(["check_contract", "compare", "explain_exchange", "get_exchange", "list_exchanges", "list_rules", "search", "stats"]),
      "read-only tools listed, no actions: %s" % read["tools"])
check(all(s.get("type") == "object" for s in read["schemas"].values()), "every tool has an object schema")
cli = json.load(open(os.path.join(work, "list.json")))
check(read["list"]["exchanges"] == list(reversed(cli)), "list_exchanges == loupe list --json, newest first")
for path in glob.glob(os.path.join(work, "show-*.json")):
    sequence = path.rsplit("-", 1)[1].split(".")[0]
    check(read["get"][sequence] == json.load(open(path)), "get_exchange #%s == loupe show --json" % sequence)
stats = json.load(open(os.path.join(work, "stats.json")))
def steady(report):  # a rate per second is over "now", which moves between the two runs
    for row in [report["all"]] + report["operations"] + report["hosts"]:
        row.pop("ratePerSecond", None)
    return report
check(steady(read["stats"]) == steady(stats), "stats == loupe stats --json")
check(read["summary"] == read["stats"] or steady(read["summary"]) == steady(stats), "loupe://summary is the stats")
check(all(e["outcome"] != "success" for e in read["errors"]["exchanges"]) and read["errors"]["exchanges"], "~e lists errors")
check(read["search"]["exchanges"] and all("/orders" in e["url"] for e in read["search"]["exchanges"]), "search finds /orders")
check(read["explain"].startswith("#1: ") and "Attempt 1" in read["explain"], "explain_exchange tells #1")
check("No rules file" in read["rules"], "list_rules without a rules file says so")
check(read["bad"]["isError"] and "limit" in read["bad"]["text"], "a bad limit is a tool error naming it")
check(read["badfilter"]["isError"] and "bad filter" in read["badfilter"]["text"], "a bad filter is a tool error")
check(read["action"]["isError"] and "--allow-actions" in read["action"]["text"], "replay_exchange refused without --allow-actions")
check(read["resources"][0] == "loupe://summary" and read["resources"][1].startswith("loupe://exchange/"), "resources listed")
check(read["resource"]["sequence"] == read["list"]["exchanges"][0]["sequence"], "an exchange resource reads the exchange")
check(read["cut"].get("cuts") or not read["cut"].get("responseBody"), "a small max_body_bytes cuts and says so")
print("ok")
PY
ok "tools/list, list_exchanges, get_exchange (25), stats, search, explain, list_rules, resources agree with the CLI's JSON"
cmp -s "$store" "$work/before.sqlite" || fail "the store changed under a read-only server"
ok "the store is byte-identical after the read session"

echo "-- compare and check_contract answer what loupe compare --json and loupe check --json print"
"$loupe" export "$store" --har "$work/demo.har" >/dev/null 2>&1 || fail "loupe export --har"
mcp_call() { timeout 120 "$py" "$here/mcp-client.py" "$loupe" "$store" call "$1" "$2" >"$work/call.json" 2>"$work/err.txt" || fail "mcp-client call $1"; }
same() {  # $1: what; the tool's text (call.json) against the CLI's JSON ($work/cli.json)
  "$py" - "$work/call.json" "$work/cli.json" <<'PY' || fail "$1: the tool's answer differs from the CLI's JSON"
import json, sys
answer, cli = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert not answer.get("isError") and "error" not in answer, answer
assert json.loads(answer["text"]) == cli, "differs"
PY
}
mcp_call compare "{\"a\": \"$store\", \"b\": \"$work/demo.har\", \"latency\": \"20%\"}"
"$loupe" compare "$store" "$work/demo.har" --latency 20% --json >"$work/cli.json"; [ $? -le 1 ] || fail "loupe compare --json"
same "compare STORE HAR"
mcp_call compare "{\"a\": \"$store\", \"a_filter\": \"~m GET\", \"b_filter\": \"~m POST\", \"error_rate\": 5}"
"$loupe" compare "$store" --a '~m GET' --b '~m POST' --error-rate 5pt --json >"$work/cli.json"; [ $? -le 1 ] || fail "loupe compare --a --b --json"
same "compare with a_filter and b_filter"
ok "compare == loupe compare --json (the store against its HAR export; two filters of one store)"
openapi="$here/../Examples/openapi.yaml"
mcp_call check_contract "{\"openapi\": \"$openapi\", \"filter\": \"!~grpc\"}"
"$loupe" check "$store" --openapi "$openapi" --filter '!~grpc' --json >"$work/cli.json"; [ $? -le 1 ] || fail "loupe check --json"
same "check_contract"
ok "check_contract == loupe check --json on the demo store against Examples/openapi.yaml"
mcp_call compare "{\"a\": \"$store\", \"b\": \"$work\"}"
"$py" -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"] == -32602 and "is a directory" in e["message"], e' "$work/call.json" \
  || fail "compare with a directory for b: $(cat "$work/call.json")"
mkfifo "$work/fifo"
mcp_call check_contract "{\"openapi\": \"$work/fifo\"}"
"$py" -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"] == -32602 and "FIFO" in e["message"], e' "$work/call.json" \
  || fail "check_contract with a FIFO: $(cat "$work/call.json")"
cmp -s "$store" "$work/before.sqlite" || fail "the store changed under compare or check_contract"
ok "a directory or a FIFO for a path: JSON-RPC -32602 naming it, at once; the store byte-identical"

echo "-- hostile JSON-RPC"
timeout 300 "$py" "$here/mcp-hostile.py" "$loupe" "$store" >"$work/out.txt" 2>"$work/err.txt" || fail "hostile JSON-RPC"
sed 's/^/   /' "$work/out.txt"
ok "hostile JSON-RPC answered and bounded"

echo "-- streamable HTTP (--http): the SDK's client, the bearer secret, Origin, sessions"
"$loupe" mcp "$store" --http 0 >"$work/http.txt" 2>"$work/http-err.txt" & hpid=$!; pids+=($hpid)
for _ in $(seq 100); do grep -q '^authorization: ' "$work/http.txt" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^url: //p' "$work/http.txt"); secret=$(sed -n 's/^authorization: Bearer //p' "$work/http.txt")
[ -n "$url" ] && [ -n "$secret" ] || { cat "$work/http.txt" "$work/http-err.txt"; fail "loupe mcp --http prints its url and secret"; }
timeout 120 "$py" "$here/mcp-client.py" "$loupe" "$store" http "$url" "$secret" >"$work/http.json" 2>"$work/err.txt" \
  || fail "the official SDK's streamable-HTTP client"
"$loupe" show "$store" "#$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"])' "$work/http.json")" --json >"$work/http-show.json" \
  || fail "loupe show for the HTTP check"
"$py" - "$work" "$url" "$secret" <<'PY' || fail "streamable HTTP"
import json, os, sys, urllib.request, urllib.error
work, url, secret = sys.argv[1], sys.argv[2], sys.argv[3]
got = json.load(open(os.path.join(work, "http.json")))
def check(condition, what):
    if not condition:
        print("mismatch:", what); sys.exit(1)
check(got["tools"] == sorted(["check_contract", "compare", "explain_exchange", "get_exchange", "list_exchanges", "list_rules", "search", "stats"]), "tools over HTTP")
check(got["list"]["exchanges"] == list(reversed(json.load(open(os.path.join(work, "list.json"))))), "list_exchanges over HTTP == loupe list --json")
check(got["get"] == json.load(open(os.path.join(work, "http-show.json"))), "get_exchange over HTTP == loupe show --json")
check(got["bad"]["isError"] and "limit" in got["bad"]["text"], "a bad limit over HTTP is a tool error")
check(got["summary"]["all"]["count"] == got["stats"]["all"]["count"], "loupe://summary over HTTP")
def post(body, headers):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
auth = {"Authorization": "Bearer " + secret}
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
check(post(init, {})[0] == 401, "no secret: 401")
check(post(init, {"Authorization": "Bearer " + secret[:-1] + ("A" if secret[-1] != "A" else "B")})[0] == 401, "a wrong secret: 401")
check(post(init, {**auth, "Origin": "http://evil.example"})[0] == 403, "a foreign Origin: 403")
check(post(init, {**auth, "Origin": "http://localhost:3000"})[0] == 200, "a loopback Origin is let through")
check(post(listing, auth)[0] == 400, "no Mcp-Session-Id after initialize: 400")
check(post(listing, {**auth, "Mcp-Session-Id": "nope"})[0] == 404, "an unknown session: 404")
status, headers, body = post(init, auth)
session = {k.lower(): v for k, v in headers.items()}.get("mcp-session-id")
check(status == 200 and session and json.loads(body)["result"]["protocolVersion"] == "2025-06-18", "initialize opens a session")
check(post({"jsonrpc": "2.0", "method": "notifications/initialized"}, {**auth, "Mcp-Session-Id": session})[0] == 202, "a notification: 202")
status, _, body = post(listing, {**auth, "Mcp-Session-Id": session})
check(status == 200 and len(json.loads(body)["result"]["tools"]) == 8, "tools/list in the session")
status, _, body = post({"jsonrpc": "2.0", "id": 3, "method": "no/such"}, {**auth, "Mcp-Session-Id": session})
check(json.loads(body)["error"]["code"] == -32601, "an unknown method over HTTP: -32601")
request = urllib.request.Request(url, method="DELETE", headers={**auth, "Mcp-Session-Id": session})
check(urllib.request.urlopen(request, timeout=30).status == 204, "DELETE ends the session")
check(post(listing, {**auth, "Mcp-Session-Id": session})[0] == 404, "an ended session: 404")
print("ok")
PY
kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null
ok "streamable HTTP: the SDK's client reads what the CLI prints; 401 without the secret, 403 for a foreign Origin, sessions by Mcp-Session-Id"
cmp -s "$store" "$work/before.sqlite" || fail "the store changed under the HTTP server"

echo "-- actions wait for a person at the terminal"
port=$(free_port)
python3 "$here/replay-server.py" "$port" a >/dev/null 2>&1 & pids+=($!)
wait_port "$port"
astore="$work/actions.sqlite"
"$loupe" send GET "http://127.0.0.1:$port/items" --store "$astore" >/dev/null 2>&1 || fail "recording /items"
[ "$(count "$port" 'GET /items')" = 1 ] || fail "the recording sent one request"
timeout 10 "$loupe" approve "$astore" >"$work/out.txt" 2>"$work/err.txt" </dev/null; code=$?
[ "$code" -eq 2 ] && grep -q '^loupe: approve asks a person' "$work/err.txt" || fail "loupe approve without a terminal: exit $code"
ok "loupe approve without a terminal: $(cat "$work/err.txt")"
# ask ANSWER: the official SDK's client (its server in a session of its own, without a terminal) asks to replay #1;
# the person answers ANSWER in `loupe approve --watch` running in tmux.
ask() {
  sock="$work/tmux-ask-$1.sock"
  tm new-session -d -s "$session" -x 160 -y 30 "'$loupe' approve '$astore' --watch"
  MCP_SERVER_FLAGS=--allow-actions timeout 120 "$py" "$here/mcp-client.py" "$loupe" "$astore" call replay_exchange '{"id":"#1"}' \
    >"$work/answer.json" 2>"$work/client-err.txt" & local client=$!
  for _ in $(seq 300); do tm capture-pane -p -t "$session" >"$work/pane.txt" 2>/dev/null; grep -q 'Approve?' "$work/pane.txt" && break; sleep 0.1; done
  grep -qF "agent \"mcp\" (loupe mcp) asks to replay #1: GET http://127.0.0.1:$port/items (1 request)" "$work/pane.txt" \
    || { cat "$work/pane.txt" "$work/client-err.txt"; fail "loupe approve shows method, target and count"; }
  tm send-keys -t "$session" "$1" Enter
  wait "$client" || { cat "$work/client-err.txt"; fail "the client failed after '$1'"; }
  tm kill-server 2>/dev/null || true
}
ask n
grep -q 'Refused by the person' "$work/answer.json" || { cat "$work/answer.json" "$work/client-err.txt"; fail "a refused replay says so"; }
[ "$(count "$port" 'GET /items')" = 1 ] || fail "a refused replay sent a request"
ok "refused in loupe approve: nothing sent (the counting server still saw 1 request)"
ask y
grep -q 'Approved and sent' "$work/answer.json" || { cat "$work/answer.json" "$work/client-err.txt"; fail "an approved replay says so"; }
[ "$(count "$port" 'GET /items')" = 2 ] || fail "an approved replay did not send exactly one request"
[ "$("$loupe" list "$astore" --filter '~replay' --json | "$py" -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 1 ] \
  || fail "the approved replay is recorded as a replay"
ok "approved in loupe approve: exactly one request sent, recorded as a replay"
[ -z "$(ls -A "$astore.agents" 2>/dev/null)" ] || fail "decided requests are left in $astore.agents"
ok "decided requests leave nothing behind"

echo "-- --approve-in-terminal asks on the server's own terminal"
timeout 20 env MCP_SERVER_FLAGS='--allow-actions --approve-in-terminal' setsid "$py" "$here/mcp-client.py" "$loupe" "$astore" raw-call replay_exchange '{"id":"#1"}' \
  >"$work/out.txt" 2>"$work/err.txt" </dev/null
grep -q "no terminal" "$work/err.txt" || fail "--approve-in-terminal without a terminal is refused at start"
ok "--approve-in-terminal without a terminal refuses to start, naming loupe approve"
sock="$work/tmux-terminal.sock"
tm new-session -d -s "$session" -x 160 -y 30 \
  "MCP_SERVER_FLAGS='--allow-actions --approve-in-terminal' '$py' '$here/mcp-client.py' '$loupe' '$astore' raw-call replay_exchange '{\"id\":\"#1\"}' >'$work/answer.json' 2>'$work/client-err.txt'; echo done >'$work/done'"
for _ in $(seq 300); do tm capture-pane -p -t "$session" >"$work/pane.txt" 2>/dev/null; grep -q 'Approve?' "$work/pane.txt" && break; sleep 0.1; done
grep -q "asks to replay #1: GET http://127.0.0.1:$port/items (1 request)" "$work/pane.txt" || { cat "$work/pane.txt" "$work/client-err.txt"; fail "the terminal prompt shows method, target and count"; }
tm send-keys -t "$session" n Enter
for _ in $(seq 100); do [ -f "$work/done" ] && break; sleep 0.1; done
grep -q 'Refused by the person' "$work/answer.json" || { cat "$work/answer.json" "$work/client-err.txt"; fail "refused on the terminal"; }
[ "$(count "$port" 'GET /items')" = 2 ] || fail "a replay refused on the terminal sent a request"
ok "refused on the server's terminal: nothing sent"

echo "-- the inspector's screen 6 approves and refuses"
sock="$work/tmux-tui.sock"
tm new-session -d -s "$session" -x 160 -y 30 "env TERM=xterm-256color XDG_STATE_HOME='$work/state' '$loupe' tui '$astore'"
# tui_answer KEY: the SDK's client asks to replay #1; the person opens screen 6 of `loupe tui` and presses KEY there
# (`r` refuses; `a` asks, and the question must name what will be sent before `y` approves it).
tui_answer() {
  MCP_SERVER_FLAGS=--allow-actions timeout 120 "$py" "$here/mcp-client.py" "$loupe" "$astore" call replay_exchange '{"id":"#1"}' \
    >"$work/answer.json" 2>"$work/client-err.txt" & local client=$!
  tm send-keys -t "$session" 6
  for _ in $(seq 300); do tm capture-pane -p -t "$session" >"$work/pane.txt" 2>/dev/null; grep -q 'asks to replay #1' "$work/pane.txt" && break; sleep 0.1; done
  grep -qF "agent \"mcp\" (loupe mcp) asks to replay #1: GET http://127.0.0.1:$port/items (1 request)" "$work/pane.txt" \
    || { cat "$work/pane.txt" "$work/client-err.txt"; fail "screen 6 shows who asks, the method, target and count"; }
  tm send-keys -t "$session" "$1"
  if [ "$1" = a ]; then
    for _ in $(seq 100); do tm capture-pane -p -t "$session" >"$work/pane.txt" 2>/dev/null; grep -q 'Approve?' "$work/pane.txt" && break; sleep 0.1; done
    grep -qF "Approve? y/N · replay #1: GET http://127.0.0.1:$port/items (1 request)" "$work/pane.txt" \
      || { cat "$work/pane.txt"; fail "the TUI's question names what will be sent"; }
    tm send-keys -t "$session" y
  fi
  wait "$client" || { cat "$work/client-err.txt"; fail "the client failed after '$1' in the TUI"; }
}
tui_answer r
grep -q 'Refused by the person' "$work/answer.json" || { cat "$work/answer.json" "$work/client-err.txt"; fail "refused in the TUI: the agent is told"; }
[ "$(count "$port" 'GET /items')" = 2 ] || fail "a replay refused in the TUI sent a request"
ok "refused on screen 6 of loupe tui: nothing sent (the counting server still saw 2 requests)"
tui_answer a
grep -q 'Approved and sent' "$work/answer.json" || { cat "$work/answer.json" "$work/client-err.txt"; fail "approved in the TUI: the agent is told"; }
[ "$(count "$port" 'GET /items')" = 3 ] || fail "a replay approved in the TUI did not send exactly one request"
for _ in $(seq 50); do tm capture-pane -p -t "$session" >"$work/pane.txt" 2>/dev/null; grep -q 'No agent requests waiting' "$work/pane.txt" && break; sleep 0.1; done
grep -q 'No agent requests waiting' "$work/pane.txt" || { cat "$work/pane.txt"; fail "the approved request left screen 6"; }
ok "approved on screen 6 of loupe tui after its question: exactly one request sent"
tm kill-server 2>/dev/null || true

echo "e2e-mcp: $passed checks passed"
