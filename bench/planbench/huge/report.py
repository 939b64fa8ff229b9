"""The Markdown tables of the huge case: times, plan shape and memory, goals, checks."""

from __future__ import annotations

from dataclasses import dataclass

from ..cases import Case
from .clusterpeer import ClusterResult
from .guard import MIB
from .result import IceflightResult, PeerResult

#: Issue 28's goals for iceflight on this table, printed beside the figures.
GOAL_FIRST_ENDPOINT_MS = 1_000.0
GOAL_WHOLE_PLAN_MS = 3_000.0
GOAL_PEAK_RSS = 512 * MIB

TIMES_HEADER = (
    "| case | files (iceflight) | files (Java) | files (PyIceberg) "
    "| iceflight first endpoint ms | iceflight plan cold ms | iceflight plan warm ms "
    "| Java cold ms | Java warm ms | PyIceberg ms | Java cold / iceflight cold "
    "| PyIceberg / iceflight cold |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)

SHAPE_HEADER = (
    "The cold plans' shape and each process's peak resident set (VmHWM after the case):",
    "",
    "| case | endpoints | total_records | FlightInfo MB | flightd planning_ms "
    "| flightd peak RSS MiB | Java peak RSS MiB | PyIceberg peak RSS MiB |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)

GOALS_HEADER = (
    "iceflight against issue 28's goals (cold):",
    "",
    "| case | first endpoint < 1 s | whole plan < 3 s | coordinator peak RSS < 512 MiB |",
    "| --- | --- | --- | --- |",
)


@dataclass(frozen=True)
class HugeRow:
    """Every measurement of one case."""

    case: Case
    iceflight: IceflightResult
    java: PeerResult
    pyiceberg: PeerResult
    #: Exact file lists planned by two workers; None when not run, with cluster_note saying why.
    cluster: ClusterResult | None = None
    cluster_note: str | None = None


CLUSTER_HEADER = (
    "Exact file lists: the coordinator has its two workers plan the manifest groups "
    "(`--large-plan-tickets files`, a coordinator and two workers on loopback), first endpoint "
    "and whole plan from the client's PollFlightInfo (bench/peers/flightpoll):",
    "",
    "| case | files | first endpoint ms | whole plan ms | Java cold / whole plan | endpoints "
    "| total_records | FlightInfo MB | coordinator peak RSS MiB | worker peak RSS MiB |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)


def render(rows: list[HugeRow], table_records: int) -> str:
    """Render the tables, the row count check and the warnings as Markdown."""
    lines = list(TIMES_HEADER)
    lines += [_times_line(row) for row in rows]
    lines += ["", *SHAPE_HEADER]
    lines += [_shape_line(row) for row in rows]
    lines += ["", *GOALS_HEADER]
    lines += [_goals_line(row) for row in rows]
    lines += ["", *CLUSTER_HEADER]
    lines += [_cluster_line(row) for row in rows]
    lines += ["", _row_count_check(rows[0], table_records)]
    notes = sorted({r.iceflight.first_endpoint_note or "" for r in rows} - {""})
    lines += [f"- first endpoint: {note}" for note in notes]
    warnings = [w for w in (_mismatch(row) for row in rows) if w is not None]
    if warnings:
        lines += ["", *warnings]
    return "\n".join(lines) + "\n"


def _times_line(row: HugeRow) -> str:
    ice, java, py = row.iceflight, row.java, row.pyiceberg
    ice_cold = ice.cold.ms if ice.cold is not None else None
    cells = [
        row.case.name,
        _files(ice),
        _files(java),
        _files(py),
        _ms(ice.first_endpoint_ms, "-" if ice.first_endpoint_ms is None else None),
        _cold(ice),
        _warm(ice),
        _cold(java),
        _warm(java),
        _cold(py),
        _ratio(java, ice_cold),
        _ratio(py, ice_cold),
    ]
    return "| " + " | ".join(cells) + " |"


def _shape_line(row: HugeRow) -> str:
    ice = row.iceflight
    cells = [
        row.case.name,
        _int(ice.endpoints),
        _int(ice.total_records),
        "-" if ice.info_bytes is None else f"{ice.info_bytes / 1e6:,.1f}",
        _ms(ice.planning_ms, None),
        _mib(ice),
        _mib(row.java),
        _mib(row.pyiceberg),
    ]
    return "| " + " | ".join(cells) + " |"


def _goals_line(row: HugeRow) -> str:
    ice = row.iceflight
    first = (
        _goal(ice.first_endpoint_ms, GOAL_FIRST_ENDPOINT_MS, f"{ice.first_endpoint_ms:,.0f} ms")
        if ice.first_endpoint_ms is not None
        else "not measured"
    )
    cold = ice.cold.ms if ice.cold is not None else None
    whole = (
        _goal(cold, GOAL_WHOLE_PLAN_MS, f"{cold:,.0f} ms")
        if cold is not None
        else f"no ({ice.failure})"
    )
    rss = (
        _goal(ice.peak_rss, GOAL_PEAK_RSS, f"{ice.peak_rss / MIB:,.0f} MiB")
        if ice.peak_rss is not None
        else "-"
    )
    return f"| {row.case.name} | {first} | {whole} | {rss} |"


def _cluster_line(row: HugeRow) -> str:
    c = row.cluster
    if c is None:
        return f"| {row.case.name} | {row.cluster_note or 'not run'} |" + " |" * 8
    if c.failure is not None and c.whole_ms is None:
        return f"| {row.case.name} | {c.failure} |" + " |" * 8
    ratio = "-"
    if row.java.cold is not None and c.whole_ms:
        ratio = f"{row.java.cold.ms / c.whole_ms:.1f}x"
    cells = [
        row.case.name,
        _int(c.files),
        _ms(c.first_endpoint_ms, None),
        _ms(c.whole_ms, None),
        ratio,
        _int(c.endpoints),
        _int(c.total_records),
        "-" if c.info_bytes is None else f"{c.info_bytes / 1e6:,.1f}",
        "-" if c.coordinator_rss is None else f"{c.coordinator_rss / MIB:,.0f}",
        "-" if c.worker_rss is None else f"{c.worker_rss / MIB:,.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def _goal(value: float | None, goal: float, shown: str) -> str:
    return f"{'yes' if value is not None and value < goal else 'no'} ({shown})"


def _row_count_check(row: HugeRow, table_records: int) -> str:
    """Compare case (a)'s planned record counts with the row count the generator recorded.

    The data files do not exist, so no rows can be read: the check is each plan's sum of the
    planned files' record counts (iceflight's ``total_records``) against the table's.
    """
    sums = {
        "iceflight's total_records": row.iceflight.total_records,
        "Iceberg Java's sum": _records(row.java),
        "PyIceberg's sum": _records(row.pyiceberg),
    }
    found = [
        f"{name} {got:,}: {'equal' if got == table_records else 'DIFFERENT'}"
        for name, got in sums.items()
        if got is not None
    ]
    if row.iceflight.total_records is None:
        found.insert(0, "iceflight's FlightInfo gives no total_records: unknown")
    return (
        f"Row count, {row.case.name}: the table has {table_records:,} rows (generator's sum); "
        + "; ".join(found)
        + "."
    )


def _records(result: PeerResult) -> int | None:
    return None if result.cold is None else result.cold.records


def _mismatch(row: HugeRow) -> str | None:
    """Return a warning when the peers that finished matched different numbers of files."""
    counts = {
        "iceflight": row.iceflight.files,
        "Iceberg Java": row.java.files,
        "PyIceberg": row.pyiceberg.files,
    }
    seen = {k: v for k, v in counts.items() if v is not None}
    if len(set(seen.values())) <= 1:
        return None
    found = ", ".join(f"{k} {v:,}" for k, v in seen.items())
    return f"WARNING: {row.case.name}: files matched differ: {found}"


def _files(result: PeerResult) -> str:
    files = result.files
    if files is None:
        return result.failure or "-"
    return f"{files:,}"


def _cold(result: PeerResult) -> str:
    return _ms(None if result.cold is None else result.cold.ms, result.failure)


def _warm(result: PeerResult) -> str:
    """Return the warm median; a failure is shown once, in the cold column, when it came first."""
    return _ms(result.warm_ms, None if result.cold is None else result.failure)


def _ms(value: float | None, failure: str | None) -> str:
    if value is None:
        return failure or "-"
    return f"{value:,.1f}"


def _int(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _mib(result: PeerResult) -> str:
    if result.peak_rss is None:
        return "-"
    bound = "≥ " if result.failure is not None else ""
    return f"{bound}{result.peak_rss / MIB:,.0f}"


def _ratio(peer: PeerResult, ice_cold_ms: float | None) -> str:
    """Return the peer's cold time over iceflight's; a lower bound when the peer gave up."""
    if ice_cold_ms is None or ice_cold_ms <= 0:
        return "-"
    if peer.cold is not None:
        return f"{peer.cold.ms / ice_cold_ms:.1f}x"
    failure = peer.failure or ""
    if failure.startswith("> ") and failure.endswith(" s"):
        return f"> {float(failure[2:-2]) * 1000.0 / ice_cold_ms:.1f}x"
    return "-"
