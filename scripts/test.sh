#!/usr/bin/env bash
# Runs every test: Swift tests on SQLite, the same again on a real PostgreSQL, two instances behind nginx,
# every benchmark once at its smoke size and schemathesis against a running server (side by side), then
# browser tests in headless Chromium (one worker per core) while schemathesis finishes. Each stage must pass.
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

HIBI=$(swift build --show-bin-path)/hibi
# Everything the tests and servers leave in the temp directory (each test's data folder, Chromium profiles) goes
# with the run: a thousand test data folders a run had piled up in /tmp.
mkdir -p "$WORK/tmp" && export TMPDIR="$WORK/tmp"

# A throwaway PostgreSQL for the Swift tests, the two-instance test and schemathesis.
PGPORT=$(free_port)
mkdir -p "$WORK/pg" && chown postgres "$WORK/pg"
PGDATA="$WORK/pg/data"
runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$PGDATA" -A trust -U hibi >/dev/null
# Tests run in parallel and each opens its own pool (two per test for the instance tests): the default
# 100 connections ran out with 344 tests ("too many clients already"), and 600 with 613 once databases were
# copied from a template (a test opens its app sooner, so more pools are open at once).
# A throwaway server need not survive a power cut: without fsync the ~600 databases the tests create, and
# their commits, stop waiting on the disk. No test checks durability; the instances test kills processes, not the machine.
runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA" -o "-k $WORK/pg -h 127.0.0.1 -p $PGPORT -c max_connections=2000 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" -l "$WORK/pg/log" -w start >/dev/null

