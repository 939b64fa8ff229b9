"""Exceptions raised by the iceflight client.

The server answers with gRPC status codes (NotFound, InvalidArgument,
Unimplemented, Unavailable, ...), which pyarrow turns into its own
exceptions. The client re-raises the ones a caller branches on as the
subclasses below; each is also an instance of the exception pyarrow would
have raised (``pyarrow.ArrowKeyError`` for NotFound, ``pyarrow.ArrowInvalid``
for InvalidArgument, ``pyarrow.ArrowNotImplementedError`` for
Unimplemented), so existing ``except`` clauses keep working. Transport
errors (``FlightUnavailableError``, ``FlightUnauthenticatedError``, ...)
keep pyarrow's class, with the table named in the message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.flight as fl

__all__ = [
    "IceflightError",
    "NotFoundError",
    "TableNotFoundError",
    "SnapshotNotFoundError",
    "InvalidRequestError",
    "UnsupportedError",
    "translate",
]


class IceflightError(fl.FlightError):  # type: ignore[misc]
    """Base class of the errors this package raises.

    Parameters
    ----------
    message : str
        What went wrong, naming the table.
    table : str, optional
        The table the failed call was about.
    extra_info : bytes, default b""
        Binary error details sent by the server, if any.

    Attributes
    ----------
    table : str or None
        The table the failed call was about.
    """

    def __init__(self, message: str, table: str | None = None, extra_info: bytes = b"") -> None:
        super().__init__(message, extra_info)
        self.table = table


class NotFoundError(IceflightError, pa.ArrowKeyError):  # type: ignore[misc]
    """A table, snapshot, branch, tag or file does not exist (gRPC NotFound)."""


class TableNotFoundError(NotFoundError):
    """The catalog has no table of that name."""


class SnapshotNotFoundError(NotFoundError):
    """The table has no such snapshot id, branch or tag, or no snapshot at that time."""


class InvalidRequestError(IceflightError, pa.ArrowInvalid):  # type: ignore[misc]
    """The command was refused: unknown column, bad filter, bad option (gRPC InvalidArgument)."""


class UnsupportedError(IceflightError, pa.ArrowNotImplementedError):  # type: ignore[misc]
    """The table uses a feature the server cannot read yet (gRPC Unimplemented)."""


# pyarrow prefixes the server's message with the status it came with.
_PREFIX = re.compile(r"^Flight returned [^,]* error, with message: ")
# pyarrow appends the gRPC debug context, which repeats the message.
_DEBUG = re.compile(r"\. gRPC client debug context: .*$", re.S)


def server_message(exc: BaseException) -> str:
    """Return the server's own message from a pyarrow Flight exception.

    Parameters
    ----------
    exc : BaseException
        An exception raised by a pyarrow Flight call.

    Returns
    -------
    str
        The message without pyarrow's "Flight returned ... error" prefix
        and gRPC debug context.
    """
    return _DEBUG.sub("", _PREFIX.sub("", str(exc)))


def _named(message: str, table: str | None) -> str:
    if table and table not in message:
        return f"table {table}: {message}"
    return message


def translate(exc: BaseException, table: str | None = None) -> BaseException:
    """Map an exception from a pyarrow Flight call to the one to raise.

    Parameters
    ----------
    exc : BaseException
        The exception pyarrow raised.
    table : str, optional
        The table the call was about; added to the message when the
        server's message does not name it already.

    Returns
    -------
    BaseException
        An :class:`IceflightError` subclass for NotFound, InvalidArgument
        and Unimplemented; the same pyarrow Flight exception class with the
        table named for other Flight errors; ``exc`` itself otherwise.
    """
    if isinstance(exc, IceflightError):
        return exc
    extra = getattr(exc, "extra_info", b"") or b""
    msg = _named(server_message(exc), table)
    if isinstance(exc, pa.ArrowKeyError):
        if "table not found" in msg:
            return TableNotFoundError(msg, table, extra)
        if "snapshot not found" in msg:
            return SnapshotNotFoundError(msg, table, extra)
        return NotFoundError(msg, table, extra)
    if isinstance(exc, pa.ArrowNotImplementedError):
        return UnsupportedError(msg, table, extra)
    if isinstance(exc, pa.ArrowInvalid) and not isinstance(exc, fl.FlightError):
        return InvalidRequestError(msg, table, extra)
    if isinstance(exc, fl.FlightError) and table and table not in str(exc):
        named: BaseException = type(exc)(_named(str(exc), table), extra)
        return named
    return exc


@contextmanager
def reraise(table: str | None) -> Iterator[None]:
    """Re-raise pyarrow exceptions of the enclosed call as :func:`translate` says.

    Parameters
    ----------
    table : str or None
        The table the enclosed call is about.
    """
    try:
        yield
    except pa.ArrowException as exc:
        new = translate(exc, table)
        if new is exc:
            raise
        raise new from exc
