#!/usr/bin/env bash
# Peak memory and time of a Health Auto Export push (`POST /api/v1/health/auto-export`, issue 32): a first
# push of DAYS days of minute-level heart rate and steps with a night of sleep stages a day
# (Benchmarks/health-auto-export-gen.py), posted to a fresh server; its peak RSS (VmHWM) above the idle
# size is read after the answer. The body is spooled to disk and read a chunk at a time, so the growth
# should not follow the body's size. The same body is posted again: everything is already there.
# Usage: Benchmarks/health-auto-export.sh [DAYS]   (quick: 90 days, ~22 MB; full: 365 days, ~88 MB; smoke: 2 days)
# Ends with `name: median unit (min …, max …, N rounds)` lines.
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ensure_apt curl python3
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
DAYS=${1:-$(by_size 90 365 2)}
export HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"

python3 Benchmarks/health-auto-export-gen.py "$DAYS" "$WORK/push.json"
BYTES=$(stat -c %s "$WORK/push.json")
log "a push of $DAYS days: $((BYTES / 1048576)) MB"
record health_auto_export_body "$(python3 -c "print(round($BYTES / 1048576, 1))")" MB

for ROUND in $(seq 1 "$ROUNDS"); do
  data="$WORK/data-$ROUND"
  rm -rf "$data"; mkdir -p "$data"
  echo "bench password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  TOKEN=$(HIBI_DATA_DIR="$data" "$HIBI" user token bench)
  serve_hibi "$data"
  hwm() { awk '/VmHWM/ {print $2}' "/proc/$SERVER/status"; }
  sleep 1
  idle=$(hwm)
  post() {
    curl -sS -o "$WORK/answer.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
      --data-binary "@$WORK/push.json" "http://127.0.0.1:$PORT/api/v1/health/auto-export"
  }
  start=$(date +%s.%N)
  status=$(post)
  end=$(date +%s.%N)
  [ "$status" = 200 ] || die "the push was answered $status: $(head -c 300 "$WORK/answer.json")"
  added=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["added"])' "$WORK/answer.json")
  record health_auto_export_seconds "$(python3 -c "print($end - $start)")" s
  record health_auto_export_records_per_second "$(python3 -c "print(round($added / ($end - $start)))")" records/s
  record health_auto_export_peak_rss_growth "$(python3 -c "print(round(($(hwm) - $idle) / 1024, 1))")" MB
  status=$(post)
  [ "$status" = 200 ] || die "the second push was answered $status"
  again=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(a["added"], a["duplicates"])' "$WORK/answer.json")
  [ "${again%% *}" = 0 ] || die "the same push again added records: $again"
  log "round $ROUND: $added records added, again: $again (added, already there)"
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
  rm -rf "$data"
done
report
