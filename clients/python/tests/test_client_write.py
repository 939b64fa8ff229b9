"""The write calls and CLI verbs against a fake server that answers as flightd does."""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.flight as fl
import pyarrow.parquet as pq
import pytest

import iceflight
from iceflight import cli
from iceflight._cli_write import parse_older_than, parse_schema
from fakewrites import WriteServer

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string())])


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()), "name": [f"n{i}" for i in range(n)]}, schema=SCHEMA)


@pytest.fixture()
def fake() -> Any:
    with WriteServer() as server:
        yield server


def test_append_takes_tables_readers_batches_and_iterables(fake: WriteServer) -> None:
    with iceflight.connect(fake.location) as client:
        res = client.append("db.t", rows(5), snapshot_properties={"job": "x"})
        assert res.snapshot_id == 101 and res.added_records == 5 and res.attempts == 1
        client.append("db.t", rows(3).to_reader())
        client.append("db.t", rows(2).to_batches()[0])
        client.append("db.t", iter(rows(4).to_batches(max_chunksize=1)))
        client.append("db.t", [], schema=SCHEMA)
    cmds = [c for c, _ in fake.puts]
    assert cmds[0] == {"table": "db.t", "mode": "append", "snapshot_properties": {"job": "x"}}
    assert [t.num_rows for _, t in fake.puts] == [5, 3, 2, 4, 0]
    assert fake.puts[3][1].column("id").to_pylist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="schema="):
        iceflight.connect(fake.location).append("db.t", [])


def test_overwrite_sends_mode_and_filter(fake: WriteServer) -> None:
    with iceflight.connect(fake.location) as client:
        client.overwrite("db.t", rows(2), filter="id > 0", branch="dev")
    assert fake.puts[0][0] == {"table": "db.t", "mode": "overwrite", "filter": "id > 0", "branch": "dev"}


def test_rows_that_fail_midway_send_no_complete_stream(fake: WriteServer) -> None:
    def batches() -> Any:
        yield rows(2).to_batches()[0]
        raise OSError("disk on fire")

    with iceflight.connect(fake.location) as client:
        with pytest.raises(OSError, match="disk on fire"):
            client.append("db.t", batches())
    assert fake.broken.wait(5)
    assert fake.puts == []


def test_put_errors_name_the_table(fake: WriteServer) -> None:
    fake.fail["put"] = fl.FlightServerError("stream schema does not match the table")
    with iceflight.connect(fake.location) as client:
        with pytest.raises(fl.FlightError, match="db.t"):
            client.append("db.t", rows(1))
    fake.fail["put"] = pa.ArrowInvalid("table db.t: column id: schema does not match the table")
    with iceflight.connect(fake.location) as client:
        with pytest.raises(iceflight.InvalidRequestError, match="schema does not match"):
            client.append("db.t", rows(1))


def test_create_table_sends_the_ipc_schema(fake: WriteServer) -> None:
    with iceflight.connect(fake.location) as client:
        info = client.create_table(
            "db.t", SCHEMA, partition_by=["bucket(16, id)"], sort_by=["id desc"], properties={"k": "v"}, format_version=3, if_not_exists=True
        )
    assert info.table == "db.t" and info.format_version == 3
    kind, body = fake.actions[0]
    assert kind == "create_table"
    assert pa.ipc.read_schema(pa.py_buffer(base64.b64decode(body.pop("schema")))) == SCHEMA
    assert body == {"table": "db.t", "partition_by": ["bucket(16, id)"], "sort_by": ["id desc"], "properties": {"k": "v"}, "format_version": 3, "if_not_exists": True}


def test_delete_alter_and_namespaces(fake: WriteServer) -> None:
    with iceflight.connect(fake.location) as client:
        res = client.delete("db.t", "id < 3", dry_run=True)
        assert res.deleted_records == 3 and res.dry_run
        client.alter("db.t", schema=[{"op": "add_column", "path": "note", "type": "string"}], set_properties={"a": "b"})
        assert client.list_namespaces() == ["a", "b", "c"]
        client.create_namespace("db.sub", {"owner": "me"})
        client.drop_namespace("db.sub")
        client.drop_table("db.t", purge=True)
    assert fake.actions[0] == ("delete", {"table": "db.t", "filter": "id < 3", "copy_on_write": False, "dry_run": True})
    assert fake.actions[1] == ("alter_table", {"table": "db.t", "schema": [{"op": "add_column", "path": "note", "type": "string"}], "set_properties": {"a": "b"}})
    assert fake.actions[2] == ("list_namespaces", {})
    assert fake.actions[3] == ("create_namespace", {"namespace": "db.sub", "properties": {"owner": "me"}})
    assert fake.actions[-1] == ("drop_table", {"table": "db.t", "purge": True})


