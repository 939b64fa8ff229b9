package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/servers/moto"
)

// glueNamespace is the Glue database the corpus is registered in.
const glueNamespace = "conformance"

// glueConfig is a flightd configuration of one catalog, glue, of type glue
// reaching srv.
func glueConfig(t *testing.T, srv *moto.Server, warehouse string) string {
	t.Helper()
	text := "catalogs:\n  glue:\n    type: glue\n    warehouse: " + warehouse + "\n"
	for k, v := range srv.Props() {
		text += fmt.Sprintf("    %s: %s\n", k, v)
	}
	return writeFile(t, "iceflight.yaml", text)
}

// TestConformanceCorpusFromGlueMatchesJavaOracle registers every table of
// the conformance corpus in a Glue catalog (moto) by its metadata file, as
// another engine's Glue table (table_type ICEBERG and metadata_location,
// written with the SDK alone), and reads every table and snapshot through
// flightd configured with type glue: equal to the Java oracle.
func TestConformanceCorpusFromGlueMatchesJavaOracle(t *testing.T) {
	needCorpus(t, "conformance glue")
	began := time.Now()
	srv := moto.Start(t)
	expected := filepath.Join("..", "..", "testdata", "conformance")
	corpus, err := filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	registerCorpusInGlue(t, srv, corpus, expected)
	client := dial(t, startServe(t, "--config", glueConfig(t, srv, t.TempDir()), "--listen", "127.0.0.1:0").addr)
	tl := compareServedWithOracle(t, client, "glue."+glueNamespace+".", expected)
	printTally("conformance glue", tl)
	t.Logf("the Glue conformance test took %s", time.Since(began).Round(time.Millisecond))
}

// registerCorpusInGlue creates, in srv's Glue, a database glueNamespace
// holding a Glue table for every table of the oracle's output, pointing at
// the metadata file the oracle read in the corpus at dir.
func registerCorpusInGlue(t *testing.T, srv *moto.Server, dir, expectedDir string) {
	t.Helper()
	ctx := context.Background()
	gc := glue.New(glue.Options{
		Region:       moto.Region,
		BaseEndpoint: aws.String(srv.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
	if _, err := gc.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &types.DatabaseInput{Name: aws.String(glueNamespace)}}); err != nil {
		t.Fatal(err)
	}
	for _, idx := range oracleTables(t, expectedDir) {
		_, err := gc.CreateTable(ctx, &glue.CreateTableInput{DatabaseName: aws.String(glueNamespace), TableInput: &types.TableInput{
			Name:      aws.String(idx.Table),
			TableType: aws.String("EXTERNAL_TABLE"),
			Parameters: map[string]string{
				"table_type":        "ICEBERG",
				"metadata_location": filepath.Join(dir, idx.Table, idx.MetadataFile),
			},
		}})
		if err != nil {
			t.Fatalf("register %s: %v", idx.Table, err)
		}
	}
}

// pyGlueRows reads a table with PyIceberg's GlueCatalog and prints its
// rows as JSON, ordered by id.
const pyGlueRows = `import json, sys
from pyiceberg.catalog.glue import GlueCatalog
endpoint, table = sys.argv[1:3]
cat = GlueCatalog("glue", **{"glue.endpoint": endpoint, "glue.region": "us-east-1",
    "glue.access-key-id": "testing", "glue.secret-access-key": "testing"})
t = cat.load_table(table)
rows = sorted(t.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
print(json.dumps({"snapshot": t.metadata.current_snapshot_id, "rows": rows}))`

// TestGluePutReadByPyIceberg creates a table in the Glue catalog through
// flightd, appends to it twice with DoPut, and reads it back with
// PyIceberg's GlueCatalog from the same Glue: the rows put, at the
// snapshot the last commit answered.
func TestGluePutReadByPyIceberg(t *testing.T) {
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	srv := moto.Start(t)
	fc := serveWrites(t, "--config", glueConfig(t, srv, filepath.Join(t.TempDir(), "wh")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := action(ctx, fc, "create_namespace", map[string]any{"namespace": "glue.db"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	if err := action(ctx, fc, "create_table", newTable("glue.db.people", schema, 2), nil); err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID   int64   `json:"id"`
		Name *string `json:"name"`
	}
	var want []row
	var last int64
	for _, batch := range [][]string{{"ada", "", "grace"}, {"edsger"}} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		b := array.NewRecordBuilder(mem, schema)
		for _, name := range batch {
			id := int64(len(want) + 1)
			b.Field(0).(*array.Int64Builder).Append(id)
			r := row{ID: id}
			if name == "" {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(name)
				r.Name = &name
			}
			want = append(want, r)
		}
		rec := b.NewRecordBatch()
		res, err := put(ctx, fc, putCommand{Table: "glue.db.people", Mode: "append"}, rec)
		rec.Release()
		b.Release()
		mem.AssertSize(t, 0)
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		last = res.SnapshotID
	}
	out, err := exec.Command(python, "-c", pyGlueRows, srv.Endpoint, "db.people").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("PyIceberg: %v\n%s", err, stderr)
	}
	var got struct {
		Snapshot int64 `json:"snapshot"`
		Rows     []row `json:"rows"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("PyIceberg: %v\n%s", err, out)
	}
	same := slices.EqualFunc(got.Rows, want, func(a, b row) bool {
		return a.ID == b.ID && (a.Name == nil) == (b.Name == nil) && (a.Name == nil || *a.Name == *b.Name)
	})
	if got.Snapshot != last || !same {
		t.Fatalf("PyIceberg's GlueCatalog reads snapshot %d with rows %s; flightd committed %d with %d rows", got.Snapshot, out, last, len(want))
	}
}
