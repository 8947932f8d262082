#!/usr/bin/env bash
# Requests/s and p99 latency of an authenticated API read (GET /api/v1/me: token lookup, user, JSON)
# against the same server's GET /healthz (a database ping), with wrk, alternating
# /healthz, /api/v1/me, /healthz, … for ROUNDS rounds on one release server.
# Usage: Benchmarks/http.sh [seconds per wrk run] [connections]
#   quick (default): 3 s per run; BENCH_SIZE=full: 10 s per run; 64 connections; ROUNDS=5;
#   BENCH_SIZE=smoke: 1 s per run, 1 round.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
DURATION=${1:-$(by_size 3 10 1)}
CONNECTIONS=${2:-64}
is_count "$DURATION" || die "seconds must be a positive whole number"
is_count "$CONNECTIONS" || die "connections must be a positive whole number"

ensure_apt wrk curl python3
ensure_app
HIBI=$(hibi_bin)
DATA=$(bench_tmpdir)
PORT=$(free_port)
export HIBI_DATA_DIR="$DATA" HIBI_PORT="$PORT" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"
# wrk opens CONNECTIONS from one address: room for them under the per-client connection cap.
export HIBI_MAX_CONNECTIONS_PER_CLIENT=$((CONNECTIONS + 16))
echo "benchmark password" | "$HIBI" user create bench --password-stdin >/dev/null
TOKEN=$("$HIBI" user token bench --name bench)
"$HIBI" serve >"$DATA/server.log" 2>&1 &
bench_bg $!
wait_http "http://127.0.0.1:$PORT/healthz" || { tail -20 "$DATA/server.log" >&2; die "Hibi did not start"; }
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/me")
[ "$STATUS" = 200 ] || die "the authenticated read answered $STATUS"

measure() { # figure-prefix path [header] -> records rps and p99 (ms) for this round
  local out="$DATA/$1-$ROUND.txt"
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency ${3:+-H "$3"} "http://127.0.0.1:$PORT$2" >"$out"
  if grep -q "Non-2xx" "$out"; then cat "$out" >&2; die "$2 answered errors under load"; fi
  if grep -q "Socket errors" "$out"; then log "warning: $2: $(grep "Socket errors" "$out")"; fi
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$out")
  # wrk prints latencies with a unit suffix; normalise to milliseconds.
  p99=$(awk '$1=="99%" {print $2}' "$out" | python3 -c "import sys; v=sys.stdin.read().strip()
print(float(v[:-2])/1000 if v.endswith('us') else float(v[:-2]) if v.endswith('ms') else float(v[:-1])*1000)")
  record "$1_rps" "$rps" req/s
  record "$1_p99" "$p99" ms
  echo "$rps req/s, p99 $p99 ms"
}

log "wrk -t2 -c$CONNECTIONS, ${DURATION}s per run, $ROUNDS rounds of /healthz then /api/v1/me (size $BENCH_SIZE)"
# Warm up both paths so neither pays first-request costs in the measurement.
wrk -t1 -c4 -d"$(by_size 2 2 1)s" "http://127.0.0.1:$PORT/healthz" >/dev/null
wrk -t1 -c4 -d"$(by_size 2 2 1)s" -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/me" >/dev/null
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  h=$(measure http_healthz /healthz)
  a=$(measure http_api_me /api/v1/me "Authorization: Bearer $TOKEN")
  log "round $ROUND/$ROUNDS: /healthz $h; /api/v1/me $a"
done
report --ratio "http_api_me_vs_healthz=http_api_me_rps/http_healthz_rps*100:%"
