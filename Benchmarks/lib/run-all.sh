#!/usr/bin/env bash
# Runs every Benchmarks/*.sh (new scripts join automatically), one after the other, each with a
# header, its output shown live and kept in Benchmarks/out/bench/NAME.log, and ends with one table
# of the `name: value unit` lines they printed. A benchmark that fails is marked FAILED in the table
# and the others still run; the exit status is 1 if any failed. `make bench` calls this.
# A benchmark that exits 0 but prints no figure line counts as failed too (it measured nothing).
# Environment: BENCH_SIZE=smoke|quick|full (default quick; smoke is scripts/test.sh's one tiny round of each), ROUNDS (each script's default otherwise),
#   BENCH="diary http" to run only those, HIBI_BENCH_BIN (the release binary, built once by make),
#   BENCH_TIMEOUT=SECONDS to stop (and mark FAILED) a benchmark that runs longer (default: no limit).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BENCH_SIZE=${BENCH_SIZE:-quick}
case "$BENCH_SIZE" in smoke | quick | full) ;; *) echo "bench: BENCH_SIZE must be smoke, quick or full, not '$BENCH_SIZE'" >&2; exit 2 ;; esac
export BENCH_SIZE
[ -n "${ROUNDS:-}" ] && export ROUNDS
[ -n "${HIBI_BENCH_BIN:-}" ] && export HIBI_BENCH_BIN
OUT=Benchmarks/out/bench
mkdir -p "$OUT"
# A figure line: a name, a colon, a number, then the unit (and anything after, such as the spread).
FIGURE='^[A-Za-z][A-Za-z0-9_.-]*: -?[0-9][0-9.]*( |$)'

scripts=()
for script in Benchmarks/*.sh; do
  name=$(basename "$script" .sh)
  if [ -n "${BENCH:-}" ] && [[ " $BENCH " != *" $name "* ]]; then continue; fi
  scripts+=("$script")
done
[ ${#scripts[@]} -gt 0 ] || { echo "bench: no benchmark matches BENCH='${BENCH:-}'" >&2; exit 2; }

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s)
names=() statuses=() seconds=()
i=0
for script in "${scripts[@]}"; do
  i=$((i + 1))
  name=$(basename "$script" .sh)
  echo
  echo "==================== [$i/${#scripts[@]}] $name ($script, size $BENCH_SIZE${ROUNDS:+, ROUNDS=$ROUNDS}) ===================="
  start=$(date +%s)
  # stdout (the figures) is kept apart from stderr (progress); both are shown and logged.
  if [ -x "$script" ]; then cmd=("$script"); else cmd=(bash "$script"); fi
  [ -n "${BENCH_TIMEOUT:-}" ] && cmd=(timeout -k 10 "$BENCH_TIMEOUT" "${cmd[@]}")
  { "${cmd[@]}" </dev/null | tee "$OUT/$name.stdout"; } 2>&1 | tee "$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  names+=("$name")
  seconds+=($(($(date +%s) - start)))
  if [ "$rc" -eq 0 ] && ! grep -qE "$FIGURE" "$OUT/$name.stdout"; then statuses+=("FAILED (no name: value unit line)")
  elif [ "$rc" -eq 0 ]; then statuses+=(ok)
  elif [ -n "${BENCH_TIMEOUT:-}" ] && [ "$rc" -eq 124 ]; then statuses+=("FAILED (timed out after ${BENCH_TIMEOUT} s)")
  else statuses+=("FAILED (exit $rc)"); fi
  echo "==================== $name: ${statuses[-1]} in ${seconds[-1]} s ===================="
done

total=$(($(date +%s) - t0))
failed=()
for k in "${!names[@]}"; do [ "${statuses[$k]}" = ok ] || failed+=("${names[$k]}"); done
{
  echo
  echo "==================== make bench: summary ===================="
  echo "# size $BENCH_SIZE${ROUNDS:+, ROUNDS=$ROUNDS}; started $started; $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(hostname), $(nproc) cores; $total s in all"
  echo "# each line: median unit (min, max, rounds) over alternating rounds; (once) = measured once"
  for k in "${!names[@]}"; do
    name=${names[$k]}
    echo "# $name: ${statuses[$k]}, ${seconds[$k]} s"
    [ "${statuses[$k]}" = ok ] || echo "#   see $OUT/$name.log"
    grep -E "$FIGURE" "$OUT/$name.stdout" || echo "#   (no figure lines)"
  done
  if [ ${#failed[@]} -eq 0 ]; then
    echo "# benchmarks: ${#names[@]} run, all ok"
  else
    echo "# benchmarks: ${#names[@]} run, $((${#names[@]} - ${#failed[@]})) ok, ${#failed[@]} FAILED: ${failed[*]}"
  fi
} | tee "$OUT/summary.txt"
[ ${#failed[@]} -eq 0 ]
