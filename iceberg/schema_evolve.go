package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrInvalidChange marks a schema, partition spec or sort order change
// that Iceberg does not allow (an unsafe type change, a dropped identifier
// field, a duplicate name); the message names the column or field.
var ErrInvalidChange = errors.New("invalid table change")

// SchemaUpdate evolves a table's current schema, change by change, with
// the rules of Iceberg Java's SchemaUpdate: new columns are optional
// (required only with a v3 default) and take ids from last-column-id+1,
// type changes are the spec's promotions only, identifier fields and the
// source columns of the default partition spec and sort order cannot be
// dropped, and moves stay within one struct. Each change applies to the
// schema as the changes before it left it, so a renamed column is then
// known by its new name.
type SchemaUpdate struct {
	base          *TableMetadata
	fields        []NestedField
	identifiers   []int
	lastColumnID  int
	formatVersion int
	changed       bool
}

// NewSchemaUpdate starts a change of md's current schema.
func NewSchemaUpdate(md *TableMetadata) *SchemaUpdate {
	cur := md.CurrentSchema()
	u := &SchemaUpdate{base: md, lastColumnID: md.LastColumnID, formatVersion: md.FormatVersion}
	if cur != nil {
		u.fields = copyFields(cur.Fields)
		u.identifiers = slices.Clone(cur.IdentifierFieldIDs)
		u.lastColumnID = max(u.lastColumnID, cur.HighestFieldID())
	}
	return u
}

// fieldSlot is where a field sits: a member of a struct (fields and idx), a
// list's element, or a map's key or value. parentID is the id of the
// field that holds it (0 at the top level).
type fieldSlot struct {
	fields   *[]NestedField
	idx      int
	list     *ListType
	mapType  *MapType
	key      bool
	parentID int
	path     string
}

func (s fieldSlot) get() NestedField {
	switch {
	case s.fields != nil:
		return (*s.fields)[s.idx]
	case s.list != nil:
		return s.list.ElementField()
	case s.key:
		return s.mapType.KeyField()
	default:
		return s.mapType.ValueField()
	}
}

func (s fieldSlot) set(f NestedField) {
	switch {
	case s.fields != nil:
		(*s.fields)[s.idx] = f
	case s.list != nil:
		s.list.Element, s.list.ElementRequired = f.Type, f.Required
	case s.key:
		s.mapType.Key = f.Type
	default:
		s.mapType.Value, s.mapType.ValueRequired = f.Type, f.Required
	}
}

// find resolves a dotted path ("a.b", "points.element.x", "m.value"):
// lists and maps are entered by "element", "key" and "value", or
// implicitly, as Java's short names, when the next name is a member of the
// element or value struct.
func (u *SchemaUpdate) find(path string) (fieldSlot, error) {
	if path == "" {
		return fieldSlot{}, fmt.Errorf("%w: empty column path", ErrInvalidChange)
	}
	parts := strings.Split(path, ".")
	cur, ok := member(&u.fields, parts[0], 0)
	for i := 1; ok && i < len(parts); i++ {
		f := cur.get()
		cur, ok = child(f.Type, parts[i], f.ID)
	}
	if !ok {
		return fieldSlot{}, fmt.Errorf("column %s: %w", path, ErrFieldNotFound)
	}
	cur.path = path
	return cur, nil
}

// member finds the struct member name of fields.
func member(fields *[]NestedField, name string, parentID int) (fieldSlot, bool) {
	idx := slices.IndexFunc(*fields, func(f NestedField) bool { return f.Name == name })
	return fieldSlot{fields: fields, idx: idx, parentID: parentID}, idx >= 0
}

