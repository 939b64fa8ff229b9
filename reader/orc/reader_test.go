package orc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func openFixture(t *testing.T, name string) *File {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// readAll reads every batch of rr, checking that none exceeds max rows,
// and returns them with their positions.
func readAll(t *testing.T, rr *RecordReader, max int) *decoded {
	t.Helper()
	d := &decoded{schema: rr.Schema()}
	t.Cleanup(func() {
		for _, r := range d.recs {
			r.Release()
		}
	})
	for {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return d
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() > int64(max) {
			t.Errorf("batch of %d rows, batch size %d", rec.NumRows(), max)
		}
		d.recs = append(d.recs, rec)
		d.positions = append(d.positions, rr.Position())
		d.rows += rec.NumRows()
	}
}

func TestSchemaIsTheWritersTypeString(t *testing.T) {
	t.Parallel()
	// gen.py's Arrow schema through Arrow's ORC type mapping (Arrow C++
	// docs, "Reading and Writing ORC files": int8 is BYTE, a timestamp
	// with a zone TIMESTAMP_INSTANT, ...), spelled in ORC's type syntax.
	f := openFixture(t, "pyarrow/rows-zlib.orc")
	want := "struct<b:boolean,i8:tinyint,i16:smallint,i32:int,i64_seq:bigint,i64_down:bigint,i64_delta:bigint," +
		"i64_repeat:bigint,i64_rand:bigint,f32:float,f64:double,s_few:string,s_many:string,bin:binary," +
		"dec_small:decimal(10,2),dec_big:decimal(38,6),d:date,ts:timestamp,tsz:timestamp with local time zone," +
		"lst:array<int>,mp:map<string,bigint>,st:struct<a:int,b:string>," +
		"nested:array<struct<x:bigint,y:array<string>>>>"
	if got := f.Schema().String(); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	// What pyarrow's ORCFile reports: nrows, nstripes, compression.
	if f.NumRows() != 600 || len(f.Stripes()) != 2 || f.Compression() != "ZLIB" {
		t.Errorf("rows %d, stripes %d, compression %s", f.NumRows(), len(f.Stripes()), f.Compression())
	}
}

func TestStripesAndPositions(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-none.orc")
	stripes := f.Stripes()
	if len(stripes) < 3 {
		t.Fatalf("%d stripes; the fixture should have several", len(stripes))
	}
	var first int64
	for i, s := range stripes {
		if s.FirstRow != first {
			t.Errorf("stripe %d starts at row %d, want %d", i, s.FirstRow, first)
		}
		first += s.NumRows
	}
	if first != f.NumRows() {
		t.Errorf("stripes hold %d rows, file %d", first, f.NumRows())
	}
	mem := checkedAlloc(t)
	full, err := f.NewRecordReader(context.Background(), mem, ReadOptions{BatchSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	all := readAll(t, full, 40)
	// Read two stripes out of order: positions are file row numbers, and
	// the rows are those of the full read at those positions.
	pick := []int{2, 0}
	rr, err := f.NewRecordReader(context.Background(), mem, ReadOptions{Stripes: pick, BatchSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	some := readAll(t, rr, 40)
	if want := stripes[2].NumRows + stripes[0].NumRows; some.rows != want {
		t.Fatalf("read %d rows, want %d", some.rows, want)
	}
	if some.positions[0] != stripes[2].FirstRow {
		t.Errorf("first position %d, want %d", some.positions[0], stripes[2].FirstRow)
	}
	for i, rec := range some.recs {
		pos := some.positions[i]
		k := -1
		for j, p := range all.positions {
			if p == pos {
				k = j
			}
		}
		if k < 0 || !array.RecordApproxEqual(rec, all.recs[k], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			t.Errorf("batch at position %d differs from the full read", pos)
		}
	}
}

func TestColumnsComeInTheOrderAsked(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-zlib.orc")
	byName := map[string]int{}
	for _, c := range f.Schema().Children {
		byName[c.Name] = c.ID
	}
	rr, err := f.NewRecordReader(context.Background(), checkedAlloc(t),
		ReadOptions{Columns: []int{byName["nested"], byName["b"], byName["mp"]}})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	d := readAll(t, rr, DefaultBatchSize)
	var names []string
	for _, fl := range d.schema.Fields() {
		names = append(names, fl.Name)
	}
	if len(names) != 3 || names[0] != "nested" || names[1] != "b" || names[2] != "mp" {
		t.Errorf("columns %v", names)
	}
	if d.rows != f.NumRows() {
		t.Errorf("%d rows, want %d", d.rows, f.NumRows())
	}
}

func TestNoColumnsStillCountsRows(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-none.orc")
	rr, err := f.NewRecordReader(context.Background(), checkedAlloc(t), ReadOptions{Columns: []int{}, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if d := readAll(t, rr, 100); d.rows != f.NumRows() || d.schema.NumFields() != 0 {
		t.Errorf("%d rows of %d columns, want %d rows", d.rows, d.schema.NumFields(), f.NumRows())
	}
}

func TestReadOptionsAreChecked(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-zlib.orc")
	var nested int
	for _, c := range f.Schema().Children {
		if c.Name == "lst" {
			nested = c.Children[0].ID
		}
	}
	for name, opts := range map[string]ReadOptions{
		"the root column":       {Columns: []int{0}},
		"a nested column":       {Columns: []int{nested}},
		"a column twice":        {Columns: []int{1, 1}},
		"a column out of range": {Columns: []int{1000}},
		"a stripe out of range": {Stripes: []int{len(f.Stripes())}},
	} {
		if _, err := f.NewRecordReader(context.Background(), memory.DefaultAllocator, opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNextStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-none.orc")
	ctx, cancel := context.WithCancel(context.Background())
	rr, err := f.NewRecordReader(ctx, checkedAlloc(t), ReadOptions{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	rec, err := rr.Next()
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	cancel()
	if _, err := rr.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	rr.Close()
	if _, err := rr.Next(); !errors.Is(err, errClosed) {
		t.Errorf("after Close: err = %v", err)
	}
}

func TestConcurrentReadersShareAFile(t *testing.T) {
	t.Parallel()
	f := openFixture(t, "pyarrow/rows-lz4.orc")
	mem := checkedAlloc(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			rr, err := f.NewRecordReader(context.Background(), mem, ReadOptions{BatchSize: 64})
			if err != nil {
				t.Error(err)
				return
			}
			defer rr.Close()
			n := int64(0)
			for {
				rec, err := rr.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Error(err)
					}
					break
				}
				n += rec.NumRows()
				rec.Release()
			}
			if n != f.NumRows() {
				t.Errorf("%d rows, want %d", n, f.NumRows())
			}
		})
	}
	wg.Wait()
}

func TestOpenRejectsWhatIsNotORC(t *testing.T) {
	t.Parallel()
	good, err := os.ReadFile(filepath.Join("testdata", "pyarrow", "head-zlib.orc"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":                             {},
		"too short":                         []byte("ORC"),
		"a Parquet file's tail":             []byte("PAR1\x00\x00\x00\x00\x15\x00PAR1"),
		"a postscript longer than the file": {'O', 'R', 'C', 0xff},
		"the tail cut off":                  good[:len(good)-10],
		"the head cut off":                  good[100:],
	}
	for name, b := range cases {
		if _, err := Open(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrInvalidFile) {
			t.Errorf("%s: err = %v, want ErrInvalidFile", name, err)
		}
	}
}

func TestCorruptFilesFailWithoutPanic(t *testing.T) {
	t.Parallel()
	// Every single-byte change of a small file either decodes or fails
	// with an error: no panic, no runaway allocation.
	head, err := os.ReadFile(filepath.Join("testdata", "pyarrow", "head-zlib.orc"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := decimalFile(encodingDecimal64, -1, []int64{1}, []int64{5})
	v2.version = []uint64{1, 9999}
	files := [][]byte{head, pacificFile.bytes(), trimmedDecimalFile.bytes(), v2.bytes()}
	for _, good := range files {
		mem := checkedAlloc(t)
		for i := range good {
			flips := []byte{0xff}
			switch {
			case i >= len(good)-256:
				// The tail's protobuf messages: flip single bits too.
				flips = append(flips, 0x01, 0x80)
			case i%3 != 0:
				// Of the stripes' streams, every third byte will do.
				continue
			}
			for _, flip := range flips {
				b := bytes.Clone(good)
				b[i] ^= flip
				decodeBytes(mem, b)
			}
		}
	}
}

// decodeBytes reads every row of an in-memory file, releasing the batches,
// and returns the first error (io.EOF after the last row).
func decodeBytes(mem memory.Allocator, b []byte, opts ...OpenOption) error {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		return err
	}
	rr, err := f.NewRecordReader(context.Background(), mem, ReadOptions{})
	if err != nil {
		return err
	}
	defer rr.Close()
	for {
		rec, err := rr.Next()
		if err != nil {
			return err
		}
		rec.Release()
	}
}
