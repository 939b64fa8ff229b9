"""Conversions of Arrow tables to pandas, polars and DuckDB.

Each library is optional and imported only when asked for; install it with
the matching extra (``pip install 'iceflight[pandas]'``).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pyarrow as pa

__all__ = ["to_pandas", "to_polars", "to_duckdb"]


def _require(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{module} is not installed: pip install 'iceflight[{module}]'") from exc


def to_pandas(table: pa.Table, **kwargs: Any) -> Any:
    """Return ``table`` as a ``pandas.DataFrame``.

    Parameters
    ----------
    table : pyarrow.Table
    **kwargs
        Passed to :meth:`pyarrow.Table.to_pandas`.
    """
    _require("pandas")
    return table.to_pandas(**kwargs)


def to_polars(table: pa.Table) -> Any:
    """Return ``table`` as a ``polars.DataFrame``."""
    pl = _require("polars")
    return pl.from_arrow(table)


def to_duckdb(table: pa.Table, connection: Any = None) -> Any:
    """Return ``table`` as a DuckDB relation.

    Parameters
    ----------
    table : pyarrow.Table
    connection : duckdb.DuckDBPyConnection, optional
        Connection to create the relation on (default: DuckDB's default
        connection).
    """
    duckdb = _require("duckdb")
    con = connection if connection is not None else duckdb.default_connection()
    return con.from_arrow(table)
