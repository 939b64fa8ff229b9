"""The ``iceflight`` command line: list, inspect, read and write tables.

Examples
--------
::

    iceflight tables
    iceflight schema samples.trips
    iceflight snapshots samples.history
    iceflight read samples.trips --columns id,fare --filter "fare > 10" -o trips.parquet
    iceflight create-table db.trips --like trips.parquet --partition-by "day(ts)"
    iceflight append db.trips trips.parquet
    iceflight delete db.trips --filter "fare < 0"
    iceflight expire db.trips --older-than 7d
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

import pyarrow as pa

from ._command import Filter, Timestamp
from ._connections import location_uri
from ._cli_write import WRITE_COMMANDS, add_write_commands
from ._progress import Progress
from ._writers import open_writer
from .client import Client
from .plan import Plan

DEFAULT_SERVER = "grpc://127.0.0.1:8815"


def _parse_as_of(text: str) -> Timestamp:
    """Milliseconds since the epoch, or an ISO 8601 time (naive means UTC)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        # Python 3.10's fromisoformat does not take a trailing Z.
        return _dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither milliseconds since the epoch nor an ISO 8601 time"
        ) from None


def _parse_filter(text: str) -> Filter:
    """The string syntax, or an Iceberg REST expression when it is a JSON object."""
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"filter looks like JSON but does not parse: {exc}") from None
        if isinstance(obj, dict):
            return obj
    return text


def _columns(text: str) -> list[str]:
    return [] if text == "" else [c.strip() for c in text.split(",")]


def _header(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"header {text!r} is not KEY=VALUE")
    return key.strip(), value


