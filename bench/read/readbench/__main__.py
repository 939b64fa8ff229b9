"""``python -m readbench``: generate (once) and read the three tables with every peer.

Run from bench/read (``make bench`` does). Prints the Markdown table and writes it to
bench/results/read.md, with every figure in bench/results/latest.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path

from . import cases, dataset, procs
from .report import Result, render

HERE = Path(__file__).resolve().parent.parent  # bench/read
BENCH = HERE.parent


def main() -> None:
    """Parse arguments, run every case, print and write the results."""
    p = argparse.ArgumentParser(prog="readbench", description=__doc__)
    p.add_argument("--flightd", type=Path, required=True, help="the flightd binary")
    p.add_argument(
        "--icebergo",
        type=Path,
        default=BENCH / ".data" / "bin" / "icebergo",
        help="the iceberg-go peer binary (skipped when absent)",
    )
    p.add_argument(
        "--root",
        type=Path,
        default=BENCH / ".data" / "read",
        help="where the tables and their sqlite catalog are generated",
    )
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--big-files", type=int, default=8)
    p.add_argument("--small-file-rows", type=int, default=5_000)
    p.add_argument("--runs", type=int, default=3, help="timed runs per peer, after a warm-up")
    p.add_argument("--cases", default=",".join(c.name for c in cases.CASES))
    p.add_argument("--out", type=Path, default=BENCH / "results")
    args = p.parse_args()

    start = time.perf_counter()
    shape = dataset.Shape(args.rows, args.big_files, args.small_file_rows)
    tables = dataset.ensure(args.root, shape)
    gen_seconds = time.perf_counter() - start
    cached = not tables.generated
    _log(f"tables ready in {gen_seconds:.1f}s ({'cached' if cached else 'generated'})")

    results: list[Result] = []
    for name in args.cases.split(","):
        results += _run_case(cases.by_name(name), args, tables)
    case_bytes = {r.case: r.nbytes for r in results if r.peer == "pyarrow" and r.nbytes}
    total = time.perf_counter() - start

    header = _header(tables, cached, gen_seconds, total, args.runs)
    table = render(results, case_bytes)
    text = header + "\n" + table
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "read.md").write_text(text)
    (args.out / "latest.json").write_text(
        json.dumps(
            {
                "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "machine": _machine(),
                "shape": {
                    "rows": shape.rows,
                    "big_files": shape.big_files,
                    "small_file_rows": shape.small_file_rows,
                },
                "data_files": tables.files,
                "generation_seconds": tables.seconds,
                "cached": cached,
                "runs": args.runs,
                "total_seconds": total,
                "case_arrow_bytes": case_bytes,
                "results": [r.as_json() for r in results],
            },
            indent=2,
        )
        + "\n"
    )


def _run_case(case: cases.Case, args: argparse.Namespace, tables: dataset.Tables) -> list[Result]:
    child = [sys.executable, "-m", "readbench.child"]
    common = ["--root", str(args.root.resolve()), "--runs", str(args.runs)]
    out: list[Result] = []

    def peer(name: str, argv: list[str], server: procs.Server | None = None) -> Result:
        res = Result(case.name, name)
        _log(f"{case.name}: {name} ...")
        try:
            if server is None:
                data = procs.run_peer(argv, cwd=HERE)
            else:
                with server:
                    data = procs.run_peer(argv + ["--location", server.location], cwd=HERE)
                res.server_rss_mb = server.peak_rss_mb
        except (RuntimeError, OSError, ValueError) as err:
            res.failure = "error: " + str(err)[:100]
            _log(f"{case.name}: {name} failed: {err}")
            return res
        res.seconds, res.rows = data["seconds"], data["rows"]
        res.nbytes, res.endpoints = data.get("nbytes"), data.get("endpoints")
        res.client_rss_mb = data.get("peak_rss_mb")
        return res

    flightd = procs.Server(
        [
            str(args.flightd),
            "serve",
            "--warehouse",
            str(tables.warehouse),
            "--listen",
            "127.0.0.1:0",
            "--log-level",
            "warn",
        ]
    )
    ice = peer("iceflight", child + ["iceflight", case.name] + common, flightd)
    out.append(ice)
    out.append(peer("pyiceberg", child + ["pyiceberg", case.name] + common))
    out.append(peer("pyarrow", child + ["pyarrow", case.name] + common))
    if args.icebergo.exists():
        argv = [str(args.icebergo), "-metadata", _metadata(tables, case), "-runs", str(args.runs)]
        if case.one_day:
            argv += [
                "-date-column",
                "l_shipdate",
                "-from-day",
                str(case.day_number),
                "-to-day",
                str(case.day_number + 1),
            ]
        out.append(peer("icebergo", argv))
    else:
        out.append(Result(case.name, "icebergo", failure=f"skipped: {args.icebergo} not built"))
    # The bare server cuts its rows into as many endpoints as iceflight's plan had.
    endpoints = str(ice.endpoints or 4)
    transport = procs.Server(
        child[:2]
        + [
            "readbench.transport",
            case.name,
            "--root",
            str(args.root.resolve()),
            "--endpoints",
            endpoints,
        ],
        cwd=HERE,
    )
    out.append(peer("transport", child + ["transport", case.name] + common, transport))
    return out


def _metadata(tables: dataset.Tables, case: cases.Case) -> str:
    loc: str = dataset.catalog(tables.warehouse.parent).load_table(case.table).metadata_location
    return loc.removeprefix("file://")


def _machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = platform.python_version()
    return f"{os.cpu_count()} cores ({cpu}), Linux {platform.release()}, Python {python}"


def _header(tables: dataset.Tables, cached: bool, gen: float, total: float, runs: int) -> str:
    s = tables.shape
    made = ", ".join(f"{k} {v:.0f}s" for k, v in tables.seconds.items())
    files = ", ".join(f"{k} {v:,}" for k, v in tables.files.items())
    return "\n".join(
        [
            "# Read benchmark (`make bench`)",
            "",
            f"- {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {_machine()}",
            f"- {s.rows:,} rows per table; data files: {files}",
            f"- tables {'cached' if cached else 'generated in this run'} "
            f"(PyIceberg write times: {made}); this run took {total:.0f}s, "
            f"of which {gen:.0f}s preparing tables",
            f"- median of {runs} timed runs after one warm-up; MB/s = Arrow bytes of the "
            "case's result (pyarrow's `Table.nbytes`) / median time; time / iceflight above "
            "1 means iceflight is faster",
            "",
        ]
    )


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
