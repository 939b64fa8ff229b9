"""Row-level-delete read benchmark: full scans of tables with and without deletes."""

import sys
from pathlib import Path

# bench/, for the helpers this harness shares with planbench (bench/benchkit.py).
_BENCH = str(Path(__file__).resolve().parents[2])
if _BENCH not in sys.path:
    sys.path.append(_BENCH)
