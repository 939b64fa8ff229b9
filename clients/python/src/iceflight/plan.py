"""A planned scan: the FlightInfo, its statistics and how to read it."""

from __future__ import annotations

import builtins
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.flight as fl

from . import frames
from ._parallel import EndpointStreams, StreamSource, batches

__all__ = ["Plan", "PlanStatistics"]


@dataclass(frozen=True)
class PlanStatistics:
    """What planning did, from the FlightInfo's ``app_metadata`` JSON.

    Attributes
    ----------
    snapshot_id : int or None
        The snapshot read (None for a table without snapshots).
    manifests_read, manifests_skipped, manifest_cache_hits : int
        Manifests opened, pruned by partition summaries, and served from
        the server's cache.
    data_files : int
        Data files planned.
    data_files_skipped_by_partition, data_files_skipped_by_metrics : int
        Data files pruned by partition values and by column metrics.
    delete_files, delete_files_skipped : int
        Delete files applied and pruned.
    records, bytes : int
        Estimated rows and bytes of the planned files.
    tasks, endpoints : int
        File tasks and endpoints in the plan.
    planning_ms : float
        Planning time on the server.
    manifest_tickets : bool
        The endpoints name groups of manifests, which each worker plans as
        it reads: ``data_files`` and ``records`` are then the manifest
        list's counts, and the files are pruned by the workers.
    extra : dict
        Keys this client version does not know.
    """

    snapshot_id: int | None = None
    manifests_read: int = 0
    manifests_skipped: int = 0
    manifest_cache_hits: int = 0
    data_files: int = 0
    data_files_skipped_by_partition: int = 0
    data_files_skipped_by_metrics: int = 0
    delete_files: int = 0
    delete_files_skipped: int = 0
    records: int = 0
    bytes: int = 0
    tasks: int = 0
    endpoints: int = 0
    planning_ms: float = 0.0
    manifest_tickets: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: builtins.bytes | str | None) -> PlanStatistics:
        """Parse the statistics JSON; empty or missing metadata gives zeros."""
        if not data:
            return cls()
        obj = json.loads(data)
        if not isinstance(obj, dict):
            return cls()
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        kwargs: dict[str, Any] = {k: v for k, v in obj.items() if k in known}
        kwargs["extra"] = {k: v for k, v in obj.items() if k not in known}
        return cls(**kwargs)


