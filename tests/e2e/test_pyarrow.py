"""End-to-end: a real flightd process read by a real pyarrow.flight client.

Expected rows come from the Apache Iceberg Java oracle (testdata/expected),
never from iceflight itself.
"""

import json

import pyarrow as pa
import pyarrow.flight as fl
import pytest
from _flightd import ROOT, serve

EXPECTED = ROOT / "testdata" / "expected"


@pytest.fixture(scope="module")
def client():
    with serve() as addr:
        c = fl.connect(f"grpc://{addr}")
        c.wait_for_available(timeout=10)
        yield c
        c.close()


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
