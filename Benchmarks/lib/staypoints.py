#!/usr/bin/env python3
"""The reference for Benchmarks/locations.sh: the same work as `hibi visits import-locations` on a
GPX track, in plain Python (standard library only), so the two can be timed side by side.

  staypoints.py TRACK.gpx DB.sqlite [distance_m] [duration_min]
  staypoints.py LOG.geojson DB.sqlite [distance_m] [duration_min]    (GPSLogger's GeoJSON log)

1. Streams the track points out of the GPX with xml.etree.ElementTree.iterparse (elements cleared
   as they are read), or reads a GeoJSON log whole with json.load (what a plain script does; the
   standard library has no streaming JSON reader), 5,000 at a time into a SQLite table with the same
   unique key as Hibi's (user, second, latitude, longitude), counting duplicates;
2. reads them back in time order and runs the stay-point method (Li et al., 2008) exactly as Hibi
   does: from an anchor, the following points within D metres; a stay when the last of them is at
   least T after the anchor; a silence over 12 h ends a window; a stay cut in two by jitter at the
   circle's edge is joined back. A plain-Python reference, not scikit-mobility (too heavy to
   install for one figure); it prints `points stored: N` and `stays: N`.
"""
import json
import math
import sqlite3
import sys
import xml.etree.ElementTree as ET
from datetime import datetime

R = 6_371_008.8
MAX_GAP = 12 * 3600


def distance(a_lat, a_lon, b_lat, b_lon):
    rad = math.pi / 180
    d_lat = (b_lat - a_lat) * rad
    d_lon = (b_lon - a_lon) * rad
    h = math.sin(d_lat / 2) ** 2 + math.cos(a_lat * rad) * math.cos(b_lat * rad) * math.sin(d_lon / 2) ** 2
    return 2 * R * math.asin(min(1.0, math.sqrt(h)))


def parse_time(text):
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return int(datetime.fromisoformat(text).timestamp())


def store(path, db):
    # Hibi's table: the identity is the primary key (in SQLite, an index of its own beside the rowid).
    db.execute("CREATE TABLE location_points (user_id TEXT NOT NULL, recorded_at INTEGER NOT NULL, latitude REAL NOT NULL, "
               "longitude REAL NOT NULL, accuracy REAL, source TEXT NOT NULL, import_id TEXT, "
               "PRIMARY KEY (user_id, recorded_at, latitude, longitude))")
    batch, stored = [], 0

    def flush():
        nonlocal stored
        before = db.total_changes
        db.executemany("INSERT INTO location_points VALUES (?,?,?,?,NULL,'gpx',NULL) ON CONFLICT DO NOTHING", batch)
        db.commit()
        stored += db.total_changes - before
        batch.clear()

    if path.endswith(".geojson"):
        with open(path, encoding="utf-8") as f:
            features = json.load(f)["features"]
        for feature in features:
            lon, lat = feature["geometry"]["coordinates"][:2]
            batch.append(("bench", parse_time(feature["properties"]["time"]), round(lat, 7), round(lon, 7)))
            if len(batch) >= 5000:
                flush()
        flush()
        return stored

    lat = lon = None
    for event, element in ET.iterparse(path, events=("start", "end")):
        tag = element.tag.rsplit("}", 1)[-1]
        if event == "start":
            if tag == "trkpt":
                lat, lon = round(float(element.get("lat")), 7), round(float(element.get("lon")), 7)
            continue
        if tag == "time" and lat is not None:
            batch.append(("bench", parse_time(element.text or ""), lat, lon))
        elif tag == "trkpt":
            lat = lon = None
            element.clear()
            if len(batch) >= 5000:
                flush()
    flush()
    return stored


