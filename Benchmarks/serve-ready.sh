#!/usr/bin/env bash
# Benchmarks/serve-ready.sh LOUPE SOURCE: how long `loupe serve SOURCE` takes to print its start line, and its RSS then.
# A 100,000-entry HAR for it: python3 Benchmarks/serve-har.py OUT.har.
loupe="$1"; har="$2"
out=$(mktemp)
start=$(date +%s.%N)
"$loupe" serve "$har" --port 0 > "$out" 2>&1 &
pid=$!
until grep -q '^loupe serve:' "$out"; do sleep 0.02; done
end=$(date +%s.%N)
rss=$(grep VmRSS /proc/$pid/status | awk '{print $2}')
hwm=$(grep VmHWM /proc/$pid/status | awk '{print $2}')
echo "ready after $(python3 -c "print(round($end-$start,2))") s; RSS $((rss/1024)) MB, peak $((hwm/1024)) MB"
head -1 "$out"
kill $pid; rm -f "$out"
