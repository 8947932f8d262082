"""Scenarios of issue 15 driven through nginx in front of two Hibi instances (scripts/instances-test.sh).

Each response carries X-Upstream (set by nginx): which instance answered, so a check can insist that a
read went to the other instance than the write before it."""
import argparse
import base64
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib

import requests

p = argparse.ArgumentParser()
p.add_argument("--base", required=True)
p.add_argument("--token", required=True)
p.add_argument("--password", required=True)
p.add_argument("--instances", required=True, help="addr=pidfile,addr=pidfile")
p.add_argument("--clip", required=True)
p.add_argument("--psql", required=True)
p.add_argument("--records", type=int, default=60000)
args = p.parse_args()
BASE = args.base
INSTANCES = dict(item.split("=", 1) for item in args.instances.split(","))
API = requests.Session()
API.headers["Authorization"] = f"Bearer {args.token}"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def upstream(response):
    # After a retry nginx lists every address it tried; the last one answered.
    return response.headers.get("X-Upstream", "").split(",")[-1].strip()


def sql(query):
    out = subprocess.run(args.psql.split() + [query], capture_output=True, text=True, check=True).stdout.strip()
    return out


def on_each(session, method, path, want=None, **kw):
    """Sends until both instances have answered once; returns {instance: response}."""
    seen = {}
    for _ in range(12):
        r = session.request(method, BASE + path, **kw)
        seen.setdefault(upstream(r), r)
        if want and len(seen) >= want:
            break
        if len(seen) >= len(INSTANCES):
            break
    return seen


def png():
    raw = b"".join(b"\x00" + bytes([200, 100, 50] * 4) for _ in range(4))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


# 1. Sign in through a CSRF form; the session cookie works on both instances.
web = requests.Session()
page = web.get(BASE + "/login")
csrf = re.search(r'name="_csrf" value="([^"]+)"', page.text)
form = {"username": "aiko", "password": args.password}
if csrf:
    form["_csrf"] = csrf.group(1)
r = web.post(BASE + "/login", data=form, allow_redirects=False)
check(r.status_code == 302 or r.status_code == 303, f"sign-in through nginx answers a redirect ({r.status_code})")
home = on_each(web, "GET", "/", allow_redirects=False)
check(len(home) == 2 and all(x.status_code == 200 for x in home.values()),
      f"the session cookie works on both instances {[(k, v.status_code) for k, v in home.items()]}")
refused = web.post(BASE + "/logout", data={}, allow_redirects=False)
check(refused.status_code == 403, f"a form without its CSRF token is refused ({refused.status_code})")

# 2. Visits created alternately on both instances verify intact from both.
made = set()
for i in range(6):
    r = API.post(BASE + "/api/v1/visits", json={"name": f"Visit {i}", "latitude": 35.68 + i / 100, "longitude": 139.76,
                                                 "visitedAt": "2024-05-01T09:30:00Z"})
    check(r.status_code == 201, f"visit {i} created ({r.status_code} {r.text[:120] if r.status_code != 201 else ''})")
    made.add(upstream(r))
check(len(made) == 2, f"visits were written through both instances {sorted(made)}")
for who, r in on_each(API, "GET", "/api/v1/visits/verify").items():
    body = r.json() if r.status_code == 200 else {}
    check(body.get("intact") is True, f"verify on {who}: intact ({r.status_code} {str(body)[:160]})")

# 3. Upload a video through one instance, stream it with ranges through both.
clip = open(args.clip, "rb").read()
r = API.post(BASE + "/api/v1/videos?filename=clip.mp4", data=clip, headers={"Content-Type": "video/mp4"})
check(r.status_code == 201, f"video uploaded ({r.status_code} {r.text[:160] if r.status_code != 201 else ''})")
if r.status_code == 201:
    stream = r.json()["streamURL"]
    for who, part in on_each(API, "GET", stream, headers={"Range": "bytes=100-299"}).items():
        check(part.status_code == 206 and part.content == clip[100:300], f"ranged stream from {who} ({part.status_code}, {len(part.content)} bytes)")

# 4. Diary entries with photos written through one instance, searched and shown through the other.
word = "kingfisher" + os.urandom(3).hex()
r = API.post(BASE + "/api/v1/diary/entries", json={"date": "2026-11-01T10:00:00Z", "text": f"Saw a {word} by the river",
                                                    "photo": base64.b64encode(png()).decode()})
