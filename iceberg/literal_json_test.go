package iceberg

import (
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// TestFormatJSONValueAppendixD writes the examples of the spec's JSON
// single-value serialization table and reads them back.
func TestFormatJSONValueAppendixD(t *testing.T) {
	t.Parallel()
	u, _ := ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	cases := []struct {
		name string
		typ  Type
		val  any
		want string
	}{
		{"boolean", BooleanType{}, true, `true`},
		{"int", IntType{}, int32(34), `34`},
		{"long", LongType{}, int64(34), `34`},
		{"float", FloatType{}, float32(1.5), `1.5`},
		{"a whole float keeps its decimal point", DoubleType{}, 1.0, `1.0`},
		{"a large double uses an exponent", DoubleType{}, 1e300, `1e+300`},
		{"double", DoubleType{}, 0.1, `0.1`},
		{"double NaN is a string", DoubleType{}, math.NaN(), `"NaN"`},
		{"float -Infinity is a string", FloatType{}, float32(math.Inf(-1)), `"-Infinity"`},
		{"decimal keeps its scale", DecimalType{9, 2}, decimal128.FromI64(1420), `"14.20"`},
		{"decimal below one", DecimalType{9, 4}, decimal128.FromI64(-5), `"-0.0005"`},
		{"date", DateType{}, int32(17486), `"2017-11-16"`},
		{"time", TimeType{}, int64(81068123456), `"22:31:08.123456"`},
		{"timestamp", TimestampType{}, int64(1510871468123456), `"2017-11-16T22:31:08.123456"`},
		{"timestamptz", TimestampTzType{}, int64(1510871468123456), `"2017-11-16T22:31:08.123456+00:00"`},
		{"timestamp_ns", TimestampNsType{}, int64(1510871468123456789), `"2017-11-16T22:31:08.123456789"`},
		{"timestamptz_ns", TimestampTzNsType{}, int64(1510871468123456789), `"2017-11-16T22:31:08.123456789+00:00"`},
		{"string", StringType{}, "iceberg", `"iceberg"`},
		{"uuid is lowercase", UUIDType{}, u, `"f79c3e09-677c-4bbd-a479-3f349cb785e7"`},
		{"fixed is upper-case hex, as Java writes and reads it", FixedType{4}, []byte{0, 1, 2, 0xff}, `"000102FF"`},
		{"binary is upper-case hex, as Java writes and reads it", BinaryType{}, []byte{0, 1, 2, 0xff}, `"000102FF"`},
		{"pre-epoch timestamp", TimestampType{}, int64(-1), `"1969-12-31T23:59:59.999999"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := FormatJSONValue(tc.typ, tc.val)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			back, err := ParseJSONValue(tc.typ, got)
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := tc.val.(float64); ok && math.IsNaN(f) {
				if b, ok := back.(float64); !ok || !math.IsNaN(b) {
					t.Fatalf("read back %v, want NaN", back)
				}
				return
			}
			if !reflect.DeepEqual(back, tc.val) {
				t.Fatalf("read back %#v, want %#v", back, tc.val)
			}
		})
	}
}
