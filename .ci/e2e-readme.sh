#!/usr/bin/env bash
# Every command in README.md, run as it is written: each line of a ```sh block is executed (a screen-taking command
# under tmux, quit with q), and each ```swift block must compile as written: a whole program is an Examples/ target's main.swift
# byte for byte, Package.swift lines are compiled as a manifest, and a fragment appears word for word in a test, which
# `swift test` compiles and runs. A README command that stops working, or an example that drifts from its test, fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
bin_dir="$(dirname "$1")"
export PATH="$bin_dir:$PATH"
work="$(mktemp -d)"
# A tmux server of this script's own (its socket under $work), so "tmux kill-server" ends only it.
export TMUX_TMPDIR="$work"
trap 'tmux kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export LOUPE_STORE="$work/default.sqlite" XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config"

fail() { echo "e2e-readme: $*" >&2; exit 1; }

# The ```sh blocks' lines, comments and continuation lines joined.
commands="$(awk '
  /^```sh$/ { inside = 1; next }
  /^```$/ { inside = 0; next }
  inside {
    line = $0
    sub(/[ \t]+#.*$/, "", line); if (line ~ /^[ \t]*#/ || line ~ /^[ \t]*$/) next
    if (pending != "") { line = pending " " line; pending = "" }
    if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
    print line
  }' README.md)"
[ -n "$commands" ] || fail "no commands found in README.md"

# The OpenTelemetry collector the README exports to (127.0.0.1:4318, OTLP's port): .ci/otlp-receiver.py, which
# decodes every request with opentelemetry-proto; checked after the commands ran.
[ -n "${LOUPE_CI_PYTHON:-}" ] || fail "LOUPE_CI_PYTHON is unset (.ci/run sets it): the README's OTLP export needs a receiver"
"$LOUPE_CI_PYTHON" .ci/otlp-receiver.py 4318 "$work/otlp.jsonl" > "$work/otlp.port" 2> "$work/otlp.err" &
otlp_receiver=$!
trap 'kill -9 $otlp_receiver 2>/dev/null || true; wait $otlp_receiver 2>/dev/null || true; tmux kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/otlp.port" ] && break; sleep 0.05; done
[ -s "$work/otlp.port" ] || fail "the OTLP receiver did not start on 4318: $(cat "$work/otlp.err")"

ran=0
while IFS= read -r cmd; do
  case "$cmd" in
    "swift test"*) echo "  (run by .ci/run) $cmd"; continue ;;
    "sudo apt-get install"*)
      for p in $(echo "$cmd" | sed 's/.*install -y//'); do
        grep -q -- "$p" .ci/run || fail "README installs $p but .ci/run does not"
      done
      echo "  (packages checked against .ci/run) $cmd"; continue ;;
  esac
  echo "  \$ $cmd"
  if [[ "$cmd" =~ (loupe\ tui|loupe\ demo) && ! "$cmd" =~ --headless ]]; then
    # Takes the screen: run it under tmux at 100x30, wait for the TUI, quit with q.
    tmux kill-server 2>/dev/null || true
    # `swift run` needs the package; a `loupe` command runs where the other commands left their files.
    dir="$work"; [[ "$cmd" == swift* ]] && dir="$PWD"
    tmux new-session -d -x 100 -y 30 -c "$dir" "env PATH='$PATH' LOUPE_STORE='$LOUPE_STORE' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' $cmd; echo EXIT=\$?; sleep 30"
    ok=""
    for _ in $(seq 1 600); do
      if tmux capture-pane -p | grep -q 'Loupe │'; then ok=1; break; fi
      sleep 0.1
    done
    [ -n "$ok" ] || { tmux capture-pane -p; fail "'$cmd' never showed the TUI"; }
    sleep 1
    tmux send-keys q
    for _ in $(seq 1 100); do tmux capture-pane -p | grep -q 'EXIT=' && break; sleep 0.1; done
    tmux capture-pane -p | grep -q 'EXIT=0' || { tmux capture-pane -p; fail "'$cmd' did not quit cleanly with q"; }
    tmux kill-server 2>/dev/null || true
  else
    (cd "$work" && bash -c "$cmd") > "$work/out" 2>&1 || { cat "$work/out"; fail "'$cmd' failed"; }
  fi
  ran=$((ran + 1))
