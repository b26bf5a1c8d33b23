#!/usr/bin/env bash
# `loupe tui --listen` on screen 5 while a headless demo with one 900 KB mock rule (a valid rules file) is linked
# (issue 44, item 7): the TUI's RSS and CPU every 5 s for 30 s. A tmux server of its own, on its own socket.
#
#   Benchmarks/rules-state-memory.sh .build/debug/loupe
set -u
loupe="$1"
work=$(mktemp -d)
tm() { tmux -S "$work/tmux.sock" -f /dev/null "$@"; }
trap 'kill "${demo:-0}" 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
python3 - "$work/big.toml" <<'PY'
import sys
open(sys.argv[1], "w").write('[[rule]]\nname = "big"\nmatch = "~op getUser"\nmock = { status = 200, body = "'
                             + "x" * 900000 + '" }\n')
PY
"$loupe" rules check "$work/big.toml" || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
tm new-session -d -s m -x 120 -y 40 \
  "env TERM=xterm-256color XDG_STATE_HOME=$work/state $loupe tui --listen 127.0.0.1:$port --store $work/tui.sqlite 2>$work/tui.err; sleep 600"
sleep 2
link=$(grep -m1 '^LOUPE_LINK=' "$work/tui.err" | cut -d= -f2-)
LOUPE_RULES="$work/big.toml" "$loupe" demo --headless --duration 60 --pause 20 --store "$work/demo.sqlite" --link "$link" \
  >/dev/null 2>&1 &
demo=$!
sleep 1
tm send-keys -t m 5
# The TUI itself, not the shell tmux runs it in.
pid=$(for p in $(pgrep -f "tui --listen 127.0.0.1:$port"); do [ "$(cat /proc/"$p"/comm)" = "$(basename "$loupe" | cut -c1-15)" ] && echo "$p"; done | head -1)
for t in 0 5 10 15 20 25 30; do
  [ "$t" = 0 ] || sleep 5
  echo "t=${t}s rss=$(($(awk '/VmRSS/{print $2}' "/proc/$pid/status") / 1024)) MiB cpu=$(ps -o times= -p "$pid" | tr -d ' ') s"
done
tm capture-pane -p -t m | grep -m1 " app" | cut -c1-100
