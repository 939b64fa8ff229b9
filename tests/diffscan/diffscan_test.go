package diffscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// loadSamples reads the sample warehouse's tables once for every test.
var loadSamples = sync.OnceValues(func() ([]*Table, error) {
	return LoadTables(filepath.Join("..", "..", "testdata", "warehouse"), filepath.Join("..", "..", "testdata", "expected"))
})

func sampleTables(t *testing.T) []*Table {
	t.Helper()
	tables, err := loadSamples()
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("no tables in the sample warehouse")
	}
	return tables
}

func TestGenerateIsDeterministicForASeed(t *testing.T) {
	t.Parallel()
	tables := sampleTables(t)
	a, b := Generate(tables, 7, 200), Generate(tables, 7, 200)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations from seed 7 differ")
	}
	if reflect.DeepEqual(a, Generate(tables, 8, 200)) {
		t.Fatal("seeds 7 and 8 generate the same scans")
	}
	if !reflect.DeepEqual(a[:50], Generate(tables, 7, 50)) {
		t.Fatal("scan i depends on how many scans are generated")
	}
}

// Every operator of the grammar, every way of choosing a snapshot and every
// knob appears in a seed-sized run.
func TestGenerateCoversTheGrammar(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range Generate(sampleTables(t), 1, 800) {
		var f any
		if len(s.Filter) > 0 {
			if err := json.Unmarshal(s.Filter, &f); err != nil {
				t.Fatalf("%s: filter %s: %v", s.Name, s.Filter, err)
			}
		}
		walkOps(f, seen)
		seen["snapshot_id"] = seen["snapshot_id"] || s.SnapshotID != nil
		seen["ref"] = seen["ref"] || s.Ref != ""
		seen["as_of"] = seen["as_of"] || s.AsOfTimestampMs != nil
		seen["limit"] = seen["limit"] || s.Limit != nil
		seen["max_endpoints"] = seen["max_endpoints"] || s.MaxEndpoints != 0
		seen["target_split_bytes"] = seen["target_split_bytes"] || s.TargetSplitBytes != 0
		seen["batch_rows"] = seen["batch_rows"] || s.BatchRows != 0
		seen["string syntax"] = seen["string syntax"] || s.FilterText != ""
		seen["no columns"] = seen["no columns"] || (s.Columns != nil && len(s.Columns) == 0)
		for _, c := range s.Columns {
			seen["column "+strings.TrimLeft(c[:1], "abcdefghijklmnopqrstuvwxyz")] = true
			seen["nested"] = seen["nested"] || strings.Contains(c, ".")
		}
	}
	for _, want := range []string{"eq", "not-eq", "lt", "lt-eq", "gt", "gt-eq", "in", "not-in",
		"is-null", "not-null", "is-nan", "not-nan", "starts-with", "not-starts-with", "and", "or", "not",
		"snapshot_id", "ref", "as_of", "limit", "max_endpoints", "target_split_bytes", "batch_rows",
		"no columns", "nested", "column _", "string syntax"} {
		if !seen[want] {
			t.Errorf("800 scans of the sample warehouse never use %s", want)
		}
	}
}

func walkOps(f any, seen map[string]bool) {
	m, ok := f.(map[string]any)
	if !ok {
		return
	}
	seen[m["type"].(string)] = true
	for _, k := range []string{"left", "right", "child"} {
		walkOps(m[k], seen)
	}
}

func TestOrderingOnNullOrNaNColumnsIsGuarded(t *testing.T) {
	t.Parallel()
	v := &View{
		Leaves: []Leaf{{Path: "x", Type: iceberg.DoubleType{}, Nullable: true}},
		Values: map[string][]json.RawMessage{"x": {json.RawMessage("1.5"), json.RawMessage(`"NaN"`)}},
	}
	orderings := 0
	for i := range 500 {
		g := &gen{r: rand.New(rand.NewPCG(1, uint64(i)))}
		p := g.predicate(v).(map[string]any)
		if lit, ok := p["value"].(json.RawMessage); ok && (string(lit) == "null" || string(lit) == `"NaN"`) {
			continue // a literal every reader must refuse: no guard needed
		}
		if p["type"] != "and" {
			if slices.Contains(ordering, p["type"].(string)) {
				t.Fatalf("unguarded %v", p)
			}
			continue
		}
		orderings++
		nan := p["right"].(map[string]any)
		cmp := nan["right"].(map[string]any)
		if p["left"].(map[string]any)["type"] != "not-null" || nan["left"].(map[string]any)["type"] != "not-nan" || !slices.Contains(ordering, cmp["type"].(string)) {
			t.Fatalf("%v is not and(not-null x, and(not-nan x, comparison))", p)
		}
	}
	if orderings == 0 {
		t.Fatal("500 predicates on a double column and no ordering comparison")
	}
}

func TestSingleValueFromRowJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		typ  iceberg.Type
		row  string
		want string
	}{
		{"a date is days in rows, ISO in literals", iceberg.DateType{}, "-1", `"1969-12-31"`},
		{"a time is micros in rows", iceberg.TimeType{}, "3600000000", `"01:00:00.000000"`},
		{"a double without a fraction gets one", iceberg.DoubleType{}, "10", "10.0"},
		{"a double keeps its exponent", iceberg.DoubleType{}, "1.0E300", "1.0E300"},
		{"NaN is no comparison literal", iceberg.DoubleType{}, `"NaN"`, ""},
		{"infinity is no comparison literal", iceberg.FloatType{}, `"-Infinity"`, ""},
		{"a string is itself", iceberg.StringType{}, `"a\"b"`, `"a\"b"`},
		{"a decimal is itself", iceberg.DecimalType{Precision: 9, Scale: 2}, `"1.50"`, `"1.50"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := string(singleValue(tc.typ, json.RawMessage(tc.row))); got != tc.want {
				t.Errorf("singleValue(%v, %s) = %s, want %s", tc.typ, tc.row, got, tc.want)
			}
		})
	}
}

func TestOutsideStaysInTheTypesRange(t *testing.T) {
	t.Parallel()
	max9999 := []json.RawMessage{json.RawMessage("2932896")} // 9999-12-31
	if got := outside(iceberg.DateType{}, max9999, false); got != nil {
		t.Errorf("a date after 9999-12-31: %s, want none", got)
	}
	if got := string(outside(iceberg.DateType{}, max9999, true)); got != `"9999-12-30"` {
		t.Errorf("below 9999-12-31: %s", got)
	}
	if got := outside(iceberg.IntType{}, []json.RawMessage{json.RawMessage("2147483647")}, false); got != nil {
		t.Errorf("an int above MaxInt32: %s, want none", got)
	}
}

func TestSeedFilesAreByteStable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	limit := int64(3)
	cases := []Case{
		{Scan: Scan{Name: "a", Table: "t", Columns: []string{}, Limit: &limit}, Oracle: Answer{Schema: json.RawMessage(`{"type":"struct","fields":[]}`), Rows: []json.RawMessage{json.RawMessage(`{}`)}}},
		{Scan: Scan{Name: "b", Table: "t", Ref: "main"}, Oracle: Answer{Error: "java.lang.IllegalArgumentException: x"}},
	}
	p1, p2 := filepath.Join(dir, "1.jsonl.gz"), filepath.Join(dir, "2.jsonl.gz")
	if err := WriteSeeds(p1, cases); err != nil {
		t.Fatal(err)
	}
	if err := WriteSeeds(p2, cases); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("the same cases gave different bytes")
	}
	got, err := ReadSeeds(p1)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Scan.Columns == nil || len(got[0].Scan.Columns) != 0 {
		t.Errorf("columns [] read back as %#v: no columns must stay apart from all columns", got[0].Scan.Columns)
	}
	if got[1].Scan.Columns != nil {
		t.Errorf("absent columns read back as %#v", got[1].Scan.Columns)
	}
	if !reflect.DeepEqual(got[1], cases[1]) {
		t.Errorf("read back %+v, want %+v", got[1], cases[1])
	}
}

func TestRegressionsReadBackByName(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "regressions", "warehouse")
	if got, err := ReadRegressions(dir); err != nil || got != nil {
		t.Fatalf("a missing folder: %v, %v; want no cases and no error", got, err)
	}
	for _, name := range []string{"s9-00002", "s9-00001"} {
		c := Case{Scan: Scan{Name: name, Table: "samples.trips", FilterText: "id > 1"}, Oracle: Answer{Rows: []json.RawMessage{}}}
		if err := WriteRegression(dir, &c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadRegressions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Scan.Name != "s9-00001" || got[1].Scan.FilterText != "id > 1" {
		t.Fatalf("read back %+v", got)
	}
}
