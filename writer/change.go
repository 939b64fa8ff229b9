package writer

import "github.com/iceflight/iceflight/iceberg"

// change is what one snapshot-producing commit does to the table's files.
// Data and delete file commits (append, overwrite, delete, compaction) all
// describe themselves this way, and one producer (commitChange) writes the
// manifests, manifest list and snapshot for each of them.
type change struct {
	// operation is the snapshot summary's operation: append, overwrite,
	// delete or replace.
	operation string
	// branch is the branch committed to ("" is main).
	branch       string
	addedData    []iceberg.DataFile
	addedDeletes []iceberg.DataFile
	// removed are the data and delete files the commit removes, by
	// location. Each must still be live in the snapshot the change is
	// applied to, or the attempt is a conflict (a compaction or delete
	// raced with another that removed the file).
	removed map[string]struct{}
	// summary is added to the snapshot summary.
	summary map[string]string
	// written are files build wrote for this attempt alone (delete files
	// of a delete, say); they are removed when the attempt fails. Files
	// reused by every attempt (an append's data files) are not listed:
	// their owner removes them when the whole commit fails.
	written []string
}
