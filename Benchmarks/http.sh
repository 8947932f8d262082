#!/usr/bin/env bash
# Requests/s and p99 of an authenticated /api/v1 read against the same server's /healthz, in one run.
# Usage: Benchmarks/http.sh [seconds] [connections]   (release build; wrk from Debian)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-64}
command -v wrk >/dev/null || { echo "wrk missing: run scripts/setup.sh test" >&2; exit 1; }
swift build -c release --product hibi 2>&1 | grep -E "error|warning: unre" || true
HIBI=$(swift build -c release --show-bin-path)/hibi
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export HIBI_DATA_DIR="$DATA" HIBI_PORT="$PORT" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources"
echo "benchmark password" | "$HIBI" user create bench --password-stdin >/dev/null
TOKEN=$("$HIBI" user token bench --name bench)
"$HIBI" serve & PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

run() { # label path [header]
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency ${3:+-H "$3"} "http://127.0.0.1:$PORT$2" > "$DATA/$1.txt"
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$DATA/$1.txt")
  p99=$(awk '$1=="99%" {print $2}' "$DATA/$1.txt")
  # wrk prints latencies with a unit suffix; normalise to milliseconds.
  p99=$(python3 -c "v='$p99'; print(float(v[:-2])/1000 if v.endswith('us') else float(v[:-2]) if v.endswith('ms') else float(v[:-1])*1000)")
  echo "$rps $p99"
}
# Warm up both paths so neither pays first-request costs in the measurement.
wrk -t1 -c4 -d2s "http://127.0.0.1:$PORT/healthz" >/dev/null
wrk -t1 -c4 -d2s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/me" >/dev/null
read -r H_RPS H_P99 < <(run health /healthz)
read -r A_RPS A_P99 < <(run api /api/v1/me "Authorization: Bearer $TOKEN")
STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/me")
[ "$STATUS" = 200 ] || { echo "authenticated read answered $STATUS" >&2; exit 1; }
RATIO=$(python3 -c "print(round($A_RPS/$H_RPS*100, 1))")
echo "connections: $CONNECTIONS"
echo "healthz_rps: $H_RPS req/s"
echo "healthz_p99: $H_P99 ms"
echo "api_me_rps: $A_RPS req/s"
echo "api_me_p99: $A_P99 ms"
echo "api_vs_healthz: $RATIO %"
