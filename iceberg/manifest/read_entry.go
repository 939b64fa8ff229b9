package manifest

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// optional is a nullable long as read from a manifest.
type optional struct {
	v  int64
	ok bool
}

func (o optional) ptr(a *avroArena) *int64 {
	if !o.ok {
		return nil
	}
	return a.long(o.v)
}

// decodeEntry decodes one manifest_entry record into e, applying the
// inheritance rules of Read but for first_row_id's, which need the
// entries before it. part receives the partition values.
func (l *manifestLayout) decodeEntry(r *valueReader, mf *iceberg.ManifestFile, v1 bool, e *iceberg.ManifestEntry, part []any) error {
	status := int64(-1)
	var snapshot, seq, fileSeq optional
	err := l.entry.decode(r, func(op *fieldOp, id int) error {
		switch id {
		case idStatus:
			if v, ok := r.optLong(op.typ, op.name); ok {
				status = v
			}
		case idSnapshotID:
			snapshot.v, snapshot.ok = r.optLong(op.typ, op.name)
		case idSequenceNumber:
			seq.v, seq.ok = r.optLong(op.typ, op.name)
		case idFileSequenceNumber:
			fileSeq.v, fileSeq.ok = r.optLong(op.typ, op.name)
		case idDataFile:
			return l.decodeFile(r, mf, &e.DataFile, part)
		default:
			r.d.Skip(op.typ)
		}
		return nil
	})
	if err != nil {
		return err
	}
	e.Status = iceberg.EntryStatus(status)
	if status < int64(iceberg.EntryExisting) || status > int64(iceberg.EntryDeleted) {
		r.fail(fmt.Sprintf("status %d", status))
	}
	e.SnapshotID = mf.AddedSnapshotID
	if snapshot.ok {
		e.SnapshotID = snapshot.v
	}
	if !v1 {
		inherit := e.Status == iceberg.EntryAdded || mf.SequenceNumber == 0
		switch {
		case seq.ok:
			e.SequenceNumber = seq.v
		case inherit:
			e.SequenceNumber = mf.SequenceNumber
		default:
			r.fail(fmt.Sprintf("%v entry has a null sequence_number", e.Status))
		}
		switch {
		case fileSeq.ok:
			e.FileSequenceNumber = fileSeq.v
		case inherit:
			e.FileSequenceNumber = mf.SequenceNumber
		case !l.entry.present.has(idFileSequenceNumber):
			e.FileSequenceNumber = e.SequenceNumber
		default:
			r.fail(fmt.Sprintf("%v entry has a null file_sequence_number", e.Status))
		}
	}
	return r.failed()
}

// decodeFile decodes the data_file record into f.
func (l *manifestLayout) decodeFile(r *valueReader, mf *iceberg.ManifestFile, f *iceberg.DataFile, part []any) error {
	f.RecordCount, f.FileSize, f.SpecID, f.Partition = -1, -1, mf.SpecID, part
	err := l.file.decode(r, func(op *fieldOp, id int) error {
		return l.decodeFileField(r, op, id, f)
	})
	if err != nil {
		return err
	}
	if f.Content < iceberg.FileContentData || f.Content > iceberg.FileContentEqualityDeletes {
		r.fail(fmt.Sprintf("data_file content %d", f.Content))
	}
	if f.RecordCount < 0 || f.FileSize < 0 {
		r.fail("data_file lacks record_count or file_size_in_bytes")
	}
	return r.failed()
}

