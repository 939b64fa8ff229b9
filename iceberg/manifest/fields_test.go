package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// avroIDs walks an Avro schema and returns "path=id" for every field-id,
// element-id, and the key and value ids of map arrays.
func avroIDs(t *testing.T, schema string) []string {
	t.Helper()
	var root any
	if err := json.Unmarshal([]byte(schema), &root); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, n any)
	walk = func(path string, n any) {
		switch n := n.(type) {
		case []any:
			for _, b := range n {
				walk(path, b)
			}
		case map[string]any:
			if id, ok := n["element-id"]; ok {
				out = append(out, path+".element="+jsonNum(id))
			}
			if fields, ok := n["fields"].([]any); ok {
				for _, f := range fields {
					f := f.(map[string]any)
					p := path + "." + f["name"].(string)
					out = append(out, p+"="+jsonNum(f["field-id"]))
					walk(p, f["type"])
				}
			}
			if items, ok := n["items"]; ok {
				walk(path, items)
			}
		}
	}
	walk("", root)
	slices.Sort(out)
	return out
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Field ids from the spec's tables (Manifests: manifest_entry and
// data_file; Manifest Lists: manifest_file and field_summary).
var (
	specEntryV1 = []string{".status=0", ".snapshot_id=1", ".data_file=2",
		".data_file.file_path=100", ".data_file.file_format=101", ".data_file.partition=102",
		".data_file.partition.p=1000", ".data_file.record_count=103", ".data_file.file_size_in_bytes=104",
		".data_file.block_size_in_bytes=105",
		".data_file.column_sizes=108", ".data_file.column_sizes.key=117", ".data_file.column_sizes.value=118",
		".data_file.value_counts=109", ".data_file.value_counts.key=119", ".data_file.value_counts.value=120",
		".data_file.null_value_counts=110", ".data_file.null_value_counts.key=121", ".data_file.null_value_counts.value=122",
		".data_file.nan_value_counts=137", ".data_file.nan_value_counts.key=138", ".data_file.nan_value_counts.value=139",
		".data_file.lower_bounds=125", ".data_file.lower_bounds.key=126", ".data_file.lower_bounds.value=127",
		".data_file.upper_bounds=128", ".data_file.upper_bounds.key=129", ".data_file.upper_bounds.value=130",
		".data_file.key_metadata=131", ".data_file.split_offsets=132", ".data_file.split_offsets.element=133",
		".data_file.sort_order_id=140"}
	specEntryV2 = append(slices.DeleteFunc(slices.Clone(specEntryV1), func(s string) bool { return s == ".data_file.block_size_in_bytes=105" }),
		".sequence_number=3", ".file_sequence_number=4", ".data_file.content=134",
		".data_file.equality_ids=135", ".data_file.equality_ids.element=136", ".data_file.referenced_data_file=143")
	specEntryV3 = append(slices.Clone(specEntryV2),
		".data_file.first_row_id=142", ".data_file.content_offset=144", ".data_file.content_size_in_bytes=145")

	specListV1 = []string{".manifest_path=500", ".manifest_length=501", ".partition_spec_id=502", ".added_snapshot_id=503",
		".added_files_count=504", ".existing_files_count=505", ".deleted_files_count=506",
		".partitions=507", ".partitions.element=508", ".partitions.contains_null=509", ".partitions.contains_nan=518",
		".partitions.lower_bound=510", ".partitions.upper_bound=511",
		".added_rows_count=512", ".existing_rows_count=513", ".deleted_rows_count=514", ".key_metadata=519"}
	specListV2 = append(slices.Clone(specListV1), ".content=517", ".sequence_number=515", ".min_sequence_number=516")
	specListV3 = append(slices.Clone(specListV2), ".first_row_id=520")
)

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestSchemaFieldIDs checks that every field of the written Avro schemas
// carries the spec's field id, per format version.
func TestSchemaFieldIDs(t *testing.T) {
	t.Parallel()
	sp := spec(0, pf(2, "p", iceberg.BucketTransform{N: 4}))
	for _, tc := range []struct {
		version   int
		entry, ls []string
	}{
		{1, specEntryV1, specListV1},
		{2, specEntryV2, specListV2},
		{3, specEntryV3, specListV3},
	} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, WriterOptions{FormatVersion: tc.version, Schema: testSchema, Spec: sp, SnapshotID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		md, err := Metadata(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := avroIDs(t, md["avro.schema"]); !reflect.DeepEqual(got, sorted(tc.entry)) {
			t.Errorf("v%d manifest_entry ids:\n got %v\nwant %v", tc.version, got, sorted(tc.entry))
		}
		buf.Reset()
		if _, err := WriteList(&buf, WriteListOptions{FormatVersion: tc.version, SnapshotID: 1}, nil); err != nil {
			t.Fatal(err)
		}
		md, err = Metadata(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := avroIDs(t, md["avro.schema"]); !reflect.DeepEqual(got, sorted(tc.ls)) {
			t.Errorf("v%d manifest_file ids:\n got %v\nwant %v", tc.version, got, sorted(tc.ls))
		}
	}
}

// TestAvroPartitionTypes checks the Avro types of partition fields against
// those Iceberg Java writes (as found in Java-written manifests): logical
// types for dates and timestamps, decimals as fixed of the fewest bytes,
// uuid as a 16-byte fixed, every field optional.
func TestAvroPartitionTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  iceberg.Type
		want string
	}{
		{iceberg.IntType{}, `["null","int"]`},
		{iceberg.DateType{}, `["null",{"logicalType":"date","type":"int"}]`},
		{iceberg.TimestampTzType{}, `["null",{"adjust-to-utc":true,"logicalType":"timestamp-micros","type":"long"}]`},
		{iceberg.TimestampType{}, `["null",{"adjust-to-utc":false,"logicalType":"timestamp-micros","type":"long"}]`},
		{iceberg.DecimalType{Precision: 6, Scale: 3}, `["null",{"logicalType":"decimal","name":"decimal_6_3","precision":6,"scale":3,"size":3,"type":"fixed"}]`},
		{iceberg.DecimalType{Precision: 19, Scale: 2}, `["null",{"logicalType":"decimal","name":"decimal_19_2","precision":19,"scale":2,"size":9,"type":"fixed"}]`},
		{iceberg.DecimalType{Precision: 38, Scale: 2}, `["null",{"logicalType":"decimal","name":"decimal_38_2","precision":38,"scale":2,"size":16,"type":"fixed"}]`},
		{iceberg.UUIDType{}, `["null",{"logicalType":"uuid","name":"uuid_fixed","size":16,"type":"fixed"}]`},
		{iceberg.BinaryType{}, `["null","bytes"]`},
	} {
		part := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1000, Name: "p", Type: tc.typ}}}
		rec, err := newAvroConverter().record("r102", part)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(rec["fields"].([]any)[0].(map[string]any)["type"])
		if string(got) != tc.want {
			t.Errorf("%v: %s, want %s", tc.typ, got, tc.want)
		}
	}
}

