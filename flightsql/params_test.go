package flightsql

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/planner"
)

// TestBoundParametersPlanAsWritten checks, for every parameter type a
// client may bind, that the filter of the command the statement plans is
// the one writing the parameter's literal in its place gives, as the
// planner reads it.
func TestBoundParametersPlanAsWritten(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	at := time.Date(2024, 2, 29, 1, 2, 3, 4005, time.UTC)
	cases := []struct {
		name   string
		column string
		typ    arrow.DataType
		add    func(array.Builder)
	}{
		{"int8", "id", arrow.PrimitiveTypes.Int8, func(b array.Builder) { b.(*array.Int8Builder).Append(-8) }},
		{"int16", "id", arrow.PrimitiveTypes.Int16, func(b array.Builder) { b.(*array.Int16Builder).Append(300) }},
		{"int32", "id", arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(-7) }},
		{"int64", "id", arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(-1 << 63) }},
		{"uint32", "id", arrow.PrimitiveTypes.Uint32, func(b array.Builder) { b.(*array.Uint32Builder).Append(1 << 31) }},
		{"uint64", "id", arrow.PrimitiveTypes.Uint64, func(b array.Builder) { b.(*array.Uint64Builder).Append(1<<64 - 1) }},
		{"float32", "Fare", arrow.PrimitiveTypes.Float32, func(b array.Builder) { b.(*array.Float32Builder).Append(0.1) }},
		{"float64", "Fare", arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(1e20) }},
		{"float64 NaN", "Fare", arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(math.NaN()) }},
		{"decimal128", "Fare", &arrow.Decimal128Type{Precision: 9, Scale: 2}, func(b array.Builder) { b.(*array.Decimal128Builder).Append(decimal128.FromI64(-1420)) }},
		{"string", "VENDOR", arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).Append("it's ? -- not a comment") }},
		{"large string", "VENDOR", arrow.BinaryTypes.LargeString, func(b array.Builder) { b.(*array.LargeStringBuilder).Append("x") }},
		{"binary", "VENDOR", arrow.BinaryTypes.Binary, func(b array.Builder) { b.(*array.BinaryBuilder).Append([]byte{0xca, 0xfe}) }},
		{"bool", "VENDOR", arrow.FixedWidthTypes.Boolean, func(b array.Builder) { b.(*array.BooleanBuilder).Append(false) }},
		{"date32", "day", arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).Append(arrow.Date32FromTime(at)) }},
		{"date64", "day", arrow.FixedWidthTypes.Date64, func(b array.Builder) { b.(*array.Date64Builder).Append(arrow.Date64FromTime(at)) }},
		{"timestamp", "day", &arrow.TimestampType{Unit: arrow.Microsecond}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixMicro()))
		}},
		{"timestamptz in seconds", "day", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(at.Unix()))
		}},
		{"timestamptz in nanoseconds", "day", &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixNano()))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := array.NewBuilder(mem, tc.typ)
			defer b.Release()
			tc.add(b)
			col := b.NewArray()
			defer col.Release()
			lit, err := parameterLiteral(col, 0)
			if err != nil {
				t.Fatal(err)
			}
			sql := "SELECT id FROM samples.trips WHERE " + tc.column + " = %s OR id IN (1, %s)"
			bound, err := bindSQL(fmt.Sprintf(sql, "?", "?"), []string{lit, "2"})
			if err != nil {
				t.Fatalf("bind %s: %v", lit, err)
			}
			written, err := bindSQL(fmt.Sprintf(sql, lit, "2"), []string{})
			if err != nil {
				t.Fatalf("%s written: %v", lit, err)
			}
			if bound.cmd.Filter != written.cmd.Filter {
				t.Fatalf("bound %s the filter is %q, written %q", lit, bound.cmd.Filter, written.cmd.Filter)
			}
			got, err := planner.ParseFilter(bound.cmd.Filter)
			if err != nil {
				t.Fatalf("the planner cannot read %q: %v", bound.cmd.Filter, err)
			}
			want, err := planner.ParseFilter(written.cmd.Filter)
			if err != nil {
				t.Fatal(err)
			}
			// Printed with %#v, as NaN is not DeepEqual to itself.
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Fatalf("bound %s the planner reads %#v, written %#v", lit, got, want)
			}
		})
	}
}

func TestBindParameters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql    string
		params []string
		want   string // the command's filter
	}{
		{"SELECT id FROM samples.trips WHERE vendor LIKE ?", []string{"'ab%'"}, "vendor STARTS WITH 'ab'"},
		{"SELECT id FROM samples.trips WHERE vendor NOT LIKE ?", []string{"'ab'"}, "vendor != 'ab'"},
		{"SELECT id FROM samples.trips WHERE VENDOR STARTS WITH ?", []string{"'x'"}, "VENDOR STARTS WITH 'x'"},
		{"SELECT id FROM samples.trips WHERE ? < fare_cents", []string{"5"}, "fare_cents > 5"},
		{"SELECT id FROM samples.trips WHERE ? = id", []string{"5"}, "id = 5"},
		{"SELECT id FROM samples.trips WHERE NOT (id = ? OR fare_cents IN (?, 3)) -- ?\n", []string{"1", "-2"}, "NOT (id = 1 OR fare_cents IN (-2, 3))"},
		{"SELECT id FROM samples.trips WHERE vendor = ?", []string{"'1 OR TRUE'"}, "vendor = '1 OR TRUE'"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			q, err := bindSQL(tc.sql, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if q.cmd.Filter != tc.want {
				t.Errorf("filter %q, want %q", q.cmd.Filter, tc.want)
			}
		})
	}
}

func TestBindParameterErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql    string
		params []string
		says   string
	}{
		{"SELECT id FROM samples.trips WHERE 1 < ?", []string{"1"}, "SQL syntax error at position 40: in WHERE: expected a column, found parameter ?"},
		{"SELECT id FROM samples.trips WHERE day = DATE ?", []string{"'2024-01-01'"}, "position 47: in WHERE: a parameter stands for a whole value"},
		{"SELECT id FROM samples.trips WHERE id = ? AND vendor LIKE ?", []string{"1", "5"}, "bad parameters: parameter 2: LIKE takes a pattern string, not int64 (position 59)"},
		{"SELECT id FROM samples.trips WHERE vendor LIKE ?", []string{"'a%b'"}, "parameter 1: LIKE supports only prefix patterns"},
		{"SELECT id FROM samples.trips WHERE id = ?", []string{"1 OR TRUE"}, `bad parameters: parameter 1 (position 41): unexpected "OR" after the value`},
		{"SELECT id FROM samples.trips WHERE id = ?", []string{"TIMESTAMP '20240-01-01'"}, "parameter 1 (position 41): invalid TIMESTAMP literal"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			_, err := bindSQL(tc.sql, tc.params)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v, want an error saying %q", err, tc.says)
			}
			if sqlError(err) == err {
				t.Errorf("%v has no status code", err)
			}
		})
	}
}

func TestParameterSchema(t *testing.T) {
	t.Parallel()
	sel, err := Parse("SELECT id FROM samples.trips WHERE fare_cents > ? AND (vendor LIKE ? OR ? < day) AND loc.lat IN (?, 1)")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := parameterSchema(sel, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Float64}
	for i, f := range schema.Fields() {
		if i >= len(want) || !arrow.TypeEqual(f.Type, want[i]) {
			t.Fatalf("parameter schema %v, want the types %v", schema, want)
		}
	}
	if len(schema.Fields()) != len(want) {
		t.Fatalf("parameter schema %v, want %d fields", schema, len(want))
	}
}
