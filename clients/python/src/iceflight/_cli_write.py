"""The write verbs of the ``iceflight`` command: append, delete, maintain."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import re
from collections.abc import Callable
from typing import IO, Any

import pyarrow as pa

from .client import Client
from .write import MaintenanceResult, Time

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_older_than(text: str) -> Time:
    """A duration before now (``7d``, ``12h``, ``30m``), Unix milliseconds, or an ISO 8601 time."""
    m = _DURATION.match(text.strip())
    if m:
        seconds = float(m.group(1)) * _UNITS[m.group(2)]
        return _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(seconds=seconds)
    try:
        return int(text)
    except ValueError:
        pass
    try:
        t = _dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a duration (7d, 12h), milliseconds since the epoch or an ISO 8601 time"
        ) from None
    return t if t.tzinfo else t.replace(tzinfo=_dt.timezone.utc)


def _property(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"property {text!r} is not KEY=VALUE")
    return key.strip(), value


def parse_schema(text: str) -> pa.Schema:
    """``"id:int64, name:string not null"``: pyarrow type names, nullable unless ``not null``."""
    fields = []
    for part in text.split(","):
        name, sep, rest = part.strip().partition(":")
        if not sep or not name.strip():
            raise argparse.ArgumentTypeError(f"column {part.strip()!r} is not NAME:TYPE")
        rest = rest.strip()
        nullable = True
        if rest.lower().endswith(" not null"):
            rest, nullable = rest[: -len(" not null")].strip(), False
        try:
            typ = pa.type_for_alias(rest)
        except ValueError:
            raise argparse.ArgumentTypeError(f"column {name.strip()!r}: unknown type {rest!r}") from None
        fields.append(pa.field(name.strip(), typ, nullable=nullable))
    return pa.schema(fields)


def open_rows(path: str, fmt: str | None) -> pa.RecordBatchReader:
    """Stream the rows of a Parquet, CSV or Arrow IPC file, batch by batch."""
    fmt = fmt or _format_of(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        f = pq.ParquetFile(path)
        return pa.RecordBatchReader.from_batches(f.schema_arrow, f.iter_batches())
    if fmt == "csv":
        import pyarrow.csv as pcsv

        return pcsv.open_csv(path)
    if fmt == "arrow":
        try:
            return pa.ipc.open_stream(path)
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(path)
            return pa.RecordBatchReader.from_batches(
                reader.schema, (reader.get_batch(i) for i in range(reader.num_record_batches))
            )
    raise ValueError(f"{path}: format {fmt!r}: want parquet, csv or arrow")


def _format_of(path: str) -> str:
    lower = path.lower()
    for suffix, fmt in ((".parquet", "parquet"), (".pq", "parquet"), (".csv", "csv"), (".arrow", "arrow"), (".feather", "arrow"), (".ipc", "arrow")):
        if lower.endswith(suffix):
            return fmt
    raise ValueError(f"{path}: cannot tell the format from the name; give --format parquet, csv or arrow")


def add_write_commands(sub: Any) -> None:
    """Add the write verbs to the ``iceflight`` subcommand parser ``sub``."""
    p = sub.add_parser("append", help="append the rows of a Parquet, CSV or Arrow file to a table")
    p.add_argument("table")
    p.add_argument("file", help="a .parquet, .csv or .arrow/.feather file")
    p.add_argument("--format", choices=["parquet", "csv", "arrow"], help="file format (default: from the name)")
    p.add_argument("--overwrite", action="store_true", help="replace the rows matching --filter (all by default) instead")
    p.add_argument("--filter", help="with --overwrite: the rows to replace")
    p.add_argument("--branch", help="branch written (default main)")

    p = sub.add_parser("delete", help="delete the rows matching a filter")
    p.add_argument("table")
    p.add_argument("--filter", required=True, help='rows to delete, e.g. "id < 10" ("true" for all)')
    p.add_argument("--branch")
    p.add_argument("--copy-on-write", action="store_true", help="rewrite data files instead of writing delete files")
    p.add_argument("--dry-run", action="store_true", help="report what would be deleted")

    p = sub.add_parser("expire", help="expire old snapshots and delete the files only they reference")
    p.add_argument("table")
    p.add_argument("--older-than", type=parse_older_than, help="a duration (7d), ISO 8601 time or ms (default: the table's properties)")
    p.add_argument("--retain-last", type=int, help="keep at least this many snapshots of each branch")
    p.add_argument("--snapshot-id", type=int, action="append", dest="snapshot_ids", help="expire this snapshot too (repeatable)")
    p.add_argument("--dry-run", action="store_true")

    p = sub.add_parser("orphans", help="delete files no metadata references (remove_orphan_files)")
    p.add_argument("table")
    p.add_argument("--older-than", type=parse_older_than, help="only files older than this (default 3 days)")
    p.add_argument("--location", help="folder to clean (default: the table location)")
    p.add_argument("--dry-run", action="store_true")

    p = sub.add_parser("compact", help="rewrite small data files, and those with deletes, into fewer")
    p.add_argument("table")
    p.add_argument("--filter", help="only files with rows matching this")
    p.add_argument("--target-file-size", type=int, help="bytes (default: the table's write.target-file-size-bytes)")
    p.add_argument("--min-input-files", type=int)
    p.add_argument("--dry-run", action="store_true")

    p = sub.add_parser("rewrite-manifests", help="rewrite many small manifests into fewer")
    p.add_argument("table")
    p.add_argument("--target-manifest-size", type=int)
    p.add_argument("--dry-run", action="store_true")

    p = sub.add_parser("create-table", help="create a table from a schema or a file's schema")
    p.add_argument("table")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--schema", type=parse_schema, help='columns, e.g. "id:int64 not null, ts:timestamp[us, tz=UTC]"')
    src.add_argument("--like", metavar="FILE", help="take the schema of this Parquet, CSV or Arrow file")
    p.add_argument("--partition-by", action="append", help='partition field, e.g. "day(ts)", "bucket(16, id)" (repeatable)')
    p.add_argument("--sort-by", action="append", help='sort field, e.g. "id desc" (repeatable)')
    p.add_argument("--property", type=_property, action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--format-version", type=int, default=2)
    p.add_argument("--location")
    p.add_argument("--if-not-exists", action="store_true")

    p = sub.add_parser("drop-table", help="drop a table")
    p.add_argument("table")
    p.add_argument("--purge", action="store_true", help="delete its files too")

    p = sub.add_parser("namespaces", help="list namespaces")
    p.add_argument("--parent", help="list below this namespace")
    p = sub.add_parser("create-namespace", help="create a namespace")
    p.add_argument("namespace")
    p = sub.add_parser("drop-namespace", help="drop an empty namespace")
    p.add_argument("namespace")


def _print(obj: Any, out: IO[str]) -> None:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {k: v for k, v in dataclasses.asdict(obj).items() if k != "raw"}
    json.dump(obj, out, indent=2, default=str)
    out.write("\n")


def _cmd_append(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    if args.filter and not args.overwrite:
        raise ValueError("--filter needs --overwrite (delete rows with `iceflight delete`)")
    rows = open_rows(args.file, args.format)
    if args.overwrite:
        _print(client.overwrite(args.table, rows, filter=args.filter, branch=args.branch), out)
    else:
        _print(client.append(args.table, rows, branch=args.branch), out)


def _cmd_delete(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    res = client.delete(args.table, args.filter, branch=args.branch, copy_on_write=args.copy_on_write, dry_run=args.dry_run)
    _print(res, out)


def _maintenance(res: MaintenanceResult, out: IO[str]) -> None:
    _print(res, out)


def _cmd_expire(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    res = client.expire_snapshots(args.table, older_than=args.older_than, retain_last=args.retain_last, snapshot_ids=args.snapshot_ids, dry_run=args.dry_run)
    _maintenance(res, out)


def _cmd_orphans(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    _maintenance(client.remove_orphan_files(args.table, older_than=args.older_than, location=args.location, dry_run=args.dry_run), out)


def _cmd_compact(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    res = client.compact(args.table, filter=args.filter, target_file_size=args.target_file_size, min_input_files=args.min_input_files, dry_run=args.dry_run)
    _maintenance(res, out)


def _cmd_rewrite_manifests(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    _maintenance(client.rewrite_manifests(args.table, target_manifest_size=args.target_manifest_size, dry_run=args.dry_run), out)


def _cmd_create_table(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    schema = args.schema if args.schema is not None else open_rows(args.like, None).schema
    info = client.create_table(
        args.table,
        schema,
        partition_by=args.partition_by,
        sort_by=args.sort_by,
        properties=dict(args.property) or None,
        format_version=args.format_version,
        location=args.location,
        if_not_exists=args.if_not_exists,
    )
    _print(info, out)


def _cmd_drop_table(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    client.drop_table(args.table, purge=args.purge)


def _cmd_namespaces(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    for ns in client.list_namespaces(args.parent):
        out.write(ns + "\n")


def _cmd_create_namespace(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    client.create_namespace(args.namespace)


def _cmd_drop_namespace(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    client.drop_namespace(args.namespace)


WRITE_COMMANDS: dict[str, Callable[[Client, argparse.Namespace, IO[str]], None]] = {
    "append": _cmd_append,
    "delete": _cmd_delete,
    "expire": _cmd_expire,
    "orphans": _cmd_orphans,
    "compact": _cmd_compact,
    "rewrite-manifests": _cmd_rewrite_manifests,
    "create-table": _cmd_create_table,
    "drop-table": _cmd_drop_table,
    "namespaces": _cmd_namespaces,
    "create-namespace": _cmd_create_namespace,
    "drop-namespace": _cmd_drop_namespace,
}
