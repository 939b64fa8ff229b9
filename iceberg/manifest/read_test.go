package manifest

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/klauspost/compress/zstd"
	"github.com/linkedin/goavro/v2"
)

// Hand-built manifests: small Avro container files written in the test, to
// check the spec's inheritance rules and value conversions one by one.

// writeOCF encodes records as an Avro container file compressed with codec.
// The framing is written by hand so that every codec the reader knows can be
// exercised (goavro writes only null, deflate and snappy).
func writeOCF(t *testing.T, codec, schema string, meta map[string]string, records ...any) []byte {
	t.Helper()
	c, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	var body []byte
	for _, r := range records {
		if body, err = c.BinaryFromNative(body, r); err != nil {
			t.Fatalf("encode %v: %v", r, err)
		}
	}
	switch codec {
	case "deflate":
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.BestCompression)
		w.Write(body)
		w.Close()
		body = buf.Bytes()
	case "snappy":
		body = binary.BigEndian.AppendUint32(snappy.Encode(nil, body), crc32.ChecksumIEEE(body))
	case "zstandard":
		enc, _ := zstd.NewWriter(nil)
		body = enc.EncodeAll(body, nil)
	}
	all := map[string]string{"avro.schema": schema, "avro.codec": codec}
	for k, v := range meta {
		all[k] = v
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []byte("Obj\x01")
	out = binary.AppendVarint(out, int64(len(keys)))
	for _, k := range keys {
		out = binary.AppendVarint(out, int64(len(k)))
		out = append(out, k...)
		out = binary.AppendVarint(out, int64(len(all[k])))
		out = append(out, all[k]...)
	}
	out = binary.AppendVarint(out, 0)
	sync := []byte("0123456789abcdef")
	out = append(out, sync...)
	if len(records) > 0 {
		out = binary.AppendVarint(out, int64(len(records)))
		out = binary.AppendVarint(out, int64(len(body)))
		out = append(out, body...)
		out = append(out, sync...)
	}
	return out
}

// avroOpt is a value of a ["null", typ] union.
func avroOpt(typ string, v any) any {
	if v == nil {
		return nil
	}
	return goavro.Union(typ, v)
}

// entrySchema is a v3 manifest_entry schema as Iceberg Java writes it, with
// the given partition fields; drop removes top-level fields by name.
func entrySchema(partition string, drop ...string) string {
	fields := []string{
		`{"name":"status","type":"int","field-id":0}`,
		`{"name":"snapshot_id","type":["null","long"],"field-id":1}`,
		`{"name":"sequence_number","type":["null","long"],"field-id":3}`,
		`{"name":"file_sequence_number","type":["null","long"],"field-id":4}`,
		`{"name":"data_file","field-id":2,"type":{"type":"record","name":"r2","fields":[
			{"name":"content","type":"int","field-id":134},
			{"name":"file_path","type":"string","field-id":100},
			{"name":"file_format","type":"string","field-id":101},
			{"name":"partition","field-id":102,"type":{"type":"record","name":"r102","fields":[` + partition + `]}},
			{"name":"record_count","type":"long","field-id":103},
			{"name":"file_size_in_bytes","type":"long","field-id":104},
			{"name":"column_sizes","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]}}],"field-id":108},
			{"name":"lower_bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]}}],"field-id":125},
			{"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"field-id":132},
			{"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"field-id":135},
			{"name":"sort_order_id","type":["null","int"],"field-id":140},
			{"name":"first_row_id","type":["null","long"],"field-id":142}]}}`,
	}
	return recordSchema("manifest_entry", fields, drop)
}

// recordSchema is an Avro record schema of the given fields but those named
// in drop.
func recordSchema(name string, fields, drop []string) string {
	var kept []string
	for _, f := range fields {
		if fname := strings.SplitN(f, `"`, 5)[3]; !slices.Contains(drop, fname) {
			kept = append(kept, f)
		}
	}
	return `{"type":"record","name":"` + name + `","fields":[` + strings.Join(kept, ",") + `]}`
}

// testEntry is one manifest entry to encode; nil pointers are nulls.
type testEntry struct {
	status                 int
	snapshot, seq, fileSeq any // int64 or nil
	content                int
	records                int64
	firstRowID             any
	partition              map[string]any
}

