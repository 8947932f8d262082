#!/usr/bin/env bash
# Streaming a 1 GB file (64 MB at BENCH_SIZE=smoke) over HTTP range requests: Hibi (release build) against Debian's nginx
# (sendfile on) serving the same file on loopback, alternating nginx, Hibi, nginx, Hibi … for
# ROUNDS rounds, in two ways:
#   1. random 8 MB ranges, 4 connections, wrk (a seeking player; both sides get the same ranges);
#   2. one client reading the whole file in 64 MB ranges (a player streaming straight through);
# then, once, Hibi's resident memory while 10 clients stream the whole file: two people, five clients each,
# since one person may hold at most six streams at once (FileRangeStreamer; a seventh gets 429).
# Usage: Benchmarks/videos.sh [seconds per wrk run]
#   quick (default): 5 s per run; BENCH_SIZE=full: 10 s per run; ROUNDS=5; BENCH_SIZE=smoke: a 64 MB
#   file, 1 s per run, 1 round. Installs nginx and wrk.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
DURATION=${1:-$(by_size 5 10 1)}
is_count "$DURATION" || die "seconds must be a positive whole number"

if ! dpkg-query -W -f='${Status}' nginx 2>/dev/null | grep -q "install ok installed"; then
  ensure_apt nginx
  # Debian starts the packaged nginx on port 80; this benchmark runs its own instance.
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO systemctl stop nginx 2>/dev/null || $SUDO service nginx stop >/dev/null 2>&1 || true
fi
ensure_apt wrk curl python3
ensure_app
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || die "nginx is not at $NGINX"
HIBI=$(hibi_bin)
log "Hibi binary $HIBI; $("$NGINX" -v 2>&1)"
WORK=$(bench_tmpdir)

# The file is kept between runs (random bytes: nothing compresses, nothing is special-cased).
SIZE_MB=$(by_size 1024 1024 64)
CACHE=/tmp/hibi-bench-$([ "$SIZE_MB" = 1024 ] && echo 1g || echo "${SIZE_MB}m")
SIZE=$((SIZE_MB * 1048576))
mkdir -p "$CACHE"
if [ ! -f "$CACHE/big.mp4" ] || [ "$(stat -c %s "$CACHE/big.mp4")" -ne "$SIZE" ]; then
  log "writing a $SIZE_MB MB file to $CACHE"
  head -c "$SIZE" /dev/urandom >"$CACHE/big.mp4.part" && mv "$CACHE/big.mp4.part" "$CACHE/big.mp4"
fi
cat "$CACHE/big.mp4" >/dev/null # warm the page cache for both servers alike

# Hibi with the folder as its shared library.
DATA="$WORK/data"
mkdir -p "$DATA"
HPORT=$(free_port)
export HIBI_RESOURCES_DIR="$BENCH_ROOT/Resources" HIBI_VENDOR_DIR="$BENCH_ROOT/vendor"
echo "bench password 1" | HIBI_DATA_DIR="$DATA" "$HIBI" user create bench --password-stdin >/dev/null
TOKEN=$(HIBI_DATA_DIR="$DATA" "$HIBI" user token bench --name bench)
# A second person for the memory test's ten clients (one person may hold six streams).
echo "bench password 2" | HIBI_DATA_DIR="$DATA" "$HIBI" user create bench2 --password-stdin >/dev/null
TOKEN2=$(HIBI_DATA_DIR="$DATA" "$HIBI" user token bench2 --name bench)
HIBI_DATA_DIR="$DATA" HIBI_PORT=$HPORT HIBI_LOG_LEVEL=error HIBI_VIDEO_LIBRARY_DIR="$CACHE" HIBI_VIDEO_SCAN_MINUTES=0 \
  "$HIBI" serve >"$WORK/hibi.log" 2>&1 &
HPID=$!
bench_bg $HPID
wait_http "http://127.0.0.1:$HPORT/healthz" || { tail -20 "$WORK/hibi.log" >&2; die "Hibi did not start"; }
VIDEO=""
for _ in $(seq 1 100); do
  VIDEO=$(curl -fsS -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$HPORT/api/v1/videos" \
    | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v[0]["id"] if v else "")')
  [ -n "$VIDEO" ] && break
  sleep 0.3
done
[ -n "$VIDEO" ] || { tail -20 "$WORK/hibi.log" >&2; die "Hibi did not index the file"; }
HURL="http://127.0.0.1:$HPORT/api/v1/videos/$VIDEO/stream"
AUTH="Authorization: Bearer $TOKEN"

# nginx on loopback serving the same folder, with its usual file settings (sendfile on).
NPORT=$(free_port)
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  types { video/mp4 mp4; }
  client_body_temp_path $WORK/nginx/tmp;
  proxy_temp_path $WORK/nginx/tmp; fastcgi_temp_path $WORK/nginx/tmp; uwsgi_temp_path $WORK/nginx/tmp; scgi_temp_path $WORK/nginx/tmp;
  server { listen 127.0.0.1:$NPORT; root $CACHE; }
}
NGINX
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx/stderr" &
bench_bg $!
NURL="http://127.0.0.1:$NPORT/big.mp4"
wait_http "$NURL" 50 || { cat "$WORK/nginx/stderr" >&2; die "nginx did not start"; }

