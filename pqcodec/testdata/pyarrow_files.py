"""Write random flat Parquet files with pyarrow, for pqcodec's differential test.

Usage: pyarrow_files.py OUT_DIR SEED COUNT

Each file NNN.parquet comes with NNN.arrow, the same table as an Arrow IPC
file (what pyarrow meant to write), and NNN.txt, the writer settings.
"""

import random
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

TYPES = [
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
    pa.timestamp("us"),
    pa.time64("us"),
    pa.decimal128(9, 2),
    pa.decimal128(18, 4),
    pa.decimal128(30, 6),
]


def value(rng: random.Random, t: pa.DataType, v: int) -> object:
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
        return Decimal(v % 10_000_000 - 5_000_000).scaleb(-t.scale)
    if pa.types.is_time64(t):
        return v % 86_400_000_000
    bits = 32 if pa.types.is_int32(t) or pa.types.is_date32(t) else 64
    if v % 61 == 3:
        # The type's extremes, whose deltas wrap.
        return [-(1 << (bits - 1)), (1 << (bits - 1)) - 1][v % 2]
    if bits == 32:
        return v % (1 << 31) - (1 << 30)
    return v * 1_000_003 - (1 << 40)


def column(rng: random.Random, t: pa.DataType, rows: int) -> pa.Array:
    distinct = rng.choice([1, 7, 500, 1 << 40])
    null_pct = rng.choice([0, 0, 2, 40, 100])
    vals = [
        None if rng.randrange(100) < null_pct else value(rng, t, rng.randrange(distinct))
        for _ in range(rows)
    ]
    return pa.array(vals, type=t)


def encodings(t: pa.DataType, decimal_as_int: bool) -> list[str]:
    """The value encodings beyond PLAIN that Arrow C++ writes for a column of t."""
    ints = ["DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"]
    if pa.types.is_decimal(t):
        if decimal_as_int and t.precision <= 18:
            return ints
        return ["BYTE_STREAM_SPLIT", "DELTA_BYTE_ARRAY"]
    if pa.types.is_integer(t) or pa.types.is_temporal(t):
        return ints
    if pa.types.is_floating(t):
        return ["BYTE_STREAM_SPLIT"]
    if pa.types.is_fixed_size_binary(t):
        return ["BYTE_STREAM_SPLIT", "DELTA_BYTE_ARRAY"]
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return ["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]
    return []


def main() -> None:
    out, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    for i in range(count):
        rows = rng.randrange(1, 4000)
        names = [f"c{j}" for j in range(rng.randrange(1, 6))]
        types = [rng.choice(TYPES) for _ in names]
        table = pa.table({n: column(rng, t, rows) for n, t in zip(names, types)})
        settings = {
            "compression": rng.choice(["none", "snappy", "zstd", "gzip", "lz4"]),
            "use_dictionary": rng.random() < 0.6,
            "data_page_version": rng.choice(["1.0", "2.0"]),
            "data_page_size": rng.choice([128, 4096, 1 << 20]),
            "row_group_size": rng.randrange(1, rows + 1),
            "dictionary_pagesize_limit": rng.choice([256, 1 << 20]),
            "write_statistics": rng.random() < 0.5,
            "store_decimal_as_integer": rng.random() < 0.5,
        }
        if rng.random() < 0.6:
            # Each column a dictionary, PLAIN, or an encoding beyond them;
            # column_encoding holds only for columns without a dictionary.
            dictionary, enc = [], {}
            for n, t in zip(names, types):
                choices = encodings(t, settings["store_decimal_as_integer"])
                pick = rng.randrange(len(choices) + 2)
                if pick == 0:
                    dictionary.append(n)
                elif pick == 1:
                    enc[n] = "PLAIN"
                else:
                    enc[n] = choices[pick - 2]
            settings["use_dictionary"] = dictionary
            if enc:
                settings["column_encoding"] = enc
        stem = out / f"{i:03d}"
        pq.write_table(table, f"{stem}.parquet", **settings)
        with pa.ipc.new_file(f"{stem}.arrow", table.schema) as w:
            w.write_table(table)
        Path(f"{stem}.txt").write_text(f"{table.schema} {settings}".replace("\n", ", "))


if __name__ == "__main__":
    main()
