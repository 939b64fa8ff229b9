"""The iceflight client: plan, read and stream Iceberg tables over Flight."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import pyarrow as pa
import pyarrow.flight as fl

from ._command import Filter, Timestamp, build_command, descriptor, timestamp_ms
from ._connections import ConnectionPool, normalize_location
from ._parallel import EndpointStreams
from .errors import reraise
from .plan import Plan
from .snapshots import Ref, Snapshot
from .write import WriteMixin

__all__ = ["Client", "connect"]

Headers = Union[Mapping[str, str], Iterable[tuple[str, str]]]


def _default_workers() -> int:
    # Endpoint streams wait on the network more than on the CPU, as
    # concurrent.futures.ThreadPoolExecutor assumes for its default.
    return min(32, (os.cpu_count() or 1) + 4)


def _header_pairs(token: str | None, headers: Headers | None) -> list[tuple[bytes, bytes]]:
    pairs: list[tuple[bytes, bytes]] = []
    if headers is not None:
        items = headers.items() if isinstance(headers, Mapping) else headers
        for k, v in items:
            pairs.append((k.lower().encode(), v.encode()))
    if token is not None:
        pairs.append((b"authorization", b"Bearer " + token.encode()))
    return pairs


class Client(WriteMixin):
    """A connection to an iceflight server.

    Use :func:`connect` to make one. Every call sends the token and headers
    given here. A client is safe to share between threads; close it (or use
    it as a context manager) to close its connections.

    Parameters
    ----------
    location : str
        Server location, e.g. ``"grpc://127.0.0.1:8815"`` or
        ``"grpc+tls://host:443"``; a bare ``host:port`` means ``grpc://``.
    token : str, optional
        Sent as ``authorization: Bearer TOKEN`` on every call.
    tls_root_certs : bytes, optional
        PEM root certificates for ``grpc+tls`` locations.
    headers : dict or iterable of (str, str), optional
        Extra headers sent on every call.
    max_workers : int, optional
        Most endpoints read at once (default: CPUs + 4, at most 32).
    username, password : str, optional
        Log in with Basic credentials (the server's ``--users``): the
        server's Handshake returns a session bearer token that every later
        call sends, to the workers too.
    cert_chain, private_key : bytes, optional
        PEM client certificate and key for servers that require mutual TLS.
    """

    def __init__(
        self,
        location: str,
        *,
        token: str | None = None,
        tls_root_certs: bytes | None = None,
        headers: Headers | None = None,
        max_workers: int | None = None,
        username: str | None = None,
        password: str | None = None,
        cert_chain: bytes | None = None,
        private_key: bytes | None = None,
    ) -> None:
        if max_workers is not None and max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        if (cert_chain is None) != (private_key is None):
            raise ValueError("cert_chain and private_key go together")
        if token is not None and username is not None:
            raise ValueError("give a token or a username, not both")
        self.location = normalize_location(location)
        self.max_workers = max_workers or _default_workers()
        kwargs: dict[str, Any] = {}
        if tls_root_certs is not None:
            kwargs["tls_root_certs"] = tls_root_certs
        if cert_chain is not None:
            kwargs["cert_chain"] = cert_chain
            kwargs["private_key"] = private_key
        self._pool = ConnectionPool(self.location, **kwargs)
        pairs = _header_pairs(token, headers)
        if username is not None:
            with reraise(None):
                pairs.append(self._flight.authenticate_basic_token(username, password or ""))
        self._options = fl.FlightCallOptions(headers=pairs)

    def __repr__(self) -> str:
        return f"iceflight.Client({self.location!r})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every connection of this client."""
        self._pool.close()

    @property
    def _flight(self) -> fl.FlightClient:
        return self._pool.get(self.location)

    def tables(self) -> list[str]:
        """Return the names of the server's tables, sorted.

        Returns
        -------
        list of str
            Names such as ``"samples.trips"``.
        """
        names = []
        with reraise(None):
            for info in self._flight.list_flights(options=self._options):
                parts = [p.decode() if isinstance(p, bytes) else str(p) for p in info.descriptor.path]
                names.append(".".join(parts))
        return sorted(names)

    def schema(self, table: str, columns: Sequence[str] | None = None) -> pa.Schema:
        """Return the Arrow schema a read of ``table`` would give, without planning.

        Parameters
        ----------
        table : str
            Table name.
        columns : sequence of str, optional
            Columns to project.

        Returns
        -------
        pyarrow.Schema
            With each column's Iceberg field id as ``PARQUET:field_id``.
        """
        cmd = build_command(table, columns=columns)
        with reraise(table):
            return self._flight.get_schema(descriptor(cmd), options=self._options).schema

    def _action(self, kind: str, body: Mapping[str, Any], table: str | None) -> Any:
        # The server splits a long answer (a JSON array or object) over
        # several results of bounded size: join them in order.
        action = fl.Action(kind, json.dumps(body).encode())
        answer: Any = None
        with reraise(table):
            for result in self._flight.do_action(action, options=self._options):
                page = json.loads(result.body.to_pybytes())
                if answer is None:
                    answer = page
                elif isinstance(answer, list):
                    answer.extend(page)
                else:
                    answer.update(page)
        return answer

    def snapshots(self, table: str) -> list[Snapshot]:
        """Return a table's snapshots, oldest first.

        Parameters
        ----------
        table : str
            Table name.

        Returns
        -------
        list of Snapshot
        """
        return [Snapshot.from_json(s) for s in self._action("snapshots", {"table": table}, table) or []]

    def refs(self, table: str) -> dict[str, Ref]:
        """Return a table's branches and tags by name.

        Parameters
        ----------
        table : str
            Table name.

        Returns
        -------
        dict of str to Ref
        """
        return {name: Ref.from_json(r) for name, r in (self._action("refs", {"table": table}, table) or {}).items()}

    def refresh(self, table: str | None = None) -> None:
        """Make the server look up a table's current metadata now.

        Parameters
        ----------
        table : str, optional
            Table name; every table when omitted.
        """
        self._action("refresh", {"table": table} if table else {}, table)

    def plan(
        self,
        table: str,
        columns: Sequence[str] | None = None,
        filter: Filter | None = None,
        snapshot_id: int | None = None,
        as_of: Timestamp | None = None,
        ref: str | None = None,
        limit: int | None = None,
        **options: Any,
    ) -> Plan:
        """Plan a scan: the server prunes files and answers with endpoints.

        Parameters
        ----------
        table : str
            Table name, e.g. ``"samples.trips"``.
        columns : sequence of str, optional
            Columns to read, in this order (default: all). Dotted names
            reach into structs; ``_file``, ``_pos`` and the other metadata
            columns may be named. ``[]`` reads no column, only row counts.
        filter : str or dict, optional
            Row filter in the server's string syntax
            (``"fare > 10 AND vendor IN ('a', 'b')"``) or as an Iceberg REST
            ``Expression`` dict.
        snapshot_id : int, optional
            Read this snapshot (with the schema it was written with).
        as_of : datetime.datetime or int, optional
            Read the snapshot current at this time: a datetime (naive means
            UTC) or milliseconds since the epoch.
        ref : str, optional
            Read this branch or tag.
        limit : int, optional
            Stop after this many rows.
        **options
            ``max_endpoints``, ``target_split_bytes``, ``case_sensitive``,
            ``dictionary`` (``True`` or column names: string and binary
            columns as Arrow dictionaries, see :func:`build_command`),
            ``metadata_table`` (see :meth:`inspect`), ``tickets``
            (``"files"`` or ``"manifests"``, see :func:`build_command`).

        Returns
        -------
        Plan

        Raises
        ------
        iceflight.errors.TableNotFoundError
            No table of that name.
        iceflight.errors.SnapshotNotFoundError
            No such snapshot, branch, tag or snapshot at that time.
        iceflight.errors.InvalidRequestError
            Unknown column, bad filter or option.
        """
        cmd = build_command(table, columns, filter, snapshot_id, as_of, ref, limit, **options)
        with reraise(table):
            info = self._flight.get_flight_info(descriptor(cmd), options=self._options)
        return Plan.from_flight_info(self, table, info)

    def read(self, table: str, *args: Any, dictionaries: str = "keep", **kwargs: Any) -> pa.Table:
        """Read a table into memory; takes the arguments of :meth:`plan`.

        Endpoints are read in parallel and concatenated in plan order.

        Parameters
        ----------
        dictionaries : {"keep", "unify", "decode"}
            With ``dictionary=``: keep each batch's dictionary, unify them
            per column, or decode to plain columns (see :meth:`Plan.read`).

        Returns
        -------
        pyarrow.Table
        """
        return self.plan(table, *args, **kwargs).read(dictionaries)

    def scan(self, table: str, *args: Any, **kwargs: Any) -> pa.RecordBatchReader:
        """Stream a table's batches; takes the arguments of :meth:`plan`.

        Memory stays bounded whatever the table's size; see
        :meth:`Plan.scan`.

        Returns
        -------
        pyarrow.RecordBatchReader
        """
        return self.plan(table, *args, **kwargs).scan()

    def inspect(self, table: str, kind: str, *args: Any, **kwargs: Any) -> pa.Table:
        """Read one of a table's metadata tables; takes the other arguments of :meth:`plan`.

        Parameters
        ----------
        table : str
            Table name.
        kind : str
            The metadata table, by Iceberg Java's name: ``snapshots``,
            ``history``, ``refs``, ``manifests``, ``all_manifests``,
            ``files``, ``data_files``, ``delete_files``, ``all_files``,
            ``all_data_files``, ``all_delete_files``, ``entries``,
            ``all_entries``, ``partitions`` or ``metadata_log_entries``.
            Its columns and types are Java's (``readable_metrics``
            included); ``columns`` and ``filter`` name them, and
            ``snapshot_id``, ``as_of`` and ``ref`` read the tables of one
            snapshot as of another.

        Returns
        -------
        pyarrow.Table
        """
        return self.plan(table, *args, metadata_table=kind, **kwargs).read()

    def changes(
        self,
        table: str,
        from_snapshot_id: int | None = None,
        to_snapshot_id: int | None = None,
        *,
        from_time: Timestamp | None = None,
        to_time: Timestamp | None = None,
        to_ref: str | None = None,
        compute_updates: bool = False,
        identifier_columns: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> pa.Table:
        """Read the rows inserted and deleted between two snapshots.

        The changes committed after the start (exclusive) up to and
        including the end, as Spark's ``create_changelog_view`` shows them:
        the table's columns, then ``_change_type`` (``INSERT``, ``DELETE``,
        and ``UPDATE_BEFORE``/``UPDATE_AFTER`` with ``compute_updates``),
        ``_change_ordinal`` and ``_commit_snapshot_id``.

        Parameters
        ----------
        table : str
            Table name.
        from_snapshot_id, from_time : optional
            The exclusive start: a snapshot, or the snapshot current at a
            time; neither starts before the table's first snapshot.
        to_snapshot_id, to_time, to_ref : optional
            The end: a snapshot, the snapshot current at a time, or a
            branch or tag; none ends at the current snapshot.
        compute_updates : bool
            Pair a delete and an insert of one identifier in one snapshot
            into an update, by ``identifier_columns`` or the table's
            identifier fields.
        **kwargs
            ``columns`` (the table's), ``filter``, ``limit`` and the other
            options of :meth:`plan`, except a snapshot selection.

        Returns
        -------
        pyarrow.Table
        """
        rng: dict[str, Any] = {}
        if from_snapshot_id is not None:
            rng["from_snapshot_id"] = int(from_snapshot_id)
        if to_snapshot_id is not None:
            rng["to_snapshot_id"] = int(to_snapshot_id)
        if from_time is not None:
            rng["from_timestamp_ms"] = timestamp_ms(from_time)
        if to_time is not None:
            rng["to_timestamp_ms"] = timestamp_ms(to_time)
        if to_ref is not None:
            rng["to_ref"] = to_ref
        if compute_updates:
            rng["compute_updates"] = True
        if identifier_columns is not None:
            rng["identifier_columns"] = list(identifier_columns)
        return self.plan(table, changes=rng, **kwargs).read()

    def to_pandas(self, table: str, *args: Any, **kwargs: Any) -> Any:
        """Read a table into a ``pandas.DataFrame``; takes the arguments of :meth:`plan`."""
        return self.plan(table, *args, **kwargs).to_pandas()

    def to_polars(self, table: str, *args: Any, **kwargs: Any) -> Any:
        """Read a table into a ``polars.DataFrame``; takes the arguments of :meth:`plan`."""
        return self.plan(table, *args, **kwargs).to_polars()

    def to_duckdb(self, table: str, *args: Any, connection: Any = None, **kwargs: Any) -> Any:
        """Read a table into a DuckDB relation; takes the arguments of :meth:`plan`.

        Parameters
        ----------
        connection : duckdb.DuckDBPyConnection, optional
            Connection to create the relation on.
        """
        return self.plan(table, *args, **kwargs).to_duckdb(connection)

    def _endpoint_streams(
        self,
        endpoints: Sequence[fl.FlightEndpoint],
        table: str,
        max_workers: int | None = None,
        max_buffered: int | None = None,
    ) -> EndpointStreams:
        # Plan.streams reads through this (a StreamSource): plan.py does not import this module.
        workers = max_workers or self.max_workers
        return EndpointStreams(
            endpoints,
            self._pool.get,
            self._options,
            table=table,
            max_workers=workers,
            max_buffered=max_buffered or 2 * min(workers, max(1, len(endpoints))),
        )


def connect(
    location: str = "grpc://127.0.0.1:8815",
    token: str | None = None,
    tls_root_certs: bytes | None = None,
    headers: Headers | None = None,
    max_workers: int | None = None,
    *,
    username: str | None = None,
    password: str | None = None,
    cert_chain: bytes | None = None,
    private_key: bytes | None = None,
) -> Client:
    """Connect to an iceflight server.

    The connection is made lazily: the first call reaches the server.

    Parameters
    ----------
    location : str, default "grpc://127.0.0.1:8815"
        Server location; ``grpc+tls://`` for TLS.
    token : str, optional
        Bearer token sent as ``authorization: Bearer TOKEN`` on every call.
    tls_root_certs : bytes, optional
        PEM root certificates to trust for TLS.
    headers : dict or iterable of (str, str), optional
        Extra headers sent on every call.
    max_workers : int, optional
        Most endpoints read at once.
    username, password : str, optional
        Log in with Basic credentials; every call then sends the session
        bearer token the server returns.
    cert_chain, private_key : bytes, optional
        PEM client certificate and key, for mutual TLS.

    Returns
    -------
    Client

    Examples
    --------
    >>> import iceflight
    >>> client = iceflight.connect("grpc://127.0.0.1:8815")
    >>> client.read("samples.trips", columns=["id", "fare"], filter="fare > 10")  # doctest: +SKIP
    """
    return Client(
        location,
        token=token,
        tls_root_certs=tls_root_certs,
        headers=headers,
        max_workers=max_workers,
        username=username,
        password=password,
        cert_chain=cert_chain,
        private_key=private_key,
    )
