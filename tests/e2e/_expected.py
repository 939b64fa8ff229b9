"""The Apache Iceberg Java oracle's scans of a table, and the check that a
table reads through the iceflight Python client as the oracle read it.

The oracle's folder of a table holds ``index.json`` and a JSON-lines file per
scan (testdata/conformance/README.md). Rows are compared in the canonical form of
clients/python/tests/_oracle.py, loaded from its file rather than copied (the
name ``_oracle`` would clash with that module when pytest collects both
folders in one run).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

from _flightd import ROOT

_spec = importlib.util.spec_from_file_location("iceflight_oracle_canon", ROOT / "clients" / "python" / "tests" / "_oracle.py")
assert _spec is not None and _spec.loader is not None
canon = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(canon)


def scans(folder: pathlib.Path) -> list[dict[str, Any]]:
    """The scans in the oracle's folder of a table: ``current`` first, then one per snapshot."""
    index: dict[str, Any] = json.loads((folder / "index.json").read_text())
    return list(index["scans"])


def rows(folder: pathlib.Path, scan: dict[str, Any]) -> list[dict[str, Any]]:
    """The oracle's rows of one scan in its folder of a table."""
    lines = (folder / scan["file"]).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def read_scan(client: Any, table: str, scan: dict[str, Any]) -> Any:
    """What the client reads for an oracle scan: the current snapshot, or the scan's snapshot."""
    if scan["name"] == "current":
        return client.read(table)
    return client.read(table, snapshot_id=scan["snapshot_id"])


def assert_reads_as_oracle(client: Any, table: str, folder: pathlib.Path, scan_list: list[dict[str, Any]] | None = None) -> int:
    """Read every scan in the oracle's folder of table (or those of scan_list, whose row
    files are in folder) and assert that the rows are the oracle's; scans the oracle
    itself could not read are skipped. Returns how many scans were compared."""
    compared = 0
    for scan in scans(folder) if scan_list is None else scan_list:
        if "error" in scan:
            continue
        got = read_scan(client, table, scan)
        want = rows(folder, scan)
        assert got.num_rows == len(want), f"{table} {scan['name']}: {got.num_rows} rows, the oracle read {len(want)}"
        assert canon.arrow_rows(got, scan["schema"]) == canon.oracle_rows(want, scan["schema"]), f"{table} {scan['name']}"
        compared += 1
    return compared
