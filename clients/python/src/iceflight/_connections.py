"""One Flight client connection per location, shared by every read."""

from __future__ import annotations

import threading
from typing import Any

import pyarrow.flight as fl

#: The location that means "the connection this plan came from"
#: (Flight RPC spec, arrow-flight-reuse-connection).
REUSE_CONNECTION = "arrow-flight-reuse-connection://?"


def normalize_location(location: str) -> str:
    """Return a location URI, adding ``grpc://`` to a bare ``host:port``.

    Parameters
    ----------
    location : str
        ``grpc://host:port``, ``grpc+tls://host:port`` or ``host:port``.

    Returns
    -------
    str
        The location with a scheme.
    """
    if "://" not in location:
        return "grpc://" + location
    return location


def location_uri(location: Any) -> str:
    """Return the URI of a ``pyarrow.flight.Location``, bytes or str as a str."""
    uri = getattr(location, "uri", location)
    if isinstance(uri, bytes):
        return uri.decode()
    return str(uri)


class ConnectionPool:
    """Flight clients keyed by location, created on first use.

    gRPC channels are safe to share between threads, so every endpoint of
    every read that names a location goes through one client for it. The
    reuse-connection location maps to the origin client, the one plans are
    made on.

    Parameters
    ----------
    origin : str
        Location of the server plans come from.
    **client_kwargs
        Passed to :class:`pyarrow.flight.FlightClient` for every location
        (``tls_root_certs``, ``middleware``, ...).
    """

    def __init__(self, origin: str, **client_kwargs: Any) -> None:
        self.origin = normalize_location(origin)
        self._kwargs = client_kwargs
        self._lock = threading.Lock()
        self._clients: dict[str, fl.FlightClient] = {}
        self._closed = False

    def get(self, location: str) -> fl.FlightClient:
        """Return the client for a location, connecting on first use.

        Parameters
        ----------
        location : str
            A location URI from an endpoint, or :data:`REUSE_CONNECTION`.

        Returns
        -------
        pyarrow.flight.FlightClient
        """
        key = self.origin if location in (REUSE_CONNECTION, "") else location
        with self._lock:
            if self._closed:
                raise fl.FlightCancelledError("the iceflight client is closed")
            client = self._clients.get(key)
            if client is None:
                client = fl.FlightClient(key, **self._kwargs)
                self._clients[key] = client
            return client

    def locations(self) -> list[str]:
        """Return the locations that have a client, in the order they were made."""
        with self._lock:
            return list(self._clients)

    def close(self) -> None:
        """Close every client; later calls to :meth:`get` fail."""
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
            self._closed = True
        for client in clients:
            client.close()
