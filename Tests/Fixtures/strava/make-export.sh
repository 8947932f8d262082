#!/bin/sh
# Rebuilds strava-export.zip (see SOURCES.md): the real activity files of ../locations, gzipped as Strava's
# export keeps uploads, beside src/activities.csv and src/activities/1003.gpx. Deterministic (fixed times).
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/activities"
cp src/activities.csv "$work/"
cp src/activities/1003.gpx "$work/activities/"
gzip -9 -n -c ../locations/garmin-fenix-5-walk.fit > "$work/activities/1001.fit.gz"
gzip -9 -n -c ../locations/sup-activity-1.tcx > "$work/activities/1002.tcx.gz"
gzip -9 -n -c ../locations/pool-swim-activity-1.tcx > "$work/activities/1007.tcx.gz"
# 1005 is named by the CSV and left out; 1006 is a damaged member (its gzip cut in the middle).
gzip -9 -n -c ../locations/sup-activity-1.tcx | head -c 700 > "$work/activities/1006.tcx.gz"
find "$work" -exec touch -t 202401010000 {} +
rm -f strava-export.zip
(cd "$work" && zip -X -q -r - activities.csv activities) > strava-export.zip
