#!/usr/bin/env bash
# Runs every test: Swift tests on SQLite, the same again on a real PostgreSQL, schemathesis against
# a running server, and browser tests in headless Chromium. Each stage must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor"
WORK=$(mktemp -d /tmp/hibi-test.XXXXXX)
chmod 755 "$WORK"  # the postgres user must reach its data dir inside
PIDS=()
PGDATA=""
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  if [ -n "$PGDATA" ]; then runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
stage() { printf '\n== %s ==\n' "$*"; }

stage "no unexplained traps in server code"
python3 scripts/check-traps.py --self-test  # the checker still finds planted traps
python3 scripts/check-traps.py

stage "build"
# Progress lines are dropped; warnings and errors stay. A failed build fails the run (pipefail).
swift build --build-tests 2>&1 | { grep -vE "^\[[0-9]+/[0-9]+\]" || true; }

stage "Swift tests (SQLite)"
swift test --skip-build

stage "Swift tests again on PostgreSQL"
PGPORT=$(free_port)
mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
PGDATA="$WORK/pg/data"
runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$PGDATA" -A trust -U hibi >/dev/null
# Tests run in parallel and each opens its own pool (two per test for the instance tests): the default
# 100 connections ran out with 344 tests ("too many clients already").
runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA" -o "-k $WORK/pg -h 127.0.0.1 -p $PGPORT -c max_connections=600" -l "$WORK/pg/log" -w start >/dev/null
HIBI_TEST_POSTGRES_URL="postgres://hibi@127.0.0.1:$PGPORT/postgres?sslmode=disable" swift test --skip-build --filter HibiAppTests

HIBI=$(swift build --show-bin-path)/hibi

stage "two instances on one PostgreSQL behind nginx"
scripts/instances-test.sh "$HIBI" "$PGPORT" "$WORK"

stage "every benchmark once at its smoke size (Benchmarks/*.sh; figures not judged, only that each runs)"
# A benchmark that fails or prints no `name: value unit` line fails the tests, so none rots unseen.
# The debug build is enough to run them; figures that count come from `make bench` (release).
BENCH_SIZE=smoke HIBI_BENCH_BIN="$HIBI" BENCH_TIMEOUT=300 Benchmarks/lib/run-all.sh >"$WORK/bench.log" 2>&1 \
  || { cat "$WORK/bench.log"; exit 1; }
sed -n '/make bench: summary/,$p' "$WORK/bench.log" | grep -E '^# '

start_server() { # data-dir port [database-url]
  local url=${3:-}
  env HIBI_DATA_DIR="$1" HIBI_PORT="$2" HIBI_LOG_LEVEL=warning ${url:+HIBI_DATABASE_URL=$url} "$HIBI" serve >"$1/server.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$2/healthz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "server did not start:" >&2; cat "$1/server.log" >&2; return 1
}

stage "schemathesis against a running server (PostgreSQL)"
PORT=$(free_port); DATA="$WORK/api"; mkdir -p "$DATA"
runuser -u postgres -- psql -h 127.0.0.1 -p "$PGPORT" -U hibi -d postgres -qc "CREATE DATABASE hibi_api" >/dev/null
DBURL="postgres://hibi@127.0.0.1:$PGPORT/hibi_api?sslmode=disable"
echo "schemathesis password" | HIBI_DATA_DIR="$DATA" HIBI_DATABASE_URL="$DBURL" "$HIBI" user create api-user --password-stdin >/dev/null
TOKEN=$(HIBI_DATA_DIR="$DATA" HIBI_DATABASE_URL="$DBURL" "$HIBI" user token api-user --name schemathesis)
start_server "$DATA" "$PORT" "$DBURL"
.venv/bin/schemathesis run "http://127.0.0.1:$PORT/api/v1/openapi.json" --url "http://127.0.0.1:$PORT" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples 60 --exclude-method DELETE --no-color
# DELETE runs separately so revoking tokens cannot pull the test's own token away mid-run.
.venv/bin/schemathesis run "http://127.0.0.1:$PORT/api/v1/openapi.json" --url "http://127.0.0.1:$PORT" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples 30 --include-method DELETE --no-color

# The browser tests start their own servers; the schemathesis one would only compete for the cores.
kill "${PIDS[-1]}" 2>/dev/null || true; wait "${PIDS[-1]}" 2>/dev/null || true

stage "browser tests (headless Chromium)"
HIBI_BIN="$HIBI" .venv/bin/python -m pytest -q e2e
