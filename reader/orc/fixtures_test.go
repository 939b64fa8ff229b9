package orc

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The files under testdata/pyarrow were written by Apache ORC's C++ writer
// through pyarrow (see gen.py and testdata/README.md); each comes with the
// rows its writer was given. Files written by ORC Java, Hive and Spark are
// read from the conformance corpus (corpus_oracle_test.go), and what no
// writer at hand produces is assembled in handmade_test.go.

// expectedRows reads a gzipped file of JSON objects, one per row.
func expectedRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	dec.UseNumber()
	var rows []map[string]any
	for dec.More() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, row)
	}
	return rows
}

// checkRows compares every decoded row with the expected ones, column by
// column, stopping after a few differences.
func checkRows(t *testing.T, d *decoded, want []map[string]any) {
	t.Helper()
	if d.rows != int64(len(want)) {
		t.Fatalf("decoded %d rows, want %d", d.rows, len(want))
	}
	row, errs := 0, 0
	for _, rec := range d.recs {
		for r := range int(rec.NumRows()) {
			for c, f := range rec.Schema().Fields() {
				w, ok := want[row][f.Name]
				if !ok {
					t.Fatalf("expected rows have no column %s", f.Name)
				}
				if err := match(rec.Column(c), r, w); err != nil {
					t.Errorf("row %d column %s: %v", row, f.Name, err)
					if errs++; errs > 10 {
						t.FailNow()
					}
				}
			}
			row++
		}
	}
}

func TestFixturesMatchTheirWriters(t *testing.T) {
	t.Parallel()
	const pyarrowRows = "pyarrow/rows.jsonl.gz"
	cases := []struct {
		name, file, want string
		head             int // how many of the expected rows the file holds; all when 0
		columns          []int
	}{
		{"C++ writer, uncompressed, RLE v2, six stripes", "pyarrow/rows-none.orc", pyarrowRows, 0, nil},
		{"C++ writer, ZLIB, dictionaries", "pyarrow/rows-zlib.orc", pyarrowRows, 0, nil},
		{"C++ writer, SNAPPY", "pyarrow/rows-snappy.orc", pyarrowRows, 0, nil},
		{"C++ writer, LZ4, dictionaries", "pyarrow/rows-lz4.orc", pyarrowRows, 0, nil},
		{"C++ writer, ZSTD", "pyarrow/rows-zstd.orc", pyarrowRows, 0, nil},
		{"C++ writer, Hive 0.11 format: RLE v1", "pyarrow/rows-v0.11.orc", pyarrowRows, 0, nil},
		{"C++ writer, row indexes and bloom filters", "pyarrow/head-zlib.orc", pyarrowRows, 20, nil},
		// Column 2, the union, and its variants 3 and 4 are left out.
		{"C++ writer, columns beside a union", "pyarrow/union.orc", "pyarrow/union.jsonl.gz", 0, []int{1, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			path := filepath.Join("testdata", c.file)
			d, err := decodeFile(t, mem, path, ReadOptions{Columns: c.columns, BatchSize: 777})
			if err != nil {
				t.Fatal(err)
			}
			want := expectedRows(t, filepath.Join("testdata", c.want))
			if c.head > 0 {
				want = want[:c.head]
			}
			checkRows(t, d, want)
			if c.columns == nil {
				checkProjections(t, mem, path, d)
			}
		})
	}
}

func TestUnionColumnsAreRefused(t *testing.T) {
	t.Parallel()
	_, err := decodeFile(t, checkedAlloc(t), filepath.Join("testdata", "pyarrow", "union.orc"), ReadOptions{})
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}
