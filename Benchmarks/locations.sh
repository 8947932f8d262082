#!/usr/bin/env bash
# Location history: POINTS generated GPX track points (default 1,000,000: a point every 10 s, a
# 20-minute stop every 2 hours, so the stays in it are known) imported with
# `hibi visits import-locations` into a fresh SQLite data dir, and the stays detected — wall time,
# points/s and peak memory (GNU time's maximum resident set size) — against a reference doing the
# same work on the same file: Benchmarks/lib/staypoints.py, plain Python with the standard library
# (ElementTree iterparse, sqlite3 with the same unique key, the same stay-point method). It is a
# plain-Python reference of the same algorithm, not scikit-mobility, whose install (pandas,
# geopandas, scikit-learn) is far heavier than one figure is worth. Both must find the same stays.
# Then each other format the import reads by content (an OwnTracks Recorder .rec file, TCX, FIT), generated
# by scripts/generate-locations.py with FORMAT_POINTS points (default 200,000: a year of a phone logging
# every few minutes, or a season of activities), imported the same way: points/s and peak memory each; and a
# Strava export ZIP of the same points in STRAVA_ACTIVITIES activities (200; smoke: 10) through the health import.
# GPSLogger's GeoJSON log (FORMAT_POINTS points) goes through the same command, against the same reference reading
# it with json.load; Google Maps' "Saved Places.json" (SAVED_PLACES places, 10,000; smoke: 500) is posted to the
# visits import of a running server (the only way in): places/s and the server's memory growth, no reference (a
# script writing rows would skip the HTTP request, the session and the report that are most of the work).
# Usage: Benchmarks/locations.sh [points]   (ROUNDS=3 by default; quick and full are the
#   same size; BENCH_SIZE=smoke: 20,000 points, 5,000 per other format and 500 saved places, 1 round)
# Ends with `name: median unit (min …, max …, N rounds)` lines.
[ "${BENCH_SIZE:-quick}" = smoke ] || ROUNDS=${ROUNDS:-3}
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
POINTS=${1:-${LOCATIONS_POINTS:-$(by_size 1000000 1000000 20000)}}
FORMAT_POINTS=${FORMAT_POINTS:-$(by_size 200000 200000 5000)}
is_count "$FORMAT_POINTS" || die "FORMAT_POINTS must be a positive whole number"
is_count "$POINTS" || die "points must be a positive whole number"

ensure_apt python3 time curl
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
TRACK="$WORK/track.gpx"
log "generating $POINTS track points"
python3 scripts/generate-locations.py gpx "$POINTS" >"$TRACK"
# A 20-minute stop (120 points) closes every 720; a stop cut short by the end of the track is a stay too
# when it lasts 10 minutes (61 points) or more.
expected_stays() { python3 -c "n = $1; print(n // 720 + (1 if n % 720 - 600 >= 61 else 0))"; }
EXPECTED=$(expected_stays "$POINTS")
cat "$TRACK" >/dev/null # the page cache holds it for both sides alike
export HIBI_RESOURCES_DIR="$BENCH_ROOT/Resources" HIBI_VENDOR_DIR="$BENCH_ROOT/vendor" HIBI_LOG_LEVEL=error

peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }
# User plus system CPU seconds: steadier than wall time on a machine others are using too.
cpu_s() { awk '/User time|System time/ {s += $NF} END {printf "%.2f", s}' "$1"; }
# hibi_import FILE TAG: a fresh data dir, one account, the import timed; leaves $WORK/TAG.time and
# $WORK/TAG.out and prints the wall seconds.
hibi_import() {
  local file=$1 tag=$2 data="$WORK/hibi-data-$2-$ROUND" start end
  mkdir -p "$data"
  echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/$tag.time" "$HIBI" visits import-locations --user bench "$file" \
    >"$WORK/$tag.out" 2>&1 || { tail -20 "$WORK/$tag.out" >&2; die "hibi visits import-locations failed on $file"; }
  end=$(date +%s.%N)
  rm -rf "$data"
  python3 -c "print($end - $start)"
}
import_hibi() {
  local seconds stays
  seconds=$(hibi_import "$TRACK" hibi)
  stays=$(awk '/stays? detected/ {print $1}' "$WORK/hibi.out")
  # A speed figure is only worth comparing when both sides found the track's stays.
  [ "$stays" = "$EXPECTED" ] || die "Hibi found $stays stays, the track has $EXPECTED"
  record locations_hibi_seconds "$seconds" s
  record locations_hibi_rate "$(python3 -c "print($POINTS / $seconds)")" points/s
  record locations_hibi_peak_rss "$(peak_mb "$WORK/hibi.time")" MB
  record locations_hibi_cpu "$(cpu_s "$WORK/hibi.time")" s
  record locations_hibi_stays "$stays" stays
  printf '%.1f s, %s stays' "$seconds" "$stays"
}
# reference_import FILE PREFIX POINTS: the Python reference on FILE, its figures under PREFIX (locations_python for the GPX).
reference_import() {
  local file=$1 prefix=$2 points=$3 db="$WORK/reference-$ROUND.sqlite" start end seconds stays
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/ref.time" python3 Benchmarks/lib/staypoints.py "$file" "$db" >"$WORK/ref.out" 2>&1 \
    || { tail -20 "$WORK/ref.out" >&2; die "the Python reference failed on $file"; }
  end=$(date +%s.%N)
  rm -f "$db" "$db-wal" "$db-shm"
  seconds=$(python3 -c "print($end - $start)")
  stays=$(awk '/^stays:/ {print $2}' "$WORK/ref.out")
  [ "$stays" = "$(expected_stays "$points")" ] || die "the Python reference found $stays stays in $file, it has $(expected_stays "$points")"
  record "${prefix}_seconds" "$seconds" s
  record "${prefix}_rate" "$(python3 -c "print($points / $seconds)")" points/s
  record "${prefix}_peak_rss" "$(peak_mb "$WORK/ref.time")" MB
  record "${prefix}_cpu" "$(cpu_s "$WORK/ref.time")" s
  record "${prefix}_stays" "$stays" stays
  printf '%.1f s, %s stays' "$seconds" "$stays"
}
import_reference() { reference_import "$TRACK" locations_python "$POINTS"; }

log "$ROUNDS rounds of Hibi then the Python reference, $POINTS points ($(du -h "$TRACK" | cut -f1))"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  h=$(import_hibi)
  p=$(import_reference)
  log "round $ROUND/$ROUNDS: Hibi $h; Python reference $p"
done
# The other formats: Hibi alone (no reference reads them all); the same stays must be found in each.
import_format() {
  local format=$1 seconds stays
  seconds=$(hibi_import "$WORK/track.$format" "$format")
  stays=$(awk '/stays? detected/ {print $1}' "$WORK/$format.out")
  [ "$stays" = "$(expected_stays "$FORMAT_POINTS")" ] || log "warning: Hibi found $stays stays in the $format file, it has $(expected_stays "$FORMAT_POINTS")"
  record "locations_${format}_seconds" "$seconds" s
  record "locations_${format}_cpu" "$(cpu_s "$WORK/$format.time")" s
  record "locations_${format}_rate" "$(python3 -c "print($FORMAT_POINTS / $seconds)")" points/s
  record "locations_${format}_peak_rss" "$(peak_mb "$WORK/$format.time")" MB
  printf '%.1f s, %s stays' "$seconds" "$stays"
}
for format in rec tcx fit; do
  python3 scripts/generate-locations.py "$format" "$FORMAT_POINTS" >"$WORK/track.$format"
  for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
    log "round $ROUND/$ROUNDS: $format, $FORMAT_POINTS points ($(du -h "$WORK/track.$format" | cut -f1)): $(import_format "$format")"
  done
  rm -f "$WORK/track.$format"
done

# A Strava export ZIP (Benchmarks/strava-export.py: FORMAT_POINTS points over STRAVA_ACTIVITIES activities, .fit.gz,
# .tcx.gz and .gpx in turn) through `hibi import apple-health`, which makes the workouts and their routes.
STRAVA_ACTIVITIES=${STRAVA_ACTIVITIES:-$(by_size 200 200 10)}
python3 Benchmarks/strava-export.py "$WORK/strava.zip" "$FORMAT_POINTS" "$STRAVA_ACTIVITIES"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  data="$WORK/hibi-data-strava-$ROUND" && mkdir -p "$data"
  echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/strava.time" "$HIBI" import apple-health --quiet --user bench "$WORK/strava.zip" \
    >"$WORK/strava.out" 2>&1 || { tail -20 "$WORK/strava.out" >&2; die "hibi import apple-health failed on the Strava export"; }
  seconds=$(python3 -c "print($(date +%s.%N) - $start)") && rm -rf "$data"
  grep -q "Workouts: $STRAVA_ACTIVITIES added" "$WORK/strava.out" || log "warning: not $STRAVA_ACTIVITIES workouts: $(grep Workouts "$WORK/strava.out")"
  record locations_strava_rate "$(python3 -c "print($FORMAT_POINTS / $seconds)")" points/s
  record locations_strava_activities_rate "$(python3 -c "print($STRAVA_ACTIVITIES / $seconds)")" activities/s
  record locations_strava_peak_rss "$(peak_mb "$WORK/strava.time")" MB
  log "round $ROUND/$ROUNDS: Strava export, $STRAVA_ACTIVITIES activities, $FORMAT_POINTS points: $(printf '%.1f' "$seconds") s"
