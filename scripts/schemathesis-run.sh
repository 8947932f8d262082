#!/usr/bin/env bash
# schemathesis against a running server on PostgreSQL: a fresh database and user, one of everything that has
# an id (scripts/schemathesis-seed.py), every operation with generated input, then the stateful phase that
# follows the OpenAPI links (Resources/openapi/*.json); prints how many id-taking operations got a 2xx.
# Called by scripts/test.sh with its PostgreSQL server; alone: scripts/schemathesis-run.sh HIBI_BIN PGPORT WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
HIBI=$1; PGPORT=$2; WORK=$3
export HIBI_RESOURCES_DIR=${HIBI_RESOURCES_DIR:-$PWD/Resources} HIBI_VENDOR_DIR=${HIBI_VENDOR_DIR:-$PWD/vendor}
DATA="$WORK/api"; rm -rf "$DATA"; mkdir -p "$DATA"
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; true' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DB="hibi_api_$$"
runuser -u postgres -- psql -h 127.0.0.1 -p "$PGPORT" -U hibi -d postgres -qc "CREATE DATABASE $DB" >/dev/null
DBURL="postgres://hibi@127.0.0.1:$PGPORT/$DB?sslmode=disable"
echo "schemathesis password" | HIBI_DATA_DIR="$DATA" HIBI_DATABASE_URL="$DBURL" "$HIBI" user create api-user --password-stdin >/dev/null
TOKEN=$(HIBI_DATA_DIR="$DATA" HIBI_DATABASE_URL="$DBURL" "$HIBI" user token api-user --name schemathesis)
HIBI_DATA_DIR="$DATA" HIBI_PORT="$PORT" HIBI_LOG_LEVEL=warning HIBI_DATABASE_URL="$DBURL" "$HIBI" serve >"$DATA/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "server did not start:" >&2; cat "$DATA/server.log" >&2; exit 1; }
# One of everything that has an id, so the stateful phase's links hand out real ids; and a remembered device,
# whose cookie face sign-in takes (scripts/schemathesis.toml and -stateful.toml hand it to the operations that name deviceCookie).
SEEDED=$(.venv/bin/python scripts/schemathesis-seed.py "http://127.0.0.1:$PORT" "$TOKEN" api-user "schemathesis password")
grep -v '^device-cookie: ' <<<"$SEEDED"
HIBI_DEVICE_COOKIE=$(sed -n 's/^device-cookie: //p' <<<"$SEEDED"); export HIBI_DEVICE_COOKIE
# st CONFIG ARGS…: the fuzzing runs take scripts/schemathesis.toml; the stateful ones scripts/schemathesis-stateful.toml,
# the same settings plus list filters that match the seed (so the lists the links start from are not empty).
st() { local config=$1; shift
  .venv/bin/schemathesis --config-file "$config" run "http://127.0.0.1:$PORT/api/v1/openapi.json" \
    --url "http://127.0.0.1:$PORT" --header "Authorization: Bearer $TOKEN" --no-color \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance "$@"; }
# Each run keeps a HAR of its requests, from which the reach is counted below.
har() { echo --report har --report-har-path "$WORK/st-$1.har"; }
# Chains that follow the links, twice. Each run is given a time, not a number of chains: Hypothesis ends a stateful
# run at the first chain that draws differently when replayed ("inconsistent data generation": the server's state has
# moved on since), which came after 18 to 180 of 600 chains, so the reach went from 22 to 35 operations from one
# `make test` to the next; under --max-time schemathesis starts a new run until the time is spent.
# The first run, before the fuzzing runs (those reuse the ids they see and change what the seed made), leaves out the
# deletions of what the seed made once and generated requests rarely make (a video, a playlist holding it, a diary entry
# with a photo, a visit with one, a saved place, health records): an early delete of the one seeded video ended every
# video chain, and of the two health records every record chain. The second run takes those deletions.
SEEDED_ONCE="deleteVideo clearVideoHistory deletePlaylist deleteDiaryEntry deleteVisit deleteSavedPlace deleteHealthRecord"
# ids FLAG OPERATION…: the flag before each operation id.
ids() { local flag=$1; shift; for id in "$@"; do printf -- '%s %s ' "$flag" "$id"; done; }
st scripts/schemathesis-stateful.toml --phases stateful --max-examples 600 --max-time 40 $(ids --exclude-operation-id $SEEDED_ONCE) \
  $(har stateful)
# Every operation with generated input, DELETE apart so revoking tokens cannot pull the test's own token away mid-run.
st scripts/schemathesis.toml --phases examples,coverage,fuzzing --max-examples 60 --exclude-method DELETE $(har fuzz)
# Then the chains to those deletions, before the fuzzing's own: those delete the ids they see, and had removed the
# seeded video and saved place by the time the chains came. Only the deletions and the lists that link to them: with
# every operation, or the creating ones too, the ten seconds went by in chains elsewhere before each deletion had its turn.
# A token is revoked in the first run, right after being created (no link leads from the token list to a revocation).
st scripts/schemathesis-stateful.toml --phases stateful --max-examples 600 --max-time 10 $(har stateful-delete) \
  $(ids --include-operation-id $SEEDED_ONCE listVideos listPlaylists listDiaryEntries listVisits listSavedPlaces listHealthRecords)
st scripts/schemathesis.toml --phases examples,coverage,fuzzing --max-examples 30 --include-method DELETE $(har fuzz-delete)
# How many operations that take an id got a 2xx answer (a real id): the links' and the seed's reach.
curl -fsS "http://127.0.0.1:$PORT/api/v1/openapi.json" -o "$WORK/openapi.json"
printf 'stateful phase '; python3 scripts/schemathesis-reach.py "$WORK/openapi.json" "$WORK"/st-stateful*.har
printf 'all phases ';  python3 scripts/schemathesis-reach.py --count "$WORK/openapi.json" "$WORK"/st-*.har
