package pqcodec

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// FieldReader decodes one top-level field of a row group, nested to any
// depth, into Arrow arrays a batch of records at a time: each selected
// leaf column is read by its own column reader, and the lists, maps and
// structs above the leaves are built from their levels. The arrays equal
// those pqarrow's record reader returns for the field. It is not safe for
// concurrent use.
type FieldReader struct {
	mem      memory.Allocator
	root     *fieldNode
	leaves   []*ColumnReader
	rowsLeft int64
}

// nodeKind is how a node of the field's tree is built.
type nodeKind uint8

const (
	leafNode   nodeKind = iota // a leaf column's value slots
	structNode                 // children of one length, and validity
	listNode                   // a list or map: offsets into its child, and validity
)

// fieldNode is one Arrow node of the field as read: the node's type
// after pqarrow's pruning of unselected leaves, and the levels of the
// schema manifest (pqarrow.SchemaField.LevelInfo) that place its slots.
type fieldNode struct {
	kind     nodeKind
	typ      arrow.DataType
	nullable bool
	info     file.LevelInfo
	children []*fieldNode
	leaf     int // leafNode: its reader in FieldReader.leaves
	// levels is the leaf whose levels build the node: pqarrow's choice,
	// for a struct the first child with no list below it, else its first.
	levels int
	// repeated is whether the node is a list or map, or a struct whose
	// children all are or hold one: pqarrow gives such a struct validity
	// even when it is required.
	repeated bool
	complete bool // every leaf below is read
}

// errNotCovered marks a field, or a part of one, that FieldReader does not
// read; FieldSupported reports it as false.
var errNotCovered = errors.New("not decoded here")

// fieldPlan is a field's tree and the leaf columns it reads, in order.
type fieldPlan struct {
	root *fieldNode
	cols []int
	md   *metadata.FileMetaData
	rg   int
}

// FieldSupported reports whether NewFieldReader reads top-level field f
// of row group rg with the leaves selected (nil: all): every leaf chunk
// passes the flat reader's checks of codec, encodings, encryption and
// layout, and the field is built of structs, lists and maps whose arrays
// pqarrow returns consistent with their types. Where it is false, pqarrow
// reads the field.
func FieldSupported(md *metadata.FileMetaData, rg int, f *pqarrow.SchemaField, selected func(col int) bool) bool {
	_, err := planField(md, rg, f, selected)
	return err == nil
}

// NewFieldReader returns a reader of top-level field f, a node of
// pqarrow's schema manifest, in row group rg of a file of md read from
// r, reading the leaf columns selected (nil: all).
func NewFieldReader(mem memory.Allocator, r io.ReaderAt, md *metadata.FileMetaData, rg int, f *pqarrow.SchemaField,
	selected func(col int) bool) (*FieldReader, error) {
	p, err := planField(md, rg, f, selected)
	if err != nil {
		return nil, err
	}
	fr := &FieldReader{mem: mem, root: p.root, rowsLeft: md.RowGroup(rg).NumRows()}
	var leafNodes []*fieldNode
	collectLeaves(p.root, &leafNodes)
	for i, col := range p.cols {
		cc, err := md.RowGroup(rg).ColumnChunk(col)
		if err != nil {
			fr.Release()
			return nil, fmt.Errorf("field %s: column %d: %w", f.Field.Name, col, err)
		}
		n := leafNodes[i]
		c, err := newLeafReader(mem, r, md, cc, md.Schema.Column(col), n.typ, n.info.RepeatedAncestorDefLevel)
		if err != nil {
			fr.Release()
			return nil, fmt.Errorf("field %s: %w", f.Field.Name, err)
		}
		fr.leaves = append(fr.leaves, c)
	}
	return fr, nil
}

// Release frees the dictionaries the leaves' readers hold.
func (f *FieldReader) Release() {
	for _, c := range f.leaves {
		c.Release()
	}
	f.leaves = nil
}

// SetMaxBatchBytes bounds the bytes of variable-length values that one
// Read may take from each leaf column; n <= 0 leaves the bound Arrow's.
func (f *FieldReader) SetMaxBatchBytes(n int64) {
	for _, c := range f.leaves {
		c.SetMaxBatchBytes(n)
	}
}

