package orc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
)

func TestDecimalVarints(t *testing.T) {
	t.Parallel()
	// Spec: Decimal Columns — unbounded zigzag varints. The wide cases are
	// zigzag(±2^100) and the extremes of 38 digits.
	big100 := new(big.Int).Lsh(big.NewInt(1), 100)
	max38, _ := new(big.Int).SetString("99999999999999999999999999999999999999", 10)
	cases := []*big.Int{
		big.NewInt(0), big.NewInt(-1), big.NewInt(1), big.NewInt(-64), big.NewInt(12345678654745),
		big100, new(big.Int).Neg(big100), max38, new(big.Int).Neg(max38),
	}
	for _, v := range cases {
		// zigzag: 2v for v >= 0, -2v-1 otherwise; then base 128.
		z := new(big.Int).Lsh(v, 1)
		if v.Sign() < 0 {
			z.Neg(z).Sub(z, big.NewInt(1))
		}
		var enc []byte
		for z.Cmp(big.NewInt(0x80)) >= 0 {
			enc = append(enc, byte(z.Uint64()&0x7f|0x80))
			z.Rsh(z, 7)
		}
		enc = append(enc, byte(z.Uint64()))
		pos := 0
		got, err := readDecimalVarint(enc, &pos)
		if err != nil || got.BigInt().Cmp(v) != 0 || pos != len(enc) {
			t.Errorf("%v: got %v, %v", v, got.BigInt(), err)
		}
	}
	// 2^128 does not fit.
	pos := 0
	tooWide := append(repeat[byte](0xff, 18), 0x0f)
	if _, err := readDecimalVarint(tooWide, &pos); err == nil {
		t.Error("a 133-bit varint decoded")
	}
}

func TestRescale(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v        int64
		from, to int
		want     int64
	}{
		{12345, 1, 5, 123450000}, // Hive trims trailing zeros: 1234.5 in decimal(10,5)
		{-5, 0, 2, -500},
		{1235, 3, 2, 124}, // half away from zero, as HiveDecimal rounds
		{-1235, 3, 2, -124},
		{7, 2, 2, 7},
	}
	for _, c := range cases {
		got, err := rescale(decimal128.FromI64(c.v), c.from, c.to)
		if err != nil || got != decimal128.FromI64(c.want) {
			t.Errorf("rescale(%d, %d, %d) = %v, %v; want %d", c.v, c.from, c.to, got.BigInt(), err, c.want)
		}
	}
	if _, err := rescale(decimal128.FromI64(1), 50, 2); err == nil {
		t.Error("a scale of 50 was accepted")
	}
}

