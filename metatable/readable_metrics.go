package metatable

import (
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/iceflight/iceflight/iceberg"
)

// Not in the spec, but in Iceberg Java (MetricsUtil.readableMetricsSchema):
// the files and entries tables end with readable_metrics, a struct with,
// for each primitive column of the current schema (nested ones by their
// dotted name), a struct of its six metrics, bounds typed as the column. The
// column structs are ordered by name; their field ids count up from the
// highest id of the rest of the metadata table's schema, column by column
// in the order Java's Schema.idToName() iterates, which is the order of a
// java.util.HashMap of the columns' names (see javaHashOrder); the
// readable_metrics struct takes the next id.

// metricName is one of a column's readable metrics.
type metricName struct{ name, doc string }

// readableMetrics are a column's metrics, in their order, with Java's docs.
var readableMetrics = [...]metricName{
	{"column_size", "Total size on disk"},
	{"value_count", "Total count, including null and NaN"},
	{"null_value_count", "Null value count"},
	{"nan_value_count", "NaN value count"},
	{"lower_bound", "Lower bound"},
	{"upper_bound", "Upper bound"},
}

// Positions of the metrics in readableMetrics.
const (
	metricColumnSize = iota
	metricValueCount
	metricNullCount
	metricNaNCount
	metricLowerBound
	metricUpperBound
)

// readableColumn is a column of readable_metrics: the table column it
// describes, by id and type.
type readableColumn struct {
	sourceID int
	typ      iceberg.Type
}

// readableMetricsName is the column's name.
const readableMetricsName = "readable_metrics"

// readableMetricsField returns the readable_metrics field of a metadata
// table whose other fields' highest id is highest, for the table schema
// table.
func readableMetricsField(table *iceberg.Schema, highest int) iceberg.NestedField {
	next := highest
	var cols []iceberg.NestedField
	for _, c := range javaHashOrder(indexNames(table)) {
		f, _ := table.FieldByID(c.id)
		if !isMetricColumn(f.Type) {
			continue
		}
		next++
		col := iceberg.NestedField{ID: next, Name: c.name, Doc: "Metrics for column " + c.name}
		metrics := make([]iceberg.NestedField, len(readableMetrics))
		for i, m := range readableMetrics {
			next++
			t := iceberg.Type(iceberg.LongType{})
			if i == metricLowerBound || i == metricUpperBound {
				t = f.Type
			}
			metrics[i] = iceberg.NestedField{ID: next, Name: m.name, Type: t, Doc: m.doc}
		}
		col.Type = &iceberg.StructType{Fields: metrics}
		cols = append(cols, col)
	}
	slices.SortStableFunc(cols, func(a, b iceberg.NestedField) int { return compareUTF16(a.Name, b.Name) })
	next++
	return iceberg.NestedField{ID: next, Name: readableMetricsName, Type: &iceberg.StructType{Fields: cols}, Doc: "Column metrics in readable form"}
}

// readableColumns returns, for each column of a readable_metrics struct
// type (all of it or a projection), the table column it describes, found
// by name in the table schema.
func readableColumns(table *iceberg.Schema, rm *iceberg.StructType) map[int]readableColumn {
	ids := map[string]int{}
	for _, c := range indexNames(table) {
		ids[c.name] = c.id
	}
	out := make(map[int]readableColumn, len(rm.Fields))
	for _, col := range rm.Fields {
		id, ok := ids[col.Name]
		if !ok {
			continue
		}
		f, _ := table.FieldByID(id)
		out[col.ID] = readableColumn{sourceID: id, typ: f.Type}
	}
	return out
}

// isMetricColumn reports whether Java keeps metrics of a column of type t:
// its primitive types (unknown, geometry and geography included), not the
// variant, which is no primitive in Java.
func isMetricColumn(t iceberg.Type) bool {
	switch t.(type) {
	case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType, iceberg.VariantType:
		return false
	}
	return true
}

// namedID is a field's full name (dotted, "element", "key" and "value"
// for what is inside lists and maps) and id.
type namedID struct {
	name string
	id   int
}

// indexNames lists every field of a schema by full name in the order
// Iceberg Java's IndexByName visits them: a field after what is below it,
// a list's element and a map's key and value after what is below them.
func indexNames(s *iceberg.Schema) []namedID {
	var out []namedID
	var visitType func(t iceberg.Type, path []string)
	visitFields := func(fields []iceberg.NestedField, path []string) {
		for _, f := range fields {
			p := append(slices.Clip(path), f.Name)
			visitType(f.Type, p)
			out = append(out, namedID{strings.Join(p, "."), f.ID})
		}
	}
	visitType = func(t iceberg.Type, path []string) {
		switch t := t.(type) {
		case *iceberg.StructType:
			visitFields(t.Fields, path)
		case *iceberg.ListType:
			visitType(t.Element, append(slices.Clip(path), "element"))
			out = append(out, namedID{strings.Join(append(slices.Clip(path), "element"), "."), t.ElementID})
		case *iceberg.MapType:
			visitType(t.Key, append(slices.Clip(path), "key"))
			visitType(t.Value, append(slices.Clip(path), "value"))
			out = append(out, namedID{strings.Join(append(slices.Clip(path), "key"), "."), t.KeyID})
			out = append(out, namedID{strings.Join(append(slices.Clip(path), "value"), "."), t.ValueID})
		}
	}
	visitFields(s.Fields, nil)
	return out
}

// compareUTF16 compares strings as Java's String.compareTo does: by UTF-16
// code units, which orders characters beyond U+FFFF before U+E000-U+FFFF,
// unlike a comparison of UTF-8 bytes.
func compareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}
