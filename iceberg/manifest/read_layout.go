package manifest

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// manifestLayout is a manifest schema compiled for one partition type:
// what to do with each field of the writer's manifest_entry and data_file
// records, in the writer's order.
type manifestLayout struct {
	entry, file *recordLayout
	part        partitionLayout
}

// partitionLayout decodes the partition record into one literal per field
// of the partition type.
type partitionLayout struct {
	rec    *avro.Schema     // the writer's partition record; nil when there is none
	fields []partitionField // the record's fields, in the writer's order
	n      int              // the number of partition values
	names  []string         // each value's Avro field name, for errors
}

// partitionField is one field of the writer's partition record and the
// partition values it gives (none: skipped).
type partitionField struct {
	typ  *avro.Schema
	outs []partitionOut
}

// partitionOut decodes a partition field into the value at index: plans
// holds one plan per union branch, or one for a field that is no union.
type partitionOut struct {
	index int
	plans []literalPlan
}

func newManifestLayout(s *avro.Schema, pt *iceberg.StructType) (*manifestLayout, error) {
	l := &manifestLayout{entry: compileRecord(s, entryFields)}
	df := l.entry.field(idDataFile)
	if !l.entry.present.has(idStatus) || df == nil || df.typ.Kind != avro.KindRecord {
		return nil, fmt.Errorf("%w: manifest schema lacks status or a data_file record", iceberg.ErrInvalidMetadata)
	}
	l.file = compileRecord(df.typ, dataFileFields)
	for _, id := range []int{idFilePath, idFileFormat, idRecordCount, idFileSize} {
		if !l.file.present.has(id) {
			return nil, fmt.Errorf("%w: manifest schema lacks file_path, file_format, record_count or file_size_in_bytes", iceberg.ErrInvalidMetadata)
		}
	}
	for i := range l.file.ops {
		op := &l.file.ops[i]
		for _, id := range op.ids {
			switch id {
			case idColumnSizes, idValueCounts, idNullValueCounts, idNaNValueCounts, idLowerBounds, idUpperBounds:
				op.kv = compileKV(op.name, op.typ)
			}
		}
	}
	var partType *avro.Schema
	if f := l.file.field(idPartition); f != nil {
		partType = f.typ
	}
	l.part = compilePartition(partType, pt)
	return l, nil
}

// compilePartition matches the spec's partition fields to the Avro partition
// record's fields: by field-id when the writer recorded them (the spec asks
// for the partition field ids), else by name, else by position. Without a
// partition type the Avro fields are taken in order, typed by Avro alone.
func compilePartition(s *avro.Schema, pt *iceberg.StructType) partitionLayout {
	rec := s
	if rec != nil && rec.Kind == avro.KindUnion {
		for _, b := range rec.Branches {
			if b.Kind == avro.KindRecord {
				rec = b
			}
		}
	}
	var p partitionLayout
	if rec != nil && rec.Kind == avro.KindRecord {
		p.rec = rec
		p.fields = make([]partitionField, len(rec.Fields))
		for i, f := range rec.Fields {
			p.fields[i].typ = f.Type
		}
	}
	add := func(field int, t iceberg.Type) {
		name := ""
		if field >= 0 {
			f := &p.fields[field]
			name = p.rec.Fields[field].Name
			f.outs = append(f.outs, partitionOut{index: p.n, plans: literalPlans(f.typ, t)})
		}
		p.names = append(p.names, name)
		p.n++
	}
	if pt == nil {
		for i := range p.fields {
			add(i, iceberg.UnknownType{})
		}
		return p
	}
	hasIDs := false
	if p.rec != nil {
		for _, f := range p.rec.Fields {
			hasIDs = hasIDs || f.ID() >= 0
		}
	}
	for i, f := range pt.Fields {
		field := fieldIndex(p.rec, f.ID, f.Name)
		if field < 0 && !hasIDs && i < len(p.fields) {
			field = i
		}
		add(field, f.Type)
	}
	return p
}

// literalPlans compiles the conversion of each branch of a field's type.
func literalPlans(s *avro.Schema, t iceberg.Type) []literalPlan {
	if s.Kind != avro.KindUnion {
		return []literalPlan{compileLiteral(s, t)}
	}
	plans := make([]literalPlan, len(s.Branches))
	for i, b := range s.Branches {
		plans[i] = compileLiteral(b, t)
	}
	return plans
}
