package writecheck_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// pyItems writes testdata/pywrite.py's db.items with PyIceberg into a
// SQLite catalog below dir and returns the table.
func pyItems(t *testing.T, dir string) writecheck.Table {
	t.Helper()
	python := servers.Program(t, writecheck.PythonEnv, "servers-sql")
	db := filepath.Join(dir, "catalog.db")
	script, _ := filepath.Abs(filepath.Join("testdata", "pywrite.py"))
	cmd := exec.Command(python, script, "--uri", "sqlite:///"+db, "--warehouse", "file://"+filepath.Join(dir, "wh"), "--name", "lake")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("PyIceberg writer: %v\n%s", err, b)
	}
	return writecheck.Table{SQLite: db, Catalog: "lake", Name: "db.items"}
}

// itemsRows are pywrite.py's rows left after its delete, computed from its
// formula.
func itemsRows(t *testing.T, r *writecheck.Report) []string {
	t.Helper()
	var rows []string
	for i := 0; i < 30; i++ {
		if i%5 == 0 {
			continue
		}
		name := fmt.Sprintf("%q", fmt.Sprintf("n%d", i))
		if i%7 == 3 {
			name = "null"
		}
		line := fmt.Sprintf(`{"id":%d,"name":%s,"price":"%d.%02d","day":%d}`, i, name, i*125/100, i*125%100, 20454+i)
		row, err := testutil.OracleRow(&r.Schema, []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	return rows
}

func TestPyIcebergTableChecksCleanInJavaAndPyIceberg(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tb := pyItems(t, dir)
	r := writecheck.Java(t, tb)
	r.Clean(t)
	if r.FormatVersion != 2 || len(r.Snapshots) != 4 {
		t.Fatalf("format %d with %d snapshots, want 2 with 3 appends and a delete", r.FormatVersion, len(r.Snapshots))
	}
	want := itemsRows(t, r)
	byMetadata := writecheck.Table{MetadataLocation: r.MetadataLocation}
	writecheck.Same(t, "PyIceberg's db.items", want, map[string][]string{
		"Iceberg Java":                 r.Current(t),
		"PyIceberg through SqlCatalog": writecheck.Python(t, tb, &r.Schema, 0),
		"PyIceberg from metadata":      writecheck.Python(t, byMetadata, &r.Schema, 0),
		"Iceberg Java from metadata":   writecheck.Java(t, byMetadata).Current(t),
	})
	if extra := writecheck.Unreachable(t, r.Location, r.Files); len(extra) != 0 {
		t.Errorf("files of no snapshot below %s: %v", r.Location, extra)
	}
	if gone := writecheck.Missing(r.Files); len(gone) != 0 {
		t.Errorf("reachable files missing: %v", gone)
	}
	// The first append's snapshot: rows 0..9.
	first := r.Snapshots[0]
	if first.Recomputed["total-records"] != 10 || first.Summary["total-records"] != "10" {
		t.Errorf("first snapshot recomputed %v, summary %v; want 10 records", first.Recomputed, first.Summary)
	}
	old := writecheck.Java(t, tb, first.SnapshotID)
	if n := len(old.Rows[fmt.Sprintf("snapshot-%d", first.SnapshotID)]); n != 10 {
		t.Errorf("snapshot %d reads %d rows in Java, want 10", first.SnapshotID, n)
	}
	if n := len(writecheck.Python(t, tb, &r.Schema, first.SnapshotID)); n != 10 {
		t.Errorf("snapshot %d reads %d rows in PyIceberg, want 10", first.SnapshotID, n)
	}
}

func TestJavaJdbcTablesCheckClean(t *testing.T) {
	t.Parallel()
	jar := servers.Program(t, writecheck.JavaEnv, "test")
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	out := filepath.Join(dir, "rows")
	cmd := exec.Command("java", "-cp", jar, "io.iceflight.javaref.Main", "jdbcwrite", "--uri", "jdbc:sqlite:"+db,
		"--warehouse", filepath.Join(dir, "wh"), "--name", "lake", "--out", out, "--schema-version", "V1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("JdbcCatalog writer: %v\n%s", err, b)
	}
	for _, name := range []string{"sales.items", "a.b.logs"} {
		t.Run(name, func(t *testing.T) {
			tb := writecheck.Table{SQLite: db, Catalog: "lake", Name: name}
			r := writecheck.Java(t, tb)
			r.Clean(t)
			want, err := testutil.OracleFile(&r.Schema, filepath.Join(out, "lake."+name+".jsonl"))
			if err != nil {
				want, err = testutil.OracleFile(&r.Schema, filepath.Join(out, name+".jsonl"))
			}
			if err != nil {
				t.Fatal(err)
			}
			writecheck.Same(t, name, want, map[string][]string{
				"tablecheck": r.Current(t),
				"PyIceberg":  writecheck.Python(t, tb, &r.Schema, 0),
			})
		})
	}
}

// TestTablecheckFindsBrokenTables breaks a good table in the ways a wrong
// writer would and expects Iceberg Java's check to say so.
func TestTablecheckFindsBrokenTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := writecheck.Java(t, pyItems(t, dir))
	r.Clean(t)
	md := writecheck.LocalPath(r.MetadataLocation)
	raw, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a summary's total-records that the entries do not add up to", func(t *testing.T) {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, s := range doc["snapshots"].([]any) {
			summary := s.(map[string]any)["summary"].(map[string]any)
			if summary["total-records"] != nil {
				summary["total-records"] = "999"
			}
		}
		b, _ := json.Marshal(doc)
		bad := filepath.Join(filepath.Dir(md), "99999-bad-summary.metadata.json")
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := writecheck.Java(t, writecheck.Table{MetadataLocation: bad})
		if !anyContains(got.Errors, "summary total-records=999") {
			t.Errorf("errors %v, want the wrong total-records named", got.Errors)
		}
	})
	t.Run("a data file gone and a stray file", func(t *testing.T) {
		var data string
		for _, f := range r.Files {
			if strings.HasSuffix(f, ".parquet") {
				data = f
			}
		}
		if err := os.Rename(writecheck.LocalPath(data), writecheck.LocalPath(data)+".moved"); err != nil {
			t.Fatal(err)
		}
		got := writecheck.Java(t, writecheck.Table{MetadataLocation: r.MetadataLocation})
		if !anyContains(got.Errors, data) {
			t.Errorf("errors %v, want the missing %s named", got.Errors, data)
		}
		if gone := writecheck.Missing(got.Files); len(gone) != 1 || gone[0] != data {
			t.Errorf("missing %v, want [%s]", gone, data)
		}
		stray := writecheck.Unreachable(t, r.Location, got.Files)
		if len(stray) != 2 || !anyContains(stray, ".parquet.moved") || !anyContains(stray, "99999-bad-summary") {
			t.Errorf("unreachable %v, want the bad metadata file and the moved data file", stray)
		}
	})
}

func anyContains(list []string, s string) bool {
	for _, e := range list {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

// TestReferenceWritersCheckClean runs tablecheck on tables of
// testdata/writers that Spark, Iceberg Java and PyIceberg wrote (deletes,
// deletion vectors, evolution, nested types, Avro files): a check that
// flags any of them is wrong, not the writer.
func TestReferenceWritersCheckClean(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{
		"spark/db/mor_v3", "spark/db/nested", "spark/db/avro_files", "pyiceberg/defaults/deletes",
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			r := writecheck.Java(t, writecheck.Table{Dir: filepath.Join("..", "..", "testdata", "writers", dir)})
			r.Clean(t)
			if len(r.Snapshots) == 0 || len(r.Files) == 0 {
				t.Errorf("%d snapshots and %d files checked", len(r.Snapshots), len(r.Files))
			}
		})
	}
}
