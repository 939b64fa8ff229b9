"""The benchmark table: written once by the Iceberg Java generator, checked with PyIceberg.

The table lives in ``bench/.data/warehouse`` (a HadoopCatalog folder, so flightd names it
``bench.events``). ``bench/.data/events.json`` records how it was made; while that record
matches the requested shape and the generator's sources, the table is reused as is.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from pyiceberg.manifest import clear_manifest_cache
from pyiceberg.table import StaticTable

import benchkit

TABLE_NAME = "bench.events"


@dataclass(frozen=True)
class TableShape:
    """How many data files the table holds and how they are grouped into commits."""

    files: int = 100_000
    files_per_commit: int = 100
    seed: int = 20240101

    @property
    def manifests(self) -> int:
        """Each commit is one fast append, which writes exactly one manifest."""
        return self.files // self.files_per_commit


@dataclass(frozen=True)
class Dataset:
    """A generated table ready to be planned."""

    warehouse: Path
    metadata_location: str
    shape: TableShape


def ensure_dataset(bench_dir: Path, shape: TableShape) -> Dataset:
    """Return the cached table, generating and checking it first when needed."""
    data_dir = bench_dir / ".data"
    warehouse = data_dir / "warehouse"
    record = data_dir / "events.json"
    gen_dir = bench_dir / "gen"
    fingerprint = benchkit.sources_fingerprint(gen_dir)

    cached = _read_record(record, shape, fingerprint)
    if cached is not None and (warehouse / "bench" / "events").is_dir():
        return Dataset(warehouse, cached, shape)

    record.unlink(missing_ok=True)
    shutil.rmtree(warehouse, ignore_errors=True)
    jar = benchkit.build_generator(gen_dir, "benchgen.jar", _log)
    location = _generate(jar, warehouse, shape)
    _check_with_pyiceberg(location, shape)
    record.write_text(
        json.dumps(
            {"metadata_location": location, "shape": asdict(shape), "sources": fingerprint},
            indent=2,
        )
        + "\n"
    )
    return Dataset(warehouse, location, shape)


def _read_record(record: Path, shape: TableShape, fingerprint: str) -> str | None:
    """Return the recorded metadata location if the record describes this table."""
    data = benchkit.read_record(record, asdict(shape), fingerprint)
    if data is None:
        return None
    location = data.get("metadata_location")
    return location if isinstance(location, str) else None


def _generate(jar: Path, warehouse: Path, shape: TableShape) -> str:
    """Run the Java generator; its last line of output is the metadata location."""
    _log(
        f"generating {TABLE_NAME}: {shape.files:,} data files in {shape.manifests:,} "
        f"manifests through Iceberg Java (once; cached in {warehouse})"
    )
    return benchkit.run_generator(
        jar,
        [
            "--warehouse",
            str(warehouse),
            "--files",
            str(shape.files),
            "--files-per-commit",
            str(shape.files_per_commit),
            "--seed",
            str(shape.seed),
        ],
        _log,
    )


def _check_with_pyiceberg(location: str, shape: TableShape) -> None:
    """Fail unless PyIceberg reads every manifest and plans every file of the table."""
    _log("checking the table with PyIceberg")
    clear_manifest_cache()
    table = StaticTable.from_metadata(location)
    snapshot = table.current_snapshot()
    if snapshot is None:
        raise RuntimeError(f"{location}: the generated table has no current snapshot")
    manifests = len(snapshot.manifests(table.io))
    files = sum(1 for _ in table.scan().plan_files())
    if manifests != shape.manifests or files != shape.files:
        raise RuntimeError(
            f"{location}: PyIceberg sees {files} files in {manifests} manifests, "
            f"want {shape.files} in {shape.manifests}"
        )


def _log(message: str) -> None:
    print(f"bench-plan: {message}", file=sys.stderr, flush=True)
