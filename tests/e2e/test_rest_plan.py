"""Server-side scan planning (issue 29): PyIceberg with ``scan-planning-mode: server``
hands planning to flightd (``POST .../plan`` and ``.../tasks``) and reads the files the
server planned, with the deletes it attached. Every scan must read what PyIceberg
reads when it plans itself, on every sample table (position deletes, deletion
vectors, evolved schemas and specs) and with partition and metrics filters.

PyIceberg 0.12 reads no equality deletes on either path; on those tables the server's
plan is checked against PyIceberg's own reading of the manifests instead.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import iceflight
import pytest
import requests
from _flightd import Server
from _rest import FILTERS, SAMPLE_TABLES, catalog, filter_json, known_gap, rest_server_fixture, rows  # noqa: F401 (the rest_server fixture)
from pydantic import ValidationError
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import (
    And,
    BooleanExpression,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    LessThan,
    NotNull,
    StartsWith,
)
from pyiceberg.manifest import DataFileContent
from pyiceberg.table import DataScan


@pytest.fixture(scope="module")
def client_side(rest_server: tuple[Server, pathlib.Path]) -> RestCatalog:
    return catalog(*rest_server)


@pytest.fixture(scope="module")
def server_side(rest_server: tuple[Server, pathlib.Path]) -> RestCatalog:
    c = catalog(*rest_server, **{"scan-planning-mode": "server"})
    assert c.supports_server_side_planning(), "GET /v1/config does not advertise POST .../plan"
    return c


@pytest.fixture(scope="module")
def flight(rest_server: tuple[Server, pathlib.Path]) -> Iterator[iceflight.Client]:
    with iceflight.connect(f"grpc://{rest_server[0].flight}") as c:
        yield c


def has_equality_deletes(scan: DataScan) -> bool:
    """Whether PyIceberg finds a live equality delete file among scan's manifests."""
    return any(e.data_file.content == DataFileContent.EQUALITY_DELETES for e in manifest_entries(scan))


def manifest_entries(scan: DataScan) -> list[Any]:
    """The live manifest entries, data and deletes, that PyIceberg's own planning reads for scan."""
    return [e for batch in scan._plan_manifest_entries() for e in batch]


def planned_paths(scan: DataScan) -> set[str]:
    return {task.file.file_path for task in scan.plan_files()}


def assert_same_scan(client: DataScan, server: DataScan, what: str) -> None:
    """server's plan reads what client's does: the same files and the same rows."""
    assert planned_paths(server) == planned_paths(client), f"{what}: the files planned differ"
    schema = client.projection()
    assert rows(server.to_arrow(), schema) == rows(client.to_arrow(), schema), what


def raw_plan(server: Server, name: str) -> list[dict[str, Any]]:
    """The server's JSON answers to a plan of name's current snapshot: the first,
    then every page of tasks it names (PyIceberg's own models refuse some, see
    NULL_PARTITION)."""
    ns, table = name.split(".")
    base = f"{server.rest}/v1/namespaces/{ns}/tables/{table}"
    first = requests.post(f"{base}/plan", json={}, timeout=60)
    assert first.status_code == 200, first.text
    pages = [first.json()]
    assert pages[0]["status"] == "completed", pages[0]
    pending = list(pages[0].get("plan-tasks", []))
    while pending:
        resp = requests.post(f"{base}/tasks", json={"plan-task": pending.pop(0)}, timeout=60)
        assert resp.status_code == 200, resp.text
        pages.append(resp.json())
        pending.extend(pages[-1].get("plan-tasks", []))
    return pages


#: PyIceberg 0.12's model of a planned file takes no null partition value; flightd
#: writes one as Iceberg Java's ContentFileParser does (the OpenAPI's
#: PrimitiveTypeValue items have no null), so PyIceberg fails to parse the plan.
NULL_PARTITION = known_gap(
    "POST /v1/namespaces/samples/tables/truncated/plan answers a task with data-file partition "
    '["appl", null, "10.00"] (amount_trunc=null); PyIceberg 0.12 refuses the null '
    "(pydantic ValidationError: partition.1 is no PrimitiveTypeValue)",
    ValidationError,
)


def tables(null_partitions: set[str]) -> list[Any]:
    """The sample tables as parameters, those whose plans name null partition values marked."""
    return [pytest.param(t, marks=NULL_PARTITION) if t in null_partitions else t for t in SAMPLE_TABLES]


