// Package metatable serves Iceberg's metadata tables (snapshots, history,
// refs, manifests, all_manifests, files, data_files, delete_files,
// all_files, all_data_files, all_delete_files, entries, all_entries,
// partitions, metadata_log_entries) as Arrow record batches, with the
// columns, types and rows of Iceberg Java's metadata tables.
//
// A scan of a metadata table is planned into Units (Plan) and each unit
// streamed (Read), as a scan of a table's data is: a unit names the
// manifests (or snapshots) it reads and carries the scan's projection and
// filter, and it is plain data a ticket can carry to any worker. Read
// reads one manifest at a time and emits batches of at most a bounded
// number of rows, so a table of a million files streams: what a read
// holds is one manifest's entries and one batch, never the table's files.
// The partitions table aggregates across manifests; its state is one
// record per partition, so it grows with the table's partitions, not its
// files, and it is a single unit.
//
// A filter is an expr.Expr over the metadata table's own columns
// ("partition.day", "data_file.record_count", "readable_metrics.id.lower_bound").
// It prunes what Iceberg Java prunes with it (manifests by their partition
// summaries for the files, entries and partitions tables, manifests by
// content for the entries tables, snapshots for all_manifests) and is then
// applied to every row, as an engine applies a scan's residual.
package metatable
