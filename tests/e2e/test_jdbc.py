"""The Arrow Flight SQL JDBC driver (org.apache.arrow:flight-sql-jdbc-driver from
Maven Central, as DBeaver, DataGrip and Tableau load it) against a real flightd,
through tools/flightsqljdbc: DatabaseMetaData.getTables and getColumns, a query,
a prepared statement. Answers are checked against the plain protocol's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import iceflight
import pytest
from _flightd import ROOT, serve
from _sql import REQUIRE

JAR = os.environ.get("FLIGHTSQL_JDBC_JAR", str(ROOT / "tools" / "flightsqljdbc" / "target" / "flightsqljdbc.jar"))


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    if not os.path.exists(JAR) or shutil.which("java") is None:
        msg = f"{JAR} or java is missing: `make {os.path.relpath(JAR, ROOT)}` builds it"
        if REQUIRE:
            pytest.fail(msg + " (ICEFLIGHT_REQUIRE_SERVERS=1)")
        pytest.skip(msg)
    with serve() as addr:
        host, port = addr.rsplit(":", 1)
        yield f"jdbc:arrow-flight-sql://{host}:{port}?useEncryption=false"


@pytest.fixture(scope="module")
def plain(url: str) -> Iterator[iceflight.Client]:
    addr = url.removeprefix("jdbc:arrow-flight-sql://").split("?")[0]
    with iceflight.connect(f"grpc://{addr}") as c:
        yield c


def jdbc(url: str, *task: str) -> dict[str, Any]:
    """Run one task of tools/flightsqljdbc and return its JSON answer."""
    # Arrow's memory module reads direct buffers reflectively on Java 17.
    cmd = ["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-jar", JAR, url, *task]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"{task}: exit {out.returncode}: {out.stderr[-2000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_get_tables_lists_the_readable_tables(url: str, plain: iceflight.Client) -> None:
    got = jdbc(url, "tables", "samples")
    assert {f"{r[1]}.{r[2]}" for r in got["rows"]} == set(plain.tables())
    assert {r[3] for r in got["rows"]} == {"TABLE"} and {r[0] for r in got["rows"]} == {None}


def test_get_columns_follows_the_schema(url: str, plain: iceflight.Client) -> None:
    got = jdbc(url, "columns", "samples", "trips")
    assert [r[2] for r in got["rows"]] == plain.schema("samples.trips").names
    assert [r[3] for r in got["rows"]] == list(range(1, len(got["rows"]) + 1))


def test_a_query(url: str, plain: iceflight.Client) -> None:
    got = jdbc(url, "query", "SELECT id, fare AS f FROM samples.trips WHERE fare > 50")
    want = plain.read("samples.trips", columns=["id", "fare"], filter="fare > 50")
    assert got["columns"] == ["id", "f"]
    assert want.num_rows > 0
    assert sorted(map(tuple, got["rows"])) == sorted(zip(want.column("id").to_pylist(), want.column("fare").to_pylist()))


def test_a_prepared_statement(url: str, plain: iceflight.Client) -> None:
    sql = "SELECT id FROM samples.trips WHERE fare > ? AND vendor = ?"
    got = jdbc(url, "prepared", sql, "d:10", "s:NYC")
    want = plain.read("samples.trips", columns=["id"], filter="fare > 10 AND vendor = 'NYC'")
    assert want.num_rows > 0
    assert sorted(r[0] for r in got["rows"]) == sorted(want.column("id").to_pylist())
