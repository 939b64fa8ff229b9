"""Write the PyIceberg and pyarrow part of the writers corpus (testdata/writers).

Two writers, each into its own warehouse under ROOT:

* ``pyiceberg``: tables PyIceberg creates and appends to, from its default
  Arrow schema and from ``large_*`` Arrow schemas, one partitioned, one with a
  delete and an overwrite;
* ``pyarrow-add_files``: Parquet files written by pyarrow itself (view types,
  dictionary columns, INT96 timestamps, ``large_*`` types, no field ids)
  registered with ``Table.add_files``, so they are read through the table's
  name mapping.

Run it through ``tools/pywriters/generate.sh`` (``make fixtures-writers``).
The data is fixed; table UUIDs, snapshot ids and timestamps are PyIceberg's.
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import functools
import shutil
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pyiceberg.io.pyarrow as pyiceberg_pyarrow
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

UTC = dt.timezone.utc
N = 12


def _null(i: int, value):
    """Every fourth value of a column is null."""
    return None if i % 4 == 3 else value


def all_types_schema() -> Schema:
    return Schema(
        NestedField(1, "id", IntegerType(), required=True),
        NestedField(2, "c_boolean", BooleanType()),
        NestedField(3, "c_int", IntegerType()),
        NestedField(4, "c_long", LongType()),
        NestedField(5, "c_float", FloatType()),
        NestedField(6, "c_double", DoubleType()),
        NestedField(7, "c_decimal_9_2", DecimalType(9, 2)),
        NestedField(8, "c_decimal_38_6", DecimalType(38, 6)),
        NestedField(9, "c_date", DateType()),
        NestedField(10, "c_time", TimeType()),
        NestedField(11, "c_timestamp", TimestampType()),
        NestedField(12, "c_timestamptz", TimestamptzType()),
        NestedField(13, "c_string", StringType()),
        NestedField(14, "c_uuid", UUIDType()),
        NestedField(15, "c_binary", BinaryType()),
        NestedField(16, "c_fixed", FixedType(5)),
        NestedField(17, "c_list", ListType(18, LongType(), element_required=False)),
        NestedField(19, "c_map", MapType(20, StringType(), 21, DoubleType(), value_required=False)),
        NestedField(
            22,
            "c_struct",
            StructType(NestedField(23, "a", IntegerType()), NestedField(24, "b", StringType())),
        ),
    )


def all_types_rows(start: int, n: int) -> list[dict]:
    rows = []
    for i in range(start, start + n):
        rows.append(
            {
                "id": i,
                "c_boolean": _null(i, i % 2 == 0),
                "c_int": _null(i, i * 1_000_003 - 2_000_000_000 if i % 3 else -(2**31)),
                "c_long": _null(i, (i - 6) * 1_000_000_000_007),
                "c_float": _null(i, i * 0.5 - 2.25),
                "c_double": _null(i, (i - 5) * 1.0e-7),
                "c_decimal_9_2": _null(i, decimal.Decimal(i * 12345 - 60000).scaleb(-2)),
                "c_decimal_38_6": _null(i, decimal.Decimal("12345678901234567890.123456") - i),
                "c_date": _null(i, dt.date(1969, 12, 25) + dt.timedelta(days=i * 321)),
                "c_time": _null(i, dt.time(i % 24, (i * 7) % 60, 59, i * 1000 + 1)),
                "c_timestamp": _null(i, dt.datetime(1999, 12, 31, 23, 59, 59, 999999) + dt.timedelta(hours=i * 777)),
                "c_timestamptz": _null(i, dt.datetime(2024, 2, 29, 12, 0, 0, i, tzinfo=UTC) - dt.timedelta(days=i * 40)),
                "c_string": _null(i, "" if i == 0 else f"row {i} ünïcødé 🧊"),
                "c_uuid": _null(i, uuid.UUID(int=i * 0x0123456789ABCDEF0123456789ABCDEF % (1 << 128)).bytes),
                "c_binary": _null(i, bytes([i, 0, 255 - i])),
                "c_fixed": _null(i, bytes([i, i, 0, 1, 2])),
                "c_list": None if i % 5 == 4 else [None if k == 1 else i * 10 + k for k in range(i % 4)],
                "c_map": None if i % 6 == 5 else {f"k{i}": None if i % 2 else i / 8, "z": -1.0},
                "c_struct": None if i % 5 == 2 else {"a": _null(i, i * 10), "b": f"s{i}"},
            }
        )
    return rows


def large_schema() -> pa.Schema:
    """An Arrow schema in the large types PyIceberg up to 0.9 wrote by default."""
    return pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.large_string()),
            pa.field("payload", pa.large_binary()),
            pa.field("tags", pa.large_list(pa.large_string())),
            pa.field(
                "attrs",
                pa.map_(pa.large_string(), pa.struct([pa.field("values", pa.large_list(pa.large_string()))])),
            ),
        ]
    )


def large_rows(start: int, n: int) -> list[dict]:
    return [
        {
            "id": i,
            "name": _null(i, f"name-{i}" * (i % 3 + 1)),
            "payload": _null(i, bytes(range(i % 7))),
            "tags": None if i % 5 == 4 else [None if k == 2 else f"t{k}" for k in range(i % 4)],
            "attrs": None if i % 6 == 5 else [(f"a{i}", {"values": [f"v{i}", None]}), ("b", None)],
        }
        for i in range(start, start + n)
    ]


def pyiceberg_tables(catalog: SqlCatalog, root: Path) -> None:
    """Tables written by PyIceberg itself."""
    base = root / "pyiceberg"
    catalog.create_namespace("defaults")
    catalog.create_namespace("large")

    schema = all_types_schema()
    t = catalog.create_table("defaults.all_types", schema=schema, location=f"file://{base}/defaults/all_types")
    t.append(pa.Table.from_pylist(all_types_rows(0, N), schema=t.schema().as_arrow()))
    t.append(pa.Table.from_pylist(all_types_rows(N, 4), schema=t.schema().as_arrow()))

    spec = PartitionSpec(
        PartitionField(source_id=13, field_id=1000, transform=IdentityTransform(), name="c_string"),
        PartitionField(source_id=12, field_id=1001, transform=DayTransform(), name="c_timestamptz_day"),
    )
    p = catalog.create_table(
        "defaults.partitioned",
        schema=Schema(
            NestedField(1, "id", IntegerType(), required=True),
            NestedField(12, "c_timestamptz", TimestamptzType()),
            NestedField(13, "c_string", StringType()),
        ),
        partition_spec=spec,
        location=f"file://{base}/defaults/partitioned",
    )
    p.append(
        pa.Table.from_pylist(
            [
                {
                    "id": i,
                    "c_timestamptz": _null(i, dt.datetime(2025, 1, 1, 23, 30, tzinfo=UTC) + dt.timedelta(hours=i * 5)),
                    "c_string": None if i % 5 == 0 else ["red", "green", "blue"][i % 3],
                }
                for i in range(N)
            ],
            schema=p.schema().as_arrow(),
        )
    )

    d = catalog.create_table(
        "defaults.deletes",
        schema=Schema(
            NestedField(1, "id", IntegerType(), required=True),
            NestedField(2, "v", StringType()),
        ),
        location=f"file://{base}/defaults/deletes",
        properties={"format-version": "2"},
    )
    d.append(pa.Table.from_pylist([{"id": i, "v": f"v{i}"} for i in range(N)], schema=d.schema().as_arrow()))
    d.append(pa.Table.from_pylist([{"id": i, "v": None} for i in range(N, N + 3)], schema=d.schema().as_arrow()))
    d.delete("id < 3 or id = 13")
    d.overwrite(
        pa.Table.from_pylist([{"id": 100 + i, "v": f"new{i}"} for i in range(2)], schema=d.schema().as_arrow()),
        overwrite_filter="id >= 8 and id < 10",
    )

    arrow_schema = large_schema()
    big = catalog.create_table("large.events", schema=arrow_schema, location=f"file://{base}/large/events")
    big.append(pa.Table.from_pylist(large_rows(0, N), schema=arrow_schema))


def add_files_table(catalog: SqlCatalog, root: Path, ident: str, schema, files: dict[str, pa.Table], **kw) -> None:
    """Writes each Arrow table of files with pyarrow into the table's data folder and adds them."""
    ns, name = ident.split(".")
    location = root / "pyarrow-add_files" / ns / name
    t = catalog.create_table(ident, schema=schema, location=f"file://{location}")
    paths = []
    for fname, data in files.items():
        path = location / "data" / fname
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(data, path, **kw)
        paths.append(f"file://{path}")
    t.add_files(paths)


