package reader

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// corpusDir holds real tables written by other engines (see its README).
const corpusDir = "../../shared/conformance"

// corpusTable returns a table's folder and latest metadata, skipping the
// test when the corpus is absent.
func corpusTable(t *testing.T, name string) (string, *iceberg.TableMetadata) {
	t.Helper()
	dir := filepath.Join(corpusDir, "tables", name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", dir, err)
	}
	latest := latestMetadata(t, name)
	raw, err := os.ReadFile(filepath.Join(dir, "metadata", latest))
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatalf("parse %s: %v", latest, err)
	}
	return dir, md
}

// latestMetadata reads the "latest metadata" column of INDEX.md.
func latestMetadata(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "INDEX.md"))
	if err != nil {
		t.Skipf("corpus index not found: %v", err)
	}
	defer f.Close()
	col := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if col < 0 {
			for i, c := range cells {
				if c == "latest metadata" {
					col = i
				}
			}
			continue
		}
		if len(cells) > col && cells[1] == name {
			return cells[col]
		}
	}
	t.Fatalf("table %s not in INDEX.md", name)
	return ""
}

// corpusDataFiles lists a table's Parquet data files: every file outside
// metadata/ that starts with the Parquet magic.
func corpusDataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "metadata" {
				return filepath.SkipDir
			}
			return nil
		}
		head := make([]byte, 4)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		_, _ = f.Read(head)
		f.Close()
		if bytes.Equal(head, []byte("PAR1")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// readCorpus reads every data file of a table with its current schema and
// name mapping, projected to columns (all when nil).
func readCorpus(t *testing.T, name string, columns []string, constants func(*iceberg.Schema) []*scantask.PartitionConstant) (*iceberg.Schema, []map[string]any) {
	t.Helper()
	dir, md := corpusTable(t, name)
	schema := md.CurrentSchema()
	if columns != nil {
		var err error
		if schema, err = schema.Select(true, columns...); err != nil {
			t.Fatal(err)
		}
	}
	mapping, err := md.NameMapping()
	if err != nil {
		t.Fatal(err)
	}
	mem := checkedAlloc(t)
	r := New(dirIO{}, WithAllocator(mem), WithBatchSize(1000), WithValidation(true))
	var rows []map[string]any
	files := corpusDataFiles(t, dir)
	if len(files) == 0 {
		t.Fatalf("no data files under %s", dir)
	}
	for _, f := range files {
		task := parquetTask(f)
		if constants != nil {
			task.Constants = constants(schema)
		}
		res := readAll(t, r, Scan{Schema: schema, NameMapping: mapping}, task)
		if res.err != nil {
			t.Fatalf("read %s: %v", f, res.err)
		}
		rows = append(rows, res.rows...)
	}
	return schema, rows
}

func TestCorpusAirports(t *testing.T) {
	t.Parallel()
	// Impala's writer, no field ids and no name mapping: ids by position.
	_, rows := readCorpus(t, "apache-impala__airports_parquet", nil, nil)
	if len(rows) != 3376 { // SELECT count(*) FROM airports_parquet
		t.Fatalf("rows = %d, want 3376", len(rows))
	}
	byIATA := make(map[string]map[string]any)
	nonUSA := 0
	for _, r := range rows {
		byIATA[r["iata"].(string)] = r
		if r["country"] != "USA" {
			nonUSA++
		}
	}
	if nonUSA != 4 { // country != 'USA': ROP, ROR, SPN, YAP
		t.Errorf("non-USA airports = %d, want 4", nonUSA)
	}
	checks := []struct {
		iata, col string
		want      any
	}{
		{"00R", "lat", 30.68586111},
		{"00M", "lat", 31.95376472},
		{"00M", "lon", -89.2345047},
		{"00R", "city", "Livingston"},
		{"00R", "airport", "Livingston Municipal"},
		{"ROP", "airport", "Prachinburi"},
		{"ROP", "state", nil},
		{"YAP", "country", "Federated States of Micronesia"},
	}
	for _, c := range checks {
		got := byIATA[c.iata][c.col]
		// Impala prints doubles to 10 significant digits.
		if f, ok := c.want.(float64); ok {
			if g, _ := got.(float64); math.Abs(g-f) < 1e-7 {
				continue
			}
		}
		if got != c.want {
			t.Errorf("%s.%s = %v, want %v", c.iata, c.col, got, c.want)
		}
	}
}

func TestCorpusAllTypesPartitioned(t *testing.T) {
	t.Parallel()
	// The data file holds only "i"; the partition columns come from the
	// task's identity-partition constants (here from the file's Hive path
	// p_bool=true/p_int=1/p_bigint=11/p_float=1.1/p_double=2.222/
	// p_decimal=123.321/p_date=2022-02-22/p_string=impala).
	values := map[string]any{
		"p_bool": true, "p_int": int32(1), "p_bigint": int64(11), "p_float": float32(1.1), "p_double": 2.222,
		"p_decimal": decimal128.FromI64(123321), "p_date": int32(19045), "p_string": "impala",
	}
	constants := func(s *iceberg.Schema) []*scantask.PartitionConstant {
		var out []*scantask.PartitionConstant
		for _, f := range s.Fields {
			if v, ok := values[f.Name]; ok {
				out = append(out, &scantask.PartitionConstant{FieldID: int32(f.ID), Value: encode(t, f.Type, v)})
			}
		}
		return out
	}
	_, rows := readCorpus(t, "apache-impala__iceberg_alltypes_part", nil, constants)
	// select * from iceberg_alltypes_part:
	// 1,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,'impala'
	// 2,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,'impala'
	if len(rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(rows))
	}
	for i, r := range rows {
		want := map[string]any{"i": float64(i + 1), "p_bool": true, "p_int": 1.0, "p_bigint": 11.0, "p_double": 2.222,
			"p_decimal": "123.321", "p_date": "2022-02-22", "p_string": "impala"}
		for k, v := range want {
			if r[k] != v {
				t.Errorf("row %d %s = %v (%T), want %v", i, k, r[k], r[k], v)
			}
		}
		if f, _ := r["p_float"].(float64); math.Abs(f-1.100000023841858) > 1e-6 {
			t.Errorf("row %d p_float = %v", i, r["p_float"])
		}
	}
}

