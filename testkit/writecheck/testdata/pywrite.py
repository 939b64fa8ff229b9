"""Writes db.items with PyIceberg 0.12 into a SqlCatalog, for writecheck's own test.

Row i (0..29) is {"id": i, "name": "n<i>" (null when i % 7 == 3), "price": i * 1.25 as
decimal(9,2), "day": 2026-01-01 + i days}; three appends of ten rows, then a delete of
the rows whose id is a multiple of 5. The table is partitioned by identity(day) (PyIceberg 0.12 needs pyiceberg-core, not installed, for the other transforms).
"""

import argparse
import datetime
import decimal

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DateType, DecimalType, LongType, NestedField, StringType

ap = argparse.ArgumentParser()
ap.add_argument("--uri", required=True)
ap.add_argument("--warehouse", required=True)
ap.add_argument("--name", required=True)
args = ap.parse_args()

cat = SqlCatalog(args.name, uri=args.uri, warehouse=args.warehouse)
cat.create_namespace("db")
schema = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "price", DecimalType(9, 2)),
    NestedField(4, "day", DateType()),
)
spec = PartitionSpec(PartitionField(source_id=4, field_id=1000, transform=IdentityTransform(), name="day"))
table = cat.create_table("db.items", schema=schema, partition_spec=spec)
arrow_schema = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("price", pa.decimal128(9, 2)),
        pa.field("day", pa.date32()),
    ]
)
for start in (0, 10, 20):
    ids = list(range(start, start + 10))
    table.append(
        pa.table(
            {
                "id": ids,
                "name": [None if i % 7 == 3 else f"n{i}" for i in ids],
                "price": [decimal.Decimal(i * 125).scaleb(-2) for i in ids],
                "day": [datetime.date(2026, 1, 1) + datetime.timedelta(days=i) for i in ids],
            },
            schema=arrow_schema,
        )
    )
table.delete("id in (0, 5, 10, 15, 20, 25)")
