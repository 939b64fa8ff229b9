// Package metacheck asks Iceberg Java (javaref's metatables command) for
// the metadata tables of tables, the reference the metadata tables
// iceflight serves are compared with, in its package's tests and through
// flightd.
package metacheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// Query is one query of javaref's metatables command: a metadata table of
// the table whose metadata file is MetadataFile, at a snapshot, filtered
// (Iceberg REST Expression JSON) and projected.
type Query struct {
	TableDir     string          `json:"table_dir"`
	MetadataFile string          `json:"metadata_file"`
	Kind         string          `json:"kind"`
	SnapshotID   *int64          `json:"snapshot_id,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
	Columns      []string        `json:"columns,omitempty"`
}

// Answer is what Iceberg Java read for a query: the metadata table's
// schema, the projected one, the tasks it planned and the rows in the
// oracle's canonical JSON form, or why it refused.
type Answer struct {
	Schema     *iceberg.Schema   `json:"schema"`
	Projected  *iceberg.Schema   `json:"projected"`
	SnapshotID *int64            `json:"snapshot_id"`
	Tasks      int               `json:"tasks"`
	Rows       []json.RawMessage `json:"rows"`
	Error      string            `json:"error"`
}

// Ask runs javaref's metatables on the queries, once for them all, or
// skips the test when JAVAREF_JAR does not name the jar.
func Ask(t *testing.T, queries []Query) []Answer {
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
	var answers []Answer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var a Answer
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

// javaRows renders Java's rows of an answer in the canonical form.
func Rows(a Answer) ([]string, error) {
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
