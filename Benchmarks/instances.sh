#!/usr/bin/env bash
# Authenticated API reads (GET /api/v1/me) and diary writes (POST /api/v1/diary/entries) with wrk through
# Debian's nginx on loopback, in front of one and then two `hibi serve` on one PostgreSQL (one media folder),
# and the same against one instance on SQLite (direct), all in the same run. Prints req/s and p99 of each
# and the two-instance/one-instance ratio. On a 2-core machine the ratio stays near 1: the point is that
# nothing breaks and nothing is serialised by accident.
# Usage: Benchmarks/instances.sh [seconds per wrk run] [connections]
#   quick (default): 3 s per run, ROUNDS=3; BENCH_SIZE=full: 10 s per run, ROUNDS=5; 32 connections;
#   BENCH_SIZE=smoke: 1 s per run, 1 round.
# shellcheck source=Benchmarks/lib/common.sh
BENCH_FULL_ROUNDS=5
case "${BENCH_SIZE:-quick}" in full) ROUNDS=${ROUNDS:-5} ;; smoke) ROUNDS=${ROUNDS:-1} ;; *) ROUNDS=${ROUNDS:-3} ;; esac
source "$(dirname "$0")/lib/common.sh"
DURATION=${1:-$(by_size 3 10 1)}
CONNECTIONS=${2:-32}
is_count "$DURATION" || die "seconds must be a positive whole number"
is_count "$CONNECTIONS" || die "connections must be a positive whole number"

ensure_apt wrk curl python3 nginx postgresql
# Only what `hibi serve` needs (the face models and web assets), not the face fixtures ensure_app adds.
[ -f models/dlib_face_recognition_resnet_model_v1.dat ] && [ -f vendor/web/pico/pico.min.css ] \
  || { log "running scripts/setup.sh run (models, web assets)"; scripts/setup.sh run >&2 || die "scripts/setup.sh run failed"; }
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
chmod 755 "$BENCH_TMP" "$WORK"  # the postgres user must reach its data dir inside
export HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"
HIBI_MASTER_KEY=$(python3 -c 'import os,base64; print(base64.b64encode(os.urandom(32)).decode())'); export HIBI_MASTER_KEY

# A throwaway PostgreSQL 15, as scripts/test.sh starts it.
PGPORT=$(free_port)
mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$WORK/pg/data" -A trust -U hibi >/dev/null
runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$WORK/pg/data" -o "-k $WORK/pg -h 127.0.0.1 -p $PGPORT" -l "$WORK/pg/log" -w start >/dev/null
stop_pg() { runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true; }
NGINX_PID=""
trap 'stop_pg; [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; bench_cleanup' EXIT
runuser -u postgres -- psql -h 127.0.0.1 -p "$PGPORT" -U hibi -d postgres -qc "CREATE DATABASE hibi_bench" >/dev/null
PGURL="postgres://hibi@127.0.0.1:$PGPORT/hibi_bench?sslmode=disable"

serve() { # data-dir port [database-url]
  mkdir -p "$1"
  env HIBI_DATA_DIR="$1" HIBI_PORT="$2" HIBI_MEDIA_DIR="$WORK/media" ${3:+HIBI_DATABASE_URL=$3} HIBI_TRUSTED_PROXIES=127.0.0.1/32 \
    "$HIBI" serve >"$1/server.log" 2>&1 &
  bench_bg $!
  wait_http "http://127.0.0.1:$2/healthz" || { tail -20 "$1/server.log" >&2; die "Hibi on $2 did not start"; }
}
nginx_for() { # port upstream-port…
  local lb=$1; shift
  [ -n "$NGINX_PID" ] && { kill "$NGINX_PID" 2>/dev/null || true; sleep 0.5; }
  local servers="" p
  for p in "$@"; do servers+="server 127.0.0.1:$p; "; done
  mkdir -p "$WORK/nginx"
  cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body; proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fcgi; uwsgi_temp_path $WORK/nginx/uwsgi; scgi_temp_path $WORK/nginx/scgi;
  upstream hibi { $servers keepalive 64; }
  server {
    listen 127.0.0.1:$lb;
    location / { proxy_pass http://hibi; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host \$host; }
  }
}
NGINX
  /usr/sbin/nginx -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log"
  NGINX_PID=$(cat "$WORK/nginx/nginx.pid")
  wait_http "http://127.0.0.1:$lb/healthz" || die "nginx did not start"
}

