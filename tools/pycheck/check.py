"""Scan one Iceberg table with PyIceberg and print its rows as canonical JSON lines.

The rows follow the oracle's form (testdata/conformance/README.md), so iceflight's
write tests compare them with Iceberg Java's and iceflight's own reads. The table is
loaded read-only, either from a metadata file (``--metadata``, through
``StaticTable.from_metadata``) or through PyIceberg's SqlCatalog (``--sql-uri`` with
``--table``). ``--snapshot-id`` scans that snapshot instead of the current one.
A first line ``{"snapshot_id": N, "rows": N}`` on stderr says what was read.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import decimal
import json
import math
import sys
import uuid
from typing import Any

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import StaticTable
from pyiceberg import types as T

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_TZ = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _micros(delta: datetime.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def canonical(t: T.IcebergType, v: Any) -> Any:
    """Returns v, of Iceberg type t as pyarrow's to_pylist gives it, in the oracle's JSON form."""
    if v is None:
        return None
    if isinstance(t, (T.BooleanType, T.IntegerType, T.LongType)):
        return v
    if isinstance(t, (T.FloatType, T.DoubleType)):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(t, T.DecimalType):
        return str(decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-t.scale)))
    if isinstance(t, T.DateType):
        return (v - EPOCH_DATE).days
    if isinstance(t, T.TimeType):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if isinstance(t, (T.TimestampType, T.TimestamptzType)):
        if isinstance(v, int):
            return v
        if v.tzinfo is not None:
            return _micros(v - EPOCH_TZ)
        return _micros(v - EPOCH)
    if isinstance(t, (T.TimestampNanoType, T.TimestamptzNanoType)):
        # pyarrow hands nanosecond timestamps to Python as pandas or ints; ask for ints.
        if hasattr(v, "value"):
            return int(v.value)
        return int(v)
    if isinstance(t, T.StringType):
        return v
    if isinstance(t, T.UUIDType):
        if isinstance(v, (bytes, bytearray)):
            return str(uuid.UUID(bytes=bytes(v)))
        return str(uuid.UUID(str(v)))
    if isinstance(t, (T.FixedType, T.BinaryType)):
        return bytes(v).hex()
    if isinstance(t, T.StructType):
        return {f.name: canonical(f.field_type, v.get(f.name)) for f in t.fields}
    if isinstance(t, T.ListType):
        return [canonical(t.element_type, x) for x in v]
    if isinstance(t, T.MapType):
        items = v.items() if isinstance(v, dict) else v
        return [{"key": canonical(t.key_type, k), "value": canonical(t.value_type, x)} for k, x in items]
    raise ValueError(f"unsupported type {t}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--metadata")
    ap.add_argument("--sql-uri")
    ap.add_argument("--warehouse", default="")
    ap.add_argument("--catalog", default="default")
    ap.add_argument("--table")
    ap.add_argument("--snapshot-id", type=int)
    args = ap.parse_args()
    if args.metadata:
        table = StaticTable.from_metadata(args.metadata)
    elif args.sql_uri and args.table:
        props = {"uri": args.sql_uri}
        if args.warehouse:
            props["warehouse"] = args.warehouse
        table = SqlCatalog(args.catalog, **props).load_table(args.table)
    else:
        ap.error("give --metadata, or --sql-uri and --table")
    scan = table.scan(snapshot_id=args.snapshot_id) if args.snapshot_id else table.scan()
    snap = scan.snapshot()
    schema = scan.projection()
    arrow = scan.to_arrow()
    out = sys.stdout
    rows = 0
    columns = [arrow.column(f.name).to_pylist() for f in schema.fields]
    for i in range(arrow.num_rows):
        row = {f.name: canonical(f.field_type, columns[c][i]) for c, f in enumerate(schema.fields)}
        out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
        out.write("\n")
        rows += 1
    json.dump({"snapshot_id": snap.snapshot_id if snap else None, "rows": rows}, sys.stderr)
    sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
