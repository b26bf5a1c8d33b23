# Shared by the end-to-end scripts that drive the real TUI under tmux (sourced, not run). The script sets
# `work` (its temporary folder), `session`, `wait_limit` (seconds) and `started` before sourcing this, and keeps its
# own `cleanup`. A tmux server of its own, its socket in the work folder: no other session is touched, no socket
# file is left.
tm() { tmux -S "$work/tmux.sock" -f /dev/null "$@"; }
script_name="$(basename "$0" .sh)"
passed=0
ok() { passed=$((passed + 1)); echo "ok $passed - $*"; }
fail() {
  echo "not ok $((passed + 1)) - $*"
  if [ -s "$work/pane.txt" ]; then echo "-- the screen:"; sed 's/^/   |/' "$work/pane.txt"; fi
  echo "$script_name: $passed passed, 1 failed ($((SECONDS - started)) s)"
  exit 1
}
pane() { tm capture-pane -p -t "$session" > "$work/pane.txt" 2>/dev/null || : > "$work/pane.txt"; }
row() { sed -n "$(($1 + 1))p" "$work/pane.txt"; }
# wait_for ROW PATTERN [fixed|regex]: until screen row ROW ("any" for the whole screen) shows PATTERN.
wait_for() {
  local at="$1" pattern="$2" mode="${3:-fixed}" deadline=$((SECONDS + wait_limit)) flag=-qF
  [ "$mode" = regex ] && flag=-qE
  while :; do
    pane
    if [ "$at" = any ]; then grep $flag -- "$pattern" "$work/pane.txt" && return 0
    else row "$at" | grep $flag -- "$pattern" && return 0; fi
    [ $SECONDS -lt $deadline ] || fail "row $at never showed '$pattern' within $wait_limit s"
    sleep 0.05
  done
}
keys() { tm send-keys -t "$session" "$@"; }
