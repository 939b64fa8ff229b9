"""Helpers the benchmark harnesses share: a flightd process and the Java table generators.

planbench (run from bench/) and deletebench (run from bench/deletes/, which puts bench/ on
``sys.path`` in its ``__init__``) both import this module as ``benchkit``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self, cast

import pyarrow.flight as fl


class Flightd:
    """A ``flightd serve`` process on a free loopback port, with a connected client.

    Subclasses add what they measure; ``_ready`` runs once the client is connected and
    ``_stop`` releases what it made before calling this class's ``_stop``.
    """

    def __init__(self, binary: Path, warehouse: Path, rest: bool = False) -> None:
        self._argv = [
            str(binary),
            "serve",
            "--warehouse",
            str(warehouse),
            "--listen",
            "127.0.0.1:0",
            "--log-level",
            "warn",
        ]
        if rest:
            self._argv += ["--rest-listen", "127.0.0.1:0"]
        self._proc: subprocess.Popen[str] | None = None
        self.client: fl.FlightClient | None = None
        #: The server's ``grpc://HOST:PORT``, once started.
        self.location: str | None = None
        #: The Iceberg REST catalog's ``http://HOST:PORT``, when started with ``rest``.
        self.rest_uri: str | None = None

    def __enter__(self) -> Self:
        self._proc = subprocess.Popen(self._argv, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        # The first line is printed once the listener is bound:
        # "iceflight serving N tables from DIR on grpc://HOST:PORT".
        line = self._proc.stdout.readline()
        try:
            if " on grpc://" not in line:
                raise RuntimeError(f"flightd did not start: {line.strip() or 'no output'}")
            self.location = line.rsplit(" on ", 1)[1].strip()
            self.client = fl.connect(self.location)
            if "--rest-listen" in self._argv:
                self.rest_uri = _rest_uri(self._proc.stdout)
            self._ready(self.client)
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop()

    def _ready(self, client: fl.FlightClient) -> None:
        """Prepare for measuring once client is connected; a failure stops the server."""

    def _stop(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None


def _rest_uri(lines: IO[str]) -> str:
    """Return the REST catalog's address from flightd's output.

    Its line comes after the Flight one: "Iceberg REST catalog on http://HOST:PORT (...)".
    """
    for line in lines:
        if line.startswith("Iceberg REST catalog on "):
            return line.split()[4]
    raise RuntimeError("flightd named no REST catalog address")


def sources_fingerprint(gen_dir: Path) -> str:
    """Hash a generator's pom and sources: a changed generator means new tables."""
    digest = hashlib.sha256()
    for path in sorted([gen_dir / "pom.xml", *(gen_dir / "src").rglob("*")]):
        if path.is_file():
            digest.update(path.relative_to(gen_dir).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def read_record(record: Path, shape: dict[str, Any], fingerprint: str) -> dict[str, Any] | None:
    """Return a dataset's JSON record if it was made with this shape and generator, else None."""
    try:
        data = cast(dict[str, Any], json.loads(record.read_text()))
    except (OSError, ValueError):
        return None
    if data.get("shape") != shape or data.get("sources") != fingerprint:
        return None
    return data


def build_generator(gen_dir: Path, jar_name: str, log: Callable[[str], None]) -> Path:
    """Build gen_dir/target/jar_name with Maven unless it is newer than its sources."""
    jar = gen_dir / "target" / jar_name
    sources = [gen_dir / "pom.xml", *(p for p in (gen_dir / "src").rglob("*") if p.is_file())]
    if jar.exists() and all(p.stat().st_mtime <= jar.stat().st_mtime for p in sources):
        return jar
    log(f"building {jar} (Maven)")
    # Maven's output goes to stderr: stdout carries only the results table.
    subprocess.run(
        ["mvn", "-q", "-B", "-Dstyle.color=never", "-f", str(gen_dir / "pom.xml"), "package"],
        check=True,
        stdout=sys.stderr,
    )
    return jar


def run_generator(jar: Path, args: list[str], log: Callable[[str], None]) -> str:
    """Run ``java -jar jar args``, logging its duration; return its last line of output."""
    start = time.monotonic()
    out = subprocess.run(
        ["java", "-jar", str(jar), *args],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    log(f"generated in {time.monotonic() - start:.0f} s")
    return out.strip().splitlines()[-1]
