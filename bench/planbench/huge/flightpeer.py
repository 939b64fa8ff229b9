"""iceflight's side: PollFlightInfo and GetFlightInfo of a fresh ``flightd serve``.

flightd runs with ``--manifest-tickets-above 0`` when its ``serve --help`` lists that flag
(manifest-level tickets, issue 28), without it otherwise. Per case:

- **first endpoint**: on a fresh process, the wall time from the first PollFlightInfo call to
  the first answer that carries an endpoint, where pyarrow's client can poll;
- **GetFlightInfo**: on another fresh process, the whole plan (cold), then ``warm_runs`` more
  on the same process, with the endpoints, ``total_records`` and size of the cold FlightInfo;
- **peak RSS**: that process's VmHWM after the case; a watcher kills it above the ceiling.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl

from .. import iceflight
from ..cases import Case
from ..outcome import short_error
from .guard import Watch
from .result import IceflightResult, Plan

TICKETS_FLAG = "--manifest-tickets-above"


def has_manifest_tickets(binary: Path) -> bool:
    """Report whether this flightd's ``serve --help`` lists --manifest-tickets-above."""
    helped = subprocess.run(
        [str(binary), "serve", "--help"], capture_output=True, text=True, check=False
    )
    return TICKETS_FLAG.lstrip("-") in helped.stdout + helped.stderr


def can_poll() -> bool:
    """Report whether the installed pyarrow's FlightClient has poll_flight_info."""
    return hasattr(fl.FlightClient, "poll_flight_info")


class HugeFlightd(iceflight.Flightd):
    """A flightd for the huge table, with manifest tickets when asked, whose pid is known."""

    def __init__(self, binary: Path, warehouse: Path, manifest_tickets: bool) -> None:
        super().__init__(binary, warehouse)
        if manifest_tickets:
            self._argv += [TICKETS_FLAG, "0"]

    @property
    def address(self) -> str:
        """The host:port the server listens on."""
        assert self.location is not None
        return self.location.split("://", 1)[1]

    @property
    def proc(self) -> subprocess.Popen[str]:
        """The running flightd process."""
        assert self._proc is not None
        return self._proc


def measure(
    binary: Path,
    warehouse: Path,
    table: str,
    case: Case,
    warm_runs: int,
    timeout_s: float,
    limit: int,
    manifest_tickets: bool,
    flightpoll: Path | None = None,
) -> IceflightResult:
    """Measure one case: first endpoint (pyarrow's poll, else flightpoll's), then GetFlightInfo."""
    result = IceflightResult(manifest_tickets=manifest_tickets)
    descriptor = fl.FlightDescriptor.for_command(
        json.dumps(iceflight.command(table, case.iceflight_filter))
    )
    options = fl.FlightCallOptions(timeout=timeout_s)
    if can_poll():
        with HugeFlightd(binary, warehouse, manifest_tickets) as server:
            with Watch(server.proc, limit) as watch:
                _first_endpoint(server, descriptor, options, result)
            if watch.killed:
                result.first_endpoint_note = watch.failure(limit)
    elif flightpoll is not None:
        with HugeFlightd(binary, warehouse, manifest_tickets) as server:
            with Watch(server.proc, limit) as watch:
                _first_endpoint_go(server, flightpoll, descriptor, timeout_s, result)
            if watch.killed:
                result.first_endpoint_note = watch.failure(limit)
    else:
        result.first_endpoint_note = f"pyarrow {pa.__version__} has no poll_flight_info"
    with HugeFlightd(binary, warehouse, manifest_tickets) as server:
        with Watch(server.proc, limit) as watch:
            if _get_flight_info(server, descriptor, options, result, timeout_s, cold=True):
                for _ in range(warm_runs):
                    if not _get_flight_info(
                        server, descriptor, options, result, timeout_s, cold=False
                    ):
                        break
            watch.sample()
        result.peak_rss = watch.peak
        if watch.killed:
            result.failure = watch.failure(limit)
    return result


def _first_endpoint(
    server: HugeFlightd,
    descriptor: fl.FlightDescriptor,
    options: fl.FlightCallOptions,
    result: IceflightResult,
) -> None:
    """Poll until an answer carries an endpoint or the plan is complete."""
    client: Any = server.client  # poll_flight_info is newer than pyarrow's stubs, if any
    start = time.perf_counter()
    try:
        poll = client.poll_flight_info(descriptor, options)
        while _endpoints(poll) == 0 and poll.descriptor is not None:
            poll = client.poll_flight_info(poll.descriptor, options)
    except (pa.ArrowException, fl.FlightError) as err:
        result.first_endpoint_note = short_error(err)
        return
    if _endpoints(poll) == 0:
        result.first_endpoint_note = "the complete plan has no endpoint"
        return
    result.first_endpoint_ms = (time.perf_counter() - start) * 1000.0


def _first_endpoint_go(
    server: HugeFlightd,
    flightpoll: Path,
    descriptor: fl.FlightDescriptor,
    timeout_s: float,
    result: IceflightResult,
) -> None:
    """Time the first answer with an endpoint with flightpoll (Go), pyarrow having no poll."""
    done = subprocess.run(
        [str(flightpoll), "-addr", server.address, "-cmd", descriptor.command.decode(),
         "-timeout", f"{timeout_s:.0f}s"],
        capture_output=True, text=True, check=False, timeout=timeout_s + 10,
    )
    out = json.loads(done.stdout or "{}")
    if done.returncode != 0 or out.get("error") or not out.get("first_endpoint_ms"):
        result.first_endpoint_note = "flightpoll: " + (out.get("error") or done.stderr.strip() or "no endpoint")[:120]
        return
    result.first_endpoint_ms = float(out["first_endpoint_ms"])


def _endpoints(poll: Any) -> int:  # noqa: ANN401 (pyarrow's PollInfo, see _first_endpoint)
    return 0 if poll.info is None else len(poll.info.endpoints)


def _get_flight_info(
    server: HugeFlightd,
    descriptor: fl.FlightDescriptor,
    options: fl.FlightCallOptions,
    result: IceflightResult,
    timeout_s: float,
    cold: bool,
) -> bool:
    """Time one GetFlightInfo into result; on failure record why and return False."""
    assert server.client is not None
    start = time.perf_counter()
    try:
        info = server.client.get_flight_info(descriptor, options)
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        stats = json.loads(info.app_metadata)
        plan = Plan(elapsed_ms, int(stats["data_files"]), info.total_records)
    except NotImplementedError:
        result.failure = "unimplemented"
        return False
    except fl.FlightTimedOutError:
        result.failure = f"> {timeout_s:.0f} s"
        return False
    except (pa.ArrowException, fl.FlightError, KeyError, TypeError, ValueError) as err:
        result.failure = short_error(err)
        return False
    if not cold:
        result.warm.append(plan)
        return True
    result.cold = plan
    result.endpoints = len(info.endpoints)
    result.total_records = info.total_records if info.total_records >= 0 else None
    result.info_bytes = len(info.serialize())
    if isinstance(stats.get("planning_ms"), (int, float)):
        result.planning_ms = float(stats["planning_ms"])
    return True