// Read returns the next rows records of the field as one array. Asking for
// more records than the row group holds is an error.
func (f *FieldReader) Read(rows int) (arrow.Array, error) {
	if err := f.take(rows); err != nil {
		return nil, err
	}
	slots := make([]arrow.Array, len(f.leaves))
	defer func() {
		for _, a := range slots {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, c := range f.leaves {
		a, err := c.readRecords(rows)
		if err != nil {
			return nil, fmt.Errorf("leaf %d: %w", i, err)
		}
		slots[i] = a
	}
	d, err := f.build(f.root, slots)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if d.Len() != rows {
		return nil, fmt.Errorf("%w: %d records read as %d", ErrCorrupt, rows, d.Len())
	}
	return array.MakeFromData(d), nil
}

// Skip moves past the next rows records of the field.
func (f *FieldReader) Skip(rows int) error {
	if err := f.take(rows); err != nil {
		return err
	}
	for i, c := range f.leaves {
		if err := c.skipRecords(rows); err != nil {
			return fmt.Errorf("leaf %d: %w", i, err)
		}
	}
	return nil
}

// take counts rows records off the row group's, if it has them.
func (f *FieldReader) take(rows int) error {
	if rows < 0 || int64(rows) > f.rowsLeft {
		return fmt.Errorf("%d records asked of a row group with %d left", rows, f.rowsLeft)
	}
	f.rowsLeft -= int64(rows)
	return nil
}

// planField builds the tree of field f as pqarrow reads it with the leaves
// selected, or fails with errNotCovered where it would not equal pqarrow.
func planField(md *metadata.FileMetaData, rg int, f *pqarrow.SchemaField, selected func(col int) bool) (*fieldPlan, error) {
	if rg < 0 || rg >= md.NumRowGroups() {
		return nil, fmt.Errorf("row group %d of %d", rg, md.NumRowGroups())
	}
	if selected == nil {
		selected = func(int) bool { return true }
	}
	p := &fieldPlan{md: md, rg: rg}
	root, err := p.node(f, selected, true)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", f.Field.Name, err)
	}
	if root == nil {
		return nil, fmt.Errorf("field %s: no leaf selected: %w", f.Field.Name, errNotCovered)
	}
	p.root = root
	return p, nil
}

// node plans f and returns nil when pqarrow leaves it out (no leaf of it
// selected). pqarrow types a partly read struct by its children read only
// at the top; deeper down, and under lists, it keeps the whole type over
// fewer children, which is not read here.
func (p *fieldPlan) node(f *pqarrow.SchemaField, selected func(int) bool, top bool) (*fieldNode, error) {
	n := &fieldNode{typ: f.Field.Type, nullable: f.Field.Nullable, info: f.LevelInfo, complete: true}
	if f.IsLeaf() {
		if !selected(f.ColIndex) {
			return nil, nil
		}
		if err := p.leafCovered(f); err != nil {
			return nil, err
		}
		n.kind, n.leaf, n.levels = leafNode, len(p.cols), len(p.cols)
		p.cols = append(p.cols, f.ColIndex)
		return n, nil
	}
	switch t := f.Field.Type.(type) {
	case *arrow.StructType:
		n.kind, n.repeated, n.levels = structNode, true, -1
		var fields []arrow.Field
		for i := range f.Children {
			ch, err := p.node(&f.Children[i], selected, false)
			if err != nil {
				return nil, err
			}
			if ch == nil {
				n.complete = false
				continue
			}
			if !ch.complete && !top {
				return nil, fmt.Errorf("struct %s read in part under another node: %w", f.Field.Name, errNotCovered)
			}
			n.children = append(n.children, ch)
			fields = append(fields, *f.Children[i].Field)
			if !ch.repeated && n.levels < 0 {
				n.levels, n.repeated = ch.levels, false
			}
		}
		if len(n.children) == 0 {
			return nil, nil
		}
		if n.levels < 0 {
			n.levels = n.children[0].levels
		}
		if !n.complete && !top {
			return nil, fmt.Errorf("struct %s read in part under another node: %w", f.Field.Name, errNotCovered)
		}
		if !n.complete {
			n.typ = arrow.StructOf(fields...)
		}
		return n, nil
	case *arrow.MapType, *arrow.ListType:
		if len(f.Children) != 1 {
			return nil, fmt.Errorf("list %s of %d children: %w", f.Field.Name, len(f.Children), errNotCovered)
		}
		if _, ok := t.(*arrow.MapType); ok {
			// pqarrow reads a map whole, whatever is selected.
			if len(f.Children[0].Children) != 2 {
				return nil, fmt.Errorf("map %s: %w", f.Field.Name, errNotCovered)
			}
			selected = func(int) bool { return true }
		}
		ch, err := p.node(&f.Children[0], selected, false)
		if err != nil || ch == nil {
			return nil, err
		}
		if !ch.complete {
			return nil, fmt.Errorf("list %s read in part: %w", f.Field.Name, errNotCovered)
		}
		n.kind, n.repeated, n.levels = listNode, true, ch.levels
		n.children = []*fieldNode{ch}
		return n, nil
	}
	return nil, fmt.Errorf("%s of type %s: %w", f.Field.Name, f.Field.Type, errNotCovered)
}

// leafCovered checks a leaf's chunk in the plan's row group the way
// Supported checks a flat one's, and that its levels are the column's.
func (p *fieldPlan) leafCovered(f *pqarrow.SchemaField) error {
	if f.ColIndex < 0 || f.ColIndex >= p.md.Schema.NumColumns() {
		return fmt.Errorf("leaf column %d of %d", f.ColIndex, p.md.Schema.NumColumns())
	}
	col := p.md.Schema.Column(f.ColIndex)
	cc, err := p.md.RowGroup(p.rg).ColumnChunk(f.ColIndex)
	if err != nil {
		return fmt.Errorf("column %s: %w", col.Path(), err)
	}
	if _, ok := f.Field.Type.(*arrow.DictionaryType); ok {
		return fmt.Errorf("column %s read as a dictionary: %w", col.Path(), errNotCovered)
	}
	if f.LevelInfo.DefLevel != col.MaxDefinitionLevel() || f.LevelInfo.RepLevel != col.MaxRepetitionLevel() ||
		f.LevelInfo.RepeatedAncestorDefLevel > f.LevelInfo.DefLevel || f.LevelInfo.NullSlotUsage != 1 {
		return fmt.Errorf("column %s: levels %+v: %w", col.Path(), f.LevelInfo, errNotCovered)
	}
	if !chunkSupported(cc, col, f.Field.Type) {
		return fmt.Errorf("column %s: chunk of %s as %s: %w", col.Path(), col.PhysicalType(), f.Field.Type, errNotCovered)
	}
	return nil
}

// collectLeaves appends the tree's leaves in the order of their readers.
func collectLeaves(n *fieldNode, out *[]*fieldNode) {
	if n.kind == leafNode {
		*out = append(*out, n)
		return
	}
	for _, ch := range n.children {
		collectLeaves(ch, out)
	}
}
