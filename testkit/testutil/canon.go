// Package testutil holds test helpers shared by iceflight's packages: the
// canonical row form used to compare what iceflight streams with what the
// Apache Iceberg Java oracle wrote (testdata/conformance/README.md).
package testutil

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
)

// Canonical form: one JSON object per row with the top-level columns in
// schema order. Both sides are rendered by the same writer below, driven by
// the Iceberg type, so the comparison does not depend on how Java or Go
// spell a float or order a map.

// ArrowRows renders every row of rec in canonical form.
func ArrowRows(schema *iceberg.Schema, rec arrow.RecordBatch) ([]string, error) {
	if int(rec.NumCols()) != len(schema.Fields) {
		return nil, fmt.Errorf("batch has %d columns, schema %d", rec.NumCols(), len(schema.Fields))
	}
	rows := make([]string, rec.NumRows())
	var buf bytes.Buffer
	for r := range rows {
		buf.Reset()
		buf.WriteByte('{')
		for c, f := range schema.Fields {
			if c > 0 {
				buf.WriteByte(',')
			}
			writeKey(&buf, f.Name)
			if err := writeArrow(&buf, f.Type, rec.Column(c), r); err != nil {
				return nil, fmt.Errorf("row %d column %s: %w", r, f.Name, err)
			}
		}
		buf.WriteByte('}')
		rows[r] = buf.String()
	}
	return rows, nil
}

// OracleRow renders one line of the oracle's JSON output in canonical form.
func OracleRow(schema *iceberg.Schema, line []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for c, f := range schema.Fields {
		if c > 0 {
			buf.WriteByte(',')
		}
		writeKey(&buf, f.Name)
		if err := writeJSON(&buf, f.Type, obj[f.Name]); err != nil {
			return "", fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	buf.WriteByte('}')
	return buf.String(), nil
}

func writeKey(buf *bytes.Buffer, name string) {
	b, _ := json.Marshal(name)
	buf.Write(b)
	buf.WriteByte(':')
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

func writeFloat(buf *bytes.Buffer, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		buf.WriteString(`"NaN"`)
	case math.IsInf(f, 1):
		buf.WriteString(`"Infinity"`)
	case math.IsInf(f, -1):
		buf.WriteString(`"-Infinity"`)
	default:
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, bits))
	}
}