done <<< "$commands"

if grep -q -- '--otlp' README.md; then
  [ -s "$work/otlp.jsonl" ] || fail "the README's loupe export --otlp sent no span to the receiver"
  echo "  (the receiver on 4318 decoded $(wc -l < "$work/otlp.jsonl") spans)"
fi

# Each Swift example, word for word in a test.
examples=0
awk '/^```swift$/ { n++; inside = 1; next } /^```$/ { inside = 0 } inside { print > (dir "/example-" n ".swift") }' \
  dir="$work" README.md
manifests=0 programs=0
for example in "$work"/example-*.swift; do
  [ -e "$example" ] || break
  case "$(head -n 1 "$example")" in
    "// Package.swift")
      # Package.swift lines: put into a manifest of a package beside a clone named `loupe` (the name the lines use
      # after `package:`), which SwiftPM must compile as written.
      pkg="$work/manifest-$manifests/MyApp"; mkdir -p "$pkg/Sources/MyApp"; ln -s "$PWD" "$work/manifest-$manifests/loupe"
      echo 'print("MyApp")' > "$pkg/Sources/MyApp/main.swift"
      { echo '// swift-tools-version: 6.1'; echo 'import PackageDescription'; echo 'let package = Package('
        echo '    name: "MyApp",'; echo '    platforms: [.macOS(.v15)],'; tail -n +2 "$example"; echo ')'; } > "$pkg/Package.swift"
      (cd "$pkg" && swift package dump-package > "$work/manifest.json" 2> "$work/manifest.err") \
        || { cat "$pkg/Package.swift" "$work/manifest.err"; fail "the README's Package.swift lines do not compile as a manifest"; }
      grep -q '"identity" : "loupe"' "$work/manifest.json" || fail "the README's manifest does not name the package loupe"
      for product in $(grep -o 'product(name: "[A-Za-z]*"' "$example" | cut -d'"' -f2); do
        grep -q "name: \"$product\"" Package.swift || fail "the README names a product Loupe does not have: $product"
      done
      manifests=$((manifests + 1)); examples=$((examples + 1)); continue ;;
    import\ *)
      # A whole program: byte for byte the main.swift of an Examples/ target, which .ci/e2e-examples.sh builds.
      found=""
      for main in Examples/Sources/*/main.swift; do cmp -s "$example" "$main" && { found="$main"; break; }; done
      [ -n "$found" ] || { cat "$example"; fail "this README program is no Examples/Sources/*/main.swift byte for byte"; }
      programs=$((programs + 1)); examples=$((examples + 1)); continue ;;
  esac
  found=""
  # In a test, or in Examples/, whose package .ci/e2e-examples.sh builds and runs.
  for test in $(grep -rlF "$(head -n 1 "$example")" Tests Examples/Sources); do
    if python3 - "$example" "$test" <<'PY'
import sys
example = open(sys.argv[1]).read().strip("\n")
test = open(sys.argv[2]).read()
# The test may indent the example or wrap it in a function: each paragraph (lines between blank lines) must be in
# the test as written, compared with each line's indentation removed.
strip = lambda text: "\n".join(line.strip() for line in text.splitlines())
paragraphs = [p for p in example.split("\n\n") if p.strip()]
sys.exit(0 if all(strip(p) in strip(test) for p in paragraphs) else 1)
PY
    then found="$test"; break; fi
  done
  [ -n "$found" ] || { cat "$example"; fail "this README example is in no test under Tests/"; }
  examples=$((examples + 1))
done
echo "e2e-readme: $ran commands ran as written, $examples Swift examples checked ($programs whole programs built in Examples/, $manifests Package.swift lines compiled as a manifest, the rest found in tests)"
