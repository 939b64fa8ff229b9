// Package writecheck checks a table iceflight wrote from outside: Iceberg
// Java (tools/javaref's tablecheck) parses every metadata file and every
// manifest entry, recomputes the snapshot summaries and scans the rows;
// PyIceberg 0.12 (tools/pycheck) scans them too. The write tests compare
// both with iceflight's own read and with the rows they wrote.
package writecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// Environment variables naming the checkers, as mk/sql.mk sets them.
const (
	JavaEnv   = "JAVAREF_JAR"
	PythonEnv = "PYICEBERG_PYTHON"
)

// Table says where a checked table is: a metadata file (directory
// warehouses), or a table of a SQL catalog on SQLite.
type Table struct {
	// MetadataLocation is the table's current metadata file.
	MetadataLocation string
	// Dir is the table's folder in a directory warehouse: Iceberg Java
	// finds the current metadata file there itself (the version hint, then
	// the highest vN.metadata.json), as a Hadoop-table reader does.
	Dir string
	// SQLite is the catalog database file, Catalog the catalog's name and
	// Name the table ("db.t"), when the table is loaded through the SQL
	// catalog (JdbcCatalog in Java, SqlCatalog in PyIceberg).
	SQLite, Catalog, Name string
}

func (tb Table) String() string {
	if tb.MetadataLocation != "" {
		return tb.MetadataLocation
	}
	if tb.Dir != "" {
		return tb.Dir
	}
	return fmt.Sprintf("%s in catalog %s (%s)", tb.Name, tb.Catalog, tb.SQLite)
}

// Snapshot is one snapshot as Iceberg Java read it, with the counts of its
// summary recomputed from its manifests' entries.
type Snapshot struct {
	SnapshotID     int64             `json:"snapshot_id"`
	ParentID       *int64            `json:"parent_id"`
	SequenceNumber int64             `json:"sequence_number"`
	Operation      string            `json:"operation"`
	ManifestList   string            `json:"manifest_list"`
	Summary        map[string]string `json:"summary"`
	Recomputed     map[string]int64  `json:"recomputed"`
}

// Scan is one scan tablecheck made.
type Scan struct {
	Name       string         `json:"name"`
	SnapshotID *int64         `json:"snapshot_id"`
	Schema     iceberg.Schema `json:"schema"`
	Rows       int            `json:"rows"`
	File       string         `json:"file"`
	Error      string         `json:"error"`
}

// Report is what Iceberg Java found in a table.
type Report struct {
	MetadataLocation  string         `json:"metadata_location"`
	Location          string         `json:"location"`
	FormatVersion     int            `json:"format_version"`
	CurrentSnapshotID *int64         `json:"current_snapshot_id"`
	Schema            iceberg.Schema `json:"schema"`
	Snapshots         []Snapshot     `json:"snapshots"`
	Scans             []Scan         `json:"scans"`
	// Files are the locations of every file the table reaches: metadata
	// files of the log, manifest lists, manifests, live data and delete
	// files of every snapshot, statistics files.
	Files []string `json:"files"`
	// Errors are the problems found; a well-written table has none.
	Errors []string `json:"errors"`

	// Rows are the canonical rows of each scan, by scan name ("current",
	// "snapshot-ID").
	Rows map[string][]string `json:"-"`
}

// Java runs Iceberg Java's tablecheck on tb (the current snapshot and each
// of snapshots) and returns its report; t fails when the table cannot be
// loaded. It skips t when the jar is not built (fails under make test).
func Java(t testing.TB, tb Table, snapshots ...int64) *Report {
	t.Helper()
	jar := servers.Program(t, JavaEnv, "test")
	out := t.TempDir()
	args := []string{"-cp", jar, "io.iceflight.javaref.Main", "tablecheck", "--out", out}
	if tb.MetadataLocation != "" {
		args = append(args, "--metadata", tb.MetadataLocation)
	} else if tb.Dir != "" {
		args = append(args, "--table-dir", tb.Dir)
	} else {
		args = append(args, "--jdbc-uri", "jdbc:sqlite:"+tb.SQLite, "--catalog", tb.Catalog, "--table", tb.Name)
	}
	for _, id := range snapshots {
		args = append(args, "--snapshot-id", strconv.FormatInt(id, 10))
	}
	cmd := exec.Command("java", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if b, err := cmd.Output(); err != nil {
		t.Fatalf("Iceberg Java tablecheck of %s: %v\n%s%s", tb, err, b, stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatalf("tablecheck of %s: %v", tb, err)
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("tablecheck report of %s: %v", tb, err)
	}
	r.Rows = map[string][]string{}
	for _, s := range r.Scans {
		if s.Error != "" {
			continue
		}
		rows, err := testutil.OracleFile(&s.Schema, filepath.Join(out, s.File))
		if err != nil {
			t.Fatalf("tablecheck rows of %s: %v", tb, err)
		}
		r.Rows[s.Name] = rows
	}
	return &r
}

// Clean fails t with every error Iceberg Java found in the table.
func (r *Report) Clean(t testing.TB) {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Errorf("Iceberg Java finds %d problems in %s:\n  %s", len(r.Errors), r.MetadataLocation, strings.Join(r.Errors, "\n  "))
	}
}

// Current is the canonical rows of the current snapshot; t fails if the
// scan failed.
func (r *Report) Current(t testing.TB) []string {
	t.Helper()
	rows, ok := r.Rows["current"]
	if !ok {
		for _, s := range r.Scans {
			if s.Name == "current" {
				t.Fatalf("Iceberg Java cannot scan %s: %s", r.MetadataLocation, s.Error)
			}
		}
		t.Fatalf("tablecheck of %s made no current scan", r.MetadataLocation)
	}
	return rows
}

// Snapshot returns the snapshot id of r, or nil.
func (r *Report) Snapshot(id int64) *Snapshot {
	for i := range r.Snapshots {
		if r.Snapshots[i].SnapshotID == id {
			return &r.Snapshots[i]
		}
	}
	return nil
}

// Python scans tb with PyIceberg (snapshot 0: the current one; a Dir table
// is not supported, give its MetadataLocation) and
// returns its rows in canonical form against schema. It skips t when the
// PyIceberg venv is missing (fails under make test).
func Python(t testing.TB, tb Table, schema *iceberg.Schema, snapshot int64) []string {
	t.Helper()
	python := servers.Program(t, PythonEnv, "servers-sql")
	args := []string{Script(t)}
	if tb.MetadataLocation != "" {
		args = append(args, "--metadata", tb.MetadataLocation)
	} else {
		args = append(args, "--sql-uri", "sqlite:///"+tb.SQLite, "--catalog", tb.Catalog, "--table", tb.Name)
	}
	if snapshot != 0 {
		args = append(args, "--snapshot-id", strconv.FormatInt(snapshot, 10))
	}
	cmd := exec.Command(python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyIceberg scan of %s: %v\n%s", tb, err, stderr.String())
	}
	var rows []string
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, err := testutil.OracleRow(schema, line)
		if err != nil {
			t.Fatalf("PyIceberg row of %s: %v", tb, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// Script is the path of tools/pycheck/check.py in this checkout.
func Script(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information to find tools/pycheck")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "tools", "pycheck", "check.py")
}

// Same fails t unless every named set of rows equals want (multisets).
func Same(t testing.TB, label string, want []string, got map[string][]string) {
	t.Helper()
	for who, rows := range got {
		if d := testutil.DiffRows(rows, want); d != "" {
			t.Errorf("%s: %s differs from the expected rows: %s", label, who, d)
		}
	}
}
