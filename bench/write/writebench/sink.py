"""The DoPut transport limit: a bare Flight server that receives batches and drops them.

``python -m writebench.sink`` listens on a loopback port and answers every DoPut by
reading the whole stream (pyarrow's C++ reader) and keeping nothing: no schema checks,
no Parquet encoding, no commit. What the client spends against it is what reading the
source file and sending it through gRPC and Arrow IPC costs, the floor of any DoPut
append on the same machine.

The first line on stdout is ``sink listening on grpc://HOST:PORT``.
"""

from __future__ import annotations

import pyarrow.flight as fl


class SinkServer(fl.FlightServerBase):  # type: ignore[misc]  # pyarrow ships no stubs
    """Read every DoPut stream to its end and drop it."""

    def do_put(
        self,
        context: fl.ServerCallContext,
        descriptor: fl.FlightDescriptor,
        reader: fl.MetadataRecordBatchReader,
        writer: fl.FlightMetadataWriter,
    ) -> None:
        """Count the rows and answer with the count, as a PutResult's metadata."""
        rows = 0
        for chunk in reader:
            rows += chunk.data.num_rows
        writer.write(str(rows).encode())


def main() -> None:
    """Serve until terminated."""
    server = SinkServer("grpc://127.0.0.1:0")
    print(f"sink listening on grpc://127.0.0.1:{server.port}", flush=True)
    server.serve()


if __name__ == "__main__":
    main()