cat >"$WORK/write.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"date":"2026-11-01T10:00:00Z","text":"A quiet morning walk by the river, benchmark entry","tags":["bench"]}'
LUA

measure() { # figure-prefix url token [lua]
  local out="$WORK/$1-$ROUND.txt"
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "Authorization: Bearer $3" ${4:+-s "$4"} "$2" >"$out"
  if grep -q "Non-2xx" "$out"; then cat "$out" >&2; die "$2 answered errors under load"; fi
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$out")
  p99=$(awk '$1=="99%" {print $2}' "$out" | python3 -c "import sys; v=sys.stdin.read().strip()
print(float(v[:-2])/1000 if v.endswith('us') else float(v[:-2]) if v.endswith('ms') else float(v[:-1])*1000)")
  record "$1_rps" "$rps" req/s
  record "$1_p99" "$p99" ms
  echo "$rps req/s, p99 $p99 ms"
}

# SQLite, one instance, direct.
SQLITE_PORT=$(free_port)
echo "benchmark password" | HIBI_DATA_DIR="$WORK/sqlite" "$HIBI" user create bench --password-stdin >/dev/null
SQLITE_TOKEN=$(HIBI_DATA_DIR="$WORK/sqlite" "$HIBI" user token bench --name bench)
serve "$WORK/sqlite" "$SQLITE_PORT"
# PostgreSQL: two instances started together on the empty database, then nginx in front of one or both.
PORT_A=$(free_port); PORT_B=$(free_port); LB=$(free_port)
echo "benchmark password" | HIBI_DATA_DIR="$WORK/a" HIBI_DATABASE_URL="$PGURL" "$HIBI" user create bench --password-stdin >/dev/null
PG_TOKEN=$(HIBI_DATA_DIR="$WORK/a" HIBI_DATABASE_URL="$PGURL" "$HIBI" user token bench --name bench)
serve "$WORK/a" "$PORT_A" "$PGURL"
serve "$WORK/b" "$PORT_B" "$PGURL"

log "wrk -t2 -c$CONNECTIONS, ${DURATION}s per run, $ROUNDS rounds (size $BENCH_SIZE)"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  r=$(measure sqlite1_read "http://127.0.0.1:$SQLITE_PORT/api/v1/me" "$SQLITE_TOKEN")
  w=$(measure sqlite1_write "http://127.0.0.1:$SQLITE_PORT/api/v1/diary/entries" "$SQLITE_TOKEN" "$WORK/write.lua")
  log "round $ROUND: SQLite, one instance: read $r; write $w"
  nginx_for "$LB" "$PORT_A"
  r=$(measure pg1_read "http://127.0.0.1:$LB/api/v1/me" "$PG_TOKEN")
  w=$(measure pg1_write "http://127.0.0.1:$LB/api/v1/diary/entries" "$PG_TOKEN" "$WORK/write.lua")
  log "round $ROUND: PostgreSQL, nginx, one instance: read $r; write $w"
  nginx_for "$LB" "$PORT_A" "$PORT_B"
  r=$(measure pg2_read "http://127.0.0.1:$LB/api/v1/me" "$PG_TOKEN")
  w=$(measure pg2_write "http://127.0.0.1:$LB/api/v1/diary/entries" "$PG_TOKEN" "$WORK/write.lua")
  log "round $ROUND: PostgreSQL, nginx, two instances: read $r; write $w"
done
report --ratio "instances_read_two_vs_one=pg2_read_rps/pg1_read_rps*100:%" \
  --ratio "instances_write_two_vs_one=pg2_write_rps/pg1_write_rps*100:%"
