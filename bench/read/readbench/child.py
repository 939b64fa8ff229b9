"""One peer's reads of one case, in a process of its own so that its peak RSS is its own.

``python -m readbench.child PEER CASE --root DIR --runs N [--location URL] [--s3 ENDPOINT]
[--catalog NAME]`` reads the case
once untimed (warm-up), then N timed times, and prints one JSON object on stdout:
``{"seconds": [...], "cpu_seconds": [...], "rows": N, "nbytes": N, "endpoints": N,
"peak_rss_mb": X}``. ``cpu_seconds`` are this process's user + system CPU seconds (all its
threads, ``getrusage(RUSAGE_SELF)``) over each timed run.

Peers:

- ``iceflight``: ``iceflight.connect(URL).read(table, filter=...)`` (GetFlightInfo, then
  every endpoint's DoGet in parallel, concatenated into one pyarrow.Table);
- ``iceflight-dict``: the same with ``dictionary=True`` (dictionary pass-through; exits
  with "client has no dictionary option" when the installed client does not take the
  keyword);
- ``transport``: the same client call against the bare Flight server of ``transport.py``;
- ``adbc``: ADBC's Flight SQL driver on the same flightd, ``SELECT * FROM table [WHERE ...]``
  with ``cursor.fetch_arrow_table()`` (the driver opens every endpoint at once and drains them
  in order, each behind a queue of 5 batches);
- ``adbc-queue``: the same with ``adbc.rpc.result_queue_size`` 200, so the endpoints not being
  drained keep streaming;
- ``iceflight-zstd``: ``iceflight``'s reads, run against a flightd with ``--ipc-compression zstd``;
- ``adbc-alias-zstd``: ``adbc-queue``'s reads of every column renamed (``SELECT "c" AS "c_"``,
  which the Flight SQL front end streams itself, renamed) against that flightd: its bytes sent
  per read beside ``iceflight-zstd``'s show the two front ends on one sink, compression
  included;
- ``pyiceberg``: ``catalog.load_table(table).scan(row_filter=...).to_arrow()``;
- ``pyarrow``: ``pyarrow.parquet.read_table(files, filters=..., use_threads=True)`` over the
  data files PyIceberg plans for the case (listed before the clock starts): its CPU seconds
  are pyarrow's decode CPU for the case.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from . import cases, dataset, procs, s3


def data_files(root: Path, case: cases.Case, s3_endpoint: str | None = None) -> list[str]:
    """Return the data files PyIceberg plans for the case: local paths, or ``bucket/key``."""
    storage = None if s3_endpoint is None else s3.props(s3_endpoint)
    table = dataset.catalog(root, storage).load_table(case.table)
    tasks = table.scan(row_filter=case.pyiceberg_filter()).plan_files()
    return [t.file.file_path.removeprefix("file://").removeprefix("s3://") for t in tasks]


def _reader(args: argparse.Namespace, case: cases.Case) -> Callable[[], Any]:
    peer, root, location = args.peer, args.root, args.location
    if peer in ("iceflight", "iceflight-zstd", "transport"):
        import iceflight

        if location is None:
            raise SystemExit("--location is required for " + peer)
        client = iceflight.connect(location)
        name = case.table if args.catalog is None else f"{args.catalog}.{case.table}"
        return lambda: client.read(name, filter=case.iceflight_filter)
    if peer == "iceflight-dict":
        import iceflight

        if location is None:
            raise SystemExit("--location is required for " + peer)
        dict_client = iceflight.connect(location)
        name = case.table if args.catalog is None else f"{args.catalog}.{case.table}"

        def read_dictionary() -> pa.Table:
            try:
                return dict_client.read(name, filter=case.iceflight_filter, dictionary=True)
            except TypeError as err:  # a client from before the option: no such keyword
                if "dictionary" in str(err):
                    raise SystemExit("client has no dictionary option") from err
                raise

        return read_dictionary
    if peer in ("adbc", "adbc-queue", "adbc-alias-zstd"):
        from adbc_driver_flightsql import dbapi

        if location is None:
            raise SystemExit("--location is required for " + peer)
        conn = dbapi.connect(location)
        name = case.table if args.catalog is None else f"{args.catalog}.{case.table}"
        where = f" WHERE {case.iceflight_filter}" if case.iceflight_filter else ""
        columns = "*"
        if peer == "adbc-alias-zstd":
            storage = None if args.s3 is None else s3.props(args.s3)
            names = dataset.catalog(root, storage).load_table(case.table).schema().column_names
            columns = ", ".join(f'"{c}" AS "{c}_"' for c in names)
        sql = f"SELECT {columns} FROM {name}{where}"

        def read() -> pa.Table:
            with conn.cursor() as cur:
                if peer in ("adbc-queue", "adbc-alias-zstd"):
                    cur.adbc_statement.set_options(**{"adbc.rpc.result_queue_size": "200"})
                cur.execute(sql)
                return cur.fetch_arrow_table()

        return read
    if peer == "pyiceberg":
        storage = None if args.s3 is None else s3.props(args.s3)
        catalog = dataset.catalog(root, storage)
        row_filter = case.pyiceberg_filter()
        return lambda: catalog.load_table(case.table).scan(row_filter=row_filter).to_arrow()
    if peer == "pyarrow":
        import pyarrow.parquet as pq

        files = data_files(root, case, args.s3)
        fs = None if args.s3 is None else s3.filesystem(args.s3)
        expr = case.pyarrow_filter()
        # partitioning=None: the default, "hive", would add a column l_shipdate_day from the
        # daily table's data/l_shipdate_day=.../ folders, which no other peer returns.
        return lambda: pq.read_table(
            files, filters=expr, use_threads=True, filesystem=fs, partitioning=None
        )
    raise SystemExit(f"unknown peer {peer}")


def peak_rss_mb() -> float | None:
    """Return this process's peak RSS (VmHWM), which, unlike ``ru_maxrss``, exec resets."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return None


def main() -> None:
    """Parse arguments, read, print the JSON result."""
    parser = argparse.ArgumentParser(prog="readbench.child")
    parser.add_argument("peer")
    parser.add_argument("case")
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--location")
    parser.add_argument("--s3", metavar="ENDPOINT", help="read the copy on this S3 gateway (s3.py)")
    parser.add_argument("--catalog", help="iceflight's catalog name, prefixed to the table")
    args = parser.parse_args()
    case = cases.by_name(args.case)
    read = _reader(args, case)
    seconds: list[float] = []
    cpu: list[float] = []
    result: pa.Table | None = None
    endpoints = 0
    for run in range(args.runs + 1):
        result = None  # let the previous result go before the next read
        cpu_start = procs.self_cpu_seconds()
        start = time.perf_counter()
        result = read()
        if run > 0:
            seconds.append(time.perf_counter() - start)
            cpu.append(procs.self_cpu_seconds() - cpu_start)
    assert result is not None
    flightd_peers = ("iceflight", "iceflight-dict", "iceflight-zstd", "transport")
    if args.peer in flightd_peers or args.peer.startswith("adbc"):
        import iceflight

        name = case.table if args.catalog is None else f"{args.catalog}.{case.table}"
        plan = iceflight.connect(args.location).plan(name, filter=case.iceflight_filter)
        endpoints = len(plan.endpoints)
    json.dump(
        {
            "seconds": seconds,
            "cpu_seconds": cpu,
            "rows": result.num_rows,
            "nbytes": result.nbytes,
            "endpoints": endpoints,
            "peak_rss_mb": peak_rss_mb(),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