// formatDecimal writes an unscaled value at a scale as plain digits, the
// way Java's BigDecimal.toPlainString does.
func formatDecimal(n decimal128.Num, scale int) string {
	s := n.BigInt().String()
	if scale <= 0 {
		return s
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for len(s) <= scale {
		s = "0" + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

func writeArrow(buf *bytes.Buffer, t iceberg.Type, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		buf.WriteString("null")
		return nil
	}
	switch t := t.(type) {
	case iceberg.BooleanType:
		buf.WriteString(strconv.FormatBool(arr.(*array.Boolean).Value(i)))
	case iceberg.IntType:
		buf.WriteString(strconv.FormatInt(int64(arr.(*array.Int32).Value(i)), 10))
	case iceberg.LongType:
		buf.WriteString(strconv.FormatInt(arr.(*array.Int64).Value(i), 10))
	case iceberg.FloatType:
		writeFloat(buf, float64(arr.(*array.Float32).Value(i)), 32)
	case iceberg.DoubleType:
		writeFloat(buf, arr.(*array.Float64).Value(i), 64)
	case iceberg.DecimalType:
		writeString(buf, formatDecimal(arr.(*array.Decimal128).Value(i), t.Scale))
	case iceberg.DateType:
		buf.WriteString(strconv.FormatInt(int64(arr.(*array.Date32).Value(i)), 10))
	case iceberg.TimeType:
		buf.WriteString(strconv.FormatInt(int64(arr.(*array.Time64).Value(i)), 10))
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		buf.WriteString(strconv.FormatInt(int64(arr.(*array.Timestamp).Value(i)), 10))
	case iceberg.StringType:
		writeString(buf, arr.(*array.String).Value(i))
	case iceberg.UUIDType:
		var u [16]byte
		copy(u[:], arr.(*array.FixedSizeBinary).Value(i))
		writeString(buf, iceberg.FormatUUID(u))
	case iceberg.FixedType:
		writeString(buf, hex.EncodeToString(arr.(*array.FixedSizeBinary).Value(i)))
	case iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		writeString(buf, hex.EncodeToString(arr.(*array.Binary).Value(i)))
	case iceberg.UnknownType:
		buf.WriteString("null")
	case iceberg.VariantType:
		st := arr.(*array.Struct)
		writeVariant(buf, hex.EncodeToString(st.Field(0).(*array.Binary).Value(i)),
			hex.EncodeToString(st.Field(1).(*array.Binary).Value(i)))
	case *iceberg.StructType:
		st := arr.(*array.Struct)
		buf.WriteByte('{')
		for k, f := range t.Fields {
			if k > 0 {
				buf.WriteByte(',')
			}
			writeKey(buf, f.Name)
			if err := writeArrow(buf, f.Type, st.Field(k), i); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case *iceberg.ListType:
		l := arr.(*array.List)
		start, end := l.ValueOffsets(i)
		buf.WriteByte('[')
		for j := start; j < end; j++ {
			if j > start {
				buf.WriteByte(',')
			}
			if err := writeArrow(buf, t.Element, l.ListValues(), int(j)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *iceberg.MapType:
		m := arr.(*array.Map)
		start, end := m.ValueOffsets(i)
		var entries []string
		for j := start; j < end; j++ {
			var e bytes.Buffer
			e.WriteString(`{"key":`)
			if err := writeArrow(&e, t.Key, m.Keys(), int(j)); err != nil {
				return err
			}
			e.WriteString(`,"value":`)
			if err := writeArrow(&e, t.Value, m.Items(), int(j)); err != nil {
				return err
			}
			e.WriteByte('}')
			entries = append(entries, e.String())
		}
		writeEntries(buf, entries)
	default:
		return fmt.Errorf("no canonical form for %v", t)
	}
	return nil
}

// writeVariant writes a variant as the hex of its metadata and value bytes.
func writeVariant(buf *bytes.Buffer, metadata, value string) {
	buf.WriteString(`{"metadata":`)
	writeString(buf, metadata)
	buf.WriteString(`,"value":`)
	writeString(buf, value)
	buf.WriteByte('}')
}

// writeEntries writes map entries sorted, since map order is not part of a
// map's value.
func writeEntries(buf *bytes.Buffer, entries []string) {
	sort.Strings(entries)
	buf.WriteByte('[')
	for j, e := range entries {
		if j > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(e)
	}
	buf.WriteByte(']')
}

func writeJSON(buf *bytes.Buffer, t iceberg.Type, v any) error {
	if v == nil {
		buf.WriteString("null")
		return nil
	}
	bad := func() error { return fmt.Errorf("oracle value %v (%T) does not fit %v", v, v, t) }
	switch t := t.(type) {
	case iceberg.BooleanType:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		buf.WriteString(strconv.FormatBool(b))
	case iceberg.IntType, iceberg.LongType, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		n, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return bad()
		}
		buf.WriteString(strconv.FormatInt(i, 10))
	case iceberg.FloatType, iceberg.DoubleType:
		bits := 64
		if _, ok := t.(iceberg.FloatType); ok {
			bits = 32
		}
		var s string
		switch v := v.(type) {
		case json.Number:
			s = string(v)
		case string:
			s = v
		default:
			return bad()
		}
		f, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return bad()
		}
		writeFloat(buf, f, bits)
	case iceberg.DecimalType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return bad()
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
		if !r.IsInt() {
			return bad()
		}
		writeString(buf, formatDecimal(decimal128.FromBigInt(r.Num()), t.Scale))
	case iceberg.StringType, iceberg.UUIDType, iceberg.FixedType, iceberg.BinaryType, iceberg.GeometryType, iceberg.GeographyType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		writeString(buf, s)
	case iceberg.UnknownType:
		buf.WriteString("null")
	case iceberg.VariantType:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		m, _ := obj["metadata"].(string)
		val, _ := obj["value"].(string)
		writeVariant(buf, m, val)
	case *iceberg.StructType:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		buf.WriteByte('{')
		for k, f := range t.Fields {
			if k > 0 {
				buf.WriteByte(',')
			}
			writeKey(buf, f.Name)
			if err := writeJSON(buf, f.Type, obj[f.Name]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case *iceberg.ListType:
		list, ok := v.([]any)
		if !ok {
			return bad()
		}
		buf.WriteByte('[')
		for j, e := range list {
			if j > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, t.Element, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *iceberg.MapType:
		list, ok := v.([]any)
		if !ok {
			return bad()
		}
		entries := make([]string, 0, len(list))
		for _, e := range list {
			kv, ok := e.(map[string]any)
			if !ok {
				return bad()
			}
			var eb bytes.Buffer
			eb.WriteString(`{"key":`)
			if err := writeJSON(&eb, t.Key, kv["key"]); err != nil {
				return err
			}
			eb.WriteString(`,"value":`)
			if err := writeJSON(&eb, t.Value, kv["value"]); err != nil {
				return err
			}
			eb.WriteByte('}')
			entries = append(entries, eb.String())
		}
		writeEntries(buf, entries)
	default:
		return fmt.Errorf("no canonical form for %v", t)
	}
	return nil
}
