package manifest

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// Decoded metrics are sorted by field id whatever the writer's order, keep
// the last of a repeated id, and stay apart from their neighbours in the
// arena across many entries.
func TestReadManifestMetricsOrder(t *testing.T) {
	t.Parallel()
	const entries, cols = 300, 20
	var recs []any
	for i := range entries {
		var sizes, values, lower []any
		upper := map[string]any{}
		for c := cols; c >= 1; c-- { // descending ids
			sizes = append(sizes, map[string]any{"key": int32(c), "value": int64(i*1000 + c)})
			values = append(values, map[string]any{"key": int32(c), "value": int64(c)})
			lower = append(lower, map[string]any{"key": int32(c), "value": []byte(fmt.Sprint(i, "/", c))})
			upper[fmt.Sprint(c)] = []byte{byte(i), byte(c)}
		}
		// Column 1 again, last: its value wins.
		sizes = append(sizes, map[string]any{"key": int32(1), "value": int64(-i)})
		lower = append(lower, map[string]any{"key": int32(1), "value": []byte("last")})
		recs = append(recs, map[string]any{"status": int32(1), "data_file": map[string]any{
			"file_path": fmt.Sprint("f", i), "file_format": "PARQUET", "partition": map[string]any{},
			"record_count": int64(1), "file_size_in_bytes": int64(1),
			"column_sizes": map[string]any{"array": sizes}, "value_counts": map[string]any{"array": values},
			"lower_bounds": map[string]any{"array": lower}, "upper_bounds": map[string]any{"map": upper},
		}})
	}
	raw := writeOCF(t, "null", unsortedMetricsSchema, nil, recs...)
	for _, cols := range []iceberg.MetricColumns{iceberg.AllMetrics(), iceberg.MetricsOf(1, 7, 20)} {
		es, err := Read(bytes.NewReader(raw), iceberg.ManifestFile{}, nil, WithMetrics(cols))
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range es {
			f := e.DataFile
			var sizes, values iceberg.ColumnCounts
			var lower, upper iceberg.ColumnBounds
			for c := 1; c <= 20; c++ {
				if !cols.Has(c) {
					continue
				}
				size, lo := int64(i*1000+c), fmt.Sprint(i, "/", c)
				if c == 1 {
					size, lo = int64(-i), "last"
				}
				sizes = append(sizes, iceberg.ColumnCount{ID: c, Count: size})
				values = append(values, iceberg.ColumnCount{ID: c, Count: int64(c)})
				lower = append(lower, iceberg.ColumnBound{ID: c, Value: []byte(lo)})
				upper = append(upper, iceberg.ColumnBound{ID: c, Value: []byte{byte(i), byte(c)}})
			}
			if !reflect.DeepEqual(f.ColumnSizes, sizes) || !reflect.DeepEqual(f.ValueCounts, values) ||
				!reflect.DeepEqual(f.LowerBounds, lower) || !reflect.DeepEqual(f.UpperBounds, upper) {
				t.Fatalf("metrics of %v, entry %d:\ngot  %v %v %v %v\nwant %v %v %v %v", cols.IDs(), i,
					f.ColumnSizes, f.ValueCounts, f.LowerBounds, f.UpperBounds, sizes, values, lower, upper)
			}
			if f.NullValueCounts != nil || f.NaNValueCounts != nil {
				t.Fatalf("entry %d: absent metrics are %v, %v; want nil", i, f.NullValueCounts, f.NaNValueCounts)
			}
		}
	}
}

// unsortedMetricsSchema has metric maps in the layout Iceberg Java writes
// (key then value records) and, for value counts, with the value first.
const unsortedMetricsSchema = `{"type":"record","name":"manifest_entry","fields":[
	{"name":"status","type":"int"},
	{"name":"data_file","type":{"type":"record","name":"data_file","fields":[
		{"name":"file_path","type":"string"},
		{"name":"file_format","type":"string"},
		{"name":"partition","type":{"type":"record","name":"p","fields":[]}},
		{"name":"record_count","type":"long"},
		{"name":"file_size_in_bytes","type":"long"},
		{"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k1","fields":[
			{"name":"key","type":"int"},{"name":"value","type":"long"}]}}]},
		{"name":"value_counts","type":["null",{"type":"array","items":{"type":"record","name":"k2","fields":[
			{"name":"value","type":"long"},{"name":"key","type":"int"}]}}]},
		{"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k3","fields":[
			{"name":"key","type":"int"},{"name":"value","type":"bytes"}]}}]},
		{"name":"upper_bounds","type":["null",{"type":"map","values":"bytes"}]}]}}]}`
