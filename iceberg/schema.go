package iceberg

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// NestedField is a field of a struct: a column of a schema or a member of a
// nested struct, identified by its field id.
type NestedField struct {
	ID       int
	Name     string
	Type     Type
	Required bool
	Doc      string
	// InitialDefault is the v3 initial-default in the spec's JSON single-value
	// form: the value a reader fills in for rows written before the field
	// existed. Nil when absent.
	InitialDefault json.RawMessage
	// WriteDefault is the v3 write-default in JSON single-value form.
	WriteDefault json.RawMessage
}

// Schema is a table schema: a struct of top-level fields with a schema id.
type Schema struct {
	ID                 int
	Fields             []NestedField
	IdentifierFieldIDs []int

	byID map[int]NestedField
}

// NewSchema returns a schema with the given id and top-level fields.
func NewSchema(id int, fields ...NestedField) *Schema {
	s := &Schema{ID: id, Fields: fields}
	s.index()
	return s
}

// AsStruct returns the schema's top-level fields as a struct type.
func (s *Schema) AsStruct() *StructType { return &StructType{Fields: s.Fields} }

func (s *Schema) String() string { return s.AsStruct().String() }

func (s *Schema) index() {
	s.byID = make(map[int]NestedField)
	var walk func(fields []NestedField)
	var walkType func(t Type)
	walk = func(fields []NestedField) {
		for _, f := range fields {
			s.byID[f.ID] = f
			walkType(f.Type)
		}
	}
	walkType = func(t Type) {
		switch t := t.(type) {
		case *StructType:
			walk(t.Fields)
		case *ListType:
			walk([]NestedField{t.ElementField()})
		case *MapType:
			walk([]NestedField{t.KeyField(), t.ValueField()})
		}
	}
	walk(s.Fields)
}

// FieldByID returns the field with the given id at any depth.
func (s *Schema) FieldByID(id int) (NestedField, bool) {
	if s.byID == nil {
		s.index()
	}
	f, ok := s.byID[id]
	return f, ok
}

// HighestFieldID returns the largest field id used anywhere in the schema.
func (s *Schema) HighestFieldID() int {
	if s.byID == nil {
		s.index()
	}
	max := 0
	for id := range s.byID {
		if id > max {
			max = id
		}
	}
	return max
}

// FindColumn returns the top-level field with the given name. With
// caseSensitive false, names are compared with strings.EqualFold.
func (s *Schema) FindColumn(name string, caseSensitive bool) (NestedField, bool) {
	for _, f := range s.Fields {
		if f.Name == name || (!caseSensitive && strings.EqualFold(f.Name, name)) {
			return f, true
		}
	}
	return NestedField{}, false
}

// ColumnNames returns the names of the top-level columns in order.
func (s *Schema) ColumnNames() []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

// jsonField is the spec's JSON form of a struct field.
type jsonField struct {
	ID             int             `json:"id"`
	Name           string          `json:"name"`
	Required       bool            `json:"required"`
	Type           json.RawMessage `json:"type"`
	Doc            string          `json:"doc,omitempty"`
	InitialDefault json.RawMessage `json:"initial-default,omitempty"`
	WriteDefault   json.RawMessage `json:"write-default,omitempty"`
}

type jsonSchema struct {
	Type               string      `json:"type"`
	SchemaID           int         `json:"schema-id"`
	IdentifierFieldIDs []int       `json:"identifier-field-ids,omitempty"`
	Fields             []jsonField `json:"fields"`
}

type jsonNested struct {
	Type            string          `json:"type"`
	Fields          []jsonField     `json:"fields"`
	ElementID       int             `json:"element-id"`
	Element         json.RawMessage `json:"element"`
	ElementRequired bool            `json:"element-required"`
	KeyID           int             `json:"key-id"`
	Key             json.RawMessage `json:"key"`
	ValueID         int             `json:"value-id"`
	Value           json.RawMessage `json:"value"`
	ValueRequired   bool            `json:"value-required"`
}

// UnmarshalJSON reads a schema in the spec's JSON form.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var js jsonSchema
	if err := json.Unmarshal(b, &js); err != nil {
		return fmt.Errorf("%w: schema: %v", ErrInvalidMetadata, err)
	}
	fields, err := parseFields(js.Fields)
	if err != nil {
		return err
	}
	*s = Schema{ID: js.SchemaID, Fields: fields, IdentifierFieldIDs: js.IdentifierFieldIDs}
	s.index()
	return nil
}

