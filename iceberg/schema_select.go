package iceberg

import (
	"fmt"
	"sort"
	"strings"
)

// Select returns a schema of the named columns, in the order given. A
// name is a top-level column, or a dotted path into nested structs
// ("address.city"), which keeps the enclosing structs with only the
// selected fields (in their schema order); names naming fields of one
// struct merge. A column whose own name contains dots is found by its
// full name first. Unknown names wrap ErrFieldNotFound.
func (s *Schema) Select(caseSensitive bool, names ...string) (*Schema, error) {
	var out []NestedField
	index := map[int]int{} // top-level field id -> position in out
	for _, name := range names {
		path, err := resolvePath(s.Fields, name, caseSensitive)
		if err != nil {
			return nil, fmt.Errorf("%w: column %q (columns are %s)", ErrFieldNotFound, name, strings.Join(s.ColumnNames(), ", "))
		}
		top := path[0]
		pruned := prune(top, path[1:])
		if i, ok := index[top.ID]; ok {
			wholeBefore := isWhole(out[i], top)
			switch {
			case len(path) == 1 && wholeBefore:
				return nil, fmt.Errorf("column %q selected twice", name)
			case len(path) == 1 || wholeBefore:
				out[i] = top // a whole column covers any nested selection
			default:
				out[i] = merge(out[i], pruned, top)
			}
			continue
		}
		index[top.ID] = len(out)
		out = append(out, pruned)
	}
	return NewSchema(s.ID, out...), nil
}

// resolvePath finds the fields along a dotted name, trying the longest
// field name first at each level so that names with dots win.
func resolvePath(fields []NestedField, name string, caseSensitive bool) ([]NestedField, error) {
	match := func(f NestedField, n string) bool {
		return f.Name == n || (!caseSensitive && strings.EqualFold(f.Name, n))
	}
	for _, f := range fields {
		if match(f, name) {
			return []NestedField{f}, nil
		}
	}
	for i := strings.LastIndexByte(name, '.'); i > 0; i = strings.LastIndexByte(name[:i], '.') {
		head, rest := name[:i], name[i+1:]
		for _, f := range fields {
			st, ok := f.Type.(*StructType)
			if !ok || !match(f, head) {
				continue
			}
			if tail, err := resolvePath(st.Fields, rest, caseSensitive); err == nil {
				return append([]NestedField{f}, tail...), nil
			}
		}
	}
	return nil, ErrFieldNotFound
}

// prune returns f keeping, below it, only the path's fields.
func prune(f NestedField, path []NestedField) NestedField {
	if len(path) == 0 {
		return f
	}
	f.Type = &StructType{Fields: []NestedField{prune(path[0], path[1:])}}
	return f
}

// isWhole reports whether a selected field is the schema's field unpruned.
func isWhole(selected, original NestedField) bool {
	return selected.Type.String() == original.Type.String()
}

// merge combines two prunings of the same field, keeping the original's
// field order.
func merge(a, b, original NestedField) NestedField {
	sa, okA := a.Type.(*StructType)
	sb, okB := b.Type.(*StructType)
	so, okO := original.Type.(*StructType)
	if !okA || !okB || !okO {
		return original
	}
	var fields []NestedField
	for _, of := range so.Fields {
		fa, inA := sa.Field(of.ID)
		fb, inB := sb.Field(of.ID)
		switch {
		case inA && inB:
			fields = append(fields, merge(fa, fb, of))
		case inA:
			fields = append(fields, fa)
		case inB:
			fields = append(fields, fb)
		}
	}
	a.Type = &StructType{Fields: fields}
	return a
}

// SelectIDs returns a schema of the fields with the given ids, each inside
// its enclosing structs, looked up in the schemas in order (so a field
// dropped from the first is found in an older one). Top-level fields come
// in ascending id order; ids found nowhere are left out.
func SelectIDs(schemas []*Schema, ids ...int) *Schema {
	var out []NestedField
	index := map[int]int{}
	for _, id := range ids {
		for _, s := range schemas {
			path := pathTo(s.Fields, id)
			if path == nil {
				continue
			}
			top := path[0]
			pruned := prune(top, path[1:])
			if i, ok := index[top.ID]; ok {
				out[i] = merge(out[i], pruned, top)
			} else {
				index[top.ID] = len(out)
				out = append(out, pruned)
			}
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return NewSchema(0, out...)
}

// pathTo returns the fields from a top-level field down to the field with
// the given id, through structs only.
func pathTo(fields []NestedField, id int) []NestedField {
	for _, f := range fields {
		if f.ID == id {
			return []NestedField{f}
		}
		if st, ok := f.Type.(*StructType); ok {
			if tail := pathTo(st.Fields, id); tail != nil {
				return append([]NestedField{f}, tail...)
			}
		}
	}
	return nil
}
