package writer

import (
	"maps"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func dv(size, records int64, partition int32) iceberg.DataFile {
	off := int64(4)
	return iceberg.DataFile{Content: iceberg.FileContentPositionDeletes, Format: "PUFFIN", Path: "s3://t/data/x.puffin",
		FileSize: 9999, ContentOffset: &off, ContentSizeInBytes: &size, RecordCount: records, Partition: []any{partition}}
}

// The expected summaries are those Iceberg Java 1.12 wrote for the
// fixture tables named (testdata/warehouse/samples/dv_many_files and
// testdata/writers/spark/db/mor_v3), without "iceberg-version" and the
// Spark keys; the files are split to give Java's sums.
func TestSummaryAsJavaWritesIt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		op   string
		prev map[string]string // nil: first snapshot
		fill func(b *summaryBuilder)
		want map[string]string
	}{
		{
			name: "first append of ten files in two partitions (dv_many_files v2)",
			op:   "append",
			fill: func(b *summaryBuilder) {
				b.manifestsCreated = 1
				for i := range 10 {
					b.addedFile(iceberg.DataFile{Content: iceberg.FileContentData, Path: "d", RecordCount: 40, FileSize: map[bool]int64{true: 1129, false: 1120}[i == 0], Partition: []any{int32(i % 2)}})
				}
			},
			want: map[string]string{"operation": "append", "manifests-created": "1", "manifests-kept": "0", "manifests-replaced": "0",
				"added-data-files": "10", "added-records": "400", "added-files-size": "11209", "changed-partition-count": "2",
				"total-records": "400", "total-files-size": "11209", "total-data-files": "10", "total-delete-files": "0",
				"total-position-deletes": "0", "total-equality-deletes": "0"},
		},
		{
			name: "deletion vectors replace older ones and count their blob, not the Puffin file (dv_many_files v4)",
			op:   "delete",
			prev: map[string]string{"total-records": "400", "total-files-size": "11654", "total-data-files": "10", "total-delete-files": "9",
				"total-position-deletes": "141", "total-equality-deletes": "0"},
			fill: func(b *summaryBuilder) {
				b.manifestsCreated, b.manifestsKept, b.manifestsReplaced = 2, 1, 1
				b.addedFile(dv(70, 15, 0))
				b.addedFile(dv(68, 14, 1))
				b.removedFile(dv(62, 11, 0))
				b.removedFile(dv(62, 11, 1))
			},
			want: map[string]string{"operation": "delete", "manifests-created": "2", "manifests-kept": "1", "manifests-replaced": "1",
				"added-delete-files": "2", "removed-delete-files": "2", "added-dvs": "2", "removed-dvs": "2",
				"added-files-size": "138", "removed-files-size": "124", "added-position-deletes": "29", "removed-position-deletes": "22",
				"changed-partition-count": "2", "total-records": "400", "total-files-size": "11668", "total-data-files": "10",
				"total-delete-files": "9", "total-position-deletes": "148", "total-equality-deletes": "0"},
		},
		{
			name: "a whole data file removed (mor_v3 v6)",
			op:   "delete",
			prev: map[string]string{"total-records": "38", "total-files-size": "14832", "total-data-files": "9", "total-delete-files": "3",
				"total-position-deletes": "15", "total-equality-deletes": "0"},
			fill: func(b *summaryBuilder) {
				b.manifestsCreated, b.manifestsKept, b.manifestsReplaced = 1, 4, 1
				b.removedFile(iceberg.DataFile{Content: iceberg.FileContentData, Path: "d", RecordCount: 1, FileSize: 1753, Partition: []any{"a"}})
			},
			want: map[string]string{"operation": "delete", "manifests-created": "1", "manifests-kept": "4", "manifests-replaced": "1",
				"deleted-data-files": "1", "deleted-records": "1", "removed-files-size": "1753", "changed-partition-count": "1",
				"total-records": "37", "total-files-size": "13079", "total-data-files": "8", "total-delete-files": "3",
				"total-position-deletes": "15", "total-equality-deletes": "0"},
		},
		{
			name: "a total the parent lacks stays absent (SnapshotProducer.updateTotal)",
			op:   "append",
			prev: map[string]string{"total-records": "5"},
			fill: func(b *summaryBuilder) {
				b.addedFile(iceberg.DataFile{Content: iceberg.FileContentData, Path: "d", RecordCount: 2, FileSize: 10})
			},
			want: map[string]string{"operation": "append", "manifests-created": "0", "manifests-kept": "0", "manifests-replaced": "0",
				"added-data-files": "1", "added-records": "2", "added-files-size": "10", "changed-partition-count": "1", "total-records": "7"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newSummaryBuilder()
			c.fill(b)
			got := b.build(c.op, c.prev, c.prev == nil, nil)
			if !maps.Equal(got, c.want) {
				for k, v := range c.want {
					if got[k] != v {
						t.Errorf("%s = %q, want %q", k, got[k], v)
					}
				}
				for k, v := range got {
					if _, ok := c.want[k]; !ok {
						t.Errorf("unexpected %s = %q", k, v)
					}
				}
			}
		})
	}
}

func TestSnapshotPropertiesJoinTheSummary(t *testing.T) {
	t.Parallel()
	got := newSummaryBuilder().build("append", nil, true, map[string]string{"app-id": "x", "operation": "mine"})
	if got["app-id"] != "x" || got["operation"] != "append" {
		t.Fatalf("summary %v: want app-id kept and the operation not overridden", got)
	}
}
