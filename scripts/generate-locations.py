#!/usr/bin/env python3
"""Synthetic location history for tests and Benchmarks/locations.sh.

  generate-locations.py gpx POINTS [--stop-every N] [--stop-minutes M] > track.gpx
  generate-locations.py records POINTS > Records.json        (Google Takeout's old shape)
  generate-locations.py stops > track.gpx                    (the two-stop track the browser test imports)

A track moves at about 10 m/s with a point every 10 s and stops (GPS jitter of a few metres) for
--stop-minutes every --stop-every points, so the number of stays in it is known: POINTS // stop-every.
Streams its output: a million points take no more memory than ten.
"""
import math
import random
import sys

START = 1_714_550_400  # 2024-05-01T08:00:00Z


def track(points, stop_every, stop_minutes, seed=17):
    r = random.Random(seed)
    lat, lon, t = 35.681236, 139.767125, START
    heading = 0.3
    stop_points = stop_minutes * 6  # one point every 10 s while stopped
    emitted = 0
    while emitted < points:
        moving = stop_every - stop_points if stop_every > stop_points else stop_every
        for _ in range(min(moving, points - emitted)):
            heading += r.uniform(-0.2, 0.2)
            lat += 100 / 111_000 * math.cos(heading)
            lon += 100 / (111_000 * math.cos(math.radians(lat))) * math.sin(heading)
            t += 10
            yield t, lat, lon
            emitted += 1
        for _ in range(min(stop_points, points - emitted)):
            t += 10
            yield t, lat + r.gauss(0, 4) / 111_000, lon + r.gauss(0, 4) / 91_000
            emitted += 1


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def gpx(points, stop_every, stop_minutes):
    out = sys.stdout
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="hibi generate-locations" '
              'xmlns="http://www.topografix.com/GPX/1/1">\n<trk><name>Generated</name><trkseg>\n')
    for t, lat, lon in track(points, stop_every, stop_minutes):
        out.write('<trkpt lat="%.7f" lon="%.7f"><time>%s</time></trkpt>\n' % (lat, lon, iso(t)))
    out.write('</trkseg></trk>\n</gpx>\n')


def records(points):
    out = sys.stdout
    out.write('{\n  "locations": [')
    for i, (t, lat, lon) in enumerate(track(points, 720, 20)):
        sep = "," if i else ""
        out.write('%s{\n    "latitudeE7": %d,\n    "longitudeE7": %d,\n    "accuracy": 12,\n    "source": "WIFI",\n'
                  '    "timestamp": "%s"\n  }' % (sep, round(lat * 1e7), round(lon * 1e7), iso(t)))
    out.write(']\n}\n')


def stops():
    """Walk 10 min, stop 20 min (a café), walk 10 min, wait 2 min (a red light), walk 10 min,
    stop 25 min (a museum), walk 5 min: two stays, the red light not one."""
    r = random.Random(3)
    lat, lon, t = 35.658581, 139.745433, START
    pts = []

    def walk(minutes):
        nonlocal lat, lon, t
        for _ in range(minutes * 6):
            lat += 12 / 111_000
            lon += 6 / 91_000
            t += 10
            pts.append((t, lat, lon))

    def stay(minutes):
        nonlocal t
        for _ in range(minutes * 6):
            t += 10
            pts.append((t, lat + r.gauss(0, 3) / 111_000, lon + r.gauss(0, 3) / 91_000))

    walk(10); stay(20); walk(10); stay(2); walk(10); stay(25); walk(5)
    out = sys.stdout
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="hibi generate-locations" '
              'xmlns="http://www.topografix.com/GPX/1/1">\n<trk><name>Two stops</name><trkseg>\n')
    for t, la, lo in pts:
        out.write('<trkpt lat="%.7f" lon="%.7f"><time>%s</time></trkpt>\n' % (la, lo, iso(t)))
    out.write('</trkseg></trk>\n</gpx>\n')


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    opts = {"--stop-every": 720, "--stop-minutes": 20}
    rest = []
    i = 1
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = int(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if args[0] == "gpx":
        gpx(int(rest[0]), opts["--stop-every"], opts["--stop-minutes"])
    elif args[0] == "records":
        records(int(rest[0]))
    elif args[0] == "stops":
        stops()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
