"""An in-process Flight server that answers the write calls as flightd does,
recording what each call sent."""

from __future__ import annotations

import json
import threading
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl


class WriteServer(fl.FlightServerBase):  # type: ignore[misc]
    """Answers DoPut with a writer.Result JSON and the write actions with
    flightd's answers. ``puts`` holds (command, table) of each complete
    DoPut; ``actions`` holds (type, body). ``fail`` maps an action type or
    "put" to an exception to raise instead."""

    def __init__(self) -> None:
        super().__init__("grpc://127.0.0.1:0")
        self.location = f"grpc://127.0.0.1:{self.port}"
        self.puts: list[tuple[dict[str, Any], pa.Table]] = []
        self.actions: list[tuple[str, dict[str, Any]]] = []
        self.fail: dict[str, Exception] = {}
        self.removed_pages = 1
        self.broken = threading.Event()

    def do_put(self, context: Any, descriptor: Any, reader: Any, writer: Any) -> None:
        cmd = json.loads(descriptor.command)
        if "put" in self.fail:
            raise self.fail["put"]
        batches = []
        # As flightd: a metadata-only "iceflight:abort" message ends the
        # call and commits nothing.
        while True:
            try:
                chunk = reader.read_chunk()
            except StopIteration:
                break
            meta = chunk.app_metadata
            if chunk.data is None and meta is not None and meta.to_pybytes() == b"iceflight:abort":
                self.broken.set()
                raise fl.FlightCancelledError("DoPut: the client aborted the stream")
            if chunk.data is not None:
                batches.append(chunk.data)
        table = pa.Table.from_batches(batches, schema=reader.schema)
        self.puts.append((cmd, table))
        result = {"snapshot_id": 100 + len(self.puts), "operation": "append", "added_records": table.num_rows, "attempts": 1}
        writer.write(pa.py_buffer(json.dumps(result).encode()))

    def do_action(self, context: Any, action: Any) -> Any:
        body = json.loads(action.body.to_pybytes() or b"{}")
        self.actions.append((action.type, body))
        if action.type in self.fail:
            raise self.fail[action.type]
        if action.type in ("create_table", "alter_table"):
            answers = [{"table": body["table"], "metadata_location": "mem://v1.metadata.json", "format_version": body.get("format_version", 2)}]
        elif action.type == "delete":
            answers = [{"snapshot_id": 7, "operation": "delete", "deleted_records": 3, "dry_run": body.get("dry_run", False)}]
        elif action.type == "list_namespaces":
            answers = [["a", "b"], ["c"]]
        elif action.type == "snapshots":
            answers = [[]]
        elif action.type == "refs":
            answers = [{}]
        elif action.type == "refresh":
            answers = [{"refreshed": True}]
        elif action.type in ("expire_snapshots", "remove_orphan_files", "rewrite_data_files", "rewrite_manifests"):
            files = [{"location": f"mem://t/data/{i}.parquet", "kind": "data", "size": i} for i in range(3)]
            answers = [{"dry_run": body.get("dry_run", False), "removed": files[:1], "counts": {"data": 3}}]
            answers += [files[1:2], files[2:]][: self.removed_pages]
        else:
            answers = [{"dropped": True}]
        return iter(fl.Result(pa.py_buffer(json.dumps(a).encode())) for a in answers)
