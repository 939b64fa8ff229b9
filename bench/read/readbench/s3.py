"""The tables on an S3 server: versitygw over a local folder, and its requests counted.

``--storage s3`` runs every peer against one versitygw (the program ``make
servers-versitygw`` installs under .tools/, started as testkit/servers/versitygw starts it:
root account keys from flags only, posix back end) on a free loopback port. The tables are
written there by PyIceberg itself, through its S3 FileIO (pyarrow's S3FileSystem), with the
same rows and file layout as the local ones (dataset.py): their metadata records their
``s3://`` locations, so every peer reads the same objects as written, nothing is copied or
relocated.

The gateway writes an access log, one line per request, with the S3 operation and the key;
``Requests`` counts the lines a peer's process caused, by operation, for the data files
(keys under ``/data/`` ending in ``.parquet``) and for everything else (metadata, manifests).
The log is the server's own view, so no proxy sits between a peer and the server.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.fs as pafs

from . import procs

#: The bucket the tables live in.
BUCKET = "readbench"
WAREHOUSE = f"s3://{BUCKET}/warehouse"
REGION = "us-east-1"
#: The root account of a gateway that listens on loopback only, for this benchmark's
#: generated tables; they give access to nothing else.
ACCESS_KEY = "readbench"
SECRET_KEY = "readbench-local-gateway"


def props(endpoint: str) -> dict[str, str]:
    """Return the catalog and FileIO properties, by PyIceberg's names, of the gateway."""
    return {
        "warehouse": WAREHOUSE,
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO",
        "s3.endpoint": endpoint,
        "s3.access-key-id": ACCESS_KEY,
        "s3.secret-access-key": SECRET_KEY,
        "s3.region": REGION,
        "s3.path-style-access": "true",
    }


def filesystem(endpoint: str) -> pafs.S3FileSystem:
    """Return a pyarrow S3FileSystem of the gateway (paths are ``bucket/key``)."""
    return pafs.S3FileSystem(
        access_key=ACCESS_KEY,
        secret_key=SECRET_KEY,
        region=REGION,
        endpoint_override=endpoint,
        scheme="http",
        force_virtual_addressing=False,
        allow_bucket_creation=True,
    )


class Gateway(procs.Stopped):
    """A versitygw process over ``root`` (objects under root/objects), with an access log.

    It runs as testkit/servers/versitygw runs it, without ``--keep-alive``: with it,
    versitygw 1.8.0 answered pyarrow's CompleteMultipartUpload on a reused connection with
    400 "error when parsing the HTTP request", so PyIceberg could not write the tables.
    Every request therefore opens a connection of its own, for every peer alike.
    """

    def __init__(self, program: Path, root: Path) -> None:
        self._program = program
        self._root = root.resolve()
        self.log = self._root / "access.log"
        self.endpoint = ""
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Gateway:
        objects = self._root / "objects"
        objects.mkdir(parents=True, exist_ok=True)
        addr = f"127.0.0.1:{procs.free_port()}"
        self.log.unlink(missing_ok=True)
        out = open(self._root / "gateway.out", "wb")  # noqa: SIM115 - the process keeps it
        self._proc = subprocess.Popen(
            [
                str(self._program),
                "--access",
                ACCESS_KEY,
                "--secret",
                SECRET_KEY,
                "--region",
                REGION,
                "--port",
                addr,
                "--quiet",
                "--access-log",
                str(self.log),
                "posix",
                str(objects),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={"HOME": str(self._root)},
        )
        out.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(addr.split(":"), timeout=1).close()  # type: ignore[arg-type]
                break
            except OSError:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    self._stop()
                    raise RuntimeError(f"versitygw did not start on {addr}") from None
                time.sleep(0.1)
        self.endpoint = "http://" + addr
        fs = filesystem(self.endpoint)
        fs.create_dir(BUCKET)
        return self

    def _stop(self) -> None:
        if self._proc is not None:
            procs.stop(self._proc)
            self._proc = None

    def empty_bucket(self) -> None:
        """Delete every object of the bucket (before the tables are generated again).

        The posix back end keeps a bucket's objects as files of its folder, which this
        removes directly: a DeleteObjects of pyarrow's ``delete_dir_contents`` names the
        directory markers too, which versitygw refuses while they hold objects.
        """
        bucket = self._root / "objects" / BUCKET
        for child in bucket.iterdir():
            if child.name.startswith("."):  # the gateway's own (.sgwtmp: uploads under way)
                continue
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()

    def mark(self) -> int:
        """Return the access log's length now, the start of the next ``requests_since``."""
        return self.log.stat().st_size if self.log.exists() else 0

    def requests_since(self, mark: int) -> Requests:
        """Count the requests logged after ``mark``."""
        time.sleep(0.2)  # the gateway writes its log lines after the responses
        with open(self.log, "rb") as f:
            f.seek(mark)
            lines = f.read().decode(errors="replace").splitlines()
        counts = Requests()
        for line in lines:
            # Bucket owner, bucket, [time zone], remote IP, requester, request id,
            # operation, key, URI, status, ... (the S3 server access log format).
            fields = line.split()
            if len(fields) < 10 or not fields[7].startswith("s3_"):
                continue
            op, key = fields[7].removeprefix("s3_"), fields[8]
            data = "/data/" in "/" + key and key.endswith(".parquet")
            (counts.data if data else counts.other)[op] += 1
        return counts


@dataclass
class Requests:
    """Requests by S3 operation (GetObject, HeadObject, ListObjectsV2 ...)."""

    data: Counter[str] = field(default_factory=Counter)
    other: Counter[str] = field(default_factory=Counter)
