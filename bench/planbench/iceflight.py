"""iceflight's side: GetFlightInfo timed from a pyarrow client against a real flightd.

Cold runs start a new ``flightd serve`` process for every measurement, so its metadata and
manifest caches are empty (the OS page cache is not: every file was read moments before).
The clock covers the GetFlightInfo RPC alone: the process is listening and the client's
connection is established (by an RPC that touches no table) before it starts.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.flight as fl

import benchkit

from .outcome import Outcome, short_error


class Flightd(benchkit.Flightd):
    """A ``flightd serve`` process with a client whose connection is already established."""

    def _ready(self, client: fl.FlightClient) -> None:
        _open_connection(client)

    def plan(self, command: dict[str, str]) -> tuple[float, fl.FlightInfo]:
        """Time one GetFlightInfo; return milliseconds and the FlightInfo."""
        assert self.client is not None
        descriptor = fl.FlightDescriptor.for_command(json.dumps(command))
        start = time.perf_counter()
        info = self.client.get_flight_info(descriptor)
        return (time.perf_counter() - start) * 1000.0, info


def _open_connection(client: fl.FlightClient) -> None:
    """Complete the gRPC handshake with ListActions, which reads no table."""
    try:
        list(client.list_actions())
    except NotImplementedError:
        pass  # Unimplemented still proves the connection is up.


def command(table: str, filter_text: str | None) -> dict[str, str]:
    """Return the CMD descriptor JSON of a scan of table with an optional filter."""
    cmd = {"table": table}
    if filter_text is not None:
        cmd["filter"] = filter_text
    return cmd


def measure_cold(binary: Path, warehouse: Path, cmd: dict[str, str], runs: int) -> Outcome:
    """Time the first GetFlightInfo of each of `runs` fresh flightd processes."""
    outcome = Outcome()
    for _ in range(runs):
        with Flightd(binary, warehouse) as server:
            if not _plan_into(server, cmd, outcome):
                break
    return outcome


def measure_warm(binary: Path, warehouse: Path, cmd: dict[str, str], runs: int) -> Outcome:
    """Time `runs` GetFlightInfo calls on one flightd process, after one untimed call."""
    outcome = Outcome()
    with Flightd(binary, warehouse) as server:
        warmup = Outcome()
        if not _plan_into(server, cmd, warmup):
            return warmup
        for _ in range(runs):
            if not _plan_into(server, cmd, outcome):
                break
    return outcome


def _plan_into(server: Flightd, cmd: dict[str, str], outcome: Outcome) -> bool:
    """Add one timed plan to outcome; on failure record why and return False."""
    try:
        elapsed_ms, info = server.plan(cmd)
        stats = json.loads(info.app_metadata)
        files = int(stats["data_files"])
    except NotImplementedError:
        outcome.failure = "unimplemented"
        return False
    except (pa.ArrowException, fl.FlightError, KeyError, TypeError, ValueError) as err:
        outcome.failure = short_error(err)
        return False
    outcome.add(elapsed_ms, files)
    if isinstance(stats.get("planning_ms"), (int, float)):
        outcome.server_ms.append(float(stats["planning_ms"]))
    outcome.reply_bytes = len(info.serialize())
    return outcome.failure is None
