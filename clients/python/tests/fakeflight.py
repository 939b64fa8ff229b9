"""A slow in-process Flight server: a location whose streams never end on
their own, to test cancellation, and a recorder of call headers."""

from __future__ import annotations

import threading
import time
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl

SCHEMA = pa.schema([("x", pa.int64())])


class _Headers(fl.ServerMiddlewareFactory):  # type: ignore[misc]
    def __init__(self, seen: list[dict[str, list[str]]]) -> None:
        self.seen = seen

    def start_call(self, info: Any, headers: dict[str, list[str]]) -> None:
        self.seen.append(headers)
        return None


class SlowServer(fl.FlightServerBase):  # type: ignore[misc]
    """Streams one small batch right away, then one every ``interval``
    seconds for a minute unless the client cancels.

    ``streaming`` is set once the first batch has been handed to gRPC (the
    generator was asked for the next one), so a test can act while a client
    is certainly inside a read. ``cancelled`` is set once the stream is over
    before its time: the generator saw the call cancelled while waiting, or
    was dropped by the server after a failed write.
    """

    def __init__(self, interval: float = 3.0) -> None:
        self.headers: list[dict[str, list[str]]] = []
        super().__init__("grpc://127.0.0.1:0", middleware={"headers": _Headers(self.headers)})
        self.location = f"grpc://127.0.0.1:{self.port}"
        self.interval = interval
        self.streaming = threading.Event()
        self.cancelled = threading.Event()

    def list_flights(self, context: Any, criteria: Any) -> Any:
        return iter(())

    def do_get(self, context: Any, ticket: Any) -> fl.GeneratorStream:
        def batches() -> Any:
            try:
                deadline = time.monotonic() + 60
                i = 0
                while time.monotonic() < deadline:
                    yield pa.record_batch([pa.array([i], pa.int64())], schema=SCHEMA)
                    self.streaming.set()
                    i += 1
                    wake = time.monotonic() + self.interval
                    while time.monotonic() < wake:
                        if context.is_cancelled():
                            return
                        time.sleep(0.01)
            finally:
                self.cancelled.set()

        return fl.GeneratorStream(SCHEMA, batches())


class PagedActions(fl.FlightServerBase):  # type: ignore[misc]
    """Answers ``snapshots`` and ``refs`` as flightd answers a long list:
    one JSON array or object split over several results."""

    PAGES = {
        "snapshots": [
            b'[{"snapshot_id": 1, "timestamp_ms": 10}, {"snapshot_id": 2, "timestamp_ms": 20}]',
            b'[{"snapshot_id": 3, "timestamp_ms": 30, "current": true}]',
        ],
        "refs": [
            b'{"main": {"snapshot_id": 3, "type": "branch"}}',
            b'{"v1": {"snapshot_id": 1, "type": "tag"}}',
        ],
    }

    def __init__(self) -> None:
        super().__init__("grpc://127.0.0.1:0")
        self.location = f"grpc://127.0.0.1:{self.port}"

    def do_action(self, context: Any, action: Any) -> Any:
        return iter(fl.Result(pa.py_buffer(p)) for p in self.PAGES[action.type])
