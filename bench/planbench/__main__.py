"""Entry point: ``python -m planbench --flightd PATH`` from the bench/ folder."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import pyarrow
import pyiceberg

from . import iceflight, peer, restplan
from .cases import CASES
from .dataset import TABLE_NAME, Dataset, TableShape, ensure_dataset
from .machine import describe, git_revision, load_average
from .report import Row, render

BENCH_DIR = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="planbench", description="Scan planning: iceflight GetFlightInfo vs PyIceberg."
    )
    parser.add_argument("--flightd", type=Path, default=BENCH_DIR.parent / "bin" / "flightd")
    parser.add_argument("--files", type=int, default=100_000, help="data files in the table")
    parser.add_argument("--files-per-commit", type=int, default=100, help="files per manifest")
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh flightd processes")
    parser.add_argument("--warm-runs", type=int, default=10, help="calls on one process")
    parser.add_argument("--pyiceberg-runs", type=int, default=3)
    parser.add_argument(
        "--rest-runs", type=int, default=3, help="runs of each side through the REST catalog"
    )
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "plan.md")
    return parser.parse_args(argv)


def run_case_rows(args: argparse.Namespace, data: Dataset) -> list[Row]:
    """Measure every case on every side, logging progress to stderr."""
    rows = []
    for case in CASES:
        log(f"{case.name}: iceflight cold x{args.cold_runs}")
        cmd = iceflight.command(TABLE_NAME, case.iceflight_filter)
        cold = iceflight.measure_cold(args.flightd, data.warehouse, cmd, args.cold_runs)
        log(f"{case.name}: iceflight warm x{args.warm_runs}")
        warm = iceflight.measure_warm(args.flightd, data.warehouse, cmd, args.warm_runs)
        log(f"{case.name}: PyIceberg x{args.pyiceberg_runs}")
        theirs = peer.measure(data.metadata_location, case.pyiceberg_filter, args.pyiceberg_runs)
        log(f"{case.name}: PyIceberg through REST, server- and client-side x{args.rest_runs}")
        rest = restplan.measure(
            args.flightd, data.warehouse, TABLE_NAME, case.pyiceberg_filter, args.rest_runs
        )
        rows.append(Row(case, cold, warm, theirs, rest))
    return rows


def preamble(args: argparse.Namespace, data: Dataset, load: str) -> str:
    """Describe what was measured where, for the results file."""
    shape = data.shape
    return (
        "\n".join(
            [
                "# Scan planning: iceflight vs PyIceberg",
                "",
                f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
                f"iceflight {git_revision()}; PyIceberg {pyiceberg.__version__}; "
                f"pyarrow {pyarrow.__version__}",
                f"- machine: {describe(load)}; timings are wall clock, in milliseconds, medians",
                f"- table `{TABLE_NAME}`: {shape.files:,} data files in {shape.manifests:,} "
                "manifests, day(ts) + bucket[16](user_id), written by Iceberg Java 1.12",
                f"- runs: iceflight cold = first GetFlightInfo of {args.cold_runs} fresh "
                f"processes; warm = {args.warm_runs} calls on one process; PyIceberg = "
                f"{args.pyiceberg_runs} runs of from_metadata + scan().plan_files(); "
                f"through REST, {args.rest_runs} runs of each",
            ]
        )
        + "\n\n"
    )


def log(message: str) -> None:
    """Print a progress line to stderr."""
    print(f"bench-plan: {message}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Generate the table if needed, measure every case, print and save the table."""
    args = parse_args(argv)
    if not args.flightd.is_file():
        log(f"{args.flightd} not found: run `make build` first")
        return 2
    data = ensure_dataset(BENCH_DIR, TableShape(args.files, args.files_per_commit))
    load = load_average()
    rows = run_case_rows(args, data)
    text = preamble(args, data, load) + render(rows)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
