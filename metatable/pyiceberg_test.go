package metatable

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// pyAnswer is one metadata table as PyIceberg's inspect read it.
type pyAnswer struct {
	Kind  string            `json:"kind"`
	Rows  []json.RawMessage `json:"rows"`
	Error string            `json:"error"`
}

// askPyIceberg runs testdata/pyinspect.py on a metadata file, or skips
// the test when PYICEBERG_PYTHON does not name PyIceberg's Python.
func askPyIceberg(t *testing.T, metadataFile string, kinds []string) []pyAnswer {
	t.Helper()
	python := os.Getenv("PYICEBERG_PYTHON")
	if python == "" {
		t.Skip("PYICEBERG_PYTHON is not set: skipping the comparison with PyIceberg")
	}
	if _, err := os.Stat(python); err != nil {
		t.Skipf("PYICEBERG_PYTHON %s: %v: skipping the comparison with PyIceberg", python, err)
	}
	cmd := exec.Command(python, append([]string{filepath.Join("testdata", "pyinspect.py"), metadataFile}, kinds...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyinspect.py %s: %v\n%s", metadataFile, err, stderr.String())
	}
	var answers []pyAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var a pyAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(kinds) {
		t.Fatalf("pyinspect.py answered %d tables of %d", len(answers), len(kinds))
	}
	return answers
}

// PyIceberg's inspect tables have other schemas than Java's (fewer data
// file columns, readable_metrics of every top-level column, timestamps
// without a zone), so rows are compared on what both have: the columns,
// and the fields of structs, of the same name on both sides. What only one
// side has is reported.
func TestPyIcebergInspectMatches(t *testing.T) {
	type table struct{ name, dir, metadataFile string }
	var tables []table
	for _, v := range []int{2, 3} {
		dir, mf := writeTable(t, t.TempDir(), v)
		tables = append(tables, table{fmt.Sprintf("written_v%d", v), dir, mf})
	}
	// Sample tables whose recorded location is on this machine: PyIceberg
	// opens the paths the metadata records.
	for _, name := range []string{"samples.events_by_day", "samples.eq_deletes_evolved", "samples.truncated", "samples.dv_many_files"} {
		dir, _ := filepath.Abs(filepath.Join("..", "testdata", "warehouse", strings.ReplaceAll(name, ".", "/")))
		tb := localTable(t, name, dir, filepath.Join(dir, oracleMetadataFile(t, filepath.Join("..", "testdata", "expected"), name)))
		if _, err := os.Stat(strings.TrimPrefix(tb.Metadata.Location, "file:")); err == nil {
			tables = append(tables, table{name, dir, tb.MetadataLocation})
		}
	}
	kinds := make([]string, 0, len(Kinds()))
	for _, k := range Kinds() {
		kinds = append(kinds, k.String())
	}
	equal, compared := 0, 0
	onlyOurs, onlyTheirs := map[string]bool{}, map[string]bool{}
	var missing, pyFails []string
	applied := map[string]int{}
	for _, tab := range tables {
		tb := localTable(t, tab.name, tab.dir, tab.metadataFile)
		answers := askPyIceberg(t, tab.metadataFile, kinds)
		for i, k := range Kinds() {
			a := answers[i]
			if a.Error != "" {
				if strings.HasPrefix(a.Error, "AttributeError") {
					missing = append(missing, k.String())
				} else {
					// PyIceberg's own failures are reported, not ours.
					pyFails = append(pyFails, fmt.Sprintf("%s.%s (%s)", tab.name, k, a.Error))
				}
				continue
			}
			got := readAll(t, tb, Request{Kind: k})
			if got.err != nil {
				t.Errorf("%s.%s: %v", tab.name, k, got.err)
				continue
			}
			compared++
			ours, theirs, err := commonRows(got.rows, a.Rows, k.String(), onlyOurs, onlyTheirs, applied)
			if err != nil {
				t.Fatalf("%s.%s: %v", tab.name, k, err)
			}
			if d := testutil.DiffRows(ours, theirs); d != "" {
				t.Errorf("%s.%s: rows differ from PyIceberg's on their common columns: %s", tab.name, k, d)
				continue
			}
			equal++
		}
	}
	slices.Sort(missing)
	var quirks []string
	for _, q := range pyQuirks {
		if n := applied[q.why]; n > 0 {
			quirks = append(quirks, fmt.Sprintf("%s (%d values)", q.why, n))
			applied[q.why] = 0
		}
	}
	fmt.Printf("pyiceberg inspect: %d tables, %d/%d kind×table equal on common columns; PyIceberg has no %s; PyIceberg fails on %s; PyIceberg's quirks: %s; only iceflight (and Java) have %s; only PyIceberg has %s\n",
		len(tables), equal, compared, strings.Join(slices.Compact(missing), ", "), orNothing(pyFails), orNothing(quirks), keys(onlyOurs), keys(onlyTheirs))
}

// pyQuirk is a way PyIceberg 0.12 shows a value otherwise than Iceberg
// Java (and iceflight): at path (dotted, "[]" for every element of a
// list) of the tables of kinds, same maps both forms to one.
type pyQuirk struct {
	kinds []string
	path  string
	why   string
	same  func(v any) (any, bool)
}

// nullAsEmpty maps an empty list to null.
func nullAsEmpty(v any) (any, bool) {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil, true
	}
	return v, false
}

