"""Append N rows of lineitem through iceflight, PyIceberg and iceberg-go; delete 1% by filter.

Run from the repository root with ``make bench-write`` (``BENCH_WRITE_ARGS=--rows 1000000``
for a quick look). The rows are the read benchmark's lineitem (bench/read/readbench/
dataset.py), generated once into a Parquet file under bench/.data/write/ so that every
peer reads the same bytes from disk in batches; generating them is not timed.

- iceflight: a fresh ``flightd serve --warehouse`` per run; the client creates the table
  with the ``create_table`` action and streams the file's batches in one DoPut (one
  commit), through the Python client's ``append`` when it has one, else through pyarrow
  Flight with the same command. flightd's peak RSS (VmHWM) is read before it stops.
- PyIceberg: a SqlCatalog on SQLite; the batches are appended in ``--pyiceberg-chunk``
  row chunks inside one transaction (one commit; PyIceberg's ``append`` takes a whole
  pa.Table, so a chunk at a time bounds its memory as iceflight's stream does).
- iceberg-go (``--icebergo BIN``, bench/peers/icebergo ``-write``): the same file, one
  ``AppendTable`` commit.
- bare DoPut sink (``writebench/sink.py``): the same batches through pyarrow Flight to a
  server that reads the stream and drops it: what reading the file and sending it costs
  the client, the floor under any DoPut append on this machine.
- CPU: flightd's user + system seconds over the append (``/proc/PID/stat``), the client's
  (``getrusage`` of this process) beside it; PyIceberg's and iceberg-go's whole process.
- delete: ``l_orderkey < K`` where K leaves 1% of the rows matching (l_orderkey rises with
  the row number), on the table each peer wrote: iceflight's ``delete`` action vs
  PyIceberg's ``Table.delete``.

Nothing asserts on time. The report (Markdown) goes to stdout and ``--out``.
"""

from __future__ import annotations

import argparse
import base64
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "read"))
from readbench import dataset, procs  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "bench" / ".data" / "write"


def _log(msg: str) -> None:
    print(f"[writebench] {msg}", file=sys.stderr, flush=True)


