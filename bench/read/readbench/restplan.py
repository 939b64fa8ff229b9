"""Planning through a REST catalog: what a warm GetFlightInfo costs the catalog.

The Iceberg REST catalog fixture (tools/javaref ``restserver``: Iceberg Java's
RESTCatalogAdapter over a JdbcCatalog behind Jetty, the program ``make servers-rest``
installs; flags as testkit/servers/restfixture passes them) writes its sample tables
through the REST API with Iceberg Java. A counting reverse proxy in this process sits
between flightd (``type: rest``, ``uri`` the proxy) and the fixture and records every
request with its answer's status. One untimed GetFlightInfo loads the table; then
``calls`` more on the unchanged table, each counted on its own:

- with flightd's default ``--metadata-refresh`` (5 s), the calls come within the refresh
  interval and should cost no request;
- with ``--metadata-refresh 1ns`` every call revalidates, which should cost one
  conditional GET (``If-None-Match``) answered 304 when the server sends ETags.
"""

from __future__ import annotations

import http.client
import http.server
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import TracebackType

from . import procs

#: One request the proxy forwarded: method, path, the answer's status, and whether it
#: was conditional (carried If-None-Match).
Exchange = tuple[str, str, int, bool]
#: One refresh setting's figures: label, the cold call's requests, each warm call's
#: requests, the warm calls' median seconds.
Row = tuple[str, list[Exchange], list[list[Exchange]], float]

#: The fixture's sample table planned (Options.Samples of testkit/servers/restfixture).
TABLE = "demo.trips"
CATALOG = "rest"


class CountingProxy:
    """A loopback HTTP reverse proxy that forwards to upstream and records each exchange."""

    def __init__(self, upstream_port: int) -> None:
        self.seen: list[Exchange] = []
        lock = threading.Lock()
        seen = self.seen

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                with lock:
                    seen.append(
                        (self.command, self.path, resp.status, "If-None-Match" in self.headers)
                    )
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_HEAD = do_DELETE = _forward  # noqa: N815

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> CountingProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()


class Fixture(procs.Stopped):
    """The REST fixture over a temporary folder, with its sample tables."""

    def __init__(self, program: Path) -> None:
        self._program = program
        self._dir = Path(tempfile.mkdtemp(prefix="readbench-rest-"))
        self.port = procs.free_port()
        self._proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> Fixture:
        wh = self._dir / "warehouse"
        wh.mkdir()
        self._proc = subprocess.Popen(
            [
                str(self._program),
                "--port",
                str(self.port),
                "--warehouse",
                "file:" + str(wh),
                "--samples",
                str(self._dir / "samples"),
                "--prop",
                "uri=jdbc:sqlite:" + str(self._dir / "catalog.db"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            if line.strip() == "ready":
                break
        else:
            self._stop()
            raise RuntimeError("REST fixture exited before it was ready")
        # Keep draining its stdout so that it never blocks on a full pipe.
        threading.Thread(target=self._proc.stdout.read, daemon=True).start()
        return self

    def _stop(self) -> None:
        if self._proc is not None:
            procs.stop(self._proc)
            self._proc = None
        shutil.rmtree(self._dir, ignore_errors=True)


def measure(flightd: Path, program: Path, root: Path, calls: int = 10) -> str:
    """Run both refresh settings and return the Markdown section of the results."""
    import iceflight

    from . import procs

    rows: list[Row] = []
    with Fixture(program) as fixture, CountingProxy(fixture.port) as proxy:
        config = root / "flightd-rest.yaml"
        config.write_text(f"catalogs:\n  {CATALOG}:\n    type: rest\n    uri: {proxy.uri}\n")
        for label, refresh in (("default (5s)", None), ("1ns (revalidate every call)", "1ns")):
            argv = [str(flightd), "serve", "--config", str(config), "--listen", "127.0.0.1:0"]
            argv += ["--log-level", "warn"]
            if refresh is not None:
                argv += ["--metadata-refresh", refresh]
            with procs.Server(argv) as server:
                client = iceflight.connect(server.location)
                name = f"{CATALOG}.{TABLE}"
                before = len(proxy.seen)
                client.plan(name)
                cold = proxy.seen[before:]
                per_call: list[list[Exchange]] = []
                elapsed = []
                for _ in range(calls):
                    before = len(proxy.seen)
                    start = time.perf_counter()
                    client.plan(name)
                    elapsed.append(time.perf_counter() - start)
                    per_call.append(proxy.seen[before:])
            rows.append((label, cold, per_call, sorted(elapsed)[len(elapsed) // 2]))
    return _render(rows, calls)


def _last(path: str) -> str:
    """Return the last segment of a request path, without its query (``trips``, ``config``)."""
    return path.split("?")[0].rstrip("/").rsplit("/", 1)[-1] or path


def _describe(exchanges: list[Exchange]) -> str:
    if not exchanges:
        return "none"
    kinds = Counter(
        f"{m} {'conditional ' if cond else ''}{_last(path)} → {st}"
        for m, path, st, cond in exchanges
    )
    return ", ".join(f"{n}× {k}" for k, n in sorted(kinds.items()))


def _render(rows: list[Row], calls: int) -> str:
    lines = [
        "## Planning through the REST catalog",
        "",
        f"`{CATALOG}.{TABLE}` of the Iceberg Java REST fixture (tools/javaref `restserver`), "
        "requests counted by a reverse proxy in front of it; one cold GetFlightInfo, then "
        f"{calls} warm ones on the unchanged table, one after another.",
        "",
        "| `--metadata-refresh` | cold call | requests per warm call "
        "| warm calls with no request | warm call median ms |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for label, cold, per_call, median in rows:
        total = sum(len(c) for c in per_call)
        none = sum(1 for c in per_call if not c)
        every = [x for c in per_call for x in c]
        lines.append(
            f"| {label} | {_describe(cold)} | {total / calls:.1f} ({_describe(every)}) "
            f"| {none} of {calls} | {median * 1000:.1f} |"
        )
    return "\n".join(lines) + "\n"
