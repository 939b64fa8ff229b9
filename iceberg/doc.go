// Package iceberg models the Apache Iceberg table format as data: types and
// schemas, partition specs and transforms, sort orders, table metadata (format
// versions 1 to 3), snapshots and refs, and the entries of manifest lists and
// manifests (read and written in Avro by iceberg/manifest).
//
// The package performs no I/O of its own: decoders take bytes or an
// io.Reader, so callers choose where bytes come from and how they are cached.
package iceberg
