package reader

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/linkedin/goavro/v2"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// writeAvro writes an Avro Object Container File (Avro spec: Object
// Container Files) with the given writer's schema, deflate-compressed
// blocks of perBlock records. Records are goavro native values of the
// schema's underlying types (logical types as their raw ints and bytes).
func writeAvro(t *testing.T, schema string, perBlock int, records ...any) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(schema), &v); err != nil {
		t.Fatalf("schema: %v", err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "logicalType")
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(v)
	raw, _ := json.Marshal(v)
	codec, err := goavro.NewCodec(string(raw))
	if err != nil {
		t.Fatalf("codec: %v", err)
	}
	var out bytes.Buffer
	out.WriteString("Obj\x01")
	putBytes := func(b []byte) {
		out.Write(binary.AppendVarint(nil, int64(len(b))))
		out.Write(b)
	}
	out.Write(binary.AppendVarint(nil, 2))
	putBytes([]byte("avro.schema"))
	putBytes([]byte(schema))
	putBytes([]byte("avro.codec"))
	putBytes([]byte("deflate"))
	out.Write(binary.AppendVarint(nil, 0))
	sync := []byte("0123456789abcdef")
	out.Write(sync)
	for start := 0; start < len(records); start += perBlock {
		end := min(start+perBlock, len(records))
		var body []byte
		for _, r := range records[start:end] {
			if body, err = codec.BinaryFromNative(body, r); err != nil {
				t.Fatalf("encode %v: %v", r, err)
			}
		}
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.DefaultCompression)
		w.Write(body)
		w.Close()
		out.Write(binary.AppendVarint(nil, int64(end-start)))
		putBytes(z.Bytes())
		out.Write(sync)
	}
	return out.Bytes()
}

func avroTask(path string) *scantask.Task {
	return &scantask.Task{Path: path, FilePath: path, Format: scantask.Avro}
}

