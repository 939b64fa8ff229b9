"""Reading a plan's endpoints in parallel into one bounded queue.

Worker threads take endpoints in plan order and stream each one's record
batches into a queue of bounded size, so memory stays bounded by
``max_buffered`` batches plus one per worker however fast the server is and
however slow the consumer. Each endpoint's locations are tried in order.
When a stream breaks with a retryable error (see :func:`_retryable`), even
after batches were handed out, the ticket is redeemed at the next location,
wrapping around the list, and the rows already handed out are skipped, so
each row arrives exactly once. Closing the streams, an error, or Ctrl-C in
the consumer cancels every open stream.

Resuming rests on one property of the server: a ticket's stream is
deterministic. flightd's DoGet (flight/service.go) reads the ticket's tasks
in ticket order, each through the reader (reader/), which reads the task's
immutable data file row group by row group in file order and removes
deleted and filtered rows row by row; a row limit cuts after the same row.
Any location therefore sends the same rows in the same order; only batch
boundaries may differ (batch size, message size bound), so a resumed read
counts rows, not batches.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, Union

import pyarrow as pa
import pyarrow.flight as fl

from ._connections import REUSE_CONNECTION, location_uri
from .errors import IceflightError, server_message, translate

# How often blocked threads look at the stop flag, in seconds.
_POLL = 0.05
# How long close() waits for the workers once their streams are cancelled.
_JOIN_TIMEOUT = 10.0
# How long a read waits before it redeems a ticket at a location that
# already failed it, in seconds: enough for a restarting worker or a proxy
# to move on, little against a stream's length.
_BACKOFF = 0.1

# Messages of a FlightInternalError that report a connection or stream cut
# under the call rather than a server bug: a peer or proxy resetting the
# HTTP/2 stream (gRPC C++ "Received RST_STREAM", grpc-go "stream terminated
# by RST_STREAM"), a stream that ended without a gRPC status, a closed or
# reset connection. Compared in lower case.
_TRANSPORT_BREAKS = (
    "rst_stream",
    "server closed the stream without sending trailers",
    "transport is closing",
    "connection reset",
    "socket closed",
    "error reading from server",
)


def _retryable(exc: BaseException) -> bool:
    """Whether a failed stream may be redeemed again, here or elsewhere.

    ``FlightUnavailableError`` is: a location that is down, a storage
    outage, or a connection lost (gRPC C++ reports a server killed
    mid-stream as UNAVAILABLE "Stream removed (Socket closed)"). So is a
    ``FlightInternalError`` whose message is one of the transport breaks
    above, and no other: PermissionDenied and Unauthenticated (an expired
    ticket stays expired), NotFound, InvalidArgument, a schema mismatch or
    an Internal bug are answers the next location would repeat.
    """
    if isinstance(exc, fl.FlightUnavailableError):
        return True
    if isinstance(exc, fl.FlightInternalError):
        msg = server_message(exc).lower()
        return any(m in msg for m in _TRANSPORT_BREAKS)
    return False


class _Done:
    """Sent by a worker when it has no more endpoints to read."""


class _Failure:
    """Sent by a worker whose endpoint failed; the consumer raises it."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


_Item = Union[tuple[int, Any], _Failure, _Done]


class _Resume:
    """What a read of one endpoint carries from a broken stream to the next."""

    __slots__ = ("rows", "schema")

    def __init__(self) -> None:
        #: Rows of the endpoint handed to the consumer so far.
        self.rows = 0
        #: Schema of the first stream, which a resumed one must repeat.
        self.schema: pa.Schema | None = None