check(r.status_code == 201, f"diary entry with photo written ({r.status_code} {r.text[:160] if r.status_code != 201 else ''})")
writer = upstream(r)
entry = r.json().get("id") if r.status_code == 201 else None
found_elsewhere = False
for _ in range(6):
    s = API.get(BASE + "/api/v1/diary/entries", params={"q": word})
    if upstream(s) != writer:
        found_elsewhere = s.status_code == 200 and any(e.get("id") == entry for e in s.json().get("entries", []))
        break
check(found_elsewhere, "diary entry written on one instance is found by search on the other")
# An edit through the other instance is what the first instance's search sees next.
if entry:
    word2 = "heron" + os.urandom(3).hex()
    for _ in range(4):
        e = API.patch(BASE + f"/api/v1/diary/entries/{entry}", json={"text": f"Saw a {word2}"})
        if upstream(e) != writer:
            break
    seen = on_each(API, "GET", "/api/v1/diary/entries", params={"q": word2})
    check(all(any(x.get("id") == entry for x in v.json().get("entries", [])) for v in seen.values()) and len(seen) == 2,
          f"an edit made on one instance is searchable on both ({e.status_code})")
    for who, ph in on_each(API, "GET", f"/api/v1/diary/entries/{entry}/photo").items():
        check(ph.status_code == 200 and ph.content == png(), f"diary photo served by {who} ({ph.status_code})")

# 5. A library scan started on both at once indexes each file once.
results = []
threads = [threading.Thread(target=lambda: results.append(API.post(BASE + "/api/v1/videos/library/scan"))) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
check(all(x.status_code == 200 for x in results), f"both scans answered {[x.status_code for x in results]}")
rows = sql("SELECT COUNT(*) FROM videos WHERE owner_id IS NULL")
paths = sql("SELECT COUNT(DISTINCT file_path) FROM videos WHERE owner_id IS NULL")
check(rows == "2" and paths == "2", f"the two library files are indexed once each ({rows} rows, {paths} paths)")

# 6. A reminder due now is sent once, though both instances check every 20 seconds.
import http.server
import socketserver

hooks = []


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        hooks.append(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass


receiver = socketserver.TCPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
now = time.gmtime()
r = API.post(BASE + "/api/v1/health/reminders", json={"time": f"{now.tm_hour:02d}:{now.tm_min:02d}", "message": "Stretch",
                                                      "webhookURL": f"http://127.0.0.1:{receiver.server_address[1]}/hook"})
check(r.status_code == 201, f"reminder created ({r.status_code} {r.text[:160] if r.status_code != 201 else ''})")
deadline = time.time() + 60
while time.time() < deadline and not hooks:
    time.sleep(0.5)
time.sleep(25)  # a whole check interval of both instances after the first send
check(len(hooks) == 1, f"the due reminder was sent once ({len(hooks)} webhook calls)")
receiver.shutdown()

# 7. A health import whose instance is killed with SIGKILL is finished by the other, exactly once.
n = args.records
lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<HealthData locale="en_US">']
for i in range(n):
    t = 1_600_000_000 + i * 60
    start = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(t))
    end = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(t + 30))
    lines.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="{start}" endDate="{end}" value="{i % 900 + 1}"/>')
lines.append("</HealthData>")
export = ("\n".join(lines) + "\n").encode()
r = API.post(BASE + "/api/v1/health/imports?name=export.xml", data=export, headers={"Content-Type": "application/xml"})
check(r.status_code in (200, 201, 202), f"health import accepted ({r.status_code} {r.text[:160]})")
if r.status_code in (200, 201, 202):
    job = r.json()["id"]
    holder = upstream(r)
    killed = False
    for _ in range(600):
        st = API.get(BASE + f"/api/v1/health/imports/{job}").json()
        if st.get("state") == "done":
            break
        if st.get("inserted", 0) > 0 or st.get("bytesDone", 0) > 0:
            pid = int(open(INSTANCES[holder]).read())
            os.kill(pid, signal.SIGKILL)
            killed = True
            print(f"     killed {holder} (pid {pid}) with {st.get('inserted')} records committed", flush=True)
            break
        time.sleep(0.05)
    check(killed, "the instance running the import was killed mid-import")
    deadline = time.time() + 150
    state = None
    while time.time() < deadline:
        st = API.get(BASE + f"/api/v1/health/imports/{job}")
        if st.status_code == 200:
            state = st.json()
            if state.get("state") in ("done", "failed"):
                break
        time.sleep(1)
    check(state is not None and state.get("state") == "done", f"the other instance finished the import ({state})")
    count = sql("SELECT COUNT(*) FROM health_records")
    check(count == str(n), f"health records stored exactly once: {count} of {n}")

print(f"instances: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
