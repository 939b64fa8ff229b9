"""PyIceberg writes through flightd's Iceberg REST catalog (issue 29): appends,
overwrites, deletes, schema and partition evolution, staged creates, renames,
drops with purge, and appends racing iceflight's own DoPut. After each, the
iceflight Python client reads through Flight exactly what PyIceberg wrote, and
PyIceberg's own scan agrees.
"""

from __future__ import annotations

import datetime
import pathlib
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import iceflight
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from _flightd import Server
from _rest import catalog, failed_calls, filter_json, known_gap, rest_server_fixture, rows  # noqa: F401 (the rest_server fixture)
from iceflight.errors import TableNotFoundError
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import NoSuchTableError, RESTError
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual, LessThan
from pyiceberg.table import Table
from pyiceberg.transforms import DayTransform, TruncateTransform
from pyiceberg.types import LongType, StringType

NS = "pyw"

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("qty", pa.int32()),
        pa.field("category", pa.string()),
    ]
)
CATEGORIES = ["a", "b", "c"]
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def batch(start: int, stop: int, schema: pa.Schema = SCHEMA) -> pa.Table:
    """Rows start..stop-1 of the tests' tables: a few days, three categories, some nulls."""
    ids = range(start, stop)
    cols: dict[str, list[Any]] = {
        "id": list(ids),
        "name": [None if i % 7 == 0 else f"row {i}" for i in ids],
        "ts": [T0 + datetime.timedelta(hours=5 * i) for i in ids],
        "qty": [i % 50 for i in ids],
        "category": [CATEGORIES[i % 3] for i in ids],
        "label": [f"label {i}" for i in ids],
        "note": [f"note {i}" if i % 2 else None for i in ids],
    }
    return pa.table({f.name: pa.array(cols[f.name], f.type) for f in schema}, schema=schema)


@pytest.fixture(scope="module")
def server(rest_server: tuple[Server, pathlib.Path]) -> Server:
    return rest_server[0]


@pytest.fixture(scope="module")
def rest(rest_server: tuple[Server, pathlib.Path]) -> RestCatalog:
    server, wh = rest_server
    c = catalog(server, wh)
    c.create_namespace(NS)
    return c


@pytest.fixture(scope="module")
def flight(server: Server) -> Iterator[iceflight.Client]:
    with iceflight.connect(f"grpc://{server.flight}") as c:
        yield c


def assert_reads(rest: RestCatalog, flight: iceflight.Client, name: str, want: pa.Table, **scan: Any) -> None:
    """Flight's read of name and PyIceberg's own scan are both want's rows."""
    s = rest.load_table(name).scan(**scan)
    schema = s.projection()
    opts = {"snapshot_id": scan["snapshot_id"]} if "snapshot_id" in scan else {}
    assert rows(flight.read(name, **opts), schema) == rows(want, schema), f"{name}: Flight read {opts}"
    assert rows(s.to_arrow(), schema) == rows(want, schema), f"{name}: PyIceberg's scan {opts}"


