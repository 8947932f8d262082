#!/usr/bin/env bash
# Two `hibi serve` on one PostgreSQL and one media folder behind Debian's nginx (round robin on loopback),
# driven through nginx by scripts/instances_scenarios.py. Called from scripts/test.sh after the PostgreSQL
# stage with that stage's server; alone: scripts/instances-test.sh HIBI_BIN PGPORT WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
HIBI=$1; PGPORT=$2; WORK=$3
ROOT="$WORK/instances"; rm -rf "$ROOT"; mkdir -p "$ROOT"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$ROOT/nginx.pid" ] && kill "$(cat "$ROOT/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

DB="hibi_instances_$$"
runuser -u postgres -- psql -h 127.0.0.1 -p "$PGPORT" -U hibi -d postgres -qc "CREATE DATABASE $DB" >/dev/null
export HIBI_DATABASE_URL="postgres://hibi@127.0.0.1:$PGPORT/$DB?sslmode=disable"
export HIBI_MEDIA_DIR="$ROOT/media" HIBI_VIDEO_LIBRARY_DIR="$ROOT/library"
# The reminder scenario's webhook receiver listens on loopback.
export HIBI_WEBHOOK_ALLOW_NETWORKS=127.0.0.1/32
HIBI_MASTER_KEY=$(python3 -c 'import os,base64; print(base64.b64encode(os.urandom(32)).decode())'); export HIBI_MASTER_KEY
mkdir -p "$HIBI_MEDIA_DIR" "$HIBI_VIDEO_LIBRARY_DIR"
ffmpeg -loglevel error -f lavfi -i testsrc=duration=2:size=160x120:rate=10 -pix_fmt yuv420p "$ROOT/clip.mp4"
cp "$ROOT/clip.mp4" "$HIBI_VIDEO_LIBRARY_DIR/shared-a.mp4"; cp "$ROOT/clip.mp4" "$HIBI_VIDEO_LIBRARY_DIR/shared-b.mp4"

PORT_A=$(free_port); PORT_B=$(free_port); PORT_LB=$(free_port)
start() { # name port: each instance has its own data directory; only the database, media folder and key are shared
  mkdir -p "$ROOT/$1"
  env HIBI_DATA_DIR="$ROOT/$1" HIBI_PORT="$2" HIBI_LOG_LEVEL=warning HIBI_TRUSTED_PROXIES=127.0.0.1/32 "$HIBI" serve >"$ROOT/$1.log" 2>&1 &
  PIDS+=($!); echo $! >"$ROOT/$1.pid"
}
# Both at the same moment on an empty database: migrations and key creation race.
start a "$PORT_A"; start b "$PORT_B"
for port in "$PORT_A" "$PORT_B"; do
  ok=""
  for _ in $(seq 1 150); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && { ok=1; break; }; sleep 0.2; done
  [ -n "$ok" ] || { echo "instance on $port did not come up" >&2; cat "$ROOT"/a.log "$ROOT"/b.log >&2; exit 1; }
done
echo "instances: both came up healthy on an empty database"

cat >"$ROOT/nginx.conf" <<NGINX
worker_processes 1;
pid $ROOT/nginx.pid;
error_log $ROOT/nginx-error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $ROOT/nginx-body;
  proxy_temp_path $ROOT/nginx-proxy;
  fastcgi_temp_path $ROOT/nginx-fcgi;
  uwsgi_temp_path $ROOT/nginx-uwsgi;
  scgi_temp_path $ROOT/nginx-scgi;
  upstream hibi { server 127.0.0.1:$PORT_A max_fails=1 fail_timeout=5s; server 127.0.0.1:$PORT_B max_fails=1 fail_timeout=5s; }
  server {
    listen 127.0.0.1:$PORT_LB;
    client_max_body_size 0;
    location / {
      proxy_pass http://hibi;
      proxy_http_version 1.1;
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_next_upstream error timeout;
      # Which instance answered, so the scenarios can tell a request went to the other one.
      add_header X-Upstream \$upstream_addr always;
    }
  }
}
NGINX
/usr/sbin/nginx -c "$ROOT/nginx.conf" -e "$ROOT/nginx-error.log"

HIBI_DATA_DIR="$ROOT/a" bash -c 'echo "instances password" | "$0" user create aiko --password-stdin' "$HIBI" >/dev/null
TOKEN=$(HIBI_DATA_DIR="$ROOT/a" "$HIBI" user token aiko --name scenarios)
.venv/bin/python scripts/instances_scenarios.py --base "http://127.0.0.1:$PORT_LB" --token "$TOKEN" --password "instances password" \
  --instances "127.0.0.1:$PORT_A=$ROOT/a.pid,127.0.0.1:$PORT_B=$ROOT/b.pid" --clip "$ROOT/clip.mp4" \
  --psql "runuser -u postgres -- psql -h 127.0.0.1 -p $PGPORT -U hibi -d $DB -tAc"
