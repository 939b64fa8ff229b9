package iceberg

import (
	"crypto/rand"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// Table properties Iceberg Java reserves: they describe the metadata
// rather than configure the table, so a new table does not keep them.
var reservedProperties = map[string]bool{
	"format-version":                true,
	"uuid":                          true,
	"snapshot-count":                true,
	"current-snapshot-id":           true,
	"current-snapshot-summary":      true,
	"current-snapshot-timestamp-ms": true,
	"current-schema":                true,
	"default-partition-spec":        true,
	"default-sort-order":            true,
}

// DefaultFormatVersion is the format version of a new table without a
// format-version property (Iceberg Java's default).
const DefaultFormatVersion = 2

// NewTableMetadata returns the metadata of a new table as Iceberg Java's
// TableMetadata.newTableMetadata builds it: field ids assigned afresh from
// 1 in the order Iceberg assigns them (TypeUtil.assignFreshIds: a struct's
// fields first, then their children), partition field ids from 1000 (ids
// the spec gives are kept), sort order id 1 (0 when unsorted), a random v4
// table-uuid, format version from props["format-version"] (default 2; the
// property itself and Java's other reserved properties are not kept, and
// write.parquet.compression-codec defaults to zstd as Java sets it for new
// tables), schema id 0, spec id 0, last-sequence-number 0, no snapshots,
// next-row-id 0 for v3. spec and order refer to source columns by the field
// ids of schema as given; they are remapped to the fresh ids.
func NewTableMetadata(schema *Schema, spec PartitionSpec, order SortOrder, location string, props map[string]string) (*TableMetadata, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: new table at %s: no schema", ErrInvalidMetadata, location)
	}
	version := DefaultFormatVersion
	if v, ok := props["format-version"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > MaxFormatVersion {
			return nil, fmt.Errorf("%w: new table at %s: format-version %q (supported: 1 to %d)", ErrUnsupportedVersion, location, v, MaxFormatVersion)
		}
		version = n
	}
	fresh, ids := freshSchema(schema)
	if err := checkSchemaForVersion(fresh, version); err != nil {
		return nil, fmt.Errorf("%w: new table at %s: %v", ErrInvalidMetadata, location, err)
	}
	newSpec, lastPartition, err := freshSpec(spec, ids)
	if err != nil {
		return nil, fmt.Errorf("%w: new table at %s: %v", ErrInvalidMetadata, location, err)
	}
	newOrder, err := freshOrder(order, ids)
	if err != nil {
		return nil, fmt.Errorf("%w: new table at %s: %v", ErrInvalidMetadata, location, err)
	}
	properties := map[string]string{"write.parquet.compression-codec": "zstd"}
	for k, v := range maps.All(props) {
		if !reservedProperties[k] {
			properties[k] = v
		}
	}
	uuid, err := newUUID()
	if err != nil {
		return nil, fmt.Errorf("new table at %s: table uuid: %w", location, err)
	}
	md := &TableMetadata{
		FormatVersion:      version,
		TableUUID:          uuid,
		Location:           strings.TrimRight(location, "/"),
		LastUpdatedMs:      nowMs(),
		LastColumnID:       fresh.HighestFieldID(),
		Schemas:            []*Schema{fresh},
		CurrentSchemaID:    0,
		Specs:              []PartitionSpec{newSpec},
		DefaultSpecID:      0,
		LastPartitionID:    lastPartition,
		Properties:         properties,
		SortOrders:         []SortOrder{newOrder},
		DefaultSortOrderID: newOrder.OrderID,
		Refs:               map[string]SnapshotRef{},
	}
	if version >= 3 {
		zero := int64(0)
		md.NextRowID = &zero
	}
	return md, nil
}

