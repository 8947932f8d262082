#!/usr/bin/env python3
"""Writes a Day One export ZIP for the import benchmark: Journal.json with ENTRIES entries and a photo in
each (photos/<md5>.jpeg), the photos together about TOTAL_MB megabytes. Streamed to the file: the
generator holds one photo at a time, so a 2 GB archive needs no more memory than a small one.

Each photo is a real small JPEG (made by ffmpeg, passed as BASE) with a comment segment naming it (so
each has its own MD5) and filler after its end marker up to the size wanted, which image readers ignore.

Usage: dayone-zip.py OUT.zip ENTRIES TOTAL_MB BASE.jpeg
"""
import datetime
import hashlib
import json
import os
import random
import sys
import uuid
import zipfile

out, count, total_mb, base_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
base = open(base_path, "rb").read()
photo_size = max(len(base) + 64, int(total_mb * 1024 * 1024 / max(count, 1)))
random.seed(31)
words = "morning walk coffee rain train office lunch friend book tired happy quiet river evening market".split()
start = datetime.datetime(2011, 1, 1, tzinfo=datetime.timezone.utc)
filler = os.urandom(1024 * 1024)

with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
    entries = []
    for i in range(count):
        comment = ("photo %d" % i).encode()
        jpeg = base[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + base[2:]
        pad = photo_size - len(jpeg)
        offset = (i * 7919) % len(filler)
        tail = (filler[offset:] + filler)[:pad] if pad > 0 else b""
        jpeg += tail
        md5 = hashlib.md5(jpeg).hexdigest()
        with archive.open("photos/%s.jpeg" % md5, "w", force_zip64=True) as member:
            member.write(jpeg)
        when = start + datetime.timedelta(hours=13 * i)
        identifier = uuid.UUID(int=random.getrandbits(128)).hex.upper()
        stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        text = " ".join(random.choice(words) for _ in range(random.randint(20, 200)))
        entries.append({"uuid": uuid.UUID(int=random.getrandbits(128)).hex.upper(), "creationDate": stamp, "modifiedDate": stamp,
                        "timeZone": "Asia/Tokyo", "starred": i % 10 == 0, "tags": random.sample(words, 2),
                        "text": text + "\n\n![](dayone-moment://%s)" % identifier,
                        "weather": {"conditionsDescription": "Cloudy", "temperatureCelsius": random.randint(-5, 35)},
                        "photos": [{"identifier": identifier, "md5": md5, "type": "jpeg", "orderInEntry": 0}]})
    # The journal goes last, deflated as Day One writes it; it is a few megabytes even at 8,000 entries.
    archive.writestr(zipfile.ZipInfo("Journal.json"), json.dumps({"metadata": {"version": "1.0"}, "entries": entries}),
                     compress_type=zipfile.ZIP_DEFLATED)
