"""``python -m readbench``: generate (once) and read the three tables with every peer.

Run from bench/read (``make bench`` does). Prints the Markdown table and writes it to
bench/results/read.md, with every figure in bench/results/latest.json. With
``--storage s3`` (``make bench-s3``) the tables live on a versitygw S3 server instead
(s3.py), the table gains the requests each peer sent per data file, and the files are
read-s3.md and latest-s3.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from . import cases, child, dataset, procs, restplan, s3
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
        help="where the tables (local) or their sqlite catalog (s3) are generated "
        "(default bench/.data/read, or bench/.data/read-s3)",
    )
    p.add_argument(
        "--storage",
        choices=("local", "s3"),
        default="local",
        help="read the tables from local files, or from a versitygw S3 server",
    )
    p.add_argument(
        "--versitygw",
        type=Path,
        default=BENCH.parent / ".tools" / "versitygw-v1.8.0" / "versitygw",
        help="the versitygw program of --storage s3 (make servers-versitygw)",
    )
    p.add_argument(
        "--rest",
        type=Path,
        default=BENCH.parent / ".tools" / "rest" / "restserver",
        help="the REST catalog fixture of --storage s3's planning table (make servers-rest); "
        "skipped when absent",
    )
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--big-files", type=int, default=8)
    p.add_argument("--small-file-rows", type=int, default=5_000)
    p.add_argument("--runs", type=int, default=3, help="timed runs per peer, after a warm-up")
    p.add_argument("--cases", default=",".join(c.name for c in cases.CASES))
    p.add_argument("--out", type=Path, default=BENCH / "results")
    args = p.parse_args()
    on_s3 = args.storage == "s3"
    if args.root is None:
        args.root = BENCH / ".data" / ("read-s3" if on_s3 else "read")

    with ExitStack() as stack:
        gateway = None
        if on_s3:
            gateway = stack.enter_context(
                s3.Gateway(args.versitygw, args.root.parent / "read-s3-gw")
            )
            _log(f"versitygw on {gateway.endpoint}")
        _run(args, gateway)


def _run(args: argparse.Namespace, gateway: s3.Gateway | None) -> None:
    start = time.perf_counter()
    shape = dataset.Shape(args.rows, args.big_files, args.small_file_rows)
    if gateway is None:
        tables = dataset.ensure(args.root, shape)
    else:
        storage = s3.props(gateway.endpoint)
        tables = dataset.ensure(args.root, shape, storage, reset=gateway.empty_bucket)
    gen_seconds = time.perf_counter() - start
    cached = not tables.generated
    _log(f"tables ready in {gen_seconds:.1f}s ({'cached' if cached else 'generated'})")

    results: list[Result] = []
    for name in args.cases.split(","):
        results += _run_case(cases.by_name(name), args, tables, gateway)
    case_bytes = {r.case: r.nbytes for r in results if r.peer == "pyarrow" and r.nbytes}
    total = time.perf_counter() - start

    header = _header(tables, cached, gen_seconds, total, args.runs, gateway is not None)
    table = render(results, case_bytes, requests=gateway is not None)
    text = header + "\n" + table
    if gateway is not None:
        text += "\n" + _rest_section(args)
    print(text)
    suffix = "" if gateway is None else "-s3"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"read{suffix}.md").write_text(text)
    (args.out / f"latest{suffix}.json").write_text(
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


def _run_case(
    case: cases.Case, args: argparse.Namespace, tables: dataset.Tables, gateway: s3.Gateway | None
) -> list[Result]:
    childv = [sys.executable, "-m", "readbench.child"]
    common = ["--root", str(args.root.resolve()), "--runs", str(args.runs)]
    on_s3 = [] if gateway is None else ["--s3", gateway.endpoint]
    files = None
    if gateway is not None:
        files = len(child.data_files(args.root, case, gateway.endpoint))
    out: list[Result] = []

    def peer(name: str, argv: list[str], server: procs.Server | None = None) -> Result:
        res = Result(case.name, name)
        _log(f"{case.name}: {name} ...")
        mark = 0 if gateway is None else gateway.mark()
        try:
            if server is None:
                data = procs.run_peer(argv, cwd=HERE)
            else:
                with server:
                    data = procs.run_peer(argv + ["--location", server.location], cwd=HERE)
                res.server_rss_mb = server.peak_rss_mb
                # Per read the peer made: the warm-up and the timed runs.
                reads = args.runs + 1
                if server.cpu_seconds is not None:
                    res.server_cpu_s = server.cpu_seconds / reads
                if server.written_bytes is not None:
                    res.server_sent_mb = server.written_bytes / reads / 1e6
        except (RuntimeError, OSError, ValueError) as err:
            res.failure = "error: " + str(err)[:100]
            _log(f"{case.name}: {name} failed: {err}")
            return res
        res.seconds, res.rows = data["seconds"], data["rows"]
        res.nbytes, res.endpoints = data.get("nbytes"), data.get("endpoints")
        res.client_rss_mb = data.get("peak_rss_mb")
        if "cpu_seconds" in data:
            res.client_cpu_seconds = data["cpu_seconds"]
            if res.client_cpu_seconds:
                res.client_cpu_s = statistics.median(res.client_cpu_seconds)
        else:  # iceberg-go: the whole process's CPU over its reads, warm-up included
            res.client_cpu_s = data["process_cpu_seconds"] / (args.runs + 1)
        if gateway is not None:
            res.requests = gateway.requests_since(mark)
            res.reads, res.files = args.runs + 1, files
        return res

    serve = [str(args.flightd), "serve", "--listen", "127.0.0.1:0", "--log-level", "warn"]
    ice_args = []
    if gateway is None:
        serve += ["--warehouse", str(tables.warehouse)]
    else:
        serve += ["--config", str(_flightd_config(args.root, gateway))]
        ice_args = ["--catalog", FLIGHTD_CATALOG]
    ice = peer(
        "iceflight", childv + ["iceflight", case.name] + common + ice_args, procs.Server(serve)
    )
    out.append(ice)
    if gateway is None:
        # The same reads against a flightd whose Go code runs on one core at a time.
        one_core = procs.Server(serve, env={"GOMAXPROCS": "1"})
        argv = childv + ["iceflight", case.name] + common + ice_args
        out.append(peer("iceflight-1core", argv, one_core))
    else:
        out.append(Result(case.name, "iceflight-1core", failure="not run on S3: local only"))
    if case.name == "big":
        # Dictionary pass-through, read(..., dictionary=True): the big case only.
        argv = childv + ["iceflight-dict", case.name] + common + ice_args
        out.append(peer("iceflight-dict", argv, procs.Server(serve)))
    for name in ("adbc", "adbc-queue"):
        out.append(peer(name, childv + [name, case.name] + common + ice_args, procs.Server(serve)))
    # One sink for both front ends: a read renamed by Flight SQL sends what the plain
    # protocol sends, compressed alike.
    zstd = serve + ["--ipc-compression", "zstd"]
    for name in ("iceflight-zstd", "adbc-alias-zstd"):
        out.append(peer(name, childv + [name, case.name] + common + ice_args, procs.Server(zstd)))
    out.append(peer("pyiceberg", childv + ["pyiceberg", case.name] + common + on_s3))
    out.append(peer("pyarrow", childv + ["pyarrow", case.name] + common + on_s3))
    if args.icebergo.exists():
        metadata = _metadata(args.root, case, gateway)
        argv = [str(args.icebergo), "-metadata", metadata, "-runs", str(args.runs)]
        if gateway is not None:
            for k, v in s3.props(gateway.endpoint).items():
                if k.startswith("s3."):
                    argv += ["-prop", f"{k}={v}"]
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
    if gateway is not None:
        # Its rows are in memory before it listens: storage changes nothing for it.
        out.append(Result(case.name, "transport", failure="not run on S3: serves from memory"))
        return out
    # The bare server cuts its rows into as many endpoints as iceflight's plan had.
    endpoints = str(ice.endpoints or 4)
    transport = procs.Server(
        childv[:2]
        + [
            "readbench.transport",
            case.name,
            "--root",
            str(args.root.resolve()),
            "--endpoints",
            endpoints,
        ],
        cwd=HERE,
        counts_writes=False,  # gRPC C++ sends with sendmsg(2), which wchar does not count
    )
    out.append(peer("transport", childv + ["transport", case.name] + common, transport))
    return out


def _rest_section(args: argparse.Namespace) -> str:
    if not args.rest.exists():
        return f"REST planning skipped: {args.rest} not installed (make servers-rest)\n"
    _log("planning through the REST catalog ...")
    try:
        return restplan.measure(args.flightd, args.rest, args.root)
    except (RuntimeError, OSError) as err:
        return f"REST planning failed: {err}\n"


#: The catalog flightd mounts the S3 tables' SQL catalog under: tables are s3.bench.NAME.
FLIGHTD_CATALOG = "s3"


def _flightd_config(root: Path, gateway: s3.Gateway) -> Path:
    """Write flightd's --config: PyIceberg's own SQL catalog of the S3 tables, on the gateway."""
    props = s3.props(gateway.endpoint) | {
        "type": "sql",
        "uri": f"sqlite:///{root.resolve() / 'catalog.db'}",
        "catalog_name": "bench",
    }
    del props["py-io-impl"]
    lines = ["catalogs:", f"  {FLIGHTD_CATALOG}:"] + [
        f"    {k}: {json.dumps(v)}" for k, v in sorted(props.items())
    ]
    path = root / "flightd.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _metadata(root: Path, case: cases.Case, gateway: s3.Gateway | None) -> str:
    storage = None if gateway is None else s3.props(gateway.endpoint)
    loc: str = dataset.catalog(root, storage).load_table(case.table).metadata_location
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


def _header(
    tables: dataset.Tables, cached: bool, gen: float, total: float, runs: int, on_s3: bool
) -> str:
    s = tables.shape
    made = ", ".join(f"{k} {v:.0f}s" for k, v in tables.seconds.items())
    files = ", ".join(f"{k} {v:,}" for k, v in tables.files.items())
    where = [
        "- tables on S3: versitygw 1.8.0 (posix back end, a connection per request) on loopback, "
        "written there by PyIceberg's S3 FileIO; every peer reads the same objects; "
        "requests counted from the gateway's access log, per read (the warm-up and every "
        "timed run), divided by the data files the case reads"
    ]
    return "\n".join(
        [
            "# Read benchmark on S3 (`make bench-s3`)"
            if on_s3
            else "# Read benchmark (`make bench`)",
            "",
            f"- {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {_machine()}",
            f"- {s.rows:,} rows per table; data files: {files}",
            f"- tables {'cached' if cached else 'generated in this run'} "
            f"(PyIceberg write times: {made}); this run took {total:.0f}s, "
            f"of which {gen:.0f}s preparing tables",
            f"- median of {runs} timed runs after one warm-up; MB/s = Arrow bytes of the "
            "case's result (pyarrow's `Table.nbytes`) / median time; time / iceflight above "
            "1 means iceflight is faster",
            "- server CPU s/read = the server process's user + system CPU seconds "
            "(/proc/PID/stat) from its listening to its stop / the peer's reads (warm-up + timed "
            "runs); client CPU s/read = the peer process's own (getrusage), median of the timed "
            "runs (iceberg-go: its whole process / its reads); sent MB/read = the server's "
            "write(2) bytes (/proc/PID/io wchar) / reads",
        ]
        + (where if on_s3 else [])
        + [""]
    )


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
