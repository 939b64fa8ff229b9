"""PyIceberg planning through iceflight's Iceberg REST catalog, beside its own planning.

Both sides are PyIceberg 0.12's ``table.scan(row_filter=...).plan_files()`` on the table
loaded from ``flightd serve --rest-listen`` (the load is not timed):

- **server-side**: a catalog with ``scan-planning-mode: server``, so ``plan_files()`` posts
  the scan to ``/v1/namespaces/bench/tables/events/plan``, iceflight's planner answers, and
  PyIceberg fetches the remaining pages of file scan tasks (``/tasks``) and turns every
  task into its own ``FileScanTask``. Cold: a fresh flightd per run (empty manifest
  cache; the untimed load has read the table's metadata); warm: repeated on one process
  after one untimed plan.
- **client-side**: the default mode, PyIceberg reading the manifest list and manifests
  itself after ``clear_manifest_cache()``, as the PyIceberg column of the first table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import BooleanExpression
from pyiceberg.manifest import clear_manifest_cache
from pyiceberg.table import Table

import benchkit

from .outcome import Outcome, short_error


@dataclass(frozen=True)
class RestRow:
    """The REST measurements of one case."""

    server_cold: Outcome
    server_warm: Outcome
    client: Outcome


def _catalog(uri: str, server_side: bool) -> RestCatalog:
    props = {"scan-planning-mode": "server"} if server_side else {}
    return RestCatalog("iceflight", uri=uri, **props)


def _load(server: benchkit.Flightd, table: str, server_side: bool) -> Table:
    assert server.rest_uri is not None
    cat = _catalog(server.rest_uri, server_side)
    if server_side and not cat.supports_server_side_planning():
        raise RuntimeError("the server does not advertise POST .../plan in /v1/config")
    loaded: Table = cat.load_table(table)  # retry-decorated: typed Any
    return loaded


def _plan_once(table: Table, row_filter: BooleanExpression) -> tuple[float, int]:
    """Time one plan_files(); return milliseconds and the number of planned files."""
    start = time.perf_counter()
    files = sum(1 for _ in table.scan(row_filter=row_filter).plan_files())
    return (time.perf_counter() - start) * 1000.0, files


def _record(outcome: Outcome, run: Callable[[], tuple[float, int]]) -> bool:
    """Add one timed run to outcome; on failure record why and return False."""
    try:
        elapsed_ms, files = run()
    except NotImplementedError as err:
        # PyIceberg's error for a 501 answer, as for gRPC Unimplemented in the first table;
        # also for a plan answered "submitted", which PyIceberg 0.12 cannot poll.
        unimplemented = str(err).startswith("UnsupportedOperationException")
        outcome.failure = "unimplemented" if unimplemented else short_error(err)
        return False
    except Exception as err:  # any other failure becomes a table cell
        outcome.failure = short_error(err)
        return False
    outcome.add(elapsed_ms, files)
    return outcome.failure is None


def measure(
    binary: Path, warehouse: Path, table: str, row_filter: BooleanExpression, runs: int
) -> RestRow:
    """Measure one case on both sides, `runs` times each."""
    cold, warm, client = Outcome(), Outcome(), Outcome()
    for _ in range(runs):
        with benchkit.Flightd(binary, warehouse, rest=True) as server:
            if not _record(cold, lambda: _plan_once(_load(server, table, True), row_filter)):
                break
    with benchkit.Flightd(binary, warehouse, rest=True) as server:
        warmup = Outcome()
        if _record(warmup, lambda: _plan_once(_load(server, table, True), row_filter)):
            loaded = _load(server, table, True)
            for _ in range(runs):
                if not _record(warm, lambda: _plan_once(loaded, row_filter)):
                    break
        else:
            warm = warmup
        loaded = _load(server, table, False)
        for _ in range(runs):
            clear_manifest_cache()
            if not _record(client, lambda: _plan_once(loaded, row_filter)):
                break
    return RestRow(cold, warm, client)
