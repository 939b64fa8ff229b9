"""iceflight: read Apache Iceberg tables served over Apache Arrow Flight.

>>> import iceflight
>>> client = iceflight.connect("grpc://127.0.0.1:8815")  # doctest: +SKIP
>>> client.read("samples.trips", columns=["id", "fare"], filter="fare > 10")  # doctest: +SKIP
"""

from __future__ import annotations

from . import errors
from ._command import build_command, timestamp_ms
from ._connections import REUSE_CONNECTION
from .client import Client, connect
from .errors import (
    IceflightError,
    InvalidRequestError,
    NotFoundError,
    SnapshotNotFoundError,
    TableNotFoundError,
    UnsupportedError,
)
from .plan import Plan, PlanStatistics
from .snapshots import Ref, Snapshot
from .write import MaintenanceResult, RemovedFile, TableInfo, WriteResult

__version__ = "0.1.0"

__all__ = [
    "Client",
    "IceflightError",
    "InvalidRequestError",
    "MaintenanceResult",
    "NotFoundError",
    "Plan",
    "PlanStatistics",
    "REUSE_CONNECTION",
    "Ref",
    "RemovedFile",
    "Snapshot",
    "SnapshotNotFoundError",
    "TableInfo",
    "TableNotFoundError",
    "UnsupportedError",
    "WriteResult",
    "build_command",
    "connect",
    "errors",
    "timestamp_ms",
]
