"""The client's names for the wire form match the server's Go definitions.

proto/actions/testdata/wire.json describes every DoAction and DoPut request
and result type of the Go package proto/actions, and a Go test keeps it equal
to the Go types. Here the client's requests, sent to a fake server, must carry
exactly the fields of their Go request type, and its result classes must have
exactly the fields of their Go result type and read each from the Go example.
A field renamed on either side fails one of the two tests.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa
import pytest

import iceflight
from _oracle import ROOT
from fakewrites import WriteServer

WIRE = json.loads((ROOT / "proto" / "actions" / "testdata" / "wire.json").read_text())

SCHEMA = pa.schema([("id", pa.int64())])

#: Each call of the client with every argument given, by the Go call name.
CALLS: dict[str, Callable[[iceflight.Client], Any]] = {
    "snapshots": lambda c: c.snapshots("db.t"),
    "refs": lambda c: c.refs("db.t"),
    "refresh": lambda c: c.refresh("db.t"),
    "create_table": lambda c: c.create_table(
        "db.t", SCHEMA, partition_by=["bucket(16, id)"], sort_by=["id desc"], properties={"k": "v"},
        format_version=3, location="mem://t", if_not_exists=True,
    ),
    "drop_table": lambda c: c.drop_table("db.t", purge=True),
    "create_namespace": lambda c: c.create_namespace("db.sub", {"owner": "me"}),
    "list_namespaces": lambda c: c.list_namespaces("db"),
    "drop_namespace": lambda c: c.drop_namespace("db.sub"),
    "delete": lambda c: c.delete("db.t", "id < 3", branch="dev", copy_on_write=True, dry_run=True),
    "alter_table": lambda c: c.alter(
        "db.t", schema=[{"op": "drop_column", "path": "x"}], partition_spec=[{"op": "add_field", "source": "id", "transform": "bucket[4]"}],
        sort_order=[{"source": "id"}], set_properties={"a": "b"}, remove_properties=["c"], refs=[{"op": "create_tag", "name": "v1"}], format_version=3,
    ),
    "expire_snapshots": lambda c: c.expire_snapshots(
        "db.t", older_than=dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc), retain_last=2, snapshot_ids=[5], dry_run=True
    ),
    "remove_orphan_files": lambda c: c.remove_orphan_files("db.t", older_than=1767225600000, location="mem://t/data", dry_run=True),
    "rewrite_data_files": lambda c: c.compact("db.t", filter="id > 1", target_file_size=1 << 20, min_input_files=2, dry_run=True),
    "rewrite_manifests": lambda c: c.rewrite_manifests("db.t", target_manifest_size=4096, dry_run=True),
    "DoPut": lambda c: c.overwrite("db.t", pa.table({"id": [1]}, schema=SCHEMA), filter="id > 0", branch="dev", snapshot_properties={"job": "x"}),
}

#: The client's result classes by the name of their Go type.
RESULTS: dict[str, Any] = {
    "WriteResult": iceflight.WriteResult,
    "MaintenanceResult": iceflight.MaintenanceResult,
    "RemovedFile": iceflight.RemovedFile,
    "TableInfo": iceflight.TableInfo,
    "Snapshot": iceflight.Snapshot,
    "Ref": iceflight.Ref,
}


def go_fields(type_name: str) -> set[str]:
    return set(WIRE["types"][type_name]["fields"])


def test_the_client_makes_every_call_the_server_serves() -> None:
    assert sorted(CALLS) == sorted(WIRE["calls"])


def test_each_request_sends_exactly_the_fields_of_its_go_type() -> None:
    with WriteServer() as fake, iceflight.connect(fake.location) as client:
        sent: dict[str, set[str]] = {}
        for name, call in CALLS.items():
            call(client)
            if name == "DoPut":
                sent[name] = set(fake.puts[-1][0])
            else:
                kind, body = fake.actions[-1]
                assert kind == name
                sent[name] = set(body)
    # The namespace actions share one Go request type, each sending a part.
    for name in ("create_namespace", "list_namespaces", "drop_namespace"):
        assert sent[name] <= go_fields(WIRE["calls"][name]["request"]), name
    namespaces = sent.pop("create_namespace") | sent.pop("list_namespaces") | sent.pop("drop_namespace")
    assert namespaces == go_fields("NamespaceRequest")
    for name, keys in sent.items():
        assert keys == go_fields(WIRE["calls"][name]["request"]), name


@pytest.mark.parametrize("type_name", sorted(RESULTS))
def test_each_result_class_has_the_fields_of_its_go_type(type_name: str) -> None:
    cls = RESULTS[type_name]
    assert {f.name for f in dataclasses.fields(cls)} - {"raw"} == go_fields(type_name)


def plain(v: Any) -> Any:
    """v as JSON-like values, to compare with the Go example."""
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {k: plain(x) for k, x in dataclasses.asdict(v).items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    return v


@pytest.mark.parametrize("type_name", sorted(n for n in RESULTS if hasattr(RESULTS[n], "from_json")))
def test_each_result_class_reads_every_field_of_the_go_example(type_name: str) -> None:
    example = WIRE["types"][type_name]["example"]
    got = RESULTS[type_name].from_json(example)
    for key, want in example.items():
        assert plain(getattr(got, key)) == want, key
