"""Snapshots and references as the server's DoAction answers list them."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Snapshot", "Ref"]


@dataclass(frozen=True)
class Snapshot:
    """One snapshot of a table (DoAction ``snapshots``).

    Attributes
    ----------
    snapshot_id : int
    parent_id : int or None
    timestamp_ms : int
        When the snapshot was committed, in milliseconds since the epoch.
    operation : str
        ``append``, ``overwrite``, ``delete`` or ``replace`` (may be empty).
    summary : dict of str to str
        The snapshot summary (``added-records``, ``total-records``, ...).
    schema_id : int or None
        The schema the snapshot was written with.
    current : bool
        Whether this is the table's current snapshot.
    """

    snapshot_id: int
    parent_id: int | None
    timestamp_ms: int
    operation: str = ""
    summary: Mapping[str, str] = field(default_factory=dict)
    schema_id: int | None = None
    current: bool = False

    @property
    def timestamp(self) -> _dt.datetime:
        """The commit time as an aware UTC datetime."""
        return _dt.datetime.fromtimestamp(self.timestamp_ms / 1000, tz=_dt.timezone.utc)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Snapshot:
        """Build a Snapshot from one object of the ``snapshots`` answer."""
        return cls(
            snapshot_id=int(obj["snapshot_id"]),
            parent_id=None if obj.get("parent_id") is None else int(obj["parent_id"]),
            timestamp_ms=int(obj["timestamp_ms"]),
            operation=str(obj.get("operation") or ""),
            summary=dict(obj.get("summary") or {}),
            schema_id=None if obj.get("schema_id") is None else int(obj["schema_id"]),
            current=bool(obj.get("current", False)),
        )


@dataclass(frozen=True)
class Ref:
    """A branch or tag of a table (DoAction ``refs``).

    Attributes
    ----------
    snapshot_id : int
        The snapshot the reference points to.
    type : str
        ``"branch"`` or ``"tag"``.
    """

    snapshot_id: int
    type: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Ref:
        """Build a Ref from one value of the ``refs`` answer."""
        return cls(snapshot_id=int(obj["snapshot_id"]), type=str(obj["type"]))
