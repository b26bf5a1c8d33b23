#!/usr/bin/env bash
# The inspector's promises about what it sends and what it takes as keys, on the real binary under tmux, against
# .ci/replay-server.py (written apart from Loupe), which counts the requests it received:
#
#  1. a cancelled repeat's count never reaches the next replay: `R`, `repeat-replay 5 1`, then Esc, n, another
#     key, a resize or a new filter, then `r` and `y` send exactly one POST (issue 25.1); `y` on the repeat sends 5;
#  2. `e` hands the terminal to an editor that reads it (a script doing `read </dev/tty`, and the real vim with
#     `:wq` typed through tmux), and sends the edit only after `y` (issue 25.2);
#  3. bracketed paste: 10,000 characters pasted into the filter prompt answer at once, an Esc inside a paste does
#     not cancel the prompt, a `y` pasted at a question does not answer it, a paste outside a prompt runs nothing,
#     and paste mode is off once the inspector quits (issue 26.7);
#  4. a keys.toml too deep for the TOML parser (30,000 dotted parts in 60 KB) is one `loupe:` line and exit 2,
#     not a SIGSEGV (issue 26.6).
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
EOF
chmod +x "$work/tty-editor.sh"

# start EDITOR [SIZE]: the inspector in a shell that records the terminal's settings and, after it quits, reads one
# pasted line (to see whether paste mode was left on).
start() {
  mkdir -p "$work/home"
  cat > "$work/run.sh" <<EOF
#!/bin/sh
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
  tm new-session -d -s "$session" -x 100 -y 30 "sh $(printf %q "$work/run.sh")" || fail "tmux could not start"
  wait_for any "/orders"
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
  wait_for $footer_row "y sends it, any other key cancels · POST is not idempotent"
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
[ "$(cat "$work/exit.txt" 2>/dev/null)" = 0 ] || fail "the inspector did not exit 0"
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
  wait_for $status_row "Replay? y/N · sends the edited $target once"
  expect_orders $total "vim's :wq before y"
  keys y
  wait_for $status_row "replayed POST /orders → 201"
  total=$((total + 1))
  expect_orders $total "y after vim"
  ok "e opens the real vim on the terminal; :wq, then y sends the edit once"
  keys q
else
  fail "vim is not installed (.ci/run installs it)"
fi

echo "-- 5. a keys.toml too deep for the TOML parser"
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
