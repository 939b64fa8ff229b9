package reader

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Column Projection. A field that a data file lacks reads as its
// identity-partition value when the task has one, else as its
// initial-default, else as null; a required field with none of these is an
// error.

// partitionConstants decodes the task's identity-partition values for the
// fields of the projected schema, keyed by source field id. A constant
// without a value is null.
func partitionConstants(schema *iceberg.Schema, task *Task) (map[int]any, error) {
	out := make(map[int]any, len(task.Constants))
	for _, c := range task.Constants {
		f, ok := schema.FieldByID(int(c.FieldID))
		if !ok {
			continue
		}
		if c.Value == nil {
			out[f.ID] = nil
			continue
		}
		v, err := iceberg.DecodeValue(f.Type, c.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: partition value of field %q (id %d) for %s: %v", ErrInvalidTask, f.Name, f.ID, task.Path, err)
		}
		out[f.ID] = v
	}
	return out, nil
}

// initialDefault returns the value of a field missing from a data file. A
// struct's initial-default is null or {}: null makes the whole struct null,
// {} makes it present with each sub-field at its own default.
func initialDefault(f iceberg.NestedField, path string) (any, error) {
	v, err := iceberg.ParseJSONValue(f.Type, f.InitialDefault)
	if err != nil {
		return nil, fmt.Errorf("initial-default of field %q (id %d): %w", f.Name, f.ID, err)
	}
	if v == nil {
		if _, unknown := f.Type.(iceberg.UnknownType); f.Required && !unknown {
			return nil, fmt.Errorf("%w: required field %q (id %d) is missing from data file %s and has no initial-default",
				ErrSchemaMismatch, f.Name, f.ID, path)
		}
		return nil, nil
	}
	if st, ok := f.Type.(*iceberg.StructType); ok {
		m, _ := v.(map[int]any)
		if m == nil {
			m = make(map[int]any)
		}
		for _, c := range st.Fields {
			if m[c.ID] != nil {
				continue
			}
			if m[c.ID], err = initialDefault(c, path); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	return v, nil
}

// fillArray returns n rows of p's fill value. The array built for the first
// call is kept in p and sliced for later calls that need no more rows, so
// a constant column costs one build per read.
func fillArray(mem memory.Allocator, p *fieldPlan, n int) (arrow.Array, error) {
	if p.cache == nil || p.cache.Len() < n {
		if p.cache != nil {
			p.cache.Release()
			p.cache = nil
		}
		arr, err := constArray(mem, p.field.Type, p.target, p.fill, n)
		if err != nil {
			return nil, err
		}
		p.cache = arr
	}
	if p.cache.Len() == n {
		p.cache.Retain()
		return p.cache, nil
	}
	return array.NewSlice(p.cache, 0, int64(n)), nil
}

// constArray builds an array of n copies of the literal v.
func constArray(mem memory.Allocator, t iceberg.Type, dt arrow.DataType, v any, n int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if err := appendLiteral(b, t, v); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// appendLiteral appends one Go literal (iceberg's representation) of type t.
func appendLiteral(b array.Builder, t iceberg.Type, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("%w: value %v (%T) for type %s", ErrInvalidTask, v, v, t) }
	var ok bool
	switch b := b.(type) {
	case *array.BooleanBuilder:
		ok = appendAs[bool](b, v)
	case *array.Int32Builder:
		ok = appendAs[int32](b, v)
	case *array.Int64Builder:
		ok = appendAs[int64](b, v)
	case *array.Float32Builder:
		ok = appendAs[float32](b, v)
	case *array.Float64Builder:
		ok = appendAs[float64](b, v)
	case *array.Decimal128Builder:
		ok = appendAs[decimal128.Num](b, v)
	case *array.Date32Builder:
		ok = appendConverted(b, v, func(x int32) arrow.Date32 { return arrow.Date32(x) })
	case *array.Time64Builder:
		ok = appendConverted(b, v, func(x int64) arrow.Time64 { return arrow.Time64(x) })
	case *array.TimestampBuilder:
		ok = appendConverted(b, v, func(x int64) arrow.Timestamp { return arrow.Timestamp(x) })
	case *array.StringBuilder:
		ok = appendAs[string](b, v)
	case *array.BinaryBuilder:
		ok = appendAs[[]byte](b, v)
	case *array.FixedSizeBinaryBuilder:
		switch x := v.(type) {
		case [16]byte:
			ok = true
			b.Append(x[:])
		case []byte:
			ok = len(x) == b.Type().(*arrow.FixedSizeBinaryType).ByteWidth
			if ok {
				b.Append(x)
			}
		}
	case *array.StructBuilder:
		return appendStruct(b, t, v)
	case *array.MapBuilder:
		return appendMap(b, t, v)
	case *array.ListBuilder:
		lt, isList := t.(*iceberg.ListType)
		elems, isSlice := v.([]any)
		if !isList || !isSlice {
			return bad()
		}
		b.Append(true)
		for _, e := range elems {
			if err := appendLiteral(b.ValueBuilder(), lt.Element, e); err != nil {
				return err
			}
		}
		return nil
	}
	if !ok {
		return bad()
	}
	return nil
}

// appendAs appends v to b when v holds the builder's Go type.
func appendAs[T any](b interface{ Append(T) }, v any) bool {
	x, ok := v.(T)
	if ok {
		b.Append(x)
	}
	return ok
}

// appendConverted appends v, a literal of Go type L, as the builder's type
// A (days, micros and nanos are literals' int32 and int64).
func appendConverted[L, A any](b interface{ Append(A) }, v any, conv func(L) A) bool {
	x, ok := v.(L)
	if ok {
		b.Append(conv(x))
	}
	return ok
}

func appendStruct(b *array.StructBuilder, t iceberg.Type, v any) error {
	st, isStruct := t.(*iceberg.StructType)
	m, isMap := v.(map[int]any)
	if !isStruct || !isMap {
		return fmt.Errorf("%w: value %v (%T) for type %s", ErrInvalidTask, v, v, t)
	}
	b.Append(true)
	for i, f := range st.Fields {
		if err := appendLiteral(b.FieldBuilder(i), f.Type, m[f.ID]); err != nil {
			return err
		}
	}
	return nil
}

func appendMap(b *array.MapBuilder, t iceberg.Type, v any) error {
	mt, isMap := t.(*iceberg.MapType)
	m, isLit := v.(iceberg.MapLiteral)
	if !isMap || !isLit || len(m.Keys) != len(m.Values) {
		return fmt.Errorf("%w: value %v (%T) for type %s", ErrInvalidTask, v, v, t)
	}
	b.Append(true)
	for i := range m.Keys {
		if err := appendLiteral(b.KeyBuilder(), mt.Key, m.Keys[i]); err != nil {
			return err
		}
		if err := appendLiteral(b.ItemBuilder(), mt.Value, m.Values[i]); err != nil {
			return err
		}
	}
	return nil
}
