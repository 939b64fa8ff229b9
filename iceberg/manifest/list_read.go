package manifest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// manifestListLayout is a manifest list schema compiled: what to do with
// each field of the writer's manifest_file record and of its partition
// field summaries.
type manifestListLayout struct {
	file    *recordLayout
	array   *avro.Schema // the partitions field's array type
	summary *recordLayout
}

func newManifestListLayout(s *avro.Schema) (*manifestListLayout, error) {
	if s.Kind != avro.KindRecord {
		return nil, fmt.Errorf("%w: manifest list schema is %s, not a record", iceberg.ErrInvalidMetadata, s.Type)
	}
	l := &manifestListLayout{file: compileRecord(s, listFields)}
	if !l.file.present.has(idManifestPath) || !l.file.present.has(idPartitionSpecID) {
		return nil, fmt.Errorf("%w: manifest list schema lacks manifest_path or partition_spec_id", iceberg.ErrInvalidMetadata)
	}
	if f := l.file.field(idPartitions); f != nil {
		l.array = avroArray(f.typ)
		if l.array != nil {
			l.summary = compileRecord(l.array.Items, summaryFields)
		}
	}
	return l, nil
}

// avroArray returns an array type, looking through a nullable union.
func avroArray(s *avro.Schema) *avro.Schema {
	if s.Kind == avro.KindUnion {
		for _, b := range s.Branches {
			if b.Kind == avro.KindArray {
				return b
			}
		}
	}
	if s.Kind == avro.KindArray {
		return s
	}
	return nil
}

// ReadList decodes a manifest list (v1, v2 or v3).
//
// Spec (Manifest Lists): sequence numbers are 0 when reading v1 manifest
// lists (formatVersion 1, or a list whose own "format-version" is 1, as in a
// table upgraded from v1). In a v2+ list, an entry whose sequence_number or
// min_sequence_number is absent or null inherits the snapshot's sequence
// number, and a null added_snapshot_id the snapshot's id; snapshot may be
// nil when nothing needs inheriting. Errors wrap ErrInvalidMetadata and name
// the entry; the caller names the file.
func ReadList(r io.Reader, formatVersion int, snapshot *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	c, err := openAvroContainer(r)
	if err == nil {
		err = c.prepare()
	}
	if err != nil {
		return nil, err
	}
	defer c.release()
	l, err := c.schema.listLayout()
	if err != nil {
		return nil, err
	}
	v1 := formatVersion <= 1 || c.meta("format-version") == "1"
	fileSize := int64(-1)
	if s, ok := r.(interface{ Size() int64 }); ok {
		fileSize = s.Size()
	}
	blocksStart := c.offset()
	var out []iceberg.ManifestFile
	rd := &valueReader{}
	for {
		n, data, err := c.nextBlock()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("manifest list entry %d: %w", len(out), err)
		}
		grow := min(n, len(data)/minRecordBytes+1)
		if out == nil {
			out = make([]iceberg.ManifestFile, 0, listSizeHint(grow, c.offset()-blocksStart, fileSize-blocksStart))
		}
		out = slices.Grow(out, grow)
		rd.d.Reset(data)
		for range n {
			out = append(out, iceberg.ManifestFile{})
			if err := l.decode(rd, &out[len(out)-1], v1, snapshot); err != nil {
				return nil, fmt.Errorf("manifest list entry %d: %w", len(out)-1, err)
			}
		}
	}
}

// listSizeHint guesses the entries of a manifest list whose first block of
// n entries took the first of total bytes of blocks: writers fill blocks
// alike, and a list of thousands of manifests sized by its first block
// does not grow through ever larger copies of itself. A total that is
// unknown (negative) gives n.
func listSizeHint(n int, first, total int64) int {
	if first <= 0 || total <= first {
		return n
	}
	// A little over the share, as the last block is rarely full; capped, as
	// the sizes of a damaged file mean nothing.
	est := int64(n) * total / first
	return int(min(est+est/32+1, int64(n)<<10, 1<<20))
}

// noSnapshot ends the message of a value that would inherit from a snapshot
// the caller did not give.
const noSnapshot = "there is no snapshot to inherit from"

