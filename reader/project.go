package reader

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Column Projection. Columns of a data file are matched to the
// projected schema by field id. A file without ids gets them from the
// table's name mapping; with no mapping, top-level columns get ids by
// position (1, 2, ...), as Iceberg Java's ParquetSchemaUtil.addFallbackIds
// does for files written before the table existed, and nested fields get
// none. Lists and maps are matched by structure (their one element, their
// key and value), as Iceberg Java's readers do; only struct fields need ids.

type nodeKind int

const (
	kindLeaf nodeKind = iota
	kindStruct
	kindList
	kindMap
	kindVariant
)

// fileField is one node of a data file's schema as its source reads it
// into Arrow, with the Iceberg field id used for projection (-1 when it has
// none). Every format is projected from this one tree: Parquet builds it
// from pqarrow's schema manifest, Avro and ORC from an Arrow schema whose
// fields carry PARQUET:field_id metadata.
type fileField struct {
	name     string
	id       int
	kind     nodeKind
	typ      arrow.DataType // the Arrow type the source produces
	col      int            // Parquet leaf column index; -1 elsewhere
	children []*fileField   // struct fields; list element; map key, value
}

// fileTree converts pqarrow's schema manifest into fileFields carrying the
// ids of the Parquet schema.
func fileTree(m *pqarrow.SchemaManifest) []*fileField {
	roots := make([]*fileField, len(m.Fields))
	for i := range m.Fields {
		roots[i] = newFileField(&m.Fields[i])
	}
	return roots
}

func fieldIDOf(md arrow.Metadata) int {
	if v, ok := md.GetValue(iceberg.ArrowFieldIDKey); ok {
		if id, err := strconv.Atoi(v); err == nil && id >= 0 {
			return id
		}
	}
	return -1
}

func newFileField(sf *pqarrow.SchemaField) *fileField {
	ff := &fileField{name: sf.Field.Name, id: fieldIDOf(sf.Field.Metadata), typ: sf.Field.Type, col: -1}
	dt := sf.Field.Type
	switch {
	case sf.IsLeaf():
		ff.kind = kindLeaf
		ff.col = sf.ColIndex
		return ff
	case dt.ID() == arrow.EXTENSION && dt.(arrow.ExtensionType).StorageType().ID() == arrow.STRUCT:
		ff.kind = kindVariant
	case dt.ID() == arrow.STRUCT:
		ff.kind = kindStruct
	case dt.ID() == arrow.MAP && len(sf.Children) == 1 && len(sf.Children[0].Children) == 2:
		ff.kind = kindMap
		kv := &sf.Children[0]
		ff.children = []*fileField{newFileField(&kv.Children[0]), newFileField(&kv.Children[1])}
		return ff
	case (dt.ID() == arrow.LIST || dt.ID() == arrow.MAP) && len(sf.Children) == 1:
		// A map whose key_value group has one field is read as a list.
		ff.kind = kindList
	default:
		ff.kind = kindStruct
	}
	for i := range sf.Children {
		ff.children = append(ff.children, newFileField(&sf.Children[i]))
	}
	return ff
}

// arrowTree converts the fields of an Arrow schema (as Avro and ORC sources
// describe their files) into fileFields.
func arrowTree(fields []arrow.Field) []*fileField {
	roots := make([]*fileField, len(fields))
	for i, f := range fields {
		roots[i] = arrowFileField(f)
	}
	return roots
}

func arrowFileField(f arrow.Field) *fileField {
	ff := &fileField{name: f.Name, id: fieldIDOf(f.Metadata), typ: f.Type, col: -1}
	switch t := f.Type.(type) {
	case *arrow.StructType:
		ff.kind = kindStruct
		ff.children = arrowTree(t.Fields())
	case *arrow.MapType:
		ff.kind = kindMap
		ff.children = []*fileField{arrowFileField(t.KeyField()), arrowFileField(t.ItemField())}
	case *arrow.ListType:
		ff.kind = kindList
		ff.children = []*fileField{arrowFileField(t.ElemField())}
	default:
		ff.kind = kindLeaf
	}
	return ff
}

