package planner

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// Dictionary asks for string and binary columns as Arrow dictionaries: the
// reader then passes Parquet's dictionary-encoded chunks through instead
// of unpacking them, which saves the server the unpacking and the wire
// the repeated bytes.
type Dictionary struct {
	// All asks for every top-level string and binary column of the
	// projection (metadata columns aside).
	All bool
	// Columns names top-level string or binary columns of the projection.
	Columns []string
}

// DictionaryFields resolves d against the projected schema to the field
// ids to read as dictionaries, in schema order: a name that is not a
// top-level column of the projection, or whose type is neither string nor
// binary, is an ErrInvalidRequest.
func DictionaryFields(schema *iceberg.Schema, d Dictionary, caseSensitive bool) ([]int, error) {
	want := make(map[int]bool)
	for _, name := range d.Columns {
		f, ok := schema.FindColumn(name, caseSensitive)
		if !ok {
			return nil, fmt.Errorf("%w: dictionary column %q is not a top-level column of the projection", ErrInvalidRequest, name)
		}
		if !iceberg.IsStringOrBinary(f.Type) {
			return nil, fmt.Errorf("%w: dictionary column %q is %s: only string and binary columns are sent as dictionaries",
				ErrInvalidRequest, name, f.Type)
		}
		want[f.ID] = true
	}
	var ids []int
	for _, f := range schema.Fields {
		if want[f.ID] || (d.All && !iceberg.IsMetadataColumnID(f.ID) && iceberg.IsStringOrBinary(f.Type)) {
			ids = append(ids, f.ID)
		}
	}
	return ids, nil
}
