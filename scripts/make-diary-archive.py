#!/usr/bin/env python3
"""Writes a Hibi diary export archive (diary.json + photos/) for benchmarks and attack tests, streamed so
that making a gigabyte costs no memory.

  make-diary-archive.py OUT --bytes N        photos of about 7.5 MB of noise each (stored, as Hibi exports
                                             them) until they add up to N bytes, one per entry
  make-diary-archive.py OUT --amplify E      the archive of issue 28: ONE photo of just under 8 MB (64 KB of
                                             noise, then zeros; deflated to ~70 KB) that each of E entries
                                             lists 8 times

Every photo is a real 3x2 PNG grown by a private ancillary chunk before IEND, so Hibi's image check
(structure, IHDR CRC, IEND at the end) accepts it.
"""
import argparse, base64, datetime, json, os, random, struct, uuid, zipfile

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAFUlEQVR4nGM8UaHBwMDAwMDAxAADABosAWwXscVVAAAAAElFTkSuQmCC")
MAX_PHOTO = 8 * 1024 * 1024


def write_photo(zf, name, size, noise, compress, rng):
    """A PNG of exactly `size` bytes: `noise` random bytes then zeros inside a private chunk."""
    payload = size - len(PNG) - 12
    with zf.open(zipfile.ZipInfo(name, date_time=(2026, 11, 26, 0, 0, 0)) if not compress else name, "w", force_zip64=True) as out:
        out.write(PNG[:-12] + struct.pack(">I", payload) + b"prIv")
        left, noisy = payload, min(noise, payload)
        while left > 0:
            n = min(left, 1 << 20)
            if noisy > 0:
                k = min(n, noisy)
                out.write(rng.randbytes(k) + bytes(n - k))
                noisy -= k
            else:
                out.write(bytes(n))
            left -= n
        out.write(b"\0\0\0\0" + PNG[-12:])


def entry(index, photos):
    when = (datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(days=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"id": str(uuid.UUID(int=random.Random(index).getrandbits(128))), "date": when, "text": f"entry {index}", "tags": [],
            "createdAt": when, "updatedAt": when,
            "photos": [{"contentType": "image/png", "path": p, "hasFace": False, "moodSource": False} for p in photos]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--bytes", type=int)
    group.add_argument("--amplify", type=int)
    args = parser.parse_args()
    rng = random.Random(28)
    entries = []
    with zipfile.ZipFile(args.out + ".part", "w", compression=zipfile.ZIP_DEFLATED if args.amplify else zipfile.ZIP_STORED, allowZip64=True) as zf:
        if args.amplify:
            write_photo(zf, "photos/one.png", MAX_PHOTO - 1024, 65_536, True, rng)
            entries = [entry(i, ["photos/one.png"] * 8) for i in range(args.amplify)]
        else:
            total, index = 0, 0
            while total < args.bytes:
                size = min(7_500_000 + rng.randrange(0, 500_000), MAX_PHOTO - 1024, max(len(PNG) + 12 + 1, args.bytes - total))
                name = f"photos/{index:05d}.png"
                write_photo(zf, name, size, size, False, rng)
                entries.append(entry(index, [name]))
                total += size
                index += 1
        zf.writestr("diary.json", json.dumps({"format": "hibi-diary", "version": 3, "exportedAt": "2026-11-26T00:00:00Z", "entries": entries}))
    os.replace(args.out + ".part", args.out)


if __name__ == "__main__":
    main()
