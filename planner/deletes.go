package planner

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// filePathFieldID is the reserved field id of a position delete file's
// file_path column, whose bounds narrow which data files it can touch.
const filePathFieldID = 2147483546

// deleteIndex finds the delete files that apply to a data file without
// scanning every delete file for every data file: deletes are grouped by
// partition (spec id and tuple), by referenced data file, and kept in
// sequence-number order within each group.
//
// Spec (Scan Planning): a position delete or deletion vector applies to a
// data file when the data file's data sequence number is less than or equal
// to the delete's, and the delete either names the data file
// (referenced_data_file, always for DVs) or shares its partition; an
// equality delete applies when the data file's data sequence number is
// strictly less than the delete's and the delete is unpartitioned (global)
// or shares the data file's partition.
type deleteIndex struct {
	byPartition map[string][]*indexedDelete // position and equality deletes by partition key
	byFile      map[string][]*indexedDelete // position deletes and DVs naming one data file
	global      []*indexedDelete            // equality deletes of unpartitioned specs
	count       int
}

type indexedDelete struct {
	seq  int64
	file *iceberg.DataFile
	pb   *DeleteFile
	dv   bool
}

// newDeleteIndex indexes deletes; keepFiles puts each one's manifest
// record on its DeleteFile.
func newDeleteIndex(deletes []liveFile, mapper Mapper, keepFiles bool) *deleteIndex {
	idx := &deleteIndex{byPartition: map[string][]*indexedDelete{}, byFile: map[string][]*indexedDelete{}}
	for i := range deletes {
		lf := &deletes[i]
		df := &lf.entry.DataFile
		d := &indexedDelete{seq: lf.entry.SequenceNumber, file: df, pb: deleteProto(lf, mapper, keepFiles),
			dv: strings.EqualFold(df.Format, "PUFFIN")}
		idx.count++
		switch {
		case df.Content == iceberg.FileContentEqualityDeletes && lf.spec.IsUnpartitioned():
			idx.global = append(idx.global, d)
		case df.Content == iceberg.FileContentPositionDeletes && df.ReferencedDataFile != "":
			idx.byFile[df.ReferencedDataFile] = append(idx.byFile[df.ReferencedDataFile], d)
		default:
			key := partitionKey(lf.spec.ID, df.Partition)
			idx.byPartition[key] = append(idx.byPartition[key], d)
		}
	}
	bySeq := func(ds []*indexedDelete) {
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].seq < ds[j].seq })
	}
	bySeq(idx.global)
	for _, ds := range idx.byFile {
		bySeq(ds)
	}
	for _, ds := range idx.byPartition {
		bySeq(ds)
	}
	return idx
}

// forDataFile returns the delete files that apply to a data file.
func (idx *deleteIndex) forDataFile(lf *liveFile) []*DeleteFile {
	if idx.count == 0 {
		return nil
	}
	df := &lf.entry.DataFile
	seq := lf.entry.SequenceNumber
	var positional, dvs, equality []*indexedDelete
	collect := func(ds []*indexedDelete) {
		for _, d := range ds {
			switch {
			case d.file.Content == iceberg.FileContentEqualityDeletes:
				if d.seq > seq {
					equality = append(equality, d)
				}
			case d.seq < seq:
			case d.dv:
				if d.file.ReferencedDataFile == df.Path {
					dvs = append(dvs, d)
				}
			case d.file.ReferencedDataFile != "" && d.file.ReferencedDataFile != df.Path:
			case !mayNameFile(d.file, df.Path):
			default:
				positional = append(positional, d)
			}
		}
	}
	collect(idx.byFile[df.Path])
	collect(idx.byPartition[partitionKey(lf.spec.ID, df.Partition)])
	collect(idx.global)

	// Spec (Deletion Vectors): a data file's DV replaces every position
	// delete file written before it for that file.
	if len(dvs) > 0 {
		positional = dvs[len(dvs)-1:]
	}
	out := make([]*DeleteFile, 0, len(positional)+len(equality))
	for _, d := range positional {
		out = append(out, d.pb)
	}
	for _, d := range equality {
		out = append(out, d.pb)
	}
	return out
}

// mayNameFile uses a position delete file's file_path bounds to rule out
// data files it cannot reference.
func mayNameFile(df *iceberg.DataFile, path string) bool {
	lo, hasLo := df.LowerBounds.Get(filePathFieldID)
	hi, hasHi := df.UpperBounds.Get(filePathFieldID)
	if hasLo && bytes.Compare([]byte(path), lo) < 0 {
		return false
	}
	// Upper bounds of strings may be truncated and then rounded up, so a
	// path above the bound by comparison of its prefix is still ruled out
	// only when the bound is not a prefix of it.
	if hasHi && bytes.Compare([]byte(path), hi) > 0 && !bytes.HasPrefix([]byte(path), hi) {
		return false
	}
	return true
}

// partitionKey encodes a spec id and partition tuple as a map key.
func partitionKey(specID int, partition []any) string {
	var b []byte
	b = binary.AppendVarint(b, int64(specID))
	for _, v := range partition {
		if v == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		s := literalKey(v)
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// literalKey renders a literal so that equal values of one partition
// field give equal bytes.
func literalKey(v any) string {
	if b, ok := v.([]byte); ok {
		return "b" + string(b)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

var deleteKinds = map[iceberg.FileContent]scantask.DeleteKind{
	iceberg.FileContentPositionDeletes: scantask.PositionDeletes,
	iceberg.FileContentEqualityDeletes: scantask.EqualityDeletes,
}

func deleteProto(lf *liveFile, mapper Mapper, keepFile bool) *DeleteFile {
	df := &lf.entry.DataFile
	kind := deleteKinds[df.Content]
	if strings.EqualFold(df.Format, "PUFFIN") {
		kind = scantask.DeletionVector
	}
	path := df.Path
	if mapper != nil {
		path = mapper.Map(path)
	}
	pb := &scantask.DeleteFile{
		Path:               path,
		Format:             fileFormats[strings.ToUpper(df.Format)],
		Kind:               kind,
		FileSize:           df.FileSize,
		RecordCount:        df.RecordCount,
		DataSequenceNumber: lf.entry.SequenceNumber,
		ReferencedDataFile: df.ReferencedDataFile,
		SpecID:             int32(lf.spec.ID),
	}
	for _, id := range df.EqualityIDs {
		pb.EqualityIDs = append(pb.EqualityIDs, int32(id))
	}
	if df.ContentOffset != nil {
		pb.ContentOffset = *df.ContentOffset
	}
	if df.ContentSizeInBytes != nil {
		pb.ContentSize = *df.ContentSizeInBytes
	}
	if keepFile {
		pb.File = df
	}
	return pb
}

// equalitySchema gathers the fields every equality delete of the plan
// compares on, nested ones inside their enclosing structs. A field may
// since have been dropped from the table, so older schemas are searched
// too.
func equalitySchema(md *iceberg.TableMetadata, tasks []*Task) *iceberg.Schema {
	seen := map[int]bool{}
	var ids []int
	for _, t := range tasks {
		for _, d := range t.Deletes {
			for _, id := range d.EqualityIDs {
				if !seen[int(id)] {
					seen[int(id)] = true
					ids = append(ids, int(id))
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	schemas := append([]*iceberg.Schema{md.CurrentSchema()}, md.Schemas...)
	return iceberg.SelectIDs(schemas, ids...)
}