class EndpointStreams:
    """Streams a plan's endpoints on worker threads.

    Iterating yields ``(endpoint_index, RecordBatch)`` pairs in arrival
    order; batches of one endpoint keep their order. The iterator closes
    the streams when it ends, fails or is closed.

    Parameters
    ----------
    endpoints : sequence of pyarrow.flight.FlightEndpoint
        Endpoints to read.
    connect : callable
        Returns the Flight client for a location URI.
    options : pyarrow.flight.FlightCallOptions
        Call options (headers) for every DoGet.
    table : str
        Table name for error messages.
    max_workers : int
        Most endpoints read at once.
    max_buffered : int
        Most batches waiting for the consumer.
    """

    def __init__(
        self,
        endpoints: Sequence[fl.FlightEndpoint],
        connect: Callable[[str], fl.FlightClient],
        options: fl.FlightCallOptions,
        *,
        table: str,
        max_workers: int,
        max_buffered: int,
    ) -> None:
        if max_workers < 1 or max_buffered < 1:
            raise ValueError("max_workers and max_buffered must be at least 1")
        self._endpoints = list(endpoints)
        self._connect = connect
        self._options = options
        self._table = table
        self._queue: queue.Queue[_Item] = queue.Queue(maxsize=max_buffered)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._next = 0
        self._active: set[Any] = set()
        self._threads: list[threading.Thread] = []
        self._workers = min(max_workers, len(self._endpoints))
        self._started = False
        #: Batches received from the server so far (for tests and progress).
        self.batches_received = 0
        #: Streams redeemed again after a break that followed delivered rows.
        self.resumed = 0

    def __enter__(self) -> EndpointStreams:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[tuple[int, pa.RecordBatch]]:
        return self._consume()

    def _consume(self) -> Iterator[tuple[int, pa.RecordBatch]]:
        self._start()
        running = self._workers
        try:
            while running:
                item = self._get()
                if isinstance(item, _Done):
                    running -= 1
                elif isinstance(item, _Failure):
                    new = translate(item.error, self._table)
                    if new is item.error:
                        raise item.error
                    raise new from item.error
                else:
                    yield item
        finally:
            self.close()

    def _start(self) -> None:
        if self._started:
            raise RuntimeError("endpoint streams can be iterated only once")
        self._started = True
        for i in range(self._workers):
            t = threading.Thread(target=self._work, name=f"iceflight-endpoint-{i}", daemon=True)
            self._threads.append(t)
            t.start()

    def _get(self) -> _Item:
        # A timed wait keeps Ctrl-C deliverable on every platform.
        while True:
            try:
                return self._queue.get(timeout=_POLL * 4)
            except queue.Empty:
                continue

    def _put(self, item: _Item) -> bool:
        """Queue item for the consumer; False once the streams are closed."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def _take(self) -> int | None:
        with self._lock:
            if self._next >= len(self._endpoints):
                return None
            i = self._next
            self._next += 1
            return i

    def _work(self) -> None:
        try:
            while not self._stop.is_set():
                i = self._take()
                if i is None:
                    break
                self._read_endpoint(i)
        except BaseException as exc:  # handed to the consumer, which raises it
            if not self._stop.is_set():
                self._put(_Failure(exc))
        finally:
            self._put(_Done())

    def _read_endpoint(self, index: int) -> None:
        ep = self._endpoints[index]
        uris = [location_uri(loc) for loc in ep.locations] or [REUSE_CONNECTION]
        # Attempts left without a new row: each location once, a single
        # location twice (one retry).
        tries = 2 if len(uris) == 1 else len(uris)
        state = _Resume()
        failures: list[str] = []
        attempt = 0
        while tries > 0:
            uri = uris[attempt % len(uris)]
            # A location that failed this read before gets a moment.
            if attempt >= len(uris) and self._stop.wait(_BACKOFF):
                return
            attempt += 1
            tries -= 1
            before = state.rows
            try:
                self._stream(index, uri, ep.ticket, state)
                return
            except fl.FlightError as exc:
                if self._stop.is_set() or not _retryable(exc):
                    raise
                if state.rows > before:
                    # Progress: every location gets one more turn, the
                    # broken one last; a single location, one retry.
                    tries = len(uris)
                    failures.clear()
                    with self._lock:
                        self.resumed += 1
                failures.append(f"{uri} after {state.rows} rows: {server_message(exc)}")
        raise fl.FlightUnavailableError(
            f"table {self._table}: endpoint {index}: no location could serve it: " + "; ".join(failures)
        )

    def _stream(self, index: int, uri: str, ticket: fl.Ticket, state: _Resume) -> None:
        """Redeem ticket at uri, skip the rows delivered before, queue the rest."""
        reader = self._connect(uri).do_get(ticket, options=self._options)
        self._track(reader)
        try:
            schema = reader.schema
            if state.schema is None:
                state.schema = schema
            elif not schema.equals(state.schema):
                # Skipping rows is only right on the same stream.
                raise IceflightError(
                    f"table {self._table}: endpoint {index}: the stream resumed at {uri} has "
                    f"schema {schema}, the broken one had {state.schema}",
                    self._table,
                )
            skip, seen = state.rows, 0
            while True:
                try:
                    chunk = reader.read_chunk()
                except StopIteration:
                    break
                with self._lock:
                    self.batches_received += 1
                batch = chunk.data
                if batch is None:
                    continue
                seen += batch.num_rows
                if seen <= skip:
                    continue  # delivered before the break
                start = batch.num_rows - (seen - skip)
                if start > 0:
                    # The batch straddles the resume point: a zero-copy
                    # slice of its new rows.
                    batch = batch.slice(start)
                if not self._put((index, batch)):
                    return
                state.rows += batch.num_rows
            if seen < skip:
                raise IceflightError(
                    f"table {self._table}: endpoint {index}: the stream resumed at {uri} ended "
                    f"after {seen} rows, {skip} were delivered before: the streams differ",
                    self._table,
                )
        finally:
            self._untrack(reader)

    def _track(self, reader: Any) -> None:
        with self._lock:
            self._active.add(reader)
        if self._stop.is_set():
            reader.cancel()

    def _untrack(self, reader: Any) -> None:
        with self._lock:
            self._active.discard(reader)

    def close(self) -> None:
        """Cancel every open stream and wait for the workers to stop.

        A worker still connecting (inside DoGet, which cannot be cancelled)
        is left to finish on its own; it reads nothing more.
        """
        self._stop.set()
        with self._lock:
            active = list(self._active)
        for reader in active:
            reader.cancel()
        deadline = time.monotonic() + _JOIN_TIMEOUT
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(max(0.0, deadline - time.monotonic()))
        # Drop what the consumer will never take.
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break

    def alive(self) -> int:
        """Return how many worker threads are still running."""
        return sum(t.is_alive() for t in self._threads)


def batches(streams: EndpointStreams) -> Iterator[pa.RecordBatch]:
    """Yield the batches of streams, closing them when the caller stops."""
    it = iter(streams)
    try:
        for _, batch in it:
            yield batch
    finally:
        streams.close()


class StreamSource(Protocol):
    """What a plan's endpoints are read through: a client's connections.

    :class:`iceflight.Plan` holds one of these (an :class:`iceflight.Client`)
    rather than naming the client class, so that ``client.py`` imports
    ``plan.py`` and not the reverse.
    """

    def _endpoint_streams(
        self,
        endpoints: Sequence[fl.FlightEndpoint],
        table: str,
        max_workers: int | None = None,
        max_buffered: int | None = None,
    ) -> EndpointStreams: ...