// canonicalRows reads a task and renders its rows in the oracle's
// canonical form (testdata/conformance/README.md), sorted.
func canonicalRows(t *testing.T, r *Reader, scan Scan, task *scantask.Task) []string {
	t.Helper()
	res := readAll(t, r, scan, task)
	if res.err != nil {
		t.Fatal(res.err)
	}
	var rows []string
	err := r.Read(t.Context(), scan, task, func(rec arrow.RecordBatch) error {
		got, err := testutil.ArrowRows(scan.Schema, rec)
		rows = append(rows, got...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows
}

// oracleRows renders expected rows, one JSON object per line in the
// oracle's format, in canonical form, sorted.
func oracleRows(t *testing.T, schema *iceberg.Schema, lines string) []string {
	t.Helper()
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		row, err := testutil.OracleRow(schema, []byte(strings.TrimSpace(l)))
		if err != nil {
			t.Fatalf("expected row %s: %v", l, err)
		}
		rows = append(rows, row)
	}
	sort.Strings(rows)
	return rows
}

// allTypesAvro follows Iceberg's Avro mapping (spec Appendix A).
const allTypesAvro = `{"type":"record","name":"r","fields":[
 {"name":"id","type":"int","field-id":1},
 {"name":"l","type":["null","long"],"default":null,"field-id":2},
 {"name":"f","type":"float","field-id":3},
 {"name":"d","type":"double","field-id":4},
 {"name":"b","type":"boolean","field-id":5},
 {"name":"s","type":["null","string"],"default":null,"field-id":6},
 {"name":"bin","type":"bytes","field-id":7},
 {"name":"fx","type":{"type":"fixed","name":"fixed_3","size":3},"field-id":8},
 {"name":"dec","type":{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2},"field-id":9},
 {"name":"date","type":{"type":"int","logicalType":"date"},"field-id":10},
 {"name":"time","type":{"type":"long","logicalType":"time-micros"},"field-id":11},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false},"field-id":12},
 {"name":"tstz","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},"field-id":13},
 {"name":"u","type":{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"},"field-id":14},
 {"name":"st","type":["null",{"type":"record","name":"r15","fields":[
   {"name":"x","type":"int","field-id":16},{"name":"y","type":["null","string"],"default":null,"field-id":17}]}],"default":null,"field-id":15},
 {"name":"lst","type":{"type":"array","items":["null","int"],"element-id":19},"field-id":18},
 {"name":"m","type":{"type":"map","values":"long","key-id":21,"value-id":22},"field-id":20},
 {"name":"im","type":{"type":"array","logicalType":"map","items":{"type":"record","name":"k24_v25","fields":[
   {"name":"key","type":"int","field-id":24},{"name":"value","type":["null","string"],"default":null,"field-id":25}]}},"field-id":23},
 {"name":"dbytes","type":{"type":"bytes","logicalType":"decimal","precision":20,"scale":3},"field-id":26},
 {"name":"tsns","type":{"type":"long","logicalType":"timestamp-nanos","adjust-to-utc":true},"field-id":27}
]}`

func TestReadAvroTypes(t *testing.T) {
	t.Parallel()
	uuid := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	rec0 := map[string]any{
		"id": int32(1), "l": goavro.Union("long", int64(10000000000)), "f": float32(1.5), "d": -2.25, "b": true,
		"s": goavro.Union("string", "héllo"), "bin": []byte{0, 0xff}, "fx": []byte("abc"),
		"dec": []byte{0, 0, 0x30, 0x39}, "date": int32(19000), "time": int64(3723000001), "ts": int64(1000000), "tstz": int64(-1),
		"u": uuid, "st": goavro.Union("r15", map[string]any{"x": int32(7), "y": nil}),
		"lst": []any{goavro.Union("int", int32(1)), nil, goavro.Union("int", int32(3))},
		"m":   map[string]any{"b": int64(2), "a": int64(1)},
		"im": []any{map[string]any{"key": int32(1), "value": goavro.Union("string", "one")},
			map[string]any{"key": int32(2), "value": nil}},
		"dbytes": []byte{0xfb, 0x2e}, "tsns": int64(1),
	}
	rec1 := map[string]any{
		"id": int32(2), "l": nil, "f": float32(-0.5), "d": 1e300, "b": false, "s": nil, "bin": []byte{}, "fx": []byte("xyz"),
		"dec": []byte{0xff, 0xff, 0xff, 0xff}, "date": int32(-1), "time": int64(0), "ts": int64(0), "tstz": int64(0),
		"u": uuid, "st": nil, "lst": []any{}, "m": map[string]any{}, "im": []any{}, "dbytes": []byte{0}, "tsns": int64(-1),
	}
	files := memIO{"all.avro": writeAvro(t, allTypesAvro, 1, rec0, rec1)}
	// The table has promoted id to long and f to double, renamed s, and
	// added a column with an initial-default.
	schema := schemaOf(t, `[
		{"id":1,"name":"id","required":true,"type":"long"},
		{"id":2,"name":"l","required":false,"type":"long"},
		{"id":3,"name":"f","required":true,"type":"double"},
		{"id":4,"name":"d","required":true,"type":"double"},
		{"id":5,"name":"b","required":true,"type":"boolean"},
		{"id":6,"name":"renamed","required":false,"type":"string"},
		{"id":7,"name":"bin","required":true,"type":"binary"},
		{"id":8,"name":"fx","required":true,"type":"fixed[3]"},
		{"id":9,"name":"dec","required":true,"type":"decimal(9,2)"},
		{"id":10,"name":"date","required":true,"type":"date"},
		{"id":11,"name":"time","required":true,"type":"time"},
		{"id":12,"name":"ts","required":true,"type":"timestamp"},
		{"id":13,"name":"tstz","required":true,"type":"timestamptz"},
		{"id":14,"name":"u","required":true,"type":"uuid"},
		{"id":15,"name":"st","required":false,"type":{"type":"struct","fields":[
			{"id":16,"name":"x","required":true,"type":"int"},{"id":17,"name":"y","required":false,"type":"string"}]}},
		{"id":18,"name":"lst","required":true,"type":{"type":"list","element-id":19,"element-required":false,"element":"int"}},
		{"id":20,"name":"m","required":true,"type":{"type":"map","key-id":21,"key":"string","value-id":22,"value-required":true,"value":"long"}},
		{"id":23,"name":"im","required":true,"type":{"type":"map","key-id":24,"key":"int","value-id":25,"value-required":false,"value":"string"}},
		{"id":26,"name":"dbytes","required":true,"type":"decimal(20,3)"},
		{"id":27,"name":"tsns","required":true,"type":"timestamptz_ns"},
		{"id":99,"name":"added","required":false,"type":"int","initial-default":5}]`)
	want := oracleRows(t, schema, `
		{"id":1,"l":10000000000,"f":1.5,"d":-2.25,"b":true,"renamed":"héllo","bin":"00ff","fx":"616263","dec":"123.45","date":19000,"time":3723000001,"ts":1000000,"tstz":-1,"u":"00010203-0405-0607-0809-0a0b0c0d0e0f","st":{"x":7,"y":null},"lst":[1,null,3],"m":[{"key":"a","value":1},{"key":"b","value":2}],"im":[{"key":1,"value":"one"},{"key":2,"value":null}],"dbytes":"-1.234","tsns":1,"added":5}
		{"id":2,"l":null,"f":-0.5,"d":1.0E300,"b":false,"renamed":null,"bin":"","fx":"78797a","dec":"-0.01","date":-1,"time":0,"ts":0,"tstz":0,"u":"00010203-0405-0607-0809-0a0b0c0d0e0f","st":null,"lst":[],"m":[],"im":[],"dbytes":"0.000","tsns":-1,"added":5}`)
	mem := checkedAlloc(t)
	r := New(files, WithAllocator(mem))
	got := canonicalRows(t, r, Scan{Schema: schema}, avroTask("all.avro"))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const seqAvro = `{"type":"record","name":"r","fields":[{"name":"i","type":"long","field-id":1}]}`

func seqAvroFile(t *testing.T, n, perBlock int) []byte {
	recs := make([]any, n)
	for i := range recs {
		recs[i] = map[string]any{"i": int64(i)}
	}
	return writeAvro(t, seqAvro, perBlock, recs...)
}

func TestReadAvroSplitsAndDeletes(t *testing.T) {
	t.Parallel()
	data := seqAvroFile(t, 100, 7)
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"},
		{"id":2147483645,"name":"_pos","required":true,"type":"long"}]`)
	t.Run("byte-range splits read every record once at its position", func(t *testing.T) {
		t.Parallel()
		mem := checkedAlloc(t)
		r := New(memIO{"seq.avro": data}, WithAllocator(mem), WithBatchSize(16))
		size := int64(len(data))
		for _, cut := range []int64{1, 40, size / 3, size / 2, size - 20} {
			seen := map[int64]int{}
			for _, split := range [][2]int64{{0, cut}, {cut, size - cut}} {
				task := avroTask("seq.avro")
				task.Start, task.Length = split[0], split[1]
				res := readAll(t, r, Scan{Schema: schema}, task)
				if res.err != nil {
					t.Fatal(res.err)
				}
				for _, i := range seqRows(t, res.rows) {
					seen[i]++
				}
			}
			if len(seen) != 100 {
				t.Errorf("split at %d: %d distinct rows, want 100", cut, len(seen))
			}
			for i, n := range seen {
				if n != 1 {
					t.Errorf("split at %d: row %d read %d times", cut, i, n)
				}
			}
		}
	})
	t.Run("Avro position and equality delete files apply", func(t *testing.T) {
		t.Parallel()
		posDel := writeAvro(t, `{"type":"record","name":"delete","fields":[
			{"name":"file_path","type":"string","field-id":2147483546},{"name":"pos","type":"long","field-id":2147483545}]}`, 2,
			map[string]any{"file_path": "seq.avro", "pos": int64(3)},
			map[string]any{"file_path": "seq.avro", "pos": int64(50)},
			map[string]any{"file_path": "other.avro", "pos": int64(4)})
		eqDel := writeAvro(t, `{"type":"record","name":"eq","fields":[{"name":"i","type":"long","field-id":1}]}`, 10,
			map[string]any{"i": int64(0)}, map[string]any{"i": int64(99)})
		mem := checkedAlloc(t)
		r := New(memIO{"seq.avro": data, "pos.avro": posDel, "eq.avro": eqDel}, WithAllocator(mem), WithBatchSize(16))
		task := avroTask("seq.avro")
		task.Deletes = []*scantask.DeleteFile{
			{Path: "pos.avro", Format: scantask.Avro, Kind: scantask.PositionDeletes},
			{Path: "eq.avro", Format: scantask.Avro, Kind: scantask.EqualityDeletes, EqualityIDs: []int32{1}},
		}
		res := readAll(t, r, Scan{Schema: schema}, task)
		if res.err != nil {
			t.Fatal(res.err)
		}
		want := rangeWithout(0, 100, map[int64]bool{0: true, 3: true, 50: true, 99: true})
		if got := seqRows(t, res.rows); !equalInts(got, want) {
			t.Errorf("rows %v\nwant %v", got, want)
		}
	})
}
