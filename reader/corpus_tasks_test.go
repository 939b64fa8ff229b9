package reader

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// Tasks of corpus tables, built as the planner builds them: the live data
// files of the current snapshot, each with the delete files that apply.

// liveFile is a live manifest entry of the snapshot with its spec.
type liveFile struct {
	entry iceberg.ManifestEntry
	spec  iceberg.PartitionSpec
}

// snapshotFiles reads the current snapshot's live data and delete files.
func snapshotFiles(t *testing.T, tbl *catalog.Table) (data, deletes []liveFile) {
	t.Helper()
	ctx := context.Background()
	md := tbl.Metadata
	snap := md.CurrentSnapshot()
	if snap == nil {
		return nil, nil
	}
	raw, err := fileio.ReadAll(ctx, tbl.IO, snap.ManifestList, 0)
	if err != nil {
		t.Fatalf("manifest list: %v", err)
	}
	mfs, err := manifest.ReadList(strings.NewReader(string(raw)), md.FormatVersion, snap)
	if err != nil {
		t.Fatalf("manifest list %s: %v", snap.ManifestList, err)
	}
	for _, mf := range mfs {
		spec, ok := md.SpecByID(mf.SpecID)
		if !ok {
			t.Fatalf("manifest %s: no spec %d", mf.Path, mf.SpecID)
		}
		raw, err := fileio.ReadAll(ctx, tbl.IO, mf.Path, 0)
		if err != nil {
			t.Fatalf("manifest: %v", err)
		}
		entries, err := manifest.Read(strings.NewReader(string(raw)), mf, spec.PartitionType(md.CurrentSchema()))
		if err != nil {
			t.Fatalf("manifest %s: %v", mf.Path, err)
		}
		for _, e := range entries {
			if e.Status == iceberg.EntryDeleted {
				continue
			}
			lf := liveFile{entry: e, spec: spec}
			if e.DataFile.Content == iceberg.FileContentData {
				data = append(data, lf)
			} else {
				deletes = append(deletes, lf)
			}
		}
	}
	return data, deletes
}

var formats = map[string]scantask.FileFormat{
	"PARQUET": scantask.Parquet,
	"AVRO":    scantask.Avro,
	"ORC":     scantask.ORC,
	"PUFFIN":  0, // no source reads it: the reader refuses the task
}

// appliesTo reports whether delete file d applies to data file f
// (spec: Scan Planning).
func appliesTo(d, f liveFile) bool {
	df, dd := &f.entry.DataFile, &d.entry.DataFile
	samePartition := d.spec.ID == f.spec.ID && reflect.DeepEqual(dd.Partition, df.Partition)
	switch {
	case dd.Content == iceberg.FileContentEqualityDeletes:
		return f.entry.SequenceNumber < d.entry.SequenceNumber && (d.spec.IsUnpartitioned() || samePartition)
	case f.entry.SequenceNumber > d.entry.SequenceNumber:
		return false
	case dd.ReferencedDataFile != "":
		return dd.ReferencedDataFile == df.Path
	default:
		return samePartition
	}
}

func deleteProto(t *testing.T, d liveFile, mapPath func(string) string) *scantask.DeleteFile {
	df := &d.entry.DataFile
	pb := &scantask.DeleteFile{
		Path:               mapPath(df.Path),
		Format:             formats[strings.ToUpper(df.Format)],
		FileSize:           df.FileSize,
		RecordCount:        df.RecordCount,
		DataSequenceNumber: d.entry.SequenceNumber,
		ReferencedDataFile: df.ReferencedDataFile,
		SpecID:             int32(d.spec.ID),
	}
	switch {
	case strings.EqualFold(df.Format, "PUFFIN"):
		pb.Kind = scantask.DeletionVector
		if df.ContentOffset == nil || df.ContentSizeInBytes == nil {
			t.Fatalf("deletion vector %s without content offset/size", df.Path)
		}
		pb.ContentOffset, pb.ContentSize = *df.ContentOffset, *df.ContentSizeInBytes
	case df.Content == iceberg.FileContentPositionDeletes:
		pb.Kind = scantask.PositionDeletes
	default:
		pb.Kind = scantask.EqualityDeletes
		for _, id := range df.EqualityIDs {
			pb.EqualityIDs = append(pb.EqualityIDs, int32(id))
		}
	}
	return pb
}