# Correctness spot check: both answer the same bytes for the same range.
cmp <(curl -fsS -r 1000000-1999999 -H "$AUTH" "$HURL") <(curl -fsS -r 1000000-1999999 "$NURL") >/dev/null \
  || die "Hibi and nginx disagree on a range"

# wrk: every request asks for a random 8 MB range of the 1 GB file. Each round seeds both sides
# alike (BENCH_SEED and the thread number), so nginx and Hibi are asked for the same ranges.
cat >"$WORK/ranges.lua" <<'LUA'
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end
function init(args)
  math.randomseed(tonumber(os.getenv("BENCH_SEED") or "1") * 100 + (thread_id or 0))
end
local size, chunk = tonumber(os.getenv("BENCH_FILE_SIZE")), 8388608
request = function()
  local first = math.random(0, (size - chunk) / 1048576) * 1048576
  wrk.headers["Range"] = "bytes=" .. first .. "-" .. (first + chunk - 1)
  return wrk.format("GET")
end
LUA
ranges() { # figure url [auth header] -> records MB/s
  local out="$WORK/wrk-$1-$ROUND.txt"
  BENCH_SEED=$ROUND BENCH_FILE_SIZE=$SIZE wrk -t2 -c4 -d"${DURATION}s" -s "$WORK/ranges.lua" ${3:+-H "$3"} "$2" >"$out"
  if grep -q "Non-2xx" "$out"; then cat "$out" >&2; die "$2 answered errors under load"; fi
  if grep -q "Socket errors" "$out"; then log "warning: $2: $(grep "Socket errors" "$out")"; fi
  local mbps
  mbps=$(python3 -c '
import re, sys
m = re.search(r"Transfer/sec:\s*([\d.]+)(\w+)", open(sys.argv[1]).read())
if not m: sys.exit("no Transfer/sec in wrk output")
print(float(m.group(1)) * {"B": 1 / 2**20, "KB": 1 / 1024, "MB": 1, "GB": 1024}[m.group(2)])' "$out")
  record "$1" "$mbps" MB/s
  printf '%.0f MB/s' "$mbps"
}
# One client reading the whole file in 64 MB ranges.
sequential() { # figure url [auth header] -> records MB/s
  local start end first
  start=$(date +%s.%N)
  for ((first = 0; first < SIZE; first += 67108864)); do
    curl -fsS -o /dev/null -r "$first-$((first + 67108863))" ${3:+-H "$3"} "$2"
  done
  end=$(date +%s.%N)
  local mbps
  mbps=$(python3 -c "print($SIZE_MB / ($end - $start))")
  record "$1" "$mbps" MB/s
  printf '%.0f MB/s' "$mbps"
}

log "$ROUNDS rounds (size $BENCH_SIZE): random 8 MB ranges, 4 connections, ${DURATION}s per side, then the whole file in 64 MB ranges, nginx then Hibi"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  n=$(ranges videos_nginx_range_throughput "$NURL")
  h=$(ranges videos_hibi_range_throughput "$HURL" "$AUTH")
  ns=$(sequential videos_nginx_sequential_throughput "$NURL")
  hs=$(sequential videos_hibi_sequential_throughput "$HURL" "$AUTH")
  log "round $ROUND/$ROUNDS: ranges nginx $n, Hibi $h; sequential nginx $ns, Hibi $hs"
done

# Memory: Hibi's resident set while 10 clients stream the whole file (rate-limited so they overlap).
ROUND=0
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$HPID/status"; }
IDLE=$(rss)
log "10 clients streaming the whole file at 100 MB/s each; Hibi idle RSS ${IDLE} MB"
CLIENTS=()
AUTH2="Authorization: Bearer $TOKEN2"
HURL2="http://127.0.0.1:$HPORT/api/v1/videos/$(curl -fsS -H "$AUTH2" "http://127.0.0.1:$HPORT/api/v1/videos" \
  | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v[0]["id"] if v else "")')/stream"
for client in $(seq 1 10); do
  if [ $((client % 2)) -eq 1 ]; then auth=$AUTH url=$HURL; else auth=$AUTH2 url=$HURL2; fi
  curl -fsS -o /dev/null --limit-rate 100M -H "$auth" "$url" &
  CLIENTS+=($!)
done
PEAK=$IDLE
SAMPLES=()
while kill -0 "${CLIENTS[0]}" 2>/dev/null || kill -0 "${CLIENTS[9]}" 2>/dev/null; do
  NOW=$(rss)
  SAMPLES+=("$NOW")
  [ "$NOW" -gt "$PEAK" ] && PEAK=$NOW
  sleep 0.5
done
FAILED=0
for pid in "${CLIENTS[@]}"; do wait "$pid" || FAILED=$((FAILED + 1)); done
[ "$FAILED" -eq 0 ] || die "$FAILED of 10 streaming clients failed"
AFTER=$(rss)
log "RSS samples (MB): ${SAMPLES[*]}"
record videos_hibi_rss_idle "$IDLE" MB
record videos_hibi_rss_peak_10_clients "$PEAK" MB
record videos_hibi_rss_growth_10_clients "$((PEAK - IDLE))" MB
record videos_hibi_rss_after "$AFTER" MB

report --ratio "videos_hibi_vs_nginx_ranges=videos_hibi_range_throughput/videos_nginx_range_throughput*100:%" \
  --ratio "videos_hibi_vs_nginx_sequential=videos_hibi_sequential_throughput/videos_nginx_sequential_throughput*100:%"
