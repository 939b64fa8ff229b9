package sqlcat_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
)

// javarefEnv names tools/javaref's jar, which `make test` builds.
const javarefEnv = "JAVAREF_JAR"

// writeWithJava writes the tables of javaref's jdbcwrite (JdbcWrite.java)
// through Iceberg Java's JdbcCatalog name at the JDBC URL uri, with a
// warehouse below dir. schemaVersion is JdbcCatalog's jdbc.schema-version;
// V1 also writes a view, which no list may show.
func writeWithJava(t *testing.T, uri, user, password, name, dir, schemaVersion string) written {
	t.Helper()
	jar := servers.Program(t, javarefEnv, "test")
	out := filepath.Join(dir, "java-rows-"+name)
	args := []string{"-cp", jar, "io.iceflight.javaref.Main", "jdbcwrite", "--uri", uri,
		"--warehouse", filepath.Join(dir, "warehouse-"+name), "--name", name, "--out", out, "--schema-version", schemaVersion}
	if user != "" {
		args = append(args, "--user", user, "--password", password)
	}
	cmd := exec.Command("java", args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("JdbcCatalog writer: %v\n%s", err, b)
	}
	return written{tables: []string{"a.b.logs", "sales.items"}, namespaces: []string{"a", "empty", "sales"}, rows: out}
}

func TestJavaJdbcCatalogSQLite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, version string
		uri           func(path string) string
	}{
		{"schema V1 with a view, read through Java's JDBC URL", "V1", func(p string) string { return "jdbc:sqlite:" + p }},
		{"schema V0, read through PyIceberg's URL", "V0", func(p string) string { return "sqlite:///" + p }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "catalog.db")
			w := writeWithJava(t, "jdbc:sqlite:"+path, "", "", "lake", dir, tc.version)
			if got := hasIcebergType(t, "sqlite", "file:"+path); got != (tc.version == "V1") {
				t.Fatalf("iceberg_type column present: %v; the writer did not make schema %s", got, tc.version)
			}
			cat, err := sqlcat.New(context.Background(), "lake", fileio.Properties{sqlcat.PropURI: tc.uri(path)}, sqlcat.WithFileIO(localIO))
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			checkTables(t, cat, w)
		})
	}
}
