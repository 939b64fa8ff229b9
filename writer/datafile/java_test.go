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

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/servers"
)

// javaRead is what `javaref datafileread` prints: Iceberg Java's reading
// of one data file.
type javaRead struct {
	RecordCount     int64             `json:"record_count"`
	ColumnSizes     map[string]int64  `json:"column_sizes"`
	ValueCounts     map[string]int64  `json:"value_counts"`
	NullValueCounts map[string]int64  `json:"null_value_counts"`
	LowerBounds     map[string]string `json:"lower_bounds"`
	UpperBounds     map[string]string `json:"upper_bounds"`
	SplitOffsets    []int64           `json:"split_offsets"`
	Rows            []map[string]any  `json:"rows"`
}

// TestJavaAgrees writes testSchema's rows (a struct, a list, a map, NaNs,
// long strings) and checks that Iceberg Java reads every row back by field
// id and computes, from our footer and its metrics config, the metrics we
// report, float bounds included (ours come from the data, NaN excluded,
// Java's here from the footer's statistics). NaN counts are Java's
// writer's, absent from a footer-only reading, and are checked in
// TestWriterRoundTrip instead.
func TestJavaAgrees(t *testing.T) {
	jar := servers.Program(t, "JAVAREF_JAR", "test")
	cases := []struct {
		name  string
		props map[string]string
	}{
		{"default metrics", nil},
		{"modes per column", map[string]string{PropMetricsDefault: "counts", PropMetricsColumn + "name": "truncate(5)", PropMetricsColumn + "loc.lat": "full", PropMetricsColumn + "id": "none"}},
		{"max inferred columns", map[string]string{PropMetricsMaxInferred: "3", PropRowGroupSize: "2000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fio := fileio.NewMem()
			w, err := New(context.Background(), fio, testSchema, iceberg.PartitionSpec{}, func(string) string { return "mem://t/f.parquet" },
				Options{Allocator: mem, Properties: c.props})
			if err != nil {
				t.Fatal(err)
			}
			rows := testRows(60)
			for i := 0; i < len(rows); i += 20 {
				b := buildBatch(t, mem, rows[i:i+20])
				if err := w.Write(context.Background(), b); err != nil {
					t.Fatal(err)
				}
				b.Release()
			}
			files, err := w.Close(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			df := files[0]
			data, err := fileio.ReadAll(context.Background(), fio, df.Path, 0)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "f.parquet")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			schemaJSON, _ := json.Marshal(testSchema)
			props := c.props
			if props == nil {
				props = map[string]string{}
			}
			propsJSON, _ := json.Marshal(props)
			cmd := exec.Command("java", "-jar", jar, "datafileread", "--file", path, "--schema", string(schemaJSON), "--props", string(propsJSON))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("javaref datafileread: %v", err)
			}
			var j javaRead
			if err := json.Unmarshal(out, &j); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if j.RecordCount != df.RecordCount || len(j.Rows) != len(rows) {
				t.Fatalf("records: Java %d (rows %d), ours %d", j.RecordCount, len(j.Rows), df.RecordCount)
			}
			for i, r := range rows {
				jr := j.Rows[i]
				if jr["id"] != float64(r.id) || (r.name == nil) != (jr["name"] == nil) || (r.name != nil && jr["name"] != *r.name) {
					t.Errorf("row %d: Java reads id %v name %v, wrote %d %v", i, jr["id"], jr["name"], r.id, r.name)
				}
				if tags, _ := jr["tags"].([]any); len(tags) != len(r.tags) {
					t.Errorf("row %d: Java reads tags %v, wrote %v", i, jr["tags"], r.tags)
				}
				if loc, ok := jr["loc"].(map[string]any); ok != r.loc || (ok && loc["lat"] != float64(r.lat)) {
					t.Errorf("row %d: Java reads loc %v, wrote %v %v", i, jr["loc"], r.loc, r.lat)
				}
			}
			if len(j.SplitOffsets) != len(df.SplitOffsets) {
				t.Errorf("split offsets: Java %v, ours %v", j.SplitOffsets, df.SplitOffsets)
			}
			for i := range j.SplitOffsets {
				if i < len(df.SplitOffsets) && j.SplitOffsets[i] != df.SplitOffsets[i] {
					t.Errorf("split offsets: Java %v, ours %v", j.SplitOffsets, df.SplitOffsets)
				}
			}
			compareCounts(t, "column_sizes", j.ColumnSizes, df.ColumnSizes)
			compareCounts(t, "value_counts", j.ValueCounts, df.ValueCounts)
			compareCounts(t, "null_value_counts", j.NullValueCounts, df.NullValueCounts)
			compareBounds(t, "lower_bounds", j.LowerBounds, df.LowerBounds)
			compareBounds(t, "upper_bounds", j.UpperBounds, df.UpperBounds)
		})
	}
}

func compareCounts(t *testing.T, name string, java map[string]int64, ours iceberg.ColumnCounts) {
	t.Helper()
	if len(java) != len(ours) {
		t.Errorf("%s: Java %v, ours %v", name, java, ours)
		return
	}
	for _, c := range ours {
		if v, ok := java[strconv.Itoa(c.ID)]; !ok || v != c.Count {
			t.Errorf("%s of %d: Java %d (%v), ours %d", name, c.ID, v, ok, c.Count)
		}
	}
}