func anyID(nodes []*fileField) bool {
	for _, n := range nodes {
		if n.id >= 0 || anyID(n.children) {
			return true
		}
	}
	return false
}

// applyMapping gives ids to the children of n from the mapped fields of n
// (spec: Column Projection, name mapping). Fields are found by name; the
// element of a list and the key and value of a map fall back to their
// position, because Hive-era files name the element "array_element" or
// "item" where the mapping says "element". Unmapped fields keep no id.
func applyMapping(n *fileField, fields []iceberg.MappedField) {
	structural := n.kind == kindList || n.kind == kindMap
	for i, c := range n.children {
		mf, ok := iceberg.NameMapping(fields).Find(c.name)
		if !ok && structural && len(fields) == len(n.children) {
			mf, ok = fields[i], true
		}
		if ok {
			c.id = mappedID(mf)
			applyMapping(c, mf.Fields)
		}
	}
}

func mappedID(mf iceberg.MappedField) int {
	if mf.FieldID == nil {
		return -1
	}
	return *mf.FieldID
}

// assignIDs decides where the file's field ids come from, following
// Iceberg Java's ReadConf: the file's own ids when it has any, else the name
// mapping, else ids by position for the top-level columns.
func assignIDs(roots []*fileField, mapping iceberg.NameMapping, schema *iceberg.Schema) {
	if anyID(roots) {
		return
	}
	if len(mapping) > 0 {
		if !mappingFits(mapping, schema) {
			// The mapping contradicts the schema it belongs to (the corpus
			// table apache-impala__iceberg_migrated_complex_test maps id 2
			// to a field nested in struct 1, where the schema has a
			// top-level id 2): ids from it would read the wrong columns.
			// Iceberg creates a mapping from the schema's names when it
			// migrates a table, so that is the mapping used instead.
			mapping = schemaMapping(schema.Fields)
		}
		applyMapping(&fileField{kind: kindStruct, children: roots}, mapping)
		return
	}
	for i, r := range roots {
		r.id = i + 1
	}
}

// mappingFits reports whether every id that both the mapping and the schema
// know sits under the same parent in both, and is nested in both or in
// neither. Renames keep this true; only a mapping built for another
// schema breaks it.
func mappingFits(mapping iceberg.NameMapping, schema *iceberg.Schema) bool {
	type place struct {
		parent int
		nested bool
	}
	mapped := make(map[int]place)
	var walkMapping func(fields []iceberg.MappedField, parent int)
	walkMapping = func(fields []iceberg.MappedField, parent int) {
		for _, f := range fields {
			id := mappedID(f)
			if id >= 0 {
				mapped[id] = place{parent, len(f.Fields) > 0}
			}
			walkMapping(f.Fields, id)
		}
	}
	walkMapping(mapping, 0)

	ok := true
	var walkSchema func(fields []iceberg.NestedField, parent int)
	walkSchema = func(fields []iceberg.NestedField, parent int) {
		for _, f := range fields {
			kids := nestedFields(f.Type)
			if p, found := mapped[f.ID]; found {
				if p.parent != parent || (p.nested && len(kids) == 0) {
					ok = false
				}
			}
			walkSchema(kids, f.ID)
		}
	}
	walkSchema(schema.Fields, 0)
	return ok
}

// nestedFields returns the fields directly below a nested type.
func nestedFields(t iceberg.Type) []iceberg.NestedField {
	switch t := t.(type) {
	case *iceberg.StructType:
		return t.Fields
	case *iceberg.ListType:
		return []iceberg.NestedField{t.ElementField()}
	case *iceberg.MapType:
		return []iceberg.NestedField{t.KeyField(), t.ValueField()}
	}
	return nil
}

// schemaMapping builds the name mapping Iceberg derives from a schema.
func schemaMapping(fields []iceberg.NestedField) iceberg.NameMapping {
	out := make(iceberg.NameMapping, len(fields))
	for i, f := range fields {
		id := f.ID
		out[i] = iceberg.MappedField{FieldID: &id, Names: []string{f.Name}, Fields: schemaMapping(nestedFields(f.Type))}
	}
	return out
}

