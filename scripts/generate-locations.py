#!/usr/bin/env python3
"""Synthetic location history for tests and Benchmarks/locations.sh.

  generate-locations.py gpx POINTS [--stop-every N] [--stop-minutes M] > track.gpx
  generate-locations.py records POINTS > Records.json        (Google Takeout's old shape)
  generate-locations.py stops > track.gpx                    (the two-stop track the browser test imports)
  generate-locations.py rec POINTS > 2024-05.rec             (an OwnTracks Recorder month file, one lwt a thousand lines)
  generate-locations.py tcx POINTS > activity.tcx            (Training Center XML, a heart rate on every trackpoint)
  generate-locations.py fit POINTS > activity.fit            (a FIT activity: record messages, every tenth with a
                                                              compressed timestamp header)
  generate-locations.py geojson POINTS > log.geojson         (GPSLogger for Android's GeoJSON log: Point features
                                                              with time, time_long, accuracy and the rest)
  generate-locations.py savedplaces PLACES > "Saved Places.json"  (Google Takeout's Maps saved places, the newer
                                                              layout; every 50th at [0, 0] as Google writes a place it
                                                              cannot locate)

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


def rec(points):
    out = sys.stdout
    for i, (t, lat, lon) in enumerate(track(points, 720, 20)):
        out.write('%s\t*                 \t{"_type":"location","acc":8,"alt":40,"batt":80,"lat":%.7f,"lon":%.7f,"tid":"ai","tst":%d,"vac":3}\n'
                  % (iso(t), lat, lon, t))
        if i % 1000 == 999:
            out.write('%s\t-                 \t{"_type":"lwt","tst":%d}\n' % (iso(t), t))


def tcx(points):
    out = sys.stdout
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">\n'
              '<Activities><Activity Sport="Other"><Id>%s</Id><Lap StartTime="%s"><Track>\n' % (iso(START), iso(START)))
    for t, lat, lon in track(points, 720, 20):
        out.write('<Trackpoint><Time>%s</Time><Position><LatitudeDegrees>%.7f</LatitudeDegrees><LongitudeDegrees>%.7f</LongitudeDegrees>'
                  '</Position><AltitudeMeters>40.0</AltitudeMeters><HeartRateBpm><Value>90</Value></HeartRateBpm></Trackpoint>\n' % (iso(t), lat, lon))
    out.write('</Track></Lap></Activity></Activities>\n</TrainingCenterDatabase>\n')


def fit(points):
    """A FIT activity as the protocol describes it: a 14-byte header, a file_id message, one record
    definition (timestamp, position_lat, position_long, altitude, heart_rate; little-endian), then a
    record per point: a normal header with the full timestamp, or, when the time is within 31 s of the
    last full one, every tenth point a compressed-timestamp header without it (local type 1)."""
    import struct
    body = bytearray()
    # Definition of local 0 = file_id (global 0): type (enum, 1 byte) = 4 (activity).
    body += bytes([0x40, 0, 0]) + struct.pack("<H", 0) + bytes([1, 0, 1, 0x00])
    body += bytes([0x00, 4])
    # Local 0 = record (global 20): timestamp, lat, long, altitude, heart_rate.
    body += bytes([0x40, 0, 0]) + struct.pack("<H", 20) + bytes([5, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 3, 1, 0x02])
    # Local 1 = record without its timestamp, for compressed-timestamp headers.
    body += bytes([0x41, 0, 0]) + struct.pack("<H", 20) + bytes([4, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 3, 1, 0x02])
    semi = 2 ** 31 / 180
    last_full = None
    out = sys.stdout.buffer
    for i, (t, lat, lon) in enumerate(track(points, 720, 20)):
        ft = t - 631_065_600
        fields = struct.pack("<iiHB", round(lat * semi), round(lon * semi), (40 + 500) * 5, 90)
        if i % 10 == 9 and last_full is not None and 0 <= ft - last_full < 32:
            body += bytes([0x80 | (1 << 5) | (ft & 0x1F)]) + fields
        else:
            body += bytes([0x00]) + struct.pack("<I", ft) + fields
            last_full = ft
    header = bytes([14, 0x20]) + struct.pack("<H", 2132) + struct.pack("<I", len(body)) + b".FIT" + b"\x00\x00"
    out.write(header + bytes(body) + b"\x00\x00")


def geojson(points):
    """GPSLogger's log as tests/Fixtures/locations/gpslogger-log.geojson has it: one feature a line."""
    out = sys.stdout
    out.write('{"type": "FeatureCollection","features": [\n')
    for i, (t, lat, lon) in enumerate(track(points, 720, 20)):
        out.write('%s{"type": "Feature","properties":{"time":"%s.000Z","provider":"gps","time_long":%d000,"accuracy":4.0,'
                  '"altitude":41.0,"bearing":0.0,"speed":0.0,"battery":81},"geometry":{"type":"Point","coordinates":[%.7f,%.7f]}}'
                  % (",\n" if i else "", iso(t)[:-1], t, lon, lat))
    out.write('\n]}\n')


def savedplaces(places):
    """Google Takeout's "Saved Places.json" (Maps (your places)) in the newer layout, as
    tests/Fixtures/locations/google-saved-places.json has it; every place has its own Google Maps link."""
    import json
    r = random.Random(5)
    out = sys.stdout
    out.write('{\n  "type": "FeatureCollection",\n  "features": [')
    for i in range(places):
        saved = iso(START - r.randrange(0, 5 * 365 * 86400))
        if i % 50 == 49:
            feature = {"geometry": {"coordinates": [0, 0], "type": "Point"},
                       "properties": {"date": saved, "google_maps_url": "http://maps.google.com/?q=place-%d" % i,
                                      "Comment": "No location information is available for this saved place"}, "type": "Feature"}
        else:
            lat, lon = 35.0 + r.random() * 2, 139.0 + r.random() * 2
            feature = {"geometry": {"coordinates": [round(lon, 7), round(lat, 7)], "type": "Point"},
                       "properties": {"date": saved, "google_maps_url": "http://maps.google.com/?cid=%d" % (10 ** 15 + i),
                                      "location": {"address": "%d-%d Chiyoda City, Tokyo 100-0005, Japan" % (i % 9 + 1, i % 30 + 1),
                                                   "country_code": "JP", "name": "Place %d" % i}}, "type": "Feature"}
        out.write(("," if i else "") + "\n    " + json.dumps(feature, ensure_ascii=False))
    out.write("\n  ]\n}\n")


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
    elif args[0] in ("rec", "tcx", "fit", "geojson", "savedplaces"):
        {"rec": rec, "tcx": tcx, "fit": fit, "geojson": geojson, "savedplaces": savedplaces}[args[0]](int(rest[0]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
