"""End-to-end: a real flightd process read by a real pyarrow.flight client.

Expected rows come from the Apache Iceberg Java oracle (testdata/expected),
never from iceflight itself.
"""

import json
import os
import pathlib
import re
import socket
import subprocess
import tempfile

import pyarrow as pa
import pyarrow.flight as fl
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "testdata" / "warehouse"
EXPECTED = ROOT / "testdata" / "expected"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def client():
    flightd = os.environ.get("FLIGHTD", str(ROOT / "bin" / "flightd"))
    port = _free_port()
    log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [flightd, "serve", "--warehouse", str(WAREHOUSE), "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        # A file, not a pipe: flightd logs a line per call, and an unread
        # pipe would fill and stall it.
        stderr=log,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"grpc://(\S+)", line)
        log.seek(0)
        assert m, f"flightd did not start: {line!r} {log.read()}"
        c = fl.connect(f"grpc://{m.group(1)}")
        c.wait_for_available(timeout=10)
        yield c
        c.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _read_all(client, descriptor) -> pa.Table:
    info = client.get_flight_info(descriptor)
    tables = [client.do_get(ep.ticket).read_all() for ep in info.endpoints]
    if not tables:
        return info.schema.empty_table()
    return pa.concat_tables(tables)


def _expected(table: str, scan: str = "current"):
    index = json.loads((EXPECTED / table / "index.json").read_text())
    entry = next(s for s in index["scans"] if s["name"] == scan)
    rows = [json.loads(l) for l in (EXPECTED / table / entry["file"]).read_text().splitlines() if l]
    return index, rows


def test_list_flights_names_every_sample_table(client):
    names = {".".join(p.decode() if isinstance(p, bytes) else p for p in f.descriptor.path) for f in client.list_flights()}
    expected = {d.name for d in EXPECTED.iterdir() if d.is_dir()}
    assert expected <= names


def test_read_trips_matches_java_oracle(client):
    _, rows = _expected("samples.trips")
    got = _read_all(client, fl.FlightDescriptor.for_path("samples", "trips"))
    assert got.num_rows == len(rows)
    # ids are unique: compare the (id, passengers, vendor) triples exactly.
    want = sorted((r["id"], r["passengers"], r["vendor"]) for r in rows)
    have = sorted(zip(got.column("id").to_pylist(), got.column("passengers").to_pylist(), got.column("vendor").to_pylist()))
    assert have == want


def test_schema_carries_iceberg_field_ids(client):
    info = client.get_flight_info(fl.FlightDescriptor.for_path("samples.trips"))
    for field in info.schema:
        assert b"PARQUET:field_id" in field.metadata


def test_projection_by_command(client):
    cmd = json.dumps({"table": "samples.trips", "columns": ["fare", "id"]}).encode()
    got = _read_all(client, fl.FlightDescriptor.for_command(cmd))
    assert got.column_names == ["fare", "id"]


def test_tampered_ticket_yields_no_rows(client):
    info = client.get_flight_info(fl.FlightDescriptor.for_path("samples", "trips"))
    raw = bytearray(info.endpoints[0].ticket.ticket)
    raw[len(raw) // 2] ^= 0x01
    with pytest.raises((fl.FlightUnauthorizedError, fl.FlightUnauthenticatedError)):
        client.do_get(fl.Ticket(bytes(raw))).read_all()


def test_unknown_command_key_is_invalid_argument(client):
    cmd = json.dumps({"table": "samples.trips", "colums": ["id"]}).encode()
    with pytest.raises(pa.ArrowInvalid):
        client.get_flight_info(fl.FlightDescriptor.for_command(cmd))


def test_path_escape_is_invalid_argument(client):
    with pytest.raises(pa.ArrowInvalid):
        client.get_flight_info(fl.FlightDescriptor.for_path("..", "etc"))
