"""Writes the ORC files of this folder with pyarrow (Apache ORC's C++ writer).

The rows are made here, deterministically, and written twice: once as ORC in
every codec and format version, once as rows.jsonl.gz, the values the files must
decode to. head-zlib.orc holds the first HEAD_ROWS of them in one small stripe
with row indexes and bloom filters. union.orc puts a union column, which the
reader refuses, between timestamps of around 1900 and decimal(38,18) values;
union.jsonl.gz holds its other two columns. Run from this folder: python3 gen.py
(pyarrow 26 wrote the files committed next to it).

rows.jsonl.gz: one object per row, columns by name. Integers are numbers; floats
are numbers, or "NaN" / "Infinity" / "-Infinity"; decimals are strings; dates
are days since 1970-01-01; timestamps are nanoseconds since the epoch (the
wall-clock time taken as UTC for the zone-less column); binary is hex; maps
are [[key, value], ...].
"""

import datetime
import gzip
import decimal
import json
import math
import random

import pyarrow as pa
import pyarrow.orc as orc

ROWS = 600
HEAD_ROWS = 20
UNION_ROWS = 100
rng = random.Random(20240501)
decimal.getcontext().prec = 60


def nulls(values, every, phase=0):
    return [None if (i + phase) % every == 0 else v for i, v in enumerate(values)]


