#!/usr/bin/env bash
# The TUI (`loupe tui`) on the real binary under tmux, over a store of 12,000 imported exchanges: the
# position and g/G over the whole store, the filter prompt (a bad filter's error, then a good one, then clearing
# it), a sort change, marks, the detail tabs, `x` writing a HAR that `loupe import` reads back, the terminal
# restored on quit, and the store left byte-identical by viewing it.
#
# Every check waits for the screen to show what it expects (polling every 0.1 s, up to $LOUPE_E2E_WAIT seconds,
# 20 by default) instead of sleeping, so a loaded 2-core machine makes it slower, not flaky.
set -uo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 PATH/TO/loupe" >&2; exit 2; }
loupe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
wait_limit="${LOUPE_E2E_WAIT:-20}"
work=$(mktemp -d)
session="tui"
started=$SECONDS
cleanup() {
  tm kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/tmux-screen.sh"   # tm, ok, fail, pane, row, wait_for, keys

# The screen, one line per row (0-based rows: 0 title, 1 column header, 2 first row, 38 status, 39 footer).
# expect_row ROW PATTERN: the screen as last captured shows PATTERN on ROW (for facts that arrive with a frame
# already waited for).
expect_row() { row "$1" | grep -qF -- "$2" || fail "row $1 does not show '$2': '$(row "$1")'"; }
type_text() { tm send-keys -t "$session" -l -- "$1"; }
fingerprint() { echo "$(cat "$1" "$1-wal" 2>/dev/null | sha256sum | cut -d' ' -f1) $(stat -c '%a %s' "$1")"; }
status_row=38
prompt_error_row=39

echo "-- a store of more than 10,000 exchanges, from a HAR written here"
python3 - "$work/big.har" "$work/facts.txt" <<'EOF'
import json, sys
N = 12000
entries, posts = [], 0
for i in range(1, N + 1):
    post = i % 8 == 3
    posts += post
    # The first imported is easy to recognise, and one exchange takes far longer than all the others.
    path = "/first-exchange" if i == 1 else "/the-longest-one" if i == 5000 else "/items/%d" % i
    time = 90000 if i == 5000 else 5 + i % 400
    request = {"method": "POST" if post else "GET", "url": "http://e2e.example.test" + path,
               "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [],
               "headersSize": -1, "bodySize": 0}
    entries.append({
        "startedDateTime": "2024-01-01T%02d:%02d:%02d.000Z" % (i // 3600, i // 60 % 60, i % 60),
        "time": time, "request": request,
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                     "content": {"size": 2, "mimeType": "application/json", "text": "{}"},
                     "redirectURL": "", "headersSize": -1, "bodySize": 2},
        "cache": {}, "timings": {"send": 1, "wait": time - 2, "receive": 1}})
json.dump({"log": {"version": "1.2", "creator": {"name": "e2e-tui", "version": "1"}, "entries": entries}},
          open(sys.argv[1], "w"))
open(sys.argv[2], "w").write("%s %s\n" % (format(N, ","), format(posts, ",")))
EOF
[ $? -eq 0 ] || fail "could not write the HAR"
read -r total posts < "$work/facts.txt"
store="$work/big.sqlite"
import_start=$SECONDS
timeout 120 "$loupe" import "$work/big.har" --store "$store" > /dev/null 2> "$work/err.txt" \
  || fail "loupe import of the generated HAR failed: $(head -c 400 "$work/err.txt")"
echo "   store of $total exchanges imported in $((SECONDS - import_start)) s"

# The TUI runs in a shell that records the terminal's settings before and after it, and its exit status.
# HOME and the XDG folders point into the work folder: no user keys.toml applies, and the filter history the
# TUI keeps is written here.
mkdir -p "$work/home"
cat > "$work/run.sh" <<EOF
#!/bin/sh
stty -g > $(printf %q "$work/stty-before.txt")
env -u LOUPE_STORE HOME=$(printf %q "$work/home") XDG_CONFIG_HOME=$(printf %q "$work/home/config") \\
  XDG_STATE_HOME=$(printf %q "$work/home/state") TERM=xterm-256color \\
  $(printf %q "$loupe") tui $(printf %q "$store")
echo "\$?" > $(printf %q "$work/exit.tmp")
stty -g > $(printf %q "$work/stty-after.txt")
stty -a > $(printf %q "$work/stty-after-a.txt")
mv $(printf %q "$work/exit.tmp") $(printf %q "$work/exit.txt")
exec sleep 600
EOF
store_before=$(fingerprint "$store")
tm new-session -d -s "$session" -x 120 -y 40 "sh $(printf %q "$work/run.sh")" || fail "tmux could not start"

echo "-- 1. the whole store: position, g, G"
wait_for 0 "Loupe │ exchanges │"
wait_for $status_row " $total / $total"
expect_row 0 "$total · time↑"
ok "tui opens a $total-exchange store at the newest: position '$total / $total'"
keys g
wait_for $status_row " 1 / $total"
wait_for 2 "e2e.example.test/first-exchange"
ok "g reaches exchange #1: position '1 / $total', the first imported URL on the first row"
keys G
wait_for $status_row " $total / $total"
wait_for any "e2e.example.test/items/12000"
ok "G goes back to the newest"

echo "-- 2. the filter prompt"
keys f
wait_for $status_row "filter:"
type_text "~c 9x"
wait_for $prompt_error_row "^ at 4:"
expect_row $status_row "filter: ~c 9x"
ok "a bad filter is marked while typing: '$(row $prompt_error_row | sed 's/^ *//')'"
keys C-u
type_text "~m POST"
wait_for $status_row "filter: ~m POST"
wait_for $prompt_error_row "Enter apply"
keys Enter
wait_for 0 "│ ~m POST"
wait_for 0 "$posts shown"
wait_for $status_row " / $posts"
ok "fixed to '~m POST' and applied: the title shows the filter and $posts shown of $total"
keys f
wait_for $status_row "filter: ~m POST"
keys C-u Enter
wait_for 0 " $total · time↑"
if row 0 | grep -qF "~m POST"; then fail "the cleared filter is still in the title: $(row 0)"; fi
wait_for $status_row " / $total"
ok "f, Ctrl-U, Enter clears the filter: $total again"
grep -rqF -- "~m POST" "$work/home/state/loupe/history" 2>/dev/null \
  || fail "the applied filter was not kept in \$XDG_STATE_HOME/loupe/history"
ok "the applied filter is kept in the XDG state folder's history"

echo "-- 3. a sort change"
keys o
wait_for 1 "DUR↓"
expect_row 0 "duration↓"
keys v
wait_for 1 "DUR↑"
expect_row 0 "duration↑"
keys v
wait_for 1 "DUR↓"
keys g
wait_for $status_row " 1 / $total"
wait_for 2 "e2e.example.test/the-longest-one"
expect_row 2 "90.0 s"
ok "o sorts by duration starting with the slowest (DUR↓), v reverses it (DUR↑), and the first row is the longest exchange"

echo "-- 4. marks"
keys m m
wait_for 0 "●2"
wait_for $status_row " 3 / $total"
[ "$(grep -c '^●' "$work/pane.txt")" -eq 2 ] || fail "m twice did not mark two rows"
ok "m twice marks two rows and moves down: the title shows ●2"
keys M
wait_for 0 "●2 only"
wait_for $status_row " [12] / 2 *$" regex
expect_row 0 "2 shown"
[ "$(grep -c '^●' "$work/pane.txt")" -eq 2 ] && [ -z "$(row 4 | tr -d ' ')" ] || fail "M shows more than the 2 marked rows"
ok "M shows only the 2 marked"
keys U
wait_for 0 " $total · duration↓"
if row 0 | grep -qF "●"; then fail "U left marks in the title: $(row 0)"; fi
wait_for $status_row " / $total"
ok "U unmarks all and shows the whole list again"

echo "-- 5. the detail tabs"
keys g Enter
wait_for 0 "exchanges › detail"
wait_for 1 "GET http://e2e.example.test/the-longest-one"
wait_for 3 "Request │ Response │ Attempts"
wait_for any "Request  GET http://e2e.example.test/the-longest-one"
ok "Enter opens the detail of the selected exchange on its Request tab"
keys Tab
wait_for any "Response  200 OK"
keys Tab
wait_for any "phases    send 1.0 ms"
keys Tab
wait_for any "No events recorded"
keys Tab
wait_for any "▒ send  ░ wait"
ok "Tab steps through Response, Attempts, Events and Timing"
keys BTab
wait_for any "No events recorded"
ok "Shift-Tab steps back"
keys q
wait_for 0 "Loupe │ exchanges │"
wait_for 2 "the-longest-one"
ok "q goes back to the exchanges list"

echo "-- 6. x writes a HAR that loupe import reads"
keys m m
wait_for 0 "●2"
keys x
wait_for $status_row ":export marked har loupe-export-"
ok "x opens the command prompt prefilled with '$(row $status_row | sed 's/ *$//')'"
keys C-u
type_text "export marked har $work/out.har"
wait_for $status_row ":export marked har $work/out.har"
keys Enter
wait_for $status_row "wrote 2 exchanges as HAR"
[ -s "$work/out.har" ] || fail "the status says written, but $work/out.har is missing or empty"
python3 - "$work/out.har" <<'EOF' || fail "the exported file is not a HAR 1.2 of the 2 marked exchanges"
import json, sys
log = json.load(open(sys.argv[1]))["log"]
urls = [e["request"]["url"] for e in log["entries"]]
assert log["version"] == "1.2" and len(urls) == 2, urls
assert "http://e2e.example.test/the-longest-one" in urls, urls
EOF
timeout 60 "$loupe" import "$work/out.har" --store "$work/back.sqlite" > /dev/null 2> "$work/err.txt" \
  || fail "loupe import of the exported HAR failed: $(head -c 400 "$work/err.txt")"
"$loupe" list "$work/back.sqlite" --json > "$work/back.json" 2> "$work/err.txt" || fail "loupe list failed: $(cat "$work/err.txt")"
python3 - "$work/back.json" <<'EOF' || fail "loupe list on the imported export does not show the 2 exchanges: $(head -c 600 "$work/back.json")"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 2, len(rows)
assert any("the-longest-one" in json.dumps(r) for r in rows), rows
EOF
ok "the status says 'wrote 2 exchanges as HAR'; loupe import reads the file and loupe list shows the 2"

echo "-- 7. quitting restores the terminal; viewing left the store as it was"
keys q
deadline=$((SECONDS + wait_limit))
until [ -s "$work/exit.txt" ]; do
  [ $SECONDS -lt $deadline ] || { pane; fail "q did not quit the TUI within $wait_limit s"; }
  sleep 0.1
done
[ "$(cat "$work/exit.txt")" = 0 ] || fail "loupe tui exited $(cat "$work/exit.txt"), want 0"
grep -q -- ' icanon' "$work/stty-after-a.txt" && grep -q -- ' echo ' "$work/stty-after-a.txt" \
  || fail "the terminal was left raw: $(cat "$work/stty-after-a.txt")"
cmp -s "$work/stty-before.txt" "$work/stty-after.txt" \
  || fail "the terminal settings differ after quitting: $(cat "$work/stty-before.txt") -> $(cat "$work/stty-after.txt")"
ok "q quits with status 0 and the terminal's settings are exactly as before (icanon, echo)"
[ "$(fingerprint "$store")" = "$store_before" ] || fail "viewing changed the store: $store_before -> $(fingerprint "$store")"
ok "the store and its WAL are byte-identical after the whole session"

echo "e2e-tui: $passed passed, 0 failed ($((SECONDS - started)) s)"
