"""Entry point: ``python -m deletebench --flightd PATH`` from the bench/deletes/ folder."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pyarrow

from .dataset import Dataset, Shape, ensure_dataset, log
from .report import Result, render
from .scan import Flightd, Scan

DELETES_DIR = Path(__file__).resolve().parent.parent
BENCH_DIR = DELETES_DIR.parent


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="deletebench",
        description="Full-scan throughput of tables with 1%% deleted rows against a plain one.",
    )
    parser.add_argument("--flightd", type=Path, default=BENCH_DIR.parent / "bin" / "flightd")
    parser.add_argument("--rows", type=int, default=Shape.rows, help="rows per table")
    parser.add_argument("--files", type=int, default=Shape.files, help="data files per table")
    parser.add_argument("--deleted-rows", type=int, default=Shape.deleted_rows)
    parser.add_argument("--equality-files", type=int, default=Shape.equality_files)
    parser.add_argument("--runs", type=int, default=5, help="timed scans per table")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "deletes.md")
    return parser.parse_args(argv)


def measure(binary: Path, data: Dataset, runs: int) -> list[Result]:
    """Scan every table once untimed (checking rows and ids), then `runs` times, interleaved.

    The timed scans go round robin over the tables, so that a slow spell of the shared
    machine falls on all of them rather than on one.
    """
    results: dict[str, tuple[Scan, list[Scan]]] = {}
    with Flightd(binary, data.warehouse) as server:
        for t in data.tables:
            check = server.scan(t.identifier, check=True)
            log(f"{t.identifier}: warm-up read {check.rows:,} rows in {check.seconds:.2f} s")
            results[t.name] = (check, [])
        for i in range(runs):
            for t in data.tables:
                s = server.scan(t.identifier)
                results[t.name][1].append(s)
                log(f"{t.identifier}: run {i + 1}/{runs}: {s.rows:,} rows in {s.seconds:.2f} s")
    return [Result(t, *results[t.name]) for t in data.tables]


def preamble(args: argparse.Namespace, data: Dataset, load: str) -> str:
    """Describe what was measured where, for the results file."""
    shape = data.shape
    return (
        "\n".join(
            [
                "# Reading row-level deletes: iceflight full scans against a table without",
                "",
                f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
                f"iceflight {git_revision()}; pyarrow {pyarrow.__version__} client",
                f"- machine: {cpu_model()}, {os.cpu_count()} cores (client and server share "
                f"them), {platform.system()} {platform.release()}, load average {load} at the "
                "start",
                f"- tables: the same {shape.rows:,} rows (id, category, amount, ts, note) in "
                f"{shape.files} Parquet data files, format v2, written by Iceberg Java 1.12; "
                f"the delete tables delete the same {shape.deleted_rows:,} rows "
                f"({shape.deleted_rows / shape.rows:.0%}), spread over every data file",
                "- one scan = GetFlightInfo + a DoGet per endpoint, each in its own client "
                "thread, all columns, every batch drained; one flightd process, after one "
                f"untimed scan per table; median of {args.runs} scans per table, interleaved",
            ]
        )
        + "\n\n"
    )


def git_revision() -> str:
    """Return the short commit of the work tree, marked when it has local changes."""
    try:
        return subprocess.run(
            ["git", "-C", str(BENCH_DIR), "describe", "--always", "--dirty"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "(unknown revision)"


def cpu_model() -> str:
    """Return the processor's model name from /proc/cpuinfo, where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """Return the 1-minute load average: other work on the 2 cores skews every figure."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def main(argv: list[str]) -> int:
    """Generate the tables if needed, scan each, print and save the table.

    Exits with status 1 when iceflight's rows differ from Iceberg Java's: the timings of a
    wrong answer mean nothing.
    """
    args = parse_args(argv)
    if not args.flightd.is_file():
        log(f"{args.flightd} not found: run `make build` first")
        return 2
    start = time.monotonic()
    shape = Shape(args.rows, args.files, args.deleted_rows, args.equality_files)
    data = ensure_dataset(BENCH_DIR, DELETES_DIR / "gen", shape)
    load = load_average()
    results = measure(args.flightd, data, args.runs)
    text = preamble(args, data, load) + render(results)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    log(f"wrote {args.out} in {time.monotonic() - start:.0f} s")
    return 1 if any(r.problems() for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
