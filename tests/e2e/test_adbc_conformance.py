"""The conformance corpus (80 tables written by other engines, in the shared
folder beside the checkout) through ADBC's Flight SQL driver: every answer
equals the plain protocol's answer to the same scan.

The scans are the corpus's query set (testdata/queries/conformance.json:
projections, filters, snapshots by id), spelled as SQL, and for every table a
projection of its first two columns, a LIMIT, and time travel to its first
snapshot. A scan the plain protocol refuses (the corpus's known defects)
must be refused through SQL too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import iceflight
import pyarrow as pa
import pytest
from _flightd import ROOT, serve
from _sql import assert_same, need, rows, select

CORPUS = ROOT.parent / "shared" / "conformance" / "tables"
QUERIES = ROOT / "testdata" / "queries" / "conformance.json"
LIMIT = 5


@dataclass(frozen=True)
class Scan:
    """One scan in both spellings: the plain command's arguments and the SQL."""

    name: str
    table: str
    columns: list[str] | None = None
    filter: dict[str, Any] | None = None
    snapshot_id: int | None = None
    limit: int | None = None
    case_sensitive: bool = True

    @property
    def sql(self) -> str:
        return select(self.table, self.columns, self.filter, self.snapshot_id, self.limit, quoted=self.case_sensitive)

    def plain(self, client: iceflight.Client) -> pa.Table:
        options = {} if self.case_sensitive else {"case_sensitive": False}
        return client.read(
            self.table, columns=self.columns, filter=self.filter, snapshot_id=self.snapshot_id, limit=self.limit, **options
        )


@pytest.fixture(scope="module")
def location() -> Iterator[str]:
    if not CORPUS.is_dir():
        pytest.skip(f"the conformance corpus is not at {CORPUS} (the shared folder beside the checkout)")
    with serve("--log-level", "error", warehouse=CORPUS) as addr:
        yield f"grpc://{addr}"


@pytest.fixture(scope="module")
def plain(location: str) -> Iterator[iceflight.Client]:
    with iceflight.connect(location) as c:
        yield c


@pytest.fixture(scope="module")
def conn(location: str) -> Iterator[Any]:
    dbapi = need("adbc_driver_flightsql.dbapi")
    with dbapi.connect(location) as c:
        yield c


def _query_set() -> list[Scan]:
    out = []
    for q in json.loads(QUERIES.read_text()):
        out.append(
            Scan(
                q["name"],
                q["table"],
                q.get("columns"),
                q.get("filter"),
                q.get("snapshot_id"),
                case_sensitive=q.get("case_sensitive", True),
            )
        )
    return out


def _table_scans(plain: iceflight.Client) -> list[Scan]:
    out = []
    for table in plain.tables():
        try:
            names = plain.schema(table).names
        except Exception:
            names = []  # the plain protocol refuses the table: SELECT * must be refused too
        out.append(Scan(f"{table} projection", table, names[:2] or None))
        out.append(Scan(f"{table} limit", table, limit=LIMIT))
        snaps = plain.snapshots(table)
        if len(snaps) > 1:
            out.append(Scan(f"{table} first snapshot", table, snapshot_id=snaps[0].snapshot_id))
    return out


def _compare(conn: Any, plain: iceflight.Client, scan: Scan) -> str:
    """Run scan both ways; return "equal", "both refused", or raise AssertionError."""
    try:
        want = scan.plain(plain)
    except Exception as err:  # the corpus's known defects: SQL must refuse as well
        try:
            with conn.cursor() as cur:
                cur.execute(scan.sql)
                cur.fetch_arrow_table()
        except Exception:
            return "both refused"
        raise AssertionError(f"{scan.sql}: answered what the plain protocol refused ({err})") from None
    with conn.cursor() as cur:
        cur.execute(scan.sql)
        got = cur.fetch_arrow_table()
    if scan.columns == []:
        assert got.column(0).to_pylist() == [want.num_rows], f"{scan.name}: {scan.sql}"
    elif scan.limit is not None:
        assert got.num_rows == want.num_rows == min(LIMIT, plain.read(scan.table, columns=[]).num_rows), scan.sql
        full = set(rows(plain.read(scan.table)))
        assert set(rows(got)) <= full, f"{scan.name}: limited rows that the table does not hold"
    else:
        assert_same(got, want, f"{scan.name}: {scan.sql}")
    return "equal"


def test_conformance_corpus_through_adbc(conn: Any, plain: iceflight.Client) -> None:
    scans = _query_set() + _table_scans(plain)
    tally: dict[str, int] = {}
    failures = []
    for scan in scans:
        try:
            outcome = _compare(conn, plain, scan)
        except AssertionError as err:
            failures.append(f"{scan.name}: {err}")
            continue
        except Exception as err:  # SQL refused what the plain protocol answered
            failures.append(f"{scan.name}: {scan.sql}: {type(err).__name__}: {str(err)[:300]}")
            continue
        tally[outcome] = tally.get(outcome, 0) + 1
    print(f"adbc conformance: {len(scans)} scans, {tally}, {len(failures)} different")
    assert not failures, f"{len(failures)} of {len(scans)} scans differ:\n" + "\n".join(failures[:40])
