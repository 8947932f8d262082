#!/usr/bin/env bash
# Streaming throughput of a 1 GB file over HTTP range requests, Hibi (release build) against Debian's
# nginx serving the same file on loopback in the same run, and Hibi's memory while 10 clients stream.
# Usage: Benchmarks/videos.sh [seconds per wrk run, default 10]
# Ends with `name: value unit` lines. Run by hand; numbers depend on the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DURATION=${1:-10}
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor"

command -v wrk >/dev/null || { echo "wrk is missing (scripts/setup.sh test installs it)" >&2; exit 1; }
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  echo "bench: installing nginx"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nginx >/dev/null
  # Debian starts the packaged nginx on port 80; this benchmark runs its own instance.
  $SUDO systemctl stop nginx 2>/dev/null || $SUDO service nginx stop 2>/dev/null || true
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [ -n "${HIBI_BENCH_BIN:-}" ]; then
  HIBI=$HIBI_BENCH_BIN  # e.g. a debug build to try the script; the figures that count come from release
else
  echo "bench: building Hibi (release)"
  swift build -c release --product hibi 2>&1 | { grep -E "error|warning: unre" || true; }
  HIBI="$ROOT/.build/release/hibi"
fi
echo "bench: Hibi binary $HIBI"

WORK=$(mktemp -d /tmp/hibi-bench-videos.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The 1 GB file is kept between runs (random bytes: nothing compresses, nothing is special-cased).
CACHE=/tmp/hibi-bench-1g
mkdir -p "$CACHE"
if [ ! -f "$CACHE/big.mp4" ] || [ "$(stat -c %s "$CACHE/big.mp4")" -ne 1073741824 ]; then
  echo "bench: writing a 1 GB file"
  head -c 1073741824 /dev/urandom > "$CACHE/big.mp4"
fi
SIZE=1073741824
cat "$CACHE/big.mp4" > /dev/null  # warm the page cache for both servers alike

# Hibi with the folder as its shared library.
DATA="$WORK/data"; mkdir -p "$DATA"
HPORT=$(free_port)
echo "bench password 1" | HIBI_DATA_DIR="$DATA" "$HIBI" user create bench --password-stdin >/dev/null
TOKEN=$(HIBI_DATA_DIR="$DATA" "$HIBI" user token bench --name bench)
HIBI_DATA_DIR="$DATA" HIBI_PORT=$HPORT HIBI_LOG_LEVEL=error HIBI_VIDEO_LIBRARY_DIR="$CACHE" HIBI_VIDEO_SCAN_MINUTES=0 \
  "$HIBI" serve >"$WORK/hibi.log" 2>&1 &
HPID=$!; PIDS+=($HPID)
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$HPORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
VIDEO=""
for _ in $(seq 1 100); do
  VIDEO=$(curl -fsS -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$HPORT/api/v1/videos" \
    | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v[0]["id"] if v else "")')
  [ -n "$VIDEO" ] && break; sleep 0.3
done
[ -n "$VIDEO" ] || { echo "Hibi did not index the file" >&2; cat "$WORK/hibi.log" >&2; exit 1; }
HURL="http://127.0.0.1:$HPORT/api/v1/videos/$VIDEO/stream"

# nginx on loopback serving the same folder, with its usual file settings (sendfile on).
NPORT=$(free_port)
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<NGINX
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
PIDS+=($!)
for _ in $(seq 1 50); do curl -fsS -o /dev/null -r 0-0 "http://127.0.0.1:$NPORT/big.mp4" 2>/dev/null && break; sleep 0.1; done
NURL="http://127.0.0.1:$NPORT/big.mp4"

# Correctness spot check: both answer the same bytes for the same range.
cmp <(curl -fsS -r 1000000-1999999 -H "Authorization: Bearer $TOKEN" "$HURL") <(curl -fsS -r 1000000-1999999 "$NURL") \
  || { echo "Hibi and nginx disagree on a range" >&2; exit 1; }

# wrk: every request asks for a random 8 MB range of the 1 GB file, as a seeking player would.
cat > "$WORK/ranges.lua" <<'LUA'
math.randomseed(os.time())
local size, chunk = 1073741824, 8388608
request = function()
  local first = math.random(0, (size - chunk) / 1048576) * 1048576
  wrk.headers["Range"] = "bytes=" .. first .. "-" .. (first + chunk - 1)
  return wrk.format("GET")
end
LUA
mbps() { # wrk output → MB/s
  python3 -c '
import re,sys
t=sys.stdin.read(); m=re.search(r"Transfer/sec:\s*([\d.]+)(\w+)", t)
if not m: print("0"); sys.exit()
v,u=float(m.group(1)),m.group(2); print(round(v*{"B":1/2**20,"KB":1/1024,"MB":1,"GB":1024}[u],1))'
}
run_wrk() { # url [auth header]
  if [ -n "${2:-}" ]; then wrk -t2 -c4 -d"${DURATION}s" -s "$WORK/ranges.lua" -H "$2" "$1"; else wrk -t2 -c4 -d"${DURATION}s" -s "$WORK/ranges.lua" "$1"; fi
}
echo "bench: random 8 MB ranges, 4 connections, ${DURATION}s each (nginx, Hibi, nginx, Hibi)"
N1=$(run_wrk "$NURL" | mbps); H1=$(run_wrk "$HURL" "Authorization: Bearer $TOKEN" | mbps)
N2=$(run_wrk "$NURL" | mbps); H2=$(run_wrk "$HURL" "Authorization: Bearer $TOKEN" | mbps)
echo "  nginx: $N1, $N2 MB/s   Hibi: $H1, $H2 MB/s"

# One client reading the whole file sequentially in 64 MB ranges (a player streaming straight through).
sequential() { # url [auth header]
  local start=$(date +%s.%N)
  for ((first = 0; first < SIZE; first += 67108864)); do
    curl -fsS -o /dev/null -r "$first-$((first + 67108863))" ${2:+-H "$2"} "$1"
  done
  python3 -c "import sys; print(round(1024 / ($(date +%s.%N) - $start), 1))"
}
echo "bench: one client, whole file in 64 MB ranges"
NS=$(sequential "$NURL"); HS=$(sequential "$HURL" "Authorization: Bearer $TOKEN")
echo "  nginx: $NS MB/s   Hibi: $HS MB/s"

# Memory: Hibi's resident set while 10 clients stream the whole file (rate-limited so they overlap).
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$HPID/status"; }
IDLE=$(rss)
echo "bench: 10 clients streaming the whole file at 100 MB/s each; Hibi idle RSS ${IDLE} MB"
CLIENTS=()
for _ in $(seq 1 10); do
  curl -fsS -o /dev/null --limit-rate 100M -H "Authorization: Bearer $TOKEN" "$HURL" & CLIENTS+=($!)
done
PEAK=$IDLE; SAMPLES=()
while kill -0 "${CLIENTS[0]}" 2>/dev/null || kill -0 "${CLIENTS[9]}" 2>/dev/null; do
  NOW=$(rss); SAMPLES+=("$NOW"); [ "$NOW" -gt "$PEAK" ] && PEAK=$NOW
  sleep 0.5
done
for pid in "${CLIENTS[@]}"; do wait "$pid" || true; done
AFTER=$(rss)
echo "  RSS samples (MB): ${SAMPLES[*]}"

python3 - "$N1" "$N2" "$H1" "$H2" "$NS" "$HS" "$IDLE" "$PEAK" "$AFTER" <<'PY'
import sys
n1, n2, h1, h2, ns, hs = map(float, sys.argv[1:7])
idle, peak, after = map(int, sys.argv[7:10])
n, h = (n1 + n2) / 2, (h1 + h2) / 2
print(f"videos_nginx_range_throughput: {n:.1f} MB/s")
print(f"videos_hibi_range_throughput: {h:.1f} MB/s")
print(f"videos_hibi_vs_nginx_ranges: {100 * h / n if n else 0:.0f} %")
print(f"videos_nginx_sequential_throughput: {ns:.1f} MB/s")
print(f"videos_hibi_sequential_throughput: {hs:.1f} MB/s")
print(f"videos_hibi_vs_nginx_sequential: {100 * hs / ns if ns else 0:.0f} %")
print(f"videos_hibi_rss_idle: {idle} MB")
print(f"videos_hibi_rss_peak_10_clients: {peak} MB")
print(f"videos_hibi_rss_growth_10_clients: {peak - idle} MB")
print(f"videos_hibi_rss_after: {after} MB")
PY
