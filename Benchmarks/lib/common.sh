# Shared by the Benchmarks/*.sh scripts: `source "$(dirname "$0")/lib/common.sh"` near the top.
# It moves to the repository root and provides:
#   BENCH_NAME, BENCH_SIZE (smoke|quick|full, default quick), ROUNDS, by_size QUICK FULL [SMOKE]
#   log / die                   progress and errors on stderr (stdout carries only the figures)
#   ensure_apt PKG…             installs missing Debian packages (dpkg check first; sudo only when not root)
#   ensure_venv_pkg SPEC MOD    pip-installs a pinned package into the project's .venv if it is missing
#   ensure_app                  models, fixtures and web assets from scripts/setup.sh, if missing
#   hibi_bin                    path of the release binary ($HIBI_BENCH_BIN, or `swift build -c release`)
#   bench_tmpdir, bench_bg PID  temp dirs and background processes cleaned up on exit
#   free_port, wait_http URL    a free loopback port; wait until a URL answers
#   record NAME VALUE UNIT      one sample of a figure in round $ROUND (0 = measured once)
#   report [--ratio …]          prints every figure as `name: median unit (min …, max …, N rounds)`
# The statistics live in Benchmarks/lib/stats.py.
set -euo pipefail
shopt -s inherit_errexit # a failure inside $(…) stops the script too
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$BENCH_ROOT"
BENCH_NAME=$(basename "$0" .sh)
BENCH_LIB="$BENCH_ROOT/Benchmarks/lib"

log() { echo "$BENCH_NAME: $*" >&2; }
die() { echo "$BENCH_NAME: error: $*" >&2; exit 1; }

# smoke: the smallest size, one round, run by scripts/test.sh (what `make test` and CI run) against the
# debug build, so a benchmark that no longer runs fails the tests; its figures mean nothing.
BENCH_SIZE=${BENCH_SIZE:-quick}
case "$BENCH_SIZE" in smoke | quick | full) ;; *) die "BENCH_SIZE must be smoke, quick or full, not '$BENCH_SIZE'" ;; esac
# by_size QUICK FULL [SMOKE]: the value for this size (smoke falls back to QUICK when a script gives none).
by_size() {
  case "$BENCH_SIZE" in
    full) echo "$2" ;;
    smoke) echo "${3:-$1}" ;;
    *) echo "$1" ;;
  esac
}
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

# ---- installing what a benchmark and its reference need (idempotent) ----
ensure_apt() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (apt)"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to install ${missing[*]}"
    sudo="sudo"
  fi
  $sudo apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
}

# ensure_venv_pkg NAME==VERSION: the project's .venv (as scripts/setup.sh makes it) gets the pinned version.
ensure_venv_pkg() {
  local spec=$1 name=${1%%==*} version=${1##*==}
  ensure_apt python3-venv
  [ -x .venv/bin/python ] || python3 -m venv .venv || die "could not create .venv"
  local have
  have=$(.venv/bin/python -c 'import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: pass' "$name")
  [ "$have" = "$version" ] && return 0
  log "installing $spec into .venv (pip)"
  .venv/bin/python -m pip install -q --disable-pip-version-check "$spec" || die "pip install $spec failed"
}

# The app's own assets (face models, fixtures, web assets) come from scripts/setup.sh; run it only if
# something it installs is missing, so a benchmark started by hand works on a fresh clone too.
ensure_app() {
  ensure_apt curl python3 python3-venv
  if [ ! -f models/dlib_face_recognition_resnet_model_v1.dat ] || [ ! -f vendor/web/pico/pico.min.css ] \
    || [ ! -d .cache/face-fixtures/frames/wolfgang ]; then
    log "running scripts/setup.sh run (models, fixtures, web assets)"
    scripts/setup.sh run >&2 || die "scripts/setup.sh run failed"
  fi
}

# The release binary. `make bench` builds it once and passes HIBI_BENCH_BIN; a script run by hand
# builds (a no-op when nothing changed). HIBI_BENCH_BIN may also point at a debug build to try a
# script quickly; figures that count come from release.
hibi_bin() {
  if [ -n "${HIBI_BENCH_BIN:-}" ]; then
    [ -x "$HIBI_BENCH_BIN" ] || die "HIBI_BENCH_BIN=$HIBI_BENCH_BIN is not an executable"
    echo "$HIBI_BENCH_BIN"
    return
  fi
  log "building Hibi (release; a no-op when the sources did not change)"
  swift build -c release --product hibi >"$BENCH_ROOT/.build/bench-build.log" 2>&1 \
    || { tail -30 "$BENCH_ROOT/.build/bench-build.log" >&2; die "release build failed"; }
  echo "$BENCH_ROOT/.build/release/hibi"
}

# ---- clean-up of temp dirs and background processes ----
# Everything temporary lives under one directory made here (bench_tmpdir is called inside $(…),
# a subshell, so it cannot register anything itself).
BENCH_TMP=$(mktemp -d "/tmp/hibi-bench-$BENCH_NAME.XXXXXX")
BENCH_PIDS=()
bench_cleanup() {
  local pid
  for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${BENCH_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM
bench_tmpdir() { mktemp -d "$BENCH_TMP/work.XXXXXX"; }
bench_bg() { BENCH_PIDS+=("$1"); }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { # URL [tries of 0.2 s]
  local i
  for ((i = 0; i < ${2:-150}; i++)); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

# ---- samples and the report ----
# A script may set BENCH_FULL_ROUNDS before sourcing when its full size is long (default 5 either way).
ROUNDS=${ROUNDS:-$(by_size 5 "${BENCH_FULL_ROUNDS:-5}" 1)}
is_count "$ROUNDS" || die "ROUNDS must be a positive whole number, not '$ROUNDS'"
ROUND=0
BENCH_SAMPLES="$BENCH_TMP/samples.tsv"
: >"$BENCH_SAMPLES"
export BENCH_SAMPLES BENCH_SIZE ROUNDS
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$ROUND" "$2" "$3" >>"$BENCH_SAMPLES"; }
report() { python3 "$BENCH_LIB/stats.py" "$BENCH_SAMPLES" "$@"; }

# serve_hibi DATA_DIR: starts $HIBI serve on that data directory and a free port, cleaned up on exit;
# sets PORT and SERVER (its pid) and waits until /healthz answers (the log is $WORK/server.log).
serve_hibi() {
  PORT=$(free_port)
  HIBI_DATA_DIR="$1" HIBI_PORT=$PORT "$HIBI" serve >"$WORK/server.log" 2>&1 &
  SERVER=$!
  bench_bg $SERVER
  wait_http "http://127.0.0.1:$PORT/healthz" || { tail -20 "$WORK/server.log" >&2; die "Hibi did not start"; }
}
