"""Read a manifest list and its manifests with PyIceberg; print them as JSON.

Used by pyiceberg_test.go: bytes print as hex, decimals as strings,
UUIDs as the hex of their 16 bytes, enums by value.
"""

import collections.abc
import decimal
import enum
import json
import sys
import uuid

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import read_manifest_list


def plain(v):
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, decimal.Decimal):
        return {"decimal": str(v)}
    if isinstance(v, uuid.UUID):
        return {"hex": v.bytes.hex()}
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, collections.abc.Mapping):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def main() -> None:
    io = PyArrowFileIO()
    out = []
    for mf in read_manifest_list(io.new_input(sys.argv[1])):
        m = {
            "path": mf.manifest_path,
            "length": mf.manifest_length,
            "spec_id": mf.partition_spec_id,
            "content": plain(mf.content),
            "sequence_number": mf.sequence_number,
            "min_sequence_number": mf.min_sequence_number,
            "added_snapshot_id": mf.added_snapshot_id,
            "counts": [mf.added_files_count, mf.existing_files_count, mf.deleted_files_count,
                       mf.added_rows_count, mf.existing_rows_count, mf.deleted_rows_count],
            "partitions": [
                {"contains_null": s.contains_null, "contains_nan": s.contains_nan,
                 "lower_bound": plain(s.lower_bound), "upper_bound": plain(s.upper_bound)}
                for s in (mf.partitions or [])
            ],
            "entries": [],
        }
        for e in mf.fetch_manifest_entry(io, discard_deleted=False):
            f = e.data_file
            m["entries"].append({
                "status": plain(e.status),
                "snapshot_id": e.snapshot_id,
                "sequence_number": e.sequence_number,
                "file_sequence_number": e.file_sequence_number,
                "content": plain(f.content),
                "file_path": f.file_path,
                "file_format": plain(f.file_format),
                "record_count": f.record_count,
                "file_size_in_bytes": f.file_size_in_bytes,
                "partition": [plain(x) for x in f.partition.record_fields()] if hasattr(f.partition, "record_fields") else plain(list(f.partition)),
                "column_sizes": plain(f.column_sizes),
                "lower_bounds": plain(f.lower_bounds),
                "equality_ids": plain(f.equality_ids),
            })
        out.append(m)
    json.dump({"manifests": out}, sys.stdout)


if __name__ == "__main__":
    main()
