package reader

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Schema Evolution, type promotion. A column written with an older
// type is read as the current one: int as long, float as double, a decimal
// at a larger precision. Beyond promotion, Parquet offers several physical
// forms for one Iceberg type (times in millis or micros, timestamps in any
// unit or as INT96, strings without the UTF8 annotation, uuid as a plain
// fixed[16]); all are converted to the one Arrow type iceberg.ArrowType
// gives.

// storageType unwraps extension types (arrow.uuid, parquet.variant, geoarrow)
// that pqarrow produces when their packages are registered, and the
// dictionaries it reads some string columns as (see parquet.DictionaryColumns),
// which convertLeaf unpacks.
func storageType(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case arrow.ExtensionType:
		return t.StorageType()
	case *arrow.DictionaryType:
		return t.ValueType
	}
	return dt
}

func storageArray(arr arrow.Array) arrow.Array {
	if ext, ok := arr.(array.ExtensionArray); ok {
		return ext.Storage()
	}
	return arr
}

// canConvert reports whether a file column of Arrow type from (as pqarrow
// reads it) can be read as the Iceberg primitive type to.
func canConvert(from arrow.DataType, to iceberg.Type) bool {
	from = storageType(from)
	id := from.ID()
	switch t := to.(type) {
	case iceberg.BooleanType:
		return id == arrow.BOOL
	case iceberg.IntType:
		return id == arrow.INT32 || id == arrow.INT16 || id == arrow.INT8 || id == arrow.UINT16 || id == arrow.UINT8
	case iceberg.LongType:
		return id == arrow.INT64 || id == arrow.INT32 || id == arrow.INT16 || id == arrow.INT8 ||
			id == arrow.UINT32 || id == arrow.UINT16 || id == arrow.UINT8
	case iceberg.FloatType:
		return id == arrow.FLOAT32
	case iceberg.DoubleType:
		return id == arrow.FLOAT64 || id == arrow.FLOAT32
	case iceberg.DecimalType:
		d, ok := from.(*arrow.Decimal128Type)
		return ok && int(d.Scale) == t.Scale && int(d.Precision) <= t.Precision
	case iceberg.DateType:
		return id == arrow.DATE32
	case iceberg.TimeType:
		// ORC has no time type: Iceberg writes microseconds as a bigint.
		return id == arrow.TIME32 || id == arrow.TIME64 || id == arrow.INT64
	case iceberg.TimestampType, iceberg.TimestampNsType:
		// v3 promotes date to timestamp and timestamp_ns (not to the zoned
		// types): a day becomes its midnight.
		return id == arrow.TIMESTAMP || id == arrow.DATE32
	case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
		return id == arrow.TIMESTAMP
	case iceberg.StringType:
		return id == arrow.STRING || id == arrow.BINARY
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		return id == arrow.BINARY || id == arrow.STRING || id == arrow.FIXED_SIZE_BINARY
	case iceberg.UUIDType:
		// ORC has no fixed type: Iceberg writes uuid and fixed as binary,
		// whose values must then have the right length.
		f, ok := from.(*arrow.FixedSizeBinaryType)
		return ok && f.ByteWidth == 16 || id == arrow.BINARY
	case iceberg.FixedType:
		f, ok := from.(*arrow.FixedSizeBinaryType)
		return ok && f.ByteWidth == t.Length || id == arrow.BINARY
	}
	return false
}

// converter turns arrays as pqarrow reads them into the target types.
type converter struct {
	ctx  context.Context // carries mem for compute casts
	mem  memory.Allocator
	path string
	// dict holds the fields whose Parquet dictionaries pass through
	// (sourceConfig.dict).
	dict map[int]bool
}

// convert returns arr, read from p.src, as p.target. The caller owns the
// result; arr is not released.
func (c *converter) convert(p *fieldPlan, arr arrow.Array) (arrow.Array, error) {
	arr = storageArray(arr)
	switch t := p.field.Type.(type) {
	case *iceberg.StructType:
		sa, ok := arr.(*array.Struct)
		if !ok {
			return nil, c.layoutError(p, arr)
		}
		return c.convertStruct(p, sa, t)
	case *iceberg.ListType:
		la, ok := arr.(*array.List)
		if !ok {
			return nil, c.layoutError(p, arr)
		}
		elem, err := c.convert(p.children[0], la.ListValues())
		if err != nil {
			return nil, err
		}
		defer elem.Release()
		d := la.Data()
		return newArray(p.target, d.Len(), d.Buffers()[:2], []arrow.ArrayData{elem.Data()}, d.NullN(), d.Offset()), nil
	case *iceberg.MapType:
		ma, ok := arr.(*array.Map)
		if !ok {
			return nil, c.layoutError(p, arr)
		}
		entries, ok := ma.ListValues().(*array.Struct)
		if !ok || entries.NumField() != 2 {
			return nil, c.layoutError(p, arr)
		}
		key, err := c.convert(p.children[0], entries.Field(0))
		if err != nil {
			return nil, err
		}
		defer key.Release()
		val, err := c.convert(p.children[1], entries.Field(1))
		if err != nil {
			return nil, err
		}
		defer val.Release()
		mt := p.target.(*arrow.MapType)
		ed := array.NewData(mt.Elem(), entries.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{key.Data(), val.Data()}, 0, 0)
		defer ed.Release()
		d := ma.Data()
		return newArray(p.target, d.Len(), d.Buffers()[:2], []arrow.ArrayData{ed}, d.NullN(), d.Offset()), nil
	case iceberg.VariantType:
		sa, ok := arr.(*array.Struct)
		if !ok {
			return nil, c.layoutError(p, arr)
		}
		return c.convertVariant(p, sa)
	}
	return c.convertLeaf(p, arr)
}

