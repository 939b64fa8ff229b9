package planner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestDeleteIndex(t *testing.T) {
	t.Parallel()
	specA := iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{{SourceID: 1, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}}}}
	specB := iceberg.PartitionSpec{ID: 2, Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1001, Name: "q", Transform: iceberg.IdentityTransform{}}}}
	unpartitioned := iceberg.PartitionSpec{ID: 0}
	file := func(content iceberg.FileContent, spec iceberg.PartitionSpec, seq int64, path string, part ...any) liveFile {
		return liveFile{spec: spec, entry: &iceberg.ManifestEntry{SequenceNumber: seq,
			DataFile: iceberg.DataFile{Content: content, Path: path, Format: "PARQUET", Partition: part}}}
	}
	data := file(iceberg.FileContentData, specA, 5, "s3://b/data/a.parquet", int32(7))
	pos := func(seq int64, spec iceberg.PartitionSpec, part ...any) liveFile {
		return file(iceberg.FileContentPositionDeletes, spec, seq, "s3://b/data/pos.parquet", part...)
	}
	eq := func(seq int64, spec iceberg.PartitionSpec, part ...any) liveFile {
		return file(iceberg.FileContentEqualityDeletes, spec, seq, "s3://b/data/eq.parquet", part...)
	}
	referencing := func(seq int64, ref string, puffin bool) liveFile {
		lf := pos(seq, specA, int32(7))
		lf.entry.DataFile.ReferencedDataFile = ref
		if puffin {
			lf.entry.DataFile.Format = "PUFFIN"
		}
		return lf
	}
	bounded := func(lo, hi string) liveFile {
		lf := pos(9, specA, int32(7))
		lf.entry.DataFile.LowerBounds = iceberg.ColumnBounds{{ID: filePathFieldID, Value: []byte(lo)}}
		lf.entry.DataFile.UpperBounds = iceberg.ColumnBounds{{ID: filePathFieldID, Value: []byte(hi)}}
		return lf
	}
	cases := []struct {
		name    string
		deletes []liveFile
		applies []int // indexes of deletes that apply, in the order returned
	}{
		{"position delete of the same partition and a later sequence applies", []liveFile{pos(6, specA, int32(7))}, []int{0}},
		{"position delete of the same sequence number applies", []liveFile{pos(5, specA, int32(7))}, []int{0}},
		{"position delete older than the data does not apply", []liveFile{pos(4, specA, int32(7))}, nil},
		{"position delete of another partition value does not apply", []liveFile{pos(6, specA, int32(8))}, nil},
		{"position delete of another spec does not apply", []liveFile{pos(6, specB, int32(7))}, nil},
		{"equality delete of a later sequence applies", []liveFile{eq(6, specA, int32(7))}, []int{0}},
		{"equality delete of the same sequence number does not apply", []liveFile{eq(5, specA, int32(7))}, nil},
		{"unpartitioned equality delete applies to every partition", []liveFile{eq(6, unpartitioned)}, []int{0}},
		{"referenced_data_file limits a position delete to that file", []liveFile{referencing(6, "s3://b/data/other.parquet", false), referencing(6, "s3://b/data/a.parquet", false)}, []int{1}},
		{"a deletion vector replaces position delete files", []liveFile{pos(6, specA, int32(7)), referencing(7, "s3://b/data/a.parquet", true)}, []int{1}},
		{"file_path bounds rule out a data file", []liveFile{bounded("s3://b/data/b", "s3://b/data/c")}, nil},
		{"file_path bounds around the data file keep the delete", []liveFile{bounded("s3://b/data/a.parquet", "s3://b/data/a.parquet")}, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			deletes := append([]liveFile(nil), tc.deletes...)
			for i := range deletes {
				deletes[i].entry.DataFile.Path = fmt.Sprintf("delete-%d", i)
			}
			got := newDeleteIndex(deletes, nil, false).forDataFile(&data)
			var paths []string
			for _, d := range got {
				paths = append(paths, d.Path)
			}
			var want []string
			for _, i := range tc.applies {
				want = append(want, fmt.Sprintf("delete-%d", i))
			}
			if !slices.Equal(paths, want) {
				t.Fatalf("applied %v, want %v", paths, want)
			}
		})
	}
}
