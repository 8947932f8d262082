#!/usr/bin/env bash
# Visits benchmarks, run by hand (never in tests):
#   1. `hibi visits verify` over a 100 000-record chain   (goal <= 2 s)
#   2. GET /api/v1/visits/map for 10 000 visits           (goal <= 200 ms)
# Data is made through the public import API on a fresh SQLite data dir with a release build.
# Usage: Benchmarks/visits.sh [records=100000] [map_visits=10000]
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${1:-100000}
MAPN=${2:-10000}
CONFIG=${HIBI_BENCH_CONFIG:-release}  # debug is quicker to build but slower to run
swift build -c "$CONFIG" --product hibi 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" || true
HIBI=$(swift build -c "$CONFIG" --show-bin-path)/hibi
WORK=$(mktemp -d /tmp/hibi-bench.XXXXXX)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
export HIBI_DATA_DIR="$WORK" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for user in chain mapper; do
  echo "bench password" | "$HIBI" user create "$user" --password-stdin >/dev/null
done
CHAIN_TOKEN=$("$HIBI" user token chain)
MAP_TOKEN=$("$HIBI" user token mapper)
HIBI_PORT=$PORT "$HIBI" serve >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done

make_batch() { # count seed -> GeoJSON on stdout
  python3 - "$1" "$2" <<'PY'
import json, random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [round(r.uniform(122, 146), 6), round(r.uniform(24, 45), 6)]},
             "properties": {"name": "Place %d" % r.randrange(2000), "visitedAt": "2024-%02d-%02dT%02d:00:00Z" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23)),
                            "labels": ["bench"], "accuracy": 10}} for _ in range(n)]
print(json.dumps({"type": "FeatureCollection", "features": features}))
PY
}
import_n() { # token total
  local token=$1 total=$2 done=0 batch
  while [ "$done" -lt "$total" ]; do
    batch=$(( total - done < 20000 ? total - done : 20000 ))
    make_batch "$batch" "$done" > "$WORK/batch.geojson"
    curl -fsS -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/geo+json" \
      --data-binary @"$WORK/batch.geojson" "http://127.0.0.1:$PORT/api/v1/visits/import" >/dev/null
    done=$(( done + batch ))
  done
}
echo "filling: $RECORDS records for 'chain', $MAPN visits for 'mapper' …" >&2
import_n "$CHAIN_TOKEN" "$RECORDS"
import_n "$MAP_TOKEN" "$MAPN"

# 1. verify (the command opens the database itself; best of 3)
best_verify=999
for _ in 1 2 3; do
  start=$(date +%s.%N)
  "$HIBI" visits verify chain >"$WORK/verify.out"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  best_verify=$(echo "if ($t < $best_verify) $t else $best_verify" | bc -l)
done
grep -q intact "$WORK/verify.out" || { echo "verify did not report intact:" >&2; cat "$WORK/verify.out" >&2; exit 1; }
start=$(date +%s.%N); "$HIBI" visits verify chain --all-signatures >/dev/null; end=$(date +%s.%N)
all_sigs=$(echo "$end - $start" | bc -l)

# 2. map data (warm-up, then median of 11)
curl -fsS -H "Authorization: Bearer $MAP_TOKEN" "http://127.0.0.1:$PORT/api/v1/visits/map" -o "$WORK/map.json"
count=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$WORK/map.json")
times=()
for _ in $(seq 1 11); do
  times+=("$(curl -fsS -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $MAP_TOKEN" "http://127.0.0.1:$PORT/api/v1/visits/map")")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 6p)
size=$(stat -c %s "$WORK/map.json")

echo "reference: verify goal 2 s for 100000 records; map goal 200 ms for 10000 visits"
printf 'visits_verify_%d_records: %.3f s\n' "$RECORDS" "$best_verify"
printf 'visits_verify_all_signatures_%d_records: %.3f s\n' "$RECORDS" "$all_sigs"
printf 'visits_map_%d_points: %.1f ms\n' "$count" "$(echo "$median * 1000" | bc -l)"
printf 'visits_map_body: %d bytes\n' "$size"
