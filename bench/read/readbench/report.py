"""The results: one Markdown table (read.md) and the same figures as JSON (latest.json)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

#: Peers in table order; iceflight is the reference of the ratio column.
PEERS = ("iceflight", "pyiceberg", "pyarrow", "icebergo", "transport")

LABELS = {
    "iceflight": "iceflight (flightd + Python client)",
    "pyiceberg": "PyIceberg `scan().to_arrow()`",
    "pyarrow": "pyarrow direct (decode limit)",
    "icebergo": "iceberg-go `ToArrowTable`",
    "transport": "bare Flight server (transport limit)",
}


@dataclass
class Result:
    """One peer's runs of one case, or why there are none."""

    case: str
    peer: str
    seconds: list[float] = field(default_factory=list)
    rows: int | None = None
    nbytes: int | None = None
    endpoints: int | None = None
    server_rss_mb: float | None = None
    client_rss_mb: float | None = None
    failure: str | None = None

    @property
    def median(self) -> float | None:
        """Median wall seconds, or None."""
        if self.failure is not None or not self.seconds:
            return None
        return statistics.median(self.seconds)

    def as_json(self) -> dict[str, Any]:
        """Return the result with its median, for latest.json."""
        return {**self.__dict__, "median_seconds": self.median}


HEADER = (
    "| case | peer | rows | median s | M rows/s | MB/s | server peak RSS MB "
    "| client peak RSS MB | time / iceflight |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def render(results: list[Result], case_bytes: dict[str, int]) -> str:
    """Render the table; MB/s divides the case's Arrow bytes (pyarrow's result) by time."""
    lines = list(HEADER)
    by_key = {(r.case, r.peer): r for r in results}
    warnings = []
    for case in dict.fromkeys(r.case for r in results):
        ref = by_key.get((case, "iceflight"))
        ref_rows = ref.rows if ref is not None else None
        for peer in PEERS:
            res = by_key.get((case, peer))
            if res is None:
                continue
            lines.append(_line(res, ref, case_bytes.get(case)))
            if res.rows is not None and ref_rows is not None and res.rows != ref_rows:
                warnings.append(
                    f"WARNING: {case}: {peer} read {res.rows:,} rows, iceflight {ref_rows:,}"
                )
    if warnings:
        lines += [""] + warnings
    return "\n".join(lines) + "\n"


def _line(res: Result, ref: Result | None, nbytes: int | None) -> str:
    median = res.median
    if median is None:
        cells = [res.case, LABELS[res.peer], res.failure or "-"] + ["-"] * 6
        return "| " + " | ".join(cells) + " |"
    rows = res.rows or 0
    size = nbytes if nbytes is not None else res.nbytes
    ref_median = ref.median if ref is not None else None
    cells = [
        res.case,
        LABELS[res.peer],
        f"{rows:,}",
        f"{median:.3f}",
        f"{rows / median / 1e6:.2f}",
        "-" if size is None else f"{size / median / 1e6:,.0f}",
        _mb(res.server_rss_mb),
        _mb(res.client_rss_mb),
        "-" if ref_median is None else f"{median / ref_median:.2f}x",
    ]
    return "| " + " | ".join(cells) + " |"


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"
