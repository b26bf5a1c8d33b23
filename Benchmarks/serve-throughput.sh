#!/usr/bin/env bash
# Benchmarks/serve-throughput.sh LOUPE HAR [CONNECTIONS] [SECONDS]: requests/s and p50/p99 of `loupe serve HAR` and
# of `mitmdump --server-replay HAR` (mitmproxy from PyPI, in .ci/venv) under the same load generator
# (Benchmarks/serve-load.py: N keep-alive connections, GET /items/N?v=1 over the HAR of Benchmarks/serve-har.py).
# mitmdump runs as a reverse proxy to the HAR's origin with a lazy upstream connection and unmatched requests killed,
# so neither server ever contacts anything; both listen on 127.0.0.1 only. Run inside `wt NAME run` so the venv's
# paths resolve. mitmproxy is installed by hand (`.ci/venv/bin/pip install mitmproxy`): CI does not run this script,
# and mitmproxy pins an older h11 than httpx (the e2e SSE reader) asks for.
set -u
loupe="$1"; har="$2"; connections="${3:-8}"; seconds="${4:-10}"
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/../.ci/venv/bin"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
up() { for _ in $(seq 1200); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null && return 0; sleep 0.5; done; return 1; }
out=$(mktemp -d)
p=$(port)
"$loupe" serve "$har" --port "$p" > "$out/loupe.out" 2>&1 & pid=$!
up "$p" || { echo "loupe serve never listened"; exit 1; }
echo -n "loupe serve:           "; "$venv/python" "$here/serve-load.py" "$p" --connections "$connections" --seconds "$seconds"
echo "  RSS $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
kill "$pid"; wait "$pid" 2>/dev/null
p=$(port)
"$venv/mitmdump" --mode reverse:https://api.example.com --server-replay "$har" --set server_replay_reuse=true \
  --set connection_strategy=lazy --set server_replay_extra=kill --listen-host 127.0.0.1 -p "$p" -q > "$out/mitm.out" 2>&1 & pid=$!
start=$(date +%s)
up "$p" || { echo "mitmdump never listened"; exit 1; }
echo "mitmdump listening after $(( $(date +%s) - start )) s"
echo -n "mitmdump server-replay: "; "$venv/python" "$here/serve-load.py" "$p" --connections "$connections" --seconds "$seconds"
echo "  RSS $(awk '/VmRSS/ {print int($2/1024)}' /proc/$pid/status) MB"
kill "$pid"; wait "$pid" 2>/dev/null
rm -rf "$out"
