"""Client.read against the Apache Iceberg Java oracle's rows.

Every expected row comes from testdata/expected and
testdata/expected-queries (written by Iceberg Java), never from iceflight.
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.flight as fl
import pytest

import iceflight
from _oracle import EXPECTED, arrow_rows, index, oracle_rows, queries, query_rows, scan


def test_tables_lists_every_sample_table(client: iceflight.Client) -> None:
    expected = {d.name for d in EXPECTED.iterdir() if d.is_dir()}
    assert expected <= set(client.tables())


@pytest.mark.parametrize(
    "table",
    [
        "samples.trips",  # 20,000 rows over 4 endpoints
        "samples.all_types",  # every primitive and nested type, NaN, extremes
        "samples.eq_deletes_evolved",  # equality deletes across schema evolution, 15 endpoints
        "samples.pos_deletes_rowgroups",
        "samples.dv_many_files",
        "samples.v3_lineage",
    ],
)
def test_read_current_snapshot_equals_java(client: iceflight.Client, table: str) -> None:
    entry, rows = scan(table)
    got = client.read(table)
    assert got.num_rows == entry["rows"]
    assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"])


@pytest.mark.parametrize("table", ["samples.eq_deletes_evolved", "samples.history", "samples.readded_column"])
def test_every_snapshot_by_id_equals_java(client: iceflight.Client, table: str) -> None:
    for entry in index(table)["scans"][1:]:
        _, rows = scan(table, entry["name"])
        got = client.read(table, snapshot_id=entry["snapshot_id"])
        assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"]), entry["name"]


def test_as_of_reads_the_snapshot_current_at_that_time(client: iceflight.Client) -> None:
    table = "samples.history"
    for snap in client.snapshots(table):
        entry, rows = scan(table, f"snapshot-{snap.snapshot_id}")
        want = oracle_rows(rows, entry["schema"])
        aware = snap.timestamp
        naive = aware.replace(tzinfo=None)  # naive is read as UTC
        elsewhere = aware.astimezone(dt.timezone(dt.timedelta(hours=-5)))
        for as_of in (snap.timestamp_ms, aware, naive, elsewhere):
            plan = client.plan(table, as_of=as_of)
            assert plan.snapshot_id == snap.snapshot_id, as_of
            assert arrow_rows(plan.read(), entry["schema"]) == want


def test_as_of_before_the_first_snapshot_is_snapshot_not_found(client: iceflight.Client) -> None:
    first = client.snapshots("samples.history")[0]
    with pytest.raises(iceflight.SnapshotNotFoundError, match="samples.history"):
        client.read("samples.history", as_of=first.timestamp_ms - 1)


def test_ref_main_reads_the_current_snapshot(client: iceflight.Client) -> None:
    entry, rows = scan("samples.history")
    refs = client.refs("samples.history")
    assert refs["main"] == iceflight.Ref(snapshot_id=entry["snapshot_id"], type="branch")
    got = client.read("samples.history", ref="main")
    assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"])


def test_snapshots_list_the_oracle_snapshots_oldest_first(client: iceflight.Client) -> None:
    idx = index("samples.eq_deletes_evolved")
    snaps = client.snapshots("samples.eq_deletes_evolved")
    assert {s.snapshot_id for s in snaps} == {s["snapshot_id"] for s in idx["scans"][1:]}
    assert [s.timestamp_ms for s in snaps] == sorted(s.timestamp_ms for s in snaps)
    assert [s.snapshot_id for s in snaps if s.current] == [idx["current_snapshot_id"]]


# Oracle queries run with their REST expression filter (dict form).
QUERIES = [
    "trips__id_across_files",
    "trips__vendor_null",
    "trips__note_not_starts_with",
    "trips__no_columns",
    "events_by_day__one_day",
    "events_by_kind__ts_range",
    "all_types__float_is_nan",
    "all_types__decimal_38_10_max",
    "all_types__date_extremes",
    "all_types__timestamptz_eq",
    "all_types__struct_field",
    "all_types__nested_projection",
    "history__snapshot_2",
    "eq_evolved__region_not_eq",
    "eq_evolved__snapshot_3",
    "pos_rowgroups__v_is_nan",
    "dv_many__replaced_vectors",
    "v3_lineage__all_lineage",
    "truncated__price_between",
    "case_insensitive__columns_and_filter",
]


@pytest.mark.parametrize("name", QUERIES)
def test_filtered_query_equals_java(client: iceflight.Client, name: str) -> None:
    q = queries()[name]
    case_sensitive = q["case_sensitive"] is not False
    got = client.read(
        q["table"],
        columns=q["columns"],
        filter=q["filter"],
        snapshot_id=q["snapshot_id"],
        case_sensitive=None if case_sensitive else False,
    )
    assert got.num_rows == q["rows"]
    assert arrow_rows(got, q["schema"], case_sensitive) == oracle_rows(query_rows(q), q["schema"])


# The same queries in the server's string syntax give the oracle's answer.
STRING_FILTERS = {
    "trips__fare_gt": "fare > 92.4",
    "trips__vendor_null": "vendor IS NULL AND id < 3000",
    "events_by_kind__kind_in": "kind IN ('click', 'view')",
    "events_by_day__one_day": "ts >= TIMESTAMP '2024-03-02 00:00:00' AND ts <= TIMESTAMP '2024-03-02 23:59:59.999999'",
    "truncated__name_prefix_4": "name STARTS WITH 'appl'",
    "dv_many__replaced_vectors": "(id >= 200 AND id <= 239) OR (id >= 300 AND id <= 339)",
}


@pytest.mark.parametrize("name", sorted(STRING_FILTERS))
def test_string_filter_equals_java(client: iceflight.Client, name: str) -> None:
    q = queries()[name]
    got = client.read(q["table"], columns=q["columns"], filter=STRING_FILTERS[name])
    assert arrow_rows(got, q["schema"]) == oracle_rows(query_rows(q), q["schema"])


def test_read_concatenates_endpoints_in_plan_order(server: str) -> None:
    client = iceflight.connect(server, max_workers=4)
    plan = client.plan("samples.trips", columns=["id"])
    assert len(plan.endpoints) > 1
    # One endpoint after another over a plain pyarrow connection.
    raw = fl.connect(server)
    want = [v for ep in plan.endpoints for v in raw.do_get(ep.ticket).read_all().column("id").to_pylist()]
    assert plan.read().column("id").to_pylist() == want
    raw.close()
    client.close()


def test_no_columns_counts_rows(client: iceflight.Client) -> None:
    entry, _ = scan("samples.eq_deletes_evolved")
    got = client.read("samples.eq_deletes_evolved", columns=[])
    assert got.num_columns == 0
    assert got.num_rows == entry["rows"]


def test_columns_come_in_request_order(client: iceflight.Client) -> None:
    got = client.read("samples.trips", columns=["fare", "id"])
    assert got.column_names == ["fare", "id"]
    assert got.schema.field("id").metadata[b"PARQUET:field_id"] == b"1"


def test_limit_stops_after_that_many_rows(client: iceflight.Client) -> None:
    got = client.read("samples.trips", limit=7)
    assert got.num_rows == 7


def test_empty_result_keeps_the_schema(client: iceflight.Client) -> None:
    got = client.read("samples.trips", columns=["id"], filter="id < 0")
    assert got.num_rows == 0
    assert got.schema.names == ["id"]
    assert isinstance(got, pa.Table)


@pytest.mark.parametrize("table", ["samples.trips", "samples.all_types", "samples.eq_deletes_evolved"])
def test_dictionary_columns_equal_java(client: iceflight.Client, table: str) -> None:
    entry, rows = scan(table)
    want = oracle_rows(rows, entry["schema"])
    kept = client.read(table, dictionary=True)
    strings = [f.name for f in client.plan(table).schema if pa.types.is_string(f.type) or pa.types.is_binary(f.type)]
    assert strings, table
    for name in strings:
        assert pa.types.is_dictionary(kept.schema.field(name).type), name
        assert pa.types.is_int32(kept.schema.field(name).type.index_type), name
    decoded = client.read(table, dictionary=True, dictionaries="decode")
    assert not any(pa.types.is_dictionary(f.type) for f in decoded.schema)
    assert arrow_rows(decoded, entry["schema"]) == want
    unified = client.read(table, dictionary=True, dictionaries="unify")
    for name in strings:
        chunks = unified.column(name).chunks
        assert all(c.dictionary.equals(chunks[0].dictionary) for c in chunks), name
    assert arrow_rows(iceflight.plan.shape_dictionaries(unified, "decode"), entry["schema"]) == want


def test_dictionary_names_columns_and_refuses_others(client: iceflight.Client) -> None:
    got = client.read("samples.trips", columns=["id", "note", "vendor"], dictionary=["vendor"])
    assert pa.types.is_dictionary(got.schema.field("vendor").type)
    assert pa.types.is_string(got.schema.field("note").type)
    assert got.to_pandas()["vendor"].dtype.name == "category"
    for bad in (["fare"], ["nope"]):
        with pytest.raises(iceflight.errors.InvalidRequestError):
            client.read("samples.trips", dictionary=bad)
    with pytest.raises(ValueError):
        client.read("samples.trips", dictionary=True, dictionaries="melt")
