#!/usr/bin/env bash
# Memory and latency bounds under hostile or heavy requests, against a release build on SQLite.
# Each scenario runs on a fresh server; its peak RSS (VmHWM) above the idle RSS is compared with a
# bound, and /healthz is timed while the scenario runs. Prints `name: value unit` lines and exits 1
# when a bound is broken. There is no reference to compare with: the bounds are the point.
#   metadata_bomb: one Record with 300 MetadataEntry values of 1 MB (a ~1 MB ZIP), uploaded as an
#                  Apple Health export (once cost 1.3 GB); bound +100 MB, refused with a message.
#   import_200mb:  a 200 MB export.xml uploaded and imported in the background; bound +150 MB.
#   anonymous_bodies: three anonymous 256 MB multipart POSTs to /diary/import at once (once took the
#                  server past 1.4 GB and /healthz past 10 s); bound +50 MB, /healthz under 1 s.
# Usage: Benchmarks/limits.sh [import-size-MB, default 200; 10 at BENCH_SIZE=smoke]
# HIBI_BENCH_BIN: the binary to run (make bench passes the release build; scripts/test.sh the debug one).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZE_MB=${1:-$([ "${BENCH_SIZE:-quick}" = smoke ] && echo 10 || echo 200)}
WORK=${HIBI_BENCH_DIR:-$ROOT/.cache/limits-bench}
mkdir -p "$WORK"
if [ -n "${HIBI_BENCH_BIN:-}" ]; then HIBI=$HIBI_BENCH_BIN; else
  swift build -c release --product hibi 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
  HIBI="$ROOT/.build/release/hibi"
fi
HIBI="$HIBI" WORK="$WORK" SIZE_MB="$SIZE_MB" HIBI_RESOURCES_DIR="$ROOT/Resources" \
  python3 "$ROOT/Benchmarks/limits.py"
