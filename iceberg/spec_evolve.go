package iceberg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FieldByPath returns the field at a dotted path ("a.b"), entering lists
// and maps by "element", "key" and "value" or implicitly, as Java's short
// names do.
func (s *Schema) FieldByPath(path string) (NestedField, bool) {
	if path == "" {
		return NestedField{}, false
	}
	fields := s.Fields
	parts := strings.Split(path, ".")
	cur, ok := member(&fields, parts[0], 0)
	for i := 1; ok && i < len(parts); i++ {
		f := cur.get()
		cur, ok = child(f.Type, parts[i], f.ID)
	}
	if !ok {
		return NestedField{}, false
	}
	return cur.get(), true
}

// structPath returns the field at a dotted path that passes through
// structs only (partition and sort sources cannot live in lists or maps).
func structPath(s *Schema, path string) (NestedField, bool) {
	fields := s.Fields
	var f NestedField
	for i, name := range strings.Split(path, ".") {
		if i > 0 {
			st, ok := f.Type.(*StructType)
			if !ok {
				return NestedField{}, false
			}
			fields = st.Fields
		}
		idx := slices.IndexFunc(fields, func(f NestedField) bool { return f.Name == name })
		if idx < 0 {
			return NestedField{}, false
		}
		f = fields[idx]
	}
	return f, path != ""
}

// columnPath returns the dotted name of field id in s ("" when absent).
func columnPath(s *Schema, id int) string {
	var walk func(fields []NestedField, prefix string) string
	walk = func(fields []NestedField, prefix string) string {
		for _, f := range fields {
			name := prefix + f.Name
			if f.ID == id {
				return name
			}
			if st, ok := f.Type.(*StructType); ok {
				if n := walk(st.Fields, name+"."); n != "" {
					return n
				}
			}
		}
		return ""
	}
	return walk(s.Fields, "")
}

// TransformApplies reports whether transform t can partition or sort a
// column of type src, as the spec's transform table says.
func TransformApplies(t Transform, src Type) bool {
	switch t.(type) {
	case VoidTransform:
		return true
	case IdentityTransform:
		switch src.(type) {
		case *StructType, *ListType, *MapType, VariantType, GeometryType, GeographyType, UnknownType:
			return false
		}
		return true
	case BucketTransform:
		switch src.(type) {
		case IntType, LongType, DecimalType, DateType, TimeType, TimestampType, TimestampTzType,
			TimestampNsType, TimestampTzNsType, StringType, UUIDType, FixedType, BinaryType:
			return true
		}
	case TruncateTransform:
		switch src.(type) {
		case IntType, LongType, DecimalType, StringType, BinaryType:
			return true
		}
	case YearTransform, MonthTransform, DayTransform:
		switch src.(type) {
		case DateType, TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
			return true
		}
	case HourTransform:
		switch src.(type) {
		case TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
			return true
		}
	}
	return false
}

// SpecUpdate evolves a table's default partition spec with the rules of
// Iceberg Java's BaseUpdatePartitionSpec: an added field takes the id
// last-partition-id+1 (in v2 and later an identical field of an earlier
// spec gives back its id), a removed field becomes void in v1 and is
// dropped in v2, and names default to Java's ("id_bucket_16",
// "name_trunc_4", "ts_day").
type SpecUpdate struct {
	base            *TableMetadata
	schema          *Schema
	spec            PartitionSpec
	adds            []PartitionField
	deletes         map[int]bool
	renames         map[string]string
	lastPartitionID int
}

// NewSpecUpdate starts a change of md's default spec whose sources are
// columns of schema (nil: the current schema; an alter that also evolves
// the schema passes the new one).
func NewSpecUpdate(md *TableMetadata, schema *Schema) *SpecUpdate {
	if schema == nil {
		schema = md.CurrentSchema()
	}
	spec, _ := md.SpecByID(md.DefaultSpecID)
	last := md.LastPartitionID
	for _, f := range spec.Fields {
		last = max(last, f.FieldID)
	}
	if last < 999 {
		last = 999 // Spec: partition field ids start at 1000.
	}
	return &SpecUpdate{base: md, schema: schema, spec: spec, deletes: map[int]bool{}, renames: map[string]string{}, lastPartitionID: last}
}