func (e testEntry) native() map[string]any {
	part := e.partition
	if part == nil {
		part = map[string]any{}
	}
	return map[string]any{
		"status": int32(e.status), "snapshot_id": avroOpt("long", e.snapshot),
		"sequence_number": avroOpt("long", e.seq), "file_sequence_number": avroOpt("long", e.fileSeq),
		"data_file": map[string]any{
			"content": int32(e.content), "file_path": "s3://b/t/data/f.parquet", "file_format": "parquet",
			"partition": part, "record_count": e.records, "file_size_in_bytes": int64(100),
			"column_sizes":  goavro.Union("array", []any{map[string]any{"key": int32(1), "value": int64(40)}}),
			"lower_bounds":  goavro.Union("array", []any{map[string]any{"key": int32(1), "value": []byte{1, 0, 0, 0}}}),
			"split_offsets": goavro.Union("array", []any{int64(4)}),
			"equality_ids":  nil, "sort_order_id": avroOpt("int", int32(0)),
			"first_row_id": avroOpt("long", e.firstRowID),
		},
	}
}

func writeManifest(t *testing.T, schema string, entries ...testEntry) []byte {
	t.Helper()
	recs := make([]any, len(entries))
	for i, e := range entries {
		recs[i] = e.native()
	}
	return writeOCF(t, "deflate", schema, map[string]string{"format-version": "2", "partition-spec-id": "0"}, recs...)
}

