"""Writes small tables with Spark and the changelog views Spark makes of them.

For the change streams of issue 30 (package changelog): each table gets a
short history of appends, row-level commands (UPDATE, DELETE, MERGE INTO),
an INSERT OVERWRITE and a compaction (a replace snapshot), in copy-on-write
and merge-on-read modes, format v2 and v3. For each range of snapshots of
interest the rows of Spark's create_changelog_view (with and without
compute_updates) are recorded, or the error Spark gives, and for every
snapshot the rows Spark reads at it (VERSION AS OF), so that changes Spark
cannot show (merge-on-read tables: Iceberg's changelog scan refuses delete
files) are checked against Spark's own reads of the snapshots.

Usage: changelog.py --warehouse DIR --jar ICEBERG_SPARK_RUNTIME_JAR --out FILE_DIR
"""

import argparse
import json
import os
import shutil
import sys

from sparkgen import CATALOG, checksum_files, session

NS = "db"

MOR = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
       "'write.merge.mode'='merge-on-read'")
COW = ("'write.delete.mode'='copy-on-write', 'write.update.mode'='copy-on-write', "
       "'write.merge.mode'='copy-on-write'")

# name -> (format version, row-level mode, partitioned)
TABLES = {
    "cow_v2": (2, COW, True),
    "cow_v3": (3, COW, False),
    "mor_v2": (2, MOR, True),
    "mor_v3": (3, MOR, False),
}


def history(sql, name, version, mode, partitioned):
    """The same commands on every table. id is the identifier field; part
    partitions the partitioned ones; data has a null."""
    t = f"{NS}.{name}"
    part = "PARTITIONED BY (part)" if partitioned else ""
    sql(f"""CREATE TABLE {t} (id bigint NOT NULL, data string, part string)
        USING iceberg {part}
        TBLPROPERTIES ('format-version'='{version}', {mode})""")
    sql(f"ALTER TABLE {t} SET IDENTIFIER FIELDS id")
    sql(f"""INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y'),
        (4, NULL, 'y'), (5, 'e', 'x'), (6, 'f', 'y')""")
    sql(f"INSERT INTO {t} VALUES (7, 'g', 'x'), (8, 'h', 'y'), (9, 'i', 'x')")
    sql(f"UPDATE {t} SET data = concat(coalesce(data, 'null'), '-u') WHERE id IN (2, 8)")
    sql(f"DELETE FROM {t} WHERE id = 3")
    sql(f"""MERGE INTO {t} d USING (SELECT * FROM VALUES (4L, 'm', 'y'), (10L, 'n', 'x'), (5L, 'gone', 'x')
        AS s(id, data, part)) s ON d.id = s.id
        WHEN MATCHED AND s.data = 'gone' THEN DELETE
        WHEN MATCHED THEN UPDATE SET d.data = s.data
        WHEN NOT MATCHED THEN INSERT *""")
    sql(f"INSERT OVERWRITE {t} SELECT id, CASE WHEN id = 9 THEN 'i-o' ELSE data END, part FROM {t} WHERE part = 'x'")
    sql(f"CALL {CATALOG}.system.rewrite_data_files(table => '{t}', options => map('min-input-files', '2'))")
    sql(f"INSERT INTO {t} VALUES (11, 'k', 'y')")


def ancestors(spark, name):
    """The current snapshot's ancestry, oldest first: (id, operation)."""
    rows = spark.sql(f"""SELECT h.snapshot_id, s.operation FROM {NS}.{name}.history h
        JOIN {NS}.{name}.snapshots s ON h.snapshot_id = s.snapshot_id
        WHERE h.is_current_ancestor ORDER BY h.made_current_at""").collect()
    return [(r.snapshot_id, r.operation) for r in rows]


def plain(row):
    return json.dumps(row.asDict(), sort_keys=True, separators=(",", ":"))


def changelog(spark, name, start, end, compute_updates):
    """Spark's changelog view of (start, end], or the error it gives."""
    opts = [f"'end-snapshot-id', '{end}'"]
    if start is not None:
        opts.insert(0, f"'start-snapshot-id', '{start}'")
    view = f"{name}_changes"
    try:
        spark.sql(f"""CALL {CATALOG}.system.create_changelog_view(table => '{NS}.{name}',
            options => map({', '.join(opts)}), changelog_view => '{view}',
            compute_updates => {str(compute_updates).lower()})""").collect()
        rows = spark.sql(f"SELECT * FROM `{view}`").collect()
        return {"rows": sorted(plain(r) for r in rows)}
    except Exception as e:  # Spark's refusal is recorded as the expected answer
        msg = str(e).strip().splitlines()[0]
        return {"error": msg[:300]}


def record(spark, name):
    snaps = ancestors(spark, name)
    ids = [s for s, _ in snaps]
    ranges = [(None, ids[-1])] + [(ids[i - 1], ids[i]) for i in range(1, len(ids))]
    ranges += [(ids[0], ids[3]), (ids[1], ids[-1])]
    out = {"table": f"{NS}.{name}",
           "snapshots": [{"id": s, "operation": op} for s, op in snaps],
           "ranges": [], "snapshot_rows": {}}
    for start, end in ranges:
        for cu in (False, True):
            r = {"from": start, "to": end, "compute_updates": cu}
            r.update(changelog(spark, name, start, end, cu))
            out["ranges"].append(r)
    for s in ids:
        rows = spark.sql(f"SELECT * FROM {NS}.{name} VERSION AS OF {s}").collect()
        out["snapshot_rows"][str(s)] = sorted(plain(r) for r in rows)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--jar", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    warehouse = os.path.abspath(args.warehouse)
    shutil.rmtree(warehouse, ignore_errors=True)
    os.makedirs(warehouse)
    os.makedirs(args.out, exist_ok=True)
    spark = session(warehouse, os.path.abspath(args.jar))
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")

    def sql(stmt):
        spark.sql(stmt).collect()

    print(f"spark {spark.version}, warehouse {warehouse}", file=sys.stderr)
    sql(f"CREATE NAMESPACE {NS}")
    for name, (version, mode, partitioned) in TABLES.items():
        history(sql, name, version, mode, partitioned)
        with open(os.path.join(args.out, f"{name}.json"), "w") as f:
            json.dump(record(spark, name), f, indent=1, sort_keys=True)
            f.write("\n")
    spark.stop()
    print(f"removed {checksum_files(warehouse)} .crc files", file=sys.stderr)


if __name__ == "__main__":
    main()