def test_append_reads_back_through_flight(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.appended"
    tb = rest.create_table(name, schema=SCHEMA)
    tb.append(batch(0, 100))
    first = tb.current_snapshot()
    assert first is not None
    tb.append(batch(100, 150))
    assert_reads(rest, flight, name, batch(0, 150))
    assert_reads(rest, flight, name, batch(0, 100), snapshot_id=first.snapshot_id)


def test_overwrite_reads_back_through_flight(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.overwritten"
    tb = rest.create_table(name, schema=SCHEMA)
    tb.append(batch(0, 100))
    tb.overwrite(batch(200, 210))
    assert_reads(rest, flight, name, batch(200, 210))
    tb.overwrite(batch(300, 305), overwrite_filter=GreaterThanOrEqual("id", 205))
    assert_reads(rest, flight, name, pa.concat_tables([batch(200, 205), batch(300, 305)]))


def test_delete_reads_back_through_flight(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.deleted"
    tb = rest.create_table(name, schema=SCHEMA)
    with tb.update_spec() as spec:
        spec.add_identity("category")
    tb.append(batch(0, 120))
    tb.delete(EqualTo("category", "b"))  # whole files
    tb.delete(LessThan("id", 30))  # rewrites part of each remaining file
    want = batch(0, 120)
    want = want.filter(pc.and_(pc.not_equal(want["category"], "b"), pc.greater_equal(want["id"], 30)))
    assert 0 < want.num_rows < 120
    assert_reads(rest, flight, name, want)


def test_schema_evolution_reads_back_through_flight(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.evolved"
    tb = rest.create_table(name, schema=SCHEMA)
    tb.append(batch(0, 40))
    before = tb.current_snapshot()
    assert before is not None
    with tb.update_schema() as update:
        update.add_column("note", StringType())
        update.rename_column("name", "label")
        update.update_column("qty", field_type=LongType())
        update.delete_column("category")
    evolved = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("label", pa.string()),
            pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("qty", pa.int64()),
            pa.field("note", pa.string()),
        ]
    )
    tb = rest.load_table(name)
    tb.append(batch(40, 80, evolved))
    old = batch(0, 40)
    old = pa.table(
        {
            "id": old["id"],
            "label": old["name"],
            "ts": old["ts"],
            "qty": old["qty"].cast(pa.int64()),
            "note": pa.nulls(40, pa.string()),
        },
        schema=evolved,
    )
    assert_reads(rest, flight, name, pa.concat_tables([old, batch(40, 80, evolved)]))
    assert_reads(rest, flight, name, batch(0, 40), snapshot_id=before.snapshot_id)


def test_partition_evolution_reads_back_through_flight(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.repartitioned"
    tb = rest.create_table(name, schema=SCHEMA)
    with tb.update_spec() as spec:
        spec.add_identity("category")
    tb.append(batch(0, 60))
    with tb.update_spec() as spec:
        spec.remove_field("category")
        spec.add_field("ts", DayTransform(), "ts_day")
        spec.add_field("id", TruncateTransform(25), "id_trunc")
    tb.append(batch(60, 120))
    tb = rest.load_table(name)
    assert len(tb.specs()) == 3
    spec_ids = {task.file.spec_id for task in tb.scan().plan_files()}
    assert spec_ids == {1, 2}, f"data files of specs {spec_ids}"
    assert_reads(rest, flight, name, batch(0, 120))
    cut = GreaterThanOrEqual("ts", (T0 + datetime.timedelta(days=10)).isoformat())
    got = rest.load_table(name).scan(row_filter=cut)
    schema = got.projection()
    via_flight = flight.read(name, filter=filter_json(cut))
    assert 0 < via_flight.num_rows < 120
    assert rows(via_flight, schema) == rows(got.to_arrow(), schema)


@pytest.mark.parametrize("located", [False, True], ids=["default location", "given location"])
def test_create_table_transaction_commits_a_staged_table(
    rest: RestCatalog, flight: iceflight.Client, rest_server: tuple[Server, pathlib.Path], located: bool
) -> None:
    name = f"{NS}.staged_{'located' if located else 'default'}"
    location = str(rest_server[1] / NS / name.rsplit(".", 1)[1]) if located else None
    tx = rest.create_table_transaction(name, schema=SCHEMA, location=location)
    tx.append(batch(0, 25))
    assert not rest.table_exists(name), "a staged table exists before its commit"
    with pytest.raises(TableNotFoundError):
        flight.read(name)
    tx.commit_transaction()
    assert_reads(rest, flight, name, batch(0, 25))


def test_rename_on_a_directory_warehouse_is_refused_plainly(rest: RestCatalog, flight: iceflight.Client) -> None:
    # A directory warehouse names a table by its folder, and Iceberg Java's
    # HadoopCatalog cannot rename either; test_rest_namespaces.py renames in a
    # SQL catalog.
    tb = rest.create_table(f"{NS}.before_rename", schema=SCHEMA)
    tb.append(batch(0, 10))
    with pytest.raises(RESTError, match="UnsupportedOperationException") as err:
        rest.rename_table(f"{NS}.before_rename", f"{NS}.after_rename")
    assert "folder" in str(err.value)
    assert not rest.table_exists(f"{NS}.after_rename")
    assert_reads(rest, flight, f"{NS}.before_rename", batch(0, 10))


def _folder(tb: Table) -> pathlib.Path:
    return pathlib.Path(urlparse(tb.location()).path)


@known_gap(
    "PyIceberg sends DELETE /v1/namespaces/pyw/tables/purged?purgeRequested=True (Python's bool); the "
    "server purges only for the exact text 'true', answers 204 and leaves the data, manifest and manifest list files",
    AssertionError,
)
def test_drop_with_purge_removes_the_table_and_its_files(rest: RestCatalog, flight: iceflight.Client) -> None:
    name = f"{NS}.purged"
    tb = rest.create_table(name, schema=SCHEMA)
    tb.append(batch(0, 10))
    folder = _folder(tb)
    files = [pathlib.Path(urlparse(t.file.file_path).path) for t in tb.scan().plan_files()]
    assert files and all(f.exists() for f in files)
    rest.purge_table(name)
    assert not rest.table_exists(name)
    with pytest.raises(NoSuchTableError):
        rest.load_table(name)
    with pytest.raises(TableNotFoundError):
        flight.read(name)
    assert not any(f.exists() for f in files), "data files left after a purge"
    left = [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []
    assert left == [], f"files left in {folder}: {left}"


def test_concurrent_appends_from_pyiceberg_and_doput_lose_nothing(
    rest_server: tuple[Server, pathlib.Path], rest: RestCatalog, flight: iceflight.Client
) -> None:
    name = f"{NS}.raced"
    # PyIceberg retries a commit that lost a race (4 times by default); under
    # 6 writers a commit may lose more often than that.
    rest.create_table(name, schema=SCHEMA, properties={"commit.retry.num-retries": "50", "commit.retry.min-wait-ms": "10"})
    server, wh = rest_server
    per_writer, writes = 10, 5
    errors: list[str] = []

    def pyiceberg_writer(w: int) -> None:
        tb = catalog(server, wh).load_table(name)
        for k in range(writes):
            start = (w * writes + k) * per_writer
            try:
                tb.append(batch(start, start + per_writer))
            except Exception as err:  # collected: the test names every lost write
                errors.append(f"PyIceberg writer {w}, write {k}: {err!r}")

    def doput_writer(w: int) -> None:
        with iceflight.connect(f"grpc://{server.flight}") as c:
            for k in range(writes):
                start = 100_000 + (w * writes + k) * per_writer
                try:
                    c.append(name, batch(start, start + per_writer))
                except Exception as err:
                    errors.append(f"DoPut writer {w}, write {k}: {err!r}")

    threads = [threading.Thread(target=pyiceberg_writer, args=(w,)) for w in range(4)]
    threads += [threading.Thread(target=doput_writer, args=(w,)) for w in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors) + "\n" + failed_calls(server)
    want = pa.concat_tables(
        [batch(s, s + per_writer) for s in range(0, 4 * writes * per_writer, per_writer)]
        + [batch(s, s + per_writer) for s in range(100_000, 100_000 + 2 * writes * per_writer, per_writer)]
    )
    assert_reads(rest, flight, name, want)
    assert len(rest.load_table(name).snapshots()) == 6 * writes