func TestReadManifestInheritance(t *testing.T) {
	t.Parallel()
	mf := iceberg.ManifestFile{Path: "m.avro", SequenceNumber: 7, AddedSnapshotID: 70}
	v1Schema := entrySchema("", "sequence_number", "file_sequence_number")
	cases := []struct {
		name    string
		schema  string
		mf      iceberg.ManifestFile
		entry   testEntry
		want    [3]int64 // snapshot id, data and file sequence numbers
		wantErr string
	}{
		{"null snapshot id inherits the manifest's added snapshot", "", mf,
			testEntry{status: 1}, [3]int64{70, 7, 7}, ""},
		{"ADDED entry keeps explicit values", "", mf,
			testEntry{status: 1, snapshot: int64(60), seq: int64(3), fileSeq: int64(5)}, [3]int64{60, 3, 5}, ""},
		{"ADDED entry with an explicit older data sequence number inherits the file one", "", mf,
			testEntry{status: 1, seq: int64(2)}, [3]int64{70, 2, 7}, ""},
		{"EXISTING entry keeps explicit values", "", mf,
			testEntry{status: 0, snapshot: int64(50), seq: int64(4), fileSeq: int64(4)}, [3]int64{50, 4, 4}, ""},
		{"EXISTING entry with a null sequence number is an error", "", mf,
			testEntry{status: 0, snapshot: int64(50), fileSeq: int64(4)}, [3]int64{}, "EXISTING entry has a null sequence_number"},
		{"DELETED entry with a null file sequence number is an error", "", mf,
			testEntry{status: 2, snapshot: int64(50), seq: int64(4)}, [3]int64{}, "DELETED entry has a null file_sequence_number"},
		{"manifest with sequence number 0 reads nulls as 0", "", iceberg.ManifestFile{AddedSnapshotID: 70},
			testEntry{status: 0}, [3]int64{70, 0, 0}, ""},
		{"v1 manifest reads sequence number 0 whatever the list says", v1Schema, mf,
			testEntry{status: 0, snapshot: int64(50)}, [3]int64{50, 0, 0}, ""},
		{"writers before file_sequence_number: EXISTING entry takes its data sequence number",
			entrySchema("", "file_sequence_number"), mf,
			testEntry{status: 0, snapshot: int64(50), seq: int64(4)}, [3]int64{50, 4, 4}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := tc.schema
			if schema == "" {
				schema = entrySchema("")
			}
			ok := testEntry{status: 1, records: 1}
			raw := writeManifest(t, schema, ok, tc.entry)
			es, err := Read(bytes.NewReader(raw), tc.mf, &iceberg.StructType{})
			if tc.wantErr != "" {
				if !errors.Is(err, iceberg.ErrInvalidMetadata) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "manifest entry 1") {
					t.Fatalf("got error %v, want one about entry 1: %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e := es[1]
			if got := [3]int64{e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber}; got != tc.want {
				t.Errorf("got snapshot, seq, file seq %v, want %v", got, tc.want)
			}
		})
	}
}

// Spec (First Row ID Inheritance): a null first_row_id is the manifest's
// first_row_id plus the record counts of the earlier data files that also
// inherited; explicit values, deleted entries and delete files do not count.
func TestReadManifestFirstRowIDInheritance(t *testing.T) {
	t.Parallel()
	seq := int64(1)
	raw := writeManifest(t, entrySchema(""),
		testEntry{status: 1, records: 10},
		testEntry{status: 0, seq: seq, fileSeq: seq, records: 7, firstRowID: int64(50)},
		testEntry{status: 1, records: 5},
		testEntry{status: 2, seq: seq, fileSeq: seq, records: 3},
		testEntry{status: 1, records: 4, content: 1},
		testEntry{status: 0, seq: seq, fileSeq: seq, records: 2},
		testEntry{status: 1, records: 1},
	)
	first := int64(100)
	for _, tc := range []struct {
		name  string
		first *int64
		want  []any
	}{
		{"manifest with a first_row_id", &first, []any{int64(100), int64(50), int64(110), nil, nil, int64(115), int64(117)}},
		{"manifest without a first_row_id", nil, []any{nil, int64(50), nil, nil, nil, nil, nil}},
	} {
		es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SequenceNumber: 2, FirstRowID: tc.first}, &iceberg.StructType{})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]any, len(es))
		for i, e := range es {
			if e.DataFile.FirstRowID != nil {
				got[i] = *e.DataFile.FirstRowID
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: first_row_ids %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadManifestDataFileFields(t *testing.T) {
	t.Parallel()
	raw := writeManifest(t, entrySchema(""), testEntry{status: 1, records: 3})
	es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SpecID: 4, SequenceNumber: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := es[0].DataFile
	zero := 0
	want := iceberg.DataFile{
		Path: "s3://b/t/data/f.parquet", Format: "PARQUET", Partition: []any{}, RecordCount: 3, FileSize: 100,
		ColumnSizes: iceberg.ColumnCounts{{ID: 1, Count: 40}}, LowerBounds: iceberg.ColumnBounds{{ID: 1, Value: []byte{1, 0, 0, 0}}},
		SplitOffsets: []int64{4}, SortOrderID: &zero, SpecID: 4,
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got  %+v\nwant %+v", f, want)
	}
}

// partitionSchema has one Avro partition field per Iceberg literal kind, as
// Iceberg Java and Trino annotate them.
const partitionSchema = `
	{"name":"b","type":["null","boolean"],"field-id":1000},
	{"name":"i","type":["null","int"],"field-id":1001},
	{"name":"l","type":["null","long"],"field-id":1002},
	{"name":"f","type":["null","float"],"field-id":1003},
	{"name":"d","type":["null","double"],"field-id":1004},
	{"name":"dec","type":["null",{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2}],"field-id":1005},
	{"name":"dec2","type":["null","decimal_9_2"],"field-id":1006},
	{"name":"decb","type":["null",{"type":"bytes","logicalType":"decimal","precision":38,"scale":10}],"field-id":1007},
	{"name":"date","type":["null",{"type":"int","logicalType":"date"}],"field-id":1008},
	{"name":"time","type":["null",{"type":"long","logicalType":"time-micros"}],"field-id":1009},
	{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false}],"field-id":1010},
	{"name":"tstz","type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}],"field-id":1011},
	{"name":"tsns","type":["null",{"type":"long","logicalType":"timestamp-nanos"}],"field-id":1012},
	{"name":"s","type":["null","string"],"field-id":1013},
	{"name":"u","type":["null",{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"}],"field-id":1014},
	{"name":"us","type":["null",{"type":"string","logicalType":"uuid"}],"field-id":1015},
	{"name":"fx","type":["null",{"type":"fixed","name":"fixed_3","size":3}],"field-id":1016},
	{"name":"bin","type":["null","bytes"],"field-id":1017},
	{"name":"nul","type":["null","int"],"field-id":1018}`

// Writers without field ids, with other record names and field orders, are
// read by field name, and partition fields by name or position.
func TestReadManifestByNameWithoutFieldIDs(t *testing.T) {
	t.Parallel()
	schema := `{"type":"record","name":"Entry","namespace":"x.y","fields":[
		{"name":"data_file","type":{"type":"record","name":"DataFile","fields":[
			{"name":"record_count","type":"long"},
			{"name":"partition","type":{"type":"record","name":"Part","fields":[
				{"name":"day","type":["null",{"type":"int","logicalType":"date"}]},
				{"name":"other","type":["null","string"]}]}},
			{"name":"file_size_in_bytes","type":"long"},
			{"name":"file_format","type":"string"},
			{"name":"file_path","type":"string"}]}},
		{"name":"snapshot_id","type":"long"},
		{"name":"status","type":"int"}]}`
	rec := map[string]any{
		"status": int32(1), "snapshot_id": int64(9),
		"data_file": map[string]any{
			"record_count": int64(2), "file_size_in_bytes": int64(3), "file_format": "orc", "file_path": "p",
			"partition": map[string]any{"day": avroOpt("int.date", time.Unix(86400*3, 0).UTC()), "other": avroOpt("string", "x")},
		},
	}
	raw := writeOCF(t, "null", schema, nil, rec)
	pt := &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 1000, Name: "day", Type: iceberg.DateType{}},
		{ID: 1001, Name: "renamed", Type: iceberg.StringType{}},
	}}
	es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SequenceNumber: 5}, pt)
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	if e.Status != iceberg.EntryAdded || e.SnapshotID != 9 || e.SequenceNumber != 0 || e.DataFile.Format != "ORC" ||
		!reflect.DeepEqual(e.DataFile.Partition, []any{int32(3), "x"}) {
		t.Errorf("got %+v", e)
	}
}

