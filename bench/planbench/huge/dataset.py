"""The huge table: written once by the Iceberg Java generator (``HugeTable``), then cached.

The table lives in ``bench/.data/huge/warehouse`` (a HadoopCatalog folder, so flightd names it
``bench.huge``). ``bench/.data/huge.json`` records how it was made, its row count, how long
it took and its size on disk; while that record matches the requested shape and the
generator's sources, the table is reused as is.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from pyiceberg.table import StaticTable

import benchkit

TABLE_NAME = "bench.huge"


@dataclass(frozen=True)
class HugeShape:
    """How many data files the table holds and in how many manifests (one day each)."""

    files: int = 10_000_000
    manifests: int = 10_000
    seed: int = 20240101


@dataclass(frozen=True)
class HugeTable:
    """A generated table ready to be planned, with what its generation recorded."""

    warehouse: Path
    metadata_location: str
    shape: HugeShape
    #: The sum of every data file's record_count.
    records: int
    generation_seconds: float
    disk_bytes: int


def ensure_huge_table(bench_dir: Path, data_dir: Path, shape: HugeShape, threads: int) -> HugeTable:
    """Return the table cached in data_dir, generating and checking it first when needed."""
    warehouse = data_dir / "huge" / "warehouse"
    record = data_dir / "huge.json"
    gen_dir = bench_dir / "gen"
    fingerprint = benchkit.sources_fingerprint(gen_dir)

    cached = benchkit.read_record(record, asdict(shape), fingerprint)
    if cached is not None and (warehouse / "bench" / "huge").is_dir():
        return _from_record(warehouse, shape, cached)

    record.unlink(missing_ok=True)
    shutil.rmtree(warehouse, ignore_errors=True)
    jar = benchkit.build_generator(gen_dir, "benchgen.jar", _log)
    made = _generate(jar, warehouse, shape, threads)
    _check(made)
    record.write_text(
        json.dumps(
            {
                "metadata_location": made.metadata_location,
                "records": made.records,
                "generation_seconds": round(made.generation_seconds, 1),
                "disk_bytes": made.disk_bytes,
                "shape": asdict(shape),
                "sources": fingerprint,
            },
            indent=2,
        )
        + "\n"
    )
    return made


def _from_record(warehouse: Path, shape: HugeShape, data: dict[str, object]) -> HugeTable:
    return HugeTable(
        warehouse,
        str(data["metadata_location"]),
        shape,
        int(str(data["records"])),
        float(str(data["generation_seconds"])),
        int(str(data["disk_bytes"])),
    )


def _generate(jar: Path, warehouse: Path, shape: HugeShape, threads: int) -> HugeTable:
    """Run HugeTable; its last line of output is a JSON summary of the table."""
    _log(
        f"generating {TABLE_NAME}: {shape.files:,} data files in {shape.manifests:,} "
        f"manifests through Iceberg Java (once; cached in {warehouse})"
    )
    start = time.monotonic()
    out = subprocess.run(
        [
            "nice",
            "java",
            "-cp",
            str(jar),
            "io.iceflight.benchgen.HugeTable",
            "--warehouse",
            str(warehouse),
            "--files",
            str(shape.files),
            "--manifests",
            str(shape.manifests),
            "--threads",
            str(threads),
            "--seed",
            str(shape.seed),
        ],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    seconds = time.monotonic() - start
    summary = json.loads(out.strip().splitlines()[-1])
    size = sum(p.stat().st_size for p in warehouse.rglob("*") if p.is_file())
    _log(f"generated in {seconds:.0f} s, {size / 1e9:.2f} GB")
    return HugeTable(
        warehouse, summary["metadata_location"], shape, summary["records"], seconds, size
    )


def _check(table: HugeTable) -> None:
    """Fail unless PyIceberg reads the snapshot the generator meant to write.

    Only the manifest list and the snapshot summary: planning every file is the benchmark's
    job (and may not finish in PyIceberg), and its file counts are compared there.
    """
    _log("checking the table's snapshot with PyIceberg")
    static = StaticTable.from_metadata(table.metadata_location)
    snapshot = static.current_snapshot()
    if snapshot is None:
        raise RuntimeError(f"{table.metadata_location}: the generated table has no snapshot")
    manifests = len(snapshot.manifests(static.io))
    summary = snapshot.summary
    files = int(summary.get("total-data-files") or -1) if summary is not None else -1
    records = int(summary.get("total-records") or -1) if summary is not None else -1
    want = (table.shape.manifests, table.shape.files, table.records)
    if (manifests, files, records) != want:
        raise RuntimeError(
            f"{table.metadata_location}: PyIceberg sees {manifests} manifests, {files} files, "
            f"{records} records; want {want}"
        )


def _log(message: str) -> None:
    print(f"bench-plan-huge: {message}", file=sys.stderr, flush=True)
