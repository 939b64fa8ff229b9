"""Helpers of the Iceberg REST catalog tests: PyIceberg's RestCatalog against a
real ``flightd --rest-listen`` over a copy of the sample warehouse, and rows of
PyIceberg and of iceflight's Flight read in one canonical form.

PyIceberg is the reference here: what it reads through the REST catalog (or
writes through it) must be what the iceflight Python client reads through
Flight. Importing this module skips the test module when PyIceberg is not
installed, and fails it under ICEFLIGHT_REQUIRE_SERVERS=1.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from _expected import canon
from _flightd import WAREHOUSE, Server, serve_rest
from _sql import REQUIRE

try:
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
    from pyiceberg.schema import Schema
except ImportError as err:  # pragma: no cover - depends on the venv
    _msg = f"pyiceberg is not installed ({err}): `pip install -r tests/e2e/requirements.txt`"
    if REQUIRE:
        raise RuntimeError(_msg + " (ICEFLIGHT_REQUIRE_SERVERS=1)") from err
    pytest.skip(_msg, allow_module_level=True)

import _relocated_io

#: The sample tables, as the Java oracle named them (testdata/expected).
SAMPLE_TABLES = sorted(
    d.name for d in (WAREHOUSE.parent / "expected").iterdir() if d.is_dir() and d.name.startswith("samples.")
)


#: PyIceberg 0.12 refuses tables with equality deletes when it plans (the Java oracle
#: and Flight read them; tests/e2e/test_classes.py and the Go suite check those).
EQUALITY_DELETES = "PyIceberg does not yet support equality deletes"

#: Scans with a row filter and selected fields: (table, filter, fields); each keeps some rows.
FILTERS = [
    ("samples.trips", And(GreaterThan("fare", 20.0), NotNull("vendor")), ("id", "fare", "vendor")),
    ("samples.trips", In("vendor", {"DDS", "CMT"}), ("id", "vendor")),
    (
        "samples.events_by_day",
        And(GreaterThanOrEqual("ts", "2024-03-02T00:00:00"), LessThan("ts", "2024-03-03T00:00:00")),
        ("id", "ts", "level"),
    ),
    ("samples.events_by_kind", EqualTo("kind", "click"), ("id", "kind", "value")),
    ("samples.truncated", And(StartsWith("name", "app"), LessThan("price", Decimal("5.00"))), ("id", "name", "price")),
    ("samples.pos_deletes_rowgroups", GreaterThanOrEqual("id", 1500), ("id", "v")),
    ("samples.dv_many_files", EqualTo("grp", 1), ("id", "val")),
]


def recorded_root() -> str:
    """The warehouse location the sample tables' metadata records (the
    checkout Iceberg Java wrote them in), read from samples.trips' metadata."""
    index = json.loads((WAREHOUSE.parent / "expected" / "samples.trips" / "index.json").read_text())
    md = json.loads((WAREHOUSE / "samples" / "trips" / index["metadata_file"]).read_text())
    location: str = md["location"]
    suffix = "/samples/trips"
    assert location.endswith(suffix), f"samples.trips is recorded at {location}"
    return location[: -len(suffix)]


def copy_warehouse(dest: pathlib.Path) -> pathlib.Path:
    """Copy the sample warehouse to dest/warehouse, for a server whose clients write."""
    out = dest / "warehouse"
    shutil.copytree(WAREHOUSE, out)
    return out


def catalog(server: Server, copy: pathlib.Path | None = None, **props: Any) -> RestCatalog:
    """A PyIceberg RestCatalog of server with catalog properties props; with copy, the
    copy of the sample warehouse it serves, whose files PyIceberg then reads there
    (see _relocated_io)."""
    assert server.rest is not None
    extra = _relocated_io.properties(recorded_root(), str(copy)) if copy is not None else {}
    return RestCatalog("iceflight", uri=server.rest, **extra, **props)


def schema_json(schema: Schema) -> dict[str, Any]:
    """An Iceberg schema as the spec's JSON, the form the oracle's rows are typed by."""
    out: dict[str, Any] = json.loads(schema.model_dump_json())
    return out


def filter_json(expr: BooleanExpression) -> dict[str, Any]:
    """expr in the REST Expression JSON PyIceberg sends, which iceflight's command takes too."""
    out: dict[str, Any] = json.loads(expr.model_dump_json())
    return out


def _plain(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """column as both readers can be compared in: without an extension type
    (PyIceberg reads uuid as arrow.uuid), its storage; a list of structs with
    its nulls as empty lists, as PyIceberg 0.12 reads them
    (apache/iceberg-python#3833: the Java oracle and Flight read null)."""
    if isinstance(column.type, pa.BaseExtensionType):
        return pa.chunked_array([c.storage for c in column.chunks], type=column.type.storage_type)
    if pa.types.is_list(column.type) and pa.types.is_struct(column.type.value_type) and column.null_count:
        return pa.chunked_array([pa.array([[] if v is None else v for v in column.to_pylist()], type=column.type)])
    return column


def rows(table: pa.Table, schema: Schema) -> list[str]:
    """The rows of table, of Iceberg schema schema, in canonical form, sorted,
    where PyIceberg's reads and Flight's can be compared (see _plain)."""
    plain = pa.table([_plain(c) for c in table.columns], names=table.column_names)
    return list(canon.arrow_rows(plain, schema_json(schema)))


@pytest.fixture(scope="module", name="rest_server")
def rest_server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, pathlib.Path]]:
    """Fixture ``rest_server``: a flightd serving a fresh copy of the sample warehouse
    over Flight and REST, and the copy. A test module imports it to use it."""
    wh = copy_warehouse(tmp_path_factory.mktemp("rest"))
    with serve_rest(warehouse=wh) as server:
        yield server, wh


def known_gap(reason: str, raises: type[BaseException]) -> pytest.MarkDecorator:
    """Mark a test that fails against flightd's REST catalog as it is today, for
    reason (the failed request and answer, reported to be fixed in the server or
    named as PyIceberg's). Strict: once it is fixed the test passes, which fails
    the run until the mark is removed; a failure of any other kind fails it at once."""
    return pytest.mark.xfail(reason=reason, raises=raises, strict=True)


def failed_calls(server: Server) -> str:
    """The log lines of the server's REST calls that did not answer OK, for a failure message."""
    lines = [ln for ln in server.log().splitlines() if "/iceberg.rest/" in ln and "code=OK" not in ln]
    return "\n".join(lines[-20:])
