package reader

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/testkit/servers"
)

// pyarrowIndexed is a pyarrow script writing a file of 30,000 rows in two
// row groups, pages of about 2 KiB, with Arrow C++'s page index: id
// ascending, name of 13 values, score with nulls.
const pyarrowIndexed = `
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 30000
ids = pa.array(range(n), pa.int64())
names = pa.array(["n%d" % (i % 13) for i in range(n)], pa.string())
scores = pa.array([None if i % 7 == 0 else i / 4 for i in range(n)], pa.float64())
flags = pa.array([i % 3 == 0 for i in range(n)], pa.bool_())
fid = lambda i: {b"PARQUET:field_id": str(i).encode()}
schema = pa.schema([pa.field("id", pa.int64(), False, fid(1)), pa.field("name", pa.string(), True, fid(2)),
    pa.field("score", pa.float64(), True, fid(3)), pa.field("flag", pa.bool_(), False, fid(4))])
t = pa.Table.from_arrays([ids, names, scores, flags], schema=schema)
pq.write_table(t, sys.argv[1], row_group_size=15000, data_page_size=2048, write_page_index=True,
    compression="zstd", write_batch_size=256)
`

// TestPageIndexOfArrowCpp reads a file whose page index Arrow C++ wrote
// (pyarrow): the filters must skip pages and give the rows a read with
// pqarrow alone gives.
func TestPageIndexOfArrowCpp(t *testing.T) {
	t.Parallel()
	python := servers.Program(t, "PYICEBERG_PYTHON", "servers-sql")
	path := filepath.Join(t.TempDir(), "indexed.parquet")
	if out, err := exec.Command(python, "-c", pyarrowIndexed, path).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := memIO{"indexed.parquet": raw}
	schema := schemaOf(t, `[
		{"id":1,"name":"id","type":"long","required":true},
		{"id":2,"name":"name","type":"string","required":false},
		{"id":3,"name":"score","type":"double","required":false},
		{"id":4,"name":"flag","type":"boolean","required":true}]`)
	for _, filter := range []string{
		"id >= 22500 AND id < 22700",
		"score > 7400.0",
		"id < 300 OR id >= 29950",
		"name = 'n4' AND id >= 100 AND id <= 200",
	} {
		t.Run(filter, func(t *testing.T) {
			t.Parallel()
			checkLateRead(t, files, schema, "indexed.parquet", filter, schema, true, true)
		})
	}
}
