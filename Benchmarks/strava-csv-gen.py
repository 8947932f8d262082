#!/usr/bin/env python3
"""A Strava export ZIP whose activities.csv is ROWS activities entered by hand (no files), each with a
DESCRIPTION-byte description full of commas and doubled quotes, in Strava's English header and date form:
the CSV alone, to measure how Hibi reads it (Benchmarks/strava-csv.sh).
Usage: strava-csv-gen.py OUT.zip ROWS DESCRIPTION"""
import datetime
import random
import sys
import zipfile

out, rows, description = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = ("Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Filename,"
          "Elapsed Time,Moving Time,Distance,Average Heart Rate,Calories\n")
months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
rng = random.Random(1)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    with archive.open("activities.csv", "w", force_zip64=True) as csv:
        csv.write(header.encode())
        for i in range(rows):
            text = "".join(rng.choice('abcdefghij ,"') for _ in range(description)).replace('"', '""')
            # An hour apart (a workout is known by its start and end), as Strava writes the date: "Oct 7, 2020, 2:43:11 PM".
            t = datetime.datetime(2000, 1, 1) + datetime.timedelta(hours=i)
            date = f"{months[t.month - 1]} {t.day}, {t.year}, {(t.hour + 11) % 12 + 1}:{t.minute:02d}:{t.second:02d} {'AM' if t.hour < 12 else 'PM'}"
            csv.write((f'{1_000_000 + i},"{date}",Run {i},Run,"{text}",'
                       f'1800,5.0,,1800.0,1750.0,5000.0,140.0,400.0\n').encode())
