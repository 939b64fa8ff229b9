"""PyIceberg's planning: ``StaticTable.from_metadata(...).scan(row_filter=...).plan_files()``.

Each case runs in a child process (``python -m planbench.huge.pyicebergpeer METADATA CASE``)
so that its peak memory is its own and a run that takes too long or too much memory can be
given up without losing the benchmark: PyIceberg builds every planned file as a Python object
before it returns the first one.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from ..cases import CASES
from .guard import run_watched
from .result import PeerResult, plan_from_json


def measure(
    python: Path,
    bench_dir: Path,
    metadata_location: str,
    case_index: int,
    timeout_s: float,
    limit: int,
) -> PeerResult:
    """Plan case ``CASES[case_index]`` once in a child under the time and memory limits."""
    argv = [str(python), "-m", "planbench.huge.pyicebergpeer", metadata_location, str(case_index)]
    done = run_watched(argv, timeout_s, limit, cwd=bench_dir)
    result = PeerResult(peak_rss=done.peak_rss, failure=done.failure)
    lines = done.stdout.strip().splitlines()
    if done.failure is None and lines:
        data = json.loads(lines[-1])
        result.cold = plan_from_json(lines[-1])
        result.peak_rss = max(result.peak_rss or 0, int(data["maxrss_kib"]) * 1024)
    return result


def _plan(metadata_location: str, case_index: int) -> None:
    """Load and plan once in this child; print one JSON line: time, files, records, memory."""
    from pyiceberg.table import StaticTable

    row_filter = CASES[case_index].pyiceberg_filter
    start = time.perf_counter()
    table = StaticTable.from_metadata(metadata_location)
    files = records = 0
    for task in table.scan(row_filter=row_filter).plan_files():
        files += 1
        records += task.file.record_count
    ms = (time.perf_counter() - start) * 1000.0
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"ms": ms, "files": files, "records": records, "maxrss_kib": maxrss}))


if __name__ == "__main__":
    _plan(sys.argv[1], int(sys.argv[2]))
