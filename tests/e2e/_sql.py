"""Helpers of the SQL client tests: the clients' imports, SQL spelling, and
rows compared as multisets.

The SQL tests check that an answer through Flight SQL equals the plain
protocol's answer to the same scan, read with the iceflight Python client.
"""

from __future__ import annotations

import importlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import pyarrow as pa
import pytest

#: Set (by make's servers targets and CI) when a missing client must fail, not skip.
REQUIRE = os.environ.get("ICEFLIGHT_REQUIRE_SERVERS") == "1"


def need(module: str) -> ModuleType:
    """Import module, or skip the test saying what to install (fail under REQUIRE)."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        msg = f"{module} is not installed ({err}): `pip install -r tests/e2e/requirements.txt`"
        if REQUIRE:
            pytest.fail(msg + " (ICEFLIGHT_REQUIRE_SERVERS=1)")
        pytest.skip(msg)


def quote(name: str) -> str:
    """A SQL identifier matching name exactly: double-quoted, quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def column(path: str, quoted: bool = True) -> str:
    """A column reference; the plain protocol's dots name nested struct fields.
    Unquoted, it matches case-insensitively."""
    return ".".join(quote(p) if quoted else p for p in path.split("."))


def _literal(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        return repr(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    raise ValueError(f"no SQL literal for {v!r}")


_COMPARE = {"eq": "=", "not-eq": "!=", "lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">="}
_UNARY = {"is-null": "IS NULL", "not-null": "IS NOT NULL", "is-nan": "IS NAN", "not-nan": "IS NOT NAN"}


def where(expr: Any, quoted: bool = True) -> str:
    """The SQL WHERE text of an Iceberg REST expression (the plain protocol's JSON filter)."""
    if isinstance(expr, bool):
        return "TRUE" if expr else "FALSE"
    kind = expr["type"]
    if kind in ("true", "false"):
        return kind.upper()
    if kind in ("and", "or"):
        return f"({where(expr['left'], quoted)} {kind.upper()} {where(expr['right'], quoted)})"
    if kind == "not":
        return f"NOT ({where(expr['child'], quoted)})"
    term = column(expr["term"], quoted)
    if kind in _COMPARE:
        return f"{term} {_COMPARE[kind]} {_literal(expr['value'])}"
    if kind in _UNARY:
        return f"{term} {_UNARY[kind]}"
    if kind in ("in", "not-in"):
        values = ", ".join(_literal(v) for v in expr["values"])
        return f"{term} {'IN' if kind == 'in' else 'NOT IN'} ({values})"
    if kind in ("starts-with", "not-starts-with"):
        return f"{term} {'STARTS WITH' if kind == 'starts-with' else 'NOT STARTS WITH'} {_literal(expr['value'])}"
    raise ValueError(f"no SQL for filter {kind!r}")


def select(
    table: str,
    columns: Sequence[str] | None = None,
    filter: Mapping[str, Any] | None = None,
    snapshot_id: int | None = None,
    limit: int | None = None,
    quoted: bool = True,
) -> str:
    """The SQL statement of a plain command: table, columns (None: all; []: COUNT(*)),
    filter, snapshot, limit; unquoted column names match case-insensitively."""
    if columns is None:
        cols = "*"
    elif not columns:
        cols = "COUNT(*)"
    else:
        cols = ", ".join(column(c, quoted) for c in columns)
    sql = f"SELECT {cols} FROM {'.'.join(quote(p) for p in table.split('.'))}"
    if snapshot_id is not None:
        sql += f" FOR SYSTEM_VERSION AS OF {snapshot_id}"
    if filter is not None:
        sql += f" WHERE {where(filter, quoted)}"
    if limit is not None:
        sql += f" LIMIT {limit}"
    return sql


def _canon(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_canon(x) for x in v]
    if isinstance(v, tuple):  # map entries
        return [_canon(x) for x in v]
    return v


def rows(table: pa.Table) -> list[str]:
    """The table's rows as sorted canonical strings: a multiset, columns by position."""
    out = []
    for row in table.to_pylist():
        out.append(json.dumps([_canon(v) for v in row.values()], default=repr, sort_keys=True))
    return sorted(out)


def shape(schema: pa.Schema) -> list[tuple[str, str]]:
    """A schema's column names and types, without field metadata (field ids)."""
    return [(f.name, str(f.type)) for f in schema]


def assert_same(got: pa.Table, want: pa.Table, what: str) -> None:
    """Assert got holds want's columns (names and types) and rows, in any row order."""
    assert shape(got.schema) == shape(want.schema), f"{what}: schema differs"
    assert got.num_rows == want.num_rows, f"{what}: {got.num_rows} rows, want {want.num_rows}"
    assert rows(got) == rows(want), f"{what}: rows differ"
