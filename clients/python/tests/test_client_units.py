"""Units without a server: commands, times, progress, dataframe helpers."""

from __future__ import annotations

import datetime as dt
import io

import pytest

import iceflight
from _oracle import arrow_rows, oracle_rows, scan
from iceflight._progress import Progress


@pytest.mark.parametrize(
    ("value", "ms"),
    [
        (1767225600000, 1767225600000),
        (dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc), 1767225600000),
        (dt.datetime(2026, 1, 1), 1767225600000),  # naive means UTC
        (dt.datetime(2026, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))), 1767225600000),
        (dt.datetime(2026, 1, 1, 0, 0, 0, 1999), 1767225600001),  # microseconds round down
        (dt.datetime(1969, 12, 31, 23, 59, 59, 999500), -1),
    ],
)
def test_as_of_is_milliseconds_since_the_epoch(value: iceflight._command.Timestamp, ms: int) -> None:
    assert iceflight.timestamp_ms(value) == ms


def test_as_of_refuses_other_types() -> None:
    with pytest.raises(TypeError):
        iceflight.timestamp_ms(True)
    with pytest.raises(TypeError):
        iceflight.timestamp_ms(1.5)  # type: ignore[arg-type]


def test_command_keeps_only_the_options_given() -> None:
    assert iceflight.build_command("db.t") == {"table": "db.t"}
    cmd = iceflight.build_command(
        "db.t", columns=("a", "b"), filter={"type": "eq", "term": "a", "value": 1}, ref="main", limit=3, case_sensitive=False
    )
    assert cmd == {
        "table": "db.t",
        "columns": ["a", "b"],
        "filter": {"type": "eq", "term": "a", "value": 1},
        "ref": "main",
        "limit": 3,
        "case_sensitive": False,
    }
    assert iceflight.build_command("db.t", columns=[])["columns"] == []


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_prints_only_for_long_reads_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for out, shown in ((io.StringIO(), False), (Tty(), True)):
        clock = Clock()
        p = Progress(out, None, clock)
        for _ in range(30):
            clock.now += 0.1
            p.update(1000, 2_000_000)
        p.finish()
        assert ("30,000 rows  60.0 MB  20.0 MB/s  3.0 s" in out.getvalue()) is shown


def test_forced_progress_prints_a_final_line() -> None:
    out, clock = io.StringIO(), Clock()
    p = Progress(out, True, clock)
    p.update(5, 1_000_000)
    clock.now = 0.5
    p.finish()
    assert out.getvalue().splitlines()[-1] == "5 rows  1.0 MB  2.0 MB/s  0.5 s"


def test_to_pandas(client: iceflight.Client) -> None:
    pytest.importorskip("pandas")
    entry, rows = scan("samples.trips")
    df = client.to_pandas("samples.trips", columns=["id", "fare"])
    assert len(df) == entry["rows"]
    assert sorted(df["id"].tolist()) == sorted(r["id"] for r in rows)


def test_to_polars(client: iceflight.Client) -> None:
    pytest.importorskip("polars")
    entry, rows = scan("samples.v3_lineage")
    df = client.to_polars("samples.v3_lineage")
    assert arrow_rows(df.to_arrow(), entry["schema"]) == oracle_rows(rows, entry["schema"])


def test_to_duckdb(client: iceflight.Client) -> None:
    duckdb = pytest.importorskip("duckdb")
    entry, rows = scan("samples.trips")
    con = duckdb.connect()
    rel = client.to_duckdb("samples.trips", connection=con)
    assert rel.aggregate("count(*) AS n, sum(id) AS s").fetchall() == [(entry["rows"], sum(r["id"] for r in rows))]
