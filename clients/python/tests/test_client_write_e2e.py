"""The write calls against a real ``flightd serve`` over a fresh warehouse."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl
import pyarrow.parquet as pq
import pytest

import iceflight
from iceflight import cli
from _oracle import ROOT

RO_TOKEN = "e2e-read-only-token-1"
RW_TOKEN = "e2e-read-write-token-1"


@contextlib.contextmanager
def flightd(warehouse: Path, *args: str) -> Iterator[str]:
    """Run flightd serve over warehouse on a free loopback port; yield its location."""
    binary = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    if not os.path.exists(binary):
        pytest.skip(f"{binary} is missing: run `make build` (or set FLIGHTD)")
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(
            [binary, "serve", "--warehouse", str(warehouse), "--listen", "127.0.0.1:0", "--log-level", "error", *args],
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
                pytest.fail(f"flightd did not start: {line!r} {log.read()}")
            yield f"grpc://{m.group(1)}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def committing(client: iceflight.Client, table: str, schema: pa.Schema, **kwargs: Any) -> None:
    """Create table (and its namespace), or skip when the server's catalog cannot commit yet."""
    try:
        namespace = table.rsplit(".", 1)[0]
        if namespace not in client.list_namespaces():
            client.create_namespace(namespace)
        client.create_table(table, schema, **kwargs)
    except pa.ArrowException as exc:
        if "cannot commit" in str(exc):
            pytest.skip("the directory catalog does not commit yet")
        raise


SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("city", pa.string())])


def rows(ids: range) -> pa.Table:
    return pa.table({"id": list(ids), "city": [f"c{i % 3}" for i in ids]}, schema=SCHEMA)


def test_read_only_server_refuses_writes(tmp_path: Path) -> None:
    with flightd(tmp_path, "--read-only") as loc, iceflight.connect(loc) as client:
        # FailedPrecondition, which pyarrow raises as ArrowInvalid.
        with pytest.raises(pa.ArrowInvalid, match="--read-only"):
            client.append("db.t", rows(range(3)))
        with pytest.raises(pa.ArrowInvalid, match="--read-only"):
            client.delete("db.t", "true")


def test_read_only_grant_refuses_writes(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{RO_TOKEN} db\n{RW_TOKEN} rw:db\n")
    (tmp_path / "wh").mkdir()
    with flightd(tmp_path / "wh", "--tokens", str(tokens)) as loc:
        with iceflight.connect(loc, token=RW_TOKEN) as client:
            committing(client, "db.t", SCHEMA)
            assert client.append("db.t", rows(range(3))).added_records == 3
        with iceflight.connect(loc, token=RO_TOKEN) as client:
            with pytest.raises(fl.FlightUnauthorizedError, match="rw:"):
                client.append("db.t", rows(range(3)))
            with pytest.raises(fl.FlightUnauthorizedError):
                client.create_table("db.u", SCHEMA)
            assert client.read("db.t").num_rows == 3


def test_create_append_delete_and_read_back(tmp_path: Path) -> None:
    with flightd(tmp_path) as loc, iceflight.connect(loc) as client:
        committing(client, "db.trips", SCHEMA, partition_by=["city"])
        first = client.append("db.trips", rows(range(10)))
        assert first.snapshot_id != 0 and first.added_records == 10
        client.append("db.trips", rows(range(10, 15)).to_batches(max_chunksize=2))
        got = client.read("db.trips").sort_by("id")
        assert got.column("id").to_pylist() == list(range(15))
        res = client.delete("db.trips", "id < 5")
        assert res.snapshot_id not in (0, first.snapshot_id)
        assert sorted(client.read("db.trips").column("id").to_pylist()) == list(range(5, 15))
        client.overwrite("db.trips", rows(range(100, 102)), filter="id >= 10")
        assert sorted(client.read("db.trips").column("id").to_pylist()) == [*range(5, 10), 100, 101]
        with pytest.raises(iceflight.InvalidRequestError):
            client.append("db.trips", pa.table({"id": ["not a number"]}))
        assert len(client.snapshots("db.trips")) == 4


def test_batches_larger_than_a_grpc_message(tmp_path: Path) -> None:
    # One batch of ~12 MiB: flightd takes it unsplit from plain pyarrow, and
    # the client splits it for a server left at gRPC's 4 MiB default.
    big = pa.table({"id": pa.array(range(1 << 20), pa.int64()), "city": pa.array(["x" * 4] * (1 << 20))}, schema=SCHEMA)
    assert big.combine_chunks().to_batches()[0].get_total_buffer_size() > 8 << 20
    for args in ((), ("--max-message-bytes", str(4 << 20))):
        (tmp_path / str(len(args))).mkdir()
        with flightd(tmp_path / str(len(args)), *args) as loc, iceflight.connect(loc) as client:
            committing(client, "db.big", SCHEMA)
            assert client.append("db.big", big.combine_chunks()).added_records == 1 << 20
            if not args:
                raw = fl.connect(loc)
                writer, meta = raw.do_put(fl.FlightDescriptor.for_command('{"table": "db.big", "mode": "append"}'), SCHEMA)
                writer.write_table(big.combine_chunks(), max_chunksize=1 << 20)
                writer.done_writing()
                assert meta.read() is not None
                writer.close()
            assert client.read("db.big").num_rows == (2 << 20 if not args else 1 << 20)


def test_cli_append_a_parquet_file(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "wh").mkdir()
    pq.write_table(rows(range(7)), tmp_path / "r.parquet")
    with flightd(tmp_path / "wh") as loc:
        with iceflight.connect(loc) as client:
            committing(client, "db.c", SCHEMA)
        assert cli.main(["--server", loc, "append", "db.c", str(tmp_path / "r.parquet")]) == 0
        assert '"added_records": 7' in capsys.readouterr().out
        with iceflight.connect(loc) as client:
            assert client.read("db.c").num_rows == 7
