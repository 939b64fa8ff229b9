"""Plan: the FlightInfo's statistics against what Iceberg Java planned."""

from __future__ import annotations

import iceflight
from _oracle import index, queries


def test_plan_statistics_describe_the_current_snapshot(client: iceflight.Client) -> None:
    idx = index("samples.trips")
    plan = client.plan("samples.trips")
    stats = plan.statistics
    assert plan.snapshot_id == idx["current_snapshot_id"]
    # Iceberg Java plans 4 data files for samples.trips (files_total of its queries).
    assert stats.data_files == queries()["trips__fare_gt"]["files_total"] == 4
    assert stats.delete_files == 0
    assert stats.manifests_read >= 1
    assert stats.endpoints == len(plan.endpoints)
    assert stats.tasks >= stats.data_files
    assert stats.planning_ms >= 0
    per_endpoint = [plan.endpoint_metadata(i) for i in range(len(plan.endpoints))]
    assert sum(md["records"] for md in per_endpoint) == stats.records == plan.total_records
    assert sum(md["bytes"] for md in per_endpoint) == stats.bytes == plan.total_bytes
    assert sum(len(md["files"]) for md in per_endpoint) == stats.data_files


def test_plan_statistics_count_what_the_filter_pruned(client: iceflight.Client) -> None:
    q = queries()["events_by_day__one_day"]  # one day of a day-partitioned table
    stats = client.plan(q["table"], columns=q["columns"], filter=q["filter"]).statistics
    # Iceberg Java plans files_planned of files_total; a reader may prune less, never more.
    assert q["files_planned"] <= stats.data_files < q["files_total"]
    skipped = stats.data_files_skipped_by_partition + stats.data_files_skipped_by_metrics
    assert stats.data_files + skipped == q["files_total"]
    assert stats.data_files_skipped_by_partition > 0


def test_plan_of_an_old_snapshot_names_it(client: iceflight.Client) -> None:
    first = index("samples.history")["scans"][1]
    plan = client.plan("samples.history", snapshot_id=first["snapshot_id"])
    assert plan.snapshot_id == first["snapshot_id"]
    assert plan.read().num_rows == first["rows"]


def test_plan_schema_carries_iceberg_field_ids(client: iceflight.Client) -> None:
    schema = index("samples.trips")["scans"][0]["schema"]
    plan = client.plan("samples.trips")
    got = [(f.name, int(f.metadata[b"PARQUET:field_id"])) for f in plan.schema]
    assert got == [(f["name"], f["id"]) for f in schema["fields"]]
    assert client.schema("samples.trips").equals(plan.schema, check_metadata=True)


def test_statistics_keep_unknown_keys() -> None:
    stats = iceflight.PlanStatistics.from_json(b'{"snapshot_id": 7, "data_files": 2, "new_counter": 3}')
    assert stats.snapshot_id == 7 and stats.data_files == 2
    assert stats.extra == {"new_counter": 3}
    assert iceflight.PlanStatistics.from_json(b"") == iceflight.PlanStatistics()
