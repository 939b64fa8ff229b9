"""Starts bin/flightd (or $FLIGHTD) over the sample warehouse, or another, for a test."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import subprocess
import tempfile
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "testdata" / "warehouse"


@contextlib.contextmanager
def serve(*args: str, warehouse: pathlib.Path = WAREHOUSE) -> Iterator[str]:
    """Run ``flightd serve`` over warehouse (the sample one by default) on a
    free loopback port with the extra flags args; yield the ``host:port`` it
    listens on, stop it on exit."""
    flightd = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    if not os.path.exists(flightd):
        raise RuntimeError(f"{flightd} is missing: run `make build` (or set FLIGHTD)")
    # A file, not a pipe: flightd logs a line per call, and an unread pipe
    # would fill and stall it.
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(
            [flightd, "serve", "--warehouse", str(warehouse), "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            m = re.search(r"grpc://(\S+)", line)
            if not m:
                log.seek(0)
                raise RuntimeError(f"flightd did not start: {line!r} {log.read()}")
            yield m.group(1)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
