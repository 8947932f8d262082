#!/usr/bin/env python3
"""A Strava bulk export ("Download your data") for Benchmarks/locations.sh, generated:

  strava-export.py OUT.zip POINTS ACTIVITIES

activities.csv at the root (Strava's English header, the columns Hibi reads, a summary and a detail
Distance as Strava writes them) and ACTIVITIES files under activities/, POINTS points in all: in turn a
gzipped FIT, a gzipped TCX and a plain GPX, each a day after the last, written by
scripts/generate-locations.py's generators (so the same track shapes as the other formats' figures).
Written a member at a time: memory stays at one activity whatever the size.
"""
import gzip
import importlib.util
import io
import os
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("generate_locations", os.path.join(HERE, "..", "scripts", "generate-locations.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

HEADER = ("Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Max Heart Rate,"
          "Relative Effort,Commute,Activity Private Note,Activity Gear,Filename,Athlete Weight,Bike Weight,Elapsed Time,"
          "Moving Time,Distance,Max Speed,Average Speed,Elevation Gain,Elevation Loss,Elevation Low,Elevation High,"
          "Max Heart Rate,Average Heart Rate,Calories\n")


def member(kind, points):
    """One activity file's bytes from the generator, which writes to stdout."""
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    saved = sys.stdout
    sys.stdout = text
    try:
        if kind == "gpx":
            gen.gpx(points, 720, 20)
        else:
            getattr(gen, kind)(points)
        text.flush()
    finally:
        sys.stdout = saved
    return raw.getvalue()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    out, points, activities = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    per = max(1, points // activities)
    rows = [HEADER]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(activities):
            gen.START = 1_714_550_400 + i * 86_400
            kind = ("fit", "tcx", "gpx")[i % 3]
            data = member(kind, per)
            name = "activities/%d.%s" % (1000 + i, kind if kind == "gpx" else kind + ".gz")
            archive.writestr(name, data if kind == "gpx" else gzip.compress(data, 6), zipfile.ZIP_STORED if kind != "gpx" else zipfile.ZIP_DEFLATED)
            date = time.strftime("%b %-d, %Y, %-I:%M:%S %p", time.gmtime(gen.START))
            seconds = per * 10
            rows.append('%d,"%s",Generated %d,%s,,%d,%.2f,,,false,,,%s,,,%d.0,%d.0,%.1f,,,,,,,,,%d\n'
                        % (1000 + i, date, i, ("Ride", "Run", "Walk")[i % 3], seconds, per * 0.01, name, seconds, seconds, per * 10.0, per // 10))
        archive.writestr("activities.csv", "".join(rows))


if __name__ == "__main__":
    main()
