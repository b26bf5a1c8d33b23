#!/usr/bin/env bash
# Rules acting on real processes (issue 29): `loupe rules check`; the headless demo with a rules file (a syntax
# error is one line and the demo runs with no rules; a mock answers without the demo API seeing the request; a
# fault on everything opens the breakers and nothing hangs); then the TUI under tmux, `--listen`, linked to
# the headless demo: a fault rule made from a getUser row opens the getUser breaker within 2 s and it closes after
# the rule is disabled; a held edit saved after the 60 s hold is said to be late and not sent (issue 43.4); a breakpoint on createOrder edited in a real editor (a script as $EDITOR) and continued,
# the API receiving the edited body; the viewer killed while a request is held, and the app continuing it at once;
# a rule named with escapes (issue 44.15); a held request with the demo's token edited through a spying editor
# (issue 43.5: redacted in the file, a 0700 directory removed afterwards, the app's own token sent).
set -uo pipefail
loupe="$1"
work=$(mktemp -d)
session=rules
wait_limit=20
started=$SECONDS
pids=()
cleanup() {
  tmux -S "$work/tmux.sock" kill-server 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=.ci/tmux-screen.sh
. "$(dirname "$0")/tmux-screen.sh"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
export XDG_STATE_HOME="$work/state"
export LOUPE_STORE="$work/default.sqlite"
unset LOUPE_LINK LOUPE_RULES

echo "== loupe rules check"
printf '[[rule]]\nname = "a"\nmatch = "~u ."\nfault = { status = 503 \n' >"$work/broken.toml"
"$loupe" rules check "$work/broken.toml" >"$work/check.out" 2>"$work/check.err"; code=$?
[ "$code" = 2 ] || fail "rules check of a broken file exited $code"
[ "$(wc -l <"$work/check.err")" = 1 ] && grep -q "^loupe: rules file $work/broken.toml:[0-9]*: " "$work/check.err" \
  || fail "rules check line: $(cat "$work/check.err")"
ok "a syntax error: one line '$(cut -c1-70 "$work/check.err")…', exit 2"
# A rule that can never fire (a response term in match) is refused on its match line, not the [[rule]] line.
printf '[[rule]]\nname = "never"\nmatch = "~c 5xx"\nfault = { status = 503 }\n' >"$work/never.toml"
"$loupe" rules check "$work/never.toml" >"$work/check.out" 2>"$work/check.err"; code=$?
[ "$code" = 2 ] && grep -q "^loupe: rules file $work/never.toml:3: rule 'never': match: ~c is about the response" "$work/check.err" \
  || fail "rules check of ~c 5xx (exit $code): $(cat "$work/check.err")"
ok "a rule that can never fire: '$(cut -c1-90 "$work/check.err")…', exit 2"
printf '[[rule]]\nname = "canned users"\nmatch = "~op getUser"\nmock = { status = 200, headers = { "content-type" = "application/json" }, body = %s }\n' \
  "'{\"id\":0,\"name\":\"mocked\"}'" >"$work/mock.toml"
"$loupe" rules check "$work/mock.toml" >"$work/check.out" 2>&1 || fail "a good file: $(cat "$work/check.out")"
grep -qF "1 rule: canned users (mock)" "$work/check.out" || fail "check output: $(cat "$work/check.out")"
ok "a good file: $(cat "$work/check.out")"
# Issue 44.15: a rule's name with escapes (retitle the window, clear the screen) is printed with them made visible.
printf '[[rule]]\nname = "x\\u001b]0;pwned\\u0007\\u001b[2J"\nmatch = "~op a"\nfault = { status = 503 }\n' >"$work/escape.toml"
"$loupe" rules check "$work/escape.toml" >"$work/check.out" 2>&1 || fail "a file with an escape in a name: $(cat "$work/check.out")"
LC_ALL=C grep -q "$(printf '\033')" "$work/check.out" && fail "rules check printed a raw escape: $(od -c "$work/check.out" | head -3)"
grep -qF "x␛]0;pwned␇␛[2J (fault)" "$work/check.out" || fail "check output: $(cat "$work/check.out")"
LOUPE_RULES="$work/escape.toml" timeout 60 "$loupe" demo --headless --duration 1 --pause 20 --store "$work/escape.sqlite" \
  >"$work/escape.out" 2>"$work/escape.err" || fail "the demo with an escape in a rule's name exited $?"
LC_ALL=C grep -q "$(printf '\033')" "$work/escape.err" && fail "the app's log printed a raw escape: $(od -c "$work/escape.err" | head -3)"
grep -qF "x␛]0;pwned␇" "$work/escape.err" || fail "the app's log does not name the rule: $(head -3 "$work/escape.err")"
ok "a rule named with escapes: rules check and the app's log show them made visible ($(cat "$work/check.out"))"

echo "== the headless demo with a rules file"
LOUPE_RULES="$work/broken.toml" timeout 60 "$loupe" demo --headless --duration 2 --pause 20 --store "$work/broken.sqlite" \
  >"$work/broken.out" 2>"$work/broken.err" || fail "the demo with a broken rules file exited $?"
[ "$(grep -c 'rules file' "$work/broken.err")" = 1 ] || fail "rules lines: $(cat "$work/broken.err")"
grep -q "^recorded [0-9]* of [0-9]* exchanges" "$work/broken.out" || fail "demo: $(cat "$work/broken.out")"
[ "$(sqlite3 "$work/broken.sqlite" "SELECT count(*) FROM event WHERE kind = 'rule'")" = 0 ] || fail "rules acted"
ok "a broken rules file: one line, and the demo ran with no rules ($(cut -d' ' -f2 "$work/broken.out") exchanges)"

LOUPE_RULES="$work/mock.toml" LOUPE_DEMO_API_LOG="$work/api.log" timeout 60 "$loupe" demo --headless --duration 3 --pause 20 \
  --store "$work/mock.sqlite" >"$work/mock.out" 2>"$work/mock.err" || fail "the demo with a mock exited $?"
mocked=$(sqlite3 "$work/mock.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'getUser' AND CAST(response_body AS TEXT) LIKE '%mocked%'")
users=$(sqlite3 "$work/mock.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'getUser'")
marked=$(sqlite3 "$work/mock.sqlite" "SELECT count(DISTINCT exchange_sequence) FROM event WHERE kind = 'rule' AND attributes LIKE '%\"mocked\":\"true\"%'")
[ "$users" -gt 0 ] && [ "$mocked" = "$users" ] && [ "$marked" = "$users" ] || fail "getUser $users, mocked bodies $mocked, marked $marked"
grep -q '^GET /users/[0-9]' "$work/api.log" && fail "the API saw getUser requests: $(grep -c '^GET /users/[0-9]' "$work/api.log")"
grep -q '^GET /users$' "$work/api.log" || fail "the API log has no listUsers either: $(head -3 "$work/api.log")"
"$loupe" list "$work/mock.sqlite" --filter '~rule canned' --limit 1000 --json >"$work/rule.json" || fail "list ~rule"
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/rule.json")" = "$users" ] || fail "~rule count"
id=$(sqlite3 "$work/mock.sqlite" "SELECT id FROM exchange WHERE operation = 'getUser' LIMIT 1")
"$loupe" show "$work/mock.sqlite" "$id" | grep -q "not from the server" || fail "show does not say mocked"
ok "a mock answered all $users getUser calls; the API's own log has none of them; ~rule finds them; show says 'not from the server'"

