package metatable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// manyManifests is a table of manifests×perManifest data files in
// partitions partitions, its metadata and manifests in memory (the data
// files themselves are never read by a metadata table).
func manyManifests(t *testing.T, manifests, perManifest, partitions int) Table {
	t.Helper()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "p", Type: iceberg.StringType{}})
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{{SourceID: 2, FieldID: 1000, Name: "p", Transform: iceberg.IdentityTransform{}}}}
	const snapID = int64(42)
	mem := fileio.NewMem()
	var mfs []iceberg.ManifestFile
	for m := range manifests {
		var buf bytes.Buffer
		w, err := manifest.NewWriter(&buf, manifest.WriterOptions{FormatVersion: 2, Schema: schema, Spec: spec, SnapshotID: snapID})
		if err != nil {
			t.Fatal(err)
		}
		for i := range perManifest {
			n := int64(m*perManifest + i)
			err := w.Add(iceberg.ManifestEntry{Status: iceberg.EntryAdded, DataFile: iceberg.DataFile{
				Path: fmt.Sprintf("mem://t/data/%06d.parquet", n), Format: "PARQUET",
				Partition:   []any{fmt.Sprintf("p%d", n%int64(partitions))},
				RecordCount: 10, FileSize: 1000 + n,
				ValueCounts: iceberg.ColumnCounts{{ID: 1, Count: 10}, {ID: 2, Count: 10}},
				LowerBounds: iceberg.ColumnBounds{{ID: 1, Value: must(iceberg.EncodeValue(iceberg.LongType{}, n*10))}},
				UpperBounds: iceberg.ColumnBounds{{ID: 1, Value: must(iceberg.EncodeValue(iceberg.LongType{}, n*10+9))}},
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		mf, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		mf.Path = fmt.Sprintf("mem://t/metadata/m%03d.avro", m)
		mem.Put(mf.Path, buf.Bytes())
		mfs = append(mfs, mf)
	}
	var list bytes.Buffer
	if _, err := manifest.WriteList(&list, manifest.WriteListOptions{FormatVersion: 2, SnapshotID: snapID, SequenceNumber: 1}, mfs); err != nil {
		t.Fatal(err)
	}
	mem.Put("mem://t/metadata/snap-42.avro", list.Bytes())
	id := snapID
	md := &iceberg.TableMetadata{
		FormatVersion: 2, Location: "mem://t", LastSequenceNumber: 1, LastColumnID: 2,
		Schemas: []*iceberg.Schema{schema}, Specs: []iceberg.PartitionSpec{spec}, LastPartitionID: 1000,
		Properties: map[string]string{}, CurrentSnapshotID: &id,
		Snapshots: []iceberg.Snapshot{{SnapshotID: snapID, SequenceNumber: 1, TimestampMs: 1_700_000_000_000,
			ManifestList: "mem://t/metadata/snap-42.avro", Summary: iceberg.NewSummary(map[string]string{"operation": "append"})}},
		Refs: map[string]iceberg.SnapshotRef{"main": {SnapshotID: snapID, Type: iceberg.RefBranch}},
	}
	return Table{Name: "many", MetadataLocation: "mem://t/metadata/v1.metadata.json", Metadata: md, IO: mem}
}

func mustParse(t *testing.T, s string) expr.Expr {
	t.Helper()
	e, err := expr.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A table of many manifests streams: a read holds one manifest's entries
// and one batch at a time (or, for partitions, the partitions too), never
// the table's files, and every batch is within the bound.
func TestReadHoldsOneManifestAtATime(t *testing.T) {
	t.Parallel()
	const manifests, perManifest, partitions, batch = 40, 500, 7, 64
	tb := manyManifests(t, manifests, perManifest, partitions)
	cases := []struct {
		name      string
		req       Request
		rows      int
		peakBound int
	}{
		{"files", Request{Kind: Files}, manifests * perManifest, perManifest + batch},
		{"entries with readable_metrics", Request{Kind: Entries, Columns: []string{"data_file.file_path", "readable_metrics"}}, manifests * perManifest, perManifest + batch},
		{"all_data_files filtered", Request{Kind: AllDataFiles, Filter: mustParse(t, "file_size_in_bytes >= 11000")}, manifests*perManifest - 10000, perManifest + batch},
		{"partitions", Request{Kind: Partitions}, partitions, perManifest + partitions + batch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			scan, err := Plan(ctx, tb, c.req, WithUnitBytes(1))
			if err != nil {
				t.Fatal(err)
			}
			if c.req.Kind != Partitions && len(scan.Units) != manifests {
				t.Errorf("%d units, want one per manifest (%d)", len(scan.Units), manifests)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			var stats ReadStats
			rows := 0
			for _, u := range scan.Units {
				err := Read(ctx, tb, u, func(rec arrow.RecordBatch) error {
					defer rec.Release()
					if rec.NumRows() > batch {
						t.Errorf("batch of %d rows, bound %d", rec.NumRows(), batch)
					}
					rows += int(rec.NumRows())
					return nil
				}, WithAllocator(mem), WithBatchRows(batch), WithStats(&stats))
				if err != nil {
					t.Fatal(err)
				}
			}
			if rows != c.rows || int(stats.Emitted) != c.rows {
				t.Errorf("read %d rows (stats %d), want %d", rows, stats.Emitted, c.rows)
			}
			if stats.PeakHeld > int64(c.peakBound) || stats.PeakHeld == 0 {
				t.Errorf("held up to %d rows at once, want at most %d of %d files", stats.PeakHeld, c.peakBound, manifests*perManifest)
			}
		})
	}
}

// A read stops at the consumer's first error, and when its context ends,
// and leaves no memory behind.
func TestReadStops(t *testing.T) {
	t.Parallel()
	tb := manyManifests(t, 5, 200, 3)
	scan, err := Plan(context.Background(), tb, Request{Kind: Files})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("the client went away")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cases := []struct {
		name string
		ctx  context.Context
		emit func(n int) error
		want error
	}{
		{"emit fails", context.Background(), func(int) error { return stop }, stop},
		{"context ends", ctx, func(n int) error {
			cancel()
			return nil
		}, context.Canceled},
	}
	for _, c := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		batches := 0
		err := Read(c.ctx, tb, scan.Units[0], func(rec arrow.RecordBatch) error {
			rec.Release()
			batches++
			return c.emit(batches)
		}, WithAllocator(mem), WithBatchRows(50))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if batches > 4 {
			t.Errorf("%s: %d batches after the stop", c.name, batches)
		}
		mem.AssertSize(t, 0)
	}
}