func TestCorpusMigratedComplex(t *testing.T) {
	t.Parallel()
	// Hive-written file without field ids; the table's name mapping does not
	// fit its schema, and the list elements are called "array_element".
	_, rows := readCorpus(t, "apache-impala__iceberg_migrated_complex_test", nil, nil)
	if len(rows) != 1 {
		t.Fatalf("rows = %d, want 1", len(rows))
	}
	r := rows[0]
	get := func(path ...string) any {
		var v any = r
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		}
		return v
	}
	// Impala's expected results (iceberg-migrated-table-field-id-resolution.test).
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"struct_1_col", "string_col"}, `"A"`},
		{[]string{"struct_2_col", "struct_3_col", "float_col"}, `0.5`},
		{[]string{"struct_1_col", "int_array_col"}, `[0]`},
		{[]string{"struct_2_col", "struct_3_col", "bigint_array_col"}, `[4]`},
		{[]string{"struct_1_col", "bool_int_map_col"}, `[{"key":true,"value":1}]`},
		{[]string{"int_bigint_map_col"}, `[{"key":2,"value":3}]`},
		{[]string{"struct_2_col", "struct_3_col", "string_double_map_col"}, `[{"key":"B","value":1.5}]`},
		{[]string{"struct_2_col", "int_int_map_col"}, `[{"key":5,"value":6}]`},
	}
	for _, c := range checks {
		if got := toJSON(t, get(c.path...)); got != c.want {
			t.Errorf("%s = %s, want %s", strings.Join(c.path, "."), got, c.want)
		}
	}
}