# samples.eq_deletes_evolved's current snapshot has equality deletes: the test skips it.
@pytest.mark.parametrize("name", tables({"samples.truncated"}))
def test_server_planning_reads_as_client_planning(
    client_side: RestCatalog, server_side: RestCatalog, flight: iceflight.Client, name: str
) -> None:
    client, server = client_side.load_table(name).scan(), server_side.load_table(name).scan()
    if has_equality_deletes(client):
        pytest.skip(f"{name} has equality deletes: test_equality_deletes_are_planned checks it")
    assert_same_scan(client, server, name)
    assert rows(server.to_arrow(), client.projection()) == rows(flight.read(name), client.projection())


@pytest.mark.parametrize("name", tables({"samples.truncated", "samples.eq_deletes_evolved"}))
def test_server_planning_of_every_snapshot(client_side: RestCatalog, server_side: RestCatalog, name: str) -> None:
    for snap in client_side.load_table(name).snapshots():
        client = client_side.load_table(name).scan(snapshot_id=snap.snapshot_id)
        if has_equality_deletes(client):
            continue
        server = server_side.load_table(name).scan(snapshot_id=snap.snapshot_id)
        assert_same_scan(client, server, f"{name} at snapshot {snap.snapshot_id}")


@pytest.mark.parametrize("name,expr,fields", FILTERS, ids=[f"{n}:{e}" for n, e, _ in FILTERS])
def test_server_planning_with_filter_and_fields(
    client_side: RestCatalog, server_side: RestCatalog, name: str, expr: BooleanExpression, fields: tuple[str, ...]
) -> None:
    client = client_side.load_table(name).scan(row_filter=expr, selected_fields=fields)
    server = server_side.load_table(name).scan(row_filter=expr, selected_fields=fields)
    assert_same_scan(client, server, f"{name} where {expr}")
    whole = planned_paths(client_side.load_table(name).scan())
    if name in PRUNED:
        assert planned_paths(server) < whole, f"{name} where {expr}: the server pruned no file"


#: The filter cases whose filter rules out whole files (by partition or metrics).
PRUNED = {"samples.events_by_day", "samples.events_by_kind", "samples.truncated", "samples.dv_many_files"}

MORE_FILTERS = [
    ("samples.trips", GreaterThan("passengers", 2)),
    ("samples.events_by_kind", In("kind", {"click", "view"})),
    ("samples.events_by_day", And(GreaterThanOrEqual("latency_ms", 1500), NotNull("message"))),
    ("samples.truncated", StartsWith("name", "ban")),
    ("samples.pos_deletes_rowgroups", LessThan("id", 40)),
    ("samples.dv_many_files", And(EqualTo("grp", 2), GreaterThan("id", 10))),
]


@pytest.mark.parametrize("name,expr", MORE_FILTERS, ids=[f"{n}:{e}" for n, e in MORE_FILTERS])
def test_server_planning_with_more_filters(
    client_side: RestCatalog, server_side: RestCatalog, flight: iceflight.Client, name: str, expr: BooleanExpression
) -> None:
    client = client_side.load_table(name).scan(row_filter=expr)
    server = server_side.load_table(name).scan(row_filter=expr)
    assert_same_scan(client, server, f"{name} where {expr}")
    schema = client.projection()
    assert rows(server.to_arrow(), schema) == rows(flight.read(name, filter=filter_json(expr)), schema)


def test_equality_deletes_are_planned(client_side: RestCatalog, rest_server: tuple[Server, pathlib.Path]) -> None:
    # PyIceberg reads no equality deletes on either path (and refuses this table's
    # plan for its null partition values): the plan is checked against PyIceberg's
    # own reading of the same manifests.
    name = "samples.eq_deletes_evolved"
    entries = manifest_entries(client_side.load_table(name).scan())
    data = {e.data_file.file_path for e in entries if e.data_file.content == DataFileContent.DATA}
    equality = {e.data_file.file_path for e in entries if e.data_file.content == DataFileContent.EQUALITY_DELETES}
    deletes = {e.data_file.file_path for e in entries if e.data_file.content != DataFileContent.DATA}
    assert equality, f"{name} has no equality deletes any more"
    planned: set[str] = set()
    attached: set[str] = set()
    for page in raw_plan(rest_server[0], name):
        files = page.get("delete-files", [])
        for task in page.get("file-scan-tasks", []):
            planned.add(task["data-file"]["file-path"])
            attached |= {files[i]["file-path"] for i in task.get("delete-file-references", [])}
    assert planned == data
    assert attached <= deletes, f"deletes the server attached that PyIceberg does not find: {attached - deletes}"
    assert attached & equality, "the server attached no equality delete file"
