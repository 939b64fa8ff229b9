// Package changelog streams the changes between two snapshots of an
// Iceberg table: the rows each snapshot of the range inserted and
// deleted, each with _change_type, _change_ordinal and
// _commit_snapshot_id, as Spark's create_changelog_view shows them.
//
// Plan walks the range along the end snapshot's ancestry and turns each
// snapshot (its ordinal is its place in the range, replace snapshots
// left out as Iceberg Java leaves them out) into Units of Changes, in
// the three kinds of Iceberg Java's changelog scan tasks: the rows of a
// data file the snapshot added (less the deletes that apply at the
// snapshot), the rows of a data file it removed (less the rows deleted
// before it), and the rows that delete files it added remove from a data
// file it kept (less the rows deleted before it). An append snapshot is
// planned from the manifests it wrote alone, so a range of appends never
// opens a delete manifest; any other snapshot is planned by comparing the
// live files and deletes of the snapshot and of its parent.
//
// Read streams a Unit through the reader. A snapshot that both deletes
// and inserts rows is one unit whose rows are grouped in memory, up to
// WithMaxGroupBytes, to drop the carry-overs (a row deleted and inserted
// unchanged, as copy-on-write rewrites do) and, with ComputeUpdates, to
// pair a delete and an insert of one identifier into update_before and
// update_after, as Spark's view does.
package changelog
