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

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
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

// TestJavaPartitionPaths compares PartitionPath with Iceberg Java's
// PartitionSpec.partitionToPath over every transform and the source types
// whose human strings differ.
func TestJavaPartitionPaths(t *testing.T) {
	jar := servers.Program(t, "JAVAREF_JAR", "test")
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "ts", Type: iceberg.TimestampType{}},
		iceberg.NestedField{ID: 2, Name: "tstz", Type: iceberg.TimestampTzType{}},
		iceberg.NestedField{ID: 3, Name: "d", Type: iceberg.DateType{}},
		iceberg.NestedField{ID: 4, Name: "s", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 5, Name: "dec", Type: iceberg.DecimalType{Precision: 12, Scale: 3}},
		iceberg.NestedField{ID: 6, Name: "b", Type: iceberg.BinaryType{}},
		iceberg.NestedField{ID: 7, Name: "u", Type: iceberg.UUIDType{}},
		iceberg.NestedField{ID: 8, Name: "t", Type: iceberg.TimeType{}},
		iceberg.NestedField{ID: 9, Name: "l", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 10, Name: "ok", Type: iceberg.BooleanType{}},
	)
	pf := func(src, id int, name string, tr iceberg.Transform) iceberg.PartitionField {
		return iceberg.PartitionField{SourceID: src, FieldID: id, Name: name, Transform: tr}
	}
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{
		pf(1, 1000, "ts", iceberg.IdentityTransform{}), pf(2, 1001, "tstz", iceberg.IdentityTransform{}),
		pf(1, 1002, "ts_year", iceberg.YearTransform{}), pf(1, 1003, "ts_month", iceberg.MonthTransform{}),
		pf(2, 1004, "tstz_day", iceberg.DayTransform{}), pf(2, 1005, "tstz_hour", iceberg.HourTransform{}),
		pf(3, 1006, "d", iceberg.IdentityTransform{}), pf(4, 1007, "s name", iceberg.IdentityTransform{}),
		pf(4, 1008, "s_trunc", iceberg.TruncateTransform{Width: 2}), pf(5, 1009, "dec", iceberg.IdentityTransform{}),
		pf(6, 1010, "b", iceberg.IdentityTransform{}), pf(7, 1011, "u", iceberg.IdentityTransform{}),
		pf(8, 1012, "t", iceberg.IdentityTransform{}), pf(9, 1013, "l_bucket", iceberg.BucketTransform{N: 16}),
		pf(10, 1014, "ok", iceberg.IdentityTransform{}),
	}}
	partType := spec.PartitionType(schema)
	u, _ := iceberg.ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	tuples := [][]any{
		{int64(1_512_123_175_038_194), int64(0), int32(47), int32(-1), int32(-3), int32(413_000), int32(-1), "a/b c+d?é", "a/",
			decimal128.FromI64(-1234), []byte{0xfb, 0xff, 0}, u, int64(3_600_000_001), int32(7), true},
		{int64(60_000_000), int64(-1), int32(-1), int32(600), nil, nil, int32(19_000), "", nil,
			decimal128.FromI64(5), []byte{}, nil, int64(0), nil, false},
		make([]any, len(spec.Fields)),
		{int64(1_500_000), int64(120_000), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, int64(0), nil, nil},
	}
	var tuplesJSON []json.RawMessage
	var ours []string
	for _, tup := range tuples {
		var vals []json.RawMessage
		for i, v := range tup {
			if v == nil {
				vals = append(vals, json.RawMessage("null"))
				continue
			}
			b, err := iceberg.FormatJSONValue(partType.Fields[i].Type, v)
			if err != nil {
				t.Fatalf("field %s: %v", spec.Fields[i].Name, err)
			}
			vals = append(vals, b)
		}
		b, _ := json.Marshal(vals)
		tuplesJSON = append(tuplesJSON, b)
		ours = append(ours, PartitionPath(spec, partType, tup))
	}
	schemaJSON, _ := json.Marshal(schema)
	specJSON, _ := json.Marshal(spec)
	all, _ := json.Marshal(tuplesJSON)
	cmd := exec.Command("java", "-jar", jar, "partitionpaths", "--schema", string(schemaJSON), "--spec", string(specJSON), "--tuples", string(all))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref partitionpaths: %v", err)
	}
	var java []string
	if err := json.Unmarshal(out, &java); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i := range ours {
		if i >= len(java) || java[i] != ours[i] {
			t.Errorf("tuple %d:\n ours %s\n Java %v", i, ours[i], java)
		}
	}
}
