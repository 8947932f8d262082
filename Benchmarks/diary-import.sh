#!/usr/bin/env bash
# Peak memory of diary imports (issue 28 item 2; goal <= 200 MB), archives made by scripts/make-diary-archive.py:
#   - the amplification archive: ~75 KB, one deflated 8 MB photo that each of 8 entries lists 8 times (refused
#     before a photo is written; it used to raise the server by 543 MB and write 2.1 GB);
#   - a 1 GB diary archive (133 photos of ~7.5 MB, stored as Hibi exports them) through `hibi import diary`,
#     which reads the file by path;
#   - through the server's API (whose upload limit is 256 MB): the amplification archive and a 240 MB archive,
#     the server's peak RSS (VmHWM) read after each.
# CLI figures are GNU time's maximum resident set size of the whole process; the server's include its idle size.
# Usage: Benchmarks/diary-import.sh   (BENCH_SIZE=full: the same; ROUNDS=N rounds; BENCH_SIZE=smoke: archives of
#   30 MB and 20 MB instead of 1 GB and 240 MB, 1 round; the figures keep their names)
# Ends with `name: median unit (min …, max …, N rounds)` lines.
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ensure_apt curl python3 time
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
export HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"

log "generating the archives"
python3 scripts/make-diary-archive.py "$WORK/amplify.zip" --amplify 8
python3 scripts/make-diary-archive.py "$WORK/one-gb.zip" --bytes "$(by_size 1000000000 1000000000 30000000)"
python3 scripts/make-diary-archive.py "$WORK/api.zip" --bytes "$(by_size 240000000 240000000 20000000)"
log "archives: amplify $(du -h "$WORK/amplify.zip" | cut -f1), 1 GB $(du -h "$WORK/one-gb.zip" | cut -f1), api $(du -h "$WORK/api.zip" | cut -f1)"

peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }
fresh_data() { # a data dir with user bench
  local data="$WORK/data-$1-$ROUND"
  rm -rf "$data"; mkdir -p "$data"
  echo "bench password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  echo "$data"
}
photos_written() { find "$1/diary-photos" -type f 2>/dev/null | wc -l; }

for ROUND in $(seq 1 "$ROUNDS"); do
  data=$(fresh_data amplify)
  if HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/amp.time" "$HIBI" import diary --user bench "$WORK/amplify.zip" >"$WORK/amp.out" 2>&1; then
    die "the amplification archive was imported: $(cat "$WORK/amp.out")"
  fi
  grep -q "each reference to a file counted" "$WORK/amp.out" || die "unexpected refusal: $(cat "$WORK/amp.out")"
  [ "$(photos_written "$data")" -eq 0 ] || die "photos were written for a refused archive"
  record diary_import_amplify_cli_peak_rss "$(peak_mb "$WORK/amp.time")" MB

  data=$(fresh_data big)
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/big.time" "$HIBI" import diary --user bench "$WORK/one-gb.zip" >"$WORK/big.out" 2>&1 \
    || die "the 1 GB archive failed: $(tail -3 "$WORK/big.out")"
  end=$(date +%s.%N)
  record diary_import_1gb_cli_peak_rss "$(peak_mb "$WORK/big.time")" MB
  record diary_import_1gb_cli_seconds "$(python3 -c "print($end - $start)")" s
  log "round $ROUND: $(cat "$WORK/big.out"), $(photos_written "$data") photos written"
  rm -rf "$data"

  data=$(fresh_data server)
  TOKEN=$(HIBI_DATA_DIR="$data" "$HIBI" user token bench)
  serve_hibi "$data"
  hwm() { awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$SERVER/status"; }
  record diary_import_server_idle_peak_rss "$(hwm)" MB
  status=$(curl -sS -o "$WORK/amp.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/zip" \
    --data-binary "@$WORK/amplify.zip" "http://127.0.0.1:$PORT/api/v1/diary/import")
  [ "$status" = 400 ] || die "amplification archive over the API: $status $(cat "$WORK/amp.json")"
  record diary_import_amplify_server_peak_rss "$(hwm)" MB
  status=$(curl -sS -o "$WORK/api.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/zip" \
    --data-binary "@$WORK/api.zip" "http://127.0.0.1:$PORT/api/v1/diary/import")
  [ "$status" = 200 ] || die "240 MB archive over the API: $status $(cat "$WORK/api.json")"
  record diary_import_240mb_server_peak_rss "$(hwm)" MB
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
  rm -rf "$data"
done
report