// emptyAsNull maps "" to null.
func emptyAsNull(v any) (any, bool) {
	if v == "" {
		return nil, true
	}
	return v, false
}

var pyQuirks = func() []pyQuirk {
	var qs []pyQuirk
	for _, m := range []string{"column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds"} {
		qs = append(qs, pyQuirk{kinds: []string{"entries"}, path: "data_file." + m,
			why: "entries shows a data file's absent metrics as an empty map", same: nullAsEmpty})
	}
	for _, b := range []string{"lower_bound", "upper_bound"} {
		qs = append(qs, pyQuirk{kinds: []string{"manifests", "all_manifests"}, path: "partition_summaries[]." + b,
			why: "manifests shows an empty string bound as null", same: emptyAsNull})
	}
	return qs
}()

// applyQuirks rewrites the values of a row that PyIceberg's quirks of kind
// reach, counting the values each changed.
func applyQuirks(row any, kind string, applied map[string]int) {
	for _, q := range pyQuirks {
		if slices.Contains(q.kinds, kind) {
			rewrite(row, strings.Split(q.path, "."), func(v any) any {
				out, changed := q.same(v)
				if changed {
					applied[q.why]++
				}
				return out
			})
		}
	}
}

// rewrite replaces the value at path below v by f of it.
func rewrite(v any, path []string, f func(any) any) {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return
	}
	name, each := strings.CutSuffix(path[0], "[]")
	x, found := m[name]
	switch {
	case !found:
	case each:
		if l, ok := x.([]any); ok {
			for _, e := range l {
				rewrite(e, path[1:], f)
			}
		}
	case len(path) == 1:
		m[name] = f(x)
	default:
		rewrite(x, path[1:], f)
	}
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// commonRows returns both sides' rows restricted to what both have, in
// one canonical JSON form with PyIceberg's quirks undone, and notes under
// kind what one side has alone.
func commonRows(ours []string, theirs []json.RawMessage, kind string, onlyOurs, onlyTheirs map[string]bool, applied map[string]int) ([]string, []string, error) {
	parse := func(b []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		return v, d.Decode(&v)
	}
	var o, p []any
	for _, r := range ours {
		v, err := parse([]byte(r))
		if err != nil {
			return nil, nil, err
		}
		o = append(o, v)
	}
	for _, r := range theirs {
		v, err := parse(r)
		if err != nil {
			return nil, nil, err
		}
		p = append(p, v)
	}
	// The fields to keep are those both sides have in any row.
	shape := func(rows []any) map[string]bool {
		out := map[string]bool{}
		for _, r := range rows {
			collectPaths(r, kind, out)
		}
		return out
	}
	so, sp := shape(o), shape(p)
	for path := range so {
		if !sp[path] && len(p) > 0 {
			onlyOurs[path] = true
		}
	}
	for path := range sp {
		if !so[path] && len(o) > 0 {
			onlyTheirs[path] = true
		}
	}
	render := func(rows []any) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			r = restrict(r, kind, so, sp)
			applyQuirks(r, kind, applied)
			b, _ := json.Marshal(normalize(r))
			out[i] = string(b)
		}
		return out
	}
	return render(o), render(p), nil
}

// collectPaths notes the dotted paths of an object's fields, below prefix.
func collectPaths(v any, prefix string, out map[string]bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, x := range m {
		out[prefix+"."+k] = true
		collectPaths(x, prefix+"."+k, out)
	}
}

// restrict keeps of an object the fields both sides have.
func restrict(v any, prefix string, a, b map[string]bool) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if p := prefix + "." + k; a[p] && b[p] {
			out[k] = restrict(x, p, a, b)
		}
	}
	return out
}

// normalize makes equal values equal text: numbers as Go formats a float
// or an integer, maps (lists of key/value records) sorted.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		if f == float64(int64(f)) && strings.ContainsAny(string(v), ".eE") {
			return int64(f)
		}
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case []any:
		records := true
		for i, x := range v {
			v[i] = normalize(x)
			m, ok := v[i].(map[string]any)
			records = records && ok && len(m) == 2 && m["key"] != nil
		}
		if records {
			slices.SortFunc(v, func(a, b any) int {
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				return bytes.Compare(ja, jb)
			})
		}
		return v
	}
	return v
}

// keys lists the paths of m ("files.readable_metrics.x") without their
// tables, once each, and not below a path it lists.
func keys(m map[string]bool) string {
	paths := map[string]bool{}
	for k := range m {
		_, p, _ := strings.Cut(k, ".")
		paths[p] = true
	}
	var out []string
	for p := range paths {
		parent := false
		for q := range paths {
			parent = parent || strings.HasPrefix(p, q+".")
		}
		if !parent {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return orNothing(out)
}
