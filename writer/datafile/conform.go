package datafile

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// conformStub is the Conformer's state; the name is the seam's.
type conformStub struct {
	src, dst *arrow.Schema
	cols     []fieldPlan
	// same is true when src already is the table's Arrow schema, field ids
	// and all, so Conform only retains the batch.
	same bool
	mem  memory.Allocator
}

// fieldPlan conforms one source column (or nested child) to one table field.
type fieldPlan struct {
	path     string // dotted column path, for errors
	field    iceberg.NestedField
	dst      arrow.Field
	srcIndex int // -1: missing, filled with nulls
	src      arrow.DataType
	children []fieldPlan // struct fields, list element, or map key and value
}

func newConformer(src *arrow.Schema, table *iceberg.Schema, mem memory.Allocator) (*Conformer, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	dst, err := iceberg.ArrowSchema(table)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchemaMismatch, err)
	}
	srcFields := src.Fields()
	cols, err := planFields("", srcFields, table.Fields, dst.Fields())
	if err != nil {
		return nil, err
	}
	return &Conformer{conformStub{src: src, dst: dst, cols: cols, same: src.Equal(dst) && sameMetadata(srcFields, dst.Fields()), mem: mem}}, nil
}

// sameMetadata reports whether two field lists carry the same field ids at
// the top level; nested ids live in the types, which Schema.Equal compares.
func sameMetadata(a, b []arrow.Field) bool {
	for i := range a {
		if !a[i].Metadata.Equal(b[i].Metadata) {
			return false
		}
	}
	return true
}

// planFields matches source fields to table fields by name: exact, then
// case-insensitive when unambiguous.
func planFields(prefix string, src []arrow.Field, fields []iceberg.NestedField, dst []arrow.Field) ([]fieldPlan, error) {
	used := make([]bool, len(src))
	plans := make([]fieldPlan, len(fields))
	for i, f := range fields {
		path := prefix + f.Name
		idx := matchField(src, f.Name)
		p := fieldPlan{path: path, field: f, dst: dst[i], srcIndex: idx}
		if idx < 0 {
			if f.Required {
				return nil, fmt.Errorf("%w: required column %s is missing", ErrSchemaMismatch, path)
			}
			plans[i] = p
			continue
		}
		if used[idx] {
			return nil, fmt.Errorf("%w: column %s matches %q twice", ErrSchemaMismatch, path, src[idx].Name)
		}
		used[idx] = true
		p.src = src[idx].Type
		kids, err := planType(path, p.src, f.Type, dst[i].Type)
		if err != nil {
			return nil, err
		}
		p.children = kids
		plans[i] = p
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("%w: column %s%s is not in the table", ErrSchemaMismatch, prefix, src[i].Name)
		}
	}
	return plans, nil
}

