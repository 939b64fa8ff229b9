"""End-to-end: one table of each class of issue 11 read through a real flightd and the
iceflight Python client, equal to the Apache Iceberg Java oracle's rows.

The classes: every spelling of a table location (testdata/locations, copied to a folder
the tables never recorded; write.data.path and a snapshot whose manifest list is missing
among them), every writer of testdata/writers, and each metadata quirk of
testdata/quirks/layouts.json, made here from a copy of samples.history by renaming its
metadata files only, as cmd/flightd/quirks_test.go does in Go. Tables are written by
Iceberg Java, PyIceberg, pyarrow and Spark; expected rows come from the Java oracle
(testdata/locations/expected, testdata/expected-writers, testdata/expected), never from
iceflight itself.
"""

from __future__ import annotations

import gzip
import json
import pathlib
import shutil
from collections.abc import Iterator
from typing import Any

import iceflight
import pytest
from _expected import assert_reads_as_oracle, read_scan, scans
from _flightd import ROOT, WAREHOUSE, serve

LOCATIONS = ROOT / "testdata" / "locations"
WRITERS = ROOT / "testdata" / "writers"
EXPECTED_WRITERS = ROOT / "testdata" / "expected-writers"
LAYOUTS = json.loads((ROOT / "testdata" / "quirks" / "layouts.json").read_text())


@pytest.fixture(scope="module")
def locations(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    warehouse = tmp_path_factory.mktemp("copied") / "elsewhere"
    shutil.copytree(LOCATIONS / "warehouse", warehouse)
    with serve(warehouse=warehouse) as addr:
        c = iceflight.connect(f"grpc://{addr}")
        yield c
        c.close()


SPELLINGS = sorted(p.name for p in (LOCATIONS / "expected").iterdir() if p.is_dir())


@pytest.mark.parametrize("table", SPELLINGS)
def test_every_location_spelling_reads_as_the_oracle(locations, table):
    # spellings.missing_manifest_list's lost snapshot is the oracle's error scan:
    # test_missing_manifest_list_is_not_found_for_its_snapshot_only reads it.
    assert assert_reads_as_oracle(locations, table, LOCATIONS / "expected" / table) > 0


def test_missing_manifest_list_is_not_found_for_its_snapshot_only(locations):
    table = "spellings.missing_manifest_list"
    lost = [s for s in scans(LOCATIONS / "expected" / table) if "error" in s]
    assert len(lost) == 1, "the fixture loses exactly one snapshot's manifest list"
    with pytest.raises(iceflight.NotFoundError, match=r"snap-\d+-1-"):
        read_scan(locations, table, lost[0])
    # The other snapshots, the current one among them, still read.
    assert assert_reads_as_oracle(locations, table, LOCATIONS / "expected" / table) == 3


# One table per writer: the one that gives the reader most to do.
WRITER_TABLES = [
    ("java", "timestamps.orc"),  # ORC times past 2262 and before 1677, year 1 and 9999
    ("pyiceberg", "defaults.all_types"),
    ("pyarrow-add_files", "views.strings"),  # view types, no field ids: the name mapping
    ("spark", "db.types"),
]


def test_every_writer_of_the_corpus_has_a_table_here():
    assert sorted(w for w, _ in WRITER_TABLES) == sorted(p.name for p in WRITERS.iterdir() if p.is_dir())


@pytest.mark.parametrize(("writer", "table"), WRITER_TABLES)
def test_a_table_of_every_writer_reads_as_the_oracle(writer, table):
    with serve(warehouse=WRITERS / writer) as addr:
        with iceflight.connect(f"grpc://{addr}") as c:
            assert assert_reads_as_oracle(c, table, EXPECTED_WRITERS / writer / table) > 0


def _copy_with_quirk(src: pathlib.Path, dst: pathlib.Path, quirk: dict[str, Any]) -> None:
    """Copy the table src to dst with its vN.metadata.json files renamed as quirk says
    (gzip-compressed when the new name says .gz) and its version hint replaced."""
    shutil.copytree(src, dst, ignore=lambda d, names: [n for n in names if d.endswith("metadata") and (n.startswith("v"))])
    for name, version in quirk["metadata"].items():
        data = (src / "metadata" / f"v{version}.metadata.json").read_bytes()
        (dst / "metadata" / name).write_bytes(gzip.compress(data) if ".gz." in name else data)
    if quirk["hint"]:
        (dst / "metadata" / "version-hint.text").write_text(quirk["hint"])


def _served_scans(src: pathlib.Path, oracle: pathlib.Path, quirk: dict[str, Any]) -> list[dict[str, Any]]:
    """The oracle's scans of the snapshots the served metadata file holds, the one current
    there as ``current``."""
    served = json.loads((src / "metadata" / f"v{quirk['serves']}.metadata.json").read_text())
    held = {s["snapshot-id"] for s in served.get("snapshots", [])}
    out = []
    for scan in scans(oracle):
        if scan["name"] == "current" or scan["snapshot_id"] not in held:
            continue
        if scan["snapshot_id"] == served.get("current-snapshot-id"):
            out.append({**scan, "name": "current"})
        out.append(scan)
    return out


@pytest.fixture(scope="module")
def quirks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    namespace, name = LAYOUTS["table"].split(".")
    warehouse = tmp_path_factory.mktemp("quirks")
    for quirk in LAYOUTS["quirks"]:
        _copy_with_quirk(WAREHOUSE / namespace / name, warehouse / "quirks" / quirk["table"], quirk)
    with serve(warehouse=warehouse) as addr:
        c = iceflight.connect(f"grpc://{addr}")
        yield c
        c.close()


@pytest.mark.parametrize("quirk", LAYOUTS["quirks"], ids=lambda q: q["table"])
def test_every_metadata_quirk_reads_as_the_oracle(quirks, quirk):
    namespace, name = LAYOUTS["table"].split(".")
    oracle = ROOT / "testdata" / "expected" / LAYOUTS["table"]
    served = _served_scans(WAREHOUSE / namespace / name, oracle, quirk)
    assert served, f"{quirk['table']} serves v{quirk['serves']}, which has no snapshot the oracle read"
    assert assert_reads_as_oracle(quirks, "quirks." + quirk["table"], oracle, served) == len(served), quirk["why"]
