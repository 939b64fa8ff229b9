"""Read Parquet files with pyarrow and write each as an Arrow IPC file.

Usage: parquet_to_ipc.py DIR

For every DIR/NAME.parquet, writes DIR/NAME.arrow: the table pyarrow reads
(Arrow C++'s Parquet reader), its chunks combined into one batch (an empty
one for an empty table). pqwrite's
differential test compares it with the data it wrote.
"""

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> None:
    for path in sorted(Path(sys.argv[1]).glob("*.parquet")):
        table = pq.read_table(path).combine_chunks()
        with pa.OSFile(str(path.with_suffix(".arrow")), "wb") as sink:
            with pa.ipc.new_file(sink, table.schema) as writer:
                batches = table.to_batches()
                if not batches:
                    # An empty table still gets one (empty) batch, so the
                    # reader in Go finds the columns.
                    batches = [pa.record_batch([pa.array([], type=f.type) for f in table.schema], schema=table.schema)]
                for batch in batches:
                    writer.write_batch(batch)


if __name__ == "__main__":
    main()
