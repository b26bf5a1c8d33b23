#!/usr/bin/env bash
# 10,000 characters pasted (tmux's bracketed paste) into each prompt of the real TUI, five times each: the CPU
# the TUI spent (from /proc, 10 ms ticks, the 0.3 s after the paste included) and the time until tmux's
# screen shows the end of the paste (tmux's own work and the 5 ms polling included). Usage: paste-budget.sh LOUPE
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$1"; work=$(mktemp -d); tm() { tmux -S "$work/s" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
"$loupe" demo --headless --duration 3 --store "$work/t.sqlite" >/dev/null 2>&1
tm new-session -d -s b -x 120 -y 40 "env HOME=$work XDG_STATE_HOME=$work XDG_CONFIG_HOME=$work TERM=xterm-256color $loupe tui $work/t.sqlite"
sleep 2
pid=$(for p in $(pgrep -f "tui $work/t.sqlite"); do [ "$(cat /proc/$p/comm)" = loupe ] && echo "$p"; done | head -1)
cpu() { awk '{print $14+$15}' "/proc/$pid/stat"; }
python3 -c "print('~u /' + 'a' * 9990 + '/ ', end='')" > "$work/p.txt"
for key in f / :; do
  for run in 1 2 3 4 5; do
    tm send-keys -t b "$key"; sleep 0.3
    c0=$(cpu); t0=$(date +%s%N)
    tm load-buffer -b x "$work/p.txt"; tm paste-buffer -p -r -b x -t b
    while ! tm capture-pane -p -t b | tail -2 | head -1 | grep -q 'aaaa/'; do sleep 0.005; done
    t1=$(date +%s%N); sleep 0.3; c1=$(cpu)
    echo "$key run $run: shown after $(( (t1 - t0) / 1000000 )) ms, CPU $(( (c1 - c0) * 10 )) ms"
    tm send-keys -t b Escape; sleep 0.3
  done
done
