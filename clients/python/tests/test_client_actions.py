"""Actions whose answer the server splits over several results."""

from __future__ import annotations

import iceflight
from fakeflight import PagedActions


def test_snapshots_and_refs_join_every_result_page() -> None:
    with PagedActions() as server, iceflight.connect(server.location) as client:
        snaps = client.snapshots("db.t")
        assert [s.snapshot_id for s in snaps] == [1, 2, 3]
        assert snaps[-1].current
        refs = client.refs("db.t")
        assert sorted(refs) == ["main", "v1"]
        assert refs["main"].snapshot_id == 3 and refs["v1"].type == "tag"
