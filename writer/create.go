package writer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// firstPartitionFieldID is where Iceberg numbers partition fields from.
const firstPartitionFieldID = 1000

// CreateTable creates a table with the request's columns, partition
// spec, sort order and properties, through the catalog. With IfNotExists
// an existing table is returned as it is; otherwise it is an error
// wrapping catalog.ErrTableExists.
func (w *Writer) CreateTable(ctx context.Context, id catalog.Identifier, req CreateTable) (*catalog.Table, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	md, err := newMetadata(req)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	t, err := w.cat.CreateTable(ctx, id, md)
	if err != nil {
		if req.IfNotExists && errors.Is(err, catalog.ErrTableExists) {
			return w.load(ctx, id)
		}
		return nil, fmt.Errorf("create table %s: %w", id, err)
	}
	return t, nil
}

// newMetadata builds a new table's first metadata from the request.
func newMetadata(req CreateTable) (*iceberg.TableMetadata, error) {
	if req.Schema == nil {
		return nil, fmt.Errorf("%w: no schema", ErrInvalidArgument)
	}
	schema, err := iceberg.SchemaFromArrow(req.Schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	spec, err := partitionSpec(schema, req.PartitionBy)
	if err != nil {
		return nil, err
	}
	order, err := sortOrder(schema, req.SortBy)
	if err != nil {
		return nil, err
	}
	props := maps.Clone(req.Properties)
	if props == nil {
		props = map[string]string{}
	}
	if req.FormatVersion != 0 {
		if v, ok := props["format-version"]; ok && v != strconv.Itoa(req.FormatVersion) {
			return nil, fmt.Errorf("%w: format version %d and property format-version=%s disagree", ErrInvalidArgument, req.FormatVersion, v)
		}
		props["format-version"] = strconv.Itoa(req.FormatVersion)
	}
	if v, ok := props["format-version"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > iceberg.MaxFormatVersion {
			return nil, fmt.Errorf("%w: format version %q (1 to %d)", ErrInvalidArgument, v, iceberg.MaxFormatVersion)
		}
	}
	md, err := iceberg.NewTableMetadata(schema, spec, order, req.Location, props)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return md, nil
}

// findField finds a column by its dotted name ("a.b" inside struct a),
// as Iceberg Java's Schema.findField does: a top-level name holding dots
// wins over the nested reading.
func findField(schema *iceberg.Schema, name string) (iceberg.NestedField, bool) {
	if f, ok := schema.FindColumn(name, true); ok {
		return f, true
	}
	fields := schema.Fields
	parts := strings.Split(name, ".")
	for i, p := range parts {
		var found *iceberg.NestedField
		for j := range fields {
			if fields[j].Name == p {
				found = &fields[j]
				break
			}
		}
		if found == nil {
			return iceberg.NestedField{}, false
		}
		if i == len(parts)-1 {
			return *found, true
		}
		st, ok := found.Type.(*iceberg.StructType)
		if !ok {
			return iceberg.NestedField{}, false
		}
		fields = st.Fields
	}
	return iceberg.NestedField{}, false
}

// partitionSpec builds spec 0 from the request's fields, naming unnamed
// fields as Iceberg Java's PartitionSpec.Builder does.
func partitionSpec(schema *iceberg.Schema, fields []PartitionField) (iceberg.PartitionSpec, error) {
	spec := iceberg.PartitionSpec{ID: 0}
	names := map[string]bool{}
	for i, pf := range fields {
		src, ok := findField(schema, pf.Source)
		if !ok {
			return spec, fmt.Errorf("%w: partition source column %q not found", ErrInvalidArgument, pf.Source)
		}
		tr := iceberg.ParseTransform(pf.Transform)
		if pf.Transform == "" {
			tr = iceberg.IdentityTransform{}
		}
		if _, unknown := tr.(iceberg.UnknownTransform); unknown {
			return spec, fmt.Errorf("%w: partition transform %q of %s (identity, bucket[N], truncate[W], year, month, day, hour, void)", ErrInvalidArgument, pf.Transform, pf.Source)
		}
		if err := checkTransform(tr, src); err != nil {
			return spec, err
		}
		name := pf.Name
		if name == "" {
			name = partitionName(pf.Source, tr)
		}
		if names[name] {
			return spec, fmt.Errorf("%w: partition field name %q used twice", ErrInvalidArgument, name)
		}
		names[name] = true
		spec.Fields = append(spec.Fields, iceberg.PartitionField{SourceID: src.ID, FieldID: firstPartitionFieldID + i, Name: name, Transform: tr})
	}
	return spec, nil
}

// partitionName is Java's default partition field name for a transform.
func partitionName(source string, tr iceberg.Transform) string {
	switch tr.(type) {
	case iceberg.IdentityTransform:
		return source
	case iceberg.BucketTransform:
		return source + "_bucket"
	case iceberg.TruncateTransform:
		return source + "_trunc"
	case iceberg.YearTransform:
		return source + "_year"
	case iceberg.MonthTransform:
		return source + "_month"
	case iceberg.DayTransform:
		return source + "_day"
	case iceberg.HourTransform:
		return source + "_hour"
	case iceberg.VoidTransform:
		return source + "_null"
	}
	return source + "_" + tr.String()
}

// checkTransform refuses transforms the spec does not define for the
// source column's type.
func checkTransform(tr iceberg.Transform, src iceberg.NestedField) error {
	bad := func() error {
		return fmt.Errorf("%w: transform %s cannot apply to column %s of type %s", ErrInvalidArgument, tr, src.Name, src.Type)
	}
	switch src.Type.(type) {
	case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType:
		return bad()
	}
	switch t := tr.(type) {
	case iceberg.BucketTransform:
		if t.N <= 0 {
			return fmt.Errorf("%w: bucket count %d of %s", ErrInvalidArgument, t.N, src.Name)
		}
		switch src.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType, iceberg.BooleanType:
			return bad()
		}
	case iceberg.TruncateTransform:
		if t.Width <= 0 {
			return fmt.Errorf("%w: truncate width %d of %s", ErrInvalidArgument, t.Width, src.Name)
		}
		switch src.Type.(type) {
		case iceberg.IntType, iceberg.LongType, iceberg.StringType, iceberg.BinaryType, iceberg.DecimalType:
		default:
			return bad()
		}
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform:
		switch src.Type.(type) {
		case iceberg.DateType, iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		default:
			return bad()
		}
	case iceberg.HourTransform:
		switch src.Type.(type) {
		case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		default:
			return bad()
		}
	}
	return nil
}

