"""End-to-end: a table PyIceberg 0.12 wrote in large_* Arrow types (testdata/writers),
read by pyarrow.flight and by the iceflight Python client through a real flightd.

Expected rows come from the Apache Iceberg Java oracle (testdata/expected-writers), never
from iceflight itself.
"""

import json

import pyarrow as pa
import pyarrow.flight as fl
import pytest
from _flightd import ROOT, serve

WRITERS = ROOT / "testdata" / "writers"
EXPECTED = ROOT / "testdata" / "expected-writers"


@pytest.fixture(scope="module")
def client():
    with serve(warehouse=WRITERS / "pyiceberg") as addr:
        c = fl.connect(f"grpc://{addr}")
        c.wait_for_available(timeout=10)
        yield c
        c.close()


def _oracle(value, typ: pa.DataType):
    """A value as pyarrow gives it, in the oracle's JSON form (testdata/conformance/README.md)."""
    if value is None:
        return None
    if pa.types.is_map(typ):
        return [{"key": _oracle(k, typ.key_type), "value": _oracle(v, typ.item_type)} for k, v in value]
    if pa.types.is_struct(typ):
        return {f.name: _oracle(value[f.name], f.type) for f in typ}
    if pa.types.is_list(typ):
        return [_oracle(v, typ.value_type) for v in value]
    if pa.types.is_binary(typ):
        return value.hex()
    return value


TABLE = "large.events"


def _oracle_rows() -> list[dict]:
    index = json.loads((EXPECTED / "pyiceberg" / TABLE / "index.json").read_text())
    scan = next(s for s in index["scans"] if s["name"] == "current")
    rows = [json.loads(line) for line in (EXPECTED / "pyiceberg" / TABLE / scan["file"]).read_text().splitlines() if line]
    assert len(rows) == scan["rows"] > 0
    return rows


def _canonical(got: pa.Table) -> list[dict]:
    rows = [{f.name: _oracle(r[f.name], f.type) for f in got.schema} for r in got.to_pylist()]
    return sorted(rows, key=lambda r: r["id"])


def test_large_string_table_matches_java_oracle(client):
    table = TABLE
    info = client.get_flight_info(fl.FlightDescriptor.for_path(table))
    got = pa.concat_tables(client.do_get(ep.ticket).read_all() for ep in info.endpoints)
    # The files say large_string, large_binary and large_list; the Iceberg types are
    # string, binary and list, and so is what flightd promises and streams.
    assert got.schema.equals(info.schema)
    for typ in ("large_string", "large_binary", "large_list"):
        assert typ not in str(info.schema)
    assert str(info.schema.field("attrs").type) == "map<string, struct<values: list<element: string>>>"

    assert _canonical(got) == sorted(_oracle_rows(), key=lambda r: r["id"])


def test_python_client_reads_large_string_table_as_the_oracle():
    iceflight = pytest.importorskip("iceflight")
    with serve(warehouse=WRITERS / "pyiceberg") as addr:
        got = iceflight.connect(f"grpc://{addr}").read(TABLE)
    assert "large_" not in str(got.schema)
    assert _canonical(got) == sorted(_oracle_rows(), key=lambda r: r["id"])
