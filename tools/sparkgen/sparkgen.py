"""Writes the spark writer's tables of the writers corpus with Apache Spark.

Spark runs in local mode with the Iceberg runtime jar and a Hadoop catalog
whose warehouse is the folder given by --warehouse (a fixed neutral path, so
the locations recorded in the metadata never name a checkout). Every table is
written with Spark SQL the way Spark users write Iceberg tables: CREATE TABLE
with TBLPROPERTIES, INSERT, DELETE, UPDATE, MERGE INTO, ALTER TABLE. Row
values are fixed literals or functions of range(); only ids, uuids and commit
times differ between runs.

Usage: sparkgen.py --warehouse DIR --jar ICEBERG_SPARK_RUNTIME_JAR
"""

import argparse
import os
import shutil
import sys

from pyspark.sql import SparkSession

CATALOG = "spark_catalog_fixtures"
NS = "db"

# Merge-on-read for every row-level command: Spark then writes position
# delete files (format v2) or deletion vectors (format v3) instead of
# rewriting data files.
MOR = (
    "'write.delete.mode'='merge-on-read', "
    "'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)


def session(warehouse, jar):
    """A local[2] session with one Hadoop catalog rooted at warehouse."""
    return (
        SparkSession.builder.master("local[2]")
        .appName("iceflight-sparkgen")
        .config("spark.jars", jar)
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(f"spark.sql.catalog.{CATALOG}", "org.apache.iceberg.spark.SparkCatalog")
        .config(f"spark.sql.catalog.{CATALOG}.type", "hadoop")
        .config(f"spark.sql.catalog.{CATALOG}.warehouse", warehouse)
        .config("spark.sql.defaultCatalog", CATALOG)
        # Timestamps with zone are read and shown in UTC, so the literals
        # below mean the same instant on every machine.
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )


def partitioned(sql):
    """Hidden partitioning by days(ts), bucket(4, id) and truncate(3, name),
    then a partition spec change (months instead of days)."""
    sql(f"""CREATE TABLE {NS}.partitioned (id bigint, name string, ts timestamp, amount double)
        USING iceberg PARTITIONED BY (days(ts), bucket(4, id), truncate(3, name))
        TBLPROPERTIES ('format-version'='2')""")
    sql(f"""INSERT INTO {NS}.partitioned VALUES
        (1, 'alpha', TIMESTAMP'2025-03-01 08:00:00', 1.5),
        (2, 'alphabet', TIMESTAMP'2025-03-01 23:59:59.999999', 2.25),
        (3, 'beta', TIMESTAMP'2025-03-02 00:00:00', NULL),
        (4, NULL, TIMESTAMP'2025-03-02 12:30:00', 4.0),
        (5, 'be', NULL, 5.5)""")
    sql(f"""INSERT INTO {NS}.partitioned
        SELECT id, concat('name', CAST(id % 7 AS string)),
               TIMESTAMP'2025-03-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 5 AS int), CAST(id AS int), 0, 0),
               id / 4.0
        FROM range(6, 40)""")
    sql(f"ALTER TABLE {NS}.partitioned REPLACE PARTITION FIELD ts_day WITH months(ts)")
    sql(f"""INSERT INTO {NS}.partitioned VALUES
        (100, 'gamma', TIMESTAMP'2025-04-15 10:00:00', 100.0),
        (101, 'gammaray', TIMESTAMP'2025-05-01 00:00:00', -1.0)""")


def row_level(sql, name, version):
    """DELETE, UPDATE and MERGE INTO in merge-on-read mode on a table of the
    given format version."""
    t = f"{NS}.{name}"
    sql(f"""CREATE TABLE {t} (id int, category string, qty int, note string)
        USING iceberg PARTITIONED BY (category)
        TBLPROPERTIES ('format-version'='{version}', {MOR})""")
    sql(f"""INSERT INTO {t}
        SELECT CAST(id AS int), CASE WHEN id % 3 = 0 THEN 'a' WHEN id % 3 = 1 THEN 'b' ELSE 'c' END,
               CAST(id * 10 AS int), concat('row ', CAST(id AS string))
        FROM range(0, 30)""")
    sql(f"DELETE FROM {t} WHERE id % 4 = 1")
    sql(f"UPDATE {t} SET qty = qty + 1, note = 'updated' WHERE id BETWEEN 10 AND 14")
    sql(f"""MERGE INTO {t} AS target
        USING (SELECT * FROM VALUES
                 (2, 'c', 0, 'merge delete'),
                 (3, 'a', 333, 'merge update'),
                 (6, 'a', 666, 'merge update'),
                 (100, 'b', 1000, 'merge insert'),
                 (101, NULL, 1010, 'merge insert, null category')
               AS s(id, category, qty, note)) AS source
        ON target.id = source.id
        WHEN MATCHED AND source.qty = 0 THEN DELETE
        WHEN MATCHED THEN UPDATE SET target.qty = source.qty, target.note = source.note
        WHEN NOT MATCHED THEN INSERT *""")
    sql(f"DELETE FROM {t} WHERE id = 100")


def evolved(sql):
    """Add, rename and drop columns and promote int to long, float to double
    and decimal(9,2) to decimal(18,2), with data written under each schema."""
    t = f"{NS}.evolved"
    sql(f"""CREATE TABLE {t} (id int, a string, b float, price decimal(9,2), gone string)
        USING iceberg TBLPROPERTIES ('format-version'='2')""")
    sql(f"""INSERT INTO {t} VALUES
        (1, 'one', 1.5, 10.25, 'x'), (2, 'two', NULL, -0.01, 'y'), (2147483647, 'max', 3.25, 9999999.99, NULL)""")
    sql(f"ALTER TABLE {t} ADD COLUMN added string")
    sql(f"ALTER TABLE {t} RENAME COLUMN a TO renamed")
    sql(f"INSERT INTO {t} VALUES (3, 'three', 2.5, 1.00, 'z', 'new')")
    sql(f"ALTER TABLE {t} DROP COLUMN gone")
    sql(f"ALTER TABLE {t} ALTER COLUMN id TYPE bigint")
    sql(f"ALTER TABLE {t} ALTER COLUMN b TYPE double")
    sql(f"ALTER TABLE {t} ALTER COLUMN price TYPE decimal(18,2)")
    sql(f"INSERT INTO {t} VALUES (9223372036854775807, 'big', 1.0E300, 1234567890123456.78, 'after promotion')")
    sql(f"ALTER TABLE {t} ADD COLUMN nested struct<x: int, y: string>")
    sql(f"INSERT INTO {t} VALUES (4, 'four', 4.0, 4.44, NULL, named_struct('x', 4, 'y', 'four'))")


def file_format(sql, fmt):
    """A table whose data and delete files are written as fmt
    (write.format.default, write.delete.format.default), over three
    snapshots: two inserts and a merge-on-read DELETE."""
    t = f"{NS}.{fmt}_files"
    sql(f"""CREATE TABLE {t} (id bigint, s string, d date, ts timestamp, ntz timestamp_ntz,
                              dec decimal(10,3), flag boolean, tags array<string>)
        USING iceberg PARTITIONED BY (bucket(2, id))
        TBLPROPERTIES ('format-version'='2', 'write.format.default'='{fmt}',
                       'write.delete.format.default'='{fmt}', {MOR})""")
    sql(f"""INSERT INTO {t} VALUES
        (1, 'a', DATE'2024-02-29', TIMESTAMP'2024-02-29 12:00:00', TIMESTAMP_NTZ'2024-02-29 12:00:00', 1.5, true, array('x', 'y')),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, 'ü', DATE'1970-01-01', TIMESTAMP'1969-12-31 23:59:59.999999', TIMESTAMP_NTZ'1900-01-01 00:00:00', -0.001, false, array()),
        (4, 'd', DATE'9999-12-31', TIMESTAMP'2038-01-19 03:14:08', TIMESTAMP_NTZ'2262-04-11 23:47:16.854775', 9999999.999, true, array(NULL, 'z'))""")
    sql(f"""INSERT INTO {t} SELECT id, concat('s', CAST(id AS string)), DATE'2025-01-01' + CAST(id AS int),
               TIMESTAMP'2025-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id AS int), 0, 0),
               TIMESTAMP_NTZ'2025-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, CAST(id AS int), 0),
               CAST(id AS decimal(10,3)) / 8, id % 2 = 0, array(CAST(id AS string))
        FROM range(10, 20)""")
    # id % 3 cannot be decided from column bounds, so Spark writes position
    # deletes in the table's format instead of dropping whole files.
    sql(f"DELETE FROM {t} WHERE id % 3 = 0")


def nested(sql):
    """Structs, lists and maps, nested in one another, with nulls at every
    level."""
    t = f"{NS}.nested"
    sql(f"""CREATE TABLE {t} (
            id int,
            point struct<x: double, y: double, label: struct<text: string, lang: string>>,
            tags array<string>,
            matrix array<array<int>>,
            attrs map<string, string>,
            scores map<string, struct<value: int, best: boolean>>,
            events array<struct<at: timestamp, kind: string, extra: map<string, bigint>>>)
        USING iceberg TBLPROPERTIES ('format-version'='2')""")
    sql(f"""INSERT INTO {t} VALUES
        (1, named_struct('x', 1.0D, 'y', -2.5D, 'label', named_struct('text', 'origin', 'lang', 'en')),
            array('a', 'b'), array(array(1, 2), array(3)), map('k1', 'v1', 'k2', NULL),
            map('math', named_struct('value', 90, 'best', true)),
            array(named_struct('at', TIMESTAMP'2025-01-01 00:00:00', 'kind', 'start', 'extra', map('n', 1L)))),
        (2, named_struct('x', NULL, 'y', 0.0D, 'label', NULL),
            array(NULL), array(array(), NULL), map(), map('art', NULL),
            array(named_struct('at', NULL, 'kind', NULL, 'extra', NULL), NULL)),
        (3, NULL, NULL, NULL, NULL, NULL, NULL)""")
    sql(f"""INSERT INTO {t} SELECT CAST(id AS int),
            named_struct('x', CAST(id AS double), 'y', CAST(id AS double) / 2,
                         'label', named_struct('text', concat('p', CAST(id AS string)), 'lang', 'de')),
            array(concat('t', CAST(id AS string))), array(array(CAST(id AS int))),
            map('id', CAST(id AS string)),
            map('x', named_struct('value', CAST(id AS int), 'best', id % 2 = 0)),
            array()
        FROM range(4, 12)""")


def types(sql):
    """Decimals of several precisions, timestamps with and without zone,
    binary, uuids stored as strings, and the other primitives."""
    t = f"{NS}.types"
    sql(f"""CREATE TABLE {t} (
            id bigint, b boolean, i int, l bigint, f float, d double,
            dec_small decimal(9,2), dec_mid decimal(18,6), dec_wide decimal(38,10),
            day date, ts timestamp, ntz timestamp_ntz, bin binary, uid string, s string)
        USING iceberg TBLPROPERTIES ('format-version'='2')""")
    sql(f"""INSERT INTO {t} VALUES
        (1, true, -2147483648, -9223372036854775808, CAST('NaN' AS float), CAST('Infinity' AS double),
            -9999999.99, 123456789012.345678, 1234567890123456789012345678.9012345678,
            DATE'0001-01-01', TIMESTAMP'2025-06-30 23:59:59.123456', TIMESTAMP_NTZ'2025-06-30 23:59:59.123456',
            X'00FF10', 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', 'plain'),
        (2, false, 2147483647, 9223372036854775807, CAST(-0.0 AS float), CAST('-Infinity' AS double),
            0.01, -0.000001, -0.0000000001,
            DATE'2000-02-29', TIMESTAMP'1970-01-01 00:00:00', TIMESTAMP_NTZ'1970-01-01 00:00:00',
            X'', '00000000-0000-0000-0000-000000000000', ''),
        (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (4, true, 0, 0, CAST('3.4028235E38' AS float), 4.9E-324D, 0.00, 0.000000, 0E-10,
            DATE'1969-12-31', TIMESTAMP'1969-07-20 20:17:40', TIMESTAMP_NTZ'1969-07-20 20:17:40',
            X'DEADBEEF', '123e4567-e89b-12d3-a456-426614174000', 'multi\\nline "quoted" ☃')""")


def history(sql):
    """Several snapshots for time travel: appends, an INSERT OVERWRITE and a
    tag and a branch on older snapshots."""
    t = f"{NS}.history"
    sql(f"""CREATE TABLE {t} (id int, v string) USING iceberg PARTITIONED BY (bucket(2, id))
        TBLPROPERTIES ('format-version'='2')""")
    sql(f"INSERT INTO {t} VALUES (1, 'first'), (2, 'first')")
    sql(f"ALTER TABLE {t} CREATE TAG first_load")
    sql(f"INSERT INTO {t} VALUES (3, 'second'), (4, 'second')")
    sql(f"ALTER TABLE {t} CREATE BRANCH before_overwrite")
    sql(f"INSERT OVERWRITE {t} SELECT id, 'overwritten' FROM {t} WHERE id % 2 = 0")
    sql(f"INSERT INTO {t} VALUES (5, 'after overwrite')")
    sql(f"INSERT INTO {t}.branch_before_overwrite VALUES (6, 'on the branch')")


def checksum_files(root):
    """The local Hadoop file system writes a .NAME.crc beside every file; they
    are not part of the table and would double the file count."""
    removed = 0
    for folder, _, files in os.walk(root):
        for f in files:
            if f.startswith(".") and f.endswith(".crc"):
                os.remove(os.path.join(folder, f))
                removed += 1
    return removed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--jar", required=True)
    args = ap.parse_args()
    warehouse = os.path.abspath(args.warehouse)
    shutil.rmtree(warehouse, ignore_errors=True)
    os.makedirs(warehouse)

    spark = session(warehouse, os.path.abspath(args.jar))
    spark.sparkContext.setLogLevel("WARN")

    def sql(stmt):
        spark.sql(stmt).collect()

    print(f"spark {spark.version}, warehouse {warehouse}", file=sys.stderr)
    sql(f"CREATE NAMESPACE {NS}")
    partitioned(sql)
    row_level(sql, "mor_v2", 2)
    row_level(sql, "mor_v3", 3)
    evolved(sql)
    for fmt in ("orc", "avro", "parquet"):
        file_format(sql, fmt)
    nested(sql)
    types(sql)
    history(sql)
    spark.stop()
    print(f"removed {checksum_files(warehouse)} .crc files", file=sys.stderr)


if __name__ == "__main__":
    main()