echo "== a rewrite is recorded as sent, with the app's request beside it (issue 43.7)"
rport=$(free_port)
"${LOUPE_CI_PYTHON:-python3}" "$(dirname "$0")/replay-server.py" "$rport" mapped >/dev/null 2>&1 &
pids+=($!); disown $!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$rport),0.2)" 2>/dev/null && break; sleep 0.1; done
printf '[[rule]]\nname = "rehearsal"\nmatch = "~op listUsers"\nrewrite = { base_url = "http://127.0.0.1:%s/mapped", set_headers = { "X-Rehearsal" = "yes" }, remove_headers = ["user-agent"] }\n' \
  "$rport" >"$work/rewrite.toml"
LOUPE_RULES="$work/rewrite.toml" timeout 60 "$loupe" demo --headless --duration 2 --pause 20 --store "$work/rewrite.sqlite" \
  >"$work/rewrite.out" 2>"$work/rewrite.err" || fail "the demo with a rewrite exited $?"
got=$(curl -s "http://127.0.0.1:$rport/count" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("GET /mapped/users", 0))')
[ "$got" -gt 0 ] || fail "the counting server saw no GET /mapped/users"
id=$(sqlite3 "$work/rewrite.sqlite" "SELECT id FROM exchange WHERE operation = 'listUsers' LIMIT 1")
"$loupe" show "$work/rewrite.sqlite" "$id" --json >"$work/rewrite.json" || fail "show --json"
python3 - "$work/rewrite.json" "$rport" <<'PY' || fail "show --json of a rewritten exchange: $(head -c 600 "$work/rewrite.json")"
import json, sys
x = json.load(open(sys.argv[1]))
port = sys.argv[2]
assert x["url"] == f"http://127.0.0.1:{port}/mapped/users", x["url"]
sent = {h["name"].lower(): h["value"] for h in x["requestHeaders"]}
assert sent.get("x-rehearsal") == "yes" and "user-agent" not in sent, sent
before = x["beforeRule"]
assert before["method"] == "GET" and before["url"].endswith("/users") and "/mapped/" not in before["url"], before["url"]
asked = {h["name"].lower(): h["value"] for h in before["headers"]}
assert "user-agent" in asked and "x-rehearsal" not in asked, asked
event = next(e for e in x["events"] if e["kind"] == "rule")
m = event["message"]
assert "URL GET " in m and f"127.0.0.1:{port}/mapped/users" in m and "set X-Rehearsal: yes" in m and "removed User-Agent" in m, m
PY
[ "$("$loupe" list "$work/rewrite.sqlite" --filter '~u /mapped/users' --limit 1000 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" \
  = "$(sqlite3 "$work/rewrite.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'listUsers'")" ] || fail "~u /mapped does not find every rewritten exchange"
