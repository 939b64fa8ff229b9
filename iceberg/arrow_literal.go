package iceberg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// AppendLiteral appends one literal, in literal.go's Go representation,
// to an Arrow builder of the type ArrowType gives t; nil appends a null.
// A value that does not fit the type is an error.
func AppendLiteral(b array.Builder, t Type, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("value %v (%T) for type %s", v, v, t) }
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
		lt, isList := t.(*ListType)
		elems, isSlice := v.([]any)
		if !isList || !isSlice {
			return bad()
		}
		b.Append(true)
		for _, e := range elems {
			if err := AppendLiteral(b.ValueBuilder(), lt.Element, e); err != nil {
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

func appendStruct(b *array.StructBuilder, t Type, v any) error {
	st, isStruct := t.(*StructType)
	m, isMap := v.(map[int]any)
	if !isStruct || !isMap {
		return fmt.Errorf("value %v (%T) for type %s", v, v, t)
	}
	b.Append(true)
	for i, f := range st.Fields {
		if err := AppendLiteral(b.FieldBuilder(i), f.Type, m[f.ID]); err != nil {
			return err
		}
	}
	return nil
}

func appendMap(b *array.MapBuilder, t Type, v any) error {
	mt, isMap := t.(*MapType)
	m, isLit := v.(MapLiteral)
	if !isMap || !isLit || len(m.Keys) != len(m.Values) {
		return fmt.Errorf("value %v (%T) for type %s", v, v, t)
	}
	b.Append(true)
	for i := range m.Keys {
		if err := AppendLiteral(b.KeyBuilder(), mt.Key, m.Keys[i]); err != nil {
			return err
		}
		if err := AppendLiteral(b.ItemBuilder(), mt.Value, m.Values[i]); err != nil {
			return err
		}
	}
	return nil
}
