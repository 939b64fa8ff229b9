package glue_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/servers/moto"
)

// pyGlue runs PyIceberg's GlueCatalog against moto: "make" creates the
// namespace py and the table py.made and appends three rows to it;
// "append TABLE" appends the same rows to TABLE; "read TABLE" reads it.
// Each prints the table as PyIceberg then sees it.
const pyGlue = `import json, sys
import pyarrow as pa
from pyiceberg.catalog.glue import GlueCatalog
endpoint, warehouse, step = sys.argv[1:4]
cat = GlueCatalog("py", **{"glue.endpoint": endpoint, "glue.region": "us-east-1",
    "glue.access-key-id": "testing", "glue.secret-access-key": "testing", "warehouse": warehouse})
schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
rows = pa.Table.from_pylist([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": None}], schema=schema)
if step == "make":
    cat.create_namespace("py")
    t = cat.create_table("py.made", schema=schema)
    t.append(rows)
else:
    t = cat.load_table(sys.argv[4])
    if step == "append":
        t.append(rows)
t = cat.load_table(t.name())
print(json.dumps({"metadata_location": t.metadata_location, "snapshot": t.metadata.current_snapshot_id,
    "ids": sorted(t.scan().to_arrow().column("id").to_pylist()), "properties": t.properties}))`

// seenByPy is a table as pyGlue prints it.
type seenByPy struct {
	MetadataLocation string            `json:"metadata_location"`
	Snapshot         *int64            `json:"snapshot"`
	IDs              []int64           `json:"ids"`
	Properties       map[string]string `json:"properties"`
}

func runPy(t *testing.T, python string, srv *moto.Server, warehouse string, args ...string) seenByPy {
	t.Helper()
	out, err := exec.Command(python, append([]string{"-c", pyGlue, srv.Endpoint, warehouse}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("PyIceberg %v: %v\n%s", args, err, stderr)
	}
	var s seenByPy
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("PyIceberg %v: %v\n%s", args, err, out)
	}
	return s
}

// TestPyIcebergSharesTheCatalog: a table PyIceberg's GlueCatalog made and
// appended to loads here at PyIceberg's metadata file and snapshot; a
// table made here takes PyIceberg's append (PyIceberg's own swap of the
// pointer), and a commit here after it is what PyIceberg then reads, its
// rows intact.
func TestPyIcebergSharesTheCatalog(t *testing.T) {
	t.Parallel()
	python := servers.Program(t, pythonEnv, "servers-sql")
	srv := moto.Start(t)
	wh := filepath.Join(t.TempDir(), "wh")
	cat := open(t, srv.Props())
	ctx := context.Background()

	made := runPy(t, python, srv, wh, "make")
	tbl, err := cat.LoadTable(ctx, catalog.Identifier{"py", "made"})
	must(t, err)
	if tbl.MetadataLocation != made.MetadataLocation || tbl.Metadata.CurrentSnapshotID == nil || made.Snapshot == nil ||
		*tbl.Metadata.CurrentSnapshotID != *made.Snapshot {
		t.Fatalf("loaded PyIceberg's table at %s, snapshot %v; PyIceberg has %s, snapshot %v",
			tbl.MetadataLocation, tbl.Metadata.CurrentSnapshotID, made.MetadataLocation, made.Snapshot)
	}

	id := catalog.Identifier{"py", "ours"}
	_, err = cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	must(t, err)
	appended := runPy(t, python, srv, wh, "append", id.String())
	tbl, err = cat.LoadTable(ctx, id)
	must(t, err)
	if tbl.MetadataLocation != appended.MetadataLocation || tbl.Metadata.CurrentSnapshotID == nil || *tbl.Metadata.CurrentSnapshotID != *appended.Snapshot {
		t.Fatalf("after PyIceberg's append the table is at %s, PyIceberg says %s", tbl.MetadataLocation, appended.MetadataLocation)
	}
	committed, err := cat.CommitTable(ctx, id, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"owner": "iceflight"}}})
	must(t, err)
	read := runPy(t, python, srv, wh, "read", id.String())
	if read.MetadataLocation != committed.MetadataLocation || read.Properties["owner"] != "iceflight" || !slices.Equal(read.IDs, []int64{1, 2, 3}) {
		t.Fatalf("PyIceberg reads %+v after our commit to %s", read, committed.MetadataLocation)
	}
	if prev := glueTable(t, srv, id).table.Parameters["previous_metadata_location"]; prev != appended.MetadataLocation {
		t.Fatalf("previous_metadata_location %s, want PyIceberg's %s", prev, appended.MetadataLocation)
	}
}