func TestReadManifestCodecs(t *testing.T) {
	t.Parallel()
	for _, codec := range []string{"null", "deflate", "snappy", "zstandard"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			rec := testEntry{status: 1, records: 42}.native()
			raw := writeOCF(t, codec, entrySchema(""), nil, rec, rec, rec)
			es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SequenceNumber: 1}, nil)
			if err != nil || len(es) != 3 || es[2].DataFile.RecordCount != 42 {
				t.Fatalf("got %d entries, %v", len(es), err)
			}
		})
	}
	raw := writeOCF(t, "xz", entrySchema(""), nil, testEntry{status: 1}.native())
	if _, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{}, nil); !errors.Is(err, iceberg.ErrInvalidMetadata) || !strings.Contains(err.Error(), `"xz"`) {
		t.Errorf("unsupported codec: got %v", err)
	}
}

// Damaged files fail with ErrInvalidMetadata and never panic: every
// truncation, and every single-byte change, of a small manifest.
func TestReadManifestDamagedFiles(t *testing.T) {
	t.Parallel()
	schema := entrySchema(`{"name":"d","type":["null",{"type":"int","logicalType":"date"}],"field-id":1000}`)
	rec := testEntry{status: 1, records: 1, partition: map[string]any{"d": avroOpt("int.date", time.Unix(0, 0).UTC())}}
	raw := writeOCF(t, "deflate", schema, nil, rec.native())
	// Cut right after the header, the file is a valid empty manifest.
	header := len(writeOCF(t, "deflate", schema, nil))
	for n := 0; n < len(raw); n++ {
		es, err := Read(bytes.NewReader(raw[:n]), iceberg.ManifestFile{}, nil)
		if n == header && err == nil && len(es) == 0 {
			continue
		}
		if !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Fatalf("truncated to %d bytes: got %v", n, err)
		}
	}
	for i := range raw {
		damaged := bytes.Clone(raw)
		damaged[i] ^= 0xa5
		if _, err := Read(bytes.NewReader(damaged), iceberg.ManifestFile{}, nil); err != nil && !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Fatalf("byte %d changed: error %v does not wrap ErrInvalidMetadata", i, err)
		}
	}
}