// decodeFileField decodes the data_file field of the given id.
func (l *manifestLayout) decodeFileField(r *valueReader, op *fieldOp, id int, f *iceberg.DataFile) error {
	switch id {
	case idContent:
		v, _ := r.optLong(op.typ, op.name)
		f.Content = iceberg.FileContent(v)
	case idFilePath:
		f.Path = r.str(op.typ, op.name, true)
	case idFileFormat:
		b, ok := r.strBytes(op.typ, op.name)
		if !ok && r.ok() {
			r.fail(op.name + ": expected a string, got null")
		}
		f.Format = upperFormat(b)
	case idPartition:
		return l.part.decode(r, op.typ, f.Partition)
	case idRecordCount:
		if v, ok := r.optLong(op.typ, op.name); ok {
			f.RecordCount = v
		}
	case idFileSize:
		if v, ok := r.optLong(op.typ, op.name); ok {
			f.FileSize = v
		}
	case idColumnSizes:
		f.ColumnSizes = r.countMap(op)
	case idValueCounts:
		f.ValueCounts = r.countMap(op)
	case idNullValueCounts:
		f.NullValueCounts = r.countMap(op)
	case idNaNValueCounts:
		f.NaNValueCounts = r.countMap(op)
	case idLowerBounds:
		f.LowerBounds = r.boundMap(op)
	case idUpperBounds:
		f.UpperBounds = r.boundMap(op)
	case idKeyMetadata:
		f.KeyMetadata = r.bytes(op.typ, op.name)
	case idSplitOffsets:
		f.SplitOffsets = r.longs(op.typ, op.name)
	case idEqualityIDs:
		f.EqualityIDs = nil
		for _, id := range r.longs(op.typ, op.name) {
			f.EqualityIDs = append(f.EqualityIDs, int(id))
		}
	case idSortOrderID:
		if v, ok := r.optLong(op.typ, op.name); ok {
			f.SortOrderID = r.arena.int(int(v))
		}
	case idFirstRowID:
		f.FirstRowID = readOptional(r, op).ptr(&r.arena)
	case idReferencedDataFile:
		f.ReferencedDataFile = r.str(op.typ, op.name, false)
	case idContentOffset:
		f.ContentOffset = readOptional(r, op).ptr(&r.arena)
	case idContentSize:
		f.ContentSizeInBytes = readOptional(r, op).ptr(&r.arena)
	default: // block_size_in_bytes, which nothing reads
		r.d.Skip(op.typ)
	}
	return nil
}

func readOptional(r *valueReader, op *fieldOp) optional {
	v, ok := r.optLong(op.typ, op.name)
	return optional{v, ok}
}

// decode reads the partition field, of the writer's type s, into out: one
// literal per field of the partition type, nil where the writer has no
// such field or a null.
func (p *partitionLayout) decode(r *valueReader, s *avro.Schema, out []any) error {
	rec := r.branch(s)
	if rec == nil || rec != p.rec {
		// A null partition tuple, or no record at all: every value is null.
		if rec != nil {
			r.d.Skip(rec)
		}
		return nil
	}
	for i := range p.fields {
		f := &p.fields[i]
		if len(f.outs) == 0 {
			r.d.Skip(f.typ)
			continue
		}
		start := r.d.Offset()
		for j := range f.outs {
			o := &f.outs[j]
			if j > 0 {
				r.d.Seek(start)
			}
			v, err := decodeLiteral(r, f.typ, o.plans)
			if err != nil {
				return fmt.Errorf("partition field %d (%s): %w", o.index, p.names[o.index], err)
			}
			out[o.index] = v
		}
	}
	return nil
}

// decodeLiteral decodes a value of Avro type s into a literal with the
// plans literalPlans compiled for s.
func decodeLiteral(r *valueReader, s *avro.Schema, plans []literalPlan) (any, error) {
	plan := &plans[0]
	if s.Kind == avro.KindUnion {
		b := r.d.UnionIndex(s)
		if b < 0 {
			return nil, r.failed()
		}
		plan = &plans[b]
	}
	v, err := plan.decode(r)
	if err == nil {
		err = r.failed()
	}
	return v, err
}

// upperFormat returns a file_format in upper case ("PARQUET"), without
// allocating for the formats the spec names.
func upperFormat(b []byte) string {
	var buf [8]byte
	if len(b) <= len(buf) {
		for i, c := range b {
			if c >= 0x80 {
				return upperSlow(b)
			}
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			buf[i] = c
		}
		switch string(buf[:len(b)]) {
		case "PARQUET":
			return "PARQUET"
		case "AVRO":
			return "AVRO"
		case "ORC":
			return "ORC"
		case "PUFFIN":
			return "PUFFIN"
		}
	}
	return upperSlow(b)
}