// child finds name below a field of type t whose id is parentID.
func child(t Type, name string, parentID int) (fieldSlot, bool) {
	switch tt := t.(type) {
	case *StructType:
		return member(&tt.Fields, name, parentID)
	case *ListType:
		if name == "element" {
			return fieldSlot{list: tt, parentID: parentID}, true
		}
		return child(tt.Element, name, tt.ElementID)
	case *MapType:
		if name == "key" || name == "value" {
			return fieldSlot{mapType: tt, key: name == "key", parentID: parentID}, true
		}
		return child(tt.Value, name, tt.ValueID)
	}
	return fieldSlot{}, false
}

// AddColumn adds a column at path (its parent must exist and be a struct,
// or a list or map of structs). The new field and every field nested in
// typ take fresh ids. A required column needs def, a v3 default in JSON
// single-value form (it becomes the initial and the write default).
func (u *SchemaUpdate) AddColumn(path string, typ Type, required bool, doc string, def json.RawMessage) error {
	if _, err := u.find(path); err == nil {
		return fmt.Errorf("add column %s: %w: column already exists", path, ErrInvalidChange)
	}
	parentPath, name := "", path
	if i := strings.LastIndex(path, "."); i >= 0 {
		parentPath, name = path[:i], path[i+1:]
	}
	if name == "" || typ == nil {
		return fmt.Errorf("add column %q: %w: a name and a type are needed", path, ErrInvalidChange)
	}
	def = nullToNil(def)
	if def != nil {
		if u.formatVersion < 3 {
			return fmt.Errorf("add column %s: %w: defaults need format version 3 (table is v%d)", path, ErrInvalidChange, u.formatVersion)
		}
		if _, err := ParseJSONValue(typ, def); err != nil {
			return fmt.Errorf("add column %s: %w: default %s: %v", path, ErrInvalidChange, def, err)
		}
	}
	if required && def == nil {
		return fmt.Errorf("add column %s: %w: a required column needs a default (incompatible change)", path, ErrInvalidChange)
	}
	fields := &u.fields
	if parentPath != "" {
		ps, err := u.find(parentPath)
		if err != nil {
			return fmt.Errorf("add column %s: parent: %w", path, err)
		}
		t := ps.get().Type
		switch tt := t.(type) {
		case *ListType:
			t = tt.Element
		case *MapType:
			t = tt.Value
		}
		st, ok := t.(*StructType)
		if !ok {
			return fmt.Errorf("add column %s: %w: parent %s is not a struct", path, ErrInvalidChange, parentPath)
		}
		fields = &st.Fields
	}
	if slices.ContainsFunc(*fields, func(f NestedField) bool { return f.Name == name }) {
		return fmt.Errorf("add column %s: %w: column already exists", path, ErrInvalidChange)
	}
	// Java assigns the new field's id first, then the ids of its type.
	f := NestedField{ID: u.nextID(), Name: name, Required: required, Doc: doc}
	f.Type = assignFreshIDs(typ, u.nextID)
	if def != nil {
		f.InitialDefault, f.WriteDefault = def, def
	}
	*fields = append(*fields, f)
	u.changed = true
	return nil
}

func (u *SchemaUpdate) nextID() int {
	u.lastColumnID++
	return u.lastColumnID
}

// assignFreshIDs copies t with new ids from next, in the order of Java's
// TypeUtil.assignFreshIds: a struct's fields first, then their children.
func assignFreshIDs(t Type, next func() int) Type {
	switch tt := t.(type) {
	case *StructType:
		out := &StructType{Fields: make([]NestedField, len(tt.Fields))}
		for i, f := range tt.Fields {
			f.ID = next()
			out.Fields[i] = f
		}
		for i := range out.Fields {
			out.Fields[i].Type = assignFreshIDs(out.Fields[i].Type, next)
		}
		return out
	case *ListType:
		out := &ListType{ElementID: next(), ElementRequired: tt.ElementRequired}
		out.Element = assignFreshIDs(tt.Element, next)
		return out
	case *MapType:
		out := &MapType{KeyID: next(), ValueID: next(), ValueRequired: tt.ValueRequired}
		out.Key = assignFreshIDs(tt.Key, next)
		out.Value = assignFreshIDs(tt.Value, next)
		return out
	}
	return t
}