func (l *manifestListLayout) decode(r *valueReader, mf *iceberg.ManifestFile, v1 bool, snapshot *iceberg.Snapshot) error {
	*mf = iceberg.ManifestFile{
		Length: -1, AddedFilesCount: -1, ExistingFilesCount: -1, DeletedFilesCount: -1,
		AddedRowsCount: -1, ExistingRowsCount: -1, DeletedRowsCount: -1,
	}
	var snapshotID, seq, minSeq optional
	err := l.file.decode(r, func(op *fieldOp, id int) error {
		l.decodeField(r, op, id, mf, &snapshotID, &seq, &minSeq)
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case snapshotID.ok:
		mf.AddedSnapshotID = snapshotID.v
	case snapshot != nil:
		mf.AddedSnapshotID = snapshot.SnapshotID
	default:
		r.fail("added_snapshot_id is null and " + noSnapshot)
	}
	if !v1 {
		inherit := func(o optional, name string) int64 {
			if o.ok {
				return o.v
			}
			if snapshot == nil {
				r.fail(name + " is absent and " + noSnapshot)
				return 0
			}
			return snapshot.SequenceNumber
		}
		mf.SequenceNumber = inherit(seq, "sequence_number")
		if l.file.present.has(idMinSequenceNumber) {
			mf.MinSequenceNumber = inherit(minSeq, "min_sequence_number")
		} else {
			mf.MinSequenceNumber = mf.SequenceNumber
		}
	}
	if mf.Content != iceberg.ManifestContentData && mf.Content != iceberg.ManifestContentDeletes {
		r.fail(fmt.Sprintf("content %d is neither data (0) nor deletes (1)", mf.Content))
	}
	return r.failed()
}

// decodeField decodes the manifest_file field of the given id.
func (l *manifestListLayout) decodeField(r *valueReader, op *fieldOp, id int, mf *iceberg.ManifestFile, snapshotID, seq, minSeq *optional) {
	long := func(def int64) int64 {
		if v, ok := r.optLong(op.typ, op.name); ok {
			return v
		}
		return def
	}
	switch id {
	case idManifestPath:
		b, ok := r.strBytes(op.typ, op.name)
		if !ok && r.ok() {
			r.fail(op.name + ": expected a string, got null")
		}
		mf.Path = r.arena.string(b)
	case idManifestLength:
		mf.Length = long(-1)
	case idPartitionSpecID:
		mf.SpecID = int(long(0))
	case idManifestContent:
		mf.Content = iceberg.ManifestContent(long(0))
	case idAddedFiles:
		mf.AddedFilesCount = long(-1)
	case idExistingFiles:
		mf.ExistingFilesCount = long(-1)
	case idDeletedFiles:
		mf.DeletedFilesCount = long(-1)
	case idAddedRows:
		mf.AddedRowsCount = long(-1)
	case idExistingRows:
		mf.ExistingRowsCount = long(-1)
	case idDeletedRows:
		mf.DeletedRowsCount = long(-1)
	case idListKeyMetadata:
		mf.KeyMetadata = r.bytes(op.typ, op.name)
	case idListFirstRowID:
		mf.FirstRowID = readOptional(r, op).ptr(&r.arena)
	case idAddedSnapshotID:
		*snapshotID = readOptional(r, op)
	case idListSequenceNumber:
		*seq = readOptional(r, op)
	case idMinSequenceNumber:
		*minSeq = readOptional(r, op)
	case idPartitions:
		mf.Partitions = l.summaries(r, op)
	default:
		r.d.Skip(op.typ)
	}
}

// summaries reads the partitions field: a list of field summaries; nil
// when null, empty (not nil) when an empty list, as Iceberg Java tells
// them apart (an unpartitioned table's manifests have an empty list).
func (l *manifestListLayout) summaries(r *valueReader, op *fieldOp) []iceberg.FieldSummary {
	s := r.branch(op.typ)
	switch {
	case s == nil || s.Kind == avro.KindNull:
		return nil
	case s != l.array:
		r.mismatch(s, op.name, "a list")
		return nil
	}
	var out []iceberg.FieldSummary
	for n := r.d.BlockCount(); n > 0 && r.ok(); n = r.d.BlockCount() {
		if l.summary.ops == nil {
			r.fail(fmt.Sprintf("%s: expected a record, got Avro %s", op.name, s.Items.Type))
			return nil
		}
		out = r.arena.growSummaries(out, int(n))
		for ; n > 0 && r.ok(); n-- {
			out = append(out, l.summary.decodeSummary(r))
		}
	}
	if out == nil {
		return []iceberg.FieldSummary{}
	}
	return out
}

// decodeSummary decodes one field_summary record.
func (l *recordLayout) decodeSummary(r *valueReader) iceberg.FieldSummary {
	var fs iceberg.FieldSummary
	// A decoding failure stays in r for the caller, which checks it.
	_ = l.decode(r, func(op *fieldOp, id int) error {
		switch id {
		case idContainsNull:
			fs.ContainsNull, _ = r.boolean(op.typ)
		case idContainsNaN:
			if b, ok := r.boolean(op.typ); ok {
				fs.ContainsNaN = r.arena.bool(b)
			}
		case idLowerBound:
			fs.LowerBound = r.bytes(op.typ, op.name)
		case idUpperBound:
			fs.UpperBound = r.bytes(op.typ, op.name)
		default:
			r.d.Skip(op.typ)
		}
		return nil
	})
	return fs
}

// FromPaths builds the manifest files of a v1 snapshot that
// lists its manifests directly (the "manifests" field) rather than in a
// manifest list. open returns a manifest's bytes, which it reads only up to
// the end of the Avro header for the "partition-spec-id" (0 when absent, as
// in the oldest writers) and closes. Lengths and counts are unknown (-1);
// sequence numbers are 0, as for any v1 manifest.
func FromPaths(snapshot *iceberg.Snapshot, open func(path string) (io.ReadCloser, error)) ([]iceberg.ManifestFile, error) {
	out := make([]iceberg.ManifestFile, 0, len(snapshot.Manifests))
	for _, p := range snapshot.Manifests {
		rc, err := open(p)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", p, err)
		}
		meta, err := Metadata(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", p, err)
		}
		spec := 0
		if s, ok := meta["partition-spec-id"]; ok {
			if spec, err = strconv.Atoi(s); err != nil {
				return nil, fmt.Errorf("manifest %s: %w: partition-spec-id %q", p, iceberg.ErrInvalidMetadata, s)
			}
		}
		out = append(out, iceberg.ManifestFile{
			Path: p, Length: -1, SpecID: spec, Content: iceberg.ManifestContentData,
			AddedSnapshotID: snapshot.SnapshotID,
			AddedFilesCount: -1, ExistingFilesCount: -1, DeletedFilesCount: -1,
			AddedRowsCount: -1, ExistingRowsCount: -1, DeletedRowsCount: -1,
		})
	}
	return out, nil
}