// TestFieldTables checks the tables of fields.go and that the reader finds
// every field the writer writes, by field id and, in a schema without ids,
// by name: both directions follow one table.
func TestFieldTables(t *testing.T) {
	t.Parallel()
	tables := []struct {
		name  string
		table []field
	}{{"manifest_entry", entryFields}, {"data_file", dataFileFields}, {"manifest_file", listFields}, {"field_summary", summaryFields}}
	for _, tc := range tables {
		for _, f := range tc.table {
			if f.id < 0 || f.id >= 1024 {
				t.Errorf("%s.%s: field id %d out of idSet's range", tc.name, f.name, f.id)
			}
			if f.in == 0 || f.required&^f.in != 0 {
				t.Errorf("%s.%s: in versions %b, required in %b", tc.name, f.name, f.in, f.required)
			}
		}
		for v := 1; v <= 3; v++ {
			seen := map[int]bool{}
			for _, f := range fieldsOf(tc.table, v) {
				if seen[f.id] {
					t.Errorf("v%d %s has field id %d twice", v, tc.name, f.id)
				}
				seen[f.id] = true
			}
		}
	}

	part := spec(1, pf(2, "p", iceberg.BucketTransform{N: 4})).PartitionType(testSchema)
	noIDs := regexp.MustCompile(`"field-id":\d+,`)
	for v := 1; v <= 3; v++ {
		for _, ids := range []bool{true, false} {
			entry, _, err := avroSchemas("manifest_entry", entryType(v, part))
			if err != nil {
				t.Fatal(err)
			}
			list, _, err := avroSchemas("manifest_file", listType(v))
			if err != nil {
				t.Fatal(err)
			}
			if !ids {
				if !noIDs.MatchString(entry) || !noIDs.MatchString(list) {
					t.Fatal("the schemas have no field ids to strip")
				}
				entry, list = noIDs.ReplaceAllString(entry, ""), noIDs.ReplaceAllString(list, "")
			}
			es, err := avro.ParseSchema([]byte(entry))
			if err != nil {
				t.Fatal(err)
			}
			ml, err := newManifestLayout(es, part)
			if err != nil {
				t.Fatalf("v%d manifest_entry (ids %v): %v", v, ids, err)
			}
			ls, err := avro.ParseSchema([]byte(list))
			if err != nil {
				t.Fatal(err)
			}
			ll, err := newManifestListLayout(ls)
			if err != nil {
				t.Fatalf("v%d manifest_file (ids %v): %v", v, ids, err)
			}
			for _, c := range []struct {
				name   string
				table  []field
				layout *recordLayout
			}{{"manifest_entry", entryFields, ml.entry}, {"data_file", dataFileFields, ml.file},
				{"manifest_file", listFields, ll.file}, {"field_summary", summaryFields, ll.summary}} {
				for _, f := range fieldsOf(c.table, v) {
					if !c.layout.present.has(f.id) {
						t.Errorf("v%d %s (ids %v): the reader does not find %s", v, c.name, ids, f.name)
					}
				}
			}
		}
	}
}
