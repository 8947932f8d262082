#!/usr/bin/env bash
# The journal on ten years of one person's data, against the issue's targets (there is no other program
# that answers the same questions over the same data to put side by side):
#   day page p50 <= 50 ms (GET /api/v1/days/{date}, and the web page /day/{date} with its month calendar),
#   a timeline page <= 50 ms (GET /api/v1/timeline, 20 days, from a cursor anywhere in the ten years),
#   search everywhere p50 <= 100 ms (GET /api/v1/search, the first search, which opens every diary entry into
#   the in-memory index, measured once apart), insights over ten years <= 500 ms (GET /api/v1/insights).
# Data (BENCH_SIZE=full): 100,000 diary entries (sealed, through the diary import), 2,600,000 health records,
# 20,000 visits and 5,000 played videos written straight into the SQLite file by a script (fast).
# BENCH_SIZE=quick (default) is a tenth of each over the same ten years; BENCH_SIZE=smoke a 500th, 3 requests, 1 round.
# Usage: Benchmarks/journal.sh [requests per figure per round]
# Ends with `name: median unit (min …, max …, N rounds)` lines, then the targets as `name_target: value ms`.
# shellcheck source=Benchmarks/lib/common.sh
BENCH_FULL_ROUNDS=3
source "$(dirname "$0")/lib/common.sh"
ITER=${1:-$(by_size 10 20 3)}
is_count "$ITER" || die "requests must be a positive whole number"
SCALE=$(by_size 10 1 500)
ensure_apt curl python3 sqlite3
HIBI=$(hibi_bin)
WORK=$(bench_tmpdir)
export HIBI_DATA_DIR="$WORK" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" HIBI_VENDOR_DIR="$PWD/vendor"
PASSWORD="bench password"
DB="$WORK/hibi.sqlite"
start_server() {
  PORT=$(free_port)
  HIBI_PORT=$PORT "$HIBI" serve >"$WORK/server.log" 2>&1 &
  SERVER=$!
  bench_bg $SERVER
  wait_http "http://127.0.0.1:$PORT/healthz" || { tail -20 "$WORK/server.log" >&2; die "Hibi did not start"; }
}
# The generated data dir (after the diary import) is kept in .cache/journal-bench/<size>-<key>, the key a hash of
# the lines between the two `data:` marks below, and each run works on a fresh copy of it (a full-size data set
# takes minutes to make). BENCH_JOURNAL_FRESH=1 makes it again.
DATA_KEY=$(sed -n '/^# ---- data: begin/,/^# ---- data: end/p' "$0" | sha256sum | cut -c1-12)
CACHE="$BENCH_ROOT/.cache/journal-bench/$BENCH_SIZE-$DATA_KEY"
if [ -f "$CACHE/ready" ] && [ "${BENCH_JOURNAL_FRESH:-0}" != 1 ]; then
  log "data from $CACHE (generated in $(cat "$CACHE/ready") s)"
  cp -a "$CACHE/data/." "$WORK/"
  TOKEN=$("$HIBI" user token bench)
  start_server
else
# ---- data: begin (a change here makes the data set again)
echo "$PASSWORD" | "$HIBI" user create bench --password-stdin >/dev/null
TOKEN=$("$HIBI" user token bench)
[ -f "$DB" ] || die "no database at $DB"
sqlite3 "$DB" "UPDATE users SET time_zone = 'Asia/Tokyo' WHERE username = 'bench'"

log "generating ten years of data (size $BENCH_SIZE: 1/$SCALE of 100k entries, 2.6M records, 20k visits, 5k plays)"
START=$(date +%s.%N)
python3 - "$DB" "$WORK" "$SCALE" <<'PY'
import json, random, sqlite3, sys, uuid, datetime
db_path, work, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = random.Random(18)
db = sqlite3.connect(db_path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=OFF")
user = db.execute("SELECT id FROM users WHERE username = 'bench'").fetchone()[0]
JST = 9 * 3600
first_day = int(datetime.datetime(2016, 11, 1, tzinfo=datetime.timezone.utc).timestamp()) - JST  # local midnight
days = 3650
now = int(datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc).timestamp())
words = "morning coffee walk river rain office lunch friend family book train movie cooking garden music tired happy quiet".split()

