"""Errors: the server's status codes as iceflight.errors classes naming the table."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.flight as fl
import pytest

import iceflight
from _oracle import queries


def test_missing_table_is_table_not_found(client: iceflight.Client) -> None:
    for call in (client.plan, client.read, client.snapshots, client.refs, client.schema):
        with pytest.raises(iceflight.TableNotFoundError, match="samples.nope") as err:
            call("samples.nope")
        # Still what pyarrow raises for NotFound, and a Flight error.
        assert isinstance(err.value, pa.ArrowKeyError)
        assert isinstance(err.value, fl.FlightError)
        assert err.value.table == "samples.nope"


@pytest.mark.parametrize(
    "kwargs",
    [{"snapshot_id": 1}, {"ref": "no-such-branch"}, {"as_of": 0}],
    ids=["snapshot_id", "ref", "as_of"],
)
def test_missing_snapshot_is_snapshot_not_found(client: iceflight.Client, kwargs: dict[str, object]) -> None:
    with pytest.raises(iceflight.SnapshotNotFoundError, match="samples.trips"):
        client.plan("samples.trips", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["invalid__unknown_column", "invalid__case_sensitive_column"])
def test_queries_java_refuses_are_invalid_requests(client: iceflight.Client, name: str) -> None:
    q = queries()[name]
    assert q["error"]  # Iceberg Java refused it too
    with pytest.raises(iceflight.InvalidRequestError, match=q["table"]) as err:
        client.read(q["table"], filter=q["filter"])
    assert isinstance(err.value, pa.ArrowInvalid)


def test_bad_options_are_invalid_requests(client: iceflight.Client) -> None:
    with pytest.raises(iceflight.InvalidRequestError, match="no_such"):
        client.read("samples.trips", columns=["no_such"])
    with pytest.raises(iceflight.InvalidRequestError):
        client.read("samples.trips", filter="fare >>> 1")
    with pytest.raises(iceflight.InvalidRequestError):
        client.read("samples.trips", snapshot_id=1, ref="main")


def test_scan_errors_keep_the_message(client: iceflight.Client) -> None:
    plan = client.plan("samples.trips")
    raw = bytearray(plan.endpoints[0].ticket.ticket)
    raw[len(raw) // 2] ^= 0x01
    bad = plan.with_endpoints([fl.FlightEndpoint(bytes(raw), [])])
    # Through the RecordBatchReader only the message survives the C stream.
    with pytest.raises(pa.ArrowException, match="samples.trips"):
        bad.scan().read_all()
    # Plan.streams raises the Flight class itself.
    with pytest.raises((fl.FlightUnauthorizedError, fl.FlightUnauthenticatedError), match="samples.trips"):
        with bad.streams() as streams:
            list(streams)


def test_client_side_argument_errors() -> None:
    client = iceflight.connect("grpc://127.0.0.1:1")
    with pytest.raises(TypeError, match="columns"):
        client.plan("samples.trips", columns="id")
    with pytest.raises(TypeError, match="as_of"):
        client.plan("samples.trips", as_of="2024-01-01")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        iceflight.connect("grpc://127.0.0.1:1", max_workers=0)


def test_unreachable_server_is_unavailable() -> None:
    from conftest import free_port

    with iceflight.connect(f"grpc://127.0.0.1:{free_port()}") as client:
        with pytest.raises(fl.FlightUnavailableError):
            client.tables()