func (u *SpecUpdate) resolve(source, transform string) (int, Transform, error) {
	f, ok := structPath(u.schema, source)
	if !ok {
		return 0, nil, fmt.Errorf("partition source %s: %w", source, ErrFieldNotFound)
	}
	if transform == "" {
		transform = "identity"
	}
	t := ParseTransform(transform)
	if _, unknown := t.(UnknownTransform); unknown || !TransformApplies(t, f.Type) {
		return 0, nil, fmt.Errorf("partition field %s: %w: transform %s does not apply to %s", source, ErrInvalidChange, transform, f.Type)
	}
	return f.ID, t, nil
}

func (u *SpecUpdate) byTransform(fields []PartitionField, sourceID int, t Transform) (PartitionField, bool) {
	i := slices.IndexFunc(fields, func(f PartitionField) bool {
		return f.SourceID == sourceID && f.Transform.String() == t.String()
	})
	if i < 0 {
		return PartitionField{}, false
	}
	return fields[i], true
}

func (u *SpecUpdate) byName(fields []PartitionField, name string) (PartitionField, bool) {
	i := slices.IndexFunc(fields, func(f PartitionField) bool { return f.Name == name })
	if i < 0 {
		return PartitionField{}, false
	}
	return fields[i], true
}

// AddField adds a partition field of transform (default identity) on the
// source column; name "" takes Java's default name.
func (u *SpecUpdate) AddField(source, transform, name string) error {
	sourceID, t, err := u.resolve(source, transform)
	if err != nil {
		return err
	}
	if name != "" {
		if _, dup := u.byName(u.adds, name); dup {
			return fmt.Errorf("add partition field %s: %w: already added", name, ErrInvalidChange)
		}
	}
	if existing, ok := u.byTransform(u.spec.Fields, sourceID, t); ok {
		if !u.deletes[existing.FieldID] {
			return fmt.Errorf("add partition field %s %s: %w: conflicts with %s", source, t, ErrInvalidChange, existing.Name)
		}
		// Removed and added back in one change: it simply stays.
		delete(u.deletes, existing.FieldID)
		if name != "" && name != existing.Name {
			return u.RenameField(existing.Name, name)
		}
		return nil
	}
	if added, ok := u.byTransform(u.adds, sourceID, t); ok {
		return fmt.Errorf("add partition field %s %s: %w: already added as %s", source, t, ErrInvalidChange, added.Name)
	}
	nf, recycled := u.recycle(sourceID, t, name)
	if !recycled {
		u.lastPartitionID++
		nf = PartitionField{SourceID: sourceID, FieldID: u.lastPartitionID, Name: name, Transform: t}
	}
	if nf.Name == "" {
		nf.Name = defaultPartitionName(columnPath(u.schema, sourceID), t)
	}
	if isTimeTransform(t) {
		for _, a := range u.adds {
			if a.SourceID == sourceID && isTimeTransform(a.Transform) {
				return fmt.Errorf("add partition field %s: %w: redundant with %s", nf.Name, ErrInvalidChange, a.Name)
			}
		}
	}
	if existing, ok := u.byName(u.spec.Fields, nf.Name); ok {
		_, void := existing.Transform.(VoidTransform)
		switch {
		case u.deletes[existing.FieldID] || void:
			// Java renames the old field out of the way.
			u.renames[existing.Name] = existing.Name + "_" + strconv.Itoa(existing.FieldID)
		default:
			return fmt.Errorf("add partition field %s: %w: a partition field of that name exists", nf.Name, ErrInvalidChange)
		}
	}
	if _, dup := u.byName(u.adds, nf.Name); dup {
		return fmt.Errorf("add partition field %s: %w: already added", nf.Name, ErrInvalidChange)
	}
	u.adds = append(u.adds, nf)
	return nil
}

// recycle finds, in v2 and later, a field of an earlier spec with the
// same source and transform (and name, when given), whose id is reused.
func (u *SpecUpdate) recycle(sourceID int, t Transform, name string) (PartitionField, bool) {
	if u.base.FormatVersion < 2 {
		return PartitionField{}, false
	}
	for _, spec := range u.base.Specs {
		for _, f := range spec.Fields {
			if f.SourceID == sourceID && f.Transform.String() == t.String() && (name == "" || f.Name == name) {
				return f, true
			}
		}
	}
	return PartitionField{}, false
}

func isTimeTransform(t Transform) bool {
	switch t.(type) {
	case YearTransform, MonthTransform, DayTransform, HourTransform:
		return true
	}
	return false
}

// defaultPartitionName names a partition field as Java's
// BaseUpdatePartitionSpec.PartitionNameGenerator does.
func defaultPartitionName(source string, t Transform) string {
	switch t := t.(type) {
	case IdentityTransform:
		return source
	case BucketTransform:
		return source + "_bucket_" + strconv.Itoa(t.N)
	case TruncateTransform:
		return source + "_trunc_" + strconv.Itoa(t.Width)
	case VoidTransform:
		return source + "_null"
	}
	return source + "_" + t.String()
}

