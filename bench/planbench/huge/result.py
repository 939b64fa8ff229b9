"""What each side of the huge benchmark measured for one case."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plan:
    """One planned scan: wall time, files matched and, where known, their record count."""

    ms: float
    files: int
    records: int | None = None


@dataclass
class PeerResult:
    """A peer's cold plan, its warm plans, its peak memory, or why it has none.

    ``failure`` is ``"> N s"`` (gave up at the time limit), ``"killed above N GiB"`` (passed
    the memory ceiling), ``"unimplemented"`` or ``"error: ..."``; plans made before a failure
    are kept.
    """

    cold: Plan | None = None
    warm: list[Plan] = field(default_factory=list)
    #: The process's peak resident set (VmHWM) in bytes.
    peak_rss: int | None = None
    failure: str | None = None

    @property
    def files(self) -> int | None:
        """Files matched by the cold plan, else by a warm one."""
        for plan in [self.cold, *self.warm]:
            if plan is not None:
                return plan.files
        return None

    @property
    def warm_ms(self) -> float | None:
        """The median of the warm plans' wall times."""
        return statistics.median(p.ms for p in self.warm) if self.warm else None


@dataclass
class IceflightResult(PeerResult):
    """iceflight's measurements: PeerResult plus what the FlightInfo said."""

    #: Wall time to the first PollFlightInfo answer with an endpoint, on a fresh process.
    first_endpoint_ms: float | None = None
    #: Why there is no first-endpoint time (e.g. the client cannot poll).
    first_endpoint_note: str | None = None
    endpoints: int | None = None
    total_records: int | None = None
    info_bytes: int | None = None
    #: The server's own planning_ms of the cold plan, from app_metadata.
    planning_ms: float | None = None
    #: Whether flightd ran with --manifest-tickets-above 0.
    manifest_tickets: bool = False


def plan_from_json(line: str) -> Plan:
    """Parse a child's ``{"ms": .., "files": .., "records": ..}`` line."""
    data = json.loads(line)
    records = data.get("records")
    return Plan(float(data["ms"]), int(data["files"]), None if records is None else int(records))
