package iceberg

import (
	"encoding/json"
	"fmt"
)

// MappedField maps the names a column had in data files without field ids
// to its field id (spec: Column Projection, name mapping).
type MappedField struct {
	FieldID *int          `json:"field-id,omitempty"`
	Names   []string      `json:"names"`
	Fields  []MappedField `json:"fields,omitempty"`
}

// NameMapping is the value of the schema.name-mapping.default property.
type NameMapping []MappedField

// ParseNameMapping parses a name mapping from its JSON form.
func ParseNameMapping(b []byte) (NameMapping, error) {
	var m NameMapping
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: name mapping: %v", ErrInvalidMetadata, err)
	}
	return m, nil
}

// Find returns the field id mapped to a name among these fields.
func (m NameMapping) Find(name string) (MappedField, bool) {
	for _, f := range m {
		for _, n := range f.Names {
			if n == name {
				return f, true
			}
		}
	}
	return MappedField{}, false
}