def _scan_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("table", help="table name, e.g. samples.trips")
    p.add_argument("--columns", type=_columns, help="comma-separated columns to read (default: all)")
    p.add_argument("--filter", type=_parse_filter, help="row filter: \"fare > 10 AND note IS NULL\" or REST expression JSON")
    p.add_argument("--limit", type=int, help="stop after this many rows")
    p.add_argument("--snapshot-id", type=int, help="read this snapshot")
    p.add_argument("--as-of", type=_parse_as_of, help="read the snapshot current at this time (ISO 8601, or ms)")
    p.add_argument("--ref", help="read this branch or tag")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``iceflight`` command."""
    parser = argparse.ArgumentParser(prog="iceflight", description="Read and write Apache Iceberg tables on an iceflight server.")
    parser.add_argument(
        "--server",
        default=os.environ.get("ICEFLIGHT_SERVER", DEFAULT_SERVER),
        help=f"server location (default: $ICEFLIGHT_SERVER or {DEFAULT_SERVER})",
    )
    parser.add_argument("--token", default=os.environ.get("ICEFLIGHT_TOKEN"), help="bearer token (default: $ICEFLIGHT_TOKEN)")
    parser.add_argument("--user", default=os.environ.get("ICEFLIGHT_USER"), help="log in as this user (password from $ICEFLIGHT_PASSWORD)")
    parser.add_argument("--tls-root-certs", metavar="FILE", help="PEM file of root certificates for grpc+tls")
    parser.add_argument("--tls-cert", metavar="FILE", help="PEM client certificate, for servers that require mutual TLS")
    parser.add_argument("--tls-key", metavar="FILE", help="PEM private key of --tls-cert")
    parser.add_argument("--header", type=_header, action="append", default=[], metavar="KEY=VALUE", help="extra call header (repeatable)")
    parser.add_argument("--workers", type=int, help="most endpoints read at once")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("tables", help="list the tables")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser("schema", help="print a table's Arrow schema with Iceberg field ids")
    p.add_argument("table")
    p.add_argument("--columns", type=_columns, help="comma-separated columns")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser("snapshots", help="list a table's snapshots")
    p.add_argument("table")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser("refs", help="list a table's branches and tags")
    p.add_argument("table")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser("plan", help="plan a scan and print its statistics and endpoints as JSON")
    _scan_options(p)
    p = sub.add_parser("read", help="read a table to a Parquet, CSV or Arrow file (CSV on stdout by default)")
    _scan_options(p)
    _output_options(p)
    p = sub.add_parser("inspect", help="read one of a table's metadata tables (files, snapshots, entries ...) as CSV or to a file")
    _scan_options(p)
    p.add_argument("kind", help="the metadata table: snapshots, history, refs, manifests, all_manifests, files, data_files, delete_files, "
                   "all_files, all_data_files, all_delete_files, entries, all_entries, partitions, metadata_log_entries")
    _output_options(p)
    add_write_commands(sub)
    return parser


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", default="-", help="output file: .parquet, .csv, .arrow/.feather; - for CSV on stdout")
    p.add_argument("--format", choices=["parquet", "csv", "arrow"], help="output format (default: from the file name)")
    progress = p.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always print progress on stderr")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never print progress")


def _read_file(path: str | None) -> bytes | None:
    if not path:
        return None
    with open(path, "rb") as f:
        return f.read()


def _connect(args: argparse.Namespace) -> Client:
    return Client(
        args.server,
        token=args.token if not args.user else None,
        username=args.user or None,
        password=os.environ.get("ICEFLIGHT_PASSWORD", ""),
        tls_root_certs=_read_file(args.tls_root_certs),
        cert_chain=_read_file(args.tls_cert),
        private_key=_read_file(args.tls_key),
        headers=args.header or None,
        max_workers=args.workers,
    )


def _plan(client: Client, args: argparse.Namespace) -> Plan:
    return client.plan(
        args.table,
        columns=args.columns,
        filter=args.filter,
        snapshot_id=args.snapshot_id,
        as_of=args.as_of,
        ref=args.ref,
        limit=args.limit,
        metadata_table=getattr(args, "kind", None),
    )


def _print_json(obj: Any, out: IO[str]) -> None:
    json.dump(obj, out, indent=2, default=str)
    out.write("\n")


def _cmd_tables(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    names = client.tables()
    if args.json:
        _print_json(names, out)
        return
    for name in names:
        out.write(name + "\n")


def _field_id(field: pa.Field) -> str:
    md = field.metadata or {}
    return str(md.get(b"PARQUET:field_id", b"").decode())


def _cmd_schema(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    schema = client.schema(args.table, columns=args.columns)
    if args.json:
        _print_json([{"id": _field_id(f), "name": f.name, "type": str(f.type), "nullable": f.nullable} for f in schema], out)
        return
    for f in schema:
        null = "" if f.nullable else " not null"
        out.write(f"{_field_id(f):>4}  {f.name}: {f.type}{null}\n")


def _cmd_snapshots(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    snaps = client.snapshots(args.table)
    if args.json:
        _print_json([dataclasses.asdict(s) for s in snaps], out)
        return
    out.write(f"{'snapshot_id':<20}  {'committed (UTC)':<23}  {'operation':<9}  {'parent_id':<20}  {'records':>9}\n")
    for s in snaps:
        parent = "-" if s.parent_id is None else str(s.parent_id)
        records = s.summary.get("total-records", "")
        mark = "  current" if s.current else ""
        when = s.timestamp.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        out.write(f"{s.snapshot_id:<20}  {when:<23}  {s.operation:<9}  {parent:<20}  {records:>9}{mark}\n")


def _cmd_refs(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    refs = client.refs(args.table)
    if args.json:
        _print_json({name: dataclasses.asdict(r) for name, r in refs.items()}, out)
        return
    for name in sorted(refs):
        out.write(f"{name:<20}  {refs[name].type:<6}  {refs[name].snapshot_id}\n")


def _cmd_plan(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    plan = _plan(client, args)
    stats = dataclasses.asdict(plan.statistics)
    stats.update(stats.pop("extra"))
    endpoints = []
    for i, ep in enumerate(plan.endpoints):
        md = plan.endpoint_metadata(i)
        md["locations"] = [location_uri(loc) for loc in ep.locations]
        endpoints.append(md)
    _print_json({"table": plan.table, "statistics": stats, "schema": plan.schema.names, "endpoints": endpoints}, out)


def _cmd_read(client: Client, args: argparse.Namespace, out: IO[str]) -> None:
    plan = _plan(client, args)
    progress = Progress(sys.stderr, args.progress)
    with open_writer(args.output, args.format, plan.schema, out) as writer, plan.streams() as streams:
        for _, batch in streams:
            writer.write_batch(batch)
            progress.update(batch.num_rows, batch.nbytes)
    progress.finish()


_COMMANDS = {
    "tables": _cmd_tables,
    "schema": _cmd_schema,
    "snapshots": _cmd_snapshots,
    "refs": _cmd_refs,
    "plan": _cmd_plan,
    "read": _cmd_read,
    "inspect": _cmd_read,
    **WRITE_COMMANDS,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``iceflight`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 on an error from the server or a file, 2 for bad
        usage, 130 when interrupted.
    """
    args = build_parser().parse_args(argv)
    try:
        with _connect(args) as client:
            _COMMANDS[args.command](client, args, sys.stdout)
    except KeyboardInterrupt:
        sys.stderr.write("\niceflight: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (iceflight read T | head).
        sys.stderr.close()
        return 1
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        sys.stderr.write(f"iceflight: error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
