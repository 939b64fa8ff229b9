"""The three benchmark tables, written once by PyIceberg and cached under bench/.data/read/.

All three hold the same kind of rows, a TPC-H ``lineitem`` look-alike made from a fixed seed:

- ``bench.big``: ``ROWS`` rows in ``BIG_FILES`` large files (one ``append`` per file);
- ``bench.small``: the same number of rows in files of ``SMALL_FILE_ROWS`` rows (one
  ``append`` whose target file size is one file's worth of rows);
- ``bench.daily``: the rows of ``bench.small`` partitioned by ``day(l_shipdate)`` over
  ``DAYS`` days, files of at most ``SMALL_FILE_ROWS`` rows.

``l_shipdate`` rises with the row number, so each day holds one contiguous run of rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog

DAYS = 30
FIRST_DAY = dt.date(1995, 6, 1)
NAMESPACE = "bench"
SEED = 20260601

SCHEMA = pa.schema(
    [
        ("l_orderkey", pa.int64()),
        ("l_partkey", pa.int64()),
        ("l_suppkey", pa.int64()),
        ("l_linenumber", pa.int32()),
        ("l_quantity", pa.float64()),
        ("l_extendedprice", pa.float64()),
        ("l_discount", pa.float64()),
        ("l_tax", pa.float64()),
        ("l_returnflag", pa.string()),
        ("l_linestatus", pa.string()),
        ("l_shipdate", pa.date32()),
        ("l_commitdate", pa.date32()),
        ("l_receiptdate", pa.date32()),
        ("l_shipinstruct", pa.string()),
        ("l_shipmode", pa.string()),
        ("l_comment", pa.string()),
    ]
)

_INSTRUCT = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
_MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
_WORDS = (
    "carefully final deposits detect slyly regular packages among the furiously express "
    "accounts sleep quickly ironic requests boost blithely pending foxes nag bold theodolites"
).split()


@dataclass(frozen=True)
class Shape:
    """How big the tables are; a change regenerates them."""

    rows: int
    big_files: int
    small_file_rows: int

    @property
    def small_files(self) -> int:
        """Files of bench.small."""
        return -(-self.rows // self.small_file_rows)


@dataclass(frozen=True)
class Tables:
    """Where the generated tables live, and what generating them cost."""

    warehouse: Path
    catalog_db: Path
    shape: Shape
    seconds: dict[str, float]
    files: dict[str, int]
    generated: bool


def _comments(rng: np.random.Generator, count: int) -> pa.Array:
    vocab = [" ".join(rng.choice(_WORDS, size=int(rng.integers(2, 7)))) for _ in range(4096)]
    return pa.array(vocab).take(pa.array(rng.integers(0, len(vocab), size=count)))


def _chunk(rng: np.random.Generator, start: int, count: int, total: int) -> pa.RecordBatch:
    """Rows start..start+count of the total, ``l_shipdate`` rising over DAYS days."""
    row = np.arange(start, start + count, dtype=np.int64)
    ship = (row * DAYS // total).astype(np.int32) + (FIRST_DAY - dt.date(1970, 1, 1)).days
    quantity = rng.integers(1, 51, size=count).astype(np.float64)
    price = np.round(quantity * rng.uniform(900.0, 2000.0, size=count), 2)
    columns = [
        pa.array(row // 4 + 1),
        pa.array(rng.integers(1, 2_000_000, size=count)),
        pa.array(rng.integers(1, 100_000, size=count)),
        pa.array((row % 4 + 1).astype(np.int32)),
        pa.array(quantity),
        pa.array(price),
        pa.array(np.round(rng.uniform(0.0, 0.1, size=count), 2)),
        pa.array(np.round(rng.uniform(0.0, 0.08, size=count), 2)),
        pa.array(np.array(["A", "N", "R"])[rng.integers(0, 3, size=count)]),
        pa.array(np.array(["F", "O"])[rng.integers(0, 2, size=count)]),
        pa.array(ship, type=pa.date32()),
        pa.array(ship + rng.integers(-30, 60, size=count).astype(np.int32), type=pa.date32()),
        pa.array(ship + rng.integers(1, 30, size=count).astype(np.int32), type=pa.date32()),
        pa.array(np.array(_INSTRUCT)[rng.integers(0, len(_INSTRUCT), size=count)]),
        pa.array(np.array(_MODES)[rng.integers(0, len(_MODES), size=count)]),
        _comments(rng, count),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=SCHEMA)


def rows(shape: Shape, parts: int) -> Iterator[pa.Table]:
    """Yield the rows in `parts` consecutive single-chunk tables (the same for a same `parts`)."""
    rng = np.random.default_rng(SEED)
    step = -(-shape.rows // parts)
    for start in range(0, shape.rows, step):
        count = min(step, shape.rows - start)
        yield pa.Table.from_batches([_chunk(rng, start, count, shape.rows)])


def _fingerprint(shape: Shape, warehouse: str | None) -> str:
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(json.dumps(asdict(shape), sort_keys=True).encode())
    if warehouse is not None:
        digest.update(warehouse.encode())
    return digest.hexdigest()[:16]


def catalog(root: Path, storage: dict[str, str] | None = None) -> SqlCatalog:
    """Return the SqlCatalog (sqlite in root/catalog.db, warehouse root/warehouse).

    ``storage`` replaces the warehouse by its ``warehouse`` property and adds the FileIO
    properties (``s3.endpoint`` ...), as for the copy on S3 (s3.py).
    """
    props = {
        "uri": f"sqlite:///{root.resolve() / 'catalog.db'}",
        "warehouse": (root.resolve() / "warehouse").as_uri(),
    }
    return SqlCatalog("bench", **(props | (storage or {})))


def ensure(
    root: Path,
    shape: Shape,
    storage: dict[str, str] | None = None,
    reset: Callable[[], None] | None = None,
) -> Tables:
    """Generate the tables under root unless a cached copy of the same shape exists.

    With ``storage`` (catalog(root, storage)) the data and metadata files go to its
    warehouse; ``reset`` then empties that warehouse before a regeneration.
    """
    stamp = root / "tables.json"
    warehouse = None if storage is None else storage["warehouse"]
    if stamp.exists():
        saved = json.loads(stamp.read_text())
        if saved.get("fingerprint") == _fingerprint(shape, warehouse):
            return Tables(
                root / "warehouse",
                root / "catalog.db",
                shape,
                saved["seconds"],
                saved["files"],
                generated=False,
            )
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if reset is not None:
        reset()
    seconds, files = _generate(catalog(root, storage), shape)
    stamp.write_text(
        json.dumps(
            {"fingerprint": _fingerprint(shape, warehouse), "seconds": seconds, "files": files},
            indent=2,
        )
    )
    return Tables(root / "warehouse", root / "catalog.db", shape, seconds, files, generated=True)


def _generate(cat: SqlCatalog, shape: Shape) -> tuple[dict[str, float], dict[str, int]]:
    from pyiceberg.transforms import DayTransform

    cat.create_namespace(NAMESPACE)
    seconds: dict[str, float] = {}
    files: dict[str, int] = {}

    start = time.perf_counter()
    big = cat.create_table(f"{NAMESPACE}.big", schema=SCHEMA)
    for part in rows(shape, shape.big_files):
        big.append(part)  # one append writes one file: each part is under the 512 MB target
    seconds["big"] = time.perf_counter() - start

    # One append; the target size is one file's worth of in-memory Arrow bytes, which
    # PyIceberg's bin-packing (bin_pack_arrow_table) turns into batches of that many rows.
    whole = pa.concat_tables(rows(shape, shape.big_files)).combine_chunks()
    target = int(whole.nbytes / whole.num_rows * shape.small_file_rows) + 1
    props = {"write.target-file-size-bytes": str(target)}
    start = time.perf_counter()
    small = cat.create_table(f"{NAMESPACE}.small", schema=SCHEMA, properties=props)
    small.append(whole)
    seconds["small"] = time.perf_counter() - start

    start = time.perf_counter()
    daily = cat.create_table(f"{NAMESPACE}.daily", schema=SCHEMA, properties=props)
    with daily.update_spec() as update:
        update.add_field("l_shipdate", DayTransform(), "l_shipdate_day")
    daily.append(whole)
    seconds["daily"] = time.perf_counter() - start

    for name in ("big", "small", "daily"):
        table = cat.load_table(f"{NAMESPACE}.{name}")
        files[name] = sum(1 for _ in table.scan().plan_files())
    return seconds, files
