package reader

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// The corpus tables below are read the way a ticket would have them read:
// tasks are built here from the table's metadata and manifests, with the
// delete files the spec says apply, and the rows must equal, as a
// multiset, the rows Iceberg Java read for the current snapshot
// (testdata/conformance/<table>/current.jsonl).

const oracleDir = "../testdata/conformance"

var (
	corpusCatalogOnce sync.Once
	corpusCatalog     *catalog.Directory
	corpusCatalogErr  error
)

func corpusWarehouse(t *testing.T) *catalog.Directory {
	t.Helper()
	root := filepath.Join(corpusDir, "tables")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", root, err)
	}
	corpusCatalogOnce.Do(func() { corpusCatalog, corpusCatalogErr = catalog.NewDirectory(root) })
	if corpusCatalogErr != nil {
		t.Fatal(corpusCatalogErr)
	}
	return corpusCatalog
}

// oracleScan reads the schema and rows of the oracle's current scan.
func oracleScan(t *testing.T, table string) (*iceberg.Schema, []string) {
	t.Helper()
	return oracleScanIn(t, oracleDir, table)
}

// oracleScanIn reads the oracle's current scan of table from dir, which is
// laid out as testdata/conformance.
func oracleScanIn(t *testing.T, dir, table string) (*iceberg.Schema, []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, table, "index.json"))
	if err != nil {
		t.Fatalf("oracle index: %v", err)
	}
	var idx struct {
		Scans []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			File   string          `json:"file"`
			Error  string          `json:"error"`
		} `json:"scans"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	for _, s := range idx.Scans {
		if s.Name != "current" {
			continue
		}
		if s.Error != "" {
			t.Skipf("the oracle failed on %s: %s", table, s.Error)
		}
		var schema iceberg.Schema
		if err := json.Unmarshal(s.Schema, &schema); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, table, s.File))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var rows []string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			row, err := testutil.OracleRow(&schema, sc.Bytes())
			if err != nil {
				t.Fatalf("oracle row: %v", err)
			}
			rows = append(rows, row)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		return &schema, rows
	}
	t.Fatalf("no current scan for %s", table)
	return nil, nil
}

// readCorpusTable reads the current snapshot of a corpus table and
// returns its canonical rows, the oracle's rows and the tasks read.
func readCorpusTable(t *testing.T, table string) (got, want []string, tasks []*scantask.Task) {
	t.Helper()
	return readCorpusTableWith(t, table, func(fio fileio.FileIO) fileio.FileIO { return fio })
}

// readCorpusTableWith is readCorpusTable with the reader's FileIO the
// table's, wrapped by wrap.
func readCorpusTableWith(t *testing.T, table string, wrap func(fileio.FileIO) fileio.FileIO) (got, want []string, tasks []*scantask.Task) {
	t.Helper()
	got, want, tasks, _ = readCorpusTableStats(t, table, wrap)
	return got, want, tasks
}

// readCorpusTableStats is readCorpusTableWith with more reader options,
// returning the reader's totals too.
func readCorpusTableStats(t *testing.T, table string, wrap func(fileio.FileIO) fileio.FileIO, opts ...Option) (got, want []string, tasks []*scantask.Task, stats Stats) {
	t.Helper()
	wh := corpusWarehouse(t)
	tbl, err := wh.LoadTable(context.Background(), catalog.Identifier{table})
	if err != nil {
		t.Fatalf("load %s: %v", table, err)
	}
	schema, want := oracleScan(t, table)
	mapping, err := tbl.Metadata.NameMapping()
	if err != nil {
		t.Fatal(err)
	}
	tasks, eq := corpusTasks(t, tbl, schema)
	mem := checkedAlloc(t)
	r := New(wrap(tbl.IO), append([]Option{WithAllocator(mem), WithBatchSize(500), WithValidation(true)}, opts...)...)
	scan := Scan{Schema: schema, NameMapping: mapping, EqualitySchema: eq}
	for _, task := range tasks {
		err := r.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
			rows, err := testutil.ArrowRows(schema, rec)
			got = append(got, rows...)
			return err
		})
		if err != nil {
			t.Fatalf("read %s: %v", task.Path, err)
		}
	}
	return got, want, tasks, r.Stats()
}

func checkCorpusTable(t *testing.T, table string) {
	got, want, tasks := readCorpusTable(t, table)
	deletes := 0
	for _, task := range tasks {
		deletes += len(task.Deletes)
	}
	if d := testutil.DiffRows(got, want); d != "" {
		t.Errorf("%s: %s", table, d)
		return
	}
	t.Logf("%s: %d rows equal the oracle's (%d tasks, %d delete attachments)", table, len(got), len(tasks), deletes)
}

// TestCorpusMatchesOracle reads the current snapshot of every corpus table
// the oracle read, with the delete files that apply, and compares the rows
// with Iceberg Java's. Among them are the delete tables (position deletes,
// equality deletes, deletion vectors; the Impala tables whose delete files
// spell paths as hdfs://localhost:20500/... keep every row, as in Java) and
// the Avro table apache-impala__iceberg_v3_default_value_avro.
func TestCorpusMatchesOracle(t *testing.T) {
	t.Parallel()
	ents, err := os.ReadDir(oracleDir)
	if err != nil {
		t.Skipf("oracle rows not found: %v", err)
	}
	corpusWarehouse(t)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		table := e.Name()
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			checkCorpusTable(t, table)
		})
	}
}

// TestCorpusImpalaDeletePaths reads the Impala tables whose position
// delete files name data files as hdfs://localhost:20500/test-warehouse/...
// while the manifests say /test-warehouse/...: with the data file's path
// spelled as the delete files spell it, the deletes apply, and the row
// counts must be Impala's (SELECT count(*) in /work/shared/conformance/
// expected). This reads Impala's Parquet and ORC position delete files,
// across the row groups of a multi-block data file.
func TestCorpusImpalaDeletePaths(t *testing.T) {
	t.Parallel()
	wh := corpusWarehouse(t)
	tests := []struct {
		table string
		rows  int
	}{
		{"apache-impala__iceberg_lineitem_multiblock", 17886},
		{"apache-impala__iceberg_v2_delete_positional", 2},
		{"apache-impala__iceberg_v2_partitioned_position_deletes", 10},
		{"apache-impala__iceberg_v2_partitioned_position_deletes_orc", 10},
		{"apache-impala__iceberg_v2_positional_delete_all_rows", 0},
		{"apache-impala__iceberg_v2_positional_delete_all_rows_orc", 0},
		{"apache-impala__iceberg_v2_positional_not_all_data_files_have_delete_files", 6},
		{"apache-impala__iceberg_v2_positional_not_all_data_files_have_delete_files_orc", 6},
		{"apache-impala__iceberg_v2_positional_update_all_rows", 3},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			t.Parallel()
			tbl, err := wh.LoadTable(context.Background(), catalog.Identifier{tc.table})
			if err != nil {
				t.Fatal(err)
			}
			schema := tbl.Metadata.CurrentSchema()
			tasks, _ := corpusTasks(t, tbl, schema)
			mem := checkedAlloc(t)
			r := New(tbl.IO, WithAllocator(mem), WithValidation(true))
			rows, deletes := 0, 0
			for _, task := range tasks {
				if strings.HasPrefix(task.FilePath, "/") {
					task.FilePath = "hdfs://localhost:20500" + task.FilePath
				}
				deletes += len(task.Deletes)
				err := r.Read(context.Background(), Scan{Schema: schema}, task, func(rec arrow.RecordBatch) error {
					rows += int(rec.NumRows())
					return nil
				})
				if err != nil {
					t.Fatalf("read %s: %v", task.Path, err)
				}
			}
			if deletes == 0 {
				t.Fatalf("no delete files attached")
			}
			if rows != tc.rows {
				t.Errorf("%d rows, Impala counts %d", rows, tc.rows)
			}
		})
	}
}

// TestCorpusRowLineage reads the v3 row-lineage columns of a table whose
// compaction stored them in its data file; Impala's expected results
// (iceberg-v3-row-lineage.test: select i, _row_id,
// _last_updated_sequence_number) are 1,0,1 / 2,1,2 / 3,2,3.
func TestCorpusRowLineage(t *testing.T) {
	t.Parallel()
	wh := corpusWarehouse(t)
	for _, table := range []string{"apache-impala__iceberg_v3_row_lineage", "apache-impala__iceberg_v3_row_lineage_orc"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			tbl, err := wh.LoadTable(context.Background(), catalog.Identifier{table})
			if err != nil {
				t.Fatal(err)
			}
			rowID, _ := iceberg.MetadataColumn("_row_id")
			seq, _ := iceberg.MetadataColumn("_last_updated_sequence_number")
			schema := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), tbl.Metadata.CurrentSchema().Fields...), rowID, seq)...)
			tasks, _ := corpusTasks(t, tbl, schema)
			mem := checkedAlloc(t)
			r := New(tbl.IO, WithAllocator(mem), WithValidation(true))
			var got []string
			for _, task := range tasks {
				res := readAll(t, r, Scan{Schema: schema}, task)
				if res.err != nil {
					t.Fatal(res.err)
				}
				for _, row := range res.rows {
					got = append(got, fmt.Sprintf("%v,%v,%v", row["i"], row["_row_id"], row["_last_updated_sequence_number"]))
				}
			}
			sort.Strings(got)
			if want := []string{"1,0,1", "2,1,2", "3,2,3"}; !reflect.DeepEqual(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		})
	}
}