// DropColumn removes the column at path and everything nested in it. It
// refuses identifier fields and the source columns of the table's
// default partition spec and sort order, as Iceberg Java does.
func (u *SchemaUpdate) DropColumn(path string) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("drop column: %w", err)
	}
	if s.fields == nil {
		return fmt.Errorf("drop column %s: %w: a list element or map key or value cannot be dropped", path, ErrInvalidChange)
	}
	ids := map[int]bool{}
	collectIDs(s.get(), ids)
	for _, id := range u.identifiers {
		if ids[id] {
			return fmt.Errorf("drop column %s: %w: it is an identifier field (set the identifier fields first)", path, ErrInvalidChange)
		}
	}
	if spec, ok := u.base.SpecByID(u.base.DefaultSpecID); ok {
		for _, pf := range spec.Fields {
			if _, void := pf.Transform.(VoidTransform); ids[pf.SourceID] && !void {
				return fmt.Errorf("drop column %s: %w: partition field %s of the current spec uses it", path, ErrInvalidChange, pf.Name)
			}
		}
	}
	for _, so := range u.base.SortOrders {
		if so.OrderID != u.base.DefaultSortOrderID {
			continue
		}
		for _, sf := range so.Fields {
			if ids[sf.SourceID] {
				return fmt.Errorf("drop column %s: %w: the table's sort order uses it", path, ErrInvalidChange)
			}
		}
	}
	*s.fields = slices.Delete(*s.fields, s.idx, s.idx+1)
	u.changed = true
	return nil
}

func collectIDs(f NestedField, ids map[int]bool) {
	ids[f.ID] = true
	switch t := f.Type.(type) {
	case *StructType:
		for _, c := range t.Fields {
			collectIDs(c, ids)
		}
	case *ListType:
		collectIDs(t.ElementField(), ids)
	case *MapType:
		collectIDs(t.KeyField(), ids)
		collectIDs(t.ValueField(), ids)
	}
}

// RenameColumn gives the column at path a new name in the same struct.
func (u *SchemaUpdate) RenameColumn(path, newName string) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("rename column: %w", err)
	}
	if s.fields == nil {
		return fmt.Errorf("rename column %s: %w: a list element or map key or value has a fixed name", path, ErrInvalidChange)
	}
	if newName == "" {
		return fmt.Errorf("rename column %s: %w: empty new name", path, ErrInvalidChange)
	}
	f := s.get()
	if f.Name == newName {
		return nil
	}
	if slices.ContainsFunc(*s.fields, func(o NestedField) bool { return o.Name == newName }) {
		return fmt.Errorf("rename column %s to %s: %w: a column of that name exists", path, newName, ErrInvalidChange)
	}
	f.Name = newName
	s.set(f)
	u.changed = true
	return nil
}

// UpdateType widens the primitive column at path: int to long, float to
// double, decimal(P,S) to decimal(P',S) with P' > P, and in v3 date to
// timestamp or timestamp_ns (not where a partition transform would give
// another value) and unknown to any type.
func (u *SchemaUpdate) UpdateType(path string, typ Type) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("update column type: %w", err)
	}
	f := s.get()
	if typeEqual(f.Type, typ) {
		return nil
	}
	if !PromotionAllowed(f.Type, typ, u.formatVersion) {
		return fmt.Errorf("update column %s: %w: cannot change type %s to %s", path, ErrInvalidChange, f.Type, typ)
	}
	if _, isDate := f.Type.(DateType); isDate {
		for _, spec := range u.base.Specs {
			for _, pf := range spec.Fields {
				if pf.SourceID != f.ID {
					continue
				}
				switch pf.Transform.(type) {
				case YearTransform, MonthTransform, DayTransform, VoidTransform:
				default:
					return fmt.Errorf("update column %s: %w: partition field %s (%s) would change value", path, ErrInvalidChange, pf.Name, pf.Transform)
				}
			}
		}
	}
	f.Type = typ
	s.set(f)
	u.changed = true
	return nil
}

