"""Read sample tables through an iceflight cluster with the Python client.

Usage: read_tables.py LOCATION TABLE...

Run by cluster_test.go with the interpreter of the .venv that
`make test-python` builds. Each table's current snapshot is read through the
coordinator at LOCATION (its endpoints name the nginx load balancer) and
compared with the Apache Iceberg Java oracle's rows in testdata/expected,
using the canonical form of the client's own tests
(clients/python/tests/_oracle.py). Prints one line per table; exits 1 if
any table differs.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python" / "tests"))

import iceflight  # noqa: E402
from _oracle import arrow_rows, oracle_rows, scan  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    location, tables = argv[0], argv[1:]
    failed = 0
    with iceflight.connect(location) as client:
        for table in tables:
            entry, rows = scan(table)
            got = client.read(table)
            want = oracle_rows(rows, entry["schema"])
            have = arrow_rows(got, entry["schema"])
            if have == want:
                print(f"{table}: {got.num_rows} rows equal")
                continue
            failed += 1
            missing = sorted(set(want) - set(have))[:3]
            extra = sorted(set(have) - set(want))[:3]
            print(f"{table}: got {len(have)} rows, want {len(want)}; missing e.g. {missing}; unexpected e.g. {extra}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
