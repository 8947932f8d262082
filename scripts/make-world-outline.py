#!/usr/bin/env python3
"""Builds Resources/web/world-110m.geojson, the offline world outline of the visits map.

Source: Natural Earth 1:110m countries (public domain, https://www.naturalearthdata.com/),
as shipped in Debian's python3-geopandas package (geopandas/datasets/naturalearth_lowres).
Run once; the output is committed. Needs only the standard library and apt-get/dpkg-deb:
the .deb is downloaded (not installed) and the shapefile is read here directly.

    python3 scripts/make-world-outline.py
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Resources", "web", "world-110m.geojson")
SHP = "usr/lib/python3/dist-packages/geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"
TOLERANCE = 0.15  # degrees; enough for a backdrop at zoom 1-5
DIGITS = 2


def fetch_shapefile(work):
    subprocess.run(["apt-get", "download", "python3-geopandas"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    deb = next(name for name in os.listdir(work) if name.endswith(".deb"))
    subprocess.run(["dpkg-deb", "-x", deb, "x"], cwd=work, check=True)
    with open(os.path.join(work, "x", SHP), "rb") as handle:
        return handle.read()


def polygons(data):
    """Yields each record's rings (ESRI shapefile, type 5 = Polygon)."""
    offset = 100
    while offset < len(data):
        _, length = struct.unpack(">ii", data[offset:offset + 8])
        content = data[offset + 8:offset + 8 + length * 2]
        offset += 8 + length * 2
        shape_type = struct.unpack("<i", content[:4])[0]
        if shape_type != 5:
            continue
        num_parts, num_points = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack("<%di" % num_parts, content[44:44 + 4 * num_parts]))
        base = 44 + 4 * num_parts
        points = [struct.unpack("<dd", content[base + 16 * i:base + 16 * i + 16]) for i in range(num_points)]
        bounds = parts + [num_points]
        yield [points[bounds[i]:bounds[i + 1]] for i in range(num_parts)]


def simplify(points, tolerance):
    """Douglas-Peucker."""
    if len(points) < 3:
        return points
    (x1, y1), (x2, y2) = points[0], points[-1]
    dx, dy = x2 - x1, y2 - y1
    norm = (dx * dx + dy * dy) ** 0.5
    best, index = 0.0, 0
    for i in range(1, len(points) - 1):
        px, py = points[i]
        d = abs(dy * px - dx * py + x2 * y1 - y2 * x1) / norm if norm else ((px - x1) ** 2 + (py - y1) ** 2) ** 0.5
        if d > best:
            best, index = d, i
    if best <= tolerance:
        return [points[0], points[-1]]
    return simplify(points[:index + 1], tolerance)[:-1] + simplify(points[index:], tolerance)


def main():
    with tempfile.TemporaryDirectory() as work:
        data = fetch_shapefile(work)
    lines = []
    for rings in polygons(data):
        for ring in rings:
            small = simplify(ring, TOLERANCE)
            if len(small) >= 4:
                lines.append([[round(x, DIGITS), round(y, DIGITS)] for x, y in small])
    collection = {
        "type": "FeatureCollection",
        "source": "Natural Earth 1:110m Admin 0 countries via Debian python3-geopandas (naturalearth_lowres); public domain",
        "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "MultiLineString", "coordinates": lines}}],
    }
    with open(OUT, "w") as handle:
        json.dump(collection, handle, separators=(",", ":"))
    print("wrote %s (%d rings, %d bytes)" % (OUT, len(lines), os.path.getsize(OUT)), file=sys.stderr)


if __name__ == "__main__":
    main()
