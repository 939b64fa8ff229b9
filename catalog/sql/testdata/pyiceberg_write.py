"""Write tables through PyIceberg's SqlCatalog and dump what PyIceberg reads back.

The SQL catalog tests of iceflight run this at test time against a SQLite
file or a PostgreSQL server they started, then compare the rows iceflight
reads through the catalog with the rows written here, one JSON object a
line per table in the form of the Java oracle (dates as days, timestamps
as microseconds, decimals as strings).

    python pyiceberg_write.py --uri URI --warehouse DIR --name NAME --out DIR [--v0]

--v0 creates the catalog tables in schema V0 (no iceberg_type) before
PyIceberg opens the catalog, so PyIceberg keeps writing V0 rows.
"""

import argparse
import datetime
import decimal
import json
import os

import pyarrow as pa
import sqlalchemy
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import (
    BooleanType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

V0_DDL = [
    """CREATE TABLE iceberg_tables (
        catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
        table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),
        previous_metadata_location VARCHAR(1000),
        PRIMARY KEY (catalog_name, table_namespace, table_name))""",
    """CREATE TABLE iceberg_namespace_properties (
        catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,
        property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000) NOT NULL,
        PRIMARY KEY (catalog_name, namespace, property_key))""",
]

ORDERS = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "customer", StringType()),
    NestedField(3, "amount", DecimalType(10, 2)),
    NestedField(4, "placed", TimestampType()),
)

EVENTS = Schema(
    NestedField(1, "id", IntegerType(), required=True),
    NestedField(2, "tag", StringType()),
    NestedField(3, "ok", BooleanType()),
    NestedField(4, "score", DoubleType()),
)


def orders_batch(first, n):
    start = datetime.datetime(2026, 3, 1)
    return pa.table(
        {
            "id": pa.array(range(first, first + n), pa.int64()),
            "customer": pa.array([None if i % 7 == 0 else f"c{i % 5}" for i in range(first, first + n)]),
            "amount": pa.array([decimal.Decimal(i * 137 % 10000) / 100 for i in range(first, first + n)], pa.decimal128(10, 2)),
            "placed": pa.array([start + datetime.timedelta(hours=5 * i) for i in range(first, first + n)], pa.timestamp("us")),
        },
        schema=ORDERS.as_arrow(),
    )


def events_batch():
    n = 40
    return pa.table(
        {
            "id": pa.array(range(n), pa.int32()),
            "tag": pa.array(["x" * (i % 4) for i in range(n)]),
            "ok": pa.array([i % 3 == 0 for i in range(n)]),
            "score": pa.array([None if i == 5 else i / 8 for i in range(n)]),
        },
        schema=EVENTS.as_arrow(),
    )


def oracle_rows(table):
    """Return a PyIceberg scan's rows as the Java oracle writes them."""
    cols = {}
    for field in table.schema:
        col = table.column(field.name)
        if pa.types.is_timestamp(field.type):
            col = col.cast(pa.int64())
        elif pa.types.is_date32(field.type):
            col = col.cast(pa.int32())
        cols[field.name] = col.to_pylist()
    rows = []
    for i in range(table.num_rows):
        row = {}
        for name, values in cols.items():
            v = values[i]
            row[name] = str(v) if isinstance(v, decimal.Decimal) else v
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uri", required=True)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--v0", action="store_true")
    args = ap.parse_args()

    if args.v0:
        engine = sqlalchemy.create_engine(args.uri)
        with engine.begin() as conn:
            for ddl in V0_DDL:
                conn.execute(sqlalchemy.text(ddl))
        engine.dispose()

    cat = SqlCatalog(args.name, uri=args.uri, warehouse="file://" + os.path.abspath(args.warehouse))
    cat.create_namespace("sales")
    cat.create_namespace("a")
    cat.create_namespace("a.b")
    cat.create_namespace("empty", {"owner": "nobody"})

    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="customer"))
    orders = cat.create_table("sales.orders", ORDERS, partition_spec=spec)
    orders.append(orders_batch(0, 30))
    orders.append(orders_batch(30, 25))
    orders.delete("id = 3 or id = 40")  # copy-on-write: rewrites two files

    events = cat.create_table("a.b.events", EVENTS)
    events.append(events_batch())

    os.makedirs(args.out, exist_ok=True)
    for ident in ["sales.orders", "a.b.events"]:
        rows = oracle_rows(cat.load_table(ident).scan().to_arrow())
        with open(os.path.join(args.out, ident + ".jsonl"), "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    cat.close()


if __name__ == "__main__":
    main()
