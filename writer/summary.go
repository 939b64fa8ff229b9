package writer

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
)

// summaryBuilder counts what a snapshot adds and removes, under the names
// and rules of Iceberg Java's SnapshotSummary.Builder.
type summaryBuilder struct {
	addedDataFiles, deletedDataFiles           int64
	addedDeleteFiles, removedDeleteFiles       int64
	addedPosDeleteFiles, removedPosDeleteFiles int64
	addedEqDeleteFiles, removedEqDeleteFiles   int64
	addedDVs, removedDVs                       int64
	addedRecords, deletedRecords               int64
	addedSize, removedSize                     int64
	addedPosDeletes, removedPosDeletes         int64
	addedEqDeletes, removedEqDeletes           int64
	partitions                                 map[string]struct{}
	// Manifests written, carried over unchanged, and rewritten.
	manifestsCreated, manifestsKept, manifestsReplaced int64
}

func newSummaryBuilder() *summaryBuilder {
	return &summaryBuilder{partitions: map[string]struct{}{}}
}

// isDV reports whether a delete file is a v3 deletion vector.
func isDV(df iceberg.DataFile) bool {
	return df.Content == iceberg.FileContentPositionDeletes && df.Format == "PUFFIN"
}

// fileSize is the size Java counts for a file: a deletion vector's blob,
// not its whole Puffin file (ScanTaskUtil.contentSizeInBytes).
func fileSize(df iceberg.DataFile) int64 {
	if isDV(df) && df.ContentSizeInBytes != nil {
		return *df.ContentSizeInBytes
	}
	return df.FileSize
}

func (b *summaryBuilder) partition(df iceberg.DataFile) {
	b.partitions[fmt.Sprintf("%d/%#v", df.SpecID, df.Partition)] = struct{}{}
}

func (b *summaryBuilder) addedFile(df iceberg.DataFile) {
	b.partition(df)
	b.addedSize += fileSize(df)
	switch df.Content {
	case iceberg.FileContentData:
		b.addedDataFiles++
		b.addedRecords += df.RecordCount
	case iceberg.FileContentPositionDeletes:
		b.addedDeleteFiles++
		if isDV(df) {
			b.addedDVs++
		} else {
			b.addedPosDeleteFiles++
		}
		b.addedPosDeletes += df.RecordCount
	case iceberg.FileContentEqualityDeletes:
		b.addedDeleteFiles++
		b.addedEqDeleteFiles++
		b.addedEqDeletes += df.RecordCount
	}
}

func (b *summaryBuilder) removedFile(df iceberg.DataFile) {
	b.partition(df)
	b.removedSize += fileSize(df)
	switch df.Content {
	case iceberg.FileContentData:
		b.deletedDataFiles++
		b.deletedRecords += df.RecordCount
	case iceberg.FileContentPositionDeletes:
		b.removedDeleteFiles++
		if isDV(df) {
			b.removedDVs++
		} else {
			b.removedPosDeleteFiles++
		}
		b.removedPosDeletes += df.RecordCount
	case iceberg.FileContentEqualityDeletes:
		b.removedDeleteFiles++
		b.removedEqDeleteFiles++
		b.removedEqDeletes += df.RecordCount
	}
}

// build returns the summary of a snapshot with operation op whose parent
// has summary prev (first: there is no parent, so totals start at 0),
// with the caller's extra properties under Java's own.
func (b *summaryBuilder) build(op string, prev map[string]string, first bool, extra map[string]string) map[string]string {
	s := map[string]string{}
	maps.Copy(s, extra)
	// SnapshotProducer.summary writes these three always.
	s["manifests-created"] = strconv.FormatInt(b.manifestsCreated, 10)
	s["manifests-kept"] = strconv.FormatInt(b.manifestsKept, 10)
	s["manifests-replaced"] = strconv.FormatInt(b.manifestsReplaced, 10)
	setIf := func(key string, v int64) {
		if v > 0 {
			s[key] = strconv.FormatInt(v, 10)
		}
	}
	setIf("added-data-files", b.addedDataFiles)
	setIf("deleted-data-files", b.deletedDataFiles)
	setIf("added-equality-delete-files", b.addedEqDeleteFiles)
	setIf("removed-equality-delete-files", b.removedEqDeleteFiles)
	setIf("added-position-delete-files", b.addedPosDeleteFiles)
	setIf("removed-position-delete-files", b.removedPosDeleteFiles)
	setIf("added-dvs", b.addedDVs)
	setIf("removed-dvs", b.removedDVs)
	setIf("added-delete-files", b.addedDeleteFiles)
	setIf("removed-delete-files", b.removedDeleteFiles)
	setIf("added-records", b.addedRecords)
	setIf("deleted-records", b.deletedRecords)
	setIf("added-files-size", b.addedSize)
	setIf("removed-files-size", b.removedSize)
	setIf("added-position-deletes", b.addedPosDeletes)
	setIf("removed-position-deletes", b.removedPosDeletes)
	setIf("added-equality-deletes", b.addedEqDeletes)
	setIf("removed-equality-deletes", b.removedEqDeletes)
	s["changed-partition-count"] = strconv.Itoa(len(b.partitions))

	if first {
		prev = map[string]string{}
		for _, k := range []string{"total-records", "total-files-size", "total-data-files", "total-delete-files", "total-position-deletes", "total-equality-deletes"} {
			prev[k] = "0"
		}
	}
	// SnapshotProducer.updateTotal: a total the parent lacks stays absent,
	// and one that would go negative is dropped.
	total := func(key string, added, removed int64) {
		p, ok := prev[key]
		if !ok {
			return
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return
		}
		if n += added - removed; n >= 0 {
			s[key] = strconv.FormatInt(n, 10)
		}
	}
	total("total-records", b.addedRecords, b.deletedRecords)
	total("total-files-size", b.addedSize, b.removedSize)
	total("total-data-files", b.addedDataFiles, b.deletedDataFiles)
	total("total-delete-files", b.addedDeleteFiles, b.removedDeleteFiles)
	total("total-position-deletes", b.addedPosDeletes, b.removedPosDeletes)
	total("total-equality-deletes", b.addedEqDeletes, b.removedEqDeletes)
	s["operation"] = op
	return s
}
