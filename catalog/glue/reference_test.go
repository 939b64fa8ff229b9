package glue_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsglue "github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/glue"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/servers/moto"
)

// The reference implementations, by the environment variables make sets.
const (
	javarefEnv = "JAVAREF_JAR"
	pythonEnv  = "PYICEBERG_PYTHON"
)

// client returns a Glue client of srv made with the SDK alone, to see
// what the catalogs under test wrote.
func client(srv *moto.Server) *awsglue.Client {
	return awsglue.New(awsglue.Options{
		Region:       moto.Region,
		BaseEndpoint: aws.String(srv.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
}

// seenTable is a Glue table as the SDK reads it back.
type seenTable struct {
	version, metadataLocation string
	table                     *types.Table
}

// glueTable reads the Glue table of id.
func glueTable(t *testing.T, srv *moto.Server, id catalog.Identifier) seenTable {
	t.Helper()
	out, err := client(srv).GetTable(context.Background(), &awsglue.GetTableInput{DatabaseName: aws.String(id[0]), Name: aws.String(id[1])})
	if err != nil {
		t.Fatalf("get Glue table %s: %v", id, err)
	}
	return seenTable{aws.ToString(out.Table.VersionId), out.Table.Parameters["metadata_location"], out.Table}
}

// written is what Java's GlueCatalog and iceflight write of a Glue table,
// in a form to compare and print.
type written struct {
	TableType, Description string
	Parameters             map[string]string
	Location               string
	AdditionalLocations    []string
	Columns                []writtenColumn
}

type writtenColumn struct {
	Name, Type, Comment string
	Parameters          map[string]string
}

func writtenOf(t *types.Table) written {
	w := written{TableType: aws.ToString(t.TableType), Description: aws.ToString(t.Description), Parameters: t.Parameters}
	if sd := t.StorageDescriptor; sd != nil {
		w.Location, w.AdditionalLocations = aws.ToString(sd.Location), sd.AdditionalLocations
		for _, c := range sd.Columns {
			w.Columns = append(w.Columns, writtenColumn{aws.ToString(c.Name), aws.ToString(c.Type), aws.ToString(c.Comment), c.Parameters})
		}
	}
	return w
}

// TestGlueTablesAsJavaWritesThem has Iceberg Java's GlueCatalog create a
// table, and create and evolve (rename a column, add one, set a comment
// and a data path) another, in moto; then iceflight points tables of its
// own at the same metadata files, by create (Insert) and by commit (Swap
// from the evolved table's previous file to its current one). Every field
// Java writes must be the same: the table type, the parameters, the
// description, the location, the additional locations and the mirrored
// columns with their types and iceberg.field.* parameters.
func TestGlueTablesAsJavaWritesThem(t *testing.T) {
	t.Parallel()
	jar := servers.Program(t, javarefEnv, "javaref")
	srv := moto.Start(t)
	wh := t.TempDir()
	java := exec.Command("java", "-cp", jar, filepath.Join("testdata", "JavaGlueWrite.java"), srv.Endpoint, wh)
	java.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.SecretKey)
	if out, err := java.CombinedOutput(); err != nil {
		t.Fatalf("Java's GlueCatalog: %v\n%s", err, out)
	}
	ctx := context.Background()
	store, err := glue.New(ctx, srv.Props())
	must(t, err)
	io := fileio.NewResolver()
	read := func(loc string) *iceberg.TableMetadata {
		md, _, err := catalog.ReadMetadata(ctx, io, loc, 0)
		must(t, err)
		return md
	}

	created := glueTable(t, srv, catalog.Identifier{"jdb", "created"})
	mine := catalog.Identifier{"jdb", "mine_created"}
	must(t, store.Insert(ctx, mine, created.metadataLocation, read(created.metadataLocation)))
	compareWritten(t, "created", writtenOf(glueTable(t, srv, mine).table), writtenOf(created.table))

	evolved := glueTable(t, srv, catalog.Identifier{"jdb", "evolved"})
	base := evolved.table.Parameters["previous_metadata_location"]
	if base == "" {
		t.Fatalf("Java's evolved table has no previous_metadata_location: %v", evolved.table.Parameters)
	}
	mine = catalog.Identifier{"jdb", "mine_evolved"}
	must(t, store.Insert(ctx, mine, base, read(base)))
	must(t, store.Swap(ctx, mine, base, evolved.metadataLocation, read(evolved.metadataLocation)))
	compareWritten(t, "evolved", writtenOf(glueTable(t, srv, mine).table), writtenOf(evolved.table))
}

func compareWritten(t *testing.T, what string, got, want written) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s: iceflight wrote\n%s\nIceberg Java wrote\n%s", what, g, w)
	}
}

// TestOtherFormatsAreNotIceberg: a Glue table without table_type=ICEBERG
// (in any case) is no table of the catalog: not listed, not loaded, not
// dropped, not renamed; its database is not empty.
func TestOtherFormatsAreNotIceberg(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	cat := open(t, srv.Props())
	ctx := context.Background()
	must(t, cat.CreateNamespace(ctx, []string{"db"}, nil))
	ours, err := cat.CreateTable(ctx, catalog.Identifier{"db", "ours"}, committest.NewMetadata(t, "", nil))
	must(t, err)
	gc := client(srv)
	for name, params := range map[string]map[string]string{
		"hive":     {"table_type": "HIVE", "metadata_location": ours.MetadataLocation},
		"bare":     nil,
		"lower":    {"table_type": "iceberg", "metadata_location": ours.MetadataLocation},
		"no_param": {"metadata_location": ours.MetadataLocation},
	} {
		_, err := gc.CreateTable(ctx, &awsglue.CreateTableInput{DatabaseName: aws.String("db"), TableInput: &types.TableInput{
			Name: aws.String(name), TableType: aws.String("EXTERNAL_TABLE"), Parameters: params,
		}})
		must(t, err)
	}
	ids, err := cat.ListTables(ctx)
	must(t, err)
	if want := []catalog.Identifier{{"db", "lower"}, {"db", "ours"}}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("tables %v, want %v: table_type is ICEBERG in any case", ids, want)
	}
	if _, err := cat.LoadTable(ctx, catalog.Identifier{"db", "lower"}); err != nil {
		t.Fatalf("load a table whose table_type is iceberg: %v", err)
	}
	for _, name := range []string{"hive", "bare", "no_param"} {
		id := catalog.Identifier{"db", name}
		_, err := cat.LoadTable(ctx, id)
		wantErr(t, "load "+name, err, catalog.ErrTableNotFound)
		wantErr(t, "drop "+name, cat.DropTable(ctx, id, false), catalog.ErrTableNotFound)
		wantErr(t, "rename "+name, cat.RenameTable(ctx, id, catalog.Identifier{"db", name + "_2"}), catalog.ErrTableNotFound)
		glueTable(t, srv, id) // still there
	}
	must(t, cat.DropTable(ctx, catalog.Identifier{"db", "ours"}, false))
	must(t, cat.DropTable(ctx, catalog.Identifier{"db", "lower"}, false))
	wantErr(t, "drop a database that holds other tables", cat.DropNamespace(ctx, []string{"db"}), catalog.ErrNamespaceNotEmpty)
}
