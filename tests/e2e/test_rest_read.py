"""PyIceberg's RestCatalog reads the sample tables through flightd's Iceberg REST
catalog (issue 29): listings, loads, and scans, each equal to what the iceflight
Python client reads of the same table through Flight.

PyIceberg plans the scans itself here (client-side planning, its default) and
reads the files of the copied warehouse; test_rest_plan.py plans on the server.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterator
from typing import Any

import _rest
import iceflight
import pytest
from _flightd import WAREHOUSE, Server
from _rest import EQUALITY_DELETES, FILTERS, SAMPLE_TABLES, catalog, filter_json, rest_server_fixture, rows  # noqa: F401 (the rest_server fixture)
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import BooleanExpression


@pytest.fixture(scope="module")
def rest(rest_server: tuple[Server, pathlib.Path]) -> RestCatalog:
    server, wh = rest_server
    return catalog(server, wh)


@pytest.fixture(scope="module")
def flight(rest_server: tuple[Server, pathlib.Path]) -> Iterator[iceflight.Client]:
    with iceflight.connect(f"grpc://{rest_server[0].flight}") as c:
        yield c


def test_lists_the_namespace_and_its_tables(rest: RestCatalog) -> None:
    assert rest.list_namespaces() == [("samples",)]
    assert sorted(".".join(t) for t in rest.list_tables("samples")) == SAMPLE_TABLES
    assert rest.namespace_exists("samples") and not rest.namespace_exists("nope")
    assert rest.table_exists("samples.trips") and not rest.table_exists("samples.nope")


@pytest.mark.parametrize("name", SAMPLE_TABLES)
def test_load_table_is_the_oracles_metadata(rest: RestCatalog, name: str) -> None:
    index = json.loads((WAREHOUSE.parent / "expected" / name / "index.json").read_text())
    tb = rest.load_table(name)
    assert tb.metadata_location.endswith(index["metadata_file"]), tb.metadata_location
    assert tb.format_version == index["format_version"]
    assert tb.metadata.current_snapshot_id == index["current_snapshot_id"]
    current = next(s for s in index["scans"] if s["name"] == "current")
    assert _rest.schema_json(tb.schema())["fields"] == current["schema"]["fields"]


def _pyiceberg_read(rest: RestCatalog, name: str, **scan: Any) -> tuple[Any, Any]:
    """PyIceberg's rows of a scan and its projected schema; skips for equality deletes."""
    s = rest.load_table(name).scan(**scan)
    try:
        return s.to_arrow(), s.projection()
    except ValueError as err:
        if EQUALITY_DELETES in str(err):
            pytest.skip(f"{name}: {err}")
        raise


@pytest.mark.parametrize("name", SAMPLE_TABLES)
def test_scan_equals_flight_read(rest: RestCatalog, flight: iceflight.Client, name: str) -> None:
    got, schema = _pyiceberg_read(rest, name)
    assert got.num_rows > 0
    assert rows(got, schema) == rows(flight.read(name), schema)


@pytest.mark.parametrize("name,expr,fields", FILTERS, ids=[f"{n}:{e}" for n, e, _ in FILTERS])
def test_filtered_scan_of_selected_fields_equals_flight_read(
    rest: RestCatalog, flight: iceflight.Client, name: str, expr: BooleanExpression, fields: tuple[str, ...]
) -> None:
    got, schema = _pyiceberg_read(rest, name, row_filter=expr, selected_fields=fields)
    assert got.num_rows > 0, f"{name}: the filter keeps no row, so it checks nothing"
    assert set(got.column_names) == set(fields)
    want = flight.read(name, columns=list(fields), filter=filter_json(expr))
    assert rows(got, schema) == rows(want, schema)


@pytest.mark.parametrize("name", SAMPLE_TABLES)
def test_scan_of_every_snapshot_equals_flight_read(rest: RestCatalog, flight: iceflight.Client, name: str) -> None:
    snapshots = rest.load_table(name).snapshots()
    assert snapshots
    for snap in snapshots:
        got, schema = _pyiceberg_read(rest, name, snapshot_id=snap.snapshot_id)
        want = flight.read(name, snapshot_id=snap.snapshot_id)
        assert rows(got, schema) == rows(want, schema), f"{name} at snapshot {snap.snapshot_id}"