// RemoveField removes the partition field called name.
func (u *SpecUpdate) RemoveField(name string) error {
	if _, added := u.byName(u.adds, name); added {
		return fmt.Errorf("remove partition field %s: %w: it was added in this change", name, ErrInvalidChange)
	}
	if _, renamed := u.renames[name]; renamed {
		return fmt.Errorf("remove partition field %s: %w: it was renamed in this change", name, ErrInvalidChange)
	}
	f, ok := u.byName(u.spec.Fields, name)
	if !ok {
		return fmt.Errorf("remove partition field %s: %w", name, ErrFieldNotFound)
	}
	u.deletes[f.FieldID] = true
	return nil
}

// RemoveFieldByTransform removes the partition field of transform on the
// source column.
func (u *SpecUpdate) RemoveFieldByTransform(source, transform string) error {
	sourceID, t, err := u.resolve(source, transform)
	if err != nil {
		return err
	}
	if a, added := u.byTransform(u.adds, sourceID, t); added {
		return fmt.Errorf("remove partition field %s: %w: it was added in this change", a.Name, ErrInvalidChange)
	}
	f, ok := u.byTransform(u.spec.Fields, sourceID, t)
	if !ok {
		return fmt.Errorf("remove partition field %s %s: %w", source, t, ErrFieldNotFound)
	}
	return u.RemoveField(f.Name)
}

// RenameField renames the partition field name to newName.
func (u *SpecUpdate) RenameField(name, newName string) error {
	if newName == "" {
		return fmt.Errorf("rename partition field %s: %w: empty new name", name, ErrInvalidChange)
	}
	if existing, ok := u.byName(u.spec.Fields, newName); ok && existing.Name != name {
		if _, void := existing.Transform.(VoidTransform); !void {
			return fmt.Errorf("rename partition field %s to %s: %w: a partition field of that name exists", name, newName, ErrInvalidChange)
		}
		u.renames[existing.Name] = existing.Name + "_" + strconv.Itoa(existing.FieldID)
	}
	if _, added := u.byName(u.adds, name); added {
		return fmt.Errorf("rename partition field %s: %w: it was added in this change", name, ErrInvalidChange)
	}
	f, ok := u.byName(u.spec.Fields, name)
	if !ok {
		return fmt.Errorf("rename partition field %s: %w", name, ErrFieldNotFound)
	}
	if u.deletes[f.FieldID] {
		return fmt.Errorf("rename partition field %s: %w: it was removed in this change", name, ErrInvalidChange)
	}
	u.renames[name] = newName
	return nil
}

// Apply returns the evolved spec, with the id after the highest the table
// has, and the table's new last-partition-id; changed is false when
// nothing changed (then spec is the default one).
func (u *SpecUpdate) Apply() (spec PartitionSpec, lastPartitionID int, changed bool, err error) {
	var fields []PartitionField
	for _, f := range u.spec.Fields {
		if n, ok := u.renames[f.Name]; ok {
			f.Name = n
		}
		if u.deletes[f.FieldID] {
			if u.base.FormatVersion >= 2 {
				continue
			}
			// Spec (v1): partition tuples are positional, so a removed
			// field stays as void with its id.
			f.Transform = VoidTransform{}
		}
		fields = append(fields, f)
	}
	fields = append(fields, u.adds...)
	if len(u.adds) == 0 && len(u.deletes) == 0 && len(u.renames) == 0 {
		return u.spec, u.base.LastPartitionID, false, nil
	}
	names := map[string]bool{}
	for _, f := range fields {
		if names[f.Name] {
			return PartitionSpec{}, 0, false, fmt.Errorf("partition spec: %w: name %s used twice", ErrInvalidChange, f.Name)
		}
		names[f.Name] = true
		// Java: a partition name may equal a column's only when it is
		// sourced from that column.
		if col, ok := u.schema.FieldByPath(f.Name); ok && col.ID != f.SourceID && !strings.Contains(f.Name, ".") {
			return PartitionSpec{}, 0, false, fmt.Errorf("partition field %s: %w: a column of that name exists", f.Name, ErrInvalidChange)
		}
	}
	id := 0
	for _, s := range u.base.Specs {
		id = max(id, s.ID+1)
	}
	return PartitionSpec{ID: id, Fields: fields}, max(u.base.LastPartitionID, u.lastPartitionID), true, nil
}
