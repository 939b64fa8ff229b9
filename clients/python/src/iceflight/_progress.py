"""The progress line ``iceflight read`` prints on stderr."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO

# A read shorter than this prints nothing unless progress is forced.
_QUIET_SECONDS = 1.0
# Shortest time between two progress lines.
_INTERVAL = 0.5


class Progress:
    """Counts rows and bytes and prints a rate line now and then.

    Parameters
    ----------
    out : file
        Where to print (stderr).
    enabled : bool or None
        True prints always (one line per update interval and a final
        line), False never; None prints only for a read longer than a
        second on a terminal.
    clock : callable, optional
        Monotonic clock in seconds (for tests).
    """

    def __init__(self, out: IO[str], enabled: bool | None, clock: Callable[[], float] | None = None) -> None:
        self._out = out
        self._clock: Callable[[], float] = clock or time.monotonic
        self._tty = bool(getattr(out, "isatty", lambda: False)())
        self._enabled = enabled
        self._start = self._clock()
        self._last = self._start
        self._printed = False
        self.rows = 0
        self.bytes = 0

    def _active(self, now: float) -> bool:
        if self._enabled is None:
            return self._tty and now - self._start >= _QUIET_SECONDS
        return self._enabled

    def line(self, now: float) -> str:
        """Return the progress line at time ``now``."""
        secs = max(now - self._start, 1e-9)
        mb = self.bytes / 1e6
        return f"{self.rows:,} rows  {mb:,.1f} MB  {mb / secs:,.1f} MB/s  {secs:.1f} s"

    def _print(self, now: float) -> None:
        text = self.line(now)
        if self._tty:
            self._out.write("\r" + text + "\x1b[K")
        else:
            self._out.write(text + "\n")
        self._out.flush()
        self._printed = True
        self._last = now

    def update(self, rows: int, nbytes: int) -> None:
        """Count a batch and print a line if one is due."""
        self.rows += rows
        self.bytes += nbytes
        now = self._clock()
        if now - self._last >= _INTERVAL and self._active(now):
            self._print(now)

    def finish(self) -> None:
        """Print the final line if any line was printed or progress is forced."""
        now = self._clock()
        if self._printed or self._enabled or self._active(now):
            self._print(now)
            if self._tty:
                self._out.write("\n")
                self._out.flush()
