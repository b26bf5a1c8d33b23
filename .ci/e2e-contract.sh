#!/usr/bin/env bash
# `loupe check` on the real binary (issue 48): agreement with openapi-core (PyPI) exchange by exchange over a corpus
# built from Tests/LoupeContractTests/Fixtures/shop.yaml (conforming exchanges, then each mutated leaf by leaf, and
# targeted breaks of status, content type, parameters and request body: .ci/contract-agreement.py); the demo's own
# recorded traffic against Examples/openapi.yaml (clean, and openapi-core agrees); the report's formats and exit
# codes (0 clean, 1 drift, --fail-on, 2 and one `loupe:` line for bad input). GraphQL: a real graphql-core server's
# traffic (.ci/graphql-peer.py) imported, each request named by its operation in `stats`, the list and `~gql`.
set -uo pipefail
loupe="$1"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
python="${LOUPE_CI_PYTHON:-$here/venv/bin/python}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-CONTRACT FAILED: $*"; [ -f "$work/err.txt" ] && head -c 2000 "$work/err.txt"; exit 1; }
# run EXPECTED_EXIT DESCRIPTION COMMAND...: stdout to out.txt, stderr to err.txt, within 120 s.
run() {
  local want="$1" what="$2"; shift 2
  timeout 120 "$@" >"$work/out.txt" 2>"$work/err.txt" </dev/null
  local code=$?
  [ "$code" -eq 124 ] && fail "$what: hung"
  [ "$code" -eq "$want" ] || fail "$what: exit $code, want $want; stdout: $(head -c 600 "$work/out.txt")"
  if grep -qiE 'fatal error|stack dump|backtrace' "$work/err.txt" "$work/out.txt"; then fail "$what: crash text"; fi
}
"$python" -c 'import openapi_core' 2>/dev/null || fail "no openapi-core in $python (.ci/run installs it)"
shop="$root/Tests/LoupeContractTests/Fixtures/shop.yaml"

echo "-- agreement with openapi-core: shop.yaml, conforming and mutated exchanges"
"$python" "$here/contract-agreement.py" "$loupe" "$shop" "$work/shop.har" >"$work/agree.txt" 2>&1
code=$?
cat "$work/agree.txt" | tail -25
[ "$code" -eq 0 ] || fail "loupe check and openapi-core disagree (above)"
total=$(tail -1 "$work/agree.txt" | cut -d' ' -f1)
[ "$total" -ge 200 ] || fail "the corpus has only $total exchanges"
ok "$total exchanges, same verdict as openapi-core on each"

echo "-- the report on the same corpus: text, JSON, markdown, junit; exit 1 on drift"
run 1 "check, text" "$loupe" check "$work/shop.har" --openapi "$shop"
grep -q "^getOrder " "$work/out.txt" || fail "no getOrder row: $(head -c 600 "$work/out.txt")"
grep -qE '^  response-body.type ×[0-9]+  first .* e\.g\. #[0-9]+: \$' "$work/out.txt" || fail "no kind line with first/last/example"
grep -q "MATCHING NO OPERATION" "$work/out.txt" && grep -q "GET /v2/nowhere ×1" "$work/out.txt" || fail "no unmatched section"
grep -qE "^loupe: [0-9]+ exchanges drift from the contract$" "$work/err.txt" || fail "no drift line on stderr"
ok "text report, exit 1"
run 1 "check --json" "$loupe" check "$work/shop.har" --openapi "$shop" --json
"$python" - "$work/out.txt" <<'EOF' || fail "JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
ops = {o["operation"]: o for o in r["operations"]}
assert r["checked"] > 100 and r["drifting"] > 50 and r["unmatched"] == 2, r
assert ops["getOrder"]["drifting"] > 0 and ops["getOrder"]["drift"][0]["example"].startswith("#")
assert all(k["firstSeen"] and k["lastSeen"] for o in r["operations"] for k in o["drift"])
EOF
ok "JSON report"
run 1 "check --format markdown" "$loupe" check "$work/shop.har" --openapi "$shop" --format markdown
grep -q "^| Operation | Checked | Drifting |" "$work/out.txt" || fail "markdown table"
run 1 "check --format junit" "$loupe" check "$work/shop.har" --openapi "$shop" --format junit
"$python" -c 'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]).getroot(); assert t.tag == "testsuite" and int(t.get("failures")) > 0' "$work/out.txt" \
  || fail "junit is not XML with failures"