// MarshalJSON writes a schema in the spec's JSON form.
func (s *Schema) MarshalJSON() ([]byte, error) {
	fields, err := marshalFields(s.Fields)
	if err != nil {
		return nil, err
	}
	return json.Marshal(jsonSchema{Type: "struct", SchemaID: s.ID, IdentifierFieldIDs: s.IdentifierFieldIDs, Fields: fields})
}

func parseFields(in []jsonField) ([]NestedField, error) {
	out := make([]NestedField, len(in))
	for i, jf := range in {
		t, err := ParseTypeJSON(jf.Type)
		if err != nil {
			return nil, fmt.Errorf("field %d %q: %w", jf.ID, jf.Name, err)
		}
		out[i] = NestedField{ID: jf.ID, Name: jf.Name, Type: t, Required: jf.Required, Doc: jf.Doc,
			InitialDefault: nullToNil(jf.InitialDefault), WriteDefault: nullToNil(jf.WriteDefault)}
	}
	return out, nil
}

func nullToNil(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return m
}

// ParseTypeJSON parses a type in the spec's JSON form: a string for a
// primitive, an object for struct, list and map.
func ParseTypeJSON(b json.RawMessage) (Type, error) {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		return ParsePrimitiveType(name)
	}
	var n jsonNested
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("%w: type %s: %v", ErrInvalidMetadata, string(b), err)
	}
	switch n.Type {
	case "struct":
		fields, err := parseFields(n.Fields)
		if err != nil {
			return nil, err
		}
		return &StructType{Fields: fields}, nil
	case "list":
		elem, err := ParseTypeJSON(n.Element)
		if err != nil {
			return nil, fmt.Errorf("list element %d: %w", n.ElementID, err)
		}
		return &ListType{ElementID: n.ElementID, Element: elem, ElementRequired: n.ElementRequired}, nil
	case "map":
		key, err := ParseTypeJSON(n.Key)
		if err != nil {
			return nil, fmt.Errorf("map key %d: %w", n.KeyID, err)
		}
		val, err := ParseTypeJSON(n.Value)
		if err != nil {
			return nil, fmt.Errorf("map value %d: %w", n.ValueID, err)
		}
		return &MapType{KeyID: n.KeyID, Key: key, ValueID: n.ValueID, Value: val, ValueRequired: n.ValueRequired}, nil
	}
	return nil, fmt.Errorf("%w: unknown nested type %q", ErrInvalidMetadata, n.Type)
}

func marshalFields(in []NestedField) ([]jsonField, error) {
	out := make([]jsonField, len(in))
	for i, f := range in {
		t, err := MarshalTypeJSON(f.Type)
		if err != nil {
			return nil, err
		}
		out[i] = jsonField{ID: f.ID, Name: f.Name, Required: f.Required, Type: t, Doc: f.Doc,
			InitialDefault: f.InitialDefault, WriteDefault: f.WriteDefault}
	}
	return out, nil
}

// MarshalTypeJSON writes a type in the spec's JSON form.
func MarshalTypeJSON(t Type) (json.RawMessage, error) {
	switch t := t.(type) {
	case *StructType:
		fields, err := marshalFields(t.Fields)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Type   string      `json:"type"`
			Fields []jsonField `json:"fields"`
		}{"struct", fields})
	case *ListType:
		elem, err := MarshalTypeJSON(t.Element)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Type            string          `json:"type"`
			ElementID       int             `json:"element-id"`
			Element         json.RawMessage `json:"element"`
			ElementRequired bool            `json:"element-required"`
		}{"list", t.ElementID, elem, t.ElementRequired})
	case *MapType:
		key, err := MarshalTypeJSON(t.Key)
		if err != nil {
			return nil, err
		}
		val, err := MarshalTypeJSON(t.Value)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Type          string          `json:"type"`
			KeyID         int             `json:"key-id"`
			Key           json.RawMessage `json:"key"`
			ValueID       int             `json:"value-id"`
			Value         json.RawMessage `json:"value"`
			ValueRequired bool            `json:"value-required"`
		}{"map", t.KeyID, key, t.ValueID, val, t.ValueRequired})
	case DecimalType:
		// Iceberg Java (and PyIceberg) spell it with a space.
		return json.Marshal(fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale))
	case nil:
		return nil, fmt.Errorf("%w: nil type", ErrInvalidMetadata)
	default:
		return json.Marshal(t.String())
	}
}

// SortedFieldIDs returns the ids of every field in the schema, ascending.
func (s *Schema) SortedFieldIDs() []int {
	if s.byID == nil {
		s.index()
	}
	ids := make([]int, 0, len(s.byID))
	for id := range s.byID {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}
