package datafile

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

func TestWritePositionDeletes(t *testing.T) {
	t.Parallel()
	long := "s3://bucket/warehouse/db/table/data/00000-0-a-very-long-file-name.parquet"
	cases := []struct {
		name       string
		deletes    []PositionDelete
		wantPaths  []string
		wantPos    []int64
		referenced string
	}{
		{"one data file: sorted by position, referenced",
			[]PositionDelete{{long, 9}, {long, 2}, {long, 5}},
			[]string{long, long, long}, []int64{2, 5, 9}, long},
		{"two data files: sorted by path then position, none referenced",
			[]PositionDelete{{"b.parquet", 1}, {"a.parquet", 7}, {"b.parquet", 0}, {"a.parquet", 3}},
			[]string{"a.parquet", "a.parquet", "b.parquet", "b.parquet"}, []int64{3, 7, 0, 1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fio := fileio.NewMem()
			loc := "mem://t/data/deletes.parquet"
			df, err := WritePositionDeletes(context.Background(), fio, loc, c.deletes, Options{Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			if df.Content != iceberg.FileContentPositionDeletes || df.Path != loc || df.RecordCount != int64(len(c.deletes)) || df.Format != "PARQUET" {
				t.Errorf("data file %+v", df)
			}
			if df.ReferencedDataFile != c.referenced {
				t.Errorf("referenced %q, want %q", df.ReferencedDataFile, c.referenced)
			}
			data, tbl := readBack(t, fio, loc)
			defer tbl.Release()
			if df.FileSize != int64(len(data)) {
				t.Errorf("file size %d, file has %d", df.FileSize, len(data))
			}
			paths := tbl.Column(0).Data().Chunk(0).(*array.String)
			pos := tbl.Column(1).Data().Chunk(0).(*array.Int64)
			for i := range c.wantPaths {
				if paths.Value(i) != c.wantPaths[i] || pos.Value(i) != c.wantPos[i] {
					t.Errorf("row %d: %s %d, want %s %d", i, paths.Value(i), pos.Value(i), c.wantPaths[i], c.wantPos[i])
				}
			}
			// Spec: Position Delete Files — the reserved field ids, required.
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			for i, want := range []int32{PosDeleteFilePathID, PosDeletePosID} {
				col := pf.MetaData().Schema.Column(i)
				if col.SchemaNode().FieldID() != want || col.MaxDefinitionLevel() != 0 {
					t.Errorf("column %d: field id %d, max definition level %d; want %d, required", i, col.SchemaNode().FieldID(), col.MaxDefinitionLevel(), want)
				}
			}
			// Full bounds on file_path, never truncated: planners match
			// deletes to data files by them.
			lo, _ := df.LowerBounds.Get(PosDeleteFilePathID)
			hi, _ := df.UpperBounds.Get(PosDeleteFilePathID)
			if string(lo) != c.wantPaths[0] || string(hi) != c.wantPaths[len(c.wantPaths)-1] {
				t.Errorf("file_path bounds %q..%q", lo, hi)
			}
			minPos, maxPos := c.wantPos[0], c.wantPos[0]
			for _, p := range c.wantPos {
				minPos, maxPos = min(minPos, p), max(maxPos, p)
			}
			lo, _ = df.LowerBounds.Get(PosDeletePosID)
			hi, _ = df.UpperBounds.Get(PosDeletePosID)
			if !bytes.Equal(lo, enc(t, iceberg.LongType{}, minPos)) || !bytes.Equal(hi, enc(t, iceberg.LongType{}, maxPos)) {
				t.Errorf("pos bounds %x..%x, want %d..%d", lo, hi, minPos, maxPos)
			}
			if n, _ := df.NullValueCounts.Get(PosDeletePosID); n != 0 {
				t.Errorf("pos nulls %d", n)
			}
		})
	}
}
