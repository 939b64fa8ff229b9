"""Write random nested Parquet files with pyarrow, for pqcodec's nested differential test.

Usage: pyarrow_nested.py OUT_DIR SEED COUNT

Each file NNN.parquet comes with NNN.txt, the schema and writer settings.
Arrow C++ writes layouts arrow-go does not: list elements named "item"
(use_compliant_nested_type=False), levels cut into pages by its own rules,
and no Arrow schema in the footer when store_schema is off.
"""

import random
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

LEAVES = [
    pa.int32(),
    pa.int64(),
    pa.float32(),
    pa.float64(),
    pa.bool_(),
    pa.string(),
    pa.binary(),
    pa.binary(16),
    pa.date32(),
    pa.timestamp("us", tz="UTC"),
    pa.time64("us"),
    pa.decimal128(9, 2),
    pa.decimal128(30, 6),
]

KEYS = [pa.string(), pa.int32(), pa.int64()]


def random_type(rng: random.Random, depth: int) -> pa.DataType:
    k = rng.randrange(10)
    if depth == 0 or k < 3:
        return rng.choice(LEAVES)
    if k < 6:
        return pa.struct(
            [pa.field(f"f{i}", random_type(rng, depth - 1), nullable=rng.random() < 0.7) for i in range(rng.randrange(1, 4))]
        )
    if k < 9:
        return pa.list_(pa.field("element", random_type(rng, depth - 1), nullable=rng.random() < 0.7))
    return pa.map_(rng.choice(KEYS), random_type(rng, depth - 1))


def leaf(rng: random.Random, t: pa.DataType) -> object:
    v = rng.randrange(1000)
    if pa.types.is_boolean(t):
        return v % 2 == 1
    if pa.types.is_floating(t):
        return v / 7
    if pa.types.is_string(t):
        return "s" * (v % 5) + str(v)
    if pa.types.is_fixed_size_binary(t):
        return v.to_bytes(8, "little") * 2
    if pa.types.is_binary(t):
        return bytes(range(v % 30))
    if pa.types.is_decimal(t):
        return Decimal(v - 500).scaleb(-t.scale)
    return v


def value(rng: random.Random, t: pa.DataType, nullable: bool, null_pct: int) -> object:
    if nullable and rng.randrange(100) < null_pct:
        return None
    if pa.types.is_struct(t):
        return {f.name: value(rng, f.type, f.nullable, null_pct) for f in t}
    if pa.types.is_map(t):
        return [
            (leaf(rng, t.key_type), value(rng, t.item_type, True, null_pct)) for _ in range(rng.randrange(4))
        ]
    if pa.types.is_list(t):
        f = t.value_field
        return [value(rng, f.type, f.nullable, null_pct) for _ in range(rng.randrange(5))]
    return leaf(rng, t)


def main() -> None:
    out, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    for i in range(count):
        rows = rng.randrange(1, 1500)
        null_pct = rng.choice([0, 10, 30])
        fields = [
            pa.field(f"c{j}", random_type(rng, rng.randrange(1, 4)), nullable=rng.random() < 0.7)
            for j in range(rng.randrange(1, 4))
        ]
        schema = pa.schema(fields)
        cols = [pa.array([value(rng, f.type, f.nullable, null_pct) for _ in range(rows)], type=f.type) for f in fields]
        table = pa.Table.from_arrays(cols, schema=schema)
        settings = {
            "compression": rng.choice(["none", "snappy", "zstd", "gzip", "lz4"]),
            "use_dictionary": rng.random() < 0.6,
            "data_page_version": rng.choice(["1.0", "2.0"]),
            "data_page_size": rng.choice([64, 512, 1 << 20]),
            "write_batch_size": rng.choice([7, 100, 1024]),
            "row_group_size": rng.randrange(1, rows + 1),
            "use_compliant_nested_type": rng.random() < 0.5,
            "store_schema": rng.random() < 0.5,
        }
        stem = out / f"{i:03d}"
        pq.write_table(table, f"{stem}.parquet", **settings)
        Path(f"{stem}.txt").write_text(f"{table.schema} {settings}".replace("\n", ", "))


if __name__ == "__main__":
    main()
