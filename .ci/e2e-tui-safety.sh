#!/usr/bin/env bash
# The TUI's promises about what it sends and what it takes as keys, on the real binary under tmux, against
# .ci/replay-server.py (written apart from Loupe), which counts the requests it received:
#
#  1. a cancelled repeat's count never reaches the next replay: `R`, `repeat-replay 5 1`, then Esc, n, another
#     key, a resize or a new filter, then `r` and `y` send exactly one POST (issue 25.1); `y` on the repeat sends 5;
#  2. `e` hands the terminal to an editor that reads it (a script doing `read </dev/tty` and adding the line to
#     the body, and the real vim with `:wq` typed through tmux), and sends the edit only after `y` (issue 25.2);
#  3. bracketed paste: 10,000 characters pasted into the filter prompt answer at once, an Esc inside a paste does
#     not cancel the prompt, a `y` pasted at a question does not answer it, a paste outside a prompt runs nothing,
#     and paste mode is off once the TUI quits (issue 26.7);
#  4. a keys.toml too deep for the TOML parser (30,000 dotted parts in 60 KB) is one `loupe:` line and exit 2,
#     not a SIGSEGV (issue 26.6);
#  5. nothing leaves without approval (issue 43.1–3): `e` on a recorded DELETE with the real vim and `:q!` sends
#     nothing; a real edit (`:s`, `:wq`) asks, listing what changed, and `y` sends it once; a PUT's body keeps its
#     20 bytes through an edit of a header (43.11); `r` and `R` on a PUT or DELETE ask; a repeat of 2,000 stops on
#     Esc with `stopped after N of 2,000`; `q` and Ctrl-C during a repeat wait for the sends in flight, so the
#     server's count and the store's always agree.
#
# Every check waits for the screen (polling, up to $LOUPE_E2E_WAIT seconds, 20 by default) instead of sleeping.
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
wait_limit="${LOUPE_E2E_WAIT:-20}"
work=$(mktemp -d)
session="safety"
started=$SECONDS
pids=()
cleanup() {
  tm kill-server 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys
type_text() { tm send-keys -t "$session" -l -- "$1"; }
# paste FILE: the file's bytes as one bracketed paste (tmux adds ESC[200~ … ESC[201~ when the program asked).
paste() { tm load-buffer -b e2e "$1" && tm paste-buffer -p -r -b e2e -t "$session"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.1; done; fail "server on $1 never came up"; }
orders() { python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$port/count')).get('POST /orders', 0))"; }
# expect_orders N WHAT: the server has received N POST /orders in all.
expect_orders() {
  local seen
  seen=$(orders)
  [ "$seen" = "$1" ] || fail "$2: the server received $seen POST /orders in all, want $1"
}

port=$(free_port)
python3 "$here/replay-server.py" "$port" a >/dev/null 2>&1 & pids+=($!)
wait_port "$port"
store="$work/traces.sqlite"
"$loupe" send POST "http://127.0.0.1:$port/orders" --json '{"item":"book"}' --store "$store" >/dev/null 2>&1 \
  || fail "recording POST /orders"
expect_orders 1 "the recording"
target="POST http://127.0.0.1:$port/orders"

# An editor that reads the terminal, as nano and vim do: a line typed into it is written beside the file.
cat > "$work/tty-editor.sh" <<EOF
#!/bin/sh
printf 'editor: type a line> ' > /dev/tty
IFS= read -r line < /dev/tty || exit 3
printf '%s\n' "\$line" > $(printf %q "$work/editor-read.txt")
printf '%s' "\$line" >> "\$1"
EOF
chmod +x "$work/tty-editor.sh"

# start EDITOR [SIZE]: the TUI in a shell that records the terminal's settings and, after it quits, reads one
# pasted line (to see whether paste mode was left on).
start() {
  mkdir -p "$work/home"
  cat > "$work/run.sh" <<EOF
#!/bin/sh
# Ctrl-C is the TUI's (it quits, then exits 130): this shell lives on to write down how it ended.
trap '' INT
stty -g > $(printf %q "$work/stty-before.txt")
env -u LOUPE_STORE -u VISUAL HOME=$(printf %q "$work/home") XDG_CONFIG_HOME=$(printf %q "$work/home/config") \\
  XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color EDITOR=$(printf %q "$1") \\
  $(printf %q "$loupe") tui $(printf %q "$store")
echo "\$?" > $(printf %q "$work/exit.txt")
stty -g > $(printf %q "$work/stty-after.txt")
echo "shell: paste a line"
IFS= read -r line
printf '%s\n' "\$line" | od -c > $(printf %q "$work/after-exit.txt")
exec sleep 600
EOF
  rm -f "$work/exit.txt" "$work/after-exit.txt"
  tm kill-server 2>/dev/null
  # kill-server returns before the old server has let go of its socket: a new session may be refused for a moment.
  local tries=0
  until tm new-session -d -s "$session" -x 100 -y 30 "sh $(printf %q "$work/run.sh")" 2>/dev/null; do
    tries=$((tries + 1)); [ $tries -lt 50 ] || fail "tmux could not start"; sleep 0.1
  done
  wait_for any "${2:-/orders}"
}
status_row=28
footer_row=29

# ask_five: R, the prompt changed to `repeat-replay 5 1`, Enter: the question shows the count and concurrency.
ask_five() {
  keys R
  wait_for $status_row ":repeat-replay 10 2"
  wait_for $footer_row "repeat 10 times, 2 at once"
  keys C-u
  type_text "repeat-replay 5 1"
  wait_for $footer_row "repeat 5 times, 1 at once"
  keys Enter
  wait_for $status_row "Replay? y/N · sends $target 5× (1 at once)"
  wait_for $footer_row "y sends it, any other key cancels · POST may change the server"
}
# replay_once N WHAT: r, the question says once, y: the server has N POSTs in all.
replay_once() {
  keys r
  wait_for $status_row "Replay? y/N · sends $target once"
  keys y
  wait_for $status_row "replayed POST /orders → 201"
  expect_orders "$1" "$2"
}

echo "-- 1. a cancelled repeat's count never reaches the next replay"
start "$work/tty-editor.sh"
total=1
for answer in Escape n j; do
  ask_five
  keys "$answer"
  wait_for $status_row "replay cancelled; nothing was sent"
  expect_orders $total "after $answer on the question"
  total=$((total + 1))
  replay_once $total "r, y after $answer on a 5× question"
  ok "R 5 1, $answer: nothing sent; then r, y sends exactly one POST ($total received in all)"
done

ask_five
tm resize-window -t "$session" -x 120 -y 35
wait_for 33 "Replay? y/N · sends $target 5× (1 at once)"
tm resize-window -t "$session" -x 100 -y 30
wait_for $status_row "Replay? y/N · sends $target 5×"
keys Escape
wait_for $status_row "replay cancelled"
total=$((total + 1))
replay_once $total "r, y after a resize and Esc"
ok "a resize keeps the 5× question on screen; Esc, then r, y sends one"

ask_five
keys f
wait_for $status_row "replay cancelled"
keys f
wait_for $status_row "filter:"
type_text "~m POST"
keys Enter
wait_for 0 "~m POST"
total=$((total + 1))
replay_once $total "r, y after a new filter"
ok "a new filter after a cancelled 5× question: r, y sends one"

ask_five
keys y
wait_for $status_row "repeated 5× POST 127.0.0.1/orders: 201 ×5"
total=$((total + 5))
expect_orders $total "y on the 5× question"
ok "y on the 5× question sends exactly 5"

echo "-- 2. e hands the terminal to an editor that reads it"
ask_five
keys Escape
wait_for $status_row "replay cancelled"
keys e
wait_for any "editor: type a line>"
type_text "typed into the editor"
keys Enter
wait_for $status_row "Replay? y/N · sends the edited $target once"
[ "$(cat "$work/editor-read.txt" 2>/dev/null)" = "typed into the editor" ] || fail "the editor did not read the terminal"
keys y
wait_for $status_row "replayed POST /orders → 201"
total=$((total + 1))
expect_orders $total "e, y after a cancelled 5× question"
ok "an editor reading /dev/tty gets the terminal; after a cancelled 5× question, e then y sends one"

echo "-- 3. bracketed paste"
python3 -c "print('~u /' + 'a' * 9990 + '/ ', end='')" > "$work/paste-10k.txt"
keys f
wait_for $status_row "filter:"
keys C-u
wait_for $status_row "filter:"
t0=$(date +%s%N)
paste "$work/paste-10k.txt"
wait_for $status_row "aaaaa/"
t1=$(date +%s%N)
paste_ms=$(( (t1 - t0) / 1000000 ))
[ $paste_ms -lt 2000 ] || fail "10,000 pasted characters took $paste_ms ms to show"
printf '\033 &' > "$work/paste-esc.txt"
paste "$work/paste-esc.txt"
wait_for $status_row "filter: aaaa"
wait_for $status_row "aaaaa/  &"
ok "10,000 pasted characters in the filter prompt show in $paste_ms ms (tmux and polling included); an Esc inside a paste keeps the prompt"
keys Escape
wait_for $footer_row "? help"
ask_five
printf 'y' > "$work/paste-y.txt"
paste "$work/paste-y.txt"
wait_for $status_row "replay cancelled; nothing was sent"
expect_orders $total "a pasted y at the question"
printf 'rRyq' > "$work/paste-keys.txt"
paste "$work/paste-keys.txt"
wait_for $status_row "a paste goes into a prompt"
expect_orders $total "a paste of r R y q outside a prompt"
ok "a pasted y does not answer the question; a pasted 'rRyq' outside a prompt runs nothing"

keys q
for _ in $(seq 100); do [ -s "$work/exit.txt" ] && break; sleep 0.1; done
[ "$(cat "$work/exit.txt" 2>/dev/null)" = 0 ] || fail "the TUI did not exit 0"
[ "$(cat "$work/stty-before.txt")" = "$(cat "$work/stty-after.txt")" ] || fail "the terminal modes changed"
wait_for any "shell: paste a line"
printf 'after-exit\n' > "$work/paste-after.txt"
paste "$work/paste-after.txt"
for _ in $(seq 100); do [ -s "$work/after-exit.txt" ] && break; sleep 0.1; done
grep -q '033' "$work/after-exit.txt" && fail "paste mode left on after quitting: $(cat "$work/after-exit.txt")"
grep -q 'a   f   t   e   r' "$work/after-exit.txt" || fail "the shell did not get the paste: $(cat "$work/after-exit.txt")"
ok "q exits 0 with the terminal's modes as before and paste mode off (a paste reaches the shell as plain text)"

echo "-- 4. e with the real vim"
if command -v vim >/dev/null; then
  start vim
  keys e
  wait_for any "loupe-edit-"
  keys Escape
  type_text ":wq"
  keys Enter
  wait_for $status_row "edit: the request is as recorded; nothing was sent"
  expect_orders $total "vim's :wq without a change"
  ok "e opens the real vim on the terminal; :wq without a change asks nothing and sends nothing (issue 43.1)"
  keys q
  # The next start kills this tmux server: only once the TUI has gone.
  for _ in $(seq 100); do [ -s "$work/exit.txt" ] && break; sleep 0.1; done
else
  fail "vim is not installed (.ci/run installs it)"
fi

echo "-- 5. issue 43: an aborted edit, a PUT or DELETE, a repeat: nothing leaves without approval, all is recorded"
if ! command -v vim >/dev/null; then fail "vim is not installed (.ci/run installs it)"; fi
# seen KEY: how many "METHOD /path" the server received; last FIELD KEY: a field of the last such request.
seen() { python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$port/count')).get(sys.argv[1], 0))" "$1"; }
last() { python3 -c "import json,sys,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$port/seen')).get(sys.argv[2], {}).get(sys.argv[1]))" "$1" "$2"; }
expect_seen() { local got; got=$(seen "$1"); [ "$got" = "$2" ] || fail "$3: the server received $got × $1, want $2"; }
# stored_slow: the replays of GET /slow in the store.
stored_slow() { sqlite3 "$store" "SELECT COUNT(*) FROM exchange WHERE url LIKE '%/slow' AND replay_of IS NOT NULL"; }
filter_to() {
  keys f
  wait_for $status_row "filter:"
  keys C-u
  type_text "$1"
  keys Enter
  wait_for 0 "$1"
}
store="$work/accounts.sqlite"
accounts="http://127.0.0.1:$port/accounts"
"$loupe" send DELETE "$accounts/42" --store "$store" >/dev/null 2>&1 || fail "recording DELETE /accounts/42"
"$loupe" send PUT "$accounts/42" --json '{"a":"0123456789ab"}' --store "$store" >/dev/null 2>&1 || fail "recording PUT"
"$loupe" send GET "http://127.0.0.1:$port/slow" --store "$store" >/dev/null 2>&1 || fail "recording GET /slow"
[ "$(last body_length "PUT /accounts/42")" = 20 ] || fail "the recorded PUT's body is not 20 bytes"
start vim "/slow"
filter_to "~m DELETE"
keys r
wait_for $status_row "Replay? y/N · sends DELETE $accounts/42 once"
wait_for $footer_row "DELETE may change the server"
keys n
wait_for $status_row "replay cancelled; nothing was sent"
expect_seen "DELETE /accounts/42" 1 "r, n on a DELETE"
ok "r on a recorded DELETE asks, naming method, target and count; n sends nothing"
keys e
wait_for any "loupe-edit-"
keys Escape
type_text ":q!"
keys Enter
wait_for $status_row "edit: the file was not changed; nothing was sent"
expect_seen "DELETE /accounts/42" 1 "e, vim :q!"
ok "e, vim, :q! on a DELETE sends nothing and says so"
keys e
wait_for any "loupe-edit-"
keys Escape
type_text ":1s#/42 #/43 #"
keys Enter
type_text ":wq"
keys Enter
wait_for $status_row "Replay? y/N · sends the edited DELETE $accounts/43 once"
wait_for $footer_row "changed: URL /accounts/42 → /accounts/43"
expect_seen "DELETE /accounts/43" 0 "the edited DELETE before y"
keys y
wait_for $status_row "replayed DELETE /accounts/43 → 200"
expect_seen "DELETE /accounts/43" 1 "y on the edited DELETE"
expect_seen "DELETE /accounts/42" 1 "y on the edited DELETE"
ok "e, vim, :s and :wq asks about the edited DELETE, listing the change; y sends it once"

filter_to "~m PUT"
keys e
wait_for any "loupe-edit-"
keys Escape
type_text ":wq"
keys Enter
wait_for $status_row "edit: the request is as recorded; nothing was sent"
expect_seen "PUT /accounts/42" 1 "e, vim :wq without a change"
keys e
wait_for any "loupe-edit-"
keys Escape
type_text ':2s/^/X-Edited: 1\r/'
keys Enter
type_text ":wq"
keys Enter
wait_for $status_row "Replay? y/N · sends the edited PUT $accounts/42 once"
wait_for $footer_row "changed: header X-Edited added"
keys y
wait_for $status_row "replayed PUT /accounts/42 → 200"
expect_seen "PUT /accounts/42" 2 "y on the edited PUT"
[ "$(last body_length "PUT /accounts/42")" = 20 ] || fail "the edited PUT's body is $(last body_length "PUT /accounts/42") bytes, want 20"
ok "vim's :wq alone sends nothing; a header added in vim asks, and the PUT's body goes out at 20 bytes, as recorded"
keys R
wait_for $status_row ":repeat-replay 10 2"
keys C-u
type_text "repeat-replay 3 1"
keys Enter
wait_for $status_row "Replay? y/N · sends PUT $accounts/42 3× (1 at once)"
keys Escape
wait_for $status_row "replay cancelled; nothing was sent"
expect_seen "PUT /accounts/42" 2 "R 3 1, Esc on a PUT"
ok "R on a PUT asks with the count; Esc sends nothing"

filter_to "~u /slow"
keys R
wait_for $status_row ":repeat-replay 10 2"
keys C-u
type_text "repeat-replay 2000 1"
keys Enter
wait_for $status_row "repeating GET 127.0.0.1/slow: [0-9]+ of 2,000… Esc stops it" regex
keys Escape
wait_for $status_row "stopped after [0-9,]+ of 2,000 · GET 127.0.0.1/slow: 200 ×" regex
stopped=$(row $status_row | sed -E 's/.*stopped after ([0-9,]+) of.*/\1/' | tr -d ,)
[ "$stopped" -lt 2000 ] || fail "the repeat was not stopped"
expect_seen "GET /slow" $((stopped + 1)) "Esc on a repeat"
[ "$(stored_slow)" = "$stopped" ] || fail "Esc on a repeat: $(stored_slow) replays stored, the server received $stopped"
sleep 0.5
expect_seen "GET /slow" $((stopped + 1)) "half a second after the stop"
ok "Esc stops a repeat of 2,000 after $stopped; the server got exactly those, and the store has all of them"

for how in q C-c; do
  keys R
  wait_for $status_row ":repeat-replay 10 2"
  keys C-u
  type_text "repeat-replay 2000 2"
  keys Enter
  wait_for $status_row "repeating GET 127.0.0.1/slow: [0-9]*[1-9][0-9]* of 2,000" regex
  rm -f "$work/exit.txt"
  keys "$how"
  for _ in $(seq 200); do [ -s "$work/exit.txt" ] && break; sleep 0.1; done
  want=0; [ "$how" = C-c ] && want=130
  [ "$(cat "$work/exit.txt" 2>/dev/null)" = "$want" ] || fail "$how during a repeat: exit $(cat "$work/exit.txt" 2>/dev/null), want $want"
  sent=$(( $(seen "GET /slow") - 1 ))
  [ "$(stored_slow)" = "$sent" ] || fail "$how during a repeat: the server received $sent replays, the store has $(stored_slow)"
  ok "$how during a repeat: exit $want; the server received $sent replays of GET /slow in all, and the store has every one"
  if [ "$how" = q ]; then start vim "/slow"; filter_to "~u /slow"; fi
done

echo "-- 6. a keys.toml too deep for the TOML parser"
mkdir -p "$work/deep/loupe"
python3 -c "print('a.' * 30000 + 'a = 1')" > "$work/deep/loupe/keys.toml"
size=$(stat -c %s "$work/deep/loupe/keys.toml")
[ "$size" -lt 65536 ] || fail "the test file is over the size cap ($size bytes)"
env -u LOUPE_STORE XDG_CONFIG_HOME="$work/deep" "$loupe" tui "$store" < /dev/null > "$work/out.txt" 2> "$work/err.txt"
code=$?
[ $code = 2 ] || fail "a 30,000-part key: exit $code, want 2 ($(head -c 300 "$work/err.txt"))"
[ "$(wc -l < "$work/err.txt")" = 1 ] || fail "more than one line on stderr: $(head -c 300 "$work/err.txt")"
grep -q '^loupe: .*keys.toml:1: a key or \[section\] name of more than 16 dotted parts$' "$work/err.txt" \
  || fail "unexpected message: $(cat "$work/err.txt")"
ok "a keys.toml of 30,000 dotted parts ($size bytes): exit 2, '$(cat "$work/err.txt")'"

echo "e2e-tui-safety: $passed passed ($((SECONDS - started)) s)"
