package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// Partition values: how each Avro type becomes a literal of each Iceberg
// type, in hand-built manifests and in the corpus.

func TestReadManifestPartitionLiterals(t *testing.T) {
	t.Parallel()
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	at := func(s string) time.Time { ts, _ := time.Parse(time.RFC3339Nano, s); return ts }
	uuid := [16]byte{0x12, 0x15, 0x1f, 0xd2, 0x75, 0x86, 0x11, 0xe9, 0x8f, 0x9e, 0x2a, 0x86, 0xe4, 0x08, 0x5a, 0x59}
	big38, _ := new(big.Int).SetString("-12345678901234567890123456780123456789", 10)
	part := map[string]any{
		"b": avroOpt("boolean", true), "i": avroOpt("int", int32(-7)), "l": avroOpt("long", int64(1)<<40),
		"f": avroOpt("float", float32(2.25)), "d": avroOpt("double", 2.375),
		"dec": avroOpt("decimal_9_2", rat("-123.45")), "dec2": avroOpt("decimal_9_2", rat("0.01")),
		"decb": avroOpt("bytes.decimal", rat("-1234567890123456789012345678.0123456789")),
		"date": avroOpt("int.date", at("1969-12-31T00:00:00Z")),
		"time": avroOpt("long.time-micros", 17*time.Hour+time.Microsecond),
		"ts":   avroOpt("long.timestamp-micros", at("1969-12-31T23:59:59.999999Z")),
		"tstz": avroOpt("long.timestamp-micros", at("2025-03-03T01:02:03.456789Z")),
		"tsns": avroOpt("long", int64(1741000000123456789)),
		"s":    avroOpt("string", "héllo"), "u": avroOpt("uuid_fixed", uuid[:]),
		"us": avroOpt("string", "12151fd2-7586-11e9-8f9e-2a86e4085a59"),
		"fx": avroOpt("fixed_3", []byte{1, 2, 3}), "bin": avroOpt("bytes", []byte{}), "nul": nil,
	}
	types := []iceberg.Type{
		iceberg.BooleanType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{}, iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.DecimalType{Precision: 9, Scale: 2},
		iceberg.DecimalType{Precision: 38, Scale: 10}, iceberg.DateType{}, iceberg.TimeType{}, iceberg.TimestampType{}, iceberg.TimestampTzType{}, iceberg.TimestampNsType{},
		iceberg.StringType{}, iceberg.UUIDType{}, iceberg.UUIDType{}, iceberg.FixedType{Length: 3}, iceberg.BinaryType{}, iceberg.IntType{},
	}
	want := []any{
		true, int32(-7), int64(1) << 40, float32(2.25), 2.375, decimal128.FromI64(-12345), decimal128.FromI64(1),
		decimal128.FromBigInt(big38), int32(-1), int64(17*3600*1e6 + 1), int64(-1), at("2025-03-03T01:02:03.456789Z").UnixMicro(),
		int64(1741000000123456789), "héllo", uuid, uuid, []byte{1, 2, 3}, []byte{}, nil,
	}
	// The spec lists the fields in reverse order with one more field the
	// Avro lacks: fields match by field id, the missing one reads null.
	pt := &iceberg.StructType{}
	var wantRev []any
	for i := len(types) - 1; i >= 0; i-- {
		pt.Fields = append(pt.Fields, iceberg.NestedField{ID: 1000 + i, Name: "p" + string(rune('a'+i)), Type: types[i]})
		wantRev = append(wantRev, want[i])
	}
	pt.Fields = append(pt.Fields, iceberg.NestedField{ID: 1999, Name: "added_later", Type: iceberg.IntType{}})
	wantRev = append(wantRev, nil)

	raw := writeManifest(t, entrySchema(partitionSchema), testEntry{status: 1, records: 1, partition: part})
	for _, tc := range []struct {
		name string
		pt   *iceberg.StructType
		want []any
	}{
		{"typed by the spec", pt, wantRev},
		{"typed by Avro alone (no partition type)", nil, want},
	} {
		es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SequenceNumber: 1}, tc.pt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := es[0].DataFile.Partition
		for i := range tc.want {
			if i >= len(got) || !reflect.DeepEqual(got[i], tc.want[i]) {
				t.Errorf("%s: field %d: got %#v, want %#v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// avroBinary is a value in Avro's binary encoding, built by hand.
type avroBinary []byte

func (b avroBinary) long(v int64) avroBinary { return binary.AppendVarint(b, v) }

func (b avroBinary) bytes(v []byte) avroBinary { return append(b.long(int64(len(v))), v...) }

func TestAvroLiteralConversions(t *testing.T) {
	t.Parallel()
	var enc avroBinary
	big130 := new(big.Int).Lsh(big.NewInt(1), 130).Bytes()
	cases := []struct {
		name    string
		schema  string
		data    []byte
		t       iceberg.Type
		want    any
		wantErr bool
	}{
		{"int promoted to long", `"int"`, enc.long(-3), iceberg.LongType{}, int64(-3), false},
		{"float promoted to double", `"float"`, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.1)), iceberg.DoubleType{}, float64(float32(0.1)), false},
		{"raw date", `"int"`, enc.long(20150), iceberg.DateType{}, int32(20150), false},
		{"date before 1970", `{"type":"int","logicalType":"date"}`, enc.long(-25567), iceberg.DateType{}, int32(-25567), false},
		{"a date is not an int", `{"type":"int","logicalType":"date"}`, enc.long(3), iceberg.IntType{}, nil, true},
		{"timestamp-millis", `{"type":"long","logicalType":"timestamp-millis"}`, enc.long(1500), iceberg.TimestampType{}, int64(1500000), false},
		{"local-timestamp-millis", `{"type":"long","logicalType":"local-timestamp-millis"}`, enc.long(-1500), iceberg.TimestampType{}, int64(-1500000), false},
		{"timestamp-micros to nanoseconds", `{"type":"long","logicalType":"timestamp-micros"}`, enc.long(7), iceberg.TimestampNsType{}, int64(7000), false},
		{"timestamp-nanos", `{"type":"long","logicalType":"timestamp-nanos"}`, enc.long(-7), iceberg.TimestampTzNsType{}, int64(-7), false},
		{"raw timestamp", `"long"`, enc.long(-5), iceberg.TimestampTzType{}, int64(-5), false},
		{"raw decimal bytes, two's complement", `"bytes"`, enc.bytes([]byte{0xff, 0x38}), iceberg.DecimalType{Precision: 4, Scale: 2}, decimal128.FromI64(-200), false},
		{"decimal rescaled exactly", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":1}`, enc.bytes([]byte{25}), iceberg.DecimalType{Precision: 9, Scale: 3}, decimal128.FromI64(2500), false},
		{"decimal not exact at scale", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":3}`, enc.bytes([]byte{1}), iceberg.DecimalType{Precision: 9, Scale: 2}, nil, true},
		{"decimal beyond 128 bits", `{"type":"fixed","name":"f17","size":17,"logicalType":"decimal","precision":38}`, big130, iceberg.DecimalType{Precision: 38, Scale: 0}, nil, true},
		{"uuid of the wrong length", `{"type":"fixed","name":"f4","size":4}`, []byte{1, 2, 3, 4}, iceberg.UUIDType{}, nil, true},
		{"uuid string", `{"type":"string","logicalType":"uuid"}`, enc.bytes([]byte("12151fd2-7586-11e9-8f9e-2a86e4085a59")), nil,
			[16]byte{0x12, 0x15, 0x1f, 0xd2, 0x75, 0x86, 0x11, 0xe9, 0x8f, 0x9e, 0x2a, 0x86, 0xe4, 0x08, 0x5a, 0x59}, false},
		{"string for an int", `"string"`, enc.bytes([]byte("1")), iceberg.IntType{}, nil, true},
		{"enum symbol as a string", `{"type":"enum","name":"e","symbols":["a","b"]}`, enc.long(1), iceberg.StringType{}, "b", false},
		{"time-millis", `{"type":"int","logicalType":"time-millis"}`, enc.long(90_000), iceberg.TimeType{}, int64(90e6), false},
		{"time-micros", `{"type":"long","logicalType":"time-micros"}`, enc.long(90e6), iceberg.TimeType{}, int64(90e6), false},
		{"a bare int is no time", `"int"`, enc.long(1), iceberg.TimeType{}, nil, true},
		{"unknown type from a fixed", `{"type":"fixed","name":"f4","size":4}`, []byte{1, 2, 3, 4}, iceberg.UnknownType{}, []byte{1, 2, 3, 4}, false},
		{"unknown type from a bare long", `"long"`, enc.long(8), nil, int64(8), false},
		{"null stays null", `["null","long"]`, enc.long(0), iceberg.LongType{}, nil, false},
		{"union branch", `["null","long"]`, enc.long(1).long(9), iceberg.LongType{}, int64(9), false},
	}
	for _, tc := range cases {
		s, err := avro.ParseSchema([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := &valueReader{}
		r.d.Reset(tc.data)
		got, err := decodeLiteral(r, s, literalPlans(s, tc.t))
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, %v; want %#v (error %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Errorf("%s: error %v does not wrap ErrInvalidMetadata", tc.name, err)
		}
		if err == nil && r.d.Remaining() != 0 {
			t.Errorf("%s: %d bytes left unread", tc.name, r.d.Remaining())
		}
	}
}

func uuidLiteral(t *testing.T, s string) [16]byte {
	t.Helper()
	v, err := parseUUID([]byte(s), true)
	if err != nil {
		t.Fatal(err)
	}
	return v.([16]byte)
}

func rfc3339Micros(s string) int64 {
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return ts.UnixMicro()
}

// Partition tuples of Trino and Impala tables against the values their
// partition folders name.
func TestCorpusPartitionValues(t *testing.T) {
	t.Parallel()
	conformanceCorpus(t)
	dec := decimal128.FromI64
	cases := []struct {
		table string
		want  map[string][]any // by data file name prefix or folder path
	}{
		{"iceberg-cxx__identity_partitioning", map[string][]any{"col_bool=false": {
			false, int32(1), int64(2), float32(2.25), float64(2.375), dec(300), int32(20150),
			int64(17 * 3600 * 1e6), rfc3339Micros("2025-03-03T00:00:00Z"), rfc3339Micros("2025-03-03T00:00:00Z"),
			"some-string", uuidLiteral(t, "12151fd2-7586-11e9-8f9e-2a86e4085a59"), []byte("some-varbinary"),
		}}},
		{"iceberg-cxx__bucket_partitioning", map[string][]any{"col_int_bucket=0": {
			int32(0), int32(0), int32(3), int32(2), int32(2), int32(99), int32(75), int32(13), int32(5), int32(724),
		}}},
		{"iceberg-cxx__decimal_partitioning", map[string][]any{"col_decimal_9_2=3.00": {
			dec(300), dec(-500), dec(0), dec(0),
		}}},
		{"iceberg-cxx__partitioning_with_null_value", map[string][]any{
			"c1=1/c2=null":          {int32(1), nil},
			"c1=2/c2=2025-03-03":    {int32(2), int32(20150)},
			"c1=null/c2=2025-03-03": {nil, int32(20150)},
			"c1=null/c2=null":       {nil, nil},
		}},
		{"iceberg-cxx__month_timestamptz_partitioning", map[string][]any{
			"c2_month=null": {nil}, "c2_month=2025-03": {int32(55*12 + 2)}, "c2_month=2024-03": {int32(54*12 + 2)},
		}},
		{"apache-impala__iceberg_alltypes_part", map[string][]any{"p_bool=true": {
			true, int32(1), int64(11), float32(1.1), float64(2.222), dec(123321), int32(19045), "impala",
		}}},
		{"apache-impala__iceberg_timestamp_part", map[string][]any{
			"ts_hour=1969-01-01-01": {int32(-8759)}, "ts_hour=2021-01-10-12": {int32(447300)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.table, func(t *testing.T) {
			t.Parallel()
			ct := loadCorpusTable(t, tc.table)
			found := map[string]bool{}
			for _, e := range ct.liveEntries(t) {
				for key, want := range tc.want {
					if !strings.Contains(e.DataFile.Path, "/"+key+"/") {
						continue
					}
					found[key] = true
					if !reflect.DeepEqual(e.DataFile.Partition, want) {
						t.Errorf("%s:\n got %#v\nwant %#v", key, e.DataFile.Partition, want)
					}
				}
			}
			for key := range tc.want {
				if !found[key] {
					t.Errorf("no data file under %s", key)
				}
			}
		})
	}
}

// Spec: a float partition field whose source column was promoted to double
// reads as a double (Impala's legacy partition schema evolution table), and
// a partition field whose source column is gone decodes from Avro alone.
func TestCorpusPartitionTypePromotionAndDroppedSource(t *testing.T) {
	t.Parallel()
	ct := loadCorpusTable(t, "apache-impala__iceberg_legacy_partition_schema_evolution")
	mf := ct.manifestList(t, ct.md.CurrentSnapshot())[0]
	es := ct.entries(t, mf)
	if got, want := es[0].DataFile.Partition, []any{int64(1), float64(float32(1.1)), decimal128.FromI64(3141)}; !reflect.DeepEqual(got, want) {
		t.Errorf("promoted partition %#v, want %#v", got, want)
	}
	spec, _ := ct.md.SpecByID(mf.SpecID)
	f, _ := os.Open(ct.local(mf.Path))
	defer f.Close()
	dropped, err := Read(f, mf, spec.PartitionType(iceberg.NewSchema(0)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dropped[0].DataFile.Partition, []any{int32(1), float32(1.1), decimal128.FromI64(3141)}; !reflect.DeepEqual(got, want) {
		t.Errorf("partition typed by Avro alone %#v, want %#v", got, want)
	}
}