func TestTimestampValues(t *testing.T) {
	t.Parallel()
	// Spec: "1000 nanoseconds would be serialized as 0x0a and 100000 would
	// be serialized as 0x0c."
	if decodeNanos(0x0a) != 1000 || decodeNanos(0x0c) != 100000 || decodeNanos(5<<3) != 5 {
		t.Errorf("decodeNanos: %d %d %d", decodeNanos(0x0a), decodeNanos(0x0c), decodeNanos(5<<3))
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	wall := func(s string) arrow.Timestamp {
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return arrow.Timestamp(tm.UnixNano())
	}
	cases := []struct {
		name        string
		loc         *time.Location
		instant     bool
		secs, nanos int64
		want        arrow.Timestamp
	}{
		{"the epoch of ORC timestamps", time.UTC, false, 0, 0, wall("2015-01-01 00:00:00")},
		{"a TIMESTAMP counts from 2015 in the writer's zone, in winter", la, false, 0, 0, wall("2015-01-01 00:00:00")},
		// The writer took the seconds between instants: July's midnight
		// (PDT) is an hour short of 181 days after January's (PST).
		{"and keeps its wall-clock time across daylight saving", la, false, 181*86400 - 3600, 0, wall("2015-07-01 00:00:00")},
		{"a TIMESTAMP_INSTANT counts from 2015 UTC", la, true, 3600, 0, wall("2015-01-01 01:00:00")},
		// -1.5 s before 1970 is stored as -1 s and 0.5 s (ORC Java truncates
		// the seconds); readers take a second off.
		{"truncated seconds before 1970", time.UTC, false, -orcEpoch - 1, 5<<3 | 7, wall("1969-12-31 23:59:58.5")},
		{"a whole second before 1970", time.UTC, false, -orcEpoch - 1, 0, wall("1969-12-31 23:59:59")},
		{"negative nanoseconds from Arrow's ORC writer", time.UTC, false, -orcEpoch, -8, wall("1969-12-31 23:59:59.999999999")},
		{"the last nanosecond an int64 holds", time.UTC, false, math.MaxInt64/1_000_000_000 - orcEpoch, 854_775_807 << 3, math.MaxInt64},
		{"the first nanosecond an int64 holds", time.UTC, false, math.MinInt64/1_000_000_000 - orcEpoch, -854_775_808 << 3, math.MinInt64},
	}
	for _, c := range cases {
		col := startedTimestampColumn(t, arrow.Nanosecond, c.instant, c.loc)
		got, err := col.value(c.secs, c.nanos)
		if err != nil || got != c.want {
			t.Errorf("%s: got %v (%v), want %v", c.name, time.Unix(0, int64(got)).UTC(), err, time.Unix(0, int64(c.want)).UTC())
		}
	}
	// One nanosecond either side of the int64 range is refused, not wrapped.
	for _, c := range []struct{ secs, nanos int64 }{
		{math.MaxInt64/1_000_000_000 - orcEpoch, 854_775_808 << 3},
		{math.MinInt64/1_000_000_000 - orcEpoch, -854_775_809 << 3},
		{math.MaxInt64/1_000_000_000 + 1 - orcEpoch, 0},
	} {
		col := startedTimestampColumn(t, arrow.Nanosecond, false, time.UTC)
		if got, err := col.value(c.secs, c.nanos); !errors.Is(err, ErrUnsupported) {
			t.Errorf("value(%d, %d) = %d, %v; want ErrUnsupported", c.secs, c.nanos, got, err)
		}
	}
}

// startedTimestampColumn returns a timestamp column of unit that has
// started a stripe written in the zone loc.
func startedTimestampColumn(t *testing.T, unit arrow.TimeUnit, instant bool, loc *time.Location) *timestampColumn {
	t.Helper()
	col := &timestampColumn{unit: unit, instant: instant}
	s := &stripe{streams: map[streamKey][]byte{}, encodings: []columnEncoding{{kind: encodingDirectV2}}, loc: loc}
	if err := col.startStripe(s); err != nil {
		t.Fatal(err)
	}
	return col
}

func TestTimestampMicrosecondsHoldEveryIcebergTime(t *testing.T) {
	t.Parallel()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	const layout = "2006-01-02 15:04:05.999999999"
	// encode gives the ORC (seconds, nanoseconds) pair of a wall-clock time
	// in loc, the nanoseconds with three trailing zeros dropped when they
	// have them, as writers store them.
	encode := func(s string, loc *time.Location) (int64, int64) {
		tm, err := time.ParseInLocation(layout, s, loc)
		if err != nil {
			t.Fatal(err)
		}
		base := time.Date(2015, 1, 1, 0, 0, 0, 0, loc).Unix()
		ns := int64(tm.Nanosecond())
		if ns%1000 == 0 && ns != 0 {
			return tm.Unix() - base, ns/1000<<3 | 2
		}
		return tm.Unix() - base, ns << 3
	}
	micros := func(s string) arrow.Timestamp {
		tm, err := time.Parse(layout, s)
		if err != nil {
			t.Fatal(err)
		}
		return arrow.Timestamp(tm.UnixMicro())
	}
	cases := []struct {
		name string
		loc  *time.Location
		time string // the wall-clock time written, and read back as UTC
	}{
		{"the first day of year 1", time.UTC, "0001-01-01 00:00:00"},
		{"Spark's end of time, 9999-12-31", time.UTC, "9999-12-31 23:59:59.999999"},
		{"the end of time in the writer's zone", la, "9999-12-31 23:59:59.999999"},
		{"year 1 in the writer's zone", la, "0001-01-01 00:00:00.000001"},
		{"the last microsecond nanoseconds hold", time.UTC, "2262-04-11 23:47:16.854775"},
		{"the first microsecond past them", time.UTC, "2262-04-11 23:47:16.854776"},
		{"the first microsecond nanoseconds hold", time.UTC, "1677-09-21 00:12:43.145225"},
		{"the last microsecond before them", time.UTC, "1677-09-21 00:12:43.145224"},
		{"a microsecond short of a second before 1970", time.UTC, "1969-12-31 23:59:58.999999"},
		{"a second and a half before 1970", time.UTC, "1969-12-31 23:59:58.5"},
	}
	for _, c := range cases {
		col := startedTimestampColumn(t, arrow.Microsecond, false, c.loc)
		secs, nanos := encode(c.time, c.loc)
		if c.time < "1970" && decodeNanos(nanos) > 999_999 {
			// Writers truncate the milliseconds of a time before 1970
			// toward zero: -1.5 s is stored as -1 s and 0.5 s.
			secs++
		}
		got, err := col.value(secs, nanos)
		if want := micros(c.time); err != nil || got != want {
			t.Errorf("%s: value(%d, %d) = %v (%v), want %v", c.name, secs, nanos, got.ToTime(arrow.Microsecond), err, want.ToTime(arrow.Microsecond))
		}
	}
	// Nanoseconds a writer stored below zero (Arrow's ORC writer does, before
	// 1970) round down to the microsecond, as Iceberg Java's floorDiv does.
	col := startedTimestampColumn(t, arrow.Microsecond, false, time.UTC)
	if got, err := col.value(-orcEpoch, -1<<3); err != nil || got != -1 {
		t.Errorf("one nanosecond before 1970 = %d (%v), want -1 µs", got, err)
	}
	// Seconds past what microseconds hold are refused, not wrapped.
	for _, secs := range []int64{math.MaxInt64/1_000_000 + 1 - orcEpoch, math.MinInt64/1_000_000 - 1 - orcEpoch} {
		if got, err := col.value(secs, 0); !errors.Is(err, ErrUnsupported) {
			t.Errorf("value(%d, 0) = %d, %v; want ErrUnsupported", secs, got, err)
		}
	}
}

func TestArrowSchemaCarriesIcebergIDs(t *testing.T) {
	t.Parallel()
	// complextypestbl_iceberg_orc was written by Iceberg Java: the field ids
	// of its ORC attributes must be those of the table schema the oracle
	// read, field by field down the nesting.
	files := corpusORCFiles(t)["apache-impala__complextypestbl_iceberg_orc"]
	if len(files) == 0 {
		t.Fatal("no ORC files")
	}
	ct := loadCorpusTable(t, "apache-impala__complextypestbl_iceberg_orc")
	var schema iceberg.Schema
	if err := json.Unmarshal(ct.scans[0].Schema, &schema); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	as, err := f.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(path string, ft iceberg.NestedField, af arrow.Field)
	walk = func(path string, ft iceberg.NestedField, af arrow.Field) {
		id, ok := af.Metadata.GetValue(FieldIDKey)
		if !ok || id != strconv.Itoa(ft.ID) {
			t.Errorf("%s: field id %q, want %d", path, id, ft.ID)
		}
		checked++
		switch it := ft.Type.(type) {
		case *iceberg.StructType:
			st := af.Type.(*arrow.StructType)
			for i, sub := range it.Fields {
				walk(path+"."+sub.Name, sub, st.Field(i))
			}
		case *iceberg.ListType:
			lt := af.Type.(*arrow.ListType)
			if lt.ElemField().Name != "element" {
				t.Errorf("%s: list element named %q", path, lt.ElemField().Name)
			}
			walk(path+".element", iceberg.NestedField{ID: it.ElementID, Type: it.Element}, lt.ElemField())
		case *iceberg.MapType:
			mt := af.Type.(*arrow.MapType)
			walk(path+".key", iceberg.NestedField{ID: it.KeyID, Type: it.Key}, mt.KeyField())
			walk(path+".value", iceberg.NestedField{ID: it.ValueID, Type: it.Value}, mt.ItemField())
		}
	}
	for i, fl := range schema.Fields {
		if as.Field(i).Name != fl.Name {
			t.Fatalf("column %d is %s, want %s", i, as.Field(i).Name, fl.Name)
		}
		walk(fl.Name, fl, as.Field(i))
	}
	if checked < 20 {
		t.Errorf("checked only %d fields", checked)
	}
}

func TestCharAndVarcharLengths(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		maxChars int
		trimPad  bool
		in, want string
	}{
		{"string values are kept", 0, false, "abc  ", "abc  "},
		{"varchar(3) keeps three characters", 3, false, "abcdef", "abc"},
		{"varchar counts characters, not bytes", 2, false, "é✓x", "é✓"},
		{"varchar keeps trailing spaces", 5, false, "ab  ", "ab  "},
		{"char drops trailing spaces", 5, true, "ab   ", "ab"},
		{"char cuts, then drops the spaces", 3, true, "a  bc", "a"},
	}
	for _, c := range cases {
		col := &bytesColumn{maxChars: c.maxChars, trimPad: c.trimPad}
		if got := string(col.adjust([]byte(c.in))); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
