"""Child processes of the harness: servers that announce a URL, and timed peer runs.

Peak RSS is the kernel's own high-water mark, ``VmHWM`` of /proc/PID/status: the harness
reads a server's just before stopping it; a peer process reports its own as it ends
(``ru_maxrss`` would not do: Linux carries it over from the forking parent across exec).
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from types import TracebackType
from typing import Any


class Stopped:
    """A context manager that calls ``_stop`` on leaving, whatever ends the block."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop()

    def _stop(self) -> None:
        raise NotImplementedError


class Server(Stopped):
    """A server process whose first stdout line ends with `` on grpc://HOST:PORT``."""

    def __init__(self, argv: list[str], cwd: Path | None = None) -> None:
        self._argv = argv
        self._cwd = cwd
        self._proc: subprocess.Popen[str] | None = None
        self.location = ""
        self.peak_rss_mb: float | None = None

    def __enter__(self) -> Server:
        self._proc = subprocess.Popen(self._argv, stdout=subprocess.PIPE, text=True, cwd=self._cwd)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if "grpc://" not in line:
            self._stop()
            raise RuntimeError(f"{self._argv[0]} did not start: {line.strip() or 'no output'}")
        self.location = "grpc://" + line.rsplit("grpc://", 1)[1].strip()
        return self

    def _stop(self) -> None:
        if self._proc is None:
            return
        self.peak_rss_mb = _vm_hwm_mb(self._proc.pid)
        stop(self._proc)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._proc = None


def stop(proc: subprocess.Popen[Any]) -> None:
    """Stop a child process: SIGTERM, then SIGKILL if it is still running after 30 s."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port() -> int:
    """Return a loopback TCP port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def run_peer(argv: list[str], cwd: Path | None = None) -> dict[str, Any]:
    """Run one peer process to the end; return its JSON result.

    A process that fails raises RuntimeError with the last line of its stderr.
    """
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    out, err = proc.communicate()
    if proc.returncode != 0:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit status {proc.returncode}")
    result: dict[str, Any] = json.loads(out)
    return result