// A manifest list's entries share their memory: a list of a thousand
// manifests would otherwise make thousands of small allocations (a slice of
// summaries, a flag and a path per entry), most of a cold plan's
// allocations for the list.
const (
	summaryChunk = 512
	stringChunk  = 16 << 10
)

// growSummaries returns s with room for n more summaries, in the arena
// when s is nil or outgrows its place.
func (a *avroArena) growSummaries(s []iceberg.FieldSummary, n int) []iceberg.FieldSummary {
	n = min(n, math.MaxInt32)
	need := len(s) + n
	if s != nil && need <= cap(s) {
		return s
	}
	if need > cap(a.summaries)-len(a.summaries) {
		a.summaries = make([]iceberg.FieldSummary, 0, max(need, summaryChunk))
	}
	at := len(a.summaries)
	a.summaries = append(a.summaries, s...)
	a.summaries = a.summaries[:at+need]
	return a.summaries[at : at+len(s) : at+need]
}

// bool returns a pointer to v, held in the arena.
func (a *avroArena) bool(v bool) *bool {
	if len(a.bools) == cap(a.bools) {
		a.bools = make([]bool, 0, arenaChunk)
	}
	a.bools = append(a.bools, v)
	return &a.bools[len(a.bools)-1]
}

// string returns b as a string that shares a chunk of memory with the
// arena's other strings: a builder never changes the bytes it has
// written, so each string stays valid as the chunk fills.
func (a *avroArena) string(b []byte) string {
	if len(b) > a.strs.Cap()-a.strs.Len() {
		a.strs = strings.Builder{}
		a.strs.Grow(max(len(b), stringChunk))
	}
	at := a.strs.Len()
	a.strs.Write(b)
	return a.strs.String()[at:]
}