class Detector:
    def __init__(self, d, t):
        self.d, self.t = d, t
        self.buffer, self.start, self.scanned = [], 0, 0
        self.established = None  # [anchor, last, sum_lat, sum_lon, count]
        self.held = None  # (arrival, departure, lat, lon, count)

    def within(self, a, b):
        return distance(a[1], a[2], b[1], b[2]) <= self.d

    @staticmethod
    def candidate(anchor, last, s_lat, s_lon, n):
        return (anchor[0], last[0], s_lat / n, s_lon / n, n)

    def core(self, p):
        if self.established:
            anchor, last, s_lat, s_lon, n = self.established
            if p[0] < last[0]:
                return []
            if p[0] - last[0] <= MAX_GAP and self.within(anchor, p):
                self.established = [anchor, p, s_lat + p[1], s_lon + p[2], n + 1]
                return []
            self.established = None
            self.buffer, self.start, self.scanned = [p], 0, 1
            return [self.candidate(anchor, last, s_lat, s_lon, n)]
        if self.buffer:
            if p[0] < self.buffer[-1][0]:
                return []
            if p[0] - self.buffer[-1][0] > MAX_GAP:
                self.buffer, self.start, self.scanned = [p], 0, 1
                return []
        self.buffer.append(p)
        out = []
        while self.start < len(self.buffer):
            anchor = self.buffer[self.start]
            if self.scanned <= self.start:
                self.scanned = self.start + 1
            while self.scanned < len(self.buffer) and self.within(anchor, self.buffer[self.scanned]):
                self.scanned += 1
            if self.scanned == len(self.buffer):
                newest = self.buffer[-1]
                if newest[0] - anchor[0] >= self.t:
                    window = self.buffer[self.start:]
                    self.established = [anchor, newest, sum(q[1] for q in window), sum(q[2] for q in window), len(window)]
                    self.buffer, self.start, self.scanned = [], 0, 0
                elif self.start > 1024 and self.start * 2 > len(self.buffer):
                    del self.buffer[:self.start]
                    self.scanned -= self.start
                    self.start = 0
                return out
            last_inside = self.buffer[self.scanned - 1]
            if last_inside[0] - anchor[0] >= self.t:
                window = self.buffer[self.start:self.scanned]
                out.append(self.candidate(anchor, last_inside, sum(q[1] for q in window), sum(q[2] for q in window), len(window)))
                del self.buffer[:self.scanned]
                self.start, self.scanned = 0, 1
                continue
            self.start += 1
            self.scanned = self.start + 1
        return out

    def can_merge(self, a, b):
        return b[0] - a[1] <= MAX_GAP and distance(a[2], a[3], b[2], b[3]) <= self.d

    @staticmethod
    def merge(a, b):
        n = a[4] + b[4]
        return (min(a[0], b[0]), max(a[1], b[1]), (a[2] * a[4] + b[2] * b[4]) / n, (a[3] * a[4] + b[3] * b[4]) / n, n)

    def add(self, p):
        out = []
        for stay in self.core(p):
            if self.held and self.can_merge(self.held, stay):
                self.held = self.merge(self.held, stay)
            else:
                if self.held:
                    out.append(self.held)
                self.held = stay
        if self.held and distance(self.held[2], self.held[3], p[1], p[2]) > self.d and not (
                self.established and distance(self.held[2], self.held[3], self.established[0][1], self.established[0][2]) <= self.d):
            out.append(self.held)
            self.held = None
        return out

    def finish(self):
        last = self.candidate(*self.established) if self.established else None
        if self.held and last:
            return [self.merge(self.held, last)] if self.can_merge(self.held, last) else [self.held, last]
        return [s for s in (self.held, last) if s]


def main():
    path, db_path = sys.argv[1], sys.argv[2]
    d = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
    t = int(sys.argv[4]) * 60 if len(sys.argv) > 4 else 600
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=WAL")
    stored = store(path, db)
    detector = Detector(d, t)
    stays = []
    for row in db.execute("SELECT recorded_at, latitude, longitude FROM location_points WHERE user_id = 'bench' "
                          "ORDER BY recorded_at, latitude, longitude"):
        stays += detector.add(row)
    stays += detector.finish()
    print("points stored: %d" % stored)
    print("stays: %d" % len(stays))


if __name__ == "__main__":
    main()
