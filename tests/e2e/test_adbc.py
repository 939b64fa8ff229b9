"""ADBC's Flight SQL driver (adbc-driver-flightsql, from PyPI) against a real
flightd, and the tools that reach Flight SQL through it: pandas read_sql,
polars read_database, DuckDB over the ADBC result.

Every answer is checked against the plain protocol's answer to the same scan
(the iceflight Python client, GetFlightInfo + DoGet with a JSON command), so
the two front ends are held to one engine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import iceflight
import pyarrow as pa
import pytest
from _flightd import serve
from _sql import assert_same, need, rows, select, shape

TOKEN = "adbc-token-0123456789abcdef"
OTHER_TOKEN = "adbc-other-0123456789abcdef"


@pytest.fixture(scope="module")
def location() -> Iterator[str]:
    with serve() as addr:
        yield f"grpc://{addr}"


@pytest.fixture(scope="module")
def plain(location: str) -> Iterator[iceflight.Client]:
    with iceflight.connect(location) as c:
        yield c


@pytest.fixture
def conn(location: str) -> Iterator[Any]:
    dbapi = need("adbc_driver_flightsql.dbapi")
    with dbapi.connect(location) as c:
        yield c


def query(conn: Any, sql: str, parameters: Any = None) -> pa.Table:
    with conn.cursor() as cur:
        cur.execute(sql, parameters)
        return cur.fetch_arrow_table()


@pytest.mark.parametrize(
    ("table", "columns", "filter"),
    [
        ("samples.trips", None, None),
        ("samples.trips", ["id", "fare"], {"type": "gt", "term": "fare", "value": 10}),
        ("samples.trips", ["vendor", "id"], {"type": "in", "term": "vendor", "values": ["NYC", "CMT"]}),
        ("samples.all_types", None, None),
        ("samples.events_by_kind", ["id", "ts", "value"], {"type": "eq", "term": "kind", "value": "click"}),
        ("samples.eq_deletes_evolved", None, None),
        ("samples.v3_lineage", ["id", "v"], {"type": "not-null", "term": "name"}),
    ],
)
def test_execute_equals_the_plain_protocol(conn: Any, plain: iceflight.Client, table: str, columns: Any, filter: Any) -> None:
    got = query(conn, select(table, columns, filter))
    want = plain.read(table, columns=columns, filter=filter)
    assert_same(got, want, select(table, columns, filter))


def test_unquoted_names_match_case_insensitively(conn: Any, plain: iceflight.Client) -> None:
    got = query(conn, "SELECT ID, Fare AS f FROM Samples.Trips WHERE FARE > 10")
    want = plain.read("samples.trips", columns=["id", "fare"], filter="fare > 10")
    assert got.column_names == ["id", "f"]
    assert rows(got) == rows(want)


def test_time_travel_reads_the_snapshot_and_the_tag(conn: Any, plain: iceflight.Client) -> None:
    first = plain.snapshots("samples.history")[0].snapshot_id
    want = plain.read("samples.history", snapshot_id=first)
    assert want.num_rows < plain.read("samples.history").num_rows, "the test needs a table that grew"
    assert_same(query(conn, f"SELECT * FROM samples.history FOR SYSTEM_VERSION AS OF {first}"), want, "snapshot id")
    assert_same(query(conn, "SELECT * FROM samples.history FOR VERSION AS OF 'first'"), want, "tag")


def test_limit_cuts_the_rows(conn: Any, plain: iceflight.Client) -> None:
    got = query(conn, "SELECT id FROM samples.trips LIMIT 7")
    assert got.num_rows == 7
    assert set(rows(got)) <= set(rows(plain.read("samples.trips", columns=["id"])))


def test_count_star(conn: Any, plain: iceflight.Client) -> None:
    total = plain.read("samples.trips", columns=["id"]).num_rows
    got = query(conn, "SELECT COUNT(*) AS n FROM samples.trips")
    assert got.num_rows == 1 and got.column(0).to_pylist() == [total]
    filtered = plain.read("samples.trips", columns=["id"], filter="fare > 10").num_rows
    assert query(conn, "SELECT COUNT(*) FROM samples.trips WHERE fare > 10").column(0).to_pylist() == [filtered]


def test_prepared_statement_binds_parameters(conn: Any, plain: iceflight.Client) -> None:
    sql = "SELECT id, fare FROM samples.trips WHERE fare > ? AND vendor = ?"
    with conn.cursor() as cur:
        for fare, vendor in [(10.0, "NYC"), (30.5, "VTS")]:
            cur.execute(sql, (fare, vendor))
            got = cur.fetch_arrow_table()
            want = plain.read("samples.trips", columns=["id", "fare"], filter=f"fare > {fare} AND vendor = '{vendor}'")
            assert want.num_rows > 0, "the parameters should select some rows"
            assert_same(got, want, f"{sql} with {fare}, {vendor}")


def test_prepared_statement_by_adbc_prepare(conn: Any) -> None:
    with conn.cursor() as cur:
        cur.adbc_prepare("SELECT id FROM samples.trips WHERE passengers = ?")
        for n in (1, 2):
            cur.execute("SELECT id FROM samples.trips WHERE passengers = ?", (n,))
            assert cur.fetch_arrow_table().num_rows > 0


def test_get_objects_lists_tables_and_columns(conn: Any, plain: iceflight.Client) -> None:
    objects = conn.adbc_get_objects(depth="all", db_schema_filter="samples", table_name_filter="trips").read_all().to_pylist()
    tables = [
        (schema["db_schema_name"], table["table_name"], [c["column_name"] for c in table["table_columns"] or []])
        for catalog in objects
        for schema in catalog["catalog_db_schemas"] or []
        for table in schema["db_schema_tables"] or []
    ]
    assert tables == [("samples", "trips", plain.schema("samples.trips").names)]
    every = conn.adbc_get_objects(depth="tables").read_all().to_pylist()
    names = {
        f"{schema['db_schema_name']}.{table['table_name']}"
        for catalog in every
        for schema in catalog["catalog_db_schemas"] or []
        for table in schema["db_schema_tables"] or []
    }
    assert names == set(plain.tables())


def test_get_table_schema(conn: Any, plain: iceflight.Client) -> None:
    got = conn.adbc_get_table_schema("trips", db_schema_filter="samples")
    assert shape(got) == shape(plain.schema("samples.trips"))


def test_get_table_types(conn: Any) -> None:
    assert "TABLE" in conn.adbc_get_table_types()


def test_pandas_read_sql(conn: Any, plain: iceflight.Client) -> None:
    pd = need("pandas")
    got = pd.read_sql("SELECT id, fare FROM samples.trips WHERE fare > 10", conn).sort_values("id", ignore_index=True)
    want = plain.read("samples.trips", columns=["id", "fare"], filter="fare > 10").to_pandas().sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_polars_read_database(conn: Any, plain: iceflight.Client) -> None:
    pl = need("polars")
    got = pl.read_database("SELECT id, vendor, fare FROM samples.trips WHERE passengers >= 2", connection=conn).sort("id")
    want = pl.from_arrow(plain.read("samples.trips", columns=["id", "vendor", "fare"], filter="passengers >= 2")).sort("id")
    assert got.equals(want)


def test_duckdb_reads_the_adbc_result(conn: Any, plain: iceflight.Client) -> None:
    duckdb = need("duckdb")
    with conn.cursor() as cur:
        cur.execute("SELECT vendor, fare FROM samples.trips")
        reader = cur.fetch_record_batch()
        got = duckdb.sql("SELECT vendor, count(*), round(sum(fare), 6) FROM reader GROUP BY vendor ORDER BY vendor").fetchall()
    trips = plain.read("samples.trips", columns=["vendor", "fare"])
    want = duckdb.sql("SELECT vendor, count(*), round(sum(fare), 6) FROM trips GROUP BY vendor ORDER BY vendor").fetchall()
    assert got == want and len(got) > 1


@pytest.mark.parametrize(
    ("sql", "error", "says"),
    [
        ("SELECT id FROM samples.trips WHERE", "ProgrammingError", "position"),
        ("SELECT id FROM samples.tripz", "ProgrammingError", "samples.trips"),
        ("SELECT idd FROM samples.trips", "ProgrammingError", "id"),
        ("SELECT vendor, count(*) FROM samples.trips GROUP BY vendor", "NotSupportedError", "GROUP BY"),
        ("SELECT * FROM samples.trips a JOIN samples.history b ON a.id = b.id", "NotSupportedError", "JOIN"),
    ],
)
def test_bad_sql_says_what_is_wrong(conn: Any, sql: str, error: str, says: str) -> None:
    dbapi = need("adbc_driver_manager.dbapi")
    with pytest.raises(dbapi.Error) as info:
        query(conn, sql)
    assert type(info.value).__name__ == error, f"{sql}: {info.value!r}"
    assert says.lower() in str(info.value).lower(), f"{sql}: {info.value}"


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    d = tmp_path_factory.mktemp("adbc-auth")
    (d / "tokens").write_text(f"{TOKEN} samples\n{OTHER_TOKEN} elsewhere\n")
    digest = hashlib.sha256(b"pa55word").hexdigest()
    (d / "users").write_text(f"alice sha256:{digest} samples\n")
    with serve("--tokens", str(d / "tokens"), "--users", str(d / "users")) as addr:
        yield f"grpc://{addr}"


def test_bearer_token(secured: str) -> None:
    dbapi = need("adbc_driver_flightsql.dbapi")
    from adbc_driver_flightsql import DatabaseOptions

    with dbapi.connect(secured, db_kwargs={DatabaseOptions.AUTHORIZATION_HEADER.value: f"Bearer {TOKEN}"}) as c:
        assert query(c, "SELECT COUNT(*) FROM samples.trips").column(0).to_pylist() == [20000]
        assert query(c, "SELECT id FROM samples.trips WHERE fare > 10").num_rows > 0


def test_basic_login(secured: str) -> None:
    dbapi = need("adbc_driver_flightsql.dbapi")
    with dbapi.connect(secured, db_kwargs={"username": "alice", "password": "pa55word"}) as c:
        assert query(c, "SELECT id FROM samples.trips").num_rows == 20000


def test_no_or_wrong_credentials_are_refused(secured: str) -> None:
    dbapi = need("adbc_driver_flightsql.dbapi")
    from adbc_driver_flightsql import DatabaseOptions

    for kwargs in ({}, {DatabaseOptions.AUTHORIZATION_HEADER.value: "Bearer not-a-real-token-at-all"}):
        with pytest.raises(dbapi.Error, match="(?i)unauthenticated"):
            with dbapi.connect(secured, db_kwargs=kwargs) as c:
                query(c, "SELECT id FROM samples.trips")


def test_a_token_sees_only_its_namespaces(secured: str) -> None:
    dbapi = need("adbc_driver_flightsql.dbapi")
    from adbc_driver_flightsql import DatabaseOptions

    with dbapi.connect(secured, db_kwargs={DatabaseOptions.AUTHORIZATION_HEADER.value: f"Bearer {OTHER_TOKEN}"}) as c:
        objects = c.adbc_get_objects(depth="tables").read_all().to_pylist()
        tables = [t for cat in objects for s in cat["catalog_db_schemas"] or [] for t in s["db_schema_tables"] or []]
        assert tables == []
        with pytest.raises(dbapi.Error, match="(?i)permission|denied"):
            query(c, "SELECT id FROM samples.trips")