@dataclass(frozen=True)
class Plan:
    """A planned scan of one table, ready to read.

    Made by :meth:`iceflight.Client.plan`. Reading it redeems each
    endpoint's ticket; tickets expire (one hour by default), so plan again
    for a later read.

    Attributes
    ----------
    client : iceflight.Client
        The client the plan was made on; its connections serve the reads.
    table : str
        The table name.
    schema : pyarrow.Schema
        The schema every batch has, with Iceberg field ids as
        ``PARQUET:field_id`` field metadata.
    endpoints : list of pyarrow.flight.FlightEndpoint
        Endpoints to read; each holds a ticket and its locations.
    statistics : PlanStatistics
        Planning statistics.
    info : pyarrow.flight.FlightInfo or None
        The FlightInfo the plan came from.
    """

    client: StreamSource = field(repr=False)
    table: str
    schema: pa.Schema = field(repr=False)
    endpoints: Sequence[fl.FlightEndpoint] = field(repr=False)
    statistics: PlanStatistics
    info: fl.FlightInfo | None = field(default=None, repr=False)

    @classmethod
    def from_flight_info(cls, client: StreamSource, table: str, info: fl.FlightInfo) -> Plan:
        """Wrap a FlightInfo answered by GetFlightInfo."""
        return cls(
            client=client,
            table=table,
            schema=info.schema,
            endpoints=list(info.endpoints),
            statistics=PlanStatistics.from_json(info.app_metadata),
            info=info,
        )

    @property
    def snapshot_id(self) -> int | None:
        """The snapshot the plan reads."""
        return self.statistics.snapshot_id

    @property
    def total_records(self) -> int:
        """The planner's estimate of rows (before deletes and residual filters)."""
        if self.info is not None and self.info.total_records >= 0:
            return int(self.info.total_records)
        return self.statistics.records

    @property
    def total_bytes(self) -> int:
        """The planner's estimate of bytes in the planned files."""
        if self.info is not None and self.info.total_bytes >= 0:
            return int(self.info.total_bytes)
        return self.statistics.bytes

    def endpoint_metadata(self, index: int) -> dict[str, Any]:
        """Return endpoint ``index``'s ``app_metadata``: its files, bytes and records."""
        data = self.endpoints[index].app_metadata
        if not data:
            return {}
        obj = json.loads(data)
        return obj if isinstance(obj, dict) else {}

    def with_endpoints(self, endpoints: Sequence[fl.FlightEndpoint]) -> Plan:
        """Return a copy of the plan that reads these endpoints instead.

        Use it to read a subset of the endpoints (one per process, say) or
        to add locations to them.
        """
        return dataclasses.replace(self, endpoints=list(endpoints))

    def streams(self, max_workers: int | None = None, max_buffered: int | None = None) -> EndpointStreams:
        """Return the endpoint streams of this plan, not yet started.

        Iterating them yields ``(endpoint_index, RecordBatch)`` pairs as
        they arrive and raises errors with their own class; leaving the
        loop early or the ``with`` block cancels the streams::

            with plan.streams() as streams:
                for index, batch in streams:
                    ...

        Parameters
        ----------
        max_workers : int, optional
            Most endpoints read at once (default: the client's).
        max_buffered : int, optional
            Most batches waiting for the consumer (default: two per worker).
        """
        return self.client._endpoint_streams(self.endpoints, self.table, max_workers=max_workers, max_buffered=max_buffered)

    def read(self, dictionaries: str = "keep") -> pa.Table:
        """Read every endpoint in parallel and concatenate them in plan order.

        Parameters
        ----------
        dictionaries : {"keep", "unify", "decode"}
            What to do with columns the plan asked for as dictionaries
            (``dictionary=``): keep each chunk's own dictionary as sent,
            unify them into one per column
            (:meth:`pyarrow.Table.unify_dictionaries`), or decode them into
            plain string and binary columns.

        Returns
        -------
        pyarrow.Table
        """
        if dictionaries not in _DICTIONARY_MODES:
            raise ValueError(f"dictionaries must be one of {', '.join(_DICTIONARY_MODES)}, not {dictionaries!r}")
        parts: dict[int, list[pa.RecordBatch]] = {}
        for index, batch in self.streams():
            parts.setdefault(index, []).append(batch)
        ordered = [b for i in sorted(parts) for b in parts[i]]
        return shape_dictionaries(pa.Table.from_batches(ordered, schema=self.schema), dictionaries)

    def scan(self, max_buffered: int | None = None) -> pa.RecordBatchReader:
        """Stream the batches of every endpoint as they arrive.

        Memory is bounded by ``max_buffered`` batches plus one per worker.
        Batches of one endpoint keep their order; endpoints interleave.
        Closing the reader (or leaving its ``with`` block), reading it to
        the end, an error or Ctrl-C cancel the streams still open.

        The Arrow C stream interface behind the reader carries an error's
        message but not its class: a failure surfaces as
        ``pyarrow.ArrowInvalid`` whose message names the table and the
        original exception. Iterate :meth:`streams` instead to get
        :mod:`iceflight.errors` classes and ``KeyboardInterrupt`` as such.

        Parameters
        ----------
        max_buffered : int, optional
            Most batches waiting for the consumer (default: two per worker).

        Returns
        -------
        pyarrow.RecordBatchReader
        """
        streams = self.streams(max_buffered=max_buffered)
        inner = pa.RecordBatchReader.from_batches(self.schema, batches(streams))
        # A from_batches reader ignores close(); passed through the Arrow C
        # stream interface, close() releases the stream and with it the
        # Python iterator, whose cleanup cancels the Flight streams.
        return pa.RecordBatchReader.from_stream(inner)

    def to_pandas(self, **kwargs: Any) -> Any:
        """Read the plan into a ``pandas.DataFrame`` (needs ``iceflight[pandas]``).

        Keyword arguments go to :meth:`pyarrow.Table.to_pandas`.
        """
        return frames.to_pandas(self.read(), **kwargs)

    def to_polars(self) -> Any:
        """Read the plan into a ``polars.DataFrame`` (needs ``iceflight[polars]``)."""
        return frames.to_polars(self.read())

    def to_duckdb(self, connection: Any = None) -> Any:
        """Read the plan into a DuckDB relation (needs ``iceflight[duckdb]``).

        Parameters
        ----------
        connection : duckdb.DuckDBPyConnection, optional
            Connection to create the relation on (default: DuckDB's
            default connection).
        """
        return frames.to_duckdb(self.read(), connection)


_DICTIONARY_MODES = ("keep", "unify", "decode")


def shape_dictionaries(table: pa.Table, mode: str) -> pa.Table:
    """Return table with its dictionary columns kept, unified or decoded (see :meth:`Plan.read`)."""
    if mode == "keep" or not any(pa.types.is_dictionary(f.type) for f in table.schema):
        return table
    if mode == "unify":
        return table.unify_dictionaries()
    fields = [
        f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema
    ]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))