def source(rows: int) -> Path:
    """The lineitem rows as one Parquet file, written the first time."""
    path = DATA / f"lineitem-{rows}.parquet"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    shape = dataset.Shape(rows=rows, big_files=1, small_file_rows=rows)
    with pq.ParquetWriter(tmp, dataset.SCHEMA) as w:
        for t in dataset.rows(shape, max(1, rows // 500_000)):
            w.write_table(t)
    tmp.rename(path)
    return path


def batches(path: Path, size: int = 131_072) -> pa.RecordBatchReader:
    f = pq.ParquetFile(path)
    return pa.RecordBatchReader.from_batches(f.schema_arrow, f.iter_batches(batch_size=size))


def delete_bound(rows: int) -> int:
    """K such that l_orderkey < K holds for 1% of the rows (l_orderkey = row // 4 + 1)."""
    return (rows // 100) // 4 + 1


def put_batches(client: fl.FlightClient, path: Path) -> pa.Buffer | None:
    """Append the file's batches with one pyarrow Flight DoPut; return the PutResult's metadata."""
    rdr = batches(path)
    desc = fl.FlightDescriptor.for_command(json.dumps({"table": "bench.lineitem", "mode": "append"}))
    writer, meta = client.do_put(desc, rdr.schema)
    for b in rdr:
        writer.write_batch(b)
    writer.done_writing()
    buf = meta.read()
    writer.close()
    return buf


def cpu_delta(before: float | None, after: float | None) -> float | None:
    """after - before, or None when either reading failed."""
    return after - before if before is not None and after is not None else None


def run_iceflight(flightd: str, path: Path, rows: int) -> dict[str, Any]:
    wh = Path(tempfile.mkdtemp(prefix="writebench-iceflight-"))
    try:
        port = procs.free_port()
        with procs.Server([flightd, "serve", "--warehouse", str(wh), "--listen", f"127.0.0.1:{port}", "--log-level", "error"]) as srv:
            client = fl.connect(srv.location)
            schema_b64 = base64.b64encode(dataset.SCHEMA.serialize().to_pybytes()).decode()
            for kind, body in (("create_namespace", {"namespace": "bench"}), ("create_table", {"table": "bench.lineitem", "schema": schema_b64})):
                list(client.do_action(fl.Action(kind, json.dumps(body).encode())))
            via = "pyarrow.flight DoPut"
            assert srv.pid is not None
            server_cpu0 = procs.cpu_seconds(srv.pid)
            client_cpu0 = procs.self_cpu_seconds()
            t0 = time.perf_counter()
            try:
                from iceflight import Client  # type: ignore[import-not-found]

                ic = Client(srv.location)
                if not hasattr(ic, "append"):
                    raise ImportError("no append")
                ic.append("bench.lineitem", batches(path))
                via = "iceflight.Client.append"
            except ImportError:
                buf = put_batches(client, path)
                _log(f"iceflight append: {bytes(buf) if buf is not None else b''!r}")
            append_s = time.perf_counter() - t0
            client_cpu = procs.self_cpu_seconds() - client_cpu0
            server_cpu = cpu_delta(server_cpu0, procs.cpu_seconds(srv.pid))
            t0 = time.perf_counter()
            body = {"table": "bench.lineitem", "filter": f"l_orderkey < {delete_bound(rows)}"}
            out = [r.body.to_pybytes() for r in client.do_action(fl.Action("delete", json.dumps(body).encode()))]
            delete_s = time.perf_counter() - t0
            _log(f"iceflight delete: {out[:1]!r}")
        return {"append_s": append_s, "delete_s": delete_s, "peak_rss_mb": srv.peak_rss_mb, "via": via,
                "server_cpu": server_cpu, "client_cpu": client_cpu}
    finally:
        shutil.rmtree(wh, ignore_errors=True)


def run_pyiceberg(path: Path, rows: int, chunk: int) -> dict[str, Any]:
    from pyiceberg.catalog.sql import SqlCatalog

    wh = Path(tempfile.mkdtemp(prefix="writebench-pyiceberg-"))
    try:
        cat = SqlCatalog("bench", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
        cat.create_namespace("bench")
        table = cat.create_table("bench.lineitem", schema=dataset.SCHEMA)
        cpu0 = procs.self_cpu_seconds()
        t0 = time.perf_counter()
        tx = table.transaction()
        pending: list[pa.RecordBatch] = []
        n = 0
        for b in batches(path):
            pending.append(b)
            n += b.num_rows
            if n >= chunk:
                tx.append(pa.Table.from_batches(pending))
                pending, n = [], 0
        if pending:
            tx.append(pa.Table.from_batches(pending))
        tx.commit_transaction()
        append_s = time.perf_counter() - t0
        cpu = procs.self_cpu_seconds() - cpu0
        table = cat.load_table("bench.lineitem")
        t0 = time.perf_counter()
        table.delete(f"l_orderkey < {delete_bound(rows)}")
        delete_s = time.perf_counter() - t0
        return {"append_s": append_s, "delete_s": delete_s, "cpu": cpu}
    finally:
        shutil.rmtree(wh, ignore_errors=True)


def run_icebergo(binary: str, path: Path) -> dict[str, Any]:
    wh = Path(tempfile.mkdtemp(prefix="writebench-icebergo-"))
    try:
        return procs.run_peer([binary, "-write", str(path), "-warehouse", str(wh)])
    finally:
        shutil.rmtree(wh, ignore_errors=True)


def run_sink(path: Path) -> dict[str, Any]:
    """DoPut the batches to the bare sink; return the time and both sides' CPU."""
    argv = [sys.executable, "-m", "writebench.sink"]
    with procs.Server(argv, cwd=Path(__file__).resolve().parents[1]) as srv:
        assert srv.pid is not None
        client = fl.connect(srv.location)
        server_cpu0, client_cpu0 = procs.cpu_seconds(srv.pid), procs.self_cpu_seconds()
        t0 = time.perf_counter()
        put_batches(client, path)
        seconds = time.perf_counter() - t0
        client_cpu = procs.self_cpu_seconds() - client_cpu0
        server_cpu = cpu_delta(server_cpu0, procs.cpu_seconds(srv.pid))
        client.close()
    return {"append_s": seconds, "server_cpu": server_cpu, "client_cpu": client_cpu}


def _cpu(v: float | None) -> str:
    return f"{v:.1f}" if v is not None else "–"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a and b else "–"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flightd", required=True)
    ap.add_argument("--icebergo", default="")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--pyiceberg-chunk", type=int, default=1_000_000)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "write.md"))
    args = ap.parse_args()

    _log(f"source: {args.rows:,} rows")
    path = source(args.rows)
    _log("iceflight")
    ice = run_iceflight(args.flightd, path, args.rows)
    _log("PyIceberg")
    py = run_pyiceberg(path, args.rows, args.pyiceberg_chunk)
    _log("bare DoPut sink")
    sink = run_sink(path)
    go: dict[str, Any] = {}
    if args.icebergo and Path(args.icebergo).exists():
        _log("iceberg-go")
        try:
            go = run_icebergo(args.icebergo, path)
        except RuntimeError as e:
            go = {"error": str(e)}
    lines = [
        f"# write benchmark: {args.rows:,} lineitem rows ({path.stat().st_size / 2**20:.0f} MiB of Parquet)",
        "",
        f"{platform.machine()}, {platform.system()} {platform.release()}, Python {platform.python_version()}, pyarrow {pa.__version__}",
        "",
        "| peer | append s | rows/s | server CPU-s | client CPU-s | delete 1% s | peak RSS MiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| iceflight ({ice['via']}) | {ice['append_s']:.2f} | {args.rows / ice['append_s']:,.0f} | {_cpu(ice['server_cpu'])} | {_cpu(ice['client_cpu'])} | {ice['delete_s']:.2f} | {ice['peak_rss_mb'] or 0:.0f} (flightd) |",
        f"| PyIceberg | {py['append_s']:.2f} | {args.rows / py['append_s']:,.0f} | – | {_cpu(py['cpu'])} | {py['delete_s']:.2f} | – |",
    ]
    if go.get("seconds"):
        s = go["seconds"][0]
        lines.append(f"| iceberg-go | {s:.2f} | {args.rows / s:,.0f} | – | {_cpu(go.get('process_cpu_seconds'))} (process) | – | {go.get('peak_rss_mb', 0):.0f} |")
    elif go:
        lines.append(f"| iceberg-go | error: {go.get('error')} | | | | | |")
    lines.append(
        f"| bare DoPut sink (transport limit) | {sink['append_s']:.2f} | {args.rows / sink['append_s']:,.0f} | {_cpu(sink['server_cpu'])} | {_cpu(sink['client_cpu'])} | – | – |"
    )
    lines += [
        "",
        f"append: PyIceberg / iceflight = {_ratio(py['append_s'], ice['append_s'])} (goal ≥ 2×)"
        + (f", iceberg-go / iceflight = {_ratio(go['seconds'][0], ice['append_s'])}" if go.get("seconds") else ""),
        f"client and transport alone (bare sink): PyIceberg / sink = {_ratio(py['append_s'], sink['append_s'])}",
        f"delete 1%: PyIceberg / iceflight = {_ratio(py['delete_s'], ice['delete_s'])}",
        f"flightd peak RSS: {ice['peak_rss_mb'] or 0:.0f} MiB (goal < 512 MiB)",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
