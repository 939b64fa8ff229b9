"""End-to-end: a table PyIceberg 0.12 wrote in large_* Arrow types (testdata/writers),
read by pyarrow.flight and by the iceflight Python client through a real flightd.

Expected rows come from the Apache Iceberg Java oracle (testdata/expected-writers), never
from iceflight itself. test_classes.py reads a table of every other writer.
"""

import pyarrow as pa
import pyarrow.flight as fl
import pytest
from _expected import assert_reads_as_oracle, canon, rows, scans
from _flightd import ROOT, serve

WRITERS = ROOT / "testdata" / "writers"
TABLE = "large.events"
ORACLE = ROOT / "testdata" / "expected-writers" / "pyiceberg" / TABLE


@pytest.fixture(scope="module")
def client():
    with serve(warehouse=WRITERS / "pyiceberg") as addr:
        c = fl.connect(f"grpc://{addr}")
        c.wait_for_available(timeout=10)
        yield c
        c.close()


def test_large_string_table_matches_java_oracle(client):
    info = client.get_flight_info(fl.FlightDescriptor.for_path(TABLE))
    got = pa.concat_tables(client.do_get(ep.ticket).read_all() for ep in info.endpoints)
    # The files say large_string, large_binary and large_list; the Iceberg types are
    # string, binary and list, and so is what flightd promises and streams.
    assert got.schema.equals(info.schema)
    for typ in ("large_string", "large_binary", "large_list"):
        assert typ not in str(info.schema)
    assert str(info.schema.field("attrs").type) == "map<string, struct<values: list<element: string>>>"

    scan = next(s for s in scans(ORACLE) if s["name"] == "current")
    want = rows(ORACLE, scan)
    assert len(want) == scan["rows"] > 0
    assert canon.arrow_rows(got, scan["schema"]) == canon.oracle_rows(want, scan["schema"])


def test_python_client_reads_large_string_table_as_the_oracle():
    iceflight = pytest.importorskip("iceflight")
    with serve(warehouse=WRITERS / "pyiceberg") as addr:
        c = iceflight.connect(f"grpc://{addr}")
        assert "large_" not in str(c.read(TABLE).schema)
        assert assert_reads_as_oracle(c, TABLE, ORACLE) > 0
