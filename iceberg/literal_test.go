package iceberg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestSingleValueBinary(t *testing.T) {
	t.Parallel()
	u, _ := ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	cases := []struct {
		name string
		typ  Type
		val  any
		hex  string
	}{
		{"boolean true is one byte 01", BooleanType{}, true, "01"},
		{"int is 4 bytes little-endian", IntType{}, int32(34), "22000000"},
		{"long is 8 bytes little-endian", LongType{}, int64(-1), "ffffffffffffffff"},
		{"float is IEEE 754 little-endian", FloatType{}, float32(1), "0000803f"},
		{"double is IEEE 754 little-endian", DoubleType{}, float64(1), "000000000000f03f"},
		{"date is days as int", DateType{}, int32(17486), "4e440000"},
		{"timestamp is micros as long", TimestampTzType{}, int64(1510871468000000), "00c3262d215e0500"},
		{"string is UTF-8 bytes", StringType{}, "iceberg", hex.EncodeToString([]byte("iceberg"))},
		{"uuid is 16 big-endian bytes", UUIDType{}, u, "f79c3e09677c4bbda4793f349cb785e7"},
		{"decimal is minimal big-endian two's complement", DecimalType{9, 2}, decimal128.FromI64(1420), "058c"},
		{"negative decimal keeps its sign byte", DecimalType{9, 2}, decimal128.FromI64(-1), "ff"},
		{"decimal 128 has a leading 00 when the top bit is set", DecimalType{9, 2}, decimal128.FromI64(128), "0080"},
		{"binary is its bytes", BinaryType{}, []byte{0, 1}, "0001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := EncodeValue(tc.typ, tc.val)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b); got != tc.hex {
				t.Fatalf("encoded %s, want %s", got, tc.hex)
			}
			back, err := DecodeValue(tc.typ, b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.val) {
				t.Fatalf("decoded %#v, want %#v", back, tc.val)
			}
		})
	}
}

func TestDecodePromoted(t *testing.T) {
	t.Parallel()
	intBytes, _ := EncodeValue(IntType{}, int32(-5))
	if v, _ := DecodeValue(LongType{}, intBytes); v != int64(-5) {
		t.Errorf("int bound read as long = %v", v)
	}
	floatBytes, _ := EncodeValue(FloatType{}, float32(1.5))
	if v, _ := DecodeValue(DoubleType{}, floatBytes); v != 1.5 {
		t.Errorf("float bound read as double = %v", v)
	}
	dateBytes, _ := EncodeValue(DateType{}, int32(1))
	if v, _ := DecodeValue(TimestampType{}, dateBytes); v != int64(86400_000_000) {
		t.Errorf("date bound read as timestamp = %v", v)
	}
}

func TestParseJSONValue(t *testing.T) {
	t.Parallel()
	st := &StructType{Fields: []NestedField{{ID: 1, Name: "x", Type: IntType{}}, {ID: 2, Name: "y", Type: StringType{}}}}
	cases := []struct {
		name string
		typ  Type
		json string
		want any
	}{
		{"int", IntType{}, `34`, int32(34)},
		{"long", LongType{}, `-9007199254740993`, int64(-9007199254740993)},
		{"double NaN as string", DoubleType{}, `"NaN"`, math.NaN()},
		{"decimal as string", DecimalType{9, 2}, `"14.20"`, decimal128.FromI64(1420)},
		{"date as ISO", DateType{}, `"2017-11-16"`, int32(17486)},
		{"time as ISO", TimeType{}, `"22:31:08.123456"`, int64(81068123456)},
		{"timestamp without zone", TimestampType{}, `"2017-11-16T22:31:08.123456"`, int64(1510871468123456)},
		{"timestamptz with offset", TimestampTzType{}, `"2017-11-16T22:31:08.123456+01:00"`, int64(1510867868123456)},
		{"timestamp_ns keeps nanos", TimestampNsType{}, `"2017-11-16T22:31:08.123456789"`, int64(1510871468123456789)},
		{"binary as hex", BinaryType{}, `"0001ff"`, []byte{0, 1, 0xff}},
		{"struct by field id", st, `{"1": 5, "2": "a"}`, map[int]any{1: int32(5), 2: "a"}},
		{"list", &ListType{ElementID: 3, Element: IntType{}}, `[1, null]`, []any{int32(1), nil}},
		{"null", IntType{}, `null`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseJSONValue(tc.typ, json.RawMessage(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := tc.want.(float64); ok && math.IsNaN(f) {
				if g, ok := got.(float64); !ok || !math.IsNaN(g) {
					t.Fatalf("got %v, want NaN", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
	if _, err := ParseJSONValue(DecimalType{9, 1}, json.RawMessage(`"1.25"`)); err == nil {
		t.Error("a decimal with more digits than its scale must be refused, not rounded")
	}
}

func TestTypeJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := []byte(`{"type":"struct","schema-id":3,"fields":[{"id":1,"name":"a","required":true,"type":"fixed[16]"},` +
		`{"id":2,"name":"b","required":false,"type":{"type":"list","element-id":3,"element":{"type":"struct","fields":[{"id":4,"name":"c","required":false,"type":"timestamptz_ns"}]},"element-required":true}},` +
		`{"id":5,"name":"m","required":false,"type":{"type":"map","key-id":6,"key":"string","value-id":7,"value":"uuid","value-required":false}},` +
		`{"id":8,"name":"g","required":false,"type":"geography(srid:4326, spherical)","initial-default":null}]}`)
	var s Schema
	if err := json.Unmarshal(in, &s); err != nil {
		t.Fatal(err)
	}
	if g := s.Fields[3].Type.(GeographyType); g.CRS != "srid:4326" || g.Algorithm != "spherical" {
		t.Fatalf("geography params: %+v", g)
	}
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var again Schema
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != s.String() || again.HighestFieldID() != 8 {
		t.Fatalf("round trip changed the schema:\n%s\n%s", s.String(), again.String())
	}
	if !bytes.Contains(out, []byte(`"fixed[16]"`)) {
		t.Fatalf("fixed spelled wrong: %s", out)
	}
}
