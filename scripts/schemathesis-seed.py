#!/usr/bin/env python3
"""Gives the schemathesis server one of everything that has an id, through the public API.

The OpenAPI document links every list and create operation to the operations that take the id they
return (Resources/openapi/*.json, `links`), and schemathesis's stateful phase follows those links. Its
own generated bodies are mostly refused (that is the point of them), so without data the lists come
back empty and the id-taking operations are only ever called with ids that do not exist. This puts
four diary entries with a mood and a photo, a rated day, a finished diary import, a health record, goal, reminder and finished import with an ECG, a
visit with a photo, a saved place, a tagged, rated video half watched with captions in a playlist and twelve detected stays in place first.

With a USERNAME and PASSWORD it also signs in once through the sign-in page with "remember this device" and
prints the remembered-device cookie on its last line: face sign-in takes that cookie, not an API token.

Usage: schemathesis-seed.py BASE_URL TOKEN [USERNAME PASSWORD]   (needs ffmpeg for the video; stops at the first refusal)
"""
import base64, http.cookiejar, io, json, os, re, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request, zipfile

BASE, TOKEN = sys.argv[1].rstrip("/"), sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JPEG = open(os.path.join(ROOT, "Tests/Fixtures/diary/dayone-demo-photo.jpeg"), "rb").read()


def call(method, path, body=None, content_type="application/json", expect=(200, 201, 202)):
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    request = urllib.request.Request(BASE + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, answer = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, answer = error.code, error.read()
    if status not in expect:
        sys.exit(f"seed: {method} {path} answered {status}: {answer[:300]!r}")
    return json.loads(answer) if answer else None


def remembered_device(username, password):
    """Signs in as a browser does (the sign-in page's CSRF token and cookie, then the form) with
    "remember this device" ticked, and returns the device cookie the answer sets."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(BASE + "/login", timeout=60).read().decode()
    found = re.search(r'name="_csrf" value="([^"]+)"', page)
    if not found:
        sys.exit("seed: the sign-in page has no CSRF token")
    form = urllib.parse.urlencode({"_csrf": found.group(1), "username": username, "password": password, "remember_device": "on"})
    try:
        opener.open(urllib.request.Request(BASE + "/login", data=form.encode(), method="POST",
                                           headers={"Content-Type": "application/x-www-form-urlencoded"}), timeout=60)
    except urllib.error.HTTPError as error:
        if error.code >= 400:
            sys.exit(f"seed: signing in answered {error.code}: {error.read()[:300]!r}")
    device = next((cookie.value for cookie in jar if cookie.name == "hibi_device"), None)
    if not device:
        sys.exit("seed: signing in with remember_device set no hibi_device cookie")
    return device


def video():
    """A 70-second MP4 (resume positions need a minute) made by ffmpeg (H.264 when this ffmpeg has it, MPEG-4 part 2 otherwise)."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "seed.mp4")
        for codec in ("libx264", "mpeg4"):
            made = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=duration=70:size=64x48:rate=1",
                                   "-c:v", codec, "-pix_fmt", "yuv420p", path], capture_output=True)
            if made.returncode == 0:
                return open(path, "rb").read()
        sys.exit(f"seed: ffmpeg could not make a video: {made.stderr.decode()[-300:]}")


def health_export():
    """export.zip as an iPhone writes it, with one record and one electrocardiogram."""
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n'
           ' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" '
           'startDate="2024-05-02 13:00:00 +0900" endDate="2024-05-02 14:00:00 +0900" value="1200"/>\n</HealthData>\n')
    ecg = ("Name,Seed\nRecorded Date,2024-05-05 09:12:00 +0900\nClassification,Sinus Rhythm\nSample Rate,512 hertz\n\n"
           "-12.5\n-10.1\n")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", xml)
        z.writestr("apple_health_export/electrocardiograms/ecg_2024-05-05.csv", ecg)
    return archive.getvalue()


photo = base64.b64encode(JPEG).decode()
# Four entries with a photo and the mood the stateful runs' list filters by, dated the last minutes, so the newest is
# first in the list the photo links read (`entries/0/photos/0`; a later date would be in the future, which the server
# refuses); a chain that moves the first to another date or mood leaves the next one first.
for minutes in range(1, 5):
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60 * minutes))
    call("POST", "/api/v1/diary/entries", {"text": "Seeded for schemathesis", "date": date, "tags": ["seed"],
                                            "confirmedMood": "happiness", "photo": photo})
