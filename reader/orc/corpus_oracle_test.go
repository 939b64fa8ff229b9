package orc

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

func TestCorpusEveryORCFileDecodes(t *testing.T) {
	t.Parallel()
	tables := corpusORCFiles(t)
	n := 0
	for _, files := range tables {
		n += len(files)
	}
	if n != 51 { // 45 data files and 6 position-delete files
		t.Errorf("corpus has %d ORC files, want 51", n)
	}
	for table, files := range tables {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			for _, p := range files {
				d, err := decodeFile(t, mem, p, ReadOptions{BatchSize: 1000})
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				// Batches never exceed the batch size, and positions count
				// the file's rows.
				var pos int64
				for i, r := range d.recs {
					if r.NumRows() > 1000 || d.positions[i] != pos {
						t.Errorf("%s: batch %d has %d rows at position %d, want <= 1000 at %d",
							p, i, r.NumRows(), d.positions[i], pos)
					}
					pos += r.NumRows()
				}
				if d.rows != d.file.NumRows() {
					t.Errorf("%s: decoded %d rows, footer says %d", p, d.rows, d.file.NumRows())
				}
				checkProjections(t, mem, p, d)
			}
		})
	}
}

// batchSize returns the batch size a full read used: its first batch's rows
// unless that batch ended its stripe.
func batchSize(d *decoded) int {
	n := int64(1)
	for _, r := range d.recs {
		n = max(n, r.NumRows())
	}
	return int(n)
}

// checkProjections reads every top-level column alone and checks it equals
// the same column of the full read, batch by batch.
func checkProjections(t *testing.T, mem *memory.CheckedAllocator, path string, full *decoded) {
	t.Helper()
	for i, c := range full.file.Schema().Children {
		one, err := decodeFile(t, mem, path, ReadOptions{Columns: []int{c.ID}, BatchSize: batchSize(full)})
		if err != nil {
			t.Errorf("%s column %s: %v", path, c.Name, err)
			continue
		}
		if len(one.recs) != len(full.recs) {
			t.Errorf("%s column %s: %d batches, full read %d", path, c.Name, len(one.recs), len(full.recs))
			continue
		}
		for b := range one.recs {
			if !array.ApproxEqual(one.recs[b].Column(0), full.recs[b].Column(i), array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Errorf("%s column %s batch %d differs from the full read", path, c.Name, b)
			}
		}
	}
}

func TestCorpusMatchesOracle(t *testing.T) {
	t.Parallel()
	for table := range corpusORCFiles(t) {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			ct := loadCorpusTable(t, table)
			mem := checkedAlloc(t)
			cache := map[string]*decoded{}
			for i, scan := range ct.scans {
				if scan.Error != "" {
					t.Logf("scan %s: the oracle failed (%s); see TestCorpusOracleFailures", scan.Name, scan.Error)
					continue
				}
				var schema iceberg.Schema
				if err := json.Unmarshal(scan.Schema, &schema); err != nil {
					t.Fatal(err)
				}
				var orc []*decoded
				mixed := false
				for _, df := range ct.liveFiles(t, ct.snapshot(i)) {
					if df.Content != iceberg.FileContentData {
						continue
					}
					if df.Format != "ORC" {
						mixed = true
						continue
					}
					d, ok := cache[df.Path]
					if !ok {
						var err error
						if d, err = decodeFile(t, mem, ct.local(t, df.Path), ReadOptions{BatchSize: 1000}); err != nil {
							t.Fatalf("%s: %v", df.Path, err)
						}
						cache[df.Path] = d
					}
					if d.rows != df.RecordCount {
						t.Errorf("%s: decoded %d rows, manifest says %d", df.Path, d.rows, df.RecordCount)
					}
					orc = append(orc, d)
				}
				compareScan(t, ct.name, scan, &schema, orc, mixed)
			}
		})
	}
}

// compareScan checks the rows of the scan's ORC files against the oracle's,
// on the columns every file holds: in order when the scan reads only ORC
// files, else as a sub-multiset.
func compareScan(t *testing.T, table string, scan oracleScan, schema *iceberg.Schema, files []*decoded, mixed bool) {
	t.Helper()
	var compared []iceberg.NestedField
	var skipped []string
	for _, f := range schema.Fields {
		ok := len(files) > 0
		for _, d := range files {
			k := fieldIndex(d.schema.Fields(), f)
			ok = ok && k >= 0 && renders(f.Type, d.schema.Field(k).Type)
		}
		if ok {
			compared = append(compared, f)
		} else {
			skipped = append(skipped, f.Name)
		}
	}
	if len(skipped) > 0 {
		t.Logf("scan %s: columns not in every ORC file (partition or added columns): %s", scan.Name, strings.Join(skipped, ", "))
	}
	if len(compared) == 0 && len(files) > 0 {
		t.Fatalf("scan %s: no column to compare", scan.Name)
	}
	proj := iceberg.NewSchema(schema.ID, compared...)
	var ours []string
	for _, d := range files {
		for _, rec := range d.recs {
			for r := range int(rec.NumRows()) {
				ours = append(ours, ourRow(t, proj, d.schema, rec, r))
			}
		}
	}
	var theirs []string
	for _, line := range oracleLines(t, table, scan.File) {
		row, err := testutil.OracleRow(proj, line)
		if err != nil {
			t.Fatalf("scan %s oracle row: %v", scan.Name, err)
		}
		theirs = append(theirs, row)
	}
	if mixed {
		if missing := subtract(ours, theirs); len(missing) > 0 {
			t.Errorf("scan %s: %d rows not in the oracle's, e.g. %s", scan.Name, len(missing), missing[0])
		}
		return
	}
	if len(ours) != len(theirs) {
		t.Errorf("scan %s: %d rows, oracle %d", scan.Name, len(ours), len(theirs))
	}
	for r := range min(len(ours), len(theirs)) {
		if ours[r] != theirs[r] {
			t.Errorf("scan %s row %d:\n got %s\nwant %s", scan.Name, r, ours[r], theirs[r])
			break
		}
	}
}

