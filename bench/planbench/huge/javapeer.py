"""Iceberg Java's single-node planning: ``table.newScan().filter(f).planFiles()``.

One JVM per case (``PlanFiles`` in bench/gen): its first load-and-plan is "cold", timed from
the start of ``main`` (so JVM start-up is excluded; loading Iceberg's classes and JIT warm-up
are not), then ``warm_runs`` more in the same JVM are "warm". Iceberg Java keeps no manifest
cache by default, so a warm plan reads every manifest again: it differs from the cold one by
a warmed-up JVM and a warm OS page cache.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..cases import Case
from .guard import run_watched
from .result import PeerResult, plan_from_json

MAIN_CLASS = "io.iceflight.benchgen.PlanFiles"


def measure(
    jar: Path, metadata_location: str, case: Case, warm_runs: int, timeout_s: float, limit: int
) -> PeerResult:
    """Run PlanFiles for one case under the time limit and memory ceiling."""
    argv = ["java", "-cp", str(jar), MAIN_CLASS, "--metadata", metadata_location]
    argv += ["--warm-runs", str(warm_runs)]
    if case.java_filter is not None:
        argv += ["--filter", case.java_filter]
    done = run_watched(argv, timeout_s, limit)
    result = PeerResult(peak_rss=done.peak_rss, failure=done.failure)
    for line in done.stdout.splitlines():
        data = json.loads(line)
        if data.get("run") == "cold":
            result.cold = plan_from_json(line)
        elif data.get("run") == "warm":
            result.warm.append(plan_from_json(line))
        elif isinstance(data.get("vmhwm_kib"), int) and data["vmhwm_kib"] > 0:
            result.peak_rss = max(result.peak_rss or 0, data["vmhwm_kib"] * 1024)
    return result