func (c *converter) layoutError(p *fieldPlan, arr arrow.Array) error {
	return fmt.Errorf("%w: column %q (id %d) of %s was read as %s, which does not fit %s",
		ErrSchemaMismatch, p.src.name, p.field.ID, c.path, arr.DataType(), p.field.Type)
}

func (c *converter) convertStruct(p *fieldPlan, sa *array.Struct, t *iceberg.StructType) (arrow.Array, error) {
	st := sa.DataType().(*arrow.StructType)
	children := make([]arrow.ArrayData, 0, len(p.children))
	defer func() {
		for _, d := range children {
			d.Release()
		}
	}()
	for _, cp := range p.children {
		var (
			child arrow.Array
			err   error
		)
		if cp.src != nil {
			if cp.pos >= sa.NumField() || st.Field(cp.pos).Name != cp.src.name {
				return nil, fmt.Errorf("read %s: field %q of struct %q not where expected (internal error)", c.path, cp.src.name, p.field.Name)
			}
			child, err = c.convert(cp, sa.Field(cp.pos))
		} else {
			child, err = fillArray(c.mem, cp, sa.Len())
		}
		if err != nil {
			return nil, err
		}
		children = append(children, child.Data())
		child.Data().Retain()
		child.Release()
	}
	valid := alignedValidity(c.mem, sa.Data())
	if valid != nil {
		defer valid.Release()
	}
	return newArray(p.target, sa.Len(), []*memory.Buffer{valid}, children, sa.NullN(), 0), nil
}

// convertVariant reads an unshredded variant (a group of metadata and
// value). Shredded variants (with typed_value) are left to a later issue.
func (c *converter) convertVariant(p *fieldPlan, sa *array.Struct) (arrow.Array, error) {
	st := sa.DataType().(*arrow.StructType)
	mi, okm := st.FieldIdx("metadata")
	vi, okv := st.FieldIdx("value")
	if !okm || !okv || st.NumFields() != 2 {
		return nil, fmt.Errorf("%w: shredded variant column %q of %s", ErrUnsupported, p.src.name, c.path)
	}
	tt := p.target.(*arrow.StructType)
	var children []arrow.ArrayData
	defer func() {
		for _, d := range children {
			d.Release()
		}
	}()
	for i, idx := range []int{mi, vi} {
		child, err := c.asType(sa.Field(idx), tt.Field(i).Type)
		if err != nil {
			return nil, err
		}
		children = append(children, child.Data())
		child.Data().Retain()
		child.Release()
	}
	valid := alignedValidity(c.mem, sa.Data())
	if valid != nil {
		defer valid.Release()
	}
	return newArray(p.target, sa.Len(), []*memory.Buffer{valid}, children, sa.NullN(), 0), nil
}

func (c *converter) convertLeaf(p *fieldPlan, arr arrow.Array) (arrow.Array, error) {
	if !canConvert(arr.DataType(), p.field.Type) {
		return nil, c.layoutError(p, arr)
	}
	if d, ok := arr.(*array.Dictionary); ok {
		if c.dict[p.field.ID] && passDictionary(d, p.target) {
			if err := checkIndices(d); err != nil {
				return nil, fmt.Errorf("read column %q of %s: %w", p.src.name, c.path, err)
			}
			d.Retain()
			return d, nil
		}
		dense, err := unpackDictionary(c.mem, d)
		if err != nil {
			return nil, fmt.Errorf("read column %q of %s: %w", p.src.name, c.path, err)
		}
		defer dense.Release()
		arr = dense
	}
	return c.asType(arr, p.target)
}

