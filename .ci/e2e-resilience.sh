#!/usr/bin/env bash
# `loupe send` with resilience flags against nginx (a server nobody on the project wrote): failing, slow,
# authenticating, ETag and TLS endpoints. Every attempt must be printed and recorded.
set -euo pipefail
loupe="$1"
work=$(mktemp -d)
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E-RESILIENCE FAILED: $*"; for f in "$work"/*.txt; do echo "== $f"; cat "$f"; done; exit 1; }
cleanup() { [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

http_port=$(free_port); https_port=$(free_port)
mkdir -p "$work/www/private" "$work/tmp"
chmod 755 "$work"  # nginx workers run as an unprivileged user and must read the web root
echo '{"ok":true}' > "$work/www/ok.json"
echo '{"secret":"area"}' > "$work/www/private/index.json"
head -c 4000 /dev/zero | tr '\0' 'x' > "$work/www/slow.txt"
printf 'demo:%s\n' "$(openssl passwd -apr1 s3cret)" > "$work/htpasswd"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=other" -keyout "$work/other-key.pem" -out "$work/other.pem" 2>/dev/null
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  server {
    listen 127.0.0.1:$http_port;
    root $work/www;
    location = /fail { return 503; }
    location = /slow.txt { limit_rate 200; }
    location /private/ { auth_basic "loupe"; auth_basic_user_file $work/htpasswd; }
  }
  server {
    listen 127.0.0.1:$https_port ssl;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    root $work/www;
  }
}
CONF
nginx -c "$work/nginx.conf" -e "$work/error.log" 2>/dev/null || nginx -c "$work/nginx.conf"
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$http_port),0.2)" 2>/dev/null && break; sleep 0.1; done
store="$work/resilience.sqlite"
base="http://127.0.0.1:$http_port"
last_attempts() { "$loupe" list "$store" --json --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["attempts"])'; }

echo "-- retries against a failing endpoint"
set +e
"$loupe" send GET "$base/fail" --retries 2 --store "$store" > "$work/out.txt" 2> "$work/err.txt"; code=$?
set -e
[ $code -eq 1 ] || fail "503 after retries exited $code"
[ "$(grep -c 'attempt [0-9]: 503' "$work/err.txt")" = 3 ] || fail "three attempts were not printed"
grep -q 'retry' "$work/err.txt" || fail "retry decisions were not printed"
[ "$(last_attempts)" = 3 ] || fail "the store does not hold 3 attempts for the exchange"
ok "503 retried twice, 3 attempts printed and recorded under one exchange"

echo "-- a circuit breaker opens during retries"
set +e
"$loupe" send GET "$base/fail" --retries 4 --breaker --breaker-min-calls 2 --store "$store" > "$work/out.txt" 2> "$work/err.txt"
set -e
grep -qi 'open' "$work/err.txt" || fail "no breaker transition printed"
[ "$(last_attempts)" -lt 5 ] || fail "the open breaker did not stop attempts"
ok "breaker opened after 2 failures and short-circuited the rest"

echo "-- attempt timeout against a slow body"
set +e
"$loupe" send GET "$base/slow.txt" --timeout 1 --store "$store" > "$work/out.txt" 2> "$work/err.txt"; code=$?
set -e
[ $code -eq 1 ] || fail "slow response with --timeout 1 exited $code"
grep -qi 'timed out\|deadline' "$work/err.txt" || fail "timeout not reported"
ok "slow response times out"

echo "-- basic auth"
"$loupe" send GET "$base/private/index.json" --basic demo:s3cret --store "$store" > "$work/out.txt"
grep -q '"secret":"area"' "$work/out.txt" || fail "basic auth did not get through"
set +e
"$loupe" send GET "$base/private/index.json" --store "$store" > /dev/null 2>&1; code=$?
set -e
[ $code -eq 1 ] || fail "401 did not exit 1"
if grep -a -q "$(printf 'demo:s3cret' | base64)" "$store"*; then fail "basic credentials stored"; fi
ok "basic auth works, 401 exits 1, credentials redacted"

echo "-- ETag revalidation"
"$loupe" send GET "$base/ok.json" --store "$store" > "$work/out.txt"
etag=$(grep -i '^etag:' "$work/out.txt" | cut -d' ' -f2- | tr -d '\r')
[ -n "$etag" ] || fail "no ETag from nginx"
"$loupe" send GET "$base/ok.json" -H "If-None-Match: $etag" --store "$store" > "$work/out.txt"
head -1 "$work/out.txt" | grep -q 304 || fail "conditional GET did not get 304"
ok "ETag and 304"

echo "-- TLS pinning"
"$loupe" send GET "https://127.0.0.1:$https_port/ok.json" --pin-cert "$work/cert.pem" --store "$store" > "$work/out.txt"
grep -q '"ok":true' "$work/out.txt" || fail "pinned TLS request failed"
set +e
"$loupe" send GET "https://127.0.0.1:$https_port/ok.json" --pin-cert "$work/other.pem" --store "$store" > /dev/null 2> "$work/err.txt"; code=$?
set -e
[ $code -eq 1 ] || fail "wrong pin exited $code"
grep -qi 'tls\|pin\|certificate' "$work/err.txt" || fail "pin failure not explained"
"$loupe" show "$store" "#$("$loupe" list "$store" --json --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["sequence"])')" > "$work/show.txt"
grep -qi 'pinning' "$work/show.txt" || fail "pinning failure not recorded as an event"
ok "right pin 200, wrong pin fails closed and is recorded"
echo "e2e-resilience: $passed passed, 0 failed"