func matchField(src []arrow.Field, name string) int {
	for i, f := range src {
		if f.Name == name {
			return i
		}
	}
	found := -1
	for i, f := range src {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// planType checks that src converts to the table type t (Arrow type dst)
// and plans nested children.
func planType(path string, src arrow.DataType, t iceberg.Type, dst arrow.DataType) ([]fieldPlan, error) {
	if d, ok := src.(*arrow.DictionaryType); ok {
		src = d.ValueType
	}
	mismatch := func() error {
		return fmt.Errorf("%w: column %s has Arrow type %v, the table has %v", ErrSchemaMismatch, path, src, t)
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		s, ok := src.(*arrow.StructType)
		if !ok {
			return nil, mismatch()
		}
		return planFields(path+".", s.Fields(), t.Fields, dst.(*arrow.StructType).Fields())
	case *iceberg.ListType:
		var elem arrow.Field
		switch s := src.(type) {
		case *arrow.ListType:
			elem = s.ElemField()
		case *arrow.LargeListType:
			elem = s.ElemField()
		default:
			return nil, mismatch()
		}
		ef := t.ElementField()
		return planChild(path+".element", elem, ef, dst.(*arrow.ListType).ElemField())
	case *iceberg.MapType:
		s, ok := src.(*arrow.MapType)
		if !ok {
			return nil, mismatch()
		}
		d := dst.(*arrow.MapType)
		k, err := planChild(path+".key", s.KeyField(), t.KeyField(), d.KeyField())
		if err != nil {
			return nil, err
		}
		v, err := planChild(path+".value", s.ItemField(), t.ValueField(), d.ItemField())
		if err != nil {
			return nil, err
		}
		return append(k, v...), nil
	}
	if !canPromote(src, dst) {
		return nil, mismatch()
	}
	return nil, nil
}

func planChild(path string, src arrow.Field, f iceberg.NestedField, dst arrow.Field) ([]fieldPlan, error) {
	kids, err := planType(path, src.Type, f.Type, dst.Type)
	if err != nil {
		return nil, err
	}
	return []fieldPlan{{path: path, field: f, dst: dst, srcIndex: 0, src: src.Type, children: kids}}, nil
}

// canPromote reports whether a primitive Arrow type converts to the table's
// without loss (values that lose precision are caught at Conform).
func canPromote(src, dst arrow.DataType) bool {
	if arrow.TypeEqual(src, dst) {
		return true
	}
	switch d := dst.(type) {
	case *arrow.Int32Type:
		switch src.ID() {
		case arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16:
			return true
		}
	case *arrow.Int64Type:
		switch src.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16, arrow.UINT32:
			return true
		}
	case *arrow.Float64Type:
		return src.ID() == arrow.FLOAT32
	case *arrow.StringType:
		return src.ID() == arrow.LARGE_STRING || src.ID() == arrow.STRING_VIEW
	case *arrow.BinaryType:
		return src.ID() == arrow.LARGE_BINARY || src.ID() == arrow.BINARY_VIEW
	case *arrow.Decimal128Type:
		switch s := src.(type) {
		case *arrow.Decimal128Type:
			return s.Scale == d.Scale && s.Precision <= d.Precision
		case *arrow.Decimal32Type:
			return s.Scale == d.Scale && s.Precision <= d.Precision
		case *arrow.Decimal64Type:
			return s.Scale == d.Scale && s.Precision <= d.Precision
		}
	case *arrow.TimestampType:
		s, ok := src.(*arrow.TimestampType)
		if !ok {
			return false
		}
		// A zone-less timestamp is local time, a zoned one an instant; Iceberg
		// keeps the two apart, so the zone's presence must agree.
		if (s.TimeZone == "") != (d.TimeZone == "") {
			return false
		}
		// A finer unit may still be exact; a lossy value fails at Conform.
		return true
	case *arrow.Time64Type:
		switch src.ID() {
		case arrow.TIME32, arrow.TIME64:
			return true
		}
	case *arrow.FixedSizeBinaryType:
		s, ok := src.(*arrow.FixedSizeBinaryType)
		return ok && s.ByteWidth == d.ByteWidth
	case *arrow.NullType:
		return true
	}
	return false
}

func (c *Conformer) conform(batch arrow.RecordBatch) (arrow.RecordBatch, error) {
	if !batch.Schema().Equal(c.src) {
		return nil, fmt.Errorf("%w: batch schema %v differs from the stream's", ErrSchemaMismatch, batch.Schema())
	}
	if c.same {
		batch.Retain()
		return batch, nil
	}
	n := int(batch.NumRows())
	cols := make([]arrow.Array, 0, len(c.cols))
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	for i := range c.cols {
		p := &c.cols[i]
		var a arrow.Array
		var err error
		if p.srcIndex < 0 {
			a = array.MakeArrayOfNull(c.mem, p.dst.Type, n)
		} else {
			a, err = c.conformArray(batch.Column(p.srcIndex), p)
		}
		if err == nil && p.field.Required {
			err = checkRequired(a, nil, p.path)
		}
		if err != nil {
			if a != nil {
				a.Release()
			}
			release()
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(c.dst, cols, int64(n))
	release()
	return out, nil
}

// checkRequired fails when a is null where its parent (nil: the row) is not.
func checkRequired(a arrow.Array, parent arrow.Array, path string) error {
	if a.NullN() == 0 {
		return nil
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) && (parent == nil || parent.IsValid(i)) {
			return fmt.Errorf("%w: required column %s has a null at row %d", ErrSchemaMismatch, path, i)
		}
	}
	return nil
}

// conformArray returns arr as an array of p.dst.Type; the caller releases it.
func (c *Conformer) conformArray(arr arrow.Array, p *fieldPlan) (arrow.Array, error) {
	if d, ok := arr.(*array.Dictionary); ok {
		ctx := compute.WithAllocator(context.Background(), c.mem)
		dense, err := compute.TakeArray(ctx, d.Dictionary(), d.Indices())
		if err != nil {
			return nil, fmt.Errorf("decode dictionary column %s: %w", p.path, err)
		}
		defer dense.Release()
		arr = dense
	}
	switch dt := p.dst.Type.(type) {
	case *arrow.StructType:
		return c.conformStruct(arr.(*array.Struct), dt, p)
	case *arrow.MapType:
		return c.conformList(arr, dt, p)
	case *arrow.ListType:
		return c.conformList(arr, dt, p)
	}
	if arrow.TypeEqual(arr.DataType(), p.dst.Type) {
		arr.Retain()
		return arr, nil
	}
	if p.dst.Type.ID() == arrow.NULL {
		return array.MakeArrayOfNull(c.mem, p.dst.Type, arr.Len()), nil
	}
	ctx := compute.WithAllocator(context.Background(), c.mem)
	out, err := compute.CastArray(ctx, arr, compute.SafeCastOptions(p.dst.Type))
	if err != nil {
		return nil, fmt.Errorf("%w: column %s: %v to %v: %v", ErrSchemaMismatch, p.path, arr.DataType(), p.dst.Type, err)
	}
	return out, nil
}

func (c *Conformer) conformStruct(s *array.Struct, dt *arrow.StructType, p *fieldPlan) (arrow.Array, error) {
	n := s.Len()
	kids := make([]arrow.ArrayData, 0, len(p.children))
	defer func() {
		for _, k := range kids {
			k.Release()
		}
	}()
	for i := range p.children {
		cp := &p.children[i]
		var a arrow.Array
		var err error
		if cp.srcIndex < 0 {
			a = array.MakeArrayOfNull(c.mem, cp.dst.Type, n)
		} else {
			// Field is already sliced to the struct's rows.
			a, err = c.conformArray(s.Field(cp.srcIndex), cp)
		}
		if err == nil && cp.field.Required {
			err = checkRequired(a, s, cp.path)
		}
		if err != nil {
			if a != nil {
				a.Release()
			}
			return nil, err
		}
		d := a.Data()
		d.Retain()
		kids = append(kids, d)
		a.Release()
	}
	validity := c.copyValidity(s)
	if validity != nil {
		defer validity.Release()
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity}, kids, s.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// copyValidity copies arr's validity bitmap to offset 0 (nil: no nulls).
func (c *Conformer) copyValidity(arr arrow.Array) *memory.Buffer {
	if arr.NullN() == 0 {
		return nil
	}
	n := arr.Len()
	buf := memory.NewResizableBuffer(c.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bitutil.CopyBitmap(arr.NullBitmapBytes(), arr.Data().Offset(), n, buf.Bytes(), 0)
	return buf
}

// conformList conforms a list or map: its offsets and validity are reused
// as they are, its values conformed whole.
func (c *Conformer) conformList(arr arrow.Array, dt arrow.DataType, p *fieldPlan) (arrow.Array, error) {
	var values arrow.Array
	var offsets *memory.Buffer
	switch l := arr.(type) {
	case *array.Map:
		values = l.ListValues()
		offsets = l.Data().Buffers()[1]
	case *array.List:
		values = l.ListValues()
		offsets = l.Data().Buffers()[1]
	case *array.LargeList:
		// Large offsets narrow to 32 bits; a column this size would not fit
		// one Parquet page anyway.
		ctx := compute.WithAllocator(context.Background(), c.mem)
		cast, err := compute.CastArray(ctx, l, compute.SafeCastOptions(arrow.ListOfField(l.DataType().(*arrow.LargeListType).ElemField())))
		if err != nil {
			return nil, fmt.Errorf("%w: column %s: %v", ErrSchemaMismatch, p.path, err)
		}
		defer cast.Release()
		return c.conformList(cast, dt, p)
	default:
		return nil, fmt.Errorf("%w: column %s is %v, not a list", ErrSchemaMismatch, p.path, arr.DataType())
	}
	var child arrow.Array
	var err error
	if mt, ok := dt.(*arrow.MapType); ok {
		entries := &fieldPlan{path: p.path, dst: arrow.Field{Name: "entries", Type: mt.Elem()}, srcIndex: 0, children: p.children}
		// Map keys and values are named by position, not name.
		entries.children = []fieldPlan{p.children[0], p.children[1]}
		entries.children[0].srcIndex, entries.children[1].srcIndex = 0, 1
		child, err = c.conformStruct(values.(*array.Struct), mt.Elem().(*arrow.StructType), entries)
	} else {
		cp := &p.children[0]
		child, err = c.conformArray(values, cp)
		if err == nil && cp.field.Required {
			err = checkRequired(child, nil, cp.path)
		}
	}
	if err != nil {
		if child != nil {
			child.Release()
		}
		return nil, err
	}
	defer child.Release()
	d := arr.Data()
	data := array.NewData(dt, arr.Len(), []*memory.Buffer{d.Buffers()[0], offsets}, []arrow.ArrayData{child.Data()}, arr.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data), nil
}
