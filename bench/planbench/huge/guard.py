"""Watching a measured process: its peak resident set, a memory ceiling and a time limit.

Planning ten million files can take minutes and many GiB. Every peer runs as its own process
so that its peak resident set (VmHWM) is its own, and a watcher kills it at a ceiling, on a
machine shared with others, rather than let it push everything else out of memory.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30
MIB = 1 << 20

#: How often the watcher reads /proc/PID/status.
POLL_SECONDS = 0.1


def status_bytes(pid: int, key: str) -> int | None:
    """Return a ``kB`` field of /proc/PID/status (VmRSS, VmHWM) in bytes, None when gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class Watch:
    """A thread that follows one process's VmHWM and kills it above ``limit`` bytes."""

    def __init__(self, proc: subprocess.Popen[str], limit: int) -> None:
        self._proc = proc
        self._limit = limit
        self._stop = threading.Event()
        #: The highest VmHWM seen, in bytes.
        self.peak: int | None = None
        #: True once the process was killed for passing the limit.
        self.killed = False
        #: Seconds from entering the watch to the kill.
        self.killed_after: float | None = None
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Watch:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sample()
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        """Read VmHWM now: call it after a measurement, while the process still lives."""
        hwm = status_bytes(self._proc.pid, "VmHWM")
        if hwm is not None and (self.peak is None or hwm > self.peak):
            self.peak = hwm

    def failure(self, limit: int) -> str:
        """Describe the kill for a table cell: the ceiling and when it was passed."""
        return f"killed above {limit / GIB:.0f} GiB after {self.killed_after or 0:.0f} s"

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.sample()
            if self.peak is not None and self.peak > self._limit and self._proc.poll() is None:
                self.killed = True
                self.killed_after = time.monotonic() - self._start
                self._proc.kill()
                return


@dataclass(frozen=True)
class Finished:
    """How a watched command ended: its output, peak memory, and why it failed if it did."""

    stdout: str
    peak_rss: int | None
    #: None on success; ``"> N s"``, ``"killed above N GiB"`` or ``"error: ..."`` otherwise.
    failure: str | None


def run_watched(argv: list[str], timeout_s: float, limit: int, cwd: Path | None = None) -> Finished:
    """Run argv to completion under the time limit and memory ceiling; never raises for them."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=cwd)
    with Watch(proc, limit) as watch:
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            watch.sample()
            proc.kill()
            out, _ = proc.communicate()
            return Finished(out, watch.peak, f"> {timeout_s:.0f} s")
    if watch.killed:
        return Finished(out, watch.peak, watch.failure(limit))
    if proc.returncode != 0:
        return Finished(out, watch.peak, f"error: exit status {proc.returncode}")
    return Finished(out, watch.peak, None)
