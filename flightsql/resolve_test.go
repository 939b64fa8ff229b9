package flightsql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

var testTables = []catalog.Identifier{{"samples", "trips"}, {"Mixed", "Case"}, {"mixed", "case"}, {"ns", "My Table"}}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "Fare", Type: arrow.PrimitiveTypes.Float64},
	{Name: "fare_cents", Type: arrow.PrimitiveTypes.Int64},
	{Name: "VENDOR", Type: arrow.BinaryTypes.String},
	{Name: "vendor", Type: arrow.BinaryTypes.String},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32},
	{Name: "loc", Type: arrow.StructOf(arrow.Field{Name: "Lat", Type: arrow.PrimitiveTypes.Float64})},
}, nil)

// bindSQL parses and binds sql against testTables and testSchema.
func bindSQL(sql string, params []string) (*query, error) {
	sel, err := Parse(sql)
	if err != nil {
		return nil, err
	}
	id, err := resolveTable(sel.Table, testTables)
	if err != nil {
		return nil, err
	}
	return bind(sel, id, func(*iceflightv1.Command) (*arrow.Schema, error) { return testSchema, nil }, params)
}

func TestBind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql    string
		params []string
		want   string // table | columns | names | filter
	}{
		{"SELECT * FROM samples.trips", nil, "samples.trips | [] | [] | "},
		{"SELECT * FROM SAMPLES.Trips", []string{}, "samples.trips | [] | [] | "},
		{`SELECT ID, fare FROM "Mixed"."Case"`, nil, "Mixed.Case | [id Fare] | [] | "},
		{"SELECT id AS n, loc.lat FROM mixed.case t", nil, "mixed.case | [id loc.Lat] | [n loc.Lat] | "},
		{"SELECT t.id FROM samples.trips t", nil, "samples.trips | [id] | [] | "},
		{`SELECT * FROM ns."My Table"`, nil, "ns.My Table | [] | [] | "},
		{"SELECT _file, _pos FROM samples.trips", nil, "samples.trips | [_file _pos] | [] | "},
		{`SELECT id FROM samples.trips WHERE FARE > 1.5 AND "VENDOR" = 'x'`, []string{}, "samples.trips | [id] | [] | Fare > 1.5 AND VENDOR = 'x'"},
		{"SELECT id FROM samples.trips WHERE fare_cents IN (?, ?) AND day = ?", []string{"1", "2", "DATE '2024-01-02'"},
			"samples.trips | [id] | [] | fare_cents IN (1, 2) AND day = DATE '2024-01-02'"},
		{"SELECT id FROM samples.trips WHERE id = ?", nil, "samples.trips | [id] | [] | "},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			q, err := bindSQL(tc.sql, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join([]string{q.cmd.Table, "[" + strings.Join(q.cmd.Columns, " ") + "]", "[" + strings.Join(q.names, " ") + "]", q.cmd.Filter}, " | ")
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql    string
		params []string
		says   string
	}{
		{"SELECT * FROM mixed.CASE", nil, "ambiguous: it matches Mixed.Case, mixed.case"},
		{"SELECT * FROM samples.tripz", nil, "unknown table samples.tripz (position 15); did you mean samples.trips?"},
		{`SELECT * FROM "Samples".trips`, nil, `unknown table "Samples".trips`},
		{"SELECT idd FROM samples.trips", nil, "unknown column idd (position 8); did you mean id"},
		{"SELECT vendr FROM samples.trips", nil, "did you mean VENDOR, vendor"},
		{"SELECT Vendor FROM samples.trips", nil, "ambiguous: it matches VENDOR, vendor"},
		{`SELECT "fare" FROM samples.trips`, nil, `unknown column "fare"`},
		{"SELECT id, ID FROM samples.trips", nil, "selecting column id twice"},
		{"SELECT id FROM samples.trips WHERE nope > 1", []string{}, "unknown column nope"},
		{"SELECT id FROM samples.trips WHERE id >", []string{}, "position 40"},
		{"SELECT id FROM samples.trips WHERE id = ? AND fare >", []string{"123456"}, "position 53"},
		{"SELECT id FROM samples.trips WHERE id = ?", []string{}, "1 placeholders and 0 parameters"},
		{"SELECT id FROM samples.trips", []string{"1"}, "without placeholders"},
		{"SELECT * FROM samples.trips FOR SYSTEM_TIME AS OF 'yesterday'", nil, "expected a timestamp"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			t.Parallel()
			_, err := bindSQL(tc.sql, tc.params)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v, want an error saying %q", err, tc.says)
			}
		})
	}
}

func TestParseAsOf(t *testing.T) {
	t.Parallel()
	want := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	for _, s := range []string{"2024-05-01 12:00:00", "2024-05-01T12:00:00", "2024-05-01T14:00:00+02:00", "2024-05-01 12:00", "1714564800000"} {
		if got, err := parseAsOf(s); err != nil || got != want {
			t.Errorf("parseAsOf(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

func TestParameterLiterals(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32}, {Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32}, {Name: "t", Type: ts},
		{Name: "x", Type: arrow.BinaryTypes.Binary}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(-7)
	b.Field(1).(*array.Float64Builder).Append(0.1)
	b.Field(2).(*array.StringBuilder).Append("it's")
	b.Field(3).(*array.BooleanBuilder).Append(true)
	b.Field(4).(*array.Date32Builder).Append(arrow.Date32FromTime(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)))
	b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2024, 2, 29, 1, 2, 3, 4000, time.UTC).UnixMicro()))
	b.Field(6).(*array.BinaryBuilder).Append([]byte{0xca, 0xfe})
	b.Field(7).AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	want := []string{"-7", "0.1", "'it''s'", "TRUE", "DATE '2024-02-29'", "TIMESTAMPTZ '2024-02-29T01:02:03.000004+00:00'", "X'cafe'"}
	for i, w := range want {
		if got, err := parameterLiteral(rec.Column(i), 0); err != nil || got != w {
			t.Errorf("column %s: %q, %v; want %q", schema.Field(i).Name, got, err, w)
		}
	}
	if _, err := parameterLiteral(rec.Column(7), 0); err == nil || !strings.Contains(err.Error(), "IS NULL") {
		t.Errorf("a null parameter: %v, want a refusal naming IS NULL", err)
	}
}

func TestNameErrorsAreTyped(t *testing.T) {
	t.Parallel()
	_, err := bindSQL("SELECT nope FROM samples.trips", nil)
	var ne *NameError
	if !errors.As(err, &ne) || ne.Kind != "column" {
		t.Errorf("%v: want a column NameError", err)
	}
}