done
rm -f "$WORK/strava.zip"

# GPSLogger's GeoJSON log: the same command (Hibi reads the JSON an element at a time), and the reference on it.
python3 scripts/generate-locations.py geojson "$FORMAT_POINTS" >"$WORK/track.geojson"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  h=$(import_format geojson)
  p=$(reference_import "$WORK/track.geojson" locations_geojson_python "$FORMAT_POINTS")
  log "round $ROUND/$ROUNDS: GPSLogger GeoJSON, $FORMAT_POINTS points ($(du -h "$WORK/track.geojson" | cut -f1)): Hibi $h; Python reference $p"
done
rm -f "$WORK/track.geojson"

# Google Maps' "Saved Places.json" through POST /api/v1/visits/import (saved places have no command of their own):
# a fresh server per round; then the same file again, which must add nothing.
SAVED_PLACES=${SAVED_PLACES:-$(by_size 10000 10000 500)}
is_count "$SAVED_PLACES" || die "SAVED_PLACES must be a positive whole number"
python3 scripts/generate-locations.py savedplaces "$SAVED_PLACES" >"$WORK/saved-places.json"
PLACED=$((SAVED_PLACES - SAVED_PLACES / 50)) # every 50th is at [0, 0], skipped as "no position"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  data="$WORK/hibi-data-saved-$ROUND" && mkdir -p "$data"
  echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  TOKEN=$(HIBI_DATA_DIR="$data" "$HIBI" user token bench)
  serve_hibi "$data"
  idle=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
  post_places() {
    curl -sS -o "$WORK/saved.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
      --data-binary "@$WORK/saved-places.json" "http://127.0.0.1:$PORT/api/v1/visits/import"
  }
  start=$(date +%s.%N)
  status=$(post_places)
  seconds=$(python3 -c "print($(date +%s.%N) - $start)")
  [ "$status" = 201 ] || die "the saved places were answered $status: $(head -c 300 "$WORK/saved.json")"
  added=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["savedPlaces"])' "$WORK/saved.json")
  [ "$added" = "$PLACED" ] || die "Hibi added $added saved places, the file has $PLACED with a position"
  growth=$(python3 -c "print(($(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status") - $idle) / 1024)")
  [ "$(post_places)" = 201 ] && [ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["savedPlaces"])' "$WORK/saved.json")" = 0 ] \
    || die "importing the saved places again added some: $(head -c 300 "$WORK/saved.json")"
  kill "$SERVER" && wait "$SERVER" 2>/dev/null || true
  rm -rf "$data"
  record locations_saved_places_rate "$(python3 -c "print($SAVED_PLACES / $seconds)")" places/s
  record locations_saved_places_rss_growth "$growth" MB
  log "round $ROUND/$ROUNDS: Saved Places, $SAVED_PLACES places ($(du -h "$WORK/saved-places.json" | cut -f1)): $(printf '%.2f' "$seconds") s, $added added, server memory +$(printf '%.1f' "$growth") MB"
done
rm -f "$WORK/saved-places.json"

ROUND=0
record locations_points "$POINTS" points
record locations_format_points "$FORMAT_POINTS" points
record locations_track_size "$(python3 -c "import os; print(os.path.getsize('$TRACK') / 2**20)")" MB
report --ratio "locations_speedup=locations_python_seconds/locations_hibi_seconds:x" \
  --ratio "locations_cpu_ratio=locations_python_cpu/locations_hibi_cpu:x" \
  --ratio "locations_geojson_speedup=locations_geojson_python_seconds/locations_geojson_seconds:x" \
  --ratio "locations_geojson_cpu_ratio=locations_geojson_python_cpu/locations_geojson_cpu:x"