// PromotionAllowed reports whether the spec lets a column of type from be
// read as type to in a table of the given format version.
func PromotionAllowed(from, to Type, formatVersion int) bool {
	switch f := from.(type) {
	case IntType:
		_, ok := to.(LongType)
		return ok
	case FloatType:
		_, ok := to.(DoubleType)
		return ok
	case DecimalType:
		t, ok := to.(DecimalType)
		return ok && t.Scale == f.Scale && t.Precision > f.Precision
	case DateType:
		switch to.(type) {
		case TimestampType, TimestampNsType:
			return formatVersion >= 3
		}
	case UnknownType:
		return formatVersion >= 3
	}
	return false
}

func typeEqual(a, b Type) bool {
	ja, err1 := MarshalTypeJSON(a)
	jb, err2 := MarshalTypeJSON(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// MakeOptional lets the column at path hold nulls.
func (u *SchemaUpdate) MakeOptional(path string) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("make column optional: %w", err)
	}
	if s.mapType != nil && s.key {
		return fmt.Errorf("make column optional %s: %w: map keys are always required", path, ErrInvalidChange)
	}
	f := s.get()
	if !f.Required {
		return nil
	}
	f.Required = false
	s.set(f)
	u.changed = true
	return nil
}

// MakeRequired refuses to make an optional column required: rows already
// written may hold nulls (Java allows it only as an incompatible change).
func (u *SchemaUpdate) MakeRequired(path string) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("make column required: %w", err)
	}
	if s.get().Required {
		return nil
	}
	return fmt.Errorf("make column required %s: %w: cannot change an optional column to required (incompatible change)", path, ErrInvalidChange)
}

// UpdateDoc sets the column's doc string.
func (u *SchemaUpdate) UpdateDoc(path, doc string) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("update column doc: %w", err)
	}
	if s.fields == nil {
		return fmt.Errorf("update column doc %s: %w: a list element or map key or value has no doc", path, ErrInvalidChange)
	}
	f := s.get()
	if f.Doc == doc {
		return nil
	}
	f.Doc = doc
	s.set(f)
	u.changed = true
	return nil
}

// MoveFirst moves the column at path to the front of its struct.
func (u *SchemaUpdate) MoveFirst(path string) error { return u.move(path, "", 0) }

// MoveBefore moves the column at path just before ref, in the same struct.
func (u *SchemaUpdate) MoveBefore(path, ref string) error { return u.move(path, ref, -1) }

// MoveAfter moves the column at path just after ref, in the same struct.
func (u *SchemaUpdate) MoveAfter(path, ref string) error { return u.move(path, ref, 1) }

// move moves path first (where 0), before (-1) or after (1) ref.
func (u *SchemaUpdate) move(path, ref string, where int) error {
	s, err := u.find(path)
	if err != nil {
		return fmt.Errorf("move column: %w", err)
	}
	if s.fields == nil {
		return fmt.Errorf("move column %s: %w: only struct fields can move", path, ErrInvalidChange)
	}
	f := s.get()
	target := 0
	if where != 0 {
		r, err := u.find(ref)
		if err != nil {
			return fmt.Errorf("move column %s: reference: %w", path, err)
		}
		if r.fields != s.fields {
			return fmt.Errorf("move column %s: %w: %s is in another struct", path, ErrInvalidChange, ref)
		}
		if r.idx == s.idx {
			return fmt.Errorf("move column %s: %w: cannot move a column relative to itself", path, ErrInvalidChange)
		}
		target = r.idx
		if where > 0 {
			target++
		}
		if s.idx < target {
			target--
		}
	}
	fs := slices.Delete(*s.fields, s.idx, s.idx+1)
	*s.fields = slices.Insert(fs, target, f)
	if target != s.idx {
		u.changed = true
	}
	return nil
}