// identityConstants gives the task the values of its identity partitions.
func identityConstants(t *testing.T, schema *iceberg.Schema, f liveFile) []*scantask.PartitionConstant {
	var out []*scantask.PartitionConstant
	for i, pf := range f.spec.Fields {
		if pf.Transform.String() != "identity" || i >= len(f.entry.DataFile.Partition) {
			continue
		}
		src, ok := schema.FieldByID(pf.SourceID)
		if !ok {
			continue
		}
		c := &scantask.PartitionConstant{FieldID: int32(pf.SourceID)}
		if v := f.entry.DataFile.Partition[i]; v != nil {
			b, err := iceberg.EncodeValue(src.Type, v)
			if err != nil {
				t.Fatalf("partition value %v of %s: %v", v, src.Name, err)
			}
			c.Value = b
		}
		out = append(out, c)
	}
	return out
}

// equalitySchema holds the fields the delete files compare on, each from
// the newest schema that has it (the current one first).
func equalitySchema(md *iceberg.TableMetadata, deletes []liveFile) *iceberg.Schema {
	schemas := []*iceberg.Schema{md.CurrentSchema()}
	for i := len(md.Schemas) - 1; i >= 0; i-- {
		schemas = append(schemas, md.Schemas[i])
	}
	var fields []iceberg.NestedField
	seen := map[int]bool{}
	for _, d := range deletes {
		for _, id := range d.entry.DataFile.EqualityIDs {
			for _, s := range schemas {
				if f, ok := topLevelHolding(s, id); ok {
					if !seen[f.ID] {
						seen[f.ID] = true
						fields = append(fields, f)
					}
					break
				}
			}
		}
	}
	return iceberg.NewSchema(0, fields...)
}

func topLevelHolding(s *iceberg.Schema, id int) (iceberg.NestedField, bool) {
	for _, f := range s.Fields {
		if fieldChain([]iceberg.NestedField{f}, id) != nil {
			return f, true
		}
	}
	return iceberg.NestedField{}, false
}

// corpusTasks builds the tasks of a table's current snapshot.
func corpusTasks(t *testing.T, tbl *catalog.Table, schema *iceberg.Schema) ([]*scantask.Task, *iceberg.Schema) {
	t.Helper()
	mapper, ok := tbl.IO.(interface{ Map(string) string })
	if !ok {
		t.Fatalf("table IO %T does not map paths", tbl.IO)
	}
	data, deletes := snapshotFiles(t, tbl)
	sort.Slice(data, func(i, j int) bool { return data[i].entry.DataFile.Path < data[j].entry.DataFile.Path })
	var tasks []*scantask.Task
	for _, f := range data {
		df := &f.entry.DataFile
		task := &scantask.Task{
			Path:               mapper.Map(df.Path),
			FilePath:           df.Path,
			Format:             formats[strings.ToUpper(df.Format)],
			FileSize:           df.FileSize,
			RecordCount:        df.RecordCount,
			SpecID:             int32(f.spec.ID),
			DataSequenceNumber: f.entry.SequenceNumber,
			FileSequenceNumber: f.entry.FileSequenceNumber,
			FirstRowID:         df.FirstRowID,
			Constants:          identityConstants(t, schema, f),
		}
		for _, d := range deletes {
			if appliesTo(d, f) {
				task.Deletes = append(task.Deletes, deleteProto(t, d, mapper.Map))
			}
		}
		tasks = append(tasks, task)
	}
	return tasks, equalitySchema(tbl.Metadata, deletes)
}
