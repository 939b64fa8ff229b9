"""Locations: failover in order, mid-stream resumption, the reuse-connection
location, one connection each.

flightd lists one location per endpoint, so these tests rewrite a real
plan's endpoints through Plan.with_endpoints.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl
import pytest

import iceflight
from _oracle import ROOT, WAREHOUSE, arrow_rows, oracle_rows, scan
from conftest import free_port
from iceflight._connections import ConnectionPool
from iceflight._parallel import EndpointStreams, _retryable


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


# ---- a worker killed mid-stream -------------------------------------------

# The test client announces a small HTTP/2 window and no BDP growth, so a
# worker cannot run ahead of the reader: with the consumer holding the first
# batch, A can have sent at most the few batches the reader took plus 64 KiB
# of the 20,000-row stream (about 1 MB) when it is killed. Without it, gRPC
# on loopback takes the whole stream into its buffers within milliseconds and
# a kill after the first batch may find nothing left to break.
SMALL_WINDOW = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 64 * 1024)]


def _start_flightd(key: Path) -> tuple[subprocess.Popen[str], str]:
    flightd = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    if not os.path.exists(flightd):
        pytest.skip(f"{flightd} is missing: run `make build` (or set FLIGHTD)")
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [flightd, "serve", "--warehouse", str(WAREHOUSE), "--listen", "127.0.0.1:0",
         "--log-level", "error", "--ticket-key-file", str(key)],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"grpc://(\S+)", line)
    if not m:
        proc.kill()
        proc.wait()
        log.seek(0)
        pytest.fail(f"flightd did not start: {line!r} {log.read()}")
    log.close()
    return proc, f"grpc://{m.group(1)}"


@pytest.fixture()
def two_workers(tmp_path: Path) -> Iterator[list[tuple[subprocess.Popen[str], str]]]:
    """Two flightd processes over the sample warehouse sharing one ticket key."""
    key = tmp_path / "ticket.key"
    key.write_text(os.urandom(32).hex())
    procs = []
    try:
        for _ in range(2):
            procs.append(_start_flightd(key))
        yield procs
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_a_worker_killed_mid_stream_fails_over_exactly_once(two_workers: list[tuple[subprocess.Popen[str], str]]) -> None:
    (a, loc_a), (_, loc_b) = two_workers
    entry, rows = scan("samples.trips")
    got: list[pa.RecordBatch] = []
    with iceflight.connect(loc_a) as client:
        client._pool.close()
        client._pool = ConnectionPool(client.location, generic_options=SMALL_WINDOW)
        # One endpoint: samples.trips's four files in ten batches.
        plan = client.plan("samples.trips", max_endpoints=1)
        assert len(plan.endpoints) == 1
        plan = relocated(plan, loc_a, loc_b)
        with plan.streams(max_workers=1, max_buffered=1) as streams:
            for _, batch in streams:
                got.append(batch)
                if len(got) == 1:
                    a.send_signal(signal.SIGKILL)
                    a.wait()
        assert streams.resumed == 1, "A's stream did not break mid-way: the test proves nothing"
        assert client._pool.locations() == [loc_a, loc_b]
    table = pa.Table.from_batches(got, schema=plan.schema)
    assert table.num_rows == entry["rows"] == 20000
    assert arrow_rows(table, entry["schema"]) == oracle_rows(rows, entry["schema"])


# ---- resumption rules, on scripted streams --------------------------------

SCHEMA = pa.schema([("x", pa.int64())])
ROWS = 20


class _Chunk:
    def __init__(self, data: pa.RecordBatch) -> None:
        self.data = data


class _Reader:
    """A DoGet stream of x = 0..ROWS-1 in batches of `size` rows that raises
    `fault` after `breaks_after` batches."""

    def __init__(self, size: int, breaks_after: int | None, fault: BaseException | None, schema: pa.Schema, rows: int) -> None:
        self.schema = schema
        self._batches = [
            pa.record_batch([pa.array(range(i, min(rows, i + size)), pa.int64())], schema=schema)
            for i in range(0, rows, size)
        ]
        self._breaks_after = breaks_after
        self._fault = fault
        self._sent = 0

    def read_chunk(self) -> _Chunk:
        if self._breaks_after is not None and self._sent == self._breaks_after:
            assert self._fault is not None
            raise self._fault
        if self._sent == len(self._batches):
            raise StopIteration
        self._sent += 1
        return _Chunk(self._batches[self._sent - 1])

    def cancel(self) -> None:
        pass


class _Location:
    """A location whose DoGet calls are scripted: one reader factory per call."""

    def __init__(self, *script: Callable[[], _Reader]) -> None:
        self.script = list(script)
        self.calls = 0

    def do_get(self, ticket: Any, options: Any = None) -> _Reader:
        self.calls += 1
        return self.script.pop(0)()


def _stream(size: int, breaks_after: int | None = None, fault: BaseException | None = None,
            schema: pa.Schema = SCHEMA, rows: int = ROWS) -> Callable[[], _Reader]:
    return lambda: _Reader(size, breaks_after, fault, schema, rows)


def _read(locations: dict[str, _Location]) -> list[int]:
    ep = fl.FlightEndpoint(b"ticket", list(locations))
    streams = EndpointStreams([ep], lambda uri: locations[uri], fl.FlightCallOptions(),
                              table="db.t", max_workers=1, max_buffered=1)
    out: list[int] = []
    for _, batch in streams:
        out.extend(batch.column(0).to_pylist())
    return out


UNAVAILABLE = fl.FlightUnavailableError("Stream removed (Socket closed)")


@pytest.mark.parametrize(
    "fault, retry",
    [
        (fl.FlightUnavailableError("Stream removed (Socket closed)"), True),
        (fl.FlightInternalError("Received RST_STREAM with error code 2"), True),
        (fl.FlightInternalError("stream terminated by RST_STREAM with error code: INTERNAL_ERROR"), True),
        (fl.FlightInternalError("table db.t: index out of range"), False),
        (fl.FlightUnauthorizedError("table db.t: ticket signature"), False),
        (fl.FlightUnauthenticatedError("table db.t: ticket expired"), False),
        (pa.ArrowKeyError("table db.t: file x not found"), False),
        (pa.ArrowInvalid("table db.t: bad filter"), False),
        (fl.FlightCancelledError("cancelled"), False),
    ],
)
def test_a_failover_resumes_only_after_a_retryable_break(fault: BaseException, retry: bool) -> None:
    a = _Location(_stream(3, breaks_after=2, fault=fault))
    b = _Location(_stream(4))
    if retry:
        # A delivered rows 0..5; B's second batch (4..7) straddles them.
        assert _read({"grpc://a:1": a, "grpc://b:1": b}) == list(range(ROWS))
        assert b.calls == 1
    else:
        with pytest.raises(type(fault)):
            _read({"grpc://a:1": a, "grpc://b:1": b})
        assert b.calls == 0


def test_retryable_is_precise_about_internal() -> None:
    assert _retryable(fl.FlightInternalError("Flight returned internal error, with message: Received RST_STREAM with error code 2"))
    assert not _retryable(fl.FlightInternalError("Flight returned internal error, with message: table db.t: bug"))
    assert not _retryable(fl.FlightServerError("connection reset"))


def test_a_single_location_is_retried_once_after_a_break() -> None:
    a = _Location(_stream(3, breaks_after=2, fault=UNAVAILABLE), _stream(5))
    assert _read({"grpc://a:1": a}) == list(range(ROWS))
    assert a.calls == 2
    dead = _Location(_stream(3, breaks_after=0, fault=UNAVAILABLE), _stream(3, breaks_after=0, fault=UNAVAILABLE))
    with pytest.raises(fl.FlightUnavailableError, match="grpc://a:1"):
        _read({"grpc://a:1": dead})
    assert dead.calls == 2


def test_after_progress_every_location_gets_another_turn() -> None:
    # A breaks after 6 rows, B before any, A (back after the backoff) ends it.
    a = _Location(_stream(3, breaks_after=2, fault=UNAVAILABLE), _stream(7))
    b = _Location(_stream(4, breaks_after=0, fault=UNAVAILABLE))
    assert _read({"grpc://a:1": a, "grpc://b:1": b}) == list(range(ROWS))
    assert (a.calls, b.calls) == (2, 1)


def test_a_resumed_stream_must_match_the_broken_one() -> None:
    other = pa.schema([("y", pa.int64())])
    a = _Location(_stream(3, breaks_after=2, fault=UNAVAILABLE))
    with pytest.raises(iceflight.IceflightError, match="schema"):
        _read({"grpc://a:1": a, "grpc://b:1": _Location(_stream(4, schema=other))})
    a = _Location(_stream(3, breaks_after=2, fault=UNAVAILABLE))
    with pytest.raises(iceflight.IceflightError, match="ended after 4 rows, 6 were delivered"):
        _read({"grpc://a:1": a, "grpc://b:1": _Location(_stream(4, rows=4))})
