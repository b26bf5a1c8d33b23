# Shared by the live link's benchmark scripts (link-budget.sh, link-callgrind.sh): sourced, not run.

# free_port: a TCP port free on 127.0.0.1 now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# wait_link FILE: sets $link from the LOUPE_LINK= line a listener prints (up to 60 s: a listener under valgrind is slow).
wait_link() {
  link=
  for _ in $(seq 600); do
    # Not there yet while the background job opens it; `head` would end sed early (pipefail).
    link=$(sed -n 's/^LOUPE_LINK=//p' "$1" 2>/dev/null | sed -n 1p || true)
    [ -n "$link" ] && return 0
    sleep 0.1
  done
  echo "no LOUPE_LINK line in $1:" >&2; cat "$1" >&2; exit 1
}
