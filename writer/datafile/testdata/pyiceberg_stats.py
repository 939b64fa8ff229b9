"""Metrics of a Parquet data file as PyIceberg computes them.

Usage: pyiceberg_stats.py FILE SCHEMA_JSON PROPERTIES_JSON

Prints one JSON object: PyIceberg's DataFileStatistics for FILE under the
Iceberg schema (its column sizes, value and null counts, bounds in the
single-value serialization as hex, split offsets), the field ids pyarrow
reads from the file's schema, and the rows pyarrow reads.
"""

import json
import sys

import pyarrow.parquet as pq
from pyiceberg.io.pyarrow import (
    compute_statistics_plan,
    data_file_statistics_from_parquet_metadata,
    parquet_path_to_id_mapping,
)
from pyiceberg.schema import Schema


def main() -> None:
    path, schema_json, props_json = sys.argv[1:4]
    schema = Schema.model_validate_json(schema_json)
    props = json.loads(props_json)
    meta = pq.read_metadata(path)
    stats = data_file_statistics_from_parquet_metadata(
        parquet_metadata=meta,
        stats_columns=compute_statistics_plan(schema, props),
        parquet_column_mapping=parquet_path_to_id_mapping(schema),
    )
    d = stats.to_serialized_dict()
    arrow_schema = pq.read_schema(path)
    ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in arrow_schema if f.metadata}
    rows = pq.read_table(path).to_pylist()
    out = {
        "record_count": d["record_count"],
        "column_sizes": {str(k): v for k, v in d["column_sizes"].items()},
        "value_counts": {str(k): v for k, v in d["value_counts"].items()},
        "null_value_counts": {str(k): v for k, v in d["null_value_counts"].items()},
        "lower_bounds": {str(k): v.hex() for k, v in d["lower_bounds"].items()},
        "upper_bounds": {str(k): v.hex() for k, v in d["upper_bounds"].items()},
        "split_offsets": d["split_offsets"],
        "field_ids": ids,
        "rows": rows,
    }
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
