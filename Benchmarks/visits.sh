#!/usr/bin/env bash
# Visits benchmarks on a release build with a fresh SQLite data dir, data made through the public
# import API, ROUNDS rounds, the two sides of each comparison back to back in every round:
#   1. `hibi visits verify` over a RECORDS-record chain (checks every hash and the head's signature;
#      goal <= 2 s for 100,000) against `hibi visits verify --all-signatures` (every record's signature);
#   2. GET /api/v1/visits/map for MAP visits (goal <= 200 ms for 10,000), wall time of a curl process,
#      against the sqlite3 CLI reading the same rows of the same database into the same kind of
#      JSON array (the floor: no HTTP, no authentication, no app), median of 11 calls each.
#   3. the map page's data (GET /api/v1/visits/map?format=compact) for MAP visits: its size in KB
#      (goal <= 300 KB for 10,000; the objects of plain /visits/map were 1.26 MB).
# Usage: Benchmarks/visits.sh [records] [map visits]
#   quick (default): 20,000 records; BENCH_SIZE=full: 100,000 records; 10,000 map visits; ROUNDS=5;
#   BENCH_SIZE=smoke: 500 records, 500 map visits, 1 round.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
RECORDS=${1:-$(by_size 20000 100000 500)}
MAPN=${2:-$(by_size 10000 10000 500)}
is_count "$RECORDS" || die "records must be a positive whole number"
is_count "$MAPN" || die "map visits must be a positive whole number"

ensure_apt sqlite3 curl python3
ensure_app
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
export HIBI_DATA_DIR="$WORK" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"
PORT=$(free_port)
for user in chain mapper; do
  echo "bench password" | "$HIBI" user create "$user" --password-stdin >/dev/null
done
CHAIN_TOKEN=$("$HIBI" user token chain)
MAP_TOKEN=$("$HIBI" user token mapper)
HIBI_PORT=$PORT "$HIBI" serve >"$WORK/server.log" 2>&1 &
bench_bg $!
wait_http "http://127.0.0.1:$PORT/healthz" || { tail -20 "$WORK/server.log" >&2; die "Hibi did not start"; }

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
    batch=$((total - done < 20000 ? total - done : 20000))
    make_batch "$batch" "$done" >"$WORK/batch.geojson"
    curl -fsS -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/geo+json" \
      --data-binary @"$WORK/batch.geojson" "http://127.0.0.1:$PORT/api/v1/visits/import" >/dev/null \
      || die "importing visits failed (see $WORK/server.log)"
    done=$((done + batch))
  done
}
log "filling: $RECORDS records for 'chain', $MAPN visits for 'mapper' (size $BENCH_SIZE)"
import_n "$CHAIN_TOKEN" "$RECORDS"
import_n "$MAP_TOKEN" "$MAPN"

# Elapsed milliseconds since a $EPOCHREALTIME reading (no process is started to read the clock).
ms_since() { local end=$EPOCHREALTIME; echo "$(((${end/./} - ${1/./}) / 1000)).$(printf '%03d' $(((${end/./} - ${1/./}) % 1000)))"; }
timed_verify() { # figure [flag] -> records seconds
  local start elapsed
  start=$EPOCHREALTIME
  "$HIBI" visits verify chain ${2:+"$2"} >"$WORK/verify.out" || { cat "$WORK/verify.out" >&2; die "verify $2 failed"; }
  elapsed=$(ms_since "$start")
  grep -q intact "$WORK/verify.out" || { cat "$WORK/verify.out" >&2; die "verify $2 did not report intact"; }
  record "$1" "$(python3 -c "print($elapsed / 1000)")" s
}

# The reference reads the same columns, rows and order as the map endpoint, as a JSON array.
DB="$WORK/hibi.sqlite"
[ -f "$DB" ] || die "no SQLite database at $DB"
MAPPER_ID=$(sqlite3 -readonly "$DB" "SELECT id FROM users WHERE username = 'mapper'")
[ -n "$MAPPER_ID" ] || die "user 'mapper' not found in $DB"
SQL="SELECT json_group_array(json_object('id', id, 'lat', latitude, 'lon', longitude, 'name', name, 'at', visited_at))
     FROM (SELECT id, latitude, longitude, name, visited_at FROM visits
           WHERE user_id = '$MAPPER_ID' AND deleted_at IS NULL ORDER BY visited_at DESC)"
curl -fsS -H "Authorization: Bearer $MAP_TOKEN" "http://127.0.0.1:$PORT/api/v1/visits/map" -o "$WORK/map.json"
sqlite3 -readonly "$DB" "$SQL" >"$WORK/map-sqlite.json"
COUNTS=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))), len(json.load(open(sys.argv[2]))))' \
  "$WORK/map.json" "$WORK/map-sqlite.json")
read -r COUNT REF_COUNT <<<"$COUNTS"
if [ "$COUNT" != "$MAPN" ] || [ "$REF_COUNT" != "$MAPN" ]; then
  die "the map has $COUNT points and the sqlite3 reference $REF_COUNT; expected $MAPN"
fi

median_ms() { # command… -> median wall time of 11 runs, in ms
  local times=() start
  for _ in $(seq 1 11); do
    start=$EPOCHREALTIME
    "$@" >/dev/null || die "$* failed"
    times+=("$(ms_since "$start")")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 6p
}
map_hibi() { curl -fsS -o /dev/null -H "Authorization: Bearer $MAP_TOKEN" "http://127.0.0.1:$PORT/api/v1/visits/map"; }
map_sqlite() { sqlite3 -readonly "$DB" "$SQL"; }

log "$ROUNDS rounds: verify, verify --all-signatures, map (Hibi), map (sqlite3 CLI)"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  timed_verify visits_verify
  timed_verify visits_verify_all_signatures --all-signatures
  hibi_ms=$(median_ms map_hibi)
  sqlite_ms=$(median_ms map_sqlite)
  record visits_map "$hibi_ms" ms
  record visits_map_reference_sqlite3 "$sqlite_ms" ms
  log "round $ROUND/$ROUNDS: $(awk -F'\t' -v r="$ROUND" '$2 == r {printf "%s %.3g %s; ", $1, $3, $4}' "$BENCH_SAMPLES")"
done
ROUND=0
record visits_chain_records "$RECORDS" records
record visits_map_points "$COUNT" points
record visits_map_body "$(stat -c %s "$WORK/map.json")" bytes
curl -fsS -H "Authorization: Bearer $MAP_TOKEN" "http://127.0.0.1:$PORT/api/v1/visits/map?format=compact" -o "$WORK/map-compact.json"
COMPACT_COUNT=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["count"])' "$WORK/map-compact.json")
[ "$COMPACT_COUNT" = "$MAPN" ] || die "the compact map has $COMPACT_COUNT points; expected $MAPN"
PAYLOAD_NAME=visits_map_payload_$([ "$MAPN" = 10000 ] && echo 10k || echo "$MAPN")
record "$PAYLOAD_NAME" "$(python3 -c 'import os, sys; print(round(os.path.getsize(sys.argv[1]) / 1000, 1))' "$WORK/map-compact.json")" KB
report --ratio "visits_all_signatures_vs_verify=visits_verify_all_signatures/visits_verify:x" \
  --ratio "visits_map_vs_sqlite3=visits_map/visits_map_reference_sqlite3:x"
