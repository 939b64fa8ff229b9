"""The three benchmark tables: written once by the Iceberg Java generator, then reused.

The tables live in ``bench/.data/deletes-warehouse`` (a HadoopCatalog folder, so flightd names
them ``bench.plain``, ``bench.eq_deletes`` and ``bench.pos_deletes``).
``bench/.data/deletes.json`` records how they were made and what Iceberg Java read back from
each; while that record matches the requested shape and the generator's sources, the tables
are reused as they are.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import benchkit

NAMESPACE = "bench"
TABLES = ("plain", "eq_deletes", "pos_deletes")

# The generator's description of the tables, by name: metadata location, rows, id sum, files.
Tables = dict[str, dict[str, object]]


@dataclass(frozen=True)
class Shape:
    """The rows of each table, its data files, and the rows the deletes remove."""

    rows: int = 10_000_000
    files: int = 20
    deleted_rows: int = 100_000
    equality_files: int = 50
    seed: int = 20250101


@dataclass(frozen=True)
class TableInfo:
    """One generated table and what Iceberg Java read from it."""

    name: str
    metadata_location: str
    rows: int
    id_sum: int
    data_files: int
    delete_files: int
    data_bytes: int
    delete_bytes: int

    @property
    def identifier(self) -> str:
        """The table's name in flightd: namespace.table."""
        return f"{NAMESPACE}.{self.name}"


@dataclass(frozen=True)
class Dataset:
    """The generated warehouse and its tables, in TABLES order."""

    warehouse: Path
    shape: Shape
    tables: list[TableInfo]
    generated: bool


def ensure_dataset(bench_dir: Path, gen_dir: Path, shape: Shape) -> Dataset:
    """Return the cached tables, generating them first when needed."""
    data_dir = bench_dir / ".data"
    warehouse = data_dir / "deletes-warehouse"
    record = data_dir / "deletes.json"
    fingerprint = benchkit.sources_fingerprint(gen_dir)

    cached = _read_record(record, shape, fingerprint)
    if cached is not None and all((warehouse / NAMESPACE / t).is_dir() for t in TABLES):
        return Dataset(warehouse, shape, _infos(warehouse, cached), generated=False)

    record.unlink(missing_ok=True)
    shutil.rmtree(warehouse, ignore_errors=True)
    jar = benchkit.build_generator(gen_dir, "deletesgen.jar", log)
    tables = _generate(jar, warehouse, shape)
    record.write_text(
        json.dumps({"tables": tables, "shape": asdict(shape), "sources": fingerprint}, indent=2)
        + "\n"
    )
    return Dataset(warehouse, shape, _infos(warehouse, tables), generated=True)


def _read_record(record: Path, shape: Shape, fingerprint: str) -> Tables | None:
    """Return the recorded tables if the record describes this shape and generator."""
    data = benchkit.read_record(record, asdict(shape), fingerprint)
    if data is None:
        return None
    tables = data.get("tables")
    if not isinstance(tables, dict) or set(tables) != set(TABLES):
        return None
    return tables


def _generate(jar: Path, warehouse: Path, shape: Shape) -> Tables:
    """Run the Java generator; its last line of output describes the tables as JSON.

    The generator reads every table back with Iceberg Java's generic reader and fails unless
    the row counts and id sums are the expected ones, so the recorded figures are Java's.
    """
    log(
        f"generating {len(TABLES)} tables of {shape.rows:,} rows in {shape.files} data files "
        f"through Iceberg Java (once; cached in {warehouse})"
    )
    line = benchkit.run_generator(
        jar,
        [
            "--warehouse",
            str(warehouse),
            "--rows",
            str(shape.rows),
            "--files",
            str(shape.files),
            "--deleted-rows",
            str(shape.deleted_rows),
            "--equality-files",
            str(shape.equality_files),
            "--seed",
            str(shape.seed),
        ],
        log,
    )
    tables: Tables = json.loads(line)
    return tables


def _infos(warehouse: Path, tables: Tables) -> list[TableInfo]:
    """Combine the recorded figures with the bytes each table's files take on disk."""
    infos = []
    for name in TABLES:
        t = tables[name]
        data_dir = warehouse / NAMESPACE / name / "data"
        data_bytes = sum(p.stat().st_size for p in data_dir.glob("data-*.parquet"))
        delete_bytes = sum(p.stat().st_size for p in data_dir.glob("*-delete-*.parquet"))
        infos.append(
            TableInfo(
                name=name,
                metadata_location=str(t["metadata_location"]),
                rows=int(str(t["rows"])),
                id_sum=int(str(t["id_sum"])),
                data_files=int(str(t["data_files"])),
                delete_files=int(str(t["delete_files"])),
                data_bytes=data_bytes,
                delete_bytes=delete_bytes,
            )
        )
    return infos


def log(message: str) -> None:
    """Print a progress line to stderr."""
    print(f"bench-deletes: {message}", file=sys.stderr, flush=True)
