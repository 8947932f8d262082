#!/usr/bin/env bash
# Peak memory of a Strava export's activities.csv (issue 32): `hibi import apple-health` of two generated exports
# (Benchmarks/strava-csv-gen.py: activities entered by hand, 4 KB descriptions full of commas and quotes), one ten
# times the other's size. activities.csv is streamed a row at a time, so the peak should not follow its size (it was
# read whole, and refused past 64 MB). Figures: peak RSS of each, the growth from the small to the large, rows/s.
# Usage: Benchmarks/strava-csv.sh   (quick and full: 2,000 and 20,000 rows, 8.8 and 88 MB; smoke: 200 and 2,000)
# Ends with `name: median unit (min …, max …, N rounds)` lines.
[ "${BENCH_SIZE:-quick}" = full ] || ROUNDS=${ROUNDS:-1}
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ensure_apt python3 time
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
SMALL=$(by_size 2000 2000 200)
LARGE=$((SMALL * 10))
export HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$BENCH_ROOT/Resources" HIBI_VENDOR_DIR="$BENCH_ROOT/vendor"
python3 Benchmarks/strava-csv-gen.py "$WORK/small.zip" "$SMALL" 4000
python3 Benchmarks/strava-csv-gen.py "$WORK/large.zip" "$LARGE" 4000
peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }

for ROUND in $(seq 1 "$ROUNDS"); do
  declare -A peak=()
  for tag in small large; do
    data="$WORK/data-$tag-$ROUND" && mkdir -p "$data"
    echo "benchmark password" | HIBI_DATA_DIR="$data" "$HIBI" user create bench --password-stdin >/dev/null
    start=$(date +%s.%N)
    HIBI_DATA_DIR="$data" /usr/bin/time -v -o "$WORK/$tag.time" "$HIBI" import apple-health --quiet --user bench "$WORK/$tag.zip" \
      >"$WORK/$tag.out" 2>&1 || { tail -20 "$WORK/$tag.out" >&2; die "hibi import apple-health failed on the $tag export"; }
    end=$(date +%s.%N)
    rows=$([ $tag = small ] && echo "$SMALL" || echo "$LARGE")
    grep -q "Workouts: $rows added" "$WORK/$tag.out" || die "not $rows workouts: $(grep Workouts "$WORK/$tag.out")"
    peak[$tag]=$(peak_mb "$WORK/$tag.time")
    record "strava_csv_${tag}_peak_rss" "${peak[$tag]}" MB
    [ $tag = large ] && record strava_csv_rows_per_second "$(python3 -c "print(round($rows / ($end - $start)))")" rows/s
    rm -rf "$data"
  done
  record strava_csv_peak_rss_growth "$(python3 -c "print(round(${peak[large]} - ${peak[small]}, 1))")" MB
done
report
