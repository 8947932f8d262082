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
# Chains that follow the links, first without DELETE (an early delete of the one seeded video ended every
# video chain) and before the fuzzing runs: those reuse the ids they see, and had changed or deleted the seeded
# entry, visit and video the stateful filters match by the time the chains ran. --max-examples counts steps, not
# chains: 150 steps shared by some forty links ended after 30 to 180 short chains, reaching 8 to 20 operations.
st scripts/schemathesis-stateful.toml --phases stateful --max-examples 600 --exclude-method DELETE $(har stateful)
# Every operation with generated input, DELETE apart so revoking tokens cannot pull the test's own token away mid-run.
st scripts/schemathesis.toml --phases examples,coverage,fuzzing --max-examples 60 --exclude-method DELETE $(har fuzz)
st scripts/schemathesis.toml --phases examples,coverage,fuzzing --max-examples 30 --include-method DELETE $(har fuzz-delete)
# Then the chains with DELETE; a token is only ever revoked right after being created (no link leads from
# the token list to a revocation).
st scripts/schemathesis-stateful.toml --phases stateful --max-examples 300 $(har stateful-delete)
# How many operations that take an id got a 2xx answer (a real id): the links' and the seed's reach.
curl -fsS "http://127.0.0.1:$PORT/api/v1/openapi.json" -o "$WORK/openapi.json"
printf 'stateful phase '; python3 scripts/schemathesis-reach.py "$WORK/openapi.json" "$WORK"/st-stateful*.har
printf 'all phases ';  python3 scripts/schemathesis-reach.py --count "$WORK/openapi.json" "$WORK"/st-*.har
