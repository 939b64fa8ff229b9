package manifest

import (
	"bytes"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/linkedin/goavro/v2"
)

// metricLayouts returns a manifest schema with metric maps laid out as
// writers other than Iceberg Java may lay them out, and an entry of it.
func metricLayouts() (string, map[string]any) {
	const schema = `{"type":"record","name":"manifest_entry","fields":[
		{"name":"status","type":"int"},
		{"name":"data_file","type":{"type":"record","name":"data_file","fields":[
			{"name":"file_path","type":"string"},
			{"name":"file_format","type":{"type":"enum","name":"format","symbols":["avro","Parquet"]}},
			{"name":"partition","type":{"type":"record","name":"p","fields":[]}},
			{"name":"record_count","type":"long"},
			{"name":"file_size_in_bytes","type":"long"},
			{"name":"column_sizes","type":["null",{"type":"map","values":"long"}]},
			{"name":"value_counts","type":{"type":"array","items":{"type":"record","name":"kv1","fields":[
				{"name":"value","type":"long"},{"name":"key","type":"int"}]}}},
			{"name":"null_value_counts","type":["null",{"type":"array","items":{"type":"record","name":"kv2","fields":[
				{"name":"key","type":"long"},{"name":"extra","type":"string"},{"name":"value","type":["null","int"]}]}}]},
			{"name":"lower_bounds","type":["null",{"type":"map","values":["null","bytes"]}]},
			{"name":"upper_bounds","type":["null",{"type":"array","items":{"type":"record","name":"kv3","fields":[
				{"name":"value","type":{"type":"fixed","name":"f2","size":2}},{"name":"key","type":"int"}]}}]},
			{"name":"key_metadata","type":["null","bytes"]}]}}]}`
	rec := map[string]any{
		"status": int32(1),
		"data_file": map[string]any{
			"file_path": "f", "file_format": "Parquet", "partition": map[string]any{},
			"record_count": int64(3), "file_size_in_bytes": int64(9),
			"column_sizes":      goavro.Union("map", map[string]any{"1": int64(10), "2": int64(20)}),
			"value_counts":      []any{map[string]any{"value": int64(3), "key": int32(1)}},
			"null_value_counts": goavro.Union("array", []any{map[string]any{"key": int64(2), "extra": "x", "value": goavro.Union("int", int32(1))}}),
			"lower_bounds":      goavro.Union("map", map[string]any{"1": goavro.Union("bytes", []byte{}), "2": goavro.Union("bytes", []byte{5})}),
			"upper_bounds":      goavro.Union("array", []any{map[string]any{"value": []byte{6, 7}, "key": int32(2)}}),
			"key_metadata":      goavro.Union("bytes", []byte{}),
		},
	}
	return schema, rec
}

// metricLayoutsManifest writes metricLayouts' entry into a manifest.
func metricLayoutsManifest(t *testing.T) []byte {
	t.Helper()
	schema, rec := metricLayouts()
	return writeOCF(t, "null", schema, nil, rec)
}

// Metric maps as writers other than Iceberg Java may lay them out: an Avro
// map with string keys, key/value records with the value first or a
// nullable value, and file formats as enums or in mixed case.
func TestReadManifestMetricLayouts(t *testing.T) {
	t.Parallel()
	schema, rec := metricLayouts()
	raw := writeOCF(t, "null", schema, nil, rec)
	es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := es[0].DataFile
	want := iceberg.DataFile{
		Path: "f", Format: "PARQUET", Partition: []any{}, RecordCount: 3, FileSize: 9,
		ColumnSizes: iceberg.ColumnCounts{{ID: 1, Count: 10}, {ID: 2, Count: 20}}, ValueCounts: iceberg.ColumnCounts{{ID: 1, Count: 3}}, NullValueCounts: iceberg.ColumnCounts{{ID: 2, Count: 1}},
		LowerBounds: iceberg.ColumnBounds{{ID: 1, Value: []byte{}}, {ID: 2, Value: []byte{5}}}, UpperBounds: iceberg.ColumnBounds{{ID: 2, Value: []byte{6, 7}}}, KeyMetadata: []byte{},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got  %#v\nwant %#v", f, want)
	}

	// A null value in a metric map is an error, as is a key that is no
	// field id.
	for name, change := range map[string]func(df map[string]any){
		"null count": func(df map[string]any) {
			df["null_value_counts"] = goavro.Union("array", []any{map[string]any{"key": int64(2), "extra": "", "value": nil}})
		},
		"null bound": func(df map[string]any) {
			df["lower_bounds"] = goavro.Union("map", map[string]any{"1": nil})
		},
		"map key not a field id": func(df map[string]any) {
			df["column_sizes"] = goavro.Union("map", map[string]any{"x": int64(1)})
		},
	} {
		bad := map[string]any{"status": int32(1), "data_file": map[string]any{}}
		for k, v := range rec["data_file"].(map[string]any) {
			bad["data_file"].(map[string]any)[k] = v
		}
		change(bad["data_file"].(map[string]any))
		_, err := Read(bytes.NewReader(writeOCF(t, "null", schema, nil, bad)), iceberg.ManifestFile{}, nil)
		if !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// Damaged manifest lists fail with ErrInvalidMetadata and never panic.
func TestReadManifestListDamagedFiles(t *testing.T) {
	t.Parallel()
	raw := writeOCF(t, "null", listSchema(), nil, listRecord(int64(5), int64(3), int64(55)))
	for n := range len(raw) {
		if _, err := ReadList(bytes.NewReader(raw[:n]), 2, &iceberg.Snapshot{}); err != nil && !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Fatalf("truncated to %d bytes: got %v", n, err)
		}
	}
	for i := range raw {
		damaged := bytes.Clone(raw)
		damaged[i] ^= 0xa5
		if _, err := ReadList(bytes.NewReader(damaged), 2, &iceberg.Snapshot{}); err != nil && !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Fatalf("byte %d changed: error %v does not wrap ErrInvalidMetadata", i, err)
		}
	}
}

// The compiled form of a schema is shared by every manifest that uses it,
// per partition type, by concurrent readers.
func TestReadManifestSharesCompiledSchemas(t *testing.T) {
	t.Parallel()
	part := `{"name":"d","type":["null",{"type":"int","logicalType":"date"}],"field-id":1000}`
	raw := writeManifest(t, entrySchema(part), testEntry{status: 1, records: 1, partition: map[string]any{"d": avroOpt("int.date", time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC))}})
	cases := []struct {
		pt      *iceberg.StructType
		want    any
		wantErr bool
	}{
		{nil, int32(20150), false},
		{&iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1000, Name: "d", Type: iceberg.DateType{}}}}, int32(20150), false},
		{&iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1000, Name: "d", Type: iceberg.LongType{}}}}, nil, true}, // a date is no long
		{&iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1001, Name: "other", Type: iceberg.IntType{}}}}, nil, false},
	}
	var wg sync.WaitGroup
	for range 8 {
		for i, tc := range cases {
			wg.Go(func() {
				es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{SequenceNumber: 1}, tc.pt)
				switch {
				case tc.wantErr:
					if !errors.Is(err, iceberg.ErrInvalidMetadata) {
						t.Errorf("type %d: got %v, want an error", i, err)
					}
				case err != nil:
					t.Errorf("type %d: %v", i, err)
				case !reflect.DeepEqual(es[0].DataFile.Partition, []any{tc.want}):
					t.Errorf("type %d: partition %#v, want %#v", i, es[0].DataFile.Partition, tc.want)
				}
			})
		}
	}
	wg.Wait()
}
