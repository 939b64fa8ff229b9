"""Streaming file writers of ``iceflight read``: Parquet, CSV and Arrow IPC."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow"}


def output_format(path: str, fmt: str | None) -> str:
    """Return the format to write: ``fmt``, else the one ``path``'s suffix names.

    Standard output (``-``) defaults to CSV.
    """
    if fmt:
        return fmt
    if path == "-":
        return "csv"
    for suffix, name in _SUFFIXES.items():
        if path.lower().endswith(suffix):
            return name
    raise ValueError(f"cannot tell the format of {path!r} from its name: use --format parquet|csv|arrow")


@contextlib.contextmanager
def open_writer(path: str, fmt: str | None, schema: pa.Schema, stdout: IO[str]) -> Iterator[Any]:
    """Open a batch writer for ``path`` and close it on leaving the block.

    Parameters
    ----------
    path : str
        Output file, or ``-`` for standard output.
    fmt : str or None
        ``parquet``, ``csv`` or ``arrow``; None to go by the suffix.
    schema : pyarrow.Schema
        Schema of every batch.
    stdout : file
        The text stream standing for ``-``.

    Yields
    ------
    writer
        An object with ``write_batch(batch)``.
    """
    kind = output_format(path, fmt)
    if kind == "csv":
        nested = [f.name for f in schema if pa.types.is_nested(f.type)]
        if nested:
            raise ValueError(f"CSV cannot hold the nested columns {', '.join(nested)}: write Parquet or Arrow, or pick --columns")
    with contextlib.ExitStack() as stack:
        if path == "-":
            sink: Any = stack.enter_context(contextlib.nullcontext(getattr(stdout, "buffer", stdout)))
        else:
            sink = path
        if kind == "parquet":
            writer: Any = pq.ParquetWriter(sink, schema)
        elif kind == "csv":
            writer = pacsv.CSVWriter(sink, schema)
        else:
            writer = ipc.new_file(sink, schema)
        try:
            yield writer
        finally:
            writer.close()
        if path == "-":
            stdout.flush()
