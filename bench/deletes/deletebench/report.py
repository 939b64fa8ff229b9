"""The Markdown results: one row per table, with its slowdown against ``plain``."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .dataset import TableInfo
from .scan import Scan

# The project's target: a table with 1% deleted rows reads less than 1.5 times slower.
TARGET = 1.5

HEADER = (
    "| table | deletes | rows read | seconds (median) | rows/s | slowdown vs plain | spread |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
)


@dataclass(frozen=True)
class Result:
    """Every timed scan of one table and the check of its first (untimed) scan."""

    table: TableInfo
    check: Scan
    runs: list[Scan]

    @property
    def median_seconds(self) -> float:
        """The median wall-clock time of the timed scans."""
        return statistics.median(s.seconds for s in self.runs)

    @property
    def rows(self) -> int:
        """The rows every scan read (the first scan's count; mismatches are reported)."""
        return self.check.rows

    def problems(self) -> list[str]:
        """Say where iceflight's scans disagree with what Iceberg Java read."""
        out = []
        name, want = self.table.identifier, self.table
        if self.check.rows != want.rows:
            out.append(
                f"{name}: iceflight read {self.check.rows:,} rows, Iceberg Java {want.rows:,}"
            )
        if self.check.id_sum != want.id_sum:
            out.append(
                f"{name}: iceflight's ids sum to {self.check.id_sum}, Java's to {want.id_sum}"
            )
        for s in self.runs:
            if s.rows != self.table.rows:
                out.append(f"{name}: a timed scan read {s.rows:,} rows, want {self.table.rows:,}")
                break
        return out


def render(results: list[Result]) -> str:
    """Render the results table, the verdict and any correctness problem, as Markdown."""
    plain = next(r for r in results if r.table.name == "plain")
    lines = list(HEADER)
    for r in results:
        lines.append(_line(r, plain))
    lines.append("")
    for r in results:
        if r is plain:
            continue
        ratio = r.median_seconds / plain.median_seconds
        verdict = "within" if ratio < TARGET else "ABOVE"
        lines.append(f"- `{r.table.name}`: {ratio:.2f}x plain, {verdict} the {TARGET}x target.")
    problems = [p for r in results for p in r.problems()]
    if problems:
        lines.append("")
        lines += [f"WARNING: {p}" for p in problems]
    lines.append("")
    lines += [
        "Server side (medians): planning ms from FlightInfo app_metadata; endpoints and delete "
        "files of the plan.",
        "",
        "| table | planning ms | endpoints | delete files | data MB | delete MB |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r.table.name} | {statistics.median(s.planning_ms for s in r.runs):.1f} "
            f"| {r.check.endpoints} | {r.check.delete_files} "
            f"| {r.table.data_bytes / 1e6:.0f} | {r.table.delete_bytes / 1e6:.2f} |"
        )
    return "\n".join(lines) + "\n"


def _line(r: Result, plain: Result) -> str:
    seconds = r.median_seconds
    times = sorted(s.seconds for s in r.runs)
    cells = [
        f"`{r.table.identifier}`",
        _deletes(r.table),
        f"{r.rows:,}",
        f"{seconds:.2f}",
        f"{r.rows / seconds / 1e6:.2f} M",
        "1.00x (base)" if r is plain else f"{seconds / plain.median_seconds:.2f}x",
        f"{times[0]:.2f}–{times[-1]:.2f} s",
    ]
    return "| " + " | ".join(cells) + " |"


def _deletes(t: TableInfo) -> str:
    if t.delete_files == 0:
        return "none"
    kind = "equality (id)" if t.name.startswith("eq") else "position"
    return f"{t.delete_files} {kind} files"
