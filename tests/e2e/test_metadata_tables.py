"""Metadata tables and change streams through the Python client and the
``iceflight`` CLI.

The rows themselves are compared with Iceberg Java's metadata tables in
flightd's Go tests; here the clients' ways of asking for them are checked
against what Iceberg Java recorded in the table's metadata file (its
snapshot summary and snapshot list).
"""

import csv
import io
import json
import subprocess
import sys

import iceflight
import pyarrow as pa
import pytest
from _flightd import ROOT, serve

TRIPS = ROOT / "testdata" / "warehouse" / "samples" / "trips" / "metadata"


@pytest.fixture(scope="module")
def addr():
    with serve() as a:
        yield a


def _metadata() -> dict:
    hint = (TRIPS / "version-hint.text").read_text().strip()
    return json.loads((TRIPS / f"v{hint}.metadata.json").read_text())


def test_inspect_files_adds_up_to_the_summary(addr: str) -> None:
    summary = _metadata()["snapshots"][-1]["summary"]
    with iceflight.Client(f"grpc://{addr}") as c:
        files = c.inspect("samples.trips", "files", columns=["record_count", "file_path"])
    assert files.column_names == ["record_count", "file_path"]
    assert files.num_rows == int(summary["total-data-files"])
    assert sum(files.column("record_count").to_pylist()) == int(summary["total-records"])


def test_inspect_snapshots_lists_the_metadata_snapshots(addr: str) -> None:
    md = _metadata()
    with iceflight.Client(f"grpc://{addr}") as c:
        snaps = c.inspect("samples.trips", "snapshots", filter="operation = 'append'")
    assert sorted(snaps.column("snapshot_id").to_pylist()) == sorted(s["snapshot-id"] for s in md["snapshots"])


def test_inspect_refuses_an_unknown_metadata_table(addr: str) -> None:
    with iceflight.Client(f"grpc://{addr}") as c, pytest.raises(iceflight.errors.InvalidRequestError):
        c.inspect("samples.trips", "filez")


def test_cli_inspect_writes_csv(addr: str) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "iceflight", "--server", f"grpc://{addr}", "inspect", "samples.trips", "files", "--columns", "file_path,record_count"],
        capture_output=True, text=True, timeout=60,
    )
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(rows) == int(_metadata()["snapshots"][-1]["summary"]["total-data-files"])
    assert all(r["file_path"].endswith(".parquet") for r in rows)


def test_changes_take_the_table_from_one_snapshot_to_another(addr: str) -> None:
    """Applying the changes between two snapshots of samples.history to the
    rows read at the first gives the rows read at the second (rows as
    Iceberg Java wrote them)."""
    with iceflight.Client(f"grpc://{addr}") as c:
        snaps = c.snapshots("samples.history")
        first, last = snaps[0].snapshot_id, snaps[-1].snapshot_id
        start = c.read("samples.history", snapshot_id=first).to_pylist()
        end = c.read("samples.history", snapshot_id=last).to_pylist()
        changes = c.changes("samples.history", from_snapshot_id=first, to_snapshot_id=last).to_pylist()
    assert changes, "no change between the first and the last snapshot"
    assert {"_change_type", "_change_ordinal", "_commit_snapshot_id"} <= set(changes[0])
    rows = [tuple(sorted(r.items())) for r in start]
    for ch in sorted(changes, key=lambda r: r["_change_ordinal"]):
        row = tuple(sorted((k, v) for k, v in ch.items() if not k.startswith("_change") and k != "_commit_snapshot_id"))
        if ch["_change_type"] == "DELETE":
            rows.remove(row)
        else:
            rows.append(row)
    assert sorted(rows) == sorted(tuple(sorted(r.items())) for r in end)


EVENTS = ROOT / "testdata" / "warehouse" / "samples" / "events_by_day"


def _local_file(recorded: str):
    """The sample's copy of a data file its metadata records."""
    return EVENTS / recorded.split("/samples/events_by_day/", 1)[1]


def test_storage_columns_are_what_the_disk_says(addr: str) -> None:
    with iceflight.Client(f"grpc://{addr}") as c:
        t = c.read("samples.events_by_day", columns=["_file", "_size", "_time", "_etag"])
    assert t.schema.field("_time").type == pa.timestamp("us", tz="UTC")
    micros = t.column("_time").cast(pa.int64()).to_pylist()
    seen = set()
    for row, us in zip(t.to_pylist(), micros):
        st = _local_file(row["_file"]).stat()
        assert row["_size"] == st.st_size
        # The disk's time, to the microsecond an Iceberg timestamp holds.
        assert us == st.st_mtime_ns // 1000
        assert row["_etag"] is None  # a local disk has no entity tag
        seen.add(row["_file"])
    summary = json.loads((EVENTS / "metadata" / "v2.metadata.json").read_text())["snapshots"][-1]["summary"]
    assert len(seen) == int(summary["total-data-files"])
    assert t.num_rows == int(summary["total-records"])


def test_storage_columns_through_flight_sql(addr: str) -> None:
    dbapi = pytest.importorskip("adbc_driver_flightsql.dbapi")
    with dbapi.connect(f"grpc://{addr}") as conn, conn.cursor() as cur:
        cur.execute("SELECT _file, _size FROM samples.events_by_day WHERE id < 10")
        t = cur.fetch_arrow_table()
    assert t.num_rows > 0
    for row in t.to_pylist():
        assert row["_size"] == _local_file(row["_file"]).stat().st_size


def test_tickets_that_name_manifests_read_every_row(addr: str) -> None:
    summary = _metadata()["snapshots"][-1]["summary"]
    with iceflight.Client(f"grpc://{addr}") as c:
        plan = c.plan("samples.trips", tickets="manifests")
        t = plan.read()
        files = c.read("samples.trips", tickets="files")
    assert plan.statistics.manifest_tickets
    assert t.num_rows == files.num_rows == int(summary["total-records"])
    assert sorted(t.column("id").to_pylist()) == sorted(files.column("id").to_pylist())
