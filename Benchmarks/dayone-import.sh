#!/usr/bin/env bash
# Day One import, streamed: `hibi import diary` on a generated Day One ZIP (Benchmarks/dayone-zip.py:
# Journal.json with ENTRIES entries, a distinct JPEG in each, the photos together PHOTOS_MB), into a
# fresh SQLite data dir each round, then the same file again (every entry already there).
# Prints entries/s, seconds and peak RSS (GNU time) for the first import and the re-import; the goal is
# a peak RSS of at most 200 MB whatever the archive's size (issue 31).
# Usage: Benchmarks/dayone-import.sh
#   BENCH_SIZE=smoke: 200 entries, 10 MB of photos, 1 round (CI: does it run at all);
#   quick (default): 2,000 entries, 200 MB of photos, ROUNDS=3;
#   full: 8,000 entries, 2,048 MB of photos, ROUNDS=1 (needs about 3 × that on disk: the archive, the
#   sealed photos, the upload spool; checked first).
#   ENTRIES and PHOTOS_MB override the size.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
SIZE=${BENCH_SIZE:-quick}
case "$SIZE" in
  smoke) BENCH_SIZE=quick; ROUNDS=${ROUNDS:-1}; DEFAULT_ENTRIES=200; DEFAULT_MB=10 ;;
  full) ROUNDS=${ROUNDS:-1}; DEFAULT_ENTRIES=8000; DEFAULT_MB=2048 ;;
  *) ROUNDS=${ROUNDS:-3}; DEFAULT_ENTRIES=2000; DEFAULT_MB=200 ;;
esac
export ROUNDS
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ROOT=$BENCH_ROOT
ENTRIES=${ENTRIES:-$DEFAULT_ENTRIES}
PHOTOS_MB=${PHOTOS_MB:-$DEFAULT_MB}
is_count "$ENTRIES" || die "ENTRIES must be a whole number"
is_count "$PHOTOS_MB" || die "PHOTOS_MB must be a whole number"
ensure_apt time python3 ffmpeg
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
ZIP="$WORK/dayone.zip"
free_mb=$(df -Pm "$WORK" | awk 'NR == 2 {print $4}')
[ "$free_mb" -gt $((PHOTOS_MB * 3 + 500)) ] || die "needs about $((PHOTOS_MB * 3 + 500)) MB free in $WORK, has $free_mb MB"

ffmpeg -loglevel error -f lavfi -i testsrc=size=96x72 -frames:v 1 -q:v 6 "$WORK/base.jpeg" || die "ffmpeg could not make a JPEG"
log "writing a Day One archive: $ENTRIES entries, $PHOTOS_MB MB of photos"
python3 "$(dirname "$0")/dayone-zip.py" "$ZIP" "$ENTRIES" "$PHOTOS_MB" "$WORK/base.jpeg" || die "could not write the archive"
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor" HIBI_LOG_LEVEL=error
peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }
timed_import() { # NAME DATA_DIR
  local start end seconds
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$2" /usr/bin/time -v -o "$WORK/$1.time" "$HIBI" import diary --user bench "$ZIP" >"$WORK/$1.out" 2>&1 \
    || { tail -20 "$WORK/$1.out" >&2; die "hibi import diary failed"; }
  end=$(date +%s.%N)
  grep -q "$ENTRIES added\|$ENTRIES already there" "$WORK/$1.out" || { cat "$WORK/$1.out" >&2; die "not every entry was imported"; }
  seconds=$(python3 -c "print($end - $start)")
  record "diary_import_$1_seconds" "$seconds" s
  record "diary_import_$1_rate" "$(python3 -c "print($ENTRIES / $seconds)")" entries/s
  record "diary_import_$1_peak_rss" "$(peak_mb "$WORK/$1.time")" MB
  printf '%.1f s, %s MB (%s)' "$seconds" "$(peak_mb "$WORK/$1.time")" "$(head -1 "$WORK/$1.out")"
}
log "$ROUNDS rounds: first import, then the same file again"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  data="$WORK/data-$ROUND"
  mkdir -p "$data"
  echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
  first=$(timed_import first "$data")
  again=$(timed_import again "$data")
  rm -rf "$data"
  log "round $ROUND/$ROUNDS: first $first; again $again (load $(cut -d' ' -f1 /proc/loadavg))"
done
ROUND=0
record diary_import_entries "$ENTRIES" entries
record diary_import_file_size "$(python3 -c "import os; print(os.path.getsize('$ZIP') / 2**20)")" MB
rm -f "$ZIP"
report