# The day the stateful runs' timeline starts from (scripts/schemathesis-stateful.toml), with a health record.
call("PUT", "/api/v1/days/2024-05-01/rating", {"rating": 5})
# A finished diary import (a Daylio CSV export), so its job can be asked for.
call("POST", "/api/v1/diary/import?name=daylio.csv",
     b"full_date,date,weekday,time,mood,activities,note_title,note\n2024-05-02,May 2,Thursday,21:00,good,walk,,Seeded\n",
     content_type="text/csv")
call("POST", "/api/v1/health/records", {"type": "steps", "value": 4200, "unit": "count", "start": "2024-05-01T09:00:00Z"})
call("POST", "/api/v1/health/goals", {"type": "steps", "targetValue": 10000, "deadline": "2030-01-01T00:00:00Z"})
call("POST", "/api/v1/health/reminders", {"time": "08:00", "message": "Seeded reminder"})
job = call("POST", "/api/v1/health/imports?name=export.zip", health_export(), "application/zip")
for _ in range(600):
    job = call("GET", f"/api/v1/health/imports/{job['id']}")
    if job["state"] in ("done", "failed"):
        break
    time.sleep(0.1)
if job["state"] != "done":
    sys.exit(f"seed: the health import ended {job['state']}: {job.get('error')}")
# The visit with a photo dated now too, first in the list the photo links read (`0/photos/0`).
visit = call("POST", "/api/v1/visits", {"name": "Seeded place", "latitude": 35.68, "longitude": 139.76,
                                   "visitedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60)),
                                   "labels": ["seed"], "group": "seed"})
call("POST", f"/api/v1/visits/{visit['id']}/photos", JPEG, "image/jpeg")
saved = call("POST", "/api/v1/visits/import", open(os.path.join(ROOT, "Tests/Fixtures/locations/google-saved-places-organicmaps.json"), "rb").read(),
             "application/json")
if saved.get("savedPlaces") != 1:
    sys.exit(f"seed: the Saved Places file gave no saved place: {saved}")
uploaded = call("POST", "/api/v1/videos?filename=seed.mp4", video(), "application/octet-stream")
# Captions, so the captions link answers with a file rather than 404.
call("PUT", f"/api/v1/videos/{uploaded['id']}/captions", b"WEBVTT\n\n00:00.000 --> 00:01.000\nSeeded\n", "text/plain", expect=(204,))
# A tagged favourite with a rating, played and stopped part way: listed by the filtered list, continue watching and history.
call("PATCH", f"/api/v1/videos/{uploaded['id']}", {"title": "Seeded video", "favorite": True, "rating": 5, "tags": ["seed"]})
call("POST", f"/api/v1/videos/{uploaded['id']}/plays")
call("PUT", f"/api/v1/videos/{uploaded['id']}/progress", {"positionSeconds": 30})
if not call("GET", "/api/v1/videos/continue-watching") or not call("GET", "/api/v1/videos/history"):
    sys.exit("seed: the half-watched video is missing from continue watching or the history")
playlist = call("POST", "/api/v1/playlists", {"name": "Seeded playlist"})
call("POST", f"/api/v1/playlists/{playlist['id']}/items", {"videoId": uploaded["id"]})
# Twelve stays (one every 250 points): each confirm or dismiss uses one up; with six, the chains that confirmed the
# first stay of the list had used them all before a dismissal came.
track = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate-locations.py"), "gpx", "3000", "--stop-every", "250"],
                       capture_output=True, check=True).stdout
imported = call("POST", "/api/v1/locations/import", track, "application/gpx+xml")
if not call("GET", "/api/v1/locations/stays"):
    sys.exit(f"seed: the track gave no stays to confirm: {imported}")
device = remembered_device(sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else None
print("seed: four diary entries with a mood and a photo, a rated day, health record, goal, reminder, import with an ECG, visit with a photo, saved place, "
      "half-watched video with captions in a playlist, "
      f"{len(call('GET', '/api/v1/locations/stays'))} stays")
if device:
    print(f"device-cookie: {device}")
