#!/usr/bin/env python3
"""Reads lit's --output JSON and prints the closing line CI looks for:
'N passed, N failed, N skipped' (skipped = UNSUPPORTED). Exits 1 when any test
failed, or when no test ran at all."""
import collections
import json
import sys

PASS = {"PASS", "XFAIL", "FLAKYPASS"}
SKIP = {"UNSUPPORTED", "EXCLUDED", "SKIPPED"}

results = json.load(open(sys.argv[1]))["tests"]
codes = collections.Counter(t["code"] for t in results)
passed = sum(n for c, n in codes.items() if c in PASS)
skipped = sum(n for c, n in codes.items() if c in SKIP)
failed = sum(codes.values()) - passed - skipped
for t in results:
    if t["code"] not in PASS | SKIP:
        print(f"{t['code']}: {t['name']}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or not passed else 0)