def add_files_tables(catalog: SqlCatalog, root: Path) -> None:
    """Tables of pyarrow-written files (no field ids) added with add_files."""
    for ns in ("views", "dictionary", "int96", "large"):
        catalog.create_namespace(ns)

    view_schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("s", pa.string_view()),
            pa.field("b", pa.binary_view()),
        ]
    )
    plain = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.string()), pa.field("b", pa.binary())])
    rows = [{"id": i, "s": _null(i, f"view {i} " + "x" * (i * 3)), "b": _null(i, bytes([i]) * i)} for i in range(N)]
    add_files_table(
        catalog,
        root,
        "views.strings",
        plain,
        {"views-0.parquet": pa.Table.from_pylist(rows, schema=view_schema)},
    )

    cats = ["apple", "banana", None, "cherry"]
    dict_table = pa.table(
        {
            "id": pa.array(range(N), pa.int64()),
            "fruit": pa.array([cats[i % 4] for i in range(N)]).dictionary_encode(),
            "size": pa.array([i % 3 * 100 for i in range(N)], pa.int32()).dictionary_encode(),
            "label": pa.DictionaryArray.from_arrays(
                pa.array([i % 2 for i in range(N)], pa.int8()), pa.array(["odd-not", "even-not"], pa.large_string())
            ),
        }
    )
    add_files_table(
        catalog,
        root,
        "dictionary.categories",
        pa.schema([("id", pa.int64()), ("fruit", pa.string()), ("size", pa.int32()), ("label", pa.string())]),
        {"dict-0.parquet": dict_table},
    )

    ts = [
        dt.datetime(1970, 1, 1, tzinfo=UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        dt.datetime(2024, 6, 30, 12, 34, 56, 789012, tzinfo=UTC),
        None,
        dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
        dt.datetime(2262, 4, 11, tzinfo=UTC),
    ]
    int96_table = pa.table(
        {
            "id": pa.array(range(len(ts)), pa.int64()),
            "ts": pa.array([t.replace(tzinfo=None) if t else None for t in ts], pa.timestamp("us")),
            # INT96 has no zone: read back, a column is timestamp, never timestamptz.
            "ts_utc": pa.array(ts, pa.timestamp("us", tz="UTC")).cast(pa.timestamp("us")),
        }
    )
    # PyIceberg 0.12's add_files reads an INT96 column as nanoseconds and,
    # unlike append, ignores downcast-ns-timestamp-to-us-on-write, so a v2
    # table (no timestamp_ns) could not take the file; PyIceberg cannot write
    # v3. The schema check add_files runs is given the downcast append uses,
    # for this one call: the metadata is still all PyIceberg's.
    check = pyiceberg_pyarrow._check_pyarrow_schema_compatible
    pyiceberg_pyarrow._check_pyarrow_schema_compatible = functools.partial(check, downcast_ns_timestamp_to_us=True)
    try:
        add_files_table(
            catalog,
            root,
            "int96.events",
            pa.schema([("id", pa.int64()), ("ts", pa.timestamp("us")), ("ts_utc", pa.timestamp("us"))]),
            {"int96-0.parquet": int96_table},
            use_deprecated_int96_timestamps=True,
        )
    finally:
        pyiceberg_pyarrow._check_pyarrow_schema_compatible = check

    schema = large_schema()
    add_files_table(
        catalog,
        root,
        "large.strings",
        schema,
        {
            "large-0.parquet": pa.Table.from_pylist(large_rows(0, 6), schema=schema),
            "large-1.parquet": pa.Table.from_pylist(large_rows(6, 6), schema=schema),
        },
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, type=Path, help="where the writers' warehouses go")
    args = ap.parse_args()
    root = args.root.resolve()
    for w in ("pyiceberg", "pyarrow-add_files"):
        shutil.rmtree(root / w, ignore_errors=True)
        (root / w).mkdir(parents=True)
    for writer, tables in (("pyiceberg", pyiceberg_tables), ("pyarrow-add_files", add_files_tables)):
        # A catalog per writer, thrown away after: the tables are found by
        # their folders, as flightd and the oracle find them.
        db = root / f"{writer}-catalog.db"
        db.unlink(missing_ok=True)
        catalog = SqlCatalog(writer, uri=f"sqlite:///{db}", warehouse=f"file://{root}/{writer}")
        try:
            tables(catalog, root)
        finally:
            catalog.engine.dispose()
            db.unlink(missing_ok=True)
    print(f"pywriters: wrote the pyiceberg and pyarrow-add_files tables under {root}")


if __name__ == "__main__":
    main()
