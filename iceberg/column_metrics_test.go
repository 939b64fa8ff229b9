package iceberg

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

func TestColumnCountsGet(t *testing.T) {
	t.Parallel()
	short := ColumnCounts{{1, 10}, {3, 30}, {7, 0}}
	var long ColumnCounts // beyond linearSearchMax: binary search
	for id := 2; id <= 40; id += 2 {
		long = append(long, ColumnCount{id, int64(id) * 100})
	}
	cases := []struct {
		name string
		c    ColumnCounts
		id   int
		want int64
		ok   bool
	}{
		{"a present id gives its count", short, 3, 30, true},
		{"the first id is found", short, 1, 10, true},
		{"the last id is found", short, 7, 0, true},
		{"a zero count is present", short, 7, 0, true},
		{"an id between two is absent", short, 2, 0, false},
		{"an id below all is absent", short, 0, 0, false},
		{"an id above all is absent", short, 8, 0, false},
		{"a nil metric has no id", nil, 1, 0, false},
		{"an empty metric has no id", ColumnCounts{}, 1, 0, false},
		{"a long metric finds its first id", long, 2, 200, true},
		{"a long metric finds a middle id", long, 22, 2200, true},
		{"a long metric finds its last id", long, 40, 4000, true},
		{"a long metric lacks an odd id", long, 21, 0, false},
		{"a long metric lacks an id below all", long, -5, 0, false},
		{"a long metric lacks an id above all", long, 41, 0, false},
	}
	for _, tc := range cases {
		got, ok := tc.c.Get(tc.id)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Get(%d) = %d, %v; want %d, %v", tc.name, tc.id, got, ok, tc.want, tc.ok)
		}
	}
	if len(short) != 3 {
		t.Errorf("len = %d, want 3", len(short))
	}
}

func TestColumnBoundsGet(t *testing.T) {
	t.Parallel()
	b := ColumnBounds{{1, []byte{}}, {4, []byte("abc")}}
	cases := []struct {
		name string
		b    ColumnBounds
		id   int
		want []byte
		ok   bool
	}{
		{"a present id gives its bound", b, 4, []byte("abc"), true},
		{"an empty bound is present", b, 1, []byte{}, true},
		{"an absent id gives nil", b, 2, nil, false},
		{"a nil metric has no id", nil, 1, nil, false},
	}
	for _, tc := range cases {
		got, ok := tc.b.Get(tc.id)
		if !bytes.Equal(got, tc.want) || ok != tc.ok || (ok && got == nil) {
			t.Errorf("%s: Get(%d) = %q, %v; want %q, %v", tc.name, tc.id, got, ok, tc.want, tc.ok)
		}
	}
	if len(b) != 2 {
		t.Errorf("len = %d, want 2", len(b))
	}
}

// Metric maps arrive in writer order and may repeat an id; the slices are
// sorted by id and keep the last value of an id, as a Go map did.
func TestNewColumnMetricsOrder(t *testing.T) {
	t.Parallel()
	counts := []struct {
		name string
		in   []ColumnCount
		want ColumnCounts
	}{
		{"nil stays nil", nil, nil},
		{"empty becomes nil", []ColumnCount{}, nil},
		{"sorted input is kept", []ColumnCount{{1, 1}, {2, 2}}, ColumnCounts{{1, 1}, {2, 2}}},
		{"unsorted input is sorted", []ColumnCount{{5, 50}, {1, 10}, {3, 30}}, ColumnCounts{{1, 10}, {3, 30}, {5, 50}}},
		{"a repeated id keeps its last value", []ColumnCount{{2, 1}, {2, 2}, {2, 3}}, ColumnCounts{{2, 3}}},
		{"a repeated id apart keeps its last value", []ColumnCount{{2, 1}, {9, 9}, {1, 0}, {2, 7}}, ColumnCounts{{1, 0}, {2, 7}, {9, 9}}},
		{"a repeat in sorted input keeps the last", []ColumnCount{{1, 1}, {1, 5}, {3, 3}}, ColumnCounts{{1, 5}, {3, 3}}},
		{"extreme ids order without overflow", []ColumnCount{{1 << 62, 1}, {-1 << 62, 2}}, ColumnCounts{{-1 << 62, 2}, {1 << 62, 1}}},
	}
	for _, tc := range counts {
		if got := NewColumnCounts(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	got := NewColumnBounds([]ColumnBound{{4, []byte("x")}, {1, []byte("a")}, {4, []byte("y")}})
	want := ColumnBounds{{1, []byte("a")}, {4, []byte("y")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bounds: got %v, want %v", got, want)
	}
	if NewColumnBounds(nil) != nil {
		t.Error("nil bounds: want nil")
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
	for _, cols := range []MetricColumns{AllMetrics(), MetricsOf(1, 7, 20)} {
		es, err := ReadManifest(bytes.NewReader(raw), ManifestFile{}, nil, WithMetrics(cols))
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range es {
			f := e.DataFile
			var sizes, values ColumnCounts
			var lower, upper ColumnBounds
			for c := 1; c <= 20; c++ {
				if !cols.Has(c) {
					continue
				}
				size, lo := int64(i*1000+c), fmt.Sprint(i, "/", c)
				if c == 1 {
					size, lo = int64(-i), "last"
				}
				sizes = append(sizes, ColumnCount{c, size})
				values = append(values, ColumnCount{c, int64(c)})
				lower = append(lower, ColumnBound{c, []byte(lo)})
				upper = append(upper, ColumnBound{c, []byte{byte(i), byte(c)}})
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
