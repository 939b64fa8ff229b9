"""The ``iceflight`` console script, end to end in a subprocess."""

from __future__ import annotations

import csv
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from _oracle import EXPECTED, arrow_rows, index, oracle_rows, queries, query_rows, scan


def iceflight_cmd() -> list[str]:
    """The installed console script, else the module."""
    script = shutil.which("iceflight", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "iceflight.cli"]


def run(server: str | None, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = iceflight_cmd() + (["--server", server] if server else []) + list(args)
    full_env = {k: v for k, v in os.environ.items() if k != "ICEFLIGHT_SERVER"}
    full_env.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=full_env)


def test_tables_lists_the_sample_tables(server: str) -> None:
    res = run(server, "tables")
    assert res.returncode == 0, res.stderr
    assert {d.name for d in EXPECTED.iterdir() if d.is_dir()} <= set(res.stdout.split())


def test_server_defaults_to_the_environment(server: str) -> None:
    res = run(None, "tables", "--json", env={"ICEFLIGHT_SERVER": server})
    assert res.returncode == 0, res.stderr
    assert "samples.trips" in json.loads(res.stdout)


def test_schema_shows_iceberg_field_ids(server: str) -> None:
    res = run(server, "schema", "samples.all_types", "--json")
    assert res.returncode == 0, res.stderr
    want = [(f["id"], f["name"]) for f in index("samples.all_types")["scans"][0]["schema"]["fields"]]
    assert [(int(f["id"]), f["name"]) for f in json.loads(res.stdout)] == want
    text = run(server, "schema", "samples.trips").stdout
    assert re.search(r"^\s+1\s+id: int64 not null$", text, re.M)


def test_snapshots_lists_the_oracle_snapshots(server: str) -> None:
    idx = index("samples.history")
    res = run(server, "snapshots", "samples.history", "--json")
    assert res.returncode == 0, res.stderr
    snaps = json.loads(res.stdout)
    assert {s["snapshot_id"] for s in snaps} == {s["snapshot_id"] for s in idx["scans"][1:]}
    text = run(server, "snapshots", "samples.history").stdout
    assert re.search(rf"^{idx['current_snapshot_id']} .* current$", text, re.M)


def test_read_to_parquet_equals_java(server: str, tmp_path: pathlib.Path) -> None:
    entry, rows = scan("samples.eq_deletes_evolved")
    out = tmp_path / "out.parquet"
    res = run(server, "read", "samples.eq_deletes_evolved", "-o", str(out))
    assert res.returncode == 0, res.stderr
    got = pq.read_table(out)
    assert arrow_rows(got, entry["schema"]) == oracle_rows(rows, entry["schema"])


def test_read_with_columns_and_filter_to_csv(server: str, tmp_path: pathlib.Path) -> None:
    q = queries()["trips__fare_gt"]
    out = tmp_path / "out.csv"
    res = run(server, "read", "samples.trips", "--columns", "id,fare", "--filter", "fare > 92.4", "-o", str(out))
    assert res.returncode == 0, res.stderr
    with open(out, newline="") as f:
        got = list(csv.DictReader(f))
    assert sorted(int(r["id"]) for r in got) == sorted(r["id"] for r in query_rows(q))
    assert list(got[0]) == ["id", "fare"]


def test_read_rest_expression_filter_to_arrow(server: str, tmp_path: pathlib.Path) -> None:
    q = queries()["events_by_kind__ts_range"]
    out = tmp_path / "out.arrow"
    res = run(server, "read", q["table"], "--columns", ",".join(q["columns"]), "--filter", json.dumps(q["filter"]), "-o", str(out))
    assert res.returncode == 0, res.stderr
    got = ipc.open_file(out).read_all()
    assert arrow_rows(got, q["schema"]) == oracle_rows(query_rows(q), q["schema"])


def test_read_limit_to_stdout(server: str) -> None:
    res = run(server, "read", "samples.trips", "--columns", "id", "--limit", "5")
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["id"] and len(rows) == 6


def test_read_of_an_old_snapshot(server: str, tmp_path: pathlib.Path) -> None:
    first = index("samples.history")["scans"][1]
    out = tmp_path / "old.parquet"
    res = run(server, "read", "samples.history", "--snapshot-id", str(first["snapshot_id"]), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert pq.read_metadata(out).num_rows == first["rows"]


def test_progress_line_shows_rows_and_rate(server: str, tmp_path: pathlib.Path) -> None:
    res = run(server, "read", "samples.trips", "-o", str(tmp_path / "t.parquet"), "--progress")
    assert res.returncode == 0, res.stderr
    assert re.search(r"^20,000 rows  [\d.,]+ MB  [\d.,]+ MB/s  [\d.]+ s$", res.stderr, re.M), res.stderr


def test_errors_exit_1_naming_the_table(server: str) -> None:
    res = run(server, "read", "samples.nope")
    assert res.returncode == 1
    assert "samples.nope" in res.stderr and "not found" in res.stderr
    res = run(server, "read", "samples.trips", "--columns", "nope", "-o", "x.parquet")
    assert res.returncode == 1 and "nope" in res.stderr


def test_bad_usage_exits_2(server: str) -> None:
    assert run(server, "read").returncode == 2
    assert run(server, "read", "samples.trips", "--as-of", "yesterday").returncode == 2
