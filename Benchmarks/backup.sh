#!/usr/bin/env bash
# Whole-instance backup and restore, against what an operator would do by hand, on the same data in the
# same run, alternating Hibi and the reference in every round:
#   SQLite:     `hibi backup` / `hibi restore` (into a fresh data dir)
#               against `sqlite3 .backup` + `tar` of the media folders / copying the database + untar
#   PostgreSQL: `hibi backup` from PostgreSQL / `hibi restore` into an empty PostgreSQL database
#               against `pg_dump -Fc` + `tar` / `pg_restore` into an empty database + untar
# Goal: `hibi backup` takes at most 2x `sqlite3 .backup` + tar, with flat memory (peak RSS that does not grow
# with the data: the snapshot is copied by SQLite's backup API into a scratch file and streamed into the archive),
# and writers never blocked (a writer commits every 20 ms during each SQLite backup; its slowest commit is a figure).
# Wall time and peak RSS (GNU time) of each side; the ratios are taken within each round.
# Data (BENCH_SIZE=full, the issue's size): 100,000 diary entries (sealed, through `hibi import diary`) of
# which 2,000 with a 250 KB photo (sealed files), 2,600,000 health records and 100,000 visits with their
# signed chain (written straight into SQLite by a script), and 512 MB of video uploads: 1 GB of media.
# BENCH_SIZE=quick (default) is a tenth of the rows and photos and 64 MB of video.
# The instance is generated once and kept in .cache/backup-bench/ (delete it to regenerate); the
# PostgreSQL copy is made in a throwaway PostgreSQL 15 (initdb under runuser, as scripts/test.sh does)
# from a pg_dump kept beside it.
# Usage: [BENCH_SIZE=full] [ROUNDS=N] [BENCH_PG=0] [BENCH_SQLITE=0] Benchmarks/backup.sh
# (BENCH_SQLITE=0 skips the SQLite rounds, for work on the PostgreSQL side only.)
# shellcheck source=Benchmarks/lib/common.sh
BENCH_FULL_ROUNDS=3
source "$(dirname "$0")/lib/common.sh"
ensure_apt python3 sqlite3 time tar ffmpeg postgresql-15 postgresql-client-15
HIBI=$(hibi_bin)
PG=${BENCH_PG:-1}
SQLITE=${BENCH_SQLITE:-1}
SCALE=$(by_size 10 1 500)
VIDEO_MB=$(by_size 64 512 64)
GEN_VERSION=1
CACHE="$BENCH_ROOT/.cache/backup-bench"
DATA="$CACHE/instance-$BENCH_SIZE-v$GEN_VERSION"
export HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$BENCH_ROOT/Resources" HIBI_VENDOR_DIR="$BENCH_ROOT/vendor"
unset HIBI_DATABASE_URL HIBI_MEDIA_DIR HIBI_MASTER_KEY

# ---- 1. the instance (generated once, cached) ----
if [ ! -f "$DATA/.complete" ]; then
  rm -rf "$DATA" "$CACHE/pg-$BENCH_SIZE-v$GEN_VERSION.dump"
  mkdir -p "$DATA"
  log "generating the instance in $DATA (size $BENCH_SIZE; once)"
  START=$(date +%s.%N)
  echo "bench password" | HIBI_DATA_DIR="$DATA" "$HIBI" user create bench --password-stdin >/dev/null
  GEN=$(mktemp -d "$CACHE/gen.XXXXXX")
  # Twenty real JPEGs of noise, about 250 KB each (the import checks each photo is an image; noise does not compress).
  for i in $(seq -w 1 20); do
    head -c $((560 * 420 * 3)) /dev/urandom >"$GEN/noise.rgb"
    ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt rgb24 -s 560x420 -i "$GEN/noise.rgb" -frames:v 1 -q:v 8 "$GEN/photo-$i.jpg"
  done
  rm -f "$GEN/noise.rgb"
  python3 - "$DATA/hibi.sqlite" "$GEN" "$SCALE" <<'PY'
