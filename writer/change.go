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
	// scopes are the (content, spec) pairs of the files remove recorded,
	// scoped how many it recorded: when that is every removed file, only
	// manifests of those pairs can hold one and the others are not read.
	scopes map[scope]bool
	scoped int
}

// scope is a manifest's kind of files: content and partition spec.
type scope struct {
	content iceberg.ManifestContent
	spec    int
}

// remove records a live file the change removes.
func (ch *change) remove(df iceberg.DataFile) {
	if ch.removed == nil {
		ch.removed = map[string]struct{}{}
	}
	k := fileKey(df)
	if _, dup := ch.removed[k]; dup {
		return
	}
	ch.removed[k] = struct{}{}
	if ch.scopes == nil {
		ch.scopes = map[scope]bool{}
	}
	content := iceberg.ManifestContentDeletes
	if df.Content == iceberg.FileContentData {
		content = iceberg.ManifestContentData
	}
	ch.scopes[scope{content, df.SpecID}] = true
	ch.scoped++
}

// mayHoldRemoved reports whether a manifest may hold a removed file.
func (ch *change) mayHoldRemoved(mf iceberg.ManifestFile) bool {
	if len(ch.removed) == 0 {
		return false
	}
	return ch.scoped != len(ch.removed) || ch.scopes[scope{mf.Content, mf.SpecID}]
}

// fileKey names a data or delete file in change.removed: its location,
// and for a deletion vector "location@offset".
func fileKey(df iceberg.DataFile) string {
	if df.Format == "PUFFIN" && df.ContentOffset != nil {
		return fmt.Sprintf("%s@%d", df.Path, *df.ContentOffset)
	}
	return df.Path
}