// freshSchema renumbers schema's fields from 1 as TypeUtil.assignFreshIds
// does and returns the old-to-new id map.
func freshSchema(schema *Schema) (*Schema, map[int]int) {
	ids := map[int]int{}
	next := 0
	nextID := func(old int) int {
		next++
		ids[old] = next
		return next
	}
	var freshType func(t Type) Type
	freshFields := func(fields []NestedField) []NestedField {
		out := make([]NestedField, len(fields))
		// A struct's own fields first, then what is below each of them.
		for i, f := range fields {
			out[i] = f
			out[i].ID = nextID(f.ID)
		}
		for i := range out {
			out[i].Type = freshType(out[i].Type)
		}
		return out
	}
	freshType = func(t Type) Type {
		switch t := t.(type) {
		case *StructType:
			return &StructType{Fields: freshFields(t.Fields)}
		case *ListType:
			id := nextID(t.ElementID)
			return &ListType{ElementID: id, Element: freshType(t.Element), ElementRequired: t.ElementRequired}
		case *MapType:
			key, value := nextID(t.KeyID), nextID(t.ValueID)
			return &MapType{KeyID: key, Key: freshType(t.Key), ValueID: value, Value: freshType(t.Value), ValueRequired: t.ValueRequired}
		}
		return t
	}
	fresh := NewSchema(0, freshFields(schema.Fields)...)
	for _, id := range schema.IdentifierFieldIDs {
		if n, ok := ids[id]; ok {
			fresh.IdentifierFieldIDs = append(fresh.IdentifierFieldIDs, n)
		}
	}
	return fresh, ids
}

func freshSpec(spec PartitionSpec, ids map[int]int) (PartitionSpec, int, error) {
	out := PartitionSpec{ID: 0, Fields: make([]PartitionField, len(spec.Fields))}
	last := partitionDataIDStart - 1
	for i, f := range spec.Fields {
		src, ok := ids[f.SourceID]
		if !ok {
			return PartitionSpec{}, 0, fmt.Errorf("partition field %q: source column %d is not in the schema", f.Name, f.SourceID)
		}
		if f.Transform == nil {
			return PartitionSpec{}, 0, fmt.Errorf("partition field %q without a transform", f.Name)
		}
		if f.FieldID == 0 {
			f.FieldID = partitionDataIDStart + i
		}
		f.SourceID = src
		out.Fields[i] = f
		last = max(last, f.FieldID)
	}
	return out, last, nil
}

func freshOrder(order SortOrder, ids map[int]int) (SortOrder, error) {
	if len(order.Fields) == 0 {
		return SortOrder{OrderID: 0, Fields: []SortField{}}, nil
	}
	out := SortOrder{OrderID: 1, Fields: make([]SortField, len(order.Fields))}
	for i, f := range order.Fields {
		src, ok := ids[f.SourceID]
		if !ok {
			return SortOrder{}, fmt.Errorf("sort field: source column %d is not in the schema", f.SourceID)
		}
		f.SourceID = src
		out.Fields[i] = f
	}
	return out, nil
}

// checkSchemaForVersion refuses what a format version cannot hold, as
// Java's Schema.checkCompatibility: v3 types and initial defaults before v3.
func checkSchemaForVersion(s *Schema, version int) error {
	if version >= 3 {
		return nil
	}
	var check func(fields []NestedField) error
	var checkType func(name string, t Type) error
	check = func(fields []NestedField) error {
		for _, f := range fields {
			if f.InitialDefault != nil {
				return fmt.Errorf("field %q: an initial-default needs format version 3, table has %d", f.Name, version)
			}
			if err := checkType(f.Name, f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	checkType = func(name string, t Type) error {
		switch t := t.(type) {
		case TimestampNsType, TimestampTzNsType, UnknownType, VariantType, GeometryType, GeographyType:
			return fmt.Errorf("field %q: type %s needs format version 3, table has %d", name, t, version)
		case *StructType:
			return check(t.Fields)
		case *ListType:
			return checkType(name, t.Element)
		case *MapType:
			if err := checkType(name, t.Key); err != nil {
				return err
			}
			return checkType(name, t.Value)
		}
		return nil
	}
	return check(s.Fields)
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
