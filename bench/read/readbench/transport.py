"""The Flight transport limit: a bare Flight server that serves batches already in memory.

``python -m readbench.transport CASE --root DIR --endpoints K`` reads the case's rows with
pyarrow (the same files and filter as the ``pyarrow`` peer) before it listens, cuts them
into K endpoints of consecutive rows, and answers any GetFlightInfo with those endpoints
and any DoGet with one slice, straight from memory (pyarrow's C++ ``RecordBatchStream``).
No planning, no Parquet decoding: what is left is gRPC, Arrow IPC and the client.

The first line on stdout is ``transport listening on grpc://HOST:PORT``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.flight as fl

from . import cases
from .child import data_files


class MemoryServer(fl.FlightServerBase):  # type: ignore[misc]  # pyarrow ships no stubs
    """Serve the slices of one in-memory table, whatever the descriptor asks."""

    def __init__(self, table: pa.Table, endpoints: int) -> None:
        super().__init__("grpc://127.0.0.1:0")
        step = max(1, -(-table.num_rows // max(1, endpoints)))
        self._table = table
        self._slices = [table.slice(i, step) for i in range(0, max(1, table.num_rows), step)]

    def get_flight_info(
        self, context: fl.ServerCallContext, descriptor: fl.FlightDescriptor
    ) -> fl.FlightInfo:
        """Return one endpoint per slice, with no location (reuse this connection)."""
        endpoints = [fl.FlightEndpoint(str(i).encode(), []) for i in range(len(self._slices))]
        return fl.FlightInfo(
            self._table.schema, descriptor, endpoints, self._table.num_rows, self._table.nbytes
        )

    def do_get(self, context: fl.ServerCallContext, ticket: fl.Ticket) -> fl.RecordBatchStream:
        """Stream the slice the ticket names."""
        return fl.RecordBatchStream(self._slices[int(ticket.ticket.decode())])


def main() -> None:
    """Load the case's rows, then serve them until terminated."""
    parser = argparse.ArgumentParser(prog="readbench.transport")
    parser.add_argument("case")
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--endpoints", type=int, default=4)
    args = parser.parse_args()
    case = cases.by_name(args.case)
    files = data_files(args.root, case)
    table = ds.dataset(files, format="parquet").to_table(filter=case.pyarrow_filter())
    server = MemoryServer(table, args.endpoints)
    print(f"transport listening on grpc://127.0.0.1:{server.port}", flush=True)
    server.serve()


if __name__ == "__main__":
    main()