ok "markdown and junit (well-formed XML)"
run 1 "--fail-on status" "$loupe" check "$work/shop.har" --openapi "$shop" --fail-on status
"$python" -c "
import json; from pathlib import Path
entries = json.load(open('$work/shop.har'))['log']['entries']
keep = [e for e in entries if e['response']['status'] != 500]
Path('$work/no500.har').write_text(json.dumps({'log': {'version': '1.2', 'creator': {'name': 'x', 'version': '1'}, 'entries': keep}}))"
run 0 "--fail-on status without a 500" "$loupe" check "$work/no500.har" --openapi "$shop" --fail-on status
run 1 "--fail-on request-body.bounds" "$loupe" check "$work/no500.har" --openapi "$shop" --fail-on request-body.bounds
ok "--fail-on chooses the kinds that fail"

echo "-- bad input: exit 2, one loupe: line"
printf 'openapi: 3.0.0\ninfo: [\n' >"$work/broken.yaml"
printf 'swagger: "2.0"\n' >"$work/swagger.yaml"
for args in "--openapi $work/missing.yaml" "--openapi $work/broken.yaml" "--openapi $work/swagger.yaml" "--openapi /dev/zero" \
            "--openapi $shop --format xml" "--openapi $shop --fail-on nonsense" "--openapi $shop --filter ~z"; do
  # shellcheck disable=SC2086
  run 2 "check $args" "$loupe" check "$work/shop.har" $args
  [ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q "^loupe: " "$work/err.txt" || fail "check $args: not one loupe: line: $(cat "$work/err.txt")"
done
run 2 "no --openapi" env -u LOUPE_OPENAPI "$loupe" check "$work/shop.har"
run 1 "LOUPE_OPENAPI" env LOUPE_OPENAPI="$shop" "$loupe" check "$work/shop.har"
ok "bad documents, formats, kinds and filters refused with one line"

echo "-- the demo's own traffic against Examples/openapi.yaml"
store="$work/demo.sqlite"
demo_env=(env -u LOUPE_STORE HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" XDG_STATE_HOME="$work/home/state")
timeout 120 "${demo_env[@]}" "$loupe" demo --headless --duration 4 --store "$store" >"$work/demo.txt" 2>"$work/err.txt" \
  || fail "loupe demo --headless failed"
# The demo's HTTP API is what the document describes; its gRPC service (loupe.demo.Warehouse) is no OpenAPI path.
run 0 "demo store against Examples/openapi.yaml" "$loupe" check "$store" --openapi "$root/Examples/openapi.yaml" --json --each \
  --filter '!~grpc'
"$python" - "$work/out.txt" <<'EOF' || fail "demo report: $(head -c 1500 "$work/out.txt")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["checked"] > 20 and r["drifting"] == 0 and r["unmatched"] == 0, (r["checked"], r["drifting"], r["unmatched"], r.get("exchanges"))
assert sum(1 for o in r["operations"] if o["checked"]) >= 5
EOF
ok "$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["checked"])' "$work/out.txt") demo exchanges checked, no drift, none unmatched"
run 0 "export the demo store" "$loupe" export "$store" --har "$work/demo.har" --filter '!~grpc'
"$python" "$here/contract-agreement.py" "$loupe" "$root/Examples/openapi.yaml" "$work/demo-copy.har" --from-har "$work/demo.har" >"$work/agree.txt" 2>&1 \
  || { cat "$work/agree.txt" | tail -20; fail "openapi-core disagrees on the demo's traffic"; }
ok "openapi-core agrees on the demo's traffic ($(tail -1 "$work/agree.txt"))"

echo "-- the inspector: loupe tui --openapi on the demo store, a mutated document (getFlaky's ok a string): ≠ rows, ~drift, the Contract tab"
sed 's/ok: { type: boolean }/ok: { type: string }/' "$root/Examples/openapi.yaml" >"$work/mutated.yaml"
grep -q 'ok: { type: string }' "$work/mutated.yaml" || fail "the mutation did not apply to Examples/openapi.yaml"
run 2 "tui --filter ~drift without a contract" env -u LOUPE_OPENAPI "$loupe" tui "$store" --filter '~drift'
[ "$(cat "$work/err.txt")" = "loupe: ~drift needs the OpenAPI contract: loupe tui --openapi FILE" ] \
  || fail "~drift without a contract: $(cat "$work/err.txt")"
ok "~drift without --openapi: exit 2, one line"
saved_passed=$passed
session="contract-tui" wait_limit="${LOUPE_E2E_WAIT:-30}" started=$SECONDS
. "$here/tmux-screen.sh"   # tm, pane, row, wait_for, keys (and its own ok/fail, which report the screen)
passed=$saved_passed
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
cat >"$work/tui.sh" <<EOS
#!/bin/sh
env -u LOUPE_STORE HOME=$(printf %q "$work/home") XDG_CONFIG_HOME=$(printf %q "$work/home/config") \\
  XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color LOUPE_OPENAPI=$(printf %q "$work/mutated.yaml") \\
  $(printf %q "$(cd "$(dirname "$loupe")" && pwd)/$(basename "$loupe")") tui $(printf %q "$store")
echo "\$?" > $(printf %q "$work/tui-exit.txt")
exec sleep 600
EOS
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/tui.sh")" || fail "tmux could not start"
wait_for 0 "Loupe │ exchanges │"
# The checks run beside the list: the marks appear as they finish.
wait_for any '^.≠.* GET +200 +127\.0\.0\.1(:[0-9]+)?/flaky' regex
grep -E '^.≠' "$work/pane.txt" | grep -vq '/flaky' && fail "a row other than /flaky is marked ≠"
grep -E ' 200 +127\.0\.0\.1(:[0-9]+)?/users' "$work/pane.txt" | grep -q '^.≠' && fail "a /users row is marked ≠"
ok "drifting rows (GET /flaky answering ok: true) are marked ≠, others not"
keys f; keys '~drift response-body.type' Enter
wait_for 0 "shown"
pane
grep -E ' (GET|POST|PUT|DELETE) +[0-9]{3} ' "$work/pane.txt" | grep -vq '/flaky' && fail "~drift shows a row that is not /flaky"
grep -E '^.≠.*/flaky' "$work/pane.txt" >/dev/null || fail "~drift shows no /flaky row"
ok "~drift response-body.type keeps only the drifting /flaky rows"
keys Enter
wait_for any "Request"
keys ':tab contract' Enter
wait_for any "Contract  operation getFlaky"
wait_for any '$.ok: expected string, got boolean'
wait_for any "Response body"
ok "the Contract tab names the operation, the finding and shows the body"
keys q q
for _ in $(seq 100); do [ -f "$work/tui-exit.txt" ] && break; sleep 0.1; done
[ "$(cat "$work/tui-exit.txt" 2>/dev/null)" = 0 ] || fail "tui did not quit with 0"
tm kill-server 2>/dev/null
ok "quit with 0"

echo "-- GraphQL: a real graphql-core server's traffic, named by operation in the list, ~gql and stats"
"$python" -c 'import graphql' 2>/dev/null || fail "no graphql-core in $python (.ci/run installs it)"
timeout 60 "$python" "$here/graphql-peer.py" "$work/graphql.har" >"$work/peer.txt" 2>&1 || fail "graphql peer: $(cat "$work/peer.txt")"
run 0 "import the GraphQL traffic" "$loupe" import "$work/graphql.har" --store "$work/graphql.sqlite"
run 0 "stats --json" "$loupe" stats "$work/graphql.sqlite" --json
"$python" - "$work/out.txt" <<'EOF' || fail "GraphQL operations in stats: $(head -c 1500 "$work/out.txt")"
import json, sys
names = {o["name"]: o["count"] for o in json.load(open(sys.argv[1]))["operations"]}
want = {"query GetUser": 2, "mutation AddUser": 1, "query": 1, "batch: query A, mutation B": 1, "persisted GetUsers": 1,
        "query Boom": 1, "query Me": 1}
assert names == want, names
errors = {o["name"]: o["errors"] for o in json.load(open(sys.argv[1]))["operations"]}
assert errors["query Boom"] == 1 and sum(errors.values()) == 1, errors
EOF
run 0 "list --filter '~gql GetUser'" "$loupe" list "$work/graphql.sqlite" --filter '~gql GetUser' --json
[ "$("$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$work/out.txt")" = 2 ] || fail "~gql GetUser: $(head -c 600 "$work/out.txt")"
run 0 "list --json" "$loupe" list "$work/graphql.sqlite" --json
grep -q '"operation" : "mutation AddUser"' "$work/out.txt" || fail "the list does not name the mutation: $(head -c 800 "$work/out.txt")"
ok "8 GraphQL requests named by operation (query, mutation, anonymous, batch, persisted, GET) in stats, ~gql and the list; errors in a 200 count as errors"

echo "$passed passed, 0 failed"
