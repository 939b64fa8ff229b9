package sqlcat_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/testkit/writecheck"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/writer"
)

// javaLake is a SQLite catalog "lake" that Iceberg Java's JdbcCatalog
// wrote (javaref jdbcwrite), opened writable by our SQL catalog.
type javaLake struct {
	jar, uri, warehouse string
	cat                 *sqlcat.Catalog
}

func newJavaLake(t *testing.T) javaLake {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.db")
	writeWithJava(t, "jdbc:sqlite:"+path, "", "", "lake", dir, "V1")
	l := javaLake{
		jar:       servers.Program(t, javarefEnv, "test"),
		uri:       "jdbc:sqlite:" + path,
		warehouse: filepath.Join(dir, "warehouse-lake"),
	}
	l.cat = openWritable(t, "lake", fileio.Properties{sqlcat.PropURI: "sqlite:///" + path, sqlcat.PropWarehouse: l.warehouse})
	return l
}

// java runs a javaref subcommand and returns its standard output.
func (l javaLake) java(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("java", append([]string{"-cp", l.jar, "io.iceflight.javaref.Main"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("javaref %s: %v\n%s", args[0], err, stderr.String())
	}
	return string(out)
}

// files returns every file below the warehouse.
func (l javaLake) files(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(l.warehouse, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPurgeDeletesWhatJavaDropTableDataDeletes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		table catalog.Identifier
		java  []string
	}{
		{"partitioned table of two appends", catalog.Identifier{"sales", "items"}, nil},
		{"manifests with DELETED entries after a partition delete", catalog.Identifier{"sales", "items"}, []string{"--delete-where", "kind=k1"}},
		{"table in a nested namespace", catalog.Identifier{"a", "b", "logs"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newJavaLake(t)
			args := append([]string{"dropfiles", "--uri", l.uri, "--warehouse", l.warehouse, "--name", "lake", "--table", tc.table.String()}, tc.java...)
			want := strings.Fields(l.java(t, args...))
			if len(want) == 0 {
				t.Fatal("Java's dropTableData deletes nothing")
			}
			before := l.files(t)
			if err := l.cat.DropTable(context.Background(), tc.table, true); err != nil {
				t.Fatal(err)
			}
			after := l.files(t)
			var deleted []string
			for _, f := range before {
				if !slices.Contains(after, f) {
					deleted = append(deleted, f)
				}
			}
			slices.Sort(want)
			if !slices.Equal(deleted, want) {
				t.Errorf("purge deleted\n  %s\nIceberg Java's dropTableData deletes\n  %s", strings.Join(deleted, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestPurgeAfterRenameKeepsNewTable is the REST Compatibility Kit's
// dropAfterRenameDoesntCorruptTable: a renamed table keeps its location,
// a new table of the old name is made there, and purging the renamed one
// must leave the new one whole, as Iceberg Java reads it.
func TestPurgeAfterRenameKeepsNewTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newJavaLake(t)
	items, renamed := catalog.Identifier{"sales", "items"}, catalog.Identifier{"sales", "items_old"}
	old, err := l.cat.LoadTable(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.cat.RenameTable(ctx, items, renamed); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	w := writer.New(l.cat)
	if _, err := w.CreateTable(ctx, items, writer.CreateTable{Schema: schema, Location: old.Metadata.Location}); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{100: "a", 101: "b", 102: "c"}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, id := range []int64{100, 101, 102} {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(want[id])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if _, err := w.Write(ctx, items, writer.WriteRequest{}, rr); err != nil {
		t.Fatal(err)
	}

	if err := l.cat.DropTable(ctx, renamed, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old.MetadataLocation); !os.IsNotExist(err) {
		t.Errorf("the purged table's metadata %s is still there (%v)", old.MetadataLocation, err)
	}
	cur, err := l.cat.LoadTable(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	report := writecheck.Java(t, writecheck.Table{MetadataLocation: cur.MetadataLocation})
	report.Clean(t)
	for _, line := range report.Current(t) {
		var row struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("row %s: %v", line, err)
		}
		got[row.ID] = row.Name
	}
	if len(got) != len(want) {
		t.Fatalf("Iceberg Java reads %v from the new table, want %v", got, want)
	}
	for id, name := range want {
		if got[id] != name {
			t.Fatalf("Iceberg Java reads %v from the new table, want %v", got, want)
		}
	}
}

// A purge reads every manifest before it deletes: a table with one it
// cannot read is not dropped and loses no file.
func TestPurgeOfUnreadableManifestDeletesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newJavaLake(t)
	items := catalog.Identifier{"sales", "items"}
	var lost string
	for _, f := range l.files(t) {
		if strings.Contains(f, "/sales/items/metadata/") && strings.HasSuffix(f, "-m0.avro") {
			lost = f
			break
		}
	}
	if lost == "" {
		t.Fatal("Java's table has no manifest")
	}
	if err := os.WriteFile(lost, []byte("not avro"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := l.files(t)
	if err := l.cat.DropTable(ctx, items, true); err == nil {
		t.Fatal("purge of a table with a corrupt manifest succeeded")
	}
	if after := l.files(t); !slices.Equal(after, before) {
		t.Errorf("failed purge deleted %d files", len(before)-len(after))
	}
	if _, err := l.cat.LoadTable(ctx, items); err != nil {
		t.Errorf("failed purge dropped the table: %v", err)
	}
}