def column_data():
    n = range(ROWS)
    big_ints = [rng.randrange(-(2**63), 2**63) for _ in n]
    # Mostly small with rare outliers: the writer picks patched base.
    patched = [rng.randrange(0, 200) if i % 97 else rng.randrange(2**20, 2**30) for i in n]
    delta = []
    v = -1000
    for i in n:
        v += rng.randrange(0, 50)
        delta.append(v)
    floats = [rng.uniform(-1e6, 1e6) for _ in n]
    floats[3], floats[4], floats[5] = float("nan"), float("inf"), float("-inf")
    words = ["alpha", "beta", "gamma", "délta", "", "ε-epsilon"]
    epoch = datetime.datetime(1970, 1, 1)
    ts = []
    for i in n:
        secs = rng.randrange(-3 * 10**9, 3 * 10**9)  # about 1875 to 2065
        nanos = rng.choice([0, 1, 999_999_999, 500_000_000, 123_456_789, 1000, rng.randrange(10**9)])
        ts.append(secs * 10**9 + nanos)
    ts[10] = -1_500_000_000  # 1969-12-31 23:59:58.5: negative with a fraction
    ts[11] = -1
    ts[12] = 0
    return {
        "b": pa.array(nulls([i % 3 == 0 for i in n], 7), pa.bool_()),
        "i8": pa.array(nulls([rng.randrange(-128, 128) for _ in n], 11), pa.int8()),
        "i16": pa.array([rng.randrange(-(2**15), 2**15) for _ in n], pa.int16()),
        "i32": pa.array(nulls(patched, 13), pa.int32()),
        "i64_seq": pa.array([3 * i - 700 for i in n], pa.int64()),
        "i64_down": pa.array([10**12 - 7 * i for i in n], pa.int64()),
        "i64_delta": pa.array(delta, pa.int64()),
        "i64_repeat": pa.array([(i // 9) * 1_000_003 for i in n], pa.int64()),
        "i64_rand": pa.array(nulls(big_ints, 17), pa.int64()),
        "f32": pa.array(nulls(floats, 19), pa.float32()),
        "f64": pa.array(nulls(floats, 23), pa.float64()),
        "s_few": pa.array(nulls([words[rng.randrange(len(words))] for _ in n], 5), pa.string()),
        "s_many": pa.array([f"row {i} {rng.getrandbits(40):x} ✓" for i in n], pa.string()),
        "bin": pa.array(nulls([rng.randbytes(rng.randrange(0, 12)) for _ in n], 9), pa.binary()),
        "dec_small": pa.array(nulls([decimal.Decimal(rng.randrange(-10**10 + 1, 10**10)).scaleb(-2) for _ in n], 29), pa.decimal128(10, 2)),
        "dec_big": pa.array([decimal.Decimal(rng.randrange(-10**38 + 1, 10**38)).scaleb(-6) for _ in n], pa.decimal128(38, 6)),
        "d": pa.array(nulls([rng.randrange(-200_000, 200_000) for _ in n], 31), pa.int32()).cast(pa.date32()),
        "ts": pa.array(nulls(ts, 37), pa.int64()).cast(pa.timestamp("ns")),
        "tsz": pa.array(nulls(ts[::-1], 41), pa.int64()).cast(pa.timestamp("ns", tz="UTC")),
        "lst": pa.array(nulls([[None if j == 2 else i * j for j in range(i % 5)] for i in n], 6), pa.list_(pa.int32())),
        "mp": pa.array(nulls([[(f"k{j}", i - j) for j in range(i % 4)] for i in n], 8), pa.map_(pa.string(), pa.int64())),
        "st": pa.array(nulls([{"a": None if i % 10 == 0 else i, "b": words[i % len(words)]} for i in n], 12),
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "nested": pa.array(nulls([[{"x": i + k, "y": [str(k)] * k} for k in range(i % 3)] for i in n], 14),
                           pa.list_(pa.struct([("x", pa.int64()), ("y", pa.list_(pa.string()))]))),
    }


def to_json(v, t):
    if v is None:
        return None
    if pa.types.is_floating(t):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_date32(t):
        return (v - datetime.date(1970, 1, 1)).days
    if pa.types.is_binary(t):
        return v.hex()
    if pa.types.is_map(t):
        return [[to_json(k, t.key_type), to_json(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t):
        return [to_json(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: to_json(v[f.name], f.type) for f in t}
    return v


def write_rows(table, path):
    """Writes the rows of table as JSON lines, gzipped without a timestamp so
    that running gen.py again gives the same bytes."""
    cols = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            cols[name] = col.cast(pa.int64()).to_pylist()
        else:
            cols[name] = [to_json(v, col.type) for v in col.to_pylist()]
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        for i in range(table.num_rows):
            line = json.dumps({k: cols[k][i] for k in table.column_names}, ensure_ascii=False) + "\n"
            gz.write(line.encode("utf-8"))


def union_table():
    """A timestamp, a sparse union of int and string, and a decimal(38,18):
    the layout of Apache ORC's testUnionAndTimestamp (column ids 1, 2 with
    children 3 and 4, then 5)."""
    n = range(UNION_ROWS)
    base = int(datetime.datetime(1900, 1, 1).replace(tzinfo=datetime.timezone.utc).timestamp())
    # Around 1900: whole seconds before 1970, with and without fractions.
    ts = [(base + rng.randrange(-10 * 365 * 86400, 10 * 365 * 86400)) * 10**9
          + rng.choice([0, 1, 999_999_999, 500_000_000, rng.randrange(10**9)]) for _ in n]
    tags = [i % 2 for i in n]
    union = pa.UnionArray.from_sparse(
        pa.array(tags, pa.int8()),
        [pa.array([i if t == 0 else None for i, t in zip(n, tags)], pa.int32()),
         pa.array([f"s{i}" if t == 1 else None for i, t in zip(n, tags)], pa.string())],
        field_names=["i", "s"])
    decs = [decimal.Decimal(rng.randrange(-10**38 + 1, 10**38)).scaleb(-18) for _ in n]
    return pa.table({
        "time": pa.array(nulls(ts, 7), pa.int64()).cast(pa.timestamp("ns")),
        "union": union,
        "decimal": pa.array(nulls(decs, 11, 3), pa.decimal128(38, 18)),
    })


def main():
    table = pa.table(column_data())
    write_rows(table, "rows.jsonl.gz")
    variants = [
        ("none", "0.12", "uncompressed", 0.0),
        ("zlib", "0.12", "zlib", 1.0),
        ("snappy", "0.12", "snappy", 0.0),
        ("lz4", "0.12", "lz4", 1.0),
        ("zstd", "0.12", "zstd", 0.0),
        ("v0.11", "0.11", "zlib", 1.0),
    ]
    for name, version, codec, dictionary in variants:
        orc.write_table(table, f"rows-{name}.orc", file_version=version, compression=codec,
                        stripe_size=4096, batch_size=100, compression_block_size=65536,
                        dictionary_key_size_threshold=dictionary)
    orc.write_table(table.slice(0, HEAD_ROWS), "head-zlib.orc", compression="zlib",
                    row_index_stride=8, dictionary_key_size_threshold=1.0,
                    bloom_filter_columns=[4, 12, 18])  # i32, s_few, ts
    unions = union_table()
    orc.write_table(unions, "union.orc", compression="zlib")
    write_rows(unions.drop_columns(["union"]), "union.jsonl.gz")


if __name__ == "__main__":
    main()
