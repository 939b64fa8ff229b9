"""The results: one Markdown table (read.md) and the same figures as JSON (latest.json)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .s3 import Requests

#: Peers in table order; iceflight is the reference of the ratio column.
PEERS = (
    "iceflight",
    "iceflight-1core",
    "iceflight-dict",
    "adbc",
    "adbc-queue",
    "iceflight-zstd",
    "adbc-alias-zstd",
    "pyiceberg",
    "pyarrow",
    "icebergo",
    "transport",
)

LABELS = {
    "iceflight": "iceflight (flightd + Python client)",
    "iceflight-1core": "iceflight, flightd `GOMAXPROCS=1`",
    "iceflight-dict": "iceflight, dictionary pass-through",
    "adbc": "ADBC Flight SQL on the same flightd",
    "adbc-queue": "ADBC Flight SQL, `result_queue_size` 200",
    "iceflight-zstd": "iceflight, flightd `--ipc-compression zstd`",
    "adbc-alias-zstd": "ADBC Flight SQL, every column aliased, same zstd flightd",
    "pyiceberg": "PyIceberg `scan().to_arrow()`",
    "pyarrow": "pyarrow direct (decode limit)",
    "icebergo": "iceberg-go `ToArrowTable`",
    "transport": "bare Flight server (transport limit)",
}


@dataclass
class Result:
    """One peer's runs of one case, or why there are none."""

    case: str
    peer: str
    seconds: list[float] = field(default_factory=list)
    rows: int | None = None
    nbytes: int | None = None
    endpoints: int | None = None
    server_rss_mb: float | None = None
    client_rss_mb: float | None = None
    #: The server's CPU seconds and bytes written (MB, 1e6 bytes) per read of the peer.
    server_cpu_s: float | None = None
    server_sent_mb: float | None = None
    #: The peer's own CPU seconds per timed run, and their median (for iceberg-go, whose
    #: runs report none, its whole process's CPU seconds over its reads, warm-up included).
    client_cpu_seconds: list[float] = field(default_factory=list)
    client_cpu_s: float | None = None
    failure: str | None = None
    #: On S3: the requests the peer sent over ``reads`` reads of a case of ``files`` files.
    requests: Requests | None = None
    reads: int | None = None
    files: int | None = None

    @property
    def median(self) -> float | None:
        """Median wall seconds, or None."""
        if self.failure is not None or not self.seconds:
            return None
        return statistics.median(self.seconds)

    def as_json(self) -> dict[str, Any]:
        """Return the result with its median, for latest.json."""
        out = {**self.__dict__, "median_seconds": self.median}
        if self.requests is not None:
            out["requests"] = {
                "data": dict(self.requests.data),
                "other": dict(self.requests.other),
            }
        return out

    def per_file(self, op: str) -> str:
        """Return the data-file requests of operation op per read per file, as a cell."""
        if self.requests is None or not self.reads or not self.files:
            return "-"
        return f"{self.requests.data[op] / self.reads / self.files:.2f}"

    def other_per_read(self) -> str:
        """Return the other requests (metadata, manifests, listings) per read, as a cell."""
        if self.requests is None or not self.reads:
            return "-"
        return f"{sum(self.requests.other.values()) / self.reads:.1f}"


HEADER = (
    "| case | peer | rows | median s | M rows/s | MB/s | server peak RSS MB "
    "| client peak RSS MB | server CPU s/read | client CPU s/read | sent MB/read "
    "| time / iceflight |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
)


#: The columns --storage s3 adds: requests at the server, per data file of the case.
REQUEST_HEADER = (
    " data GETs / file | data HEADs / file | other requests / read |",
    " ---: | ---: | ---: |",
)


