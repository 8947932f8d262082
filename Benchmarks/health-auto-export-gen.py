#!/usr/bin/env python3
"""Writes a Health Auto Export body (export version 2, as the app posts to a REST API automation) of
DAYS days of minute-level heart rate (Min/Avg/Max) and steps, plus a night of sleep stages per day, the
shape of a first push with "Summarize data" per minute. Written as a stream, so any size fits.

Usage: health-auto-export-gen.py DAYS OUT.json
A day is about 240 KB (1,440 heart-rate points of ~100 bytes, 1,440 step points of ~70 bytes, 4 stages):
30 days is 7 MB, 365 days about 88 MB.
"""
import sys
from datetime import datetime, timedelta, timezone

days, out = int(sys.argv[1]), sys.argv[2]
zone = timezone(timedelta(hours=9))
start = datetime(2025, 1, 1, tzinfo=zone)


def stamp(t):
    return t.strftime("%Y-%m-%d %H:%M:%S +0900")


def points(write, each):
    first = True
    for day in range(days):
        for minute in range(1440):
            t = start + timedelta(days=day, minutes=minute)
            write(("" if first else ",\n") + each(t, day * 1440 + minute))
            first = False


with open(out, "w") as f:
    w = f.write
    w('{"data": {"metrics": [\n{"name": "heart_rate", "units": "count/min", "data": [\n')
    points(w, lambda t, i: f'{{"date": "{stamp(t)}", "Min": {55 + i % 20}, "Avg": {60 + i % 25}.5, '
                           f'"Max": {70 + i % 30}, "source": "Apple Watch"}}')
    w(']},\n{"data": [\n')  # the app may write "data" before "name": the reader must not care
    points(w, lambda t, i: f'{{"date": "{stamp(t)}", "qty": {i % 120}, "source": "iPhone"}}')
    w('], "name": "step_count", "units": "count"},\n{"name": "sleep_analysis", "units": "hr", "data": [\n')
    first = True
    for day in range(days):
        bed = start + timedelta(days=day, hours=23)
        for offset, length, stage in ((0, 90, "Core"), (90, 60, "Deep"), (150, 45, "REM"), (195, 240, "Core")):
            s, e = bed + timedelta(minutes=offset), bed + timedelta(minutes=offset + length)
            w(("" if first else ",\n") + f'{{"startDate": "{stamp(s)}", "endDate": "{stamp(e)}", "qty": {length / 60:.3f}, '
              f'"value": "{stage}", "source": "Apple Watch"}}')
            first = False
    w("]}\n], \"workouts\": []}}\n")