# Stages that run side by side: each writes its own log, shown whole when it fails; `finish` waits for
# them, prints each one's time and fails the run if one failed. They share nothing but the PostgreSQL
# server (each its own database) and the cores.
BG_NAMES=() BG_PIDS=() BG_START=() BG_LOGS=()
begin() { # name command…
  local name=$1; shift
  stage "$name (started; runs alongside)"
  local log="$WORK/log-$RANDOM$RANDOM"
  ( "$@" ) >"$log" 2>&1 &
  BG_NAMES+=("$name") BG_PIDS+=($!) BG_START+=("$(date +%s)") BG_LOGS+=("$log")
  PIDS+=($!)
}
finish() { # [name…]: waits for those stages (all of them when none is named)
  local i failed=0 names=("$@") keep_names=() keep_pids=() keep_start=() keep_logs=()
  for i in "${!BG_PIDS[@]}"; do
    if [ ${#names[@]} -gt 0 ] && ! printf '%s\n' "${names[@]}" | grep -qxF "${BG_NAMES[$i]}"; then
      keep_names+=("${BG_NAMES[$i]}") keep_pids+=("${BG_PIDS[$i]}") keep_start+=("${BG_START[$i]}") keep_logs+=("${BG_LOGS[$i]}")
      continue
    fi
    if wait "${BG_PIDS[$i]}"; then
      printf '\n== %s: ok in %s s ==\n' "${BG_NAMES[$i]}" "$(($(date +%s) - ${BG_START[$i]}))"
      # The lines worth keeping from a stage that passed: benchmark summary, scenario results, test totals.
      grep -E '^(# |instances: |seed: |✔ Test run|Test run with|=+ .*(No issues found|passed|warnings? in)|(stateful phase|all phases) reached|  not reached)' "${BG_LOGS[$i]}" || true
    else
      printf '\n== %s: FAILED ==\n' "${BG_NAMES[$i]}"; cat "${BG_LOGS[$i]}"; failed=1
    fi
  done
  BG_NAMES=("${keep_names[@]}") BG_PIDS=("${keep_pids[@]}") BG_START=("${keep_start[@]}") BG_LOGS=("${keep_logs[@]}")
  [ "$failed" -eq 0 ]
}
# Returns the command's own status: called as `timed … || X`, a failure inside would not stop the script (set -e
# is off there), and returning printf's status hid a crashed SQLite suite.
timed() { local t0 rc=0; t0=$(date +%s); "$@" || rc=$?; printf '== done in %s s ==\n' "$(($(date +%s) - t0))"; return "$rc"; }

# The same tests on PostgreSQL after SQLite, not alongside: side by side on two cores, the tests that wait in
# real time (the face unlock's frame pacing, two instances' lock and lease waits) timed out (ten on SQLite and
# five on PostgreSQL in one run; each passes alone). The test binary is run directly, as `swift test --skip-build`
# would run it: SwiftPM 6 holds a lock on .build for the whole of a command.
# All tests use Swift Testing; an XCTest case would need the binary's XCTest mode too, so one is refused here.
if grep -rlq --include='*.swift' '^import XCTest' Tests; then echo "an XCTest test in Tests/: scripts/test.sh runs Swift Testing only" >&2; exit 1; fi
TESTS=$(dirname "$HIBI")/hibiPackageTests.xctest
# Tests that wait in real time (two instances wait on each other's SQLite file lock and on a lease's
# heartbeat) run on their own after each pass: among 600 others on two cores they were starved past those
# limits (each passed alone). The face unlock's pacing between frames runs on the app's injected clock, which
# the face tests move by hand, so they run among the others.
REALTIME='InstancesTests|HeavyWorkClaimTests'
stage "Swift tests (SQLite)"
SQLITE_OK=1
timed "$TESTS" --testing-library swift-testing --skip "$REALTIME" || SQLITE_OK=0
timed "$TESTS" --testing-library swift-testing --filter "$REALTIME" || SQLITE_OK=0
stage "Swift tests again on PostgreSQL"
PGTESTS="postgres://hibi@127.0.0.1:$PGPORT/postgres?sslmode=disable"
timed env HIBI_TEST_POSTGRES_URL="$PGTESTS" "$TESTS" --testing-library swift-testing --filter HibiAppTests --skip "$REALTIME" || SQLITE_OK=0
timed env HIBI_TEST_POSTGRES_URL="$PGTESTS" "$TESTS" --testing-library swift-testing --filter "$REALTIME" || SQLITE_OK=0
[ "$SQLITE_OK" = 1 ]

# Schemathesis waits on its server more than it computes, and outlasts the two stages beside it by a minute or two
# (a machine a fifth idle meanwhile): it runs on beside the browser tests too.
SCHEMATHESIS="schemathesis against a running server (PostgreSQL)"
begin "$SCHEMATHESIS" scripts/schemathesis-run.sh "$HIBI" "$PGPORT" "$WORK"
# Both wait more than they compute (the instance test waits out a reminder interval).
INSTANCES="two instances on one PostgreSQL behind nginx"
begin "$INSTANCES" scripts/instances-test.sh "$HIBI" "$PGPORT" "$WORK"
# A benchmark that fails or prints no `name: value unit` line fails the tests, so none rots unseen (the debug
# build runs them; figures that count come from `make bench`, release).
BENCHMARKS="every benchmark once at its smoke size"
begin "$BENCHMARKS" env BENCH_SIZE=smoke HIBI_BENCH_BIN="$HIBI" BENCH_TIMEOUT=300 Benchmarks/lib/run-all.sh
finish "$INSTANCES" "$BENCHMARKS"

stage "browser tests (headless Chromium), one worker per core, beside schemathesis"
# pytest-xdist: every test starts its own server on a free port with its own temp data dir; each worker keeps its
# browsers and resets one for each test (e2e/conftest.py BrowserPool).
# --durations: the slowest tests are named in every run, so the next one to cut is seen, not guessed.
E2E_OK=1
timed env HIBI_BIN="$HIBI" .venv/bin/python -m pytest -q -n "$(nproc)" --durations=15 e2e || E2E_OK=0
finish
[ "$E2E_OK" = 1 ]
