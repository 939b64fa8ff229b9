"""Fixtures: a real ``flightd serve`` over testdata/warehouse, and clients of it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

import iceflight
from _oracle import ROOT, WAREHOUSE


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """Start bin/flightd (or $FLIGHTD) on a free port; yield its location."""
    flightd = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    if not os.path.exists(flightd):
        pytest.skip(f"{flightd} is missing: run `make build` (or set FLIGHTD)")
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [flightd, "serve", "--warehouse", str(WAREHOUSE), "--listen", "127.0.0.1:0", "--log-level", "error"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"grpc://(\S+)", line)
        if not m:
            proc.kill()
            proc.wait()
            log.seek(0)
            pytest.fail(f"flightd did not start: {line!r} {log.read()}")
        yield f"grpc://{m.group(1)}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture()
def client(server: str) -> Iterator[iceflight.Client]:
    """A fresh client of the test server, closed after the test."""
    with iceflight.connect(server) as c:
        yield c
