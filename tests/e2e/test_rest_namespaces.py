"""Namespaces through flightd's REST catalog with PyIceberg (issue 29): a directory
warehouse keeps no namespace properties and says so plainly; a SQL catalog
mounted by --config (README, Configuration) keeps them, under its prefix.
"""

from __future__ import annotations

import pathlib
import sqlite3
from collections.abc import Iterator

import iceflight
import pyarrow as pa
import pytest
from _flightd import Server, serve_rest
from _rest import catalog, known_gap, rest_server_fixture, rows  # noqa: F401 (the rest_server fixture)
from iceflight.errors import TableNotFoundError
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import NamespaceAlreadyExistsError, NamespaceNotEmptyError, NoSuchNamespaceError, RESTError

#: The REST error model's type for what a catalog cannot do (406, as Iceberg Java's server answers).
UNSUPPORTED = "UnsupportedOperationException"


@pytest.fixture(scope="module")
def directory(rest_server: tuple[Server, pathlib.Path]) -> RestCatalog:
    return catalog(*rest_server)


@known_gap(
    "the table's purge (DELETE ...?purgeRequested=True) leaves its files, so DELETE /v1/namespaces/nsdir "
    "answers 409 NamespaceNotEmptyException",
    NamespaceNotEmptyError,
)
def test_directory_namespaces_are_created_listed_and_dropped(directory: RestCatalog) -> None:
    directory.create_namespace("nsdir")
    with pytest.raises(NamespaceAlreadyExistsError):
        directory.create_namespace("nsdir")
    assert ("nsdir",) in directory.list_namespaces()
    # Its folder, as Iceberg Java's HadoopCatalog answers.
    props = directory.load_namespace_properties("nsdir")
    assert list(props) == ["location"] and props["location"].endswith("/nsdir"), props
    directory.create_table("nsdir.t", schema=pa.schema([("id", pa.int64())]))
    with pytest.raises(NamespaceNotEmptyError):
        directory.drop_namespace("nsdir")
    # A directory catalog's drop without purge keeps the table's files, and
    # they keep the namespace's folder from being dropped.
    directory.purge_table("nsdir.t")
    directory.drop_namespace("nsdir")
    assert ("nsdir",) not in directory.list_namespaces()
    with pytest.raises(NoSuchNamespaceError):
        directory.load_namespace_properties("nsdir")


def test_directory_refuses_to_update_namespace_properties_plainly(directory: RestCatalog) -> None:
    with pytest.raises(RESTError) as err:
        directory.update_namespace_properties("samples", updates={"owner": "alice"})
    assert UNSUPPORTED in str(err.value) and "propert" in str(err.value)
    assert list(directory.load_namespace_properties("samples")) == ["location"]


@known_gap(
    "POST /v1/namespaces {namespace: [with_props], properties: {owner: alice}} answers 500 InternalServerError "
    "'create namespace with_props: create namespace with_props: a directory catalog keeps no namespace properties'",
    AssertionError,
)
def test_directory_refuses_to_create_a_namespace_with_properties_plainly(directory: RestCatalog) -> None:
    with pytest.raises(RESTError) as err:
        directory.create_namespace("with_props", {"owner": "alice"})
    assert UNSUPPORTED in str(err.value) and "propert" in str(err.value)
    assert ("with_props",) not in directory.list_namespaces()


@pytest.fixture(scope="module")
def sql_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A flightd whose --config mounts an empty SQLite SQL catalog as ``lake``."""
    d = tmp_path_factory.mktemp("restsql")
    (d / "warehouse").mkdir()
    # The SQL catalog opens an existing database and creates its tables on the first write.
    sqlite3.connect(d / "catalog.db").close()
    config = d / "iceflight.yaml"
    config.write_text(
        "catalogs:\n"
        "  lake:\n"
        "    type: sql\n"
        f"    uri: sqlite:///{d / 'catalog.db'}\n"
        f"    warehouse: {d / 'warehouse'}\n"
    )
    with serve_rest("--config", str(config), warehouse=None) as server:
        yield server


@pytest.fixture(scope="module")
def lake(sql_server: Server) -> RestCatalog:
    c = catalog(sql_server, warehouse="lake")
    assert c.properties.get("prefix") == "lake", "GET /v1/config?warehouse=lake gave no prefix"
    return c


def test_sql_catalog_keeps_namespace_properties(lake: RestCatalog, sql_server: Server) -> None:
    lake.create_namespace("props", {"owner": "alice", "team": "data"})
    assert lake.load_namespace_properties("props") == {"owner": "alice", "team": "data"}, sql_server.log()[-2000:]
    summary = lake.update_namespace_properties("props", removals={"team", "absent"}, updates={"owner": "bob", "tier": "gold"})
    assert sorted(summary.removed) == ["team"]
    assert sorted(summary.updated) == ["owner", "tier"]
    assert summary.missing == ["absent"]
    assert lake.load_namespace_properties("props") == {"owner": "bob", "tier": "gold"}


def test_sql_catalog_tables_under_the_prefix(lake: RestCatalog, sql_server: Server) -> None:
    lake.create_namespace("sales")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "region": ["eu", "us", None]})
    tb = lake.create_table("sales.orders", schema=data.schema)
    tb.append(data)
    assert lake.list_tables("sales") == [("sales", "orders")]
    with iceflight.connect(f"grpc://{sql_server.flight}") as c:
        # Flight names a table of a mounted catalog CATALOG.NAMESPACE.TABLE.
        assert rows(c.read("lake.sales.orders"), tb.schema()) == rows(data, tb.schema())


def test_sql_catalog_renames_a_table(lake: RestCatalog, sql_server: Server) -> None:
    lake.create_namespace("moves")
    data = pa.table({"id": pa.array([7, 8], pa.int64())})
    lake.create_table("moves.before", schema=data.schema).append(data)
    lake.rename_table("moves.before", "moves.after")
    assert lake.list_tables("moves") == [("moves", "after")]
    assert not lake.table_exists("moves.before")
    tb = lake.load_table("moves.after")
    with iceflight.connect(f"grpc://{sql_server.flight}") as c:
        assert rows(c.read("lake.moves.after"), tb.schema()) == rows(data, tb.schema())
        with pytest.raises(TableNotFoundError):
            c.read("lake.moves.before")