// fieldPlan says how to produce one projected field: read it from a file
// column (src) and convert it, or fill it with a value.
type fieldPlan struct {
	field iceberg.NestedField
	// target is the exact Arrow type of the output column.
	target arrow.DataType
	// src is the file column read for the field; nil means fill.
	src *fileField
	// fill is the value of every row when src is nil: a partition
	// constant or the initial-default, as a Go literal; nil is null.
	fill any
	// children are the plans of struct fields, of a list's element and of a
	// map's key and value; set only when src is set.
	children []*fieldPlan
	// pos is src's index among the columns the source returns at its
	// level.
	pos int
	// int96 marks a top-level INT96 column read by parquet.Int96Column.
	int96 bool
	// cache holds the last fill array built, reused across batches.
	cache arrow.Array
}

// planner builds fieldPlans for one data file.
type planner struct {
	path      string
	constants map[int]any
	// physical returns the physical type of a Parquet leaf column; nil for
	// other formats.
	physical func(col int) parquet.Type
}

func (pl *planner) planFields(fields []iceberg.NestedField, candidates []*fileField, topLevel bool) ([]*fieldPlan, error) {
	plans := make([]*fieldPlan, len(fields))
	for i, f := range fields {
		p, err := pl.planField(f, findByID(candidates, f.ID), topLevel)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	return plans, nil
}

func findByID(nodes []*fileField, id int) *fileField {
	for _, n := range nodes {
		if n.id == id {
			return n
		}
	}
	return nil
}

func (pl *planner) planField(f iceberg.NestedField, src *fileField, topLevel bool) (*fieldPlan, error) {
	af, err := iceberg.ArrowField(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", pl.path, err)
	}
	p := &fieldPlan{field: f, target: af.Type}
	if v, ok := pl.constants[f.ID]; ok {
		// Iceberg Java uses an identity partition's value even when the file
		// also has the column.
		p.fill = v
		return p, nil
	}
	if _, unknown := f.Type.(iceberg.UnknownType); unknown || src == nil {
		p.fill, err = initialDefault(f, pl.path)
		return p, err
	}
	p.src = src
	mismatch := func() error {
		return fmt.Errorf("%w: column %q (id %d) of %s has type %s, which cannot be read as %s",
			ErrSchemaMismatch, src.name, f.ID, pl.path, src.typ, f.Type)
	}
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		if src.kind != kindStruct {
			return nil, mismatch()
		}
		if p.children, err = pl.planFields(t.Fields, src.children, false); err != nil {
			return nil, err
		}
	case *iceberg.ListType:
		if src.kind != kindList {
			return nil, mismatch()
		}
		ep, err := pl.planStructural(t.ElementField(), src.children[0])
		if err != nil {
			return nil, err
		}
		p.children = []*fieldPlan{ep}
	case *iceberg.MapType:
		if src.kind != kindMap {
			return nil, mismatch()
		}
		kp, err := pl.planStructural(t.KeyField(), src.children[0])
		if err != nil {
			return nil, err
		}
		vp, err := pl.planStructural(t.ValueField(), src.children[1])
		if err != nil {
			return nil, err
		}
		p.children = []*fieldPlan{kp, vp}
	case iceberg.VariantType:
		if src.kind != kindVariant && src.kind != kindStruct {
			return nil, mismatch()
		}
	default:
		if src.kind != kindLeaf || !canConvert(src.typ, f.Type) {
			return nil, mismatch()
		}
		if topLevel && pl.physical != nil && pl.physical(src.col) == parquet.Types.Int96 {
			p.int96 = true
		}
	}
	return p, nil
}

// planStructural plans a list element or map key or value, which is matched
// by its place, not its id; constants never apply to them.
func (pl *planner) planStructural(f iceberg.NestedField, src *fileField) (*fieldPlan, error) {
	saved := pl.constants
	pl.constants = nil
	defer func() { pl.constants = saved }()
	return pl.planField(f, src, false)
}

// releasePlans frees the fill arrays that plans cache.
func releasePlans(plans []*fieldPlan) {
	for _, p := range plans {
		if p.cache != nil {
			p.cache.Release()
			p.cache = nil
		}
		releasePlans(p.children)
	}
}
