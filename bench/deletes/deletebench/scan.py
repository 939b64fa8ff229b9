"""Full scans through a real flightd, timed from a pyarrow Flight client.

One scan is what a client of a table pays: GetFlightInfo (planning, ticket signing), then a
DoGet of every endpoint, each in its own thread, draining every record batch. The clock stops
when the last stream ends.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import benchkit
import pyarrow.compute as pc
import pyarrow.flight as fl

# More threads than any plan has endpoints (flightd's default cap is 64).
MAX_STREAMS = 64


@dataclass(frozen=True)
class Scan:
    """One full scan: rows read, wall-clock seconds, and the server's plan statistics."""

    rows: int
    seconds: float
    endpoints: int
    planning_ms: float
    delete_files: int
    # The sum of the id column, only when the scan was asked to check it.
    id_sum: int | None


class Flightd(benchkit.Flightd):
    """A ``flightd serve`` process with a client and a pool of threads to read its streams."""

    def __init__(self, binary: Path, warehouse: Path) -> None:
        super().__init__(binary, warehouse)
        self._pool: ThreadPoolExecutor | None = None

    def _ready(self, client: fl.FlightClient) -> None:
        self._pool = ThreadPoolExecutor(MAX_STREAMS, thread_name_prefix="doget")

    def _stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        super()._stop()

    def scan(self, table: str, check: bool = False) -> Scan:
        """Read every row of table; with check, also sum its id column."""
        assert self.client is not None and self._pool is not None
        client = self.client
        descriptor = fl.FlightDescriptor.for_command(json.dumps({"table": table}))
        start = time.perf_counter()
        info = client.get_flight_info(descriptor)
        futures = [self._pool.submit(_drain, client, ep.ticket, check) for ep in info.endpoints]
        parts = [f.result() for f in futures]
        seconds = time.perf_counter() - start
        stats = json.loads(info.app_metadata) if info.app_metadata else {}
        return Scan(
            rows=sum(rows for rows, _ in parts),
            seconds=seconds,
            endpoints=len(info.endpoints),
            planning_ms=float(stats.get("planning_ms", float("nan"))),
            delete_files=int(stats.get("delete_files", -1)),
            id_sum=sum(s for _, s in parts) if check else None,
        )


def _drain(client: fl.FlightClient, ticket: fl.Ticket, check: bool) -> tuple[int, int]:
    """Read one endpoint's stream to the end; return its rows and (with check) its id sum."""
    reader = client.do_get(ticket)
    rows = 0
    id_sum = 0
    while True:
        try:
            chunk = reader.read_chunk()
        except StopIteration:
            break
        batch = chunk.data
        rows += batch.num_rows
        if check and batch.num_rows:
            id_sum += pc.sum(batch.column("id")).as_py() or 0
    return rows, id_sum
