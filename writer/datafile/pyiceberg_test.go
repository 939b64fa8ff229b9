package datafile

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
)

// pyStats is what testdata/pyiceberg_stats.py prints.
type pyStats struct {
	RecordCount     int64             `json:"record_count"`
	ColumnSizes     map[string]int64  `json:"column_sizes"`
	ValueCounts     map[string]int64  `json:"value_counts"`
	NullValueCounts map[string]int64  `json:"null_value_counts"`
	LowerBounds     map[string]string `json:"lower_bounds"`
	UpperBounds     map[string]string `json:"upper_bounds"`
	SplitOffsets    []int64           `json:"split_offsets"`
	FieldIDs        map[string]int    `json:"field_ids"`
	Rows            []map[string]any  `json:"rows"`
}

// TestPyIcebergAgrees writes a file of top-level columns (where PyIceberg
// and Iceberg Java keep the same metrics) and checks that pyarrow reads its
// rows and field ids and that PyIceberg computes the same metrics from it.
func TestPyIcebergAgrees(t *testing.T) {
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "price", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
		iceberg.NestedField{ID: 4, Name: "ts", Type: iceberg.TimestampTzType{}},
		iceberg.NestedField{ID: 5, Name: "day", Type: iceberg.DateType{}},
		iceberg.NestedField{ID: 6, Name: "ok", Type: iceberg.BooleanType{}},
		iceberg.NestedField{ID: 7, Name: "raw", Type: iceberg.BinaryType{}},
		iceberg.NestedField{ID: 8, Name: "score", Type: iceberg.DoubleType{}},
	)
	props := map[string]string{PropRowGroupSize: "1", PropMetricsColumn + "name": "truncate(4)"}
	df, fio := writeJSON(t, schema, props,
		`[{"id": 3, "name": "zebra-crossing", "price": "-10.50", "ts": 1700000000000000, "day": 19000, "ok": true, "raw": "AAEC", "score": 2.5},
		  {"id": -1, "name": null, "price": "99999.99", "ts": null, "day": -1, "ok": null, "raw": null, "score": null}]`,
		`[{"id": 10, "name": "apple", "price": null, "ts": -1, "day": null, "ok": false, "raw": "/w==", "score": -7.25}]`)
	data, err := fileio.ReadAll(context.Background(), fio, df.Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	schemaJSON, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	propsJSON, _ := json.Marshal(props)
	cmd := exec.Command(python, filepath.Join("testdata", "pyiceberg_stats.py"), path, string(schemaJSON), string(propsJSON))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyiceberg_stats.py: %v", err)
	}
	var py pyStats
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if py.RecordCount != df.RecordCount || len(py.Rows) != 3 {
		t.Errorf("records: PyIceberg %d (rows %d), ours %d", py.RecordCount, len(py.Rows), df.RecordCount)
	}
	if py.Rows[1]["name"] != nil || py.Rows[2]["name"] != "apple" {
		t.Errorf("pyarrow rows %v", py.Rows)
	}
	for _, f := range schema.Fields {
		if py.FieldIDs[f.Name] != f.ID {
			t.Errorf("pyarrow reads field id %d for %s, want %d", py.FieldIDs[f.Name], f.Name, f.ID)
		}
		key := strconv.Itoa(f.ID)
		counts := []struct {
			name string
			py   map[string]int64
			ours iceberg.ColumnCounts
		}{
			{"column size", py.ColumnSizes, df.ColumnSizes},
			{"value count", py.ValueCounts, df.ValueCounts},
			{"null count", py.NullValueCounts, df.NullValueCounts},
		}
		for _, c := range counts {
			got, ok := c.ours.Get(f.ID)
			want, pyOK := c.py[key]
			if ok != pyOK || got != want {
				t.Errorf("%s %s: ours %d (%v), PyIceberg %d (%v)", f.Name, c.name, got, ok, want, pyOK)
			}
		}
		bounds := []struct {
			name string
			py   map[string]string
			ours iceberg.ColumnBounds
		}{
			{"lower bound", py.LowerBounds, df.LowerBounds},
			{"upper bound", py.UpperBounds, df.UpperBounds},
		}
		for _, b := range bounds {
			got, _ := b.ours.Get(f.ID)
			if hex.EncodeToString(got) != b.py[key] {
				t.Errorf("%s %s: ours %x, PyIceberg %s", f.Name, b.name, got, b.py[key])
			}
		}
	}
	if len(py.SplitOffsets) != len(df.SplitOffsets) {
		t.Fatalf("split offsets: ours %v, PyIceberg %v", df.SplitOffsets, py.SplitOffsets)
	}
	for i := range py.SplitOffsets {
		if py.SplitOffsets[i] != df.SplitOffsets[i] {
			t.Errorf("split offsets: ours %v, PyIceberg %v", df.SplitOffsets, py.SplitOffsets)
		}
	}
}