# Health: 2.6M records. Per day ~ 330 step samples and ~ 370 heart-rate samples through the waking hours,
# a night's sleep (ending in the morning), resting heart rate, and a workout every other day or so.
n_health = 2_600_000 // scale
per_day = n_health // days
rows = []
def flush():
    db.executemany("INSERT INTO health_records (id, user_id, type, value, category, unit, start_at, end_at, source, device, details, created_at)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    rows.clear()
made = 0
for d in range(days):
    base = first_day + d * 86400
    mood_push = r.random()
    steps_today = max(1, per_day // 2 - 3)
    for k in range(steps_today):
        t = base + 7 * 3600 + k * (15 * 3600 // steps_today) + r.randrange(0, 30)
        rows.append((str(uuid.uuid4()), user, "steps", float(r.randint(5, 60) + int(mood_push * 40)), "", "count", t, t + 60, "appleHealth", "iPhone", None, now))
    for k in range(per_day - steps_today - 3):
        t = base + 6 * 3600 + k * (17 * 3600 // max(1, per_day - steps_today - 3)) + r.randrange(0, 30)
        rows.append((str(uuid.uuid4()), user, "heartRate", float(r.randint(55, 120)), "", "count/min", t, t, "appleHealth", "Apple Watch", None, now))
    sleep_start = base - 3600 + r.randrange(0, 7200)
    hours = 5 + r.random() * 3.5
    rows.append((str(uuid.uuid4()), user, "sleep", round(hours, 2), "Asleep", "h", sleep_start, sleep_start + int(hours * 3600), "appleHealth", "Apple Watch", None, now))
    rows.append((str(uuid.uuid4()), user, "restingHeartRate", float(r.randint(50, 65)), "", "count/min", base + 8 * 3600, base + 8 * 3600, "appleHealth", "Apple Watch", None, now))
    if r.random() < 0.45:
        note = json.dumps({"note": " ".join(r.choice(words) for _ in range(4))})
        rows.append((str(uuid.uuid4()), user, "workout", float(r.randint(20, 90)), r.choice(["Running", "Walking", "Cycling", "Hiking"]), "min",
                     base + 18 * 3600, base + 19 * 3600, "appleHealth", "Apple Watch", note, now))
    made += per_day
    if len(rows) > 50_000:
        flush()
flush()

# Visits: 20,000 over ten years, a few hundred distinct places, labels, notes.
places = [(f"Place {i}", 35.5 + r.random(), 139.3 + r.random()) for i in range(600)]
visit_rows = []
for i in range(20_000 // scale):
    name, lat, lon = places[min(len(places) - 1, int(r.paretovariate(1.2)) - 1)] if r.random() < 0.8 else r.choice(places)
    t = first_day + r.randrange(0, days * 86400)
    notes = " ".join(r.choice(words) for _ in range(6)) + (" kintsugi" if i % 500 == 0 else "")
    visit_rows.append((str(uuid.uuid4()), user, t, lat, lon, None, None, 0, name, None, json.dumps([r.choice(["work", "food", "friends", "outdoors"])]),
                       None, "[]", notes, "[]", 1, t, t, None))
db.executemany("INSERT INTO visits (id, user_id, visited_at, latitude, longitude, accuracy, altitude, simulated, name, address, labels, group_name,"
               " companions, notes, photos, revision, created_at, updated_at, deleted_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", visit_rows)

# Videos: 5,000 uploads, each played once (the last play is what Hibi keeps).
video_rows, data_rows = [], []
for i in range(5_000 // scale):
    vid = str(uuid.uuid4())
    t = first_day + r.randrange(0, days * 86400)
    video_rows.append((vid, user, "upload", f"{vid}.mp4", f"clip {i}.mp4", 1_000_000, t * 1000, r.randint(60_000, 5_400_000), "mp4", "h264", "aac",
                       1280, 720, 0, 0, t))
    data_rows.append((user, vid, f"Clip {i} " + r.choice(words), 0, None, ",", t, 0, 1, 1, 0))
db.executemany("INSERT INTO videos (id, owner_id, source, file_path, original_name, size_bytes, modified_ms, duration_ms, container, video_codec,"
               " audio_codec, width, height, has_thumbnail, has_captions, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", video_rows)
db.executemany("INSERT INTO video_user_data (user_id, video_id, title, favorite, rating, tags, last_played_at, position_ms, play_count, played,"
               " hidden_from_continue) VALUES (?,?,?,?,?,?,?,?,?,?,?)", data_rows)
db.commit()

# Diary: 100,000 entries through the import (the text is sealed by the server, as it is at rest).
moods = ["happiness", "happiness", "neutral", "sadness", "surprise", None, None]
entries = []
for i in range(100_000 // scale):
    when = datetime.datetime.fromtimestamp(first_day + r.randrange(0, days * 86400), tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = " ".join(r.choice(words) for _ in range(r.randint(12, 40))) + (" kintsugi" if i % 997 == 0 else "")
    entry = {"id": str(uuid.uuid4()), "date": when, "text": text, "tags": [r.choice(words)], "createdAt": when, "updatedAt": when}
    mood = r.choice(moods)
    if mood:
        entry["confirmedMood"] = mood
    entries.append(entry)
# In parts of 20,000: one import's JSON is capped at 32 MB.
for part in range(0, len(entries), 20_000):
    json.dump({"format": "hibi-diary", "version": 1, "exportedAt": "2026-11-20T00:00:00Z", "entries": entries[part:part + 20_000]},
              open(f"{work}/export-{part // 20_000:02d}.json", "w"))
print(f"health {made}, visits {len(visit_rows)}, videos {len(video_rows)}, diary {len(entries)}", file=sys.stderr)
PY
start_server
log "importing the diary"
for PART in "$WORK"/export-*.json; do
  STATUS=$(curl -sS -o "$WORK/import.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    --data-binary "@$PART" "http://127.0.0.1:$PORT/api/v1/diary/import")
  [ "$STATUS" = 200 ] || [ "$STATUS" = 201 ] || { head -c 500 "$WORK/import.out" >&2; tail -20 "$WORK/server.log" >&2; die "diary import failed ($STATUS)"; }
done
rm -f "$WORK"/export-*.json
# ---- data: end
  GENERATED=$(python3 -c "import time; print(round(time.time() - $START))")
  record journal_generate "$GENERATED" s
  log "data generated in $GENERATED s; keeping a copy in $CACHE"
  kill "$SERVER" && wait "$SERVER" || true  # a stopped server leaves a whole SQLite file to copy
  rm -rf "$CACHE" && mkdir -p "$CACHE/data"
  cp -a "$WORK/." "$CACHE/data/" && rm -f "$CACHE/data/server.log"
  echo "$GENERATED" >"$CACHE/ready"
  start_server
fi
sqlite3 "$DB" "SELECT 'rows: health ' || (SELECT COUNT(*) FROM health_records) || ', diary ' || (SELECT COUNT(*) FROM diary_entries) || ', visits ' || (SELECT COUNT(*) FROM visits) || ', plays ' || (SELECT COUNT(*) FROM video_user_data)" >&2

log "$ROUNDS rounds of: day (API and page), timeline page, search, insights"
python3 - "$PORT" "$TOKEN" "$ITER" "$ROUNDS" "$PASSWORD" <<'PY'
import datetime, http.cookiejar, json, random, re, statistics, sys, time, urllib.parse, urllib.request, zoneinfo
sys.path.insert(0, "Benchmarks/lib")
from stats import record
port, token, iterations, rounds, password = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
base = f"http://127.0.0.1:{port}"
r = random.Random(5)
def log(message):
    print(f"journal: {message}", file=sys.stderr, flush=True)
def api(path):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    t = time.perf_counter()
    body = urllib.request.urlopen(request).read()
    return (time.perf_counter() - t) * 1000, body
# A browser session with the diary unlocked, for the day page as people see it.
jar = http.cookiejar.CookieJar()
browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
def csrf(html):
    return re.search(r'name="_csrf" value="([^"]+)"', html).group(1)
def post(path, form):
    # The form's own page gives the CSRF token for the post.
    html = browser.open(base + path).read().decode()
    form = dict(form, _csrf=csrf(html))
    browser.open(urllib.request.Request(base + path, data=urllib.parse.urlencode(form).encode(), method="POST")).read()
post("/login", {"username": "bench", "password": password})
post("/diary/unlock", {"password": password})
def page(path):
    t = time.perf_counter()
    body = browser.open(base + path).read()
    return (time.perf_counter() - t) * 1000, body
def day():
    return (datetime.date(2016, 11, 1) + datetime.timedelta(days=r.randrange(0, 3650))).isoformat()
def p50(fn, make_path, count=iterations):
    return statistics.median(fn(make_path())[0] for _ in range(count))

first, body = api("/api/v1/search?q=kintsugi")
record("journal_search_first_call", first, "ms")
found = json.loads(body)
log(f"kintsugi: {sum(1 for h in found['results'] if h['domain'] == 'diary')} diary, {sum(1 for h in found['results'] if h['domain'] == 'visits')} visits")
assert found["diarySearched"] and any(h["domain"] == "visits" for h in found["results"])
timeline = json.loads(api("/api/v1/timeline?limit=20")[1])
assert len(timeline["days"]) == 20 and timeline["next"], timeline
# The newest diary entry's day (in the person's zone, Asia/Tokyo): at the smoke size most days have none.
newest = json.loads(api("/api/v1/diary/entries?perPage=1")[1])["entries"][0]["date"]
written = datetime.datetime.fromisoformat(newest.replace("Z", "+00:00")).astimezone(zoneinfo.ZoneInfo("Asia/Tokyo")).date().isoformat()
_, day_body = page(f"/day/{written}")
assert b'id="day-calendar"' in day_body and b"day-diary" in day_body, day_body[:300]
ins_ms, ins_body = api("/api/v1/insights")
log(f"insights: {[(i['measure'], i['lag'], round(i['rho'], 2), i['n']) for i in json.loads(ins_body)['insights']]}")

for rnd in range(1, rounds + 1):
    d_api = p50(api, lambda: f"/api/v1/days/{day()}")
    d_page = p50(page, lambda: f"/day/{day()}")
    t_page = p50(api, lambda: f"/api/v1/timeline?limit=20&before={day()}")
    t_first = p50(api, lambda: "/api/v1/timeline?limit=20")
    t_web = p50(page, lambda: f"/timeline?before={day()}")
    s_api = p50(api, lambda: "/api/v1/search?q=" + urllib.parse.quote(r.choice(["kintsugi", "river garden", "Place 42", "running", "zzqx"])))
    i_api = p50(api, lambda: "/api/v1/insights", count=max(3, iterations // 4))
    for name, value in [("journal_day_api", d_api), ("journal_day_page", d_page), ("journal_timeline_api", t_page),
                        ("journal_timeline_api_newest", t_first), ("journal_timeline_page", t_web), ("journal_search", s_api),
                        ("journal_insights", i_api)]:
        record(name, value, "ms", rnd)
    log(f"round {rnd}/{rounds}: day {d_api:.1f}/{d_page:.1f} ms, timeline {t_page:.1f} ms, search {s_api:.1f} ms, insights {i_api:.0f} ms")
PY
report
echo "journal_day_target: 50 ms"
echo "journal_timeline_target: 50 ms"
echo "journal_search_target: 100 ms"
echo "journal_insights_target: 500 ms"
