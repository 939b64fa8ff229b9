"""Child processes of the harness: servers that announce a URL, and timed peer runs.

Peak RSS is the kernel's own high-water mark, ``VmHWM`` of /proc/PID/status: the harness
reads a server's just before stopping it; a peer process reports its own as it ends
(``ru_maxrss`` would not do: Linux carries it over from the forking parent across exec).

A server's CPU seconds (utime + stime of /proc/PID/stat, all its threads) and the bytes it
passed to write(2) (``wchar`` of /proc/PID/io) are read right after it announces its URL and
again just before it is stopped: the differences are what it spent serving the peer.
"""

from __future__ import annotations

import json
import os
import resource
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
    """A server process whose first stdout line ends with `` on grpc://HOST:PORT``.

    ``env`` adds variables to the harness's environment (``GOMAXPROCS`` ...). After the
    block, ``cpu_seconds`` and ``written_bytes`` are what the process spent between its
    announcement and its stop; ``written_bytes`` stays None when /proc/PID/io cannot be
    read, or when ``counts_writes`` is False: a server that sends with send(2) or
    sendmsg(2) (gRPC C++) passes its bytes through no write(2) and ``wchar`` misses them.
    """

    def __init__(
        self,
        argv: list[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        counts_writes: bool = True,
    ) -> None:
        self._argv = argv
        self._cwd = cwd
        self._env = None if env is None else os.environ | env
        self._counts_writes = counts_writes
        self._proc: subprocess.Popen[str] | None = None
        self._cpu_start: float | None = None
        self._wchar_start: int | None = None
        self.location = ""
        self.peak_rss_mb: float | None = None
        self.cpu_seconds: float | None = None
        self.written_bytes: int | None = None

    def __enter__(self) -> Server:
        self._proc = subprocess.Popen(
            self._argv, stdout=subprocess.PIPE, text=True, cwd=self._cwd, env=self._env
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if "grpc://" not in line:
            self._stop()
            raise RuntimeError(f"{self._argv[0]} did not start: {line.strip() or 'no output'}")
        self._cpu_start = cpu_seconds(self._proc.pid)
        self._wchar_start = wchar(self._proc.pid)
        self.location = "grpc://" + line.rsplit("grpc://", 1)[1].strip()
        return self

    @property
    def pid(self) -> int | None:
        """The running server's process id, or None once it has stopped."""
        return None if self._proc is None else self._proc.pid

    def _stop(self) -> None:
        if self._proc is None:
            return
        pid = self._proc.pid
        self.peak_rss_mb = _vm_hwm_mb(pid)
        cpu, written = cpu_seconds(pid), wchar(pid)
        if cpu is not None and self._cpu_start is not None:
            self.cpu_seconds = cpu - self._cpu_start
        if self._counts_writes and written is not None and self._wchar_start is not None:
            self.written_bytes = written - self._wchar_start
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


def cpu_seconds(pid: int) -> float | None:
    """Return a process's CPU seconds so far, user + system of all its threads, or None.

    Fields 14 and 15 of /proc/PID/stat (utime, stime) in clock ticks; the command name,
    field 2, is in parentheses and may hold spaces, so fields are counted after its ``)``.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # fields[0] is field 3, state
    utime, stime = int(fields[14 - 3]), int(fields[15 - 3])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def self_cpu_seconds() -> float:
    """Return this process's user + system CPU seconds so far, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def wchar(pid: int) -> int | None:
    """Return the bytes a process has passed to write(2) and writev(2) so far, or None."""
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


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

    The result gains ``process_cpu_seconds``: the user + system CPU seconds of the whole
    process, start-up and warm-up included, from ``getrusage(RUSAGE_CHILDREN)`` before and
    after it (the only child the harness waits for meanwhile: servers are reaped after).
    A process that fails raises RuntimeError with the last line of its stderr.
    """
    before = _children_cpu_seconds()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )
    out, err = proc.communicate()
    process_cpu = _children_cpu_seconds() - before
    if proc.returncode != 0:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit status {proc.returncode}")
    result: dict[str, Any] = json.loads(out)
    result["process_cpu_seconds"] = process_cpu
    return result


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
