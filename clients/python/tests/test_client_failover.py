"""Locations: failover in order, the reuse-connection location, one connection each.

flightd lists one location per endpoint, so these tests rewrite a real
plan's endpoints through Plan.with_endpoints.
"""

from __future__ import annotations

import pyarrow.flight as fl
import pytest

import iceflight
from _oracle import arrow_rows, oracle_rows, scan
from conftest import free_port


def relocated(plan: iceflight.Plan, *locations: str) -> iceflight.Plan:
    return plan.with_endpoints([fl.FlightEndpoint(ep.ticket, list(locations)) for ep in plan.endpoints])


def test_a_dead_first_location_fails_over_to_the_next(client: iceflight.Client) -> None:
    entry, rows = scan("samples.trips")
    dead = f"grpc://127.0.0.1:{free_port()}"
    plan = relocated(client.plan("samples.trips"), dead, client.location)
    got = plan.read()
    assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"])
    assert client._pool.locations() == [client.location, dead]


def test_reuse_connection_means_the_planning_connection(client: iceflight.Client) -> None:
    entry, rows = scan("samples.v3_lineage")
    dead = f"grpc://127.0.0.1:{free_port()}"
    for locations in ([iceflight.REUSE_CONNECTION], [], [dead, iceflight.REUSE_CONNECTION]):
        got = relocated(client.plan("samples.v3_lineage"), *locations).read()
        assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"]), locations


def test_one_connection_per_location_is_reused(client: iceflight.Client) -> None:
    dead = f"grpc://127.0.0.1:{free_port()}"
    plan = relocated(client.plan("samples.trips"), dead, client.location)
    plan.read()
    pool = client._pool
    conns = {loc: pool.get(loc) for loc in pool.locations()}
    plan.read()
    client.plan("samples.trips").read()
    assert {loc: pool.get(loc) for loc in pool.locations()} == conns
    assert pool.get(iceflight.REUSE_CONNECTION) is pool.get(client.location)


def test_every_location_dead_is_unavailable_naming_them(client: iceflight.Client) -> None:
    dead1, dead2 = (f"grpc://127.0.0.1:{free_port()}" for _ in range(2))
    plan = relocated(client.plan("samples.trips"), dead1, dead2)
    with pytest.raises(fl.FlightUnavailableError) as err:
        plan.read()
    msg = str(err.value)
    assert "samples.trips" in msg and dead1 in msg and dead2 in msg


def test_a_refused_ticket_does_not_fail_over(client: iceflight.Client) -> None:
    # PermissionDenied is an answer, not an outage: the next location would
    # refuse the same ticket.
    plan = client.plan("samples.trips")
    ep = plan.endpoints[0]
    raw = bytearray(ep.ticket.ticket)
    raw[len(raw) // 2] ^= 0x01
    bad = plan.with_endpoints([fl.FlightEndpoint(bytes(raw), [client.location, client.location])])
    with pytest.raises((fl.FlightUnauthorizedError, fl.FlightUnauthenticatedError), match="samples.trips"):
        bad.read()
