package writer

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

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
	// fileKey: the location, and for a deletion vector (several share a
	// Puffin file) the location and blob offset. Each must still be live in the snapshot the change is
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

// fileKey names a data or delete file in change.removed: its location,
// and for a deletion vector "location@offset".
func fileKey(df iceberg.DataFile) string {
	if df.Format == "PUFFIN" && df.ContentOffset != nil {
		return fmt.Sprintf("%s@%d", df.Path, *df.ContentOffset)
	}
	return df.Path
}
