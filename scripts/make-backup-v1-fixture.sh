#!/usr/bin/env bash
# Makes Tests/HibiAppTests/Backup/Fixtures/v1.hibi-backup: a backup in format version 1 (one JSON-lines
# member per table), which Hibi wrote up to commit 118f429. Restores of such backups stay supported, and
# BackupFormatV1Tests restores this one. It needs a `hibi` binary built from that commit:
#   git worktree add /tmp/hibi-v1 118f429 && (cd /tmp/hibi-v1 && swift build --product hibi)
#   HIBI_V1_BIN=/tmp/hibi-v1/.build/debug/hibi scripts/make-backup-v1-fixture.sh
# The instance is sealed with a fixed, published test key (never a real one): the test restores with it.
set -euo pipefail
HIBI=${HIBI_V1_BIN:?set HIBI_V1_BIN to a hibi built from commit 118f429}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/Tests/HibiAppTests/Backup/Fixtures/v1.hibi-backup"
DATA=$(mktemp -d)
PORT=18231
export HIBI_DATA_DIR="$DATA" HIBI_MASTER_KEY="AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" HIBI_LOG_LEVEL=error HIBI_PORT=$PORT
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor"
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
echo "fixture password" | "$HIBI" user create aiko --password-stdin >/dev/null
TOKEN=$("$HIBI" user token aiko --scopes read,write,diary | tail -1)
"$HIBI" serve >/dev/null 2>&1 & SERVER=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
api() { curl -sf -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -X "$1" "http://127.0.0.1:$PORT$2" -d "$3"; echo; }
# A 1x1 PNG as the diary photo.
PNG=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==
api POST /api/v1/diary/entries '{"date":"2026-11-01T10:00:00Z","text":"v1 の日記 \"quoted\"\nline","tags":["walk"],"confirmedMood":"happiness"}'
api POST /api/v1/diary/entries "{\"date\":\"2026-11-05T10:00:00Z\",\"text\":\"With a photo\",\"photo\":\"$PNG\"}"
api POST /api/v1/health/records '{"type":"weight","value":61.25,"start":"2026-11-02T07:00:00Z"}'
api POST /api/v1/visits '{"name":"Tokyo Station","latitude":35.6812,"longitude":139.7671,"visitedAt":"2026-11-03T09:00:00Z","labels":["train"]}'
kill $SERVER; wait $SERVER 2>/dev/null || true
"$HIBI" backup -o "$OUT" --quiet
echo "wrote $OUT ($(stat -c %s "$OUT") bytes)"
