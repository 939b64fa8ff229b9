package orc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

// The corpus tests compare decoded rows with the Java oracle's. Decoded
// values are rendered here into the oracle's JSON shapes
// (testdata/conformance/README.md), driven by the Iceberg type the oracle
// read the column as; testutil.OracleRow then puts both sides in canonical
// form.

// fieldIndex finds the child of an Arrow struct (or schema) that holds
// Iceberg field f: by PARQUET:field_id where the file has ids, else by name.
func fieldIndex(fields []arrow.Field, f iceberg.NestedField) int {
	for i, af := range fields {
		if id, ok := af.Metadata.GetValue(FieldIDKey); ok && id == strconv.Itoa(f.ID) {
			return i
		}
	}
	for i, af := range fields {
		if _, ok := af.Metadata.GetValue(FieldIDKey); !ok && strings.EqualFold(af.Name, f.Name) {
			return i
		}
	}
	return -1
}

// renders reports whether values of Arrow type dt can stand for Iceberg
// type t, the promotions Iceberg allows included.
func renders(t iceberg.Type, dt arrow.DataType) bool {
	switch t := t.(type) {
	case iceberg.BooleanType:
		return dt.ID() == arrow.BOOL
	case iceberg.IntType:
		return dt.ID() == arrow.INT8 || dt.ID() == arrow.INT16 || dt.ID() == arrow.INT32
	case iceberg.LongType:
		return dt.ID() == arrow.INT8 || dt.ID() == arrow.INT16 || dt.ID() == arrow.INT32 || dt.ID() == arrow.INT64
	case iceberg.FloatType:
		return dt.ID() == arrow.FLOAT32
	case iceberg.DoubleType:
		return dt.ID() == arrow.FLOAT32 || dt.ID() == arrow.FLOAT64
	case iceberg.DecimalType:
		d, ok := dt.(*arrow.Decimal128Type)
		return ok && int(d.Scale) == t.Scale
	case iceberg.DateType:
		return dt.ID() == arrow.DATE32
	case iceberg.TimeType:
		return dt.ID() == arrow.INT64
	case iceberg.TimestampType, iceberg.TimestampNsType:
		ts, ok := dt.(*arrow.TimestampType)
		return ok && ts.TimeZone == ""
	case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
		ts, ok := dt.(*arrow.TimestampType)
		return ok && ts.TimeZone != ""
	case iceberg.StringType:
		return dt.ID() == arrow.STRING
	case iceberg.UUIDType, iceberg.FixedType, iceberg.BinaryType:
		return dt.ID() == arrow.BINARY
	case *iceberg.StructType:
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return false
		}
		for _, f := range t.Fields {
			if i := fieldIndex(st.Fields(), f); i >= 0 && !renders(f.Type, st.Field(i).Type) {
				return false
			}
		}
		return true
	case *iceberg.ListType:
		lt, ok := dt.(*arrow.ListType)
		return ok && renders(t.Element, lt.Elem())
	case *iceberg.MapType:
		mt, ok := dt.(*arrow.MapType)
		return ok && renders(t.Key, mt.KeyType()) && renders(t.Value, mt.ItemType())
	}
	return false
}

// jsonValue renders row i of arr as the oracle writes a value of type t.
func jsonValue(t iceberg.Type, arr arrow.Array, i int) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	num := func(v int64) any { return json.Number(strconv.FormatInt(v, 10)) }
	switch t := t.(type) {
	case iceberg.BooleanType:
		return arr.(*array.Boolean).Value(i), nil
	case iceberg.IntType, iceberg.LongType, iceberg.TimeType:
		switch a := arr.(type) {
		case *array.Int8:
			return num(int64(a.Value(i))), nil
		case *array.Int16:
			return num(int64(a.Value(i))), nil
		case *array.Int32:
			return num(int64(a.Value(i))), nil
		case *array.Int64:
			return num(a.Value(i)), nil
		}
	case iceberg.FloatType:
		return floatJSON(float64(arr.(*array.Float32).Value(i)), 32), nil
	case iceberg.DoubleType:
		if a, ok := arr.(*array.Float32); ok {
			return floatJSON(float64(a.Value(i)), 64), nil
		}
		return floatJSON(arr.(*array.Float64).Value(i), 64), nil
	case iceberg.DecimalType:
		return decimalString(arr.(*array.Decimal128).Value(i).BigInt(), t.Scale), nil
	case iceberg.DateType:
		return num(int64(arr.(*array.Date32).Value(i))), nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		ns := int64(arr.(*array.Timestamp).Value(i))
		us := ns / 1000
		if ns%1000 < 0 {
			us--
		}
		return num(us), nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return num(int64(arr.(*array.Timestamp).Value(i))), nil
	case iceberg.StringType:
		return arr.(*array.String).Value(i), nil
	case iceberg.UUIDType:
		b := arr.(*array.Binary).Value(i)
		if len(b) != 16 {
			return nil, fmt.Errorf("uuid of %d bytes", len(b))
		}
		return iceberg.FormatUUID([16]byte(b)), nil
	case iceberg.FixedType, iceberg.BinaryType:
		return hex.EncodeToString(arr.(*array.Binary).Value(i)), nil
	case *iceberg.StructType:
		st := arr.(*array.Struct)
		fields := st.DataType().(*arrow.StructType).Fields()
		obj := map[string]any{}
		for _, f := range t.Fields {
			k := fieldIndex(fields, f)
			if k < 0 {
				obj[f.Name] = nil
				continue
			}
			v, err := jsonValue(f.Type, st.Field(k), i)
			if err != nil {
				return nil, err
			}
			obj[f.Name] = v
		}
		return obj, nil
	case *iceberg.ListType:
		l := arr.(*array.List)
		start, end := l.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := jsonValue(t.Element, l.ListValues(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *iceberg.MapType:
		m := arr.(*array.Map)
		start, end := m.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			k, err := jsonValue(t.Key, m.Keys(), int(j))
			if err != nil {
				return nil, err
			}
			v, err := jsonValue(t.Value, m.Items(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, map[string]any{"key": k, "value": v})
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot render %T as %v", arr, t)
}

func floatJSON(f float64, bits int) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, bits))
}

// decimalString writes an unscaled value at a scale in plain notation.
func decimalString(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}