def render(results: list[Result], case_bytes: dict[str, int], requests: bool = False) -> str:
    """Render the table; MB/s divides the case's Arrow bytes (pyarrow's result) by time.

    With requests, three columns count the requests each peer sent to the S3 server.
    """
    lines = list(HEADER)
    if requests:
        lines = [h + r for h, r in zip(HEADER, REQUEST_HEADER, strict=True)]
    by_key = {(r.case, r.peer): r for r in results}
    warnings = []
    for case in dict.fromkeys(r.case for r in results):
        ref = by_key.get((case, "iceflight"))
        ref_rows = ref.rows if ref is not None else None
        for peer in PEERS:
            res = by_key.get((case, peer))
            if res is None:
                continue
            line = _line(res, ref, case_bytes.get(case))
            if requests:
                cells = [
                    res.per_file("GetObject"),
                    res.per_file("HeadObject"),
                    res.other_per_read(),
                ]
                line += " " + " | ".join(cells) + " |"
            lines.append(line)
            if res.rows is not None and ref_rows is not None and res.rows != ref_rows:
                warnings.append(
                    f"WARNING: {case}: {peer} read {res.rows:,} rows, iceflight {ref_rows:,}"
                )
    if warnings:
        lines += [""] + warnings
    lines += [""] + cpu_summary(results)
    return "\n".join(lines) + "\n"


#: The flightd rows of the CPU summary, and how a line names each.
FLIGHTD_ROWS = {"iceflight": "", "iceflight-1core": ", `GOMAXPROCS=1`"}


def cpu_summary(results: list[Result]) -> list[str]:
    """Return the CPU block: flightd's CPU-s per read over pyarrow's decode CPU-s, per case.

    That ratio is issue #17's headline figure. Each line also gives flightd's CPU seconds
    per million rows delivered.
    """
    lines = [
        "CPU: flightd's CPU-s per read / pyarrow's decode CPU-s (`pq.read_table`, "
        "`use_threads=True`), and flightd's CPU-s per million rows:",
        "",
    ]
    by_key = {(r.case, r.peer): r for r in results}
    for case in dict.fromkeys(r.case for r in results):
        pyarrow = by_key.get((case, "pyarrow"))
        decode = None if pyarrow is None or pyarrow.failure else pyarrow.client_cpu_s
        for peer, suffix in FLIGHTD_ROWS.items():
            res = by_key.get((case, peer))
            if res is None or res.failure is not None:
                continue
            server = res.server_cpu_s
            ratio = "-" if server is None or not decode else f"{server / decode:.2f}×"
            per_m = "-" if server is None or not res.rows else f"{server / res.rows * 1e6:.3f}"
            lines.append(
                f"- {case}{suffix}: flightd {_s(server)} CPU-s per read, "
                f"pyarrow decode {_s(decode)} CPU-s: {ratio}; {per_m} CPU-s per M rows"
            )
    return lines


def _s(value: float | None) -> str:
    """Format CPU seconds: two decimals, three below one second."""
    if value is None:
        return "-"
    return f"{value:.2f}" if value >= 1 else f"{value:.3f}"


def _line(res: Result, ref: Result | None, nbytes: int | None) -> str:
    median = res.median
    if median is None:
        cells = [res.case, LABELS[res.peer], res.failure or "-"] + ["-"] * 9
        return "| " + " | ".join(cells) + " |"
    rows = res.rows or 0
    size = nbytes if nbytes is not None else res.nbytes
    ref_median = ref.median if ref is not None else None
    cells = [
        res.case,
        LABELS[res.peer],
        f"{rows:,}",
        f"{median:.3f}",
        f"{rows / median / 1e6:.2f}",
        "-" if size is None else f"{size / median / 1e6:,.0f}",
        _mb(res.server_rss_mb),
        _mb(res.client_rss_mb),
        _cpu(res.server_cpu_s),
        _cpu(res.client_cpu_s),
        _mb(res.server_sent_mb),
        "-" if ref_median is None else f"{median / ref_median:.2f}x",
    ]
    return "| " + " | ".join(cells) + " |"


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _cpu(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