import datetime, hashlib, json, os, random, sqlite3, sys, uuid, zipfile
db_path, gen, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = random.Random(16)
db = sqlite3.connect(db_path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=OFF")
user = db.execute("SELECT id FROM users WHERE username = 'bench'").fetchone()[0]
first_day = int(datetime.datetime(2016, 11, 1, tzinfo=datetime.timezone.utc).timestamp())
days = 3650
now = int(datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc).timestamp())
words = "morning coffee walk river rain office lunch friend family book train movie cooking garden music tired happy quiet".split()

# Health: 2.6M records over ten years (steps and heart rate through the day, sleep, resting heart rate, workouts).
n_health = 2_600_000 // scale
per_day = n_health // days
rows, made = [], 0
def flush():
    db.executemany("INSERT INTO health_records (id, user_id, type, value, category, unit, start_at, end_at, source, device, details, created_at)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    rows.clear()
for d in range(days):
    base = first_day + d * 86400
    extra = n_health - made - per_day * (days - d) if d == days - 1 else 0
    count = per_day + max(0, extra)
    steps = count // 2
    for k in range(steps):
        t = base + 7 * 3600 + k * (15 * 3600 // max(1, steps)) + r.randrange(0, 30)
        rows.append((str(uuid.uuid4()), user, "steps", float(r.randint(5, 120)), "", "count", t, t + 60, "appleHealth", "iPhone", None, now))
    for k in range(count - steps - 2):
        t = base + 6 * 3600 + k * (17 * 3600 // max(1, count - steps)) + r.randrange(0, 30)
        rows.append((str(uuid.uuid4()), user, "heartRate", float(r.randint(55, 120)), "", "count/min", t, t, "appleHealth", "Apple Watch", None, now))
    s = base - 3600 + r.randrange(0, 7200); h = 5 + r.random() * 3.5
    rows.append((str(uuid.uuid4()), user, "sleep", round(h, 2), "Asleep", "h", s, s + int(h * 3600), "appleHealth", "Apple Watch", None, now))
    rows.append((str(uuid.uuid4()), user, "workout", float(r.randint(20, 90)), r.choice(["Running", "Walking", "Cycling"]), "min",
                 base + 18 * 3600, base + 19 * 3600, "appleHealth", "Apple Watch", json.dumps({"note": " ".join(r.choice(words) for _ in range(4))}), now))
    made += count
    if len(rows) > 50_000:
        flush()
flush()

# Visits: 100,000 with their signed chain (one "create" link each; hashes and signatures of the right shape,
# nothing verifies them here: the backup carries them as they are).
places = [(f"Place {i}", 35.5 + r.random(), 139.3 + r.random()) for i in range(600)]
visits, chain = [], []
previous = "0" * 64
n_visits = 100_000 // scale
times = sorted(first_day + r.randrange(0, days * 86400) for _ in range(n_visits))
for seq, t in enumerate(times, 1):
    vid = str(uuid.UUID(int=r.getrandbits(128), version=4))
    name, lat, lon = r.choice(places)
    labels = json.dumps([r.choice(["work", "food", "friends", "outdoors"])])
    notes = " ".join(r.choice(words) for _ in range(r.randint(0, 12)))
    visits.append((vid, user, t, lat, lon, 12.0, 40.0, 0, name, f"{r.randint(1, 9)}-{r.randint(1, 30)} Chiyoda, Tokyo", labels, None, "[]",
                   notes, "[]", 1, t, t, None))
    body = json.dumps({"id": vid, "visitedAt": t, "latitude": lat, "longitude": lon, "name": name, "labels": json.loads(labels),
                       "notes": notes, "previous": previous}, separators=(",", ":"), sort_keys=True)
    previous = hashlib.sha256(body.encode()).hexdigest()
    chain.append((user, seq, vid, "create", body, previous, r.randbytes(64).hex()))
db.executemany("INSERT INTO visits (id, user_id, visited_at, latitude, longitude, accuracy, altitude, simulated, name, address, labels, group_name,"
               " companions, notes, photos, revision, created_at, updated_at, deleted_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", visits)
db.executemany("INSERT INTO visit_chain (user_id, seq, visit_id, action, body, hash, signature) VALUES (?,?,?,?,?,?,?)", chain)
db.execute("INSERT INTO visit_chain_heads (user_id, seq, hash) VALUES (?,?,?)", (user, len(chain), previous))
db.commit()

# Diary: 100,000 entries in five archives for `hibi import diary` (which seals text and photos as the server does);
# every 50th entry has a 250 KB photo (a JPEG of noise; the server seals each one, so no two stored files are alike).
n_entries = 100_000 // scale
parts = 5
photos = [open(f"{gen}/photo-{k:02d}.jpg", "rb").read() for k in range(1, 21)]
for part in range(parts):
    items = []
    with zipfile.ZipFile(f"{gen}/diary-{part}.zip", "w", zipfile.ZIP_STORED) as z:
        for i in range(part * n_entries // parts, (part + 1) * n_entries // parts):
            when = datetime.datetime.fromtimestamp(first_day + r.randrange(0, days * 86400), tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            item = {"id": str(uuid.UUID(int=r.getrandbits(128), version=4)), "date": when,
                    "text": " ".join(r.choice(words) for _ in range(r.randint(12, 60))), "tags": [r.choice(words)],
                    "createdAt": when, "updatedAt": when}
            if i % 50 == 0:
                path = f"photos/{item['id']}.jpg"
                z.writestr(path, photos[(i // 50) % len(photos)])
                item["photo"] = {"contentType": "image/jpeg", "path": path}
            items.append(item)
        z.writestr("diary.json", json.dumps({"format": "hibi-diary", "version": 2, "exportedAt": "2026-11-20T00:00:00Z", "entries": items}))
print(f"health {made}, visits {len(visits)}, diary {n_entries} in {parts} archives", file=sys.stderr)
PY
  for ZIP in "$GEN"/diary-*.zip; do
    HIBI_DATA_DIR="$DATA" "$HIBI" import diary --user bench "$ZIP" >/dev/null || die "diary import of $ZIP failed"
  done
  rm -rf "$GEN"
  mkdir -p "$DATA/videos/uploads/bench"
  for i in $(seq 1 $((VIDEO_MB / 64))); do head -c $((64 * 1024 * 1024)) /dev/urandom >"$DATA/videos/uploads/bench/clip-$i.mp4"; done
  sqlite3 "$DATA/hibi.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  touch "$DATA/.complete"
  log "generated in $(python3 -c "import time; print(round(time.time() - $START))") s"
fi
MEDIA_DIRS=()
while IFS= read -r dir; do MEDIA_DIRS+=("$dir"); done < <(cd "$DATA" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%P\n' | sort)
COUNTS=$(sqlite3 "$DATA/hibi.sqlite" "SELECT (SELECT COUNT(*) FROM diary_entries) || ' diary entries, ' || (SELECT COUNT(*) FROM health_records) || ' health records, ' || (SELECT COUNT(*) FROM visits) || ' visits'")
MEDIA_BYTES=$(cd "$DATA" && du -sb "${MEDIA_DIRS[@]}" | awk '{s += $1} END {print s}')
log "instance: $COUNTS, $((MEDIA_BYTES / 1048576)) MB of media in ${MEDIA_DIRS[*]}; database $(( $(stat -c %s "$DATA/hibi.sqlite") / 1048576 )) MB"
record backup_media_size "$(python3 -c "print($MEDIA_BYTES / 1048576)")" MB
record backup_database_size "$(python3 -c "print($(stat -c %s "$DATA/hibi.sqlite") / 1048576)")" MB

WORK=$(bench_tmpdir)
chmod 755 "$BENCH_TMP" "$WORK" # the postgres user reaches its data dir inside

# measure NAME COMMAND…: wall seconds and peak RSS (the largest process of the command) as figures of this round.
measure() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" >"$WORK/$name.out" 2>&1 || { tail -20 "$WORK/$name.out" >&2; die "$name failed"; }
  local seconds rss
  read -r seconds rss <"$WORK/time.out"
  record "${name}_seconds" "$seconds" s
  record "${name}_peak_rss" "$(python3 -c "print($rss / 1024)")" MB
  log "round $ROUND: $name $seconds s, $((rss / 1024)) MB"
}
# A fresh target data dir with the instance's key, as an operator copies data.key before restoring.
fresh_target() {
  rm -rf "$1"; mkdir -p "$1"; chmod 700 "$1"
  cp "$DATA/data.key" "$1/"
  [ -f "$DATA/visits-signing.key" ] && cp "$DATA/visits-signing.key" "$1/"
  return 0
}

# ---- 2. PostgreSQL 15, throwaway, with the same data ----
if [ "$PG" = 1 ]; then
  PGBIN=/usr/lib/postgresql/15/bin
  PGPORT=$(free_port)
  mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
  PGDATA="$WORK/pg/data"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDATA" -A trust -U hibi >/dev/null
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -o "-k $WORK/pg -h 127.0.0.1 -p $PGPORT -c fsync=off -c full_page_writes=off" \
    -l "$WORK/pg/log" -w start >/dev/null
  pg_stop() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true; rm -rf "$WORK/pg"; }
  trap 'pg_stop; bench_cleanup' EXIT
  PGURL="postgres://hibi@127.0.0.1:$PGPORT"
  psqlc() { psql -X -q -v ON_ERROR_STOP=1 "$PGURL/${2:-postgres}?sslmode=disable" -c "$1" >/dev/null; }
  psqlc "CREATE DATABASE hibi_source"
  DUMP="$CACHE/pg-$BENCH_SIZE-v$GEN_VERSION.dump"
  if [ -f "$DUMP" ]; then
    log "loading the PostgreSQL copy from $DUMP"
    pg_restore --no-owner -d "$PGURL/hibi_source?sslmode=disable" "$DUMP" || die "pg_restore of the cached copy failed"
  else
    log "copying the instance into PostgreSQL (hibi backup, hibi restore; once)"
    HIBI_DATA_DIR="$DATA" "$HIBI" backup --quiet -o "$WORK/seed.hibi-backup" >/dev/null
    fresh_target "$WORK/seed-target"
    HIBI_DATA_DIR="$WORK/seed-target" HIBI_DATABASE_URL="$PGURL/hibi_source?sslmode=disable" "$HIBI" restore --quiet "$WORK/seed.hibi-backup" >/dev/null \
      || die "restoring into PostgreSQL failed"
    rm -rf "$WORK/seed-target" "$WORK/seed.hibi-backup"
    pg_dump -Fc -f "$DUMP.partial" "$PGURL/hibi_source?sslmode=disable" && mv "$DUMP.partial" "$DUMP"
  fi
  psqlc "VACUUM ANALYZE" hibi_source
  SRC_PG="$PGURL/hibi_source?sslmode=disable"
fi

# ---- 3. rounds: Hibi, reference, Hibi, reference ----
# Hibi goes first in every round: read the instance once so that its first round does not pay for a cold page cache
# that the reference then finds warm (round 1 ran 3.3x where rounds 2-3 ran 1.4-1.6x).
find "$DATA" -type f -exec cat {} + >/dev/null
for ROUND in $(seq 1 "$ROUNDS"); do
  OUT="$WORK/round"
  rm -rf "$OUT"; mkdir -p "$OUT"
  # SQLite
  if [ "$SQLITE" = 1 ]; then
    # A writer beside the backup, as a running server is: one commit every 20 ms; its slowest commit and how many it
    # made are figures (a blocked writer would wait out the whole snapshot).
    rm -f "$WORK/writer.stop"
    python3 - "$DATA/hibi.sqlite" "$WORK/writer.stop" >"$WORK/writer.out" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=60)
worst, count = 0.0, 0
while not os.path.exists(sys.argv[2]):
    start = time.monotonic()
    db.execute("INSERT INTO settings (key, value) VALUES ('bench-writer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(count),))
    db.commit()
    worst, count = max(worst, time.monotonic() - start), count + 1
    time.sleep(0.02)
db.execute("DELETE FROM settings WHERE key = 'bench-writer'")
db.commit()
print(worst * 1000, count)
PY
    WRITER=$!
    measure hibi_backup env HIBI_DATA_DIR="$DATA" "$HIBI" backup --quiet -o "$OUT/instance.hibi-backup"
    touch "$WORK/writer.stop"
    wait "$WRITER" || die "the writer beside the backup failed"
    read -r WORST WRITES <"$WORK/writer.out"
    record writer_slowest_commit_during_backup "$WORST" ms
    record writer_commits_during_backup "$WRITES" commits
    measure sqlite_tar_backup bash -c 'sqlite3 "$1/hibi.sqlite" ".backup $2/base.sqlite" && tar -cf "$2/media.tar" -C "$1" "${@:3}"' _ \
      "$DATA" "$OUT" "${MEDIA_DIRS[@]}"
    fresh_target "$OUT/hibi-target"
    measure hibi_restore env HIBI_DATA_DIR="$OUT/hibi-target" "$HIBI" restore --quiet "$OUT/instance.hibi-backup"
    rm -rf "$OUT/base-target"; mkdir -p "$OUT/base-target"
    measure sqlite_tar_restore bash -c 'cp "$1/base.sqlite" "$1/base-target/hibi.sqlite" && tar -xf "$1/media.tar" -C "$1/base-target"' _ "$OUT"
    if [ "$ROUND" = 1 ]; then
      record hibi_archive_size "$(python3 -c "print($(stat -c %s "$OUT/instance.hibi-backup") / 1048576)")" MB
      record sqlite_tar_size "$(python3 -c "print(($(stat -c %s "$OUT/base.sqlite") + $(stat -c %s "$OUT/media.tar")) / 1048576)")" MB
      [ "$(sqlite3 "$OUT/hibi-target/hibi.sqlite" 'SELECT COUNT(*) FROM health_records')" = "$(sqlite3 "$DATA/hibi.sqlite" 'SELECT COUNT(*) FROM health_records')" ] \
        || die "the restored SQLite database does not hold every health record"
    fi
    rm -rf "$OUT/hibi-target" "$OUT/base-target" "$OUT/base.sqlite" "$OUT/media.tar" "$OUT/instance.hibi-backup"
  fi
  if [ "$PG" = 1 ]; then
    # PostgreSQL: the media come from the same folders; the rows from the hibi_source database.
    measure hibi_pg_backup env HIBI_DATA_DIR="$DATA" HIBI_DATABASE_URL="$SRC_PG" "$HIBI" backup --quiet -o "$OUT/pg.hibi-backup"
    measure pg_dump_tar_backup bash -c 'pg_dump -Fc -f "$2/pg.dump" "$1" && tar -cf "$2/media.tar" -C "$3" "${@:4}"' _ \
      "$SRC_PG" "$OUT" "$DATA" "${MEDIA_DIRS[@]}"
    psqlc "DROP DATABASE IF EXISTS hibi_target"; psqlc "CREATE DATABASE hibi_target"
    fresh_target "$OUT/hibi-target"
    measure hibi_pg_restore env HIBI_DATA_DIR="$OUT/hibi-target" HIBI_DATABASE_URL="$PGURL/hibi_target?sslmode=disable" "$HIBI" restore --quiet "$OUT/pg.hibi-backup"
    psqlc "DROP DATABASE IF EXISTS hibi_target"; psqlc "CREATE DATABASE hibi_target"
    rm -rf "$OUT/base-target"; mkdir -p "$OUT/base-target"
    measure pg_restore_untar bash -c 'pg_restore --no-owner -d "$1" "$2/pg.dump" && tar -xf "$2/media.tar" -C "$2/base-target"' _ \
      "$PGURL/hibi_target?sslmode=disable" "$OUT"
    if [ "$ROUND" = 1 ]; then
      record hibi_pg_archive_size "$(python3 -c "print($(stat -c %s "$OUT/pg.hibi-backup") / 1048576)")" MB
      record pg_dump_tar_size "$(python3 -c "print(($(stat -c %s "$OUT/pg.dump") + $(stat -c %s "$OUT/media.tar")) / 1048576)")" MB
    fi
    psqlc "DROP DATABASE IF EXISTS hibi_target"
  fi
  rm -rf "$OUT"
done
RATIOS=()
if [ "$SQLITE" = 1 ]; then
  RATIOS+=(--ratio backup_vs_sqlite_tar=hibi_backup_seconds/sqlite_tar_backup_seconds:x
           --ratio restore_vs_sqlite_tar=hibi_restore_seconds/sqlite_tar_restore_seconds:x)
fi
if [ "$PG" = 1 ]; then
  RATIOS+=(--ratio pg_backup_vs_pg_dump_tar=hibi_pg_backup_seconds/pg_dump_tar_backup_seconds:x
           --ratio pg_restore_vs_pg_restore_untar=hibi_pg_restore_seconds/pg_restore_untar_seconds:x)
fi
report "${RATIOS[@]}"