def test_maintenance_joins_the_paged_removed_list(fake: WriteServer) -> None:
    fake.removed_pages = 2
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    with iceflight.connect(fake.location) as client:
        res = client.expire_snapshots("db.t", older_than=when, retain_last=2, dry_run=True)
        assert [f.location for f in res.removed] == [f"mem://t/data/{i}.parquet" for i in range(3)]
        assert res.counts == {"data": 3} and res.dry_run
        client.remove_orphan_files("db.t", older_than=1767225600000)
        client.compact("db.t", filter="id > 1", target_file_size=1 << 20)
        client.rewrite_manifests("db.t")
    assert fake.actions[0][1] == {"table": "db.t", "older_than": "2026-01-02T03:04:05Z", "retain_last": 2, "dry_run": True}
    assert fake.actions[1][1] == {"table": "db.t", "older_than": 1767225600000, "dry_run": False}
    assert fake.actions[2] == ("rewrite_data_files", {"table": "db.t", "filter": "id > 1", "target_file_size": 1 << 20, "dry_run": False})
    assert fake.actions[3][0] == "rewrite_manifests"


def test_action_errors_become_our_exceptions(fake: WriteServer) -> None:
    fake.fail["delete"] = pa.ArrowInvalid("table db.t: filter: unexpected end")
    with iceflight.connect(fake.location) as client:
        with pytest.raises(iceflight.InvalidRequestError, match="filter"):
            client.delete("db.t", "id <")


def run_cli(fake: WriteServer, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    import sys

    old = sys.stdout
    sys.stdout = out
    try:
        code = cli.main(["--server", fake.location, *argv])
    finally:
        sys.stdout = old
    return code, out.getvalue()


def test_cli_append_reads_parquet_csv_and_arrow(fake: WriteServer, tmp_path: Path) -> None:
    t = rows(6)
    pq.write_table(t, tmp_path / "r.parquet", row_group_size=2)
    pcsv.write_csv(t, tmp_path / "r.csv")
    with pa.OSFile(str(tmp_path / "r.arrow"), "wb") as f, pa.ipc.new_file(f, t.schema) as w:
        w.write_table(t)
    for name in ("r.parquet", "r.csv", "r.arrow"):
        code, out = run_cli(fake, "append", "db.t", str(tmp_path / name))
        assert code == 0, out
        assert json.loads(out)["added_records"] == 6
    assert [p[1].column("id").to_pylist() for p in fake.puts] == [list(range(6))] * 3
    code, _ = run_cli(fake, "append", "db.t", str(tmp_path / "r.parquet"), "--overwrite", "--filter", "id > 2")
    assert code == 0 and fake.puts[-1][0]["mode"] == "overwrite" and fake.puts[-1][0]["filter"] == "id > 2"
    code, _ = run_cli(fake, "append", "db.t", str(tmp_path / "r.parquet"), "--filter", "id > 2")
    assert code == 1


def test_cli_write_verbs(fake: WriteServer, tmp_path: Path) -> None:
    assert run_cli(fake, "delete", "db.t", "--filter", "id = 1", "--dry-run")[0] == 0
    assert fake.actions[-1] == ("delete", {"table": "db.t", "filter": "id = 1", "copy_on_write": False, "dry_run": True})
    code, out = run_cli(fake, "expire", "db.t", "--older-than", "7d", "--retain-last", "3")
    assert code == 0 and json.loads(out)["counts"] == {"data": 3}
    older = dt.datetime.fromisoformat(fake.actions[-1][1]["older_than"].replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.timezone.utc) - older) - dt.timedelta(days=7)) < dt.timedelta(minutes=1)
    assert run_cli(fake, "orphans", "db.t", "--older-than", "2026-01-01T00:00:00Z", "--dry-run")[0] == 0
    assert fake.actions[-1][1]["older_than"] == "2026-01-01T00:00:00Z"
    assert run_cli(fake, "compact", "db.t", "--target-file-size", "1024")[0] == 0
    assert fake.actions[-1] == ("rewrite_data_files", {"table": "db.t", "target_file_size": 1024, "dry_run": False})
    assert run_cli(fake, "create-table", "db.n", "--schema", "id:int64 not null, name:string", "--partition-by", "bucket(4, id)", "--property", "a=b")[0] == 0
    kind, body = fake.actions[-1]
    assert pa.ipc.read_schema(pa.py_buffer(base64.b64decode(body["schema"]))) == SCHEMA
    assert body["partition_by"] == ["bucket(4, id)"] and body["properties"] == {"a": "b"}
    pq.write_table(rows(1), tmp_path / "like.parquet")
    assert run_cli(fake, "create-table", "db.m", "--like", str(tmp_path / "like.parquet"))[0] == 0
    code, out = run_cli(fake, "namespaces")
    assert code == 0 and out.split() == ["a", "b", "c"]


def test_cli_argument_parsing() -> None:
    assert parse_older_than("1767225600000") == 1767225600000
    assert parse_older_than("2026-01-01T00:00:00") == dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(Exception, match="duration"):
        parse_older_than("last week")
    assert parse_schema("a:int32, b:string not null") == pa.schema([("a", pa.int32()), pa.field("b", pa.string(), nullable=False)])
    with pytest.raises(Exception, match="unknown type"):
        parse_schema("a:integer64")