"$loupe" show "$work/rewrite.sqlite" "$id" | grep -q '^Before the rule  GET http://127.0.0.1:[0-9]*/users' || fail "show has no 'Before the rule' section"
[ "$(sqlite3 "$work/rewrite.sqlite" "SELECT count(*) FROM exchange WHERE operation <> 'listUsers' AND before_rule IS NOT NULL")" = 0 ] \
  || fail "exchanges no rule changed carry a before_rule"
ok "$got GET /mapped/users reached the counting server; show --json has the sent URL and headers and the app's beside them; ~u /mapped finds them"

printf '[[rule]]\nname = "everything down"\nmatch = "~u ."\nfault = { reset = true }\n' >"$work/down.toml"
start=$SECONDS
LOUPE_RULES="$work/down.toml" timeout 60 "$loupe" demo --headless --duration 3 --pause 20 --store "$work/down.sqlite" \
  >"$work/down.out" 2>"$work/down.err" || fail "the demo with everything down exited $?"
[ $((SECONDS - start)) -le 20 ] || fail "the demo took $((SECONDS - start)) s"
refused=$(sqlite3 "$work/down.sqlite" "SELECT count(*) FROM exchange WHERE outcome = 'shortCircuited'")
unfinished=$(sqlite3 "$work/down.sqlite" "SELECT count(*) FROM exchange WHERE ended_at IS NULL")
# The demo's gRPC calls go through grpc-swift, which rules do not act on: only Loupe's client is faulted.
ok200=$("$loupe" list "$work/down.sqlite" --filter '~c 200-299 & !~grpc' --limit 100000 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$refused" -gt 0 ] && [ "$unfinished" = 0 ] && [ "$ok200" = 0 ] || fail "short-circuited $refused, unfinished $unfinished, 2xx $ok200"
ok "a 100 % fault on everything: the breakers opened ($refused calls short-circuited), nothing hung, the demo ended in $((SECONDS - start)) s"

echo "== the TUI, --listen, linked to the headless demo"
tport=$(free_port)
cat >"$work/edit.sh" <<'EOF2'
#!/bin/sh
# A real editor's job, scripted: change the order's quantity to 77 and save.
sed -i 's/"quantity":[0-9]*/"quantity":77/' "$1"
EOF2
chmod +x "$work/edit.sh"
cat >"$work/tui.sh" <<EOF2
env TERM=xterm-256color EDITOR=$(printf %q "$work/edit.sh") VISUAL= XDG_STATE_HOME=$(printf %q "$XDG_STATE_HOME") $(printf %q "$loupe") tui --listen 127.0.0.1:$tport --store $(printf %q "$work/tui.sqlite") 2>$(printf %q "$work/tui.err")
exec sleep 600
EOF2
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/tui.sh")" || fail "tmux"
wait_for any "Loupe │ exchanges │"
link=$(grep -m1 '^LOUPE_LINK=' "$work/tui.err" | cut -d= -f2-)
[ -n "$link" ] || fail "no link from tui --listen: $(cat "$work/tui.err")"
LOUPE_DEMO_API_LOG="$work/api2.log" "$loupe" demo --headless --duration 120 --pause 20 --store "$work/linked-demo.sqlite" \
  --link "$link" >"$work/demo.out" 2>"$work/demo.err" &
demo_pid=$!
pids+=($demo_pid)
keys 5
wait_for any "1 app"
ok "screen 5 shows the linked demo: $(grep -o '[0-9]* held · [0-9]* rules\? · 1 app' "$work/pane.txt")"

# A fault rule from a getUser row: f filter, B new rule (prompt filled with `new-rule fault 503`), Enter.
keys 1 f C-u '~op getUser' Enter
wait_for any "/users/"
keys B
wait_for any "new-rule fault 503"
keys Enter
wait_for any "rule 'fault 503 getUser' (~op getUser) sent"
made=$SECONDS
keys 3
wait_for any "getUser" 
deadline=$((SECONDS + 10))
until pane; grep -qiE "^getUser +open " "$work/pane.txt"; do
  [ $SECONDS -lt $deadline ] || fail "the getUser breaker never opened"
  sleep 0.1
done
opened=$((SECONDS - made))
[ "$opened" -le 2 ] || fail "the getUser breaker opened after $opened s"
ok "a fault rule ~op getUser → 503 opened the getUser breaker within 2 s"
retried=$(sqlite3 "$work/tui.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'getUser' AND attempt_count > 1")
[ "$retried" -gt 0 ] || fail "no getUser exchange was retried"
ok "the recorded traffic shows $retried getUser exchanges retried"
keys 5
wait_for any "fault 503 getUs"
# The only row (no request is held yet): disable it.
keys g t
# `disabling …` until the app reports the change, then `disabled …` (issue 43.17): the final word is the one to wait
# for, since the app may answer before the screen is read.
wait_for any "disabled rule 'fault 503 getUser'"
wait_for any "off fault 503 getUs"
keys 3
deadline=$((SECONDS + 15))
until pane; grep -qiE "^getUser +closed " "$work/pane.txt"; do
  [ $SECONDS -lt $deadline ] || fail "the getUser breaker never closed after the rule was disabled"
  sleep 0.2
done
ok "disabled on screen 5 (t): the getUser breaker closed again"

# A breakpoint on createOrder, edited in the editor and continued.
keys 1 f C-u '~op createOrder' Enter
wait_for any "/orders"
keys B C-u 'new-rule breakpoint' Enter
wait_for any "rule 'hold createOrder' (~op createOrder) sent"
keys 5
wait_for any "⏸ held"
ok "a createOrder request is held: $(grep -m1 -o '⏸ held[^[]*' "$work/pane.txt" | cut -c1-60)"
keys g e
wait_for any "continuing POST createOrder, edited"
deadline=$((SECONDS + 15))
until [ "$(sqlite3 "$work/tui.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'createOrder' AND CAST(response_body AS TEXT) LIKE '%\"quantity\":77%'")" -gt 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "the API never received the edited body"
  sleep 0.2
done
edited=$(sqlite3 "$work/tui.sqlite" "SELECT message FROM event WHERE kind = 'rule' AND attributes LIKE '%\"decision\":\"edit\"%' LIMIT 1")
[[ "$edited" == *"request held"*"edited ("*"body"* ]] || fail "the trace's edit event: $edited"
ok "edited in \$EDITOR and continued: the API echoed \"quantity\":77; the trace says '$edited'"
# The linked app recorded what it sent (77) with the app's own body beside it, and the link carried both.
deadline=$((SECONDS + wait_limit))
until [ "$(sqlite3 "$work/tui.sqlite" "SELECT count(*) FROM exchange WHERE operation = 'createOrder' AND before_rule IS NOT NULL \
    AND CAST(request_body AS TEXT) LIKE '%77%'")" -ge 1 ]; do
  [ $SECONDS -lt $deadline ] || fail "the edited createOrder is not stored as sent with the app's request beside it"
  sleep 0.2
done
asked=$(sqlite3 "$work/tui.sqlite" "SELECT before_rule FROM exchange WHERE operation = 'createOrder' AND before_rule IS NOT NULL LIMIT 1" \
  | python3 -c 'import base64,json,sys; print(base64.b64decode(json.load(sys.stdin)["body"]["data"]).decode())')
[[ "$asked" != *77* ]] || fail "the body before the edit already says 77: $asked"
ok "the edited createOrder is stored as sent (77) across the link, the app's body beside it: $asked"

# Killed while a request is held: the app continues it at once.
wait_for any "⏸ held"
killed_at=$(date +%s.%N)
tm kill-server
deadline=$((SECONDS + 10))
until [ "$(sqlite3 "$work/linked-demo.sqlite" "SELECT count(*) FROM event WHERE kind = 'rule' AND attributes LIKE '%\"decision\":\"continue\"%' AND at >= $killed_at - 1")" -gt 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "the demo never continued the held request after the viewer was killed"
  sleep 0.1
done
at=$(sqlite3 "$work/linked-demo.sqlite" "SELECT max(at) FROM event WHERE kind = 'rule' AND attributes LIKE '%\"decision\":\"continue\"%'")
python3 -c 'import sys; d=float(sys.argv[1])-float(sys.argv[2]); print("   continued %.0f ms after the kill" % (d*1000)); sys.exit(0 if d < 1 else 1)' "$at" "$killed_at" \
  || fail "continued more than 1 s after the kill"
ok "the viewer killed while a request was held: the demo continued it within 1 s"
kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null

echo "== a held request with the app's credential, edited in the TUI (issue 43.5)"
# An editor that keeps a copy of what it was given, its directory's mode and listing, and leaves a swap file as vim
# does; it changes nothing, so the app must send its own token back where the viewer saw [REDACTED].
cat >"$work/spy.sh" <<EOF2
#!/bin/sh
dir=\$(dirname "\$1")
cp "\$1" $(printf %q "$work/given.http")
stat -c %a "\$dir" >$(printf %q "$work/given.mode")
echo "\$dir" >$(printf %q "$work/given.dir")
: >"\$dir/.\$(basename "\$1").swp"
ls -a "\$dir" >$(printf %q "$work/given.ls")
EOF2
chmod +x "$work/spy.sh"
# hold_profile EDITOR N: inspector N (`tui --listen`, EDITOR as its editor, store tuiN.sqlite) with a linked demo,
# a breakpoint made with B on the demo's `profile` requests, and screen 5 showing one held.
hold_profile() {
  tm kill-server 2>/dev/null
  tport=$(free_port)
  sed -e "s|EDITOR=[^ ]*|EDITOR=$(printf %q "$1")|" -e "s|127.0.0.1:[0-9]*|127.0.0.1:$tport|" \
    -e "s|tui.sqlite|tui$2.sqlite|" -e "s|tui.err|tui$2.err|" "$work/tui.sh" >"$work/tui$2.sh"
  tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/tui$2.sh")" || fail "tmux"
  wait_for any "Loupe │ exchanges │"
  link=$(grep -m1 '^LOUPE_LINK=' "$work/tui$2.err" | cut -d= -f2-)
  [ -n "$link" ] || fail "no link from tui --listen $2: $(cat "$work/tui$2.err")"
  "$loupe" demo --headless --duration 150 --pause 20 --store "$work/linked-demo$2.sqlite" --link "$link" \
    >"$work/demo$2.out" 2>"$work/demo$2.err" &
  demo_pid=$!
  pids+=($demo_pid)
  keys 1 f C-u '~op profile' Enter
  wait_for any "/secure/profile"
  keys B C-u 'new-rule breakpoint' Enter
  wait_for any "rule 'hold profile' (~op profile) sent"
  keys 5
  wait_for any "⏸ held"
}
hold_profile "$work/spy.sh" 2
keys g e
wait_for any "continuing GET profile, edited"
[ -s "$work/given.http" ] || fail "the editor was given nothing"
grep -qF "demo-token" "$work/given.http" && fail "the editor was given the app's token: $(grep -i authorization "$work/given.http")"
grep -qiF "authorization: [REDACTED]" "$work/given.http" || fail "no redacted Authorization in: $(cat "$work/given.http")"
[ "$(cat "$work/given.mode")" = 700 ] || fail "the editor's directory is $(cat "$work/given.mode")"
grep -q "^held-request-until-[0-9][0-9]\.[0-9][0-9]\.[0-9][0-9]\.http$" "$work/given.ls" || fail "the file's name: $(cat "$work/given.ls")"
[ -e "$(cat "$work/given.dir")" ] && fail "the editor's directory is left: $(ls -a "$(cat "$work/given.dir")")"
deadline=$((SECONDS + 15))
until [ "$(sqlite3 "$work/tui2.sqlite" "SELECT count(*) FROM exchange x JOIN event e ON e.exchange_sequence = x.sequence WHERE x.operation = 'profile' AND x.status = 200 AND e.kind = 'rule' AND e.attributes LIKE '%\"decision\":\"edit\"%'")" -gt 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "the edited profile request did not get 200 (its token not put back?): $(sqlite3 "$work/tui2.sqlite" "SELECT status, outcome FROM exchange WHERE operation = 'profile' ORDER BY sequence DESC LIMIT 3")"
  sleep 0.2
done
ok "the editor saw 'Authorization: [REDACTED]' in a 0700 directory (gone afterwards with its swap file); the app sent its own token (200)"
kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null

echo "== an edit saved after the hold ended is said to be late and is not sent (issue 43.4)"
# An editor that takes longer than the app's 60 s hold, then really changes the request.
cat >"$work/slow.sh" <<EOF2
#!/bin/sh
sleep 63
printf 'X-Late-Edit: yes\n' >>"\$1"
EOF2
chmod +x "$work/slow.sh"
hold_profile "$work/slow.sh" 3
keys g e
wait_limit=90 wait_for any "edit: too late: the hold ended at"
deadline=$((SECONDS + 15))
until [ "$(sqlite3 "$work/tui3.sqlite" "SELECT count(*) FROM event WHERE kind = 'rule' AND attributes LIKE '%\"decision\":\"timeout\"%'")" -gt 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "no held request continued unchanged at the hold's end"
  sleep 0.2
done
edited=$(sqlite3 "$work/tui3.sqlite" "SELECT count(*) FROM event WHERE kind = 'rule' AND attributes LIKE '%\"decision\":\"edit\"%'")
[ "$edited" = 0 ] || fail "a late edit was applied ($edited edit decisions recorded)"
late_headers=$(sqlite3 "$work/tui3.sqlite" "SELECT count(*) FROM exchange WHERE request_headers LIKE '%X-Late-Edit%'")
[ "$late_headers" = 0 ] || fail "the late edit's header went on the wire"
ok "an edit saved 63 s into a 60 s hold: 'edit: too late' on the status line, the app's event says continued unchanged, nothing edited was sent"
kill -TERM "$demo_pid" 2>/dev/null; wait "$demo_pid" 2>/dev/null
echo "$script_name: $passed passed ($((SECONDS - started)) s)"
