"""Entry point: ``python -m planbench.huge --flightd PATH`` from the bench/ folder."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path

import pyarrow
import pyiceberg

import benchkit

from ..cases import CASES
from ..machine import describe, git_revision, load_average
from . import clusterpeer, flightpeer, javapeer, pyicebergpeer
from .dataset import TABLE_NAME, HugeShape, HugeTable, ensure_huge_table
from .guard import GIB
from .report import HugeRow, render

BENCH_DIR = Path(__file__).resolve().parent.parent.parent


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="planbench.huge",
        description="Scan planning of a 10-million-file table: iceflight, Iceberg Java, PyIceberg.",
    )
    parser.add_argument("--flightd", type=Path, default=BENCH_DIR.parent / "bin" / "flightd")
    parser.add_argument("--files", type=int, default=10_000_000, help="data files in the table")
    parser.add_argument("--manifests", type=int, default=10_000, help="manifests (one day each)")
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 2, help="generator threads"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds each peer may plan one case"
    )
    parser.add_argument(
        "--memory-limit-gib", type=float, default=6.0, help="kill a peer above this peak RSS"
    )
    parser.add_argument(
        "--flightpoll", type=Path, default=None,
        help="bench/peers/flightpoll, built: times PollFlightInfo, which pyarrow lacks",
    )
    parser.add_argument("--iceflight-warm-runs", type=int, default=2)
    parser.add_argument("--java-warm-runs", type=int, default=1)
    parser.add_argument(
        "--data-dir", type=Path, default=BENCH_DIR / ".data", help="where the table is cached"
    )
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "plan-huge.md")
    return parser.parse_args(argv)


def run_cases(
    args: argparse.Namespace, table: HugeTable, jar: Path, tickets: bool
) -> list[HugeRow]:
    """Measure every case on every side, logging progress to stderr."""
    limit = int(args.memory_limit_gib * GIB)
    rows = []
    for index, case in enumerate(CASES):
        log(f"{case.name}: iceflight")
        ice = flightpeer.measure(
            args.flightd,
            table.warehouse,
            TABLE_NAME,
            case,
            args.iceflight_warm_runs,
            args.timeout,
            limit,
            tickets,
            args.flightpoll,
        )
        cluster, note = None, None
        if not tickets or args.flightpoll is None:
            note = "needs manifest tickets and flightpoll"
        elif case.iceflight_filter is None:
            # 10,000,000 file tasks would make a FlightInfo of about 1.4 GB.
            note = "not asked: every file of the table, planned at the manifest level above"
        else:
            log(f"{case.name}: iceflight, groups planned by two workers")
            cluster = clusterpeer.measure(
                args.flightd, args.flightpoll, table.warehouse, args.data_dir.resolve(),
                TABLE_NAME, case, args.timeout, limit,
            )
        log(f"{case.name}: Iceberg Java")
        java = javapeer.measure(
            jar, table.metadata_location, case, args.java_warm_runs, args.timeout, limit
        )
        log(f"{case.name}: PyIceberg")
        py = pyicebergpeer.measure(
            Path(sys.executable), BENCH_DIR, table.metadata_location, index, args.timeout, limit
        )
        rows.append(HugeRow(case, ice, java, py, cluster, note))
    return rows


def preamble(args: argparse.Namespace, table: HugeTable, load: str, tickets: bool) -> str:
    """Describe what was measured where, for the results file."""
    shape = table.shape
    flag = (
        "with `--manifest-tickets-above 0`"
        if tickets
        else ("without `--manifest-tickets-above` (this flightd's `serve --help` does not list it)")
    )
    return (
        "\n".join(
            [
                "# Scan planning of a ten-million-file table: iceflight, Iceberg Java, PyIceberg",
                "",
                f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
                f"iceflight {git_revision()}; Iceberg Java 1.12.0; PyIceberg "
                f"{pyiceberg.__version__}; pyarrow {pyarrow.__version__}",
                f"- machine: {describe(load)}; timings are wall clock, in milliseconds",
                f"- table `{TABLE_NAME}`: {shape.files:,} data files in {shape.manifests:,} "
                f"manifests of one day each, day(ts) + bucket[16](user_id), {table.records:,} "
                f"rows; written by Iceberg Java in {table.generation_seconds:,.0f} s, "
                f"{table.disk_bytes / 1e9:.2f} GB on disk",
                f"- iceflight: `flightd serve` {flag}; cold = a fresh process, warm = median of "
                f"{args.iceflight_warm_runs} more calls on it",
                f"- Iceberg Java: cold = the first load and `planFiles()` of a fresh JVM, timed "
                "from `main` (JVM start-up excluded, class loading included); warm = "
                f"{args.java_warm_runs} more in the same JVM",
                "- PyIceberg: one `from_metadata` + `scan().plan_files()` in a fresh process",
                f"- limits: each side gives up a case after {args.timeout:.0f} s (`> N s`) and is "
                f"killed above {args.memory_limit_gib:.0f} GiB resident",
            ]
        )
        + "\n\n"
    )


def log(message: str) -> None:
    """Print a progress line to stderr."""
    print(f"bench-plan-huge: {message}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Generate the table if needed, measure every case, print and save the tables."""
    args = parse_args(argv)
    if not args.flightd.is_file():
        log(f"{args.flightd} not found: run `make build` first")
        return 2
    shape = HugeShape(args.files, args.manifests)
    table = ensure_huge_table(BENCH_DIR, args.data_dir.resolve(), shape, args.threads)
    jar = benchkit.build_generator(BENCH_DIR / "gen", "benchgen.jar", log)
    tickets = flightpeer.has_manifest_tickets(args.flightd)
    log("flightd " + ("has" if tickets else "lacks") + " --manifest-tickets-above")
    load = load_average()
    rows = run_cases(args, table, jar, tickets)
    text = preamble(args, table, load, tickets) + render(rows, table.records)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
