"""Starts bin/flightd (or $FLIGHTD) over the sample warehouse, or another, for a test."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import re
import subprocess
import tempfile
from collections.abc import Iterator
from typing import IO

ROOT = pathlib.Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "testdata" / "warehouse"


@dataclasses.dataclass(frozen=True)
class Server:
    """A running flightd: where its front ends listen, and its log."""

    #: ``host:port`` of the Flight service.
    flight: str
    #: ``http://host:port`` of the Iceberg REST catalog, or None without --rest-listen.
    rest: str | None
    _log: IO[str]

    def log(self) -> str:
        """The process's log so far: one line per call at the default level."""
        self._log.flush()
        self._log.seek(0)
        return self._log.read()


@contextlib.contextmanager
def serve(*args: str, warehouse: pathlib.Path = WAREHOUSE) -> Iterator[str]:
    """Run ``flightd serve`` over warehouse (the sample one by default) on a
    free loopback port with the extra flags args; yield the ``host:port`` it
    listens on, stop it on exit."""
    with start("--warehouse", str(warehouse), *args) as server:
        yield server.flight


@contextlib.contextmanager
def serve_rest(*args: str, warehouse: pathlib.Path | None = WAREHOUSE) -> Iterator[Server]:
    """Run ``flightd serve`` with the Iceberg REST catalog on a free loopback
    port too, over warehouse (none: the catalogs of a ``--config`` in args);
    yield the Server, stop it on exit."""
    where = ("--warehouse", str(warehouse)) if warehouse is not None else ()
    with start(*where, "--rest-listen", "127.0.0.1:0", *args) as server:
        if server.rest is None:
            raise RuntimeError(f"flightd named no REST address: {server.log()}")
        yield server


@contextlib.contextmanager
def start(*args: str) -> Iterator[Server]:
    """Run ``flightd serve`` with args and a Flight listener on a free
    loopback port; yield the Server once it listens, stop it on exit."""
    flightd = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    if not os.path.exists(flightd):
        raise RuntimeError(f"{flightd} is missing: run `make build` (or set FLIGHTD)")
    # A file, not a pipe: flightd logs a line per call, and an unread pipe
    # would fill and stall it.
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(
            [flightd, "serve", "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        try:
            assert proc.stdout is not None
            # The Flight address is on the first line, the REST catalog's
            # (with --rest-listen) on a later one; both are printed once
            # their ports are bound.
            flight, rest = None, None
            for line in proc.stdout:
                if flight is None and (m := re.search(r"grpc://(\S+)", line)):
                    flight = m.group(1)
                elif m := re.search(r"Iceberg REST catalog on (https?://\S+)", line):
                    rest = m.group(1)
                if flight is not None and (rest is not None or "--rest-listen" not in args):
                    break
            else:
                log.seek(0)
                raise RuntimeError(f"flightd did not start: {log.read()}")
            yield Server(flight=flight, rest=rest, _log=log)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
