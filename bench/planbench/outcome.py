"""What one side of the benchmark measured for one case."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Outcome:
    """Files matched and wall times of repeated runs, or why there are none.

    iceflight runs also keep the server's ``planning_ms`` and the serialized FlightInfo size.

    ``failure`` is ``"unimplemented"`` when the server answered gRPC Unimplemented, or a
    short ``"error: ..."`` text for any other failure; times then stay empty.
    """

    files: int | None = None
    times_ms: list[float] = field(default_factory=list)
    failure: str | None = None
    server_ms: list[float] = field(default_factory=list)
    reply_bytes: int | None = None

    def add(self, elapsed_ms: float, files: int) -> None:
        """Record one run; a run that matches a different file count is a failure."""
        if self.files is not None and self.files != files:
            self.failure = f"error: runs disagree ({self.files} then {files} files)"
        self.files = files
        self.times_ms.append(elapsed_ms)

    @property
    def median_ms(self) -> float | None:
        """The median wall time, or None when nothing was measured."""
        if self.failure is not None or not self.times_ms:
            return None
        return statistics.median(self.times_ms)

    @property
    def median_server_ms(self) -> float | None:
        """The median of the server's own planning_ms, where the server reports one."""
        if self.failure is not None or not self.server_ms:
            return None
        return statistics.median(self.server_ms)


def short_error(err: BaseException) -> str:
    """Return the first line of an exception's message, trimmed for a table cell."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return "error: " + (text if len(text) <= 80 else text[:77] + "...")
