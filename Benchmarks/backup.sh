#!/usr/bin/env bash
# Whole-instance backup and restore: `hibi backup` / `hibi restore` (release build) against
# `sqlite3 .backup` plus `tar` of the media folders, on the same data, in the same run, alternating
# A B A B for a few rounds. Prints median and min–max seconds and peak RSS for each, then
# `name: value unit` lines.
# Usage: Benchmarks/backup.sh [health-records, default 200000] [diary-entries, default 5000] [media-MB, default 256] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RECORDS=${1:-200000}
ENTRIES=${2:-5000}
MEDIA_MB=${3:-256}
ROUNDS=${4:-3}
WORK=${HIBI_BENCH_DIR:-$ROOT/.cache/backup-bench}
mkdir -p "$WORK"

# sqlite3 and GNU time from Debian, installed once.
need=()
command -v sqlite3 >/dev/null || need+=(sqlite3)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# HIBI_BIN points at a binary already built (e.g. .build/debug/hibi) and skips the release build.
if [ -z "${HIBI_BIN:-}" ]; then
  swift build -c release --product hibi 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
fi
HIBI="${HIBI_BIN:-$ROOT/.build/release/hibi}"
echo "binary: $HIBI"
export HIBI_RESOURCES_DIR="$ROOT/Resources"

# 1. One instance: a user, RECORDS health records (Apple Health import), ENTRIES diary entries of which
#    every tenth has a photo (diary import), and MEDIA_MB of video uploads on disk.
DATA="$WORK/data-$RECORDS-$ENTRIES-$MEDIA_MB"
if [ ! -f "$DATA/.filled" ]; then
  rm -rf "$DATA"; mkdir -p "$DATA"
  echo "filling $DATA ..."
  echo "benchmark password" | HIBI_DATA_DIR="$DATA" "$HIBI" user create bench --password-stdin >/dev/null
  python3 - "$WORK/export.xml" "$RECORDS" "$WORK/diary.zip" "$ENTRIES" <<'PYEOF'
import sys, datetime, random, json, zipfile, io
xml_path, records, zip_path, entries = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
random.seed(7)
with open(xml_path, "w") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="ja_JP">\n <ExportDate value="2024-06-01 09:00:00 +0900"/>\n')
    t = datetime.datetime(2016, 1, 1)
    for i in range(records):
        t += datetime.timedelta(minutes=random.randint(1, 4))
        s = t.strftime("%Y-%m-%d %H:%M:%S +0900"); e = (t + datetime.timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S +0900")
        out.write(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" creationDate="{e}" startDate="{s}" endDate="{e}" value="{random.randint(5, 180)}"/>\n')
    out.write("</HealthData>\n")
items = []
with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_STORED) as z:
    for i in range(entries):
        d = datetime.datetime(2020, 1, 1) + datetime.timedelta(hours=i * 7)
        item = {"id": f"00000000-0000-4000-8000-{i:012d}", "date": d.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "text": "今日は散歩をした。" * random.randint(2, 40), "tags": ["walk"], "createdAt": d.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "updatedAt": d.strftime("%Y-%m-%dT%H:%M:%SZ")}
        if i % 10 == 0:
            path = f"photos/{item['id']}.jpg"
            z.writestr(path, b"\xff\xd8\xff\xe0" + random.randbytes(150_000))
            item["photo"] = {"contentType": "image/jpeg", "path": path}
        items.append(item)
    z.writestr("diary.json", json.dumps({"format": "hibi-diary", "version": 2, "exportedAt": "2024-06-01T00:00:00Z", "entries": items}))
PYEOF
  HIBI_DATA_DIR="$DATA" "$HIBI" import apple-health --user bench --quiet "$WORK/export.xml" | tail -1
  HIBI_DATA_DIR="$DATA" "$HIBI" import diary --user bench "$WORK/diary.zip" | tail -1
  mkdir -p "$DATA/videos/uploads/bench"
  for i in $(seq 1 $((MEDIA_MB / 64))); do head -c $((64 * 1024 * 1024)) /dev/urandom > "$DATA/videos/uploads/bench/clip-$i.mp4"; done
  touch "$DATA/.filled"
fi
MEDIA_DIRS=$(cd "$DATA" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%P ')
echo "instance: $(du -sh "$DATA" | cut -f1) ($(sqlite3 "$DATA/hibi.sqlite" 'SELECT COUNT(*) FROM health_records') health records, $(sqlite3 "$DATA/hibi.sqlite" 'SELECT COUNT(*) FROM diary_entries') diary entries, media: $MEDIA_DIRS)"

# Runs a command under GNU time; appends "seconds rss_kb" to the named results file.
measure() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$WORK/$name.rss" "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$(python3 -c "print($end - $start)") $(cat "$WORK/$name.rss")" >> "$WORK/$name.results"
}

rm -f "$WORK"/*.results
OUT="$WORK/out"
for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$OUT"; mkdir -p "$OUT/hibi-target" "$OUT/base-target"
  # A: Hibi backup, then restore into a fresh data directory (keys copied, as an operator would).
  measure hibi_backup env HIBI_DATA_DIR="$DATA" "$HIBI" backup --quiet -o "$OUT/instance.hibi-backup"
  cp "$DATA/data.key" "$OUT/hibi-target/"; [ -f "$DATA/visits-signing.key" ] && cp "$DATA/visits-signing.key" "$OUT/hibi-target/"
  measure hibi_restore env HIBI_DATA_DIR="$OUT/hibi-target" "$HIBI" restore --quiet "$OUT/instance.hibi-backup"
  # B: sqlite3's online backup plus tar of the media folders; restore = copy the database, untar.
  measure base_backup bash -c "sqlite3 '$DATA/hibi.sqlite' \".backup '$OUT/base.sqlite'\" && tar -cf '$OUT/media.tar' -C '$DATA' $MEDIA_DIRS"
  measure base_restore bash -c "cp '$OUT/base.sqlite' '$OUT/base-target/hibi.sqlite' && tar -xf '$OUT/media.tar' -C '$OUT/base-target'"
  echo "round $round done"
done
HIBI_SIZE=$(stat -c %s "$OUT/instance.hibi-backup")
BASE_SIZE=$(( $(stat -c %s "$OUT/base.sqlite") + $(stat -c %s "$OUT/media.tar") ))

python3 - "$WORK" "$HIBI_SIZE" "$BASE_SIZE" <<'PYEOF'
import sys, statistics, os
work, hibi_size, base_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def load(name):
    rows = [line.split() for line in open(os.path.join(work, name + ".results"))]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
out = {}
for name in ["hibi_backup", "base_backup", "hibi_restore", "base_restore"]:
    secs, rss = load(name)
    out[name] = statistics.median(secs)
    print(f"# {name}: median {statistics.median(secs):.2f} s (min {min(secs):.2f}, max {max(secs):.2f}), peak RSS {max(rss) / 1024:.0f} MB, {len(secs)} rounds")
    print(f"{name}_seconds: {statistics.median(secs):.2f} s")
    print(f"{name}_peak_rss: {max(rss) / 1024:.0f} MB")
print(f"backup_ratio: {out['hibi_backup'] / out['base_backup']:.2f} x")
print(f"restore_ratio: {out['hibi_restore'] / out['base_restore']:.2f} x")
print(f"hibi_archive_size: {hibi_size / 1048576:.1f} MB")
print(f"baseline_size: {base_size / 1048576:.1f} MB")
PYEOF
