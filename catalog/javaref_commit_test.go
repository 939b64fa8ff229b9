package catalog_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
)

// TestDirectoryCommitReadByJava checks that Iceberg Java (the javaref
// oracle, which loads tables with HadoopTables) reads a table this
// catalog created and committed to: the metadata files and version hint
// as HadoopTableOperations expects them.
func TestDirectoryCommitReadByJava(t *testing.T) {
	t.Parallel()
	jar := servers.Program(t, "JAVAREF_JAR", "javaref")
	ctx := context.Background()
	d, root := newWritableDirectory(t)
	if err := d.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"db", "t"}
	if _, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CommitTable(ctx, id, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"committed": "yes"}}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("java", "-jar", jar, "oracle", "--root", root, "--out", out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Java oracle: %v\n%s", err, b)
	}
	if msg := string(b); !strings.Contains(msg, " 1 tables, ") || strings.Contains(msg, "FAILED") || !strings.Contains(msg, " 0 scans failed") {
		t.Fatalf("Java oracle: %s", msg)
	}
	// Java reads the committed version, v2, with its property.
	index, err := os.ReadFile(filepath.Join(out, "db.t", "index.json"))
	if err != nil {
		files, _ := filepath.Glob(filepath.Join(out, "*", "*"))
		t.Fatalf("%v; the oracle wrote %v", err, files)
	}
	if !strings.Contains(string(index), `"metadata_file": "metadata/v2.metadata.json"`) {
		t.Fatalf("Java did not read the committed version: %s", index)
	}
}
