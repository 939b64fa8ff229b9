"""PyIceberg's side: StaticTable.from_metadata(...).scan(row_filter=...).plan_files().

Each run loads the table afresh and clears PyIceberg's process-wide manifest cache first, so
every run does the work of iceflight's cold run: metadata JSON, manifest list, manifests.
"""

from __future__ import annotations

import time

from pyiceberg.expressions import BooleanExpression
from pyiceberg.manifest import clear_manifest_cache
from pyiceberg.table import StaticTable

from .outcome import Outcome, short_error


def plan_once(metadata_location: str, row_filter: BooleanExpression) -> tuple[float, int]:
    """Time one load-and-plan; return milliseconds and the number of planned files."""
    clear_manifest_cache()
    start = time.perf_counter()
    table = StaticTable.from_metadata(metadata_location)
    files = sum(1 for _ in table.scan(row_filter=row_filter).plan_files())
    return (time.perf_counter() - start) * 1000.0, files


def measure(metadata_location: str, row_filter: BooleanExpression, runs: int) -> Outcome:
    """Time `runs` load-and-plan runs; a failure is recorded, not raised."""
    outcome = Outcome()
    for _ in range(runs):
        try:
            elapsed_ms, files = plan_once(metadata_location, row_filter)
        except Exception as err:  # any PyIceberg failure becomes a table cell
            outcome.failure = short_error(err)
            break
        outcome.add(elapsed_ms, files)
        if outcome.failure is not None:
            break
    return outcome
