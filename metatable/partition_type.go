package metatable

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/iceflight/iceflight/iceberg"
)

// partitionType is the table's partition type as Iceberg Java's
// Partitioning.partitionType(table) builds it for metadata tables: every
// partition field of every spec whose source column is in the current
// schema, by partition field id ascending, each optional. A field in
// several specs takes its name from the newest spec that has it, and its
// type from the newest that does not void it (v1 tables void a dropped
// field and keep its id). A transform Iceberg does not know has no known
// type, and Java refuses the table: so does this.
func partitionType(md *iceberg.TableMetadata) (*iceberg.StructType, error) {
	current := md.CurrentSchema()
	specs := slices.Clone(md.Specs)
	slices.SortFunc(specs, func(a, b iceberg.PartitionSpec) int { return cmp.Compare(b.ID, a.ID) })
	type entry struct {
		field iceberg.NestedField
		void  bool
	}
	byID := map[int]*entry{}
	for _, spec := range specs {
		for _, f := range spec.Fields {
			if u, unknown := f.Transform.(iceberg.UnknownTransform); unknown {
				return nil, fmt.Errorf("%w: partition spec %d: unknown transform %q", iceberg.ErrInvalidMetadata, spec.ID, u.Name)
			}
			src, ok := current.FieldByID(f.SourceID)
			if !ok {
				continue
			}
			_, void := f.Transform.(iceberg.VoidTransform)
			t := f.Transform.ResultType(src.Type)
			e, seen := byID[f.FieldID]
			switch {
			case !seen:
				byID[f.FieldID] = &entry{field: iceberg.NestedField{ID: f.FieldID, Name: f.Name, Type: t}, void: void}
			case e.void && !void:
				e.field.Type, e.void = t, false
			}
		}
	}
	fields := make([]iceberg.NestedField, 0, len(byID))
	for _, e := range byID {
		fields = append(fields, e.field)
	}
	slices.SortFunc(fields, func(a, b iceberg.NestedField) int { return cmp.Compare(a.ID, b.ID) })
	return &iceberg.StructType{Fields: fields}, nil
}
