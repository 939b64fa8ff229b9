"""The JSON command of a CMD descriptor (README "Flight API")."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping, Sequence
from typing import Any, Union

import pyarrow.flight as fl

#: A row filter: the server's string syntax (``"fare > 10 AND note IS NULL"``),
#: an Iceberg REST catalog ``Expression`` as a dict, or ``True``/``False``.
Filter = Union[str, Mapping[str, Any], bool]

#: A point in time: a datetime (naive means UTC) or milliseconds since the epoch.
Timestamp = Union[_dt.datetime, int]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def timestamp_ms(value: Timestamp) -> int:
    """Return a point in time as milliseconds since the Unix epoch.

    Parameters
    ----------
    value : datetime.datetime or int
        An aware datetime, a naive datetime read as UTC, or milliseconds
        since the epoch.

    Returns
    -------
    int
        Milliseconds since 1970-01-01T00:00:00Z, rounded down.
    """
    if isinstance(value, bool):
        raise TypeError("as_of must be a datetime or milliseconds since the epoch, not bool")
    if isinstance(value, int):
        return value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return (value - _EPOCH) // _dt.timedelta(milliseconds=1)
    raise TypeError(f"as_of must be a datetime or milliseconds since the epoch, not {type(value).__name__}")


def build_command(
    table: str,
    columns: Sequence[str] | None = None,
    filter: Filter | None = None,
    snapshot_id: int | None = None,
    as_of: Timestamp | None = None,
    ref: str | None = None,
    limit: int | None = None,
    max_endpoints: int | None = None,
    target_split_bytes: int | None = None,
    case_sensitive: bool | None = None,
    dictionary: bool | Sequence[str] | None = None,
    metadata_table: str | None = None,
    changes: Mapping[str, Any] | None = None,
    tickets: str | None = None,
) -> dict[str, Any]:
    """Return the JSON command object for a scan.

    Options left as None are left out, so the server applies its defaults.
    The server checks the rest (at most one of ``snapshot_id``, ``as_of``
    and ``ref``; known columns; a filter that parses).

    Parameters
    ----------
    table : str
        Table name, e.g. ``"samples.trips"``.
    columns : sequence of str, optional
        Columns to read, in this order; ``[]`` reads none (row counts only).
    filter : str, dict or bool, optional
        Row filter, see :data:`Filter`.
    snapshot_id : int, optional
        Read this snapshot.
    as_of : datetime.datetime or int, optional
        Read the snapshot that was current at this time.
    ref : str, optional
        Read this branch or tag.
    limit : int, optional
        Stop after this many rows.
    max_endpoints : int, optional
        Cap on the number of endpoints.
    target_split_bytes : int, optional
        Split data files larger than this along their row groups.
    case_sensitive : bool, optional
        Match column names case-insensitively when False.
    dictionary : bool or sequence of str, optional
        Send string and binary columns as Arrow dictionaries: ``True`` for
        every one, or the names of some. Dictionary-encoded Parquet data
        then travels as stored (fewer bytes, less server CPU); each batch
        carries the dictionary of the row group it comes from.
    metadata_table : str, optional
        Read this metadata table of the table instead of its rows
        (``"files"``, ``"snapshots"``, ``"entries"``, ``"partitions"`` ...:
        Iceberg Java's names, columns and types); ``columns`` and
        ``filter`` then name its columns.
    changes : dict, optional
        Stream the rows inserted and deleted between two snapshots instead
        (``from_snapshot_id``, ``to_snapshot_id``, ``from_timestamp_ms``,
        ``to_timestamp_ms``, ``to_ref``, ``compute_updates``,
        ``identifier_columns``; see :meth:`Client.changes`).
    tickets : str, optional
        What the plan's tickets name: ``"files"`` (exact endpoints and
        counts; a large plan's manifest groups are planned in parallel) or
        ``"manifests"`` (groups of manifests each worker plans as it reads,
        for tables of millions of files); by default the server chooses by
        the plan's size.

    Returns
    -------
    dict
        The command, ready for :func:`json.dumps`.
    """
    if not isinstance(table, str) or not table:
        raise TypeError("table must be a non-empty string such as 'db.table'")
    cmd: dict[str, Any] = {"table": table}
    if columns is not None:
        if isinstance(columns, (str, bytes)):
            raise TypeError("columns must be a sequence of names, e.g. ['a', 'b'], not a string")
        cmd["columns"] = list(columns)
    if filter is not None:
        if not isinstance(filter, (str, bool, Mapping)):
            raise TypeError(f"filter must be a string or an Iceberg expression dict, not {type(filter).__name__}")
        cmd["filter"] = dict(filter) if isinstance(filter, Mapping) else filter
    if snapshot_id is not None:
        cmd["snapshot_id"] = int(snapshot_id)
    if as_of is not None:
        cmd["as_of_timestamp_ms"] = timestamp_ms(as_of)
    if ref is not None:
        cmd["ref"] = ref
    if limit is not None:
        cmd["limit"] = int(limit)
    if max_endpoints is not None:
        cmd["max_endpoints"] = int(max_endpoints)
    if target_split_bytes is not None:
        cmd["target_split_bytes"] = int(target_split_bytes)
    if case_sensitive is not None:
        cmd["case_sensitive"] = bool(case_sensitive)
    if dictionary is not None:
        if isinstance(dictionary, (str, bytes)):
            raise TypeError("dictionary must be True, False or a sequence of column names, not a string")
        cmd["dictionary"] = dictionary if isinstance(dictionary, bool) else list(dictionary)
    if metadata_table is not None:
        if not isinstance(metadata_table, str) or not metadata_table:
            raise TypeError("metadata_table must be the name of a metadata table, e.g. 'files'")
        cmd["metadata_table"] = metadata_table
    if changes is not None:
        if not isinstance(changes, Mapping):
            raise TypeError("changes must be a dict such as {'from_snapshot_id': 1}")
        cmd["changes"] = dict(changes)
    if tickets is not None:
        if tickets not in ("files", "manifests"):
            raise ValueError(f"tickets must be 'files' or 'manifests', not {tickets!r}")
        cmd["tickets"] = tickets
    return cmd


def descriptor(cmd: Mapping[str, Any]) -> fl.FlightDescriptor:
    """Return the CMD descriptor holding a command as JSON."""
    return fl.FlightDescriptor.for_command(json.dumps(cmd, separators=(",", ":")).encode())