func ourRow(t *testing.T, proj *iceberg.Schema, schema *arrow.Schema, rec arrow.RecordBatch, r int) string {
	t.Helper()
	obj := map[string]any{}
	for _, f := range proj.Fields {
		v, err := jsonValue(f.Type, rec.Column(fieldIndex(schema.Fields(), f)), r)
		if err != nil {
			t.Fatalf("column %s row %d: %v", f.Name, r, err)
		}
		obj[f.Name] = v
	}
	line, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	row, err := testutil.OracleRow(proj, line)
	if err != nil {
		t.Fatalf("row %d: %v", r, err)
	}
	return row
}

// subtract returns the rows of a that b does not have, counting repeats.
func subtract(a, b []string) []string {
	left := map[string]int{}
	for _, r := range b {
		left[r]++
	}
	var out []string
	for _, r := range a {
		if left[r] == 0 {
			out = append(out, r)
			continue
		}
		left[r]--
	}
	return out
}

// Iceberg's reserved field ids of position-delete files (Spec: Position
// Delete Files).
const (
	idFilePath = "2147483546"
	idPos      = "2147483545"
)

func TestCorpusPositionDeleteFiles(t *testing.T) {
	t.Parallel()
	seen := 0
	for table := range corpusORCFiles(t) {
		ct := loadCorpusTable(t, table)
		mem := checkedAlloc(t)
		done := map[string]bool{}
		for i := range ct.md.Snapshots {
			for _, df := range ct.liveFiles(t, ct.snapshot(i+1)) {
				if df.Content != iceberg.FileContentPositionDeletes || df.Format != "ORC" || done[df.Path] {
					continue
				}
				done[df.Path] = true
				seen++
				checkDeleteFile(t, ct, mem, df)
			}
		}
	}
	if seen != 6 {
		t.Errorf("checked %d ORC position-delete files, want 6", seen)
	}
}

// checkDeleteFile decodes a position-delete file and checks it against its
// manifest entry and the spec: (file_path, pos) rows sorted by path, then
// position, each naming a row of a data file of the table.
func checkDeleteFile(t *testing.T, ct *corpusTable, mem *memory.CheckedAllocator, df iceberg.DataFile) {
	t.Helper()
	d, err := decodeFile(t, mem, ct.local(t, df.Path), ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", df.Path, err)
	}
	if d.rows != df.RecordCount {
		t.Errorf("%s: %d rows, manifest says %d", df.Path, d.rows, df.RecordCount)
	}
	pathCol, posCol := -1, -1
	for i, f := range d.schema.Fields() {
		switch id, _ := f.Metadata.GetValue(FieldIDKey); id {
		case idFilePath:
			pathCol = i
		case idPos:
			posCol = i
		}
	}
	if pathCol < 0 || posCol < 0 {
		t.Fatalf("%s: no file_path/pos columns in %v", df.Path, d.schema)
	}
	type del struct {
		path string
		pos  int64
	}
	var dels []del
	for _, rec := range d.recs {
		paths := rec.Column(pathCol).(*array.String)
		poss := rec.Column(posCol).(*array.Int64)
		for r := range int(rec.NumRows()) {
			dels = append(dels, del{paths.Value(r), poss.Value(r)})
		}
	}
	if !sort.SliceIsSorted(dels, func(i, j int) bool {
		return dels[i].path < dels[j].path || dels[i].path == dels[j].path && dels[i].pos < dels[j].pos
	}) {
		t.Errorf("%s: rows not sorted by file_path, pos", df.Path)
	}
	rows := map[string]int64{}
	for _, dl := range dels {
		n, ok := rows[dl.path]
		if !ok {
			data, err := decodeFile(t, mem, ct.local(t, dl.path), ReadOptions{Columns: []int{}})
			if err != nil {
				t.Fatalf("%s names %s: %v", df.Path, dl.path, err)
			}
			n = data.file.NumRows()
			rows[dl.path] = n
		}
		if dl.pos < 0 || dl.pos >= n {
			t.Errorf("%s: position %d of %s, which has %d rows", df.Path, dl.pos, dl.path, n)
		}
	}
	t.Logf("%s: %d deletes in %v", df.Path, len(dels), slices.Sorted(maps.Keys(rows)))
}