func compareBounds(t *testing.T, name string, java map[string]string, ours iceberg.ColumnBounds) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range ours {
		key := strconv.Itoa(b.ID)
		seen[key] = true
		if java[key] != hex.EncodeToString(b.Value) {
			t.Errorf("%s of %d: Java %q, ours %x", name, b.ID, java[key], b.Value)
		}
	}
	for k := range java {
		if !seen[k] {
			t.Errorf("%s of %s: Java %s, ours none", name, k, java[k])
		}
	}
}

// TestJavaAgreesOnPrimitives checks the bounds of every primitive type
// (decimal, uuid, fixed, time and timestamp units among them) against the
// ones Iceberg Java computes from our footer.
func TestJavaAgreesOnPrimitives(t *testing.T) {
	jar := servers.Program(t, "JAVAREF_JAR", "test")
	df, fio := writeJSON(t, primitiveSchema, map[string]string{PropMetricsDefault: "truncate(2)"}, primitiveRows)
	data, _ := fileio.ReadAll(context.Background(), fio, df.Path, 0)
	path := filepath.Join(t.TempDir(), "p.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	schemaJSON, _ := json.Marshal(primitiveSchema)
	cmd := exec.Command("java", "-jar", jar, "datafileread", "--file", path, "--schema", string(schemaJSON),
		"--props", `{"write.metadata.metrics.default": "truncate(2)"}`)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref datafileread: %v", err)
	}
	var j javaRead
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(j.Rows) != 3 || j.Rows[0]["str"] != "héllo" || j.Rows[2]["long"] != float64(-1) {
		t.Errorf("Java reads %v", j.Rows)
	}
	compareCounts(t, "column_sizes", j.ColumnSizes, df.ColumnSizes)
	compareCounts(t, "value_counts", j.ValueCounts, df.ValueCounts)
	compareCounts(t, "null_value_counts", j.NullValueCounts, df.NullValueCounts)
	compareBounds(t, "lower_bounds", j.LowerBounds, df.LowerBounds)
	compareBounds(t, "upper_bounds", j.UpperBounds, df.UpperBounds)
}

// TestJavaReadsPositionDeletes checks a position delete file against Iceberg
// Java: its rows by the reserved field ids and the metrics Java's
// position delete config (full for both columns) computes.
func TestJavaReadsPositionDeletes(t *testing.T) {
	jar := servers.Program(t, "JAVAREF_JAR", "test")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fio := fileio.NewMem()
	long := "s3://bucket/warehouse/db/t/data/a-rather-long-data-file-name-00000.parquet"
	df, err := WritePositionDeletes(context.Background(), fio, "mem://t/d.parquet",
		[]PositionDelete{{long, 40}, {long, 3}, {long + "x", 0}}, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := fileio.ReadAll(context.Background(), fio, df.Path, 0)
	path := filepath.Join(t.TempDir(), "d.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	schemaJSON, _ := json.Marshal(PositionDeleteSchema)
	cmd := exec.Command("java", "-jar", jar, "datafileread", "--file", path, "--schema", string(schemaJSON),
		"--props", `{"write.metadata.metrics.default": "full"}`)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref datafileread: %v", err)
	}
	var j javaRead
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []struct {
		path string
		pos  float64
	}{{long, 3}, {long, 40}, {long + "x", 0}}
	if len(j.Rows) != len(want) {
		t.Fatalf("Java reads %d rows", len(j.Rows))
	}
	for i, w := range want {
		if j.Rows[i]["file_path"] != w.path || j.Rows[i]["pos"] != w.pos {
			t.Errorf("row %d: Java reads %v, want %v", i, j.Rows[i], w)
		}
	}
	compareCounts(t, "column_sizes", j.ColumnSizes, df.ColumnSizes)
	compareCounts(t, "value_counts", j.ValueCounts, df.ValueCounts)
	compareCounts(t, "null_value_counts", j.NullValueCounts, df.NullValueCounts)
	compareBounds(t, "lower_bounds", j.LowerBounds, df.LowerBounds)
	compareBounds(t, "upper_bounds", j.UpperBounds, df.UpperBounds)
}

// TestJavaReadsFilesWithoutUnknownColumns checks that Iceberg Java reads a
// file of a v3 schema with unknown columns, which the file does not store,
// as nulls beside the stored values.
func TestJavaReadsFilesWithoutUnknownColumns(t *testing.T) {
	jar := servers.Program(t, "JAVAREF_JAR", "test")
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 2, Name: "u", Type: iceberg.UnknownType{}},
		iceberg.NestedField{ID: 3, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 4, Name: "v", Type: iceberg.UnknownType{}},
			{ID: 5, Name: "x", Type: iceberg.StringType{}},
		}}},
	)
	df, fio := writeJSON(t, schema, nil, `[{"a": 1, "u": null, "st": {"v": null, "x": "p"}}, {"a": 2, "u": null, "st": null}]`)
	data, _ := fileio.ReadAll(context.Background(), fio, df.Path, 0)
	path := filepath.Join(t.TempDir(), "u.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	schemaJSON, _ := json.Marshal(schema)
	cmd := exec.Command("java", "-jar", jar, "datafileread", "--file", path, "--schema", string(schemaJSON), "--props", "{}")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref datafileread: %v", err)
	}
	var j javaRead
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rows, _ := json.Marshal(j.Rows)
	if want := `[{"a":1,"st":{"v":null,"x":"p"},"u":null},{"a":2,"st":null,"u":null}]`; string(rows) != want {
		t.Errorf("Java reads %s, want %s", rows, want)
	}
	compareCounts(t, "value_counts", j.ValueCounts, df.ValueCounts)
	compareBounds(t, "lower_bounds", j.LowerBounds, df.LowerBounds)
}
