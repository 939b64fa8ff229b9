"""End-to-end: tables whose metadata records a relative location, copied to
a folder they never recorded, read by a real flightd and the Python client.

The tables were written by Iceberg Java (``make fixtures-locations``);
expected rows come from the Java oracle (testdata/locations/expected),
never from iceflight itself.
"""

import json
import shutil

import iceflight
import pytest
from _flightd import ROOT, serve

LOCATIONS = ROOT / "testdata" / "locations"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    warehouse = tmp_path_factory.mktemp("copied") / "elsewhere"
    shutil.copytree(LOCATIONS / "warehouse", warehouse)
    with serve(warehouse=warehouse) as addr:
        c = iceflight.connect(f"grpc://{addr}")
        yield c
        c.close()


def _oracle_rows(table: str, snapshot_id: int) -> list[dict]:
    index = json.loads((LOCATIONS / "expected" / table / "index.json").read_text())
    scan = next(s for s in index["scans"] if s["snapshot_id"] == snapshot_id and "error" not in s)
    lines = (LOCATIONS / "expected" / table / scan["file"]).read_text().splitlines()
    return [json.loads(line) for line in lines if line]


@pytest.mark.parametrize(
    "table",
    [
        "spellings.relative",  # data/some/dir/relative, data under data/some/dir/x/../relative//data
        "spellings.dot_relative",  # ./warehouse/dot_relative, data under warehouse//dot_relative/data
        "spellings.data_path_relative",  # write.data.path beside the table, copied as _siblings
    ],
)
def test_relative_location_reads_as_the_java_oracle(client, table):
    snapshots = client.snapshots(table)
    assert snapshots, f"{table} has no snapshot"
    for snap in snapshots:
        got = client.read(table, snapshot_id=snap.snapshot_id)
        want = _oracle_rows(table, snap.snapshot_id)
        key = lambda r: r["id"]  # noqa: E731 - ids are unique in these tables
        assert sorted(got.to_pylist(), key=key) == sorted(want, key=key)