// SetIdentifierFields sets the schema's identifier fields by path. Each
// must be a required primitive (not float or double) nested only in
// required structs, as the spec asks.
func (u *SchemaUpdate) SetIdentifierFields(paths ...string) error {
	ids := make([]int, 0, len(paths))
	for _, p := range paths {
		s, err := u.find(p)
		if err != nil {
			return fmt.Errorf("identifier field: %w", err)
		}
		id := s.get().ID
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if !slices.Equal(ids, u.identifiers) {
		u.identifiers = ids
		u.changed = true
	}
	return nil
}

// validateIdentifiers checks every identifier field as Java's
// SchemaUpdate does when it applies the changes.
func (u *SchemaUpdate) validateIdentifiers(schema *Schema) error {
	parents := map[int]NestedField{}
	var walk func(fields []NestedField, parent *NestedField)
	walk = func(fields []NestedField, parent *NestedField) {
		for _, f := range fields {
			if parent != nil {
				parents[f.ID] = *parent
			}
			switch t := f.Type.(type) {
			case *StructType:
				walk(t.Fields, &f)
			case *ListType:
				walk([]NestedField{t.ElementField()}, &f)
			case *MapType:
				walk([]NestedField{t.KeyField(), t.ValueField()}, &f)
			}
		}
	}
	walk(schema.Fields, nil)
	for _, id := range schema.IdentifierFieldIDs {
		f, ok := schema.FieldByID(id)
		if !ok {
			return fmt.Errorf("identifier field %d: %w", id, ErrFieldNotFound)
		}
		switch f.Type.(type) {
		case *StructType, *ListType, *MapType:
			return fmt.Errorf("identifier field %s: %w: must be a primitive type", f.Name, ErrInvalidChange)
		case FloatType, DoubleType:
			return fmt.Errorf("identifier field %s: %w: must not be float or double", f.Name, ErrInvalidChange)
		}
		if !f.Required {
			return fmt.Errorf("identifier field %s: %w: must be required", f.Name, ErrInvalidChange)
		}
		for p, ok := parents[id]; ok; p, ok = parents[p.ID] {
			if _, st := p.Type.(*StructType); !st {
				return fmt.Errorf("identifier field %s: %w: must not be nested in a list or map", f.Name, ErrInvalidChange)
			}
			if !p.Required {
				return fmt.Errorf("identifier field %s: %w: must not be nested in optional field %s", f.Name, ErrInvalidChange, p.Name)
			}
		}
	}
	return nil
}

// Apply returns the evolved schema, with the id after the highest the
// table has, and the table's new last-column-id; changed is false when
// nothing changed (then schema is the current one).
func (u *SchemaUpdate) Apply() (schema *Schema, lastColumnID int, changed bool, err error) {
	if !u.changed {
		return u.base.CurrentSchema(), u.base.LastColumnID, false, nil
	}
	id := 0
	for _, s := range u.base.Schemas {
		id = max(id, s.ID+1)
	}
	schema = NewSchema(id, copyFields(u.fields)...)
	schema.IdentifierFieldIDs = slices.Clone(u.identifiers)
	if err := u.validateIdentifiers(schema); err != nil {
		return nil, 0, false, err
	}
	return schema, max(u.lastColumnID, u.base.LastColumnID), true, nil
}

// copyFields deep-copies fields and their nested types, so that changes to
// the copy leave the table's schema alone.
func copyFields(in []NestedField) []NestedField {
	out := make([]NestedField, len(in))
	for i, f := range in {
		f.Type = copyType(f.Type)
		out[i] = f
	}
	return out
}

func copyType(t Type) Type {
	switch tt := t.(type) {
	case *StructType:
		return &StructType{Fields: copyFields(tt.Fields)}
	case *ListType:
		c := *tt
		c.Element = copyType(tt.Element)
		return &c
	case *MapType:
		c := *tt
		c.Key, c.Value = copyType(tt.Key), copyType(tt.Value)
		return &c
	}
	return t
}