// asType converts a primitive array to the target type; the pair has passed
// canConvert.
func (c *converter) asType(arr arrow.Array, target arrow.DataType) (arrow.Array, error) {
	from := arr.DataType()
	if arrow.TypeEqual(from, target) {
		arr.Retain()
		return arr, nil
	}
	switch to := target.(type) {
	case *arrow.Int32Type, *arrow.Int64Type, *arrow.Float64Type:
		// Widening integers and float to double is exact; compute does it.
		return compute.CastArray(withComputeAllocator(c.ctx, c.mem), arr, compute.SafeCastOptions(target))
	case *arrow.Time64Type:
		switch f := from.(type) {
		case *arrow.Int64Type:
			if to.Unit != arrow.Microsecond {
				break
			}
			return relabel(arr, target), nil
		case *arrow.Time32Type:
			return scaleInts(c.mem, arr, target, int64(f.Unit.Multiplier()), int64(to.Unit.Multiplier()))
		case *arrow.Time64Type:
			return scaleInts(c.mem, arr, target, int64(f.Unit.Multiplier()), int64(to.Unit.Multiplier()))
		}
	case *arrow.TimestampType:
		if f, ok := from.(*arrow.TimestampType); ok {
			if f.Unit == to.Unit {
				return relabel(arr, target), nil
			}
			return scaleInts(c.mem, arr, target, int64(f.Unit.Multiplier()), int64(to.Unit.Multiplier()))
		}
		if _, ok := from.(*arrow.Date32Type); ok {
			return scaleInts(c.mem, arr, target, 86400*1_000_000_000, int64(to.Unit.Multiplier()))
		}
	case *arrow.StringType, *arrow.BinaryType:
		switch from.(type) {
		case *arrow.StringType, *arrow.BinaryType:
			return relabel(arr, target), nil
		case *arrow.FixedSizeBinaryType:
			return fixedToBinary(c.mem, arr.(*array.FixedSizeBinary)), nil
		}
	case *arrow.FixedSizeBinaryType:
		if b, ok := arr.(*array.Binary); ok {
			return binaryToFixed(c.mem, b, to)
		}
		// Same layout: a plain fixed[16] read as uuid.
		return relabel(arr, target), nil
	case *arrow.Decimal128Type:
		// Same layout, a wider precision.
		return relabel(arr, target), nil
	}
	return nil, fmt.Errorf("%w: no conversion from %s to %s", ErrSchemaMismatch, from, target)
}

// relabel returns arr's buffers under another type of the same layout.
func relabel(arr arrow.Array, target arrow.DataType) arrow.Array {
	d := arr.Data()
	return newArray(target, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
}

func newArray(dt arrow.DataType, length int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls, offset int) arrow.Array {
	d := array.NewData(dt, length, bufs, children, nulls, offset)
	defer d.Release()
	return array.MakeFromData(d)
}

// scaleInts rescales 32- or 64-bit time values from ticks of fromNs to
// ticks of toNs nanoseconds. Going to a coarser unit divides with floor, as
// Iceberg Java does (Math.floorDiv), so instants before 1970 round down.
func scaleInts(mem memory.Allocator, arr arrow.Array, target arrow.DataType, fromNs, toNs int64) (arrow.Array, error) {
	n := arr.Len()
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(n * 8)
	out := arrow.Int64Traits.CastFromBytes(vals.Bytes())
	var get func(i int) int64
	switch a := arr.(type) {
	case *array.Time32:
		get = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Time64:
		get = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Timestamp:
		get = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Date32:
		get = func(i int) int64 { return int64(a.Value(i)) }
	default:
		return nil, fmt.Errorf("%w: cannot rescale %s", ErrSchemaMismatch, arr.DataType())
	}
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			out[i] = 0
			continue
		}
		v := get(i)
		if fromNs >= toNs {
			out[i] = v * (fromNs / toNs)
		} else {
			out[i] = floorDiv(v, toNs/fromNs)
		}
	}
	valid := alignedValidity(mem, arr.Data())
	if valid != nil {
		defer valid.Release()
	}
	return newArray(target, n, []*memory.Buffer{valid, vals}, nil, arr.NullN(), 0), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func fixedToBinary(mem memory.Allocator, arr *array.FixedSizeBinary) arrow.Array {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(arr.Value(i))
		}
	}
	return b.NewArray()
}

// binaryToFixed copies binary values into fixed-size ones, refusing a value
// of another length.
func binaryToFixed(mem memory.Allocator, arr *array.Binary, to *arrow.FixedSizeBinaryType) (arrow.Array, error) {
	b := array.NewFixedSizeBinaryBuilder(mem, to)
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := arr.Value(i)
		if len(v) != to.ByteWidth {
			return nil, fmt.Errorf("%w: a value of %d bytes cannot be read as %s", ErrSchemaMismatch, len(v), to)
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// alignedValidity returns d's validity bitmap starting at bit 0, or nil when
// d has no nulls. The caller releases the result.
func alignedValidity(mem memory.Allocator, d arrow.ArrayData) *memory.Buffer {
	if d.NullN() == 0 || len(d.Buffers()) == 0 || d.Buffers()[0] == nil {
		return nil
	}
	src := d.Buffers()[0]
	if d.Offset() == 0 {
		src.Retain()
		return src
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(d.Len()))))
	bitutil.CopyBitmap(src.Bytes(), d.Offset(), d.Len(), buf.Bytes(), 0)
	return buf
}