func TestCorpusDefaults(t *testing.T) {
	t.Parallel()
	t.Run("initial-default of a column added later", func(t *testing.T) {
		t.Parallel()
		_, rows := readCorpus(t, "apache-impala__iceberg_v3_default_value", nil, nil)
		// SELECT * FROM iceberg_v3_default_value ORDER BY i: 1,-1 and 2,2
		got := make(map[float64]any)
		for _, r := range rows {
			got[r["i"].(float64)] = r["j"]
		}
		if len(rows) != 2 || got[1] != -1.0 || got[2] != 2.0 {
			t.Errorf("rows %v, want i=1 j=-1 and i=2 j=2", rows)
		}
	})
	t.Run("struct added later without a default is null", func(t *testing.T) {
		t.Parallel()
		_, rows := readCorpus(t, "apache-impala__test_complex_default", []string{"i", "j"}, nil)
		// SELECT j.f2 FROM test_complex_default: 'hello' and NULL
		var f2 []any
		for _, r := range rows {
			j, _ := r["j"].(map[string]any)
			f2 = append(f2, j["f2"])
		}
		sort.Slice(f2, func(a, b int) bool { return f2[a] != nil && f2[b] == nil })
		if len(f2) != 2 || f2[0] != "hello" || f2[1] != nil {
			t.Errorf("j.f2 = %v, want hello and null", f2)
		}
	})
}

func TestCorpusVariant(t *testing.T) {
	t.Parallel()
	_, rows := readCorpus(t, "apache-impala__trino_variant", nil, nil)
	if len(rows) != 55 { // SELECT count(*) FROM trino_variant
		t.Fatalf("rows = %d, want 55", len(rows))
	}
	// SELECT id, v ... WHERE id < 4: NULL, null, true, false. In the
	// variant encoding a primitive's header byte is its type id << 2:
	// null 0, true 1, false 2.
	want := map[float64]string{0: "SQL NULL", 1: "\x00", 2: "\x04", 3: "\x08"}
	for _, r := range rows {
		w, ok := want[r["id"].(float64)]
		if !ok {
			continue
		}
		v, _ := r["v"].(map[string]any)
		if w == "SQL NULL" {
			if v != nil {
				t.Errorf("id %v: v = %v, want null", r["id"], v)
			}
			continue
		}
		got, err := base64.StdEncoding.DecodeString(fmt.Sprint(v["value"]))
		if err != nil || string(got) != w {
			t.Errorf("id %v: variant value %q, want %q", r["id"], got, w)
		}
		if v["metadata"] == nil {
			t.Errorf("id %v: variant without metadata", r["id"])
		}
	}
}

func TestCorpusTimestamps(t *testing.T) {
	t.Parallel()
	dir, md := corpusTable(t, "apache-impala__iceberg_timestamp_part")
	schema, err := md.CurrentSchema().Select(true, "i", "ts")
	if err != nil {
		t.Fatal(err)
	}
	// SET TIMEZONE='UTC'; SELECT * FROM iceberg_timestamp_part order by i;
	want := map[int32]string{
		-2: "1969-01-01 01:00:00", -1: "1969-01-01 01:15:00", 1: "2021-10-31 02:15:00",
		2: "2021-01-10 12:00:00", 3: "2022-04-11 00:04:00", 4: "2022-04-11 12:04:55",
	}
	mem := checkedAlloc(t)
	r := New(dirIO{}, WithAllocator(mem), WithValidation(true))
	got := make(map[int32]string)
	for _, f := range corpusDataFiles(t, dir) {
		err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask(f), func(rec arrow.RecordBatch) error {
			ids, ts := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Timestamp)
			for i := 0; i < ids.Len(); i++ {
				got[ids.Value(i)] = time.UnixMicro(int64(ts.Value(i))).UTC().Format(time.DateTime)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("timestamps %v, want %v", got, want)
	}
}
