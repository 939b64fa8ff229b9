"""The Markdown table of results, with a warning line per case where file counts differ."""

from __future__ import annotations

from dataclasses import dataclass

from .cases import Case
from .outcome import Outcome
from .restplan import RestRow

HEADER = (
    "| case | files matched (iceflight) | files matched (PyIceberg) "
    "| iceflight cold ms | iceflight warm ms | PyIceberg ms | PyIceberg / iceflight cold |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
)


@dataclass(frozen=True)
class Row:
    """Every measurement of one case."""

    case: Case
    cold: Outcome
    warm: Outcome
    pyiceberg: Outcome
    rest: RestRow


DETAIL_HEADER = (
    "iceflight's own view of the same calls: `planning_ms` from FlightInfo app_metadata "
    "(medians), and the size of the serialized FlightInfo the client received.",
    "",
    "| case | server planning ms, cold | server planning ms, warm | FlightInfo MB |",
    "| --- | ---: | ---: | ---: |",
)


REST_HEADER = (
    "PyIceberg through iceflight's Iceberg REST catalog (`flightd serve --rest-listen`): "
    "`plan_files()` of the loaded table with `scan-planning-mode: server` (POST `/plan`, "
    "iceflight's planner, the task pages fetched and parsed by PyIceberg; cold: a fresh "
    "flightd per run, warm: one process) beside PyIceberg's own client-side `plan_files()` "
    "of the same table, medians.",
    "",
    "| case | files (server-side) | files (client-side) | server-side cold ms "
    "| server-side warm ms | client-side ms | client / server cold | client / server warm |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def render(rows: list[Row]) -> str:
    """Render every table and its warnings as Markdown.

    The results table, iceflight's server detail, then planning through the REST catalog.
    """
    lines = list(HEADER)
    lines += [_line(row) for row in rows]
    warnings = [w for w in (_mismatch(row) for row in rows) if w is not None]
    if warnings:
        lines.append("")
        lines += warnings
    lines.append("")
    lines += DETAIL_HEADER
    lines += [_detail_line(row) for row in rows]
    lines.append("")
    lines += REST_HEADER
    lines += [_rest_line(row) for row in rows]
    warnings = [w for w in (_rest_mismatch(row) for row in rows) if w is not None]
    if warnings:
        lines.append("")
        lines += warnings
    return "\n".join(lines) + "\n"


def _line(row: Row) -> str:
    cells = [
        row.case.name,
        _files(row.cold if row.cold.files is not None else row.warm),
        _files(row.pyiceberg),
        _ms(row.cold),
        _ms(row.warm),
        _ms(row.pyiceberg),
        _ratio(row.pyiceberg.median_ms, row.cold.median_ms),
    ]
    return "| " + " | ".join(cells) + " |"


def _detail_line(row: Row) -> str:
    size = row.cold.reply_bytes if row.cold.reply_bytes is not None else row.warm.reply_bytes
    cells = [
        row.case.name,
        _server_ms(row.cold),
        _server_ms(row.warm),
        "-" if size is None else f"{size / 1e6:,.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


def _rest_line(row: Row) -> str:
    rest = row.rest
    server = rest.server_cold if rest.server_cold.files is not None else rest.server_warm
    cells = [
        row.case.name,
        _files(server),
        _files(rest.client),
        _ms(rest.server_cold),
        _ms(rest.server_warm),
        _ms(rest.client),
        _ratio(rest.client.median_ms, rest.server_cold.median_ms),
        _ratio(rest.client.median_ms, rest.server_warm.median_ms),
    ]
    return "| " + " | ".join(cells) + " |"


def _files(outcome: Outcome) -> str:
    if outcome.files is None:
        return outcome.failure or "-"
    return f"{outcome.files:,}"


def _ms(outcome: Outcome) -> str:
    median = outcome.median_ms
    if median is None:
        return outcome.failure or "-"
    return f"{median:,.1f}"


def _server_ms(outcome: Outcome) -> str:
    median = outcome.median_server_ms
    if median is None:
        return outcome.failure or "-"
    return f"{median:,.1f}"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None or denominator <= 0:
        return "-"
    return f"{numerator / denominator:.1f}x"


def _rest_mismatch(row: Row) -> str | None:
    """Return a warning when server-side and client-side planning matched different files."""
    counts = {
        "server-side cold": row.rest.server_cold.files,
        "server-side warm": row.rest.server_warm.files,
        "client-side": row.rest.client.files,
    }
    seen = {k: v for k, v in counts.items() if v is not None}
    if len(set(seen.values())) <= 1:
        return None
    found = ", ".join(f"{k} {v:,}" for k, v in seen.items())
    return f"WARNING: {row.case.name}: PyIceberg through REST matched {found} files"


def _mismatch(row: Row) -> str | None:
    """Return a warning when two plans of the same scan matched different numbers of files."""
    cold, warm = row.cold.files, row.warm.files
    if cold is not None and warm is not None and cold != warm:
        return f"WARNING: {row.case.name}: iceflight matched {cold:,} files cold, {warm:,} warm"
    ours = cold if cold is not None else warm
    theirs = row.pyiceberg.files
    if ours is None or theirs is None or ours == theirs:
        return None
    return f"WARNING: {row.case.name}: iceflight matched {ours:,} files, PyIceberg {theirs:,}"
