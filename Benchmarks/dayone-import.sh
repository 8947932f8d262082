#!/usr/bin/env bash
# Day One import: `hibi import diary` on a generated Day One ZIP (Journal.json with ENTRIES entries,
# one in four with a photo, each photo a distinct JPEG stored as photos/<md5>.jpeg), into a fresh
# SQLite data dir each round, then the same file again (every entry already there).
# Prints entries/s, seconds and peak RSS (GNU time) for the first import and the re-import.
# Usage: Benchmarks/dayone-import.sh [entries]
#   quick (default): 2,000 entries, ROUNDS=3; BENCH_SIZE=full: 8,000 entries, ROUNDS=3;
#   BENCH_SIZE=smoke: 200 entries, 1 round.
# The import reads the file whole (at most 256 MiB), so the issue's 2 GB archive cannot be imported
# yet; the photos here are small (about 2 KB) to stay under that bound at 8,000 entries.
# Ends with `name: median unit (min …, max …, N rounds)` lines.
BENCH_FULL_ROUNDS=3
# shellcheck source=Benchmarks/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
ROOT=$BENCH_ROOT
ENTRIES=${1:-$(by_size 2000 8000 200)}
is_count "$ENTRIES" || die "entries must be a whole number"
ensure_apt time python3 ffmpeg
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
ZIP="$WORK/dayone.zip"

ffmpeg -loglevel error -f lavfi -i testsrc=size=96x72 -frames:v 1 -q:v 6 "$WORK/base.jpeg" || die "ffmpeg could not make a JPEG"
python3 - "$ZIP" "$ENTRIES" "$WORK/base.jpeg" <<'PYEOF'
import sys, json, zipfile, hashlib, random, datetime, uuid
path, count, base_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = open(base_path, "rb").read()
random.seed(31)
words = "morning walk coffee rain train office lunch friend book tired happy quiet river evening market".split()
entries, photos = [], {}
start = datetime.datetime(2012, 1, 1, tzinfo=datetime.timezone.utc)
for i in range(count):
    when = start + datetime.timedelta(hours=13 * i)
    identifier = uuid.uuid4().hex.upper()
    text = " ".join(random.choice(words) for _ in range(random.randint(20, 200)))
    entry = {"uuid": uuid.uuid4().hex.upper(), "creationDate": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
             "modifiedDate": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "timeZone": "Asia/Tokyo", "starred": i % 10 == 0,
             "tags": random.sample(words, 2), "text": text,
             "weather": {"conditionsDescription": "Cloudy", "temperatureCelsius": random.randint(-5, 35)}}
    if i % 4 == 0:
        # A JPEG comment segment right after SOI makes each photo distinct (its own MD5) and still valid.
        comment = ("photo %d" % i).encode()
        jpeg = base[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + base[2:]
        md5 = hashlib.md5(jpeg).hexdigest()
        photos["photos/%s.jpeg" % md5] = jpeg
        entry["photos"] = [{"identifier": identifier, "md5": md5, "type": "jpeg", "orderInEntry": 0}]
        entry["text"] += "\n\n![](dayone-moment://%s)" % identifier
    entries.append(entry)
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
    for name, data in photos.items():
        z.writestr(name, data)
PYEOF
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor" HIBI_LOG_LEVEL=error
peak_mb() { awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$1"; }
timed_import() { # NAME DATA_DIR
  local start end seconds
  start=$(date +%s.%N)
  HIBI_DATA_DIR="$2" /usr/bin/time -v -o "$WORK/$1.time" "$HIBI" import diary --user bench "$ZIP" >"$WORK/$1.out" 2>&1 \
    || { tail -20 "$WORK/$1.out" >&2; die "hibi import diary failed"; }
  end=$(date +%s.%N)
  seconds=$(python3 -c "print($end - $start)")
  record "diary_import_$1_seconds" "$seconds" s
  record "diary_import_$1_rate" "$(python3 -c "print($ENTRIES / $seconds)")" entries/s
  record "diary_import_$1_peak_rss" "$(peak_mb "$WORK/$1.time")" MB
  printf '%.1f s (%s)' "$seconds" "$(head -1 "$WORK/$1.out")"
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
report
