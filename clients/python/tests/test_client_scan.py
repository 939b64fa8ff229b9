"""Streaming: parallel endpoints, bounded buffering, cancellation."""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl
import pytest

import iceflight
from _oracle import arrow_rows, oracle_rows, scan
from fakeflight import SCHEMA, SlowServer
from iceflight._parallel import EndpointStreams


def endpoint_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("iceflight-endpoint")]


def wait_until(cond: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return bool(cond())


@pytest.fixture()
def slow() -> Iterator[SlowServer]:
    server = SlowServer()
    yield server
    server.shutdown()


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    assert wait_until(lambda: not endpoint_threads()), f"threads left by an earlier test: {endpoint_threads()}"
    yield
    assert wait_until(lambda: not endpoint_threads()), f"threads left running: {endpoint_threads()}"


class CountingConnect:
    """Wraps the client's connections to count DoGet calls."""

    def __init__(self, client: iceflight.Client) -> None:
        self.client = client
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, uri: str) -> Any:
        real = self.client._pool.get(uri)
        outer = self

        class Counted:
            def do_get(self, ticket: Any, options: Any = None) -> Any:
                with outer.lock:
                    outer.calls += 1
                return real.do_get(ticket, options=options)

        return Counted()


def test_scan_streams_every_row_of_the_oracle(client: iceflight.Client) -> None:
    entry, rows = scan("samples.eq_deletes_evolved")
    reader = client.scan("samples.eq_deletes_evolved")
    assert isinstance(reader, pa.RecordBatchReader)
    table = pa.Table.from_batches(list(reader), schema=reader.schema)
    assert arrow_rows(table, entry["schema"]) == oracle_rows(rows, entry["schema"])
    assert wait_until(lambda: not endpoint_threads())


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_endpoints_are_read_by_max_workers_at_once(client: iceflight.Client, slow: SlowServer, workers: int) -> None:
    # Six endpoints whose second batch is 3 s away: every worker holds an
    # open stream, and the other endpoints wait for a free worker.
    endpoints = [fl.FlightEndpoint(f"slow-{i}".encode(), [slow.location]) for i in range(6)]
    connect = CountingConnect(client)
    with EndpointStreams(endpoints, connect, client._options, table="fake.slow", max_workers=workers, max_buffered=100) as streams:
        it = iter(streams)
        next(it)
        assert wait_until(lambda: connect.calls >= workers)
        time.sleep(0.3)
        assert connect.calls == workers
        assert streams.alive() == workers


def test_endpoints_in_parallel_return_every_row(server: str) -> None:
    entry, rows = scan("samples.eq_deletes_evolved")  # 15 endpoints
    for workers in (1, 3, 8):
        with iceflight.connect(server, max_workers=workers) as client:
            got = client.read("samples.eq_deletes_evolved")
        assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"]), workers


def test_a_slow_consumer_bounds_what_is_buffered(client: iceflight.Client) -> None:
    entry, want = scan("samples.pos_deletes_rowgroups")
    plan = client.plan("samples.pos_deletes_rowgroups")
    assert plan.endpoint_metadata(0)["records"] >= 3000  # one endpoint of many batches
    with plan.streams(max_workers=1, max_buffered=1) as streams:
        it = iter(streams)
        first = next(it)
        time.sleep(0.5)
        # One taken, one queued, one held by the worker waiting to queue it.
        assert streams.batches_received <= 3
        batches = [first[1]] + [b for _, b in it]
    assert len(batches) > 3
    got = pa.Table.from_batches(batches, schema=plan.schema)
    assert arrow_rows(got, entry["schema"]) == oracle_rows(want, entry["schema"])


def test_closing_the_reader_cancels_the_streams(client: iceflight.Client) -> None:
    plan = client.plan("samples.pos_deletes_rowgroups")
    reader = plan.with_endpoints(plan.endpoints[:1]).scan(max_buffered=1)
    reader.read_next_batch()
    assert endpoint_threads()
    reader.close()
    assert wait_until(lambda: not endpoint_threads(), 2.0)


def test_leaving_a_streams_block_early_cancels(client: iceflight.Client) -> None:
    plan = client.plan("samples.trips")
    with plan.streams(max_buffered=1) as streams:
        for _ in streams:
            break
    assert wait_until(lambda: not endpoint_threads(), 2.0)


def slow_plan(client: iceflight.Client, server: SlowServer) -> iceflight.Plan:
    endpoint = fl.FlightEndpoint(b"slow", [server.location])
    return iceflight.Plan(client=client, table="fake.slow", schema=SCHEMA, endpoints=[endpoint], statistics=iceflight.PlanStatistics())


def test_closing_cancels_a_stream_the_server_is_still_sending(client: iceflight.Client, slow: SlowServer) -> None:
    reader = slow_plan(client, slow).scan()
    reader.read_next_batch()
    reader.close()
    # The next batch is 3 s away: only a cancelled call ends the stream sooner.
    assert slow.cancelled.wait(2), "the server did not see the stream cancelled"
    assert wait_until(lambda: not endpoint_threads(), 2.0)


def test_ctrl_c_cancels_the_streams(client: iceflight.Client, slow: SlowServer) -> None:
    plan = slow_plan(client, slow)
    stop = threading.Event()

    def ctrl_c_once_streaming() -> None:
        # The server streams only once read() has started its worker, so
        # the interrupt lands inside read(), however busy the machine.
        while not stop.is_set():
            if slow.streaming.wait(0.05):
                _thread.interrupt_main()
                return

    interrupter = threading.Thread(target=ctrl_c_once_streaming, name="ctrl-c")
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            plan.read()
    finally:
        stop.set()
        interrupter.join()
    # The stream's next batch is 3 s away and it ends on its own only after
    # a minute: the generator ending at all means the call was cancelled.
    assert slow.cancelled.wait(30), "the server did not see the stream cancelled"
    assert wait_until(lambda: not endpoint_threads(), 10.0)


def test_token_and_headers_go_with_every_call(slow: SlowServer) -> None:
    with iceflight.connect(slow.location, token="s3cret", headers={"X-Tenant": "blue"}) as c:
        c.tables()
        reader = slow_plan(c, slow).scan()
        reader.read_next_batch()
        reader.close()
    assert len(slow.headers) == 2
    for h in slow.headers:
        assert h["authorization"] == ["Bearer s3cret"]
        assert h["x-tenant"] == ["blue"]
