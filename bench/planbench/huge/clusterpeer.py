"""iceflight planning exact file lists in parallel: a coordinator and two workers on loopback.

The coordinator runs with ``--manifest-tickets-above 0 --large-plan-tickets files``: it reads
the manifest list, cuts the kept manifests into groups and has the workers plan them
(``iceflight.plan-manifest-group``), then answers with file-level endpoints. The client side
is ``flightpoll`` (bench/peers/flightpoll, Go), since pyarrow has no PollFlightInfo: it times
the first answer that carries an endpoint and the end of the plan. Each process's peak
resident set is watched as flightd's is in the single-process case.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..cases import Case
from . import flightpeer
from .guard import Watch, run_watched


@dataclass
class ClusterResult:
    """What one case measured on the coordinator and its workers, or why it has nothing."""

    first_endpoint_ms: float | None = None
    whole_ms: float | None = None
    files: int | None = None
    endpoints: int | None = None
    total_records: int | None = None
    info_bytes: int | None = None
    coordinator_rss: int | None = None
    worker_rss: int | None = None
    failure: str | None = None


def _start(argv: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start one flightd and return it with the address its first line names."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if " on grpc://" not in line:
        proc.kill()
        raise RuntimeError(f"flightd did not start: {line.strip() or 'no output'}")
    return proc, line.rsplit("grpc://", 1)[1].strip()


@contextlib.contextmanager
def _cluster(binary: Path, warehouse: Path, keys: Path) -> Iterator[tuple[str, list[subprocess.Popen[str]]]]:
    """Two workers and a coordinator; yields the coordinator's address and the processes."""
    procs: list[subprocess.Popen[str]] = []
    try:
        addrs = []
        for _ in range(2):
            proc, addr = _start([str(binary), "serve", "--role", "worker", "--listen", "127.0.0.1:0",
                                 "--ticket-keys", str(keys), "--log-level", "warn"])
            procs.append(proc)
            addrs.append(addr)
        coordinator, addr = _start([
            str(binary), "serve", "--role", "coordinator", "--warehouse", str(warehouse),
            "--listen", "127.0.0.1:0", "--workers", ",".join(addrs), "--ticket-keys", str(keys),
            flightpeer.TICKETS_FLAG, "0", "--large-plan-tickets", "files", "--log-level", "warn",
        ])
        procs.insert(0, coordinator)
        # The coordinator health-checks its workers before it places work on them.
        time.sleep(1)
        yield addr, procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def measure(
    binary: Path, flightpoll: Path, warehouse: Path, scratch: Path, table: str, case: Case,
    timeout_s: float, limit: int,
) -> ClusterResult:
    """Plan one case with exact file lists on a fresh coordinator and two fresh workers."""
    keys = scratch / "ticket-keys"
    keys.write_text(f"bench={secrets.token_hex(32)}\n")
    result = ClusterResult()
    with _cluster(binary, warehouse, keys) as (addr, procs):
        watches = [Watch(p, limit) for p in procs]
        with contextlib.ExitStack() as stack:
            for w in watches:
                stack.enter_context(w)
            cmd = {"table": table, "tickets": "files"}
            if case.iceflight_filter is not None:
                cmd["filter"] = case.iceflight_filter
            done = run_watched([str(flightpoll), "-addr", addr, "-cmd", json.dumps(cmd),
                                "-timeout", f"{timeout_s:.0f}s"], timeout_s + 10, limit)
        result.coordinator_rss = watches[0].peak
        result.worker_rss = max((w.peak or 0) for w in watches[1:]) or None
        killed = next((w for w in watches if w.killed), None)
        if killed is not None:
            result.failure = killed.failure(limit)
            return result
    if done.failure is not None:
        result.failure = done.failure
        return result
    out = json.loads(done.stdout)
    if out.get("error"):
        result.failure = "error: " + out["error"][:120]
        return result
    result.first_endpoint_ms = out["first_endpoint_ms"]
    result.whole_ms = out["whole_ms"]
    result.endpoints = out["endpoints"]
    result.total_records = out["total_records"] if out["total_records"] >= 0 else None
    result.info_bytes = out["info_bytes"]
    if out.get("app_metadata"):
        result.files = int(json.loads(out["app_metadata"])["data_files"])
    return result