// sortOrder builds the table's first sort order: id 1, or the unsorted
// order 0 with no fields.
func sortOrder(schema *iceberg.Schema, fields []SortField) (iceberg.SortOrder, error) {
	if len(fields) == 0 {
		return iceberg.SortOrder{OrderID: 0, Fields: []iceberg.SortField{}}, nil
	}
	order := iceberg.SortOrder{OrderID: 1}
	for _, sf := range fields {
		src, ok := findField(schema, sf.Source)
		if !ok {
			return order, fmt.Errorf("%w: sort column %q not found", ErrInvalidArgument, sf.Source)
		}
		tr := "identity"
		if sf.Transform != "" {
			parsed := iceberg.ParseTransform(sf.Transform)
			if _, unknown := parsed.(iceberg.UnknownTransform); unknown {
				return order, fmt.Errorf("%w: sort transform %q of %s", ErrInvalidArgument, sf.Transform, sf.Source)
			}
			if err := checkTransform(parsed, src); err != nil {
				return order, err
			}
			tr = parsed.String()
		}
		dir := strings.ToLower(sf.Direction)
		switch dir {
		case "":
			dir = "asc"
		case "asc", "desc":
		default:
			return order, fmt.Errorf("%w: sort direction %q of %s (asc or desc)", ErrInvalidArgument, sf.Direction, sf.Source)
		}
		nulls := strings.ToLower(sf.NullOrder)
		switch nulls {
		case "":
			// Java's SortOrder.Builder: nulls first ascending, last descending.
			nulls = "nulls-first"
			if dir == "desc" {
				nulls = "nulls-last"
			}
		case "nulls-first", "nulls-last":
		default:
			return order, fmt.Errorf("%w: null order %q of %s (nulls-first or nulls-last)", ErrInvalidArgument, sf.NullOrder, sf.Source)
		}
		order.Fields = append(order.Fields, iceberg.SortField{SourceID: src.ID, Transform: tr, Direction: dir, NullOrder: nulls})
	}
	return order, nil
}
