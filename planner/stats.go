package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// statsFieldIDs resolves the names of Request.StatsFields to field ids, in
// the order named. A name no field has, or one that matches two fields
// when case does not matter, is an ErrInvalidRequest.
func statsFieldIDs(schema *iceberg.Schema, names []string, caseSensitive bool) ([]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	exact, folded := fieldNames(schema)
	ids := make([]int, 0, len(names))
	for _, name := range names {
		id, ok := exact[name]
		if !ok && !caseSensitive {
			switch matches := folded[strings.ToLower(name)]; len(matches) {
			case 0:
			case 1:
				id, ok = matches[0], true
			default:
				return nil, fmt.Errorf("%w: stats field %q is ambiguous without case sensitivity", ErrInvalidRequest, name)
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: stats field %q is not a column of the schema", ErrInvalidRequest, name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// fieldNames indexes every field of schema by its full name as Iceberg
// Java's TypeUtil.indexByName does ("a.b", "points.element.x", "m.key",
// "m.value"), and by the short name that leaves out "element" and "value"
// before a struct's members ("points.x"); folded holds the ids of each
// name lower cased.
func fieldNames(schema *iceberg.Schema) (exact map[string]int, folded map[string][]int) {
	exact, folded = map[string]int{}, map[string][]int{}
	add := func(name string, id int) {
		if _, ok := exact[name]; !ok {
			exact[name] = id
		}
		lower := strings.ToLower(name)
		if !slices.Contains(folded[lower], id) {
			folded[lower] = append(folded[lower], id)
		}
	}
	var walk func(full, short string, t iceberg.Type)
	walk = func(full, short string, t iceberg.Type) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for _, f := range t.Fields {
				add(full+f.Name, f.ID)
				add(short+f.Name, f.ID)
				walk(full+f.Name+".", short+f.Name+".", f.Type)
			}
		case *iceberg.ListType:
			add(full+"element", t.ElementID)
			walk(full+"element.", short, t.Element)
		case *iceberg.MapType:
			add(full+"key", t.KeyID)
			add(full+"value", t.ValueID)
			walk(full+"key.", full+"key.", t.Key)
			walk(full+"value.", short, t.Value)
		}
	}
	walk("", "", schema.AsStruct())
	return exact, folded
}

// FieldIDs resolves column names as Iceberg Java names them
// (TypeUtil.indexByName: "a.b", "points.element.x", "m.key", "m.value",
// and the short "points.x") to field ids in schema; an unknown or, without
// case sensitivity, ambiguous name is an error wrapping ErrInvalidRequest.
// The REST catalog's scan requests name columns this way.
func FieldIDs(schema *iceberg.Schema, names []string, caseSensitive bool) ([]int, error) {
	return statsFieldIDs(schema, names, caseSensitive)
}
