"""Writing tables: create, append, overwrite, delete, alter and maintain."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Union

import pyarrow as pa
import pyarrow.flight as fl

from .errors import reraise

__all__ = ["WriteResult", "MaintenanceResult", "RemovedFile", "TableInfo", "Rows"]

# The message by which a DoPut says its rows failed (flight.PutAbort).
_PUT_ABORT = b"iceflight:abort"

# Batches are sent in pieces of about this many bytes: gRPC servers refuse
# messages over 4 MiB unless raised (flightd raises it, others may not), and
# smaller messages keep the server's memory per stream small.
_PUT_MESSAGE_BYTES = 2 << 20


def _pieces(batch: pa.RecordBatch, budget: int = _PUT_MESSAGE_BYTES) -> Iterable[pa.RecordBatch]:
    """Slices of batch of about budget bytes each (batch itself when smaller)."""
    size = batch.get_total_buffer_size()
    if size <= budget or batch.num_rows <= 1:
        yield batch
        return
    step = max(1, batch.num_rows * budget // size)
    for start in range(0, batch.num_rows, step):
        yield batch.slice(start, step)

#: What :meth:`Client.append` takes: a table, a reader, one batch, or batches.
Rows = Union[pa.Table, pa.RecordBatchReader, pa.RecordBatch, Iterable[pa.RecordBatch]]

#: A time for ``older_than``: a datetime (naive means UTC), Unix
#: milliseconds, or an RFC 3339 string.
Time = Union[datetime, int, str]


@dataclass(frozen=True)
class WriteResult:
    """What a commit did (an append, overwrite or delete).

    Attributes
    ----------
    snapshot_id : int
        The new snapshot; 0 for a dry run or a commit that changed nothing.
    operation : str
        The snapshot's operation: append, overwrite or delete.
    added_records, deleted_records : int
        Rows added and removed.
    attempts : int
        Commit attempts the server made (more than 1 after conflicts).
    raw : dict
        The server's whole answer.
    """

    snapshot_id: int
    operation: str = ""
    sequence_number: int = 0
    metadata_location: str = ""
    added_data_files: int = 0
    added_records: int = 0
    added_delete_files: int = 0
    deleted_data_files: int = 0
    deleted_records: int = 0
    added_bytes: int = 0
    attempts: int = 0
    dry_run: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> WriteResult:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d and k != "raw"}
        return cls(**known, raw=dict(d))


@dataclass(frozen=True)
class RemovedFile:
    """A file maintenance removed, or would remove."""

    location: str
    kind: str
    size: int = 0


@dataclass(frozen=True)
class MaintenanceResult:
    """What a maintenance action did, or would do with ``dry_run``.

    Attributes
    ----------
    removed : list of RemovedFile
        Files deleted (or that would be).
    counts : dict of str to int
        Files by kind.
    """

    dry_run: bool
    removed: list[RemovedFile]
    counts: dict[str, int]
    snapshot_id: int = 0
    expired_snapshots: list[int] = field(default_factory=list)
    rewritten_files: int = 0
    added_files: int = 0

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MaintenanceResult:
        return cls(
            dry_run=bool(d.get("dry_run", False)),
            removed=[RemovedFile(f["location"], f.get("kind", ""), int(f.get("size", 0))) for f in d.get("removed") or []],
            counts=dict(d.get("counts") or {}),
            snapshot_id=int(d.get("snapshot_id", 0)),
            expired_snapshots=list(d.get("expired_snapshots") or []),
            rewritten_files=int(d.get("rewritten_files", 0)),
            added_files=int(d.get("added_files", 0)),
        )


@dataclass(frozen=True)
class TableInfo:
    """A table as create_table and alter_table answer it."""

    table: str
    metadata_location: str
    table_uuid: str = ""
    format_version: int = 0
    schema_id: int = 0

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableInfo:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def to_reader(rows: Rows, schema: pa.Schema | None = None) -> pa.RecordBatchReader:
    """Return ``rows`` as a record batch reader.

    Parameters
    ----------
    rows : pyarrow.Table, RecordBatchReader, RecordBatch or iterable of RecordBatch
        The rows to send.
    schema : pyarrow.Schema, optional
        Needed for an iterable of batches that may be empty.
    """
    if isinstance(rows, pa.RecordBatchReader):
        return rows
    if isinstance(rows, pa.Table):
        return rows.to_reader()
    if isinstance(rows, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(rows.schema, [rows])
    it = iter(rows)
    if schema is None:
        try:
            first = next(it)
        except StopIteration:
            raise ValueError("no batches to append and no schema= to send an empty stream with") from None
        schema = first.schema

        def chain() -> Iterable[pa.RecordBatch]:
            yield first
            yield from it

        return pa.RecordBatchReader.from_batches(schema, chain())
    return pa.RecordBatchReader.from_batches(schema, it)


def time_value(t: Time | None) -> Any:
    """Encode an ``older_than`` for the server (RFC 3339 or Unix ms)."""
    if t is None or isinstance(t, (int, str)):
        if isinstance(t, bool):
            raise TypeError("older_than is a datetime, Unix milliseconds or an RFC 3339 string")
        return t
    if isinstance(t, datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    raise TypeError("older_than is a datetime, Unix milliseconds or an RFC 3339 string")


class WriteMixin:
    """The write calls of :class:`iceflight.Client`."""

    _options: fl.FlightCallOptions

    @property
    def _flight(self) -> fl.FlightClient:  # pragma: no cover - provided by Client
        raise NotImplementedError

    def _write_action(self, kind: str, body: Mapping[str, Any], table: str | None) -> list[Any]:
        action = fl.Action(kind, json.dumps({k: v for k, v in body.items() if v is not None}).encode())
        with reraise(table):
            return [json.loads(r.body.to_pybytes()) for r in self._flight.do_action(action, options=self._options)]

    def _maintenance(self, kind: str, body: Mapping[str, Any], table: str) -> MaintenanceResult:
        # A long "removed" list continues in further results, each a list.
        pages = self._write_action(kind, body, table)
        head = dict(pages[0]) if pages else {}
        removed = list(head.get("removed") or [])
        for page in pages[1:]:
            removed.extend(page)
        head["removed"] = removed
        return MaintenanceResult.from_json(head)

    def create_table(
        self,
        table: str,
        schema: pa.Schema,
        partition_by: Sequence[str | Mapping[str, str]] | None = None,
        sort_by: Sequence[str | Mapping[str, str]] | None = None,
        properties: Mapping[str, str] | None = None,
        format_version: int = 2,
        *,
        location: str | None = None,
        if_not_exists: bool = False,
    ) -> TableInfo:
        """Create a table.

        Parameters
        ----------
        table : str
            Table name, ``"namespace.table"``.
        schema : pyarrow.Schema
            The columns; the server assigns field ids as Iceberg does.
        partition_by : list, optional
            Partition fields: ``"day(ts)"``, ``"bucket(16, id)"``,
            ``"truncate(4, name)"``, ``"id"`` (identity), or dicts
            ``{"source", "transform", "name"}``.
        sort_by : list, optional
            Sort fields: ``"id"``, ``"id desc nulls-last"``, or dicts.
        properties : dict, optional
            Table properties.
        format_version : int, default 2
            Iceberg format version (1, 2 or 3).
        location : str, optional
            Table location instead of the catalog's default.
        if_not_exists : bool, default False
            Return the existing table instead of raising when it exists.

        Returns
        -------
        TableInfo
        """
        body = {
            "table": table,
            "schema": base64.b64encode(schema.serialize().to_pybytes()).decode(),
            "partition_by": list(partition_by) if partition_by else None,
            "sort_by": list(sort_by) if sort_by else None,
            "properties": dict(properties) if properties else None,
            "format_version": format_version,
            "location": location,
            "if_not_exists": if_not_exists or None,
        }
        return TableInfo.from_json(self._write_action("create_table", body, table)[0])

    def drop_table(self, table: str, purge: bool = False) -> None:
        """Drop a table; with ``purge`` its files are deleted too."""
        self._write_action("drop_table", {"table": table, "purge": purge}, table)

    def create_namespace(self, namespace: str, properties: Mapping[str, str] | None = None) -> None:
        """Create a namespace (``"db"`` or ``"db.sub"``)."""
        self._write_action("create_namespace", {"namespace": namespace, "properties": properties}, None)

    def list_namespaces(self, parent: str | None = None) -> list[str]:
        """Return the namespaces below ``parent`` (the top level by default), dotted."""
        out: list[str] = []
        for page in self._write_action("list_namespaces", {"parent": parent}, None):
            out.extend(page)
        return out

    def drop_namespace(self, namespace: str) -> None:
        """Drop an empty namespace."""
        self._write_action("drop_namespace", {"namespace": namespace}, None)

    def _put(self, command: Mapping[str, Any], rows: Rows, schema: pa.Schema | None) -> WriteResult:
        table = str(command["table"])
        reader = to_reader(rows, schema)
        desc = fl.FlightDescriptor.for_command(json.dumps({k: v for k, v in command.items() if v is not None}))
        with reraise(table):
            writer, metadata = self._flight.do_put(desc, reader.schema, options=self._options)
            try:
                for batch in reader:
                    for piece in _pieces(batch):
                        writer.write_batch(piece)
                writer.done_writing()
                buf = metadata.read()
            except BaseException:
                # pyarrow's DoPut writer cannot cancel its call, and closing
                # it ends the stream cleanly: say first that the rows failed,
                # so the server commits nothing.
                try:
                    writer.write_metadata(pa.py_buffer(_PUT_ABORT))
                    writer.close()
                except pa.ArrowException:
                    pass  # the server ended the call already
                raise
            writer.close()
        if buf is None:
            raise RuntimeError(f"table {table}: the server answered the DoPut with no result")
        return WriteResult.from_json(json.loads(buf.to_pybytes()))

    def append(
        self,
        table: str,
        rows: Rows,
        *,
        branch: str | None = None,
        snapshot_properties: Mapping[str, str] | None = None,
        schema: pa.Schema | None = None,
    ) -> WriteResult:
        """Append rows to a table, in one commit.

        Parameters
        ----------
        table : str
            Table name.
        rows : pyarrow.Table, RecordBatchReader, RecordBatch or iterable of RecordBatch
            The rows; their columns are matched to the table's by name.
        branch : str, optional
            Branch written (default main).
        snapshot_properties : dict, optional
            Added to the new snapshot's summary.
        schema : pyarrow.Schema, optional
            The schema of an iterable of batches that may be empty.

        Returns
        -------
        WriteResult
            ``.snapshot_id`` is the new snapshot.
        """
        cmd = {"table": table, "mode": "append", "branch": branch, "snapshot_properties": snapshot_properties}
        return self._put(cmd, rows, schema)

    def overwrite(
        self,
        table: str,
        rows: Rows,
        filter: str | None = None,
        *,
        branch: str | None = None,
        snapshot_properties: Mapping[str, str] | None = None,
        schema: pa.Schema | None = None,
    ) -> WriteResult:
        """Replace the rows matching ``filter`` (every row by default) with ``rows``, in one commit."""
        cmd = {
            "table": table,
            "mode": "overwrite",
            "filter": filter,
            "branch": branch,
            "snapshot_properties": snapshot_properties,
        }
        return self._put(cmd, rows, schema)

    def delete(
        self,
        table: str,
        filter: str,
        *,
        branch: str | None = None,
        copy_on_write: bool = False,
        dry_run: bool = False,
    ) -> WriteResult:
        """Delete the rows matching ``filter`` (``"true"`` for all).

        Parameters
        ----------
        table : str
            Table name.
        filter : str
            Rows to delete, in the read filter grammar (``"id < 10"``).
        branch : str, optional
            Branch changed (default main).
        copy_on_write : bool, default False
            Rewrite data files instead of writing delete files.
        dry_run : bool, default False
            Report what would be deleted without committing.
        """
        body = {"table": table, "filter": filter, "branch": branch, "copy_on_write": copy_on_write, "dry_run": dry_run}
        return WriteResult.from_json(self._write_action("delete", body, table)[0])

    def alter(
        self,
        table: str,
        *,
        schema: Sequence[Mapping[str, Any]] | None = None,
        partition_spec: Sequence[Mapping[str, Any]] | None = None,
        sort_order: Sequence[Mapping[str, Any]] | None = None,
        set_properties: Mapping[str, str] | None = None,
        remove_properties: Sequence[str] | None = None,
        refs: Sequence[Mapping[str, Any]] | None = None,
        format_version: int | None = None,
    ) -> TableInfo:
        """Change a table's schema, spec, sort order, properties or refs, in one commit.

        Each change is a dict as the server's ``alter_table`` action takes it,
        e.g. ``schema=[{"op": "add_column", "path": "note", "type": "string"}]``,
        ``refs=[{"op": "create_tag", "name": "v1"}]``.
        """
        body = {
            "table": table,
            "schema": list(schema) if schema else None,
            "partition_spec": list(partition_spec) if partition_spec else None,
            "sort_order": list(sort_order) if sort_order else None,
            "set_properties": dict(set_properties) if set_properties else None,
            "remove_properties": list(remove_properties) if remove_properties else None,
            "refs": list(refs) if refs else None,
            "format_version": format_version,
        }
        return TableInfo.from_json(self._write_action("alter_table", body, table)[0])

    def expire_snapshots(
        self,
        table: str,
        older_than: Time | None = None,
        retain_last: int | None = None,
        snapshot_ids: Sequence[int] | None = None,
        dry_run: bool = False,
    ) -> MaintenanceResult:
        """Expire old snapshots and delete the files only they referenced.

        Defaults come from the table's ``history.expire.*`` properties.
        """
        body = {
            "table": table,
            "older_than": time_value(older_than),
            "retain_last": retain_last,
            "snapshot_ids": list(snapshot_ids) if snapshot_ids else None,
            "dry_run": dry_run,
        }
        return self._maintenance("expire_snapshots", body, table)

    def remove_orphan_files(
        self, table: str, older_than: Time | None = None, location: str | None = None, dry_run: bool = False
    ) -> MaintenanceResult:
        """Delete files under the table's location that no metadata references (default: older than 3 days)."""
        body = {"table": table, "older_than": time_value(older_than), "location": location, "dry_run": dry_run}
        return self._maintenance("remove_orphan_files", body, table)

    def compact(
        self,
        table: str,
        filter: str | None = None,
        target_file_size: int | None = None,
        min_input_files: int | None = None,
        dry_run: bool = False,
    ) -> MaintenanceResult:
        """Rewrite small data files, and those with deletes, into fewer (rewrite_data_files)."""
        body = {
            "table": table,
            "filter": filter,
            "target_file_size": target_file_size,
            "min_input_files": min_input_files,
            "dry_run": dry_run,
        }
        return self._maintenance("rewrite_data_files", body, table)

    def rewrite_manifests(
        self, table: str, target_manifest_size: int | None = None, dry_run: bool = False
    ) -> MaintenanceResult:
        """Rewrite many small manifests into fewer."""
        body = {"table": table, "target_manifest_size": target_manifest_size, "dry_run": dry_run}
        return self._maintenance("rewrite_manifests", body, table)
