"""Rows of the Apache Iceberg Java oracle in a canonical form.

The oracle (tools/javaref) wrote testdata/expected and
testdata/expected-queries in the canonical JSON lines format of
testdata/conformance/README.md. Both the oracle's rows and the Arrow rows the
client reads are turned into the same canonical strings, driven by the
Iceberg type of each column, and compared as multisets.
"""

from __future__ import annotations

import json
import math
import pathlib
import struct
import uuid
from decimal import Decimal
from typing import Any

import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parents[3]
WAREHOUSE = ROOT / "testdata" / "warehouse"
EXPECTED = ROOT / "testdata" / "expected"
EXPECTED_QUERIES = ROOT / "testdata" / "expected-queries"


def index(table: str) -> dict[str, Any]:
    """The oracle's index.json of a sample table."""
    data: dict[str, Any] = json.loads((EXPECTED / table / "index.json").read_text())
    return data


def scan(table: str, name: str = "current") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The schema and rows of one oracle scan (``current`` or ``snapshot-N``)."""
    entry = next(s for s in index(table)["scans"] if s["name"] == name)
    return entry, _rows(EXPECTED / table / entry["file"])


def queries() -> dict[str, dict[str, Any]]:
    """The oracle's query index by query name."""
    qs = json.loads((EXPECTED_QUERIES / "index.json").read_text())["queries"]
    return {q["name"]: q for q in qs}


def query_rows(q: dict[str, Any]) -> list[dict[str, Any]]:
    """The oracle's rows of one query."""
    return _rows(EXPECTED_QUERIES / q["file"])


def _rows(path: pathlib.Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ---- canonical values ---------------------------------------------------


def _float(v: Any, bits: int) -> Any:
    if isinstance(v, str):
        v = float(v)  # "NaN", "Infinity", "-Infinity"
    if bits == 32:
        v = struct.unpack("<f", struct.pack("<f", v))[0]
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


def _unscaled(d: Decimal, scale: int) -> int:
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    n = int("".join(map(str, digits)) or "0")
    shift = exp + scale
    n = n * 10**shift if shift >= 0 else n // 10**-shift
    return int(-n if sign else n)


def _canon(t: Any, v: Any, side: str) -> Any:
    """Canonical value of v (from 'arrow' or 'oracle') of Iceberg type t."""
    if v is None:
        return None
    if isinstance(t, dict):
        kind = t["type"]
        if kind == "struct":
            return {f["name"]: _canon(f["type"], v.get(f["name"]), side) for f in t["fields"]}
        if kind == "list":
            return [_canon(t["element"], e, side) for e in v]
        if kind == "map":
            pairs = v if side == "arrow" else [(e["key"], e["value"]) for e in v]
            return sorted(json.dumps([_canon(t["key"], k, side), _canon(t["value"], x, side)]) for k, x in pairs)
        raise AssertionError(f"unknown nested type {kind}")
    if t in ("boolean", "int", "long", "date", "time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"):
        return v
    if t == "float":
        return _float(v, 32)
    if t == "double":
        return _float(v, 64)
    if t.startswith("decimal"):
        scale = int(t.split(",")[1].strip(" )"))
        return _unscaled(v if side == "arrow" else Decimal(v), scale)
    if t == "string":
        return v
    if t == "uuid":
        return str(uuid.UUID(bytes=v)) if side == "arrow" else v
    if t.startswith("fixed") or t in ("binary", "geometry", "geography"):
        return v.hex() if side == "arrow" else v
    if t == "variant":
        if side == "arrow":
            return {"metadata": v["metadata"].hex(), "value": v["value"].hex()}
        return v
    if t == "unknown":
        return None
    raise AssertionError(f"no canonical form for {t}")


def _as_ints(t: pa.DataType) -> pa.DataType:
    """The Arrow type with every temporal type as its integer storage.

    Oracle rows hold days and micro/nanoseconds as integers; casting the
    Arrow side first also avoids Python datetime's year range.
    """
    if pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_time(t) or pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_as_ints(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_as_ints(t.key_type)), t.item_field.with_type(_as_ints(t.item_type)))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_as_ints(t.value_type)))
    return t


def arrow_rows(table: pa.Table, schema: dict[str, Any], case_sensitive: bool = True) -> list[str]:
    """Canonical rows of an Arrow table read by the client."""
    fields = {f["name"] if case_sensitive else f["name"].lower(): f for f in schema["fields"]}
    cols = []
    for name, column in zip(table.column_names, table.columns):
        f = fields[name if case_sensitive else name.lower()]
        cols.append((f, column.cast(_as_ints(column.type)).to_pylist()))
    assert {f["name"] for f, _ in cols} == {f["name"] for f in schema["fields"]}, "columns differ from the oracle's"
    out = []
    for i in range(table.num_rows):
        out.append(json.dumps({f["name"]: _canon(f["type"], vals[i], "arrow") for f, vals in cols}, sort_keys=True))
    return sorted(out)


def oracle_rows(rows: list[dict[str, Any]], schema: dict[str, Any]) -> list[str]:
    """Canonical rows of the oracle's JSON rows."""
    out = []
    for r in rows:
        out.append(json.dumps({f["name"]: _canon(f["type"], r.get(f["name"]), "oracle") for f in schema["fields"]}, sort_keys=True))
    return sorted(out)
