#!/usr/bin/env python3
"""Reference timings with Python face_recognition (dlib's Python binding) on the same images:
decode (PIL), detect (HOG, no upsampling, as the engine does for 640x480 frames), and
align+embed (5-point landmarks + ResNet, 1 jitter). Prints one JSON line."""
import json, sys, time
import face_recognition

paths = sys.argv[2:]
repeat = int(sys.argv[1])
stages = {"decode": [], "detect": [], "align+embed": [], "total": []}
face_recognition.face_encodings(face_recognition.load_image_file(paths[0]), model="small")  # warm-up
faces = 0
for _ in range(repeat):
    for p in paths:
        t0 = time.perf_counter()
        img = face_recognition.load_image_file(p)
        t1 = time.perf_counter()
        boxes = face_recognition.face_locations(img, number_of_times_to_upsample=0)
        t2 = time.perf_counter()
        enc = face_recognition.face_encodings(img, known_face_locations=boxes, num_jitters=1, model="small")
        t3 = time.perf_counter()
        faces += len(enc)
        n = max(1, len(enc))
        stages["decode"].append((t1 - t0) * 1000)
        stages["detect"].append((t2 - t1) * 1000)
        stages["align+embed"].append((t3 - t2) * 1000 / n)
        stages["total"].append((t3 - t0) * 1000)

def pct(v, p):
    v = sorted(v); k = p * (len(v) - 1); lo = int(k); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)

print(json.dumps({"images": len(paths), "faces": faces,
                  "stages": {k: {"p50": round(pct(v, .5), 2), "p95": round(pct(v, .95), 2)} for k, v in stages.items()}}))
