"""PyIceberg against flightd's REST catalog with --users and --tokens (issue 29):
``credential="user:pass"`` takes the OAuth2 client-credentials flow to
``/v1/oauth/tokens``, and the token carries the user's grants: a read-only grant
reads but cannot write, a namespace outside the grants is not listed.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import iceflight
import pyarrow as pa
import pytest
import requests
from _flightd import Server, serve_rest
from _rest import catalog, copy_warehouse, rows
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, NoSuchTableError, OAuthError, UnauthorizedError

WRITER, WRITER_PW = "writer", "w-secret:with:colons"
READER, READER_PW = "reader", "r-secret"
TOKEN = "rest-read-token-0123456789"
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
ROWS = pa.table({"id": pa.array(range(20), pa.int64()), "name": [f"n{i}" for i in range(20)]}, schema=SCHEMA)


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, pathlib.Path]]:
    d = tmp_path_factory.mktemp("restauth")
    wh = copy_warehouse(d)
    (d / "users").write_text(f"{WRITER} {WRITER_PW} samples,rw:shared,rw:other\n{READER} {READER_PW} samples,shared\n")
    (d / "tokens").write_text(f"{TOKEN} samples\n")
    with serve_rest("--users", str(d / "users"), "--tokens", str(d / "tokens"), warehouse=wh) as server:
        writer = catalog(server, wh, credential=f"{WRITER}:{WRITER_PW}")
        for ns in ("shared", "other"):
            writer.create_namespace(ns)
            writer.create_table(f"{ns}.t", schema=SCHEMA).append(ROWS)
        yield server, wh


@pytest.fixture(scope="module")
def reader(secured: tuple[Server, pathlib.Path]) -> RestCatalog:
    return catalog(*secured, credential=f"{READER}:{READER_PW}")


def test_no_credential_is_unauthorized(secured: tuple[Server, pathlib.Path]) -> None:
    with pytest.raises(UnauthorizedError):
        catalog(*secured).list_namespaces()


@pytest.mark.parametrize("credential", [f"{READER}:wrong", f"nobody:{READER_PW}"])
def test_bad_credential_gets_no_token(secured: tuple[Server, pathlib.Path], credential: str) -> None:
    with pytest.raises(OAuthError, match="invalid_client"):
        catalog(*secured, credential=credential).list_namespaces()


def test_token_endpoint_issues_a_bearer_flight_accepts(secured: tuple[Server, pathlib.Path]) -> None:
    server, _ = secured
    assert server.rest is not None
    resp = requests.post(
        f"{server.rest}/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": READER, "client_secret": READER_PW, "scope": "catalog"},
        timeout=30,
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["token_type"].lower() == "bearer" and body["access_token"]
    with iceflight.connect(f"grpc://{server.flight}", token=body["access_token"]) as c:
        assert c.read("shared.t").num_rows == ROWS.num_rows


def test_read_only_grant_reads(reader: RestCatalog, secured: tuple[Server, pathlib.Path]) -> None:
    server, _ = secured
    tb = reader.load_table("shared.t")
    with iceflight.connect(f"grpc://{server.flight}", username=READER, password=READER_PW) as c:
        assert rows(tb.scan().to_arrow(), tb.schema()) == rows(c.read("shared.t"), tb.schema()) == rows(ROWS, tb.schema())
        samples = reader.load_table("samples.trips")
        assert rows(samples.scan().to_arrow(), samples.schema()) == rows(c.read("samples.trips"), samples.schema())


def test_read_only_grant_cannot_write(reader: RestCatalog) -> None:
    tb = reader.load_table("shared.t")
    with pytest.raises(ForbiddenError):
        tb.append(ROWS)
    with pytest.raises(ForbiddenError):
        reader.create_table("shared.new", schema=SCHEMA)
    with pytest.raises(ForbiddenError):
        reader.drop_table("shared.t")
    assert reader.load_table("shared.t").scan().to_arrow().num_rows == ROWS.num_rows


def test_namespace_outside_the_grants_is_invisible(reader: RestCatalog) -> None:
    assert sorted(reader.list_namespaces()) == [("samples",), ("shared",)]
    with pytest.raises((ForbiddenError, NoSuchTableError)):
        reader.load_table("other.t")
    with pytest.raises((ForbiddenError, NoSuchTableError)):
        reader.list_tables("other")
    # Refused without saying whether it exists, as Flight refuses it (PermissionDenied).
    with pytest.raises(ForbiddenError):
        reader.table_exists("other.t")
    with pytest.raises(ForbiddenError):
        reader.namespace_exists("other")


def test_bearer_token_reads_its_grants(secured: tuple[Server, pathlib.Path]) -> None:
    rest = catalog(*secured, token=TOKEN)
    assert rest.list_namespaces() == [("samples",)]
    assert rest.load_table("samples.trips").scan().to_arrow().num_rows == 20000
    with pytest.raises(ForbiddenError):
        rest.load_table("shared.t")
