package metatable

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// javaQuery is one query of javaref's metatables command.
type javaQuery struct {
	TableDir     string          `json:"table_dir"`
	MetadataFile string          `json:"metadata_file"`
	Kind         string          `json:"kind"`
	SnapshotID   *int64          `json:"snapshot_id,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
	Columns      []string        `json:"columns,omitempty"`
}

// javaAnswer is what Iceberg Java read for a query.
type javaAnswer struct {
	Schema     *iceberg.Schema   `json:"schema"`
	Projected  *iceberg.Schema   `json:"projected"`
	SnapshotID *int64            `json:"snapshot_id"`
	Tasks      int               `json:"tasks"`
	Rows       []json.RawMessage `json:"rows"`
	Error      string            `json:"error"`
}

// askJava runs javaref's metatables on the queries, once for them all, or
// skips the test when JAVAREF_JAR does not name the jar.
func askJava(t *testing.T, queries []javaQuery) []javaAnswer {
	t.Helper()
	jar := os.Getenv("JAVAREF_JAR")
	if jar == "" {
		t.Skip("JAVAREF_JAR is not set: skipping the comparison with Iceberg Java")
	}
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("JAVAREF_JAR %s: %v: skipping the comparison with Iceberg Java", jar, err)
	}
	b, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "queries.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", "-jar", jar, "metatables", "--queries", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && strings.Contains(stderr.String(), "usage:") && !strings.Contains(stderr.String(), "metatables") {
		t.Skipf("JAVAREF_JAR %s predates javaref metatables (rebuild it: make javaref): skipping the comparison with Iceberg Java", jar)
	}
	if err != nil {
		t.Fatalf("javaref metatables: %v\n%s", err, stderr.String())
	}
	var answers []javaAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var a javaAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("javaref metatables answer %d: %v", len(answers), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(queries) {
		t.Fatalf("javaref answered %d queries of %d\n%s", len(answers), len(queries), stderr.String())
	}
	return answers
}

// localTable opens a table folder's metadata file as Iceberg Java's
// oracle does: its recorded location, and sibling data roots copied to
// _siblings/, mapped onto the folder.
func localTable(t *testing.T, name, dir, metadataFile string) Table {
	t.Helper()
	raw, err := os.ReadFile(metadataFile)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatalf("%s: %v", metadataFile, err)
	}
	rules := []fileio.Rule{{From: md.Location, To: dir}}
	if entries, err := os.ReadDir(filepath.Join(dir, "_siblings")); err == nil {
		parent := md.Location[:strings.LastIndexByte(strings.TrimRight(md.Location, "/"), '/')]
		for _, e := range entries {
			rules = append(rules, fileio.Rule{From: parent + "/" + e.Name(), To: filepath.Join(dir, "_siblings", e.Name())})
		}
	}
	return Table{Name: name, MetadataLocation: metadataFile, Metadata: md, IO: fileio.Remap(fileio.NewLocal(), rules...).WithBase(dir)}
}

// goRead is what our side read for a request.
type goRead struct {
	schema    *iceberg.Schema
	rows      []string
	manifests int // manifests in the units, after pruning
	err       error
}

// readAll plans a request and reads every unit with a checked allocator
// and small batches, rendering the rows in the oracle's canonical form.
func readAll(t *testing.T, tb Table, req Request, opts ...Option) goRead {
	t.Helper()
	ctx := context.Background()
	scan, err := Plan(ctx, tb, req, opts...)
	if err != nil {
		return goRead{err: err}
	}
	out := goRead{schema: scan.Schema, rows: []string{}}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, u := range scan.Units {
		out.manifests += len(u.Manifests)
		// A unit goes through JSON, as a ticket carries it.
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var back Unit
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		err = Read(ctx, tb, back, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			rows, err := testutil.ArrowRows(scan.Schema, rec)
			out.rows = append(out.rows, rows...)
			return err
		}, append([]Option{WithAllocator(mem), WithBatchRows(97)}, opts...)...)
		if err != nil {
			return goRead{err: err}
		}
	}
	return out
}

// javaRows renders Java's rows of an answer in the canonical form.
func javaRows(a javaAnswer) ([]string, error) {
	rows := make([]string, 0, len(a.Rows))
	for _, r := range a.Rows {
		s, err := testutil.OracleRow(a.Projected, r)
		if err != nil {
			return nil, err
		}
		rows = append(rows, s)
	}
	return rows, nil
}

// schemaDiff describes how two schemas differ in field ids, names, types,
// required-ness or docs; "" when they do not.
func schemaDiff(got, want *iceberg.Schema) string {
	gs, _ := iceberg.MarshalTypeJSON(got.AsStruct())
	ws, _ := iceberg.MarshalTypeJSON(want.AsStruct())
	if bytes.Equal(gs, ws) {
		return ""
	}
	return "got  " + string(gs) + "\nwant " + string(ws)
}

// filterJSON is a filter in the REST form Java's ExpressionParser reads,
// bound to schema.
func filterJSON(t *testing.T, schema *iceberg.Schema, filter string) json.RawMessage {
	t.Helper()
	e, err := expr.Parse(filter)
	if err != nil {
		t.Fatalf("filter %q: %v", filter, err)
	}
	bound, err := expr.Bind(e, schema, true)
	if err != nil {
		t.Fatalf("filter %q: %v", filter, err)
	}
	b, err := json.Marshal(bound)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
