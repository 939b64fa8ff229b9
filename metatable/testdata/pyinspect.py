"""Prints PyIceberg's metadata tables of a table in iceflight's canonical row form.

usage: pyinspect.py METADATA_FILE KIND...

For each KIND (a method of PyIceberg's table.inspect: snapshots, files,
all_manifests, ...), one JSON line: {"kind": KIND, "rows": [row...]} with
every value as testkit/testutil's canonical form writes it (timestamps as
microseconds, dates as days, bytes as hex, maps as key/value records), or
{"kind": KIND, "error": message} when PyIceberg fails.
"""

import datetime
import decimal
import json
import math
import sys
import uuid

from pyiceberg.table import StaticTable

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def canonical(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        delta = v - EPOCH
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(v, datetime.date):
        return (v - EPOCH.date()).days
    if isinstance(v, datetime.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    if isinstance(v, list):
        if v and all(isinstance(e, tuple) and len(e) == 2 for e in v):
            return [{"key": canonical(k), "value": canonical(x)} for k, x in v]
        return [canonical(e) for e in v]
    raise TypeError(f"no canonical form for {type(v).__name__}")


def main():
    table = StaticTable.from_metadata(sys.argv[1])
    for kind in sys.argv[2:]:
        try:
            rows = getattr(table.inspect, kind)().to_pylist()
            out = {"kind": kind, "rows": [canonical(r) for r in rows]}
        except Exception as e:  # a PyIceberg failure is an answer too
            out = {"kind": kind, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out))


if __name__ == "__main__":
    main()
