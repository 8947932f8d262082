#!/usr/bin/env python3
"""Verifies a Hibi visits export (GeoJSON) without Hibi.

    python3 -m pip install cryptography
    python3 verify-visits-export.py hibi-visits-2024-05-01.geojson [--public-key BASE64]

Checks, for the signed log in the file's "hibi" member:
  * each record's SHA-256 equals its stated hash (else: the record was changed),
  * records are numbered 1, 2, 3 … with none missing (removed) or out of place (reordered),
  * each record names the previous record's hash,
  * each record's Ed25519 signature is valid for the public key,
and that every exported visit equals the last state its records sign (deleted ones are absent).
Pass --public-key with the key you noted earlier (Hibi shows it on the verify page) so a
forger cannot simply replace the key in the file. Exits 0 when intact, 1 naming the first problem.
"""
import argparse
import base64
import calendar
import hashlib
import json
import sys
from datetime import datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

GENESIS = "0" * 64


def fail(message):
    print("BROKEN: " + message)
    sys.exit(1)


def unix(iso_text):
    return calendar.timegm(datetime.strptime(iso_text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S%z").utctimetuple())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export")
    parser.add_argument("--public-key", help="base64 Ed25519 public key to trust instead of the one in the file")
    args = parser.parse_args()

    with open(args.export, encoding="utf-8") as handle:
        document = json.load(handle)
    chain = document.get("hibi")
    if not chain:
        fail("the file has no signed log (\"hibi\" member)")
    key_text = args.public_key or chain["publicKey"]
    if args.public_key and args.public_key != chain["publicKey"]:
        fail("the file's public key is not the one you trust")
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(key_text))

    records = chain["records"]
    present = set()
    bodies = []
    for record in records:
        try:
            bodies.append(json.loads(record["body"]))
            present.add(bodies[-1]["seq"])
        except (ValueError, KeyError):
            bodies.append(None)

    previous = GENESIS
    latest = {}
    for position, (record, body) in enumerate(zip(records, bodies), start=1):
        if body is None or hashlib.sha256(record["body"].encode("utf-8")).hexdigest() != record["hash"]:
            fail("record #%d was changed (its hash does not match its content)" % position)
        if body["seq"] != position:
            fail("record #%d %s" % (position, "is out of order" if position in present else "was removed"))
        if body["prev"] != previous:
            fail("record #%d does not follow record #%d" % (position, position - 1))
        try:
            key.verify(base64.b64decode(record["signature"]), record["body"].encode("utf-8"))
        except InvalidSignature:
            fail("record #%d has a signature that does not match" % position)
        previous = record["hash"]
        latest[body["visit"]] = body
    if chain.get("head") != (records[-1]["hash"] if records else None):
        fail("the stated head is not the last record")

    live = {visit: json.loads(body["state"]) for visit, body in latest.items() if body["action"] != "delete"}
    features = {feature["id"]: feature for feature in document.get("features", [])}
    for visit, state in live.items():
        feature = features.get(visit)
        if feature is None:
            fail("visit %s (record #%d) is missing from the export" % (visit, latest[visit]["seq"]))
        props = feature["properties"]
        coordinates = feature["geometry"]["coordinates"]
        shown = {
            "name": props["name"], "visitedAt": unix(props["visitedAt"]), "latitude": coordinates[1], "longitude": coordinates[0],
            "altitude": coordinates[2] if len(coordinates) > 2 else None, "accuracy": props.get("accuracy"),
            "simulated": props.get("simulated", False), "labels": props.get("labels", []), "group": props.get("group"),
            "companions": props.get("companions", []), "notes": props.get("notes", ""),
        }
        for field, value in shown.items():
            if state[field] != value:
                fail("visit %s: %s in the export differs from its signed record #%d" % (visit, field, latest[visit]["seq"]))
    for visit in features:
        if visit not in live:
            fail("visit %s is in the export but not in the signed log" % visit)

    print("intact: %d records, %d visits, head %s" % (len(records), len(live), previous))


if __name__ == "__main__":
    main()
