#!/usr/bin/env python3
"""Counts the operations taking an id (a path parameter) that schemathesis reached with a value the server
accepted (a 2xx answer), from the HAR files of its stateful runs: how much of the API the links really open.

Usage: schemathesis-reach.py [--count] OPENAPI_JSON HAR...   Prints `reached: N of M operations that take an id`,
then (without --count) the ones not reached. Exits 0 either way (the count is for reading; the checks are schemathesis's own).
"""
import json, re, sys
from urllib.parse import urlsplit

args = sys.argv[1:]
count_only = args[:1] == ["--count"]
if count_only:
    args = args[1:]
spec = json.load(open(args[0]))
operations = []  # (method, template, pattern)
# A path the document spells out (GET /api/v1/videos/history) is that operation, not an id: the router prefers it.
literal = {path for path in spec.get("paths", {}) if "{" not in path}
for path, item in spec.get("paths", {}).items():
    if "{" not in path:
        continue
    pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
    for method in item:
        if method in ("get", "put", "post", "patch", "delete"):
            operations.append((method.upper(), path, pattern))

reached = set()
for har in args[1:]:
    for entry in json.load(open(har))["log"]["entries"]:
        status = entry["response"]["status"]
        if not 200 <= status < 300:
            continue
        method, path = entry["request"]["method"], urlsplit(entry["request"]["url"]).path
        if path in literal:
            continue
        for op_method, template, pattern in operations:
            if op_method == method and pattern.match(path):
                reached.add((op_method, template))
missing = sorted((m, t) for m, t, _ in operations if (m, t) not in reached)
print(f"reached: {len(reached)} of {len(operations)} operations that take an id")
for method, template in [] if count_only else missing:
    print(f"  not reached: {method} {template}")
